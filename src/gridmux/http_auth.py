"""Bearer-token authentication for the HTTP transport.

Over HTTP every request must carry ``Authorization: Bearer TOKEN``; without
it, or with another token, the answer is ``401``. The token comes from, in
order:

* ``--http-token-file PATH`` (``GRIDMUX_HTTP_TOKEN_FILE``): the file's first
  line. The file must be private (no access for group or others) and the
  token at least :data:`MIN_LENGTH` characters;
* ``GRIDMUX_HTTP_TOKEN``: the token itself (never a command-line option,
  which every user on the machine can read with ``ps``);
* otherwise a random token made at start-up (256 bits), printed on stderr
  next to the address it unlocks.

It is checked by :class:`BearerToken`, a FastMCP ``TokenVerifier`` (FastMCP's
public auth provider interface), in constant time.
"""

from __future__ import annotations

import hmac
import os
import secrets
import stat
from typing import TYPE_CHECKING

from fastmcp.server.auth import AccessToken, TokenVerifier

if TYPE_CHECKING:
    from gridmux.settings import Settings

#: Tokens shorter than this are refused: they can be guessed.
MIN_LENGTH = 16


class BearerToken(TokenVerifier):
    """Admits requests carrying exactly ``token``."""

    def __init__(self, token: str, *, source: str) -> None:
        super().__init__()
        self._token = token.encode()
        #: Where the token came from: ``generated``, ``file PATH`` or ``GRIDMUX_HTTP_TOKEN``.
        self.source = source

    @property
    def generated(self) -> bool:
        return self.source == "generated"

    def reveal(self) -> str:
        """The token (printed at start-up when it was generated)."""
        return self._token.decode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token="[bearer]", client_id="gridmux-http", scopes=[])


def bearer_token(settings: Settings) -> BearerToken:
    """The verifier for the settings' token; ``ValueError`` saying what is wrong."""
    if settings.http_token_file is not None:
        token = _read_token_file(settings.http_token_file)
        return BearerToken(token, source=f"file {settings.http_token_file}")
    if settings.http_token is not None:
        token = settings.http_token.get_secret_value().strip()
        _check(token, "GRIDMUX_HTTP_TOKEN")
        return BearerToken(token, source="GRIDMUX_HTTP_TOKEN")
    return BearerToken(secrets.token_urlsafe(32), source="generated")


def _read_token_file(path: str) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise ValueError(f"cannot read the HTTP token file {path!r}: {exc.strerror}") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise ValueError(f"the HTTP token file {path!r} is not a regular file")
        if stat.S_IMODE(status.st_mode) & 0o077:
            raise ValueError(
                f"the HTTP token file {path!r} can be read by others "
                f"(mode {stat.S_IMODE(status.st_mode):04o}): chmod 600 it"
            )
        with os.fdopen(os.dup(fd), "rb") as file:
            first = file.read(4096).decode("utf-8", "replace").splitlines()
    finally:
        os.close(fd)
    token = first[0].strip() if first else ""
    _check(token, f"the HTTP token file {path!r}")
    return token


def _check(token: str, where: str) -> None:
    if len(token) < MIN_LENGTH or not token.isprintable() or any(c.isspace() for c in token):
        raise ValueError(
            f"{where} must hold a token of at least {MIN_LENGTH} printable characters "
            "without spaces (e.g. the output of: openssl rand -hex 32)"
        )


__all__ = ["MIN_LENGTH", "BearerToken", "bearer_token"]
