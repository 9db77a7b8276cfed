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
public auth provider interface), in constant time. A request without it is
answered by :class:`RefuseWithoutToken`, one of the provider's HTTP
middlewares, with a ``401`` that says what a client of a fixed bearer token
has to do (:data:`HOW_TO_AUTHENTICATE`), never the token; FastMCP's own
answer speaks of OAuth (clear the tokens, re-register), which does not apply.
"""

from __future__ import annotations

import hmac
import json
import os
import secrets
import stat
from typing import TYPE_CHECKING, Any

from fastmcp.server.auth import AccessToken, TokenVerifier
from starlette.middleware import Middleware
from starlette.types import ASGIApp, Receive, Scope, Send

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

    def admits(self, token: str) -> bool:
        """Whether ``token`` is this server's (in constant time)."""
        return hmac.compare_digest(token.encode(), self._token)

    async def verify_token(self, token: str) -> AccessToken | None:
        if not self.admits(token):
            return None
        return AccessToken(token="[bearer]", client_id="gridmux-http", scopes=[])

    def get_middleware(self) -> list[Any]:
        """FastMCP's authentication middlewares, then :class:`RefuseWithoutToken`."""
        return [*super().get_middleware(), Middleware(RefuseWithoutToken, verifier=self)]


#: What the 401 says (body and ``WWW-Authenticate``): plain ASCII, no quotes.
HOW_TO_AUTHENTICATE = (
    "this gridmux server takes one fixed bearer token, not OAuth (there is nothing to "
    "register): send the header Authorization: Bearer <token>, with the token from the "
    "file gridmux was given by --http-token-file (GRIDMUX_HTTP_TOKEN_FILE), from "
    "GRIDMUX_HTTP_TOKEN, or the one it printed on stderr at start-up"
)


class RefuseWithoutToken:
    """An ASGI middleware: an HTTP request without this server's bearer token gets a
    ``401`` saying :data:`HOW_TO_AUTHENTICATE`; others go on. A request with a
    token says ``error="invalid_token"``, one without none (RFC 6750, 3.1)."""

    def __init__(self, app: ASGIApp, verifier: BearerToken) -> None:
        self.app = app
        self.verifier = verifier

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = [
            value.decode("latin-1")
            for name, value in scope.get("headers", [])
            if name.lower() == b"authorization"
        ]
        token = (
            given[0][7:].strip() if len(given) == 1 and given[0][:7].lower() == "bearer " else None
        )
        if token is not None and self.verifier.admits(token):
            await self.app(scope, receive, send)
            return
        error = "invalid_token" if token is not None else "unauthorized"
        challenge = [
            'realm="gridmux"',
            f'error="{error}"',
            f'error_description="{HOW_TO_AUTHENTICATE}"',
        ]
        if token is None:
            del challenge[1]
        body = json.dumps({"error": error, "error_description": HOW_TO_AUTHENTICATE}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", f"Bearer {', '.join(challenge)}".encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


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


__all__ = [
    "HOW_TO_AUTHENTICATE",
    "MIN_LENGTH",
    "BearerToken",
    "RefuseWithoutToken",
    "bearer_token",
]
