"""The opaque ``capture_since`` cursor: what it records and how it travels.

A cursor is a handle an agent passes back verbatim. It carries its own
identity (server, pane, process) so a cursor for anything else is refused,
and enough content context to re-locate the last row read among the rows
tmux still retains: hashes of up to ``WINDOW`` rows above the anchor (the
cursor row) and of the anchor row itself.

Wire form: ``gridmux-since-v1:`` + base64url (no padding) of
``<compact JSON header> NUL <8-byte row hashes…> <4-byte checksum>``.
The checksum catches cursors damaged in transit (an agent truncating or
retyping it); a damaged cursor is refused, never half-trusted.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import json
from dataclasses import dataclass

PREFIX = "gridmux-since-v1:"
WINDOW = 16
#: Distances above the window of the rows a cursor also keeps hashes of.
SENTINEL_OFFSETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
HASH_SIZE = 8
_CHECK_SIZE = 4


class CursorFormatError(ValueError):
    """The text is not a cursor this version of gridmux wrote."""


@functools.lru_cache(maxsize=1 << 16)
def row_hash(text: str) -> bytes:
    """A row's fingerprint. Cached: follow-up reads hash the same history rows again."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=HASH_SIZE).digest()


@dataclass(frozen=True, slots=True)
class Cursor:
    server_pid: int
    pane_id: str
    pane_pid: int | None
    width: int
    height: int
    history_size: int
    history_limit: int
    anchor: int
    alternate_on: bool
    #: whether the anchor row's text was the last line delivered to the agent
    shown: bool
    anchor_hash: bytes
    #: hashes of rows ``anchor - len(window) .. anchor - 1``, oldest first
    window: tuple[bytes, ...]
    #: the widest window row in cells, when no window row nor the row above
    #: them is provably a wrapped row; None when that could not be shown
    reflow_cells: int | None = None
    #: hashes of rows ``anchor - len(window) - SENTINEL_OFFSETS[i]``, as far as
    #: the snapshot held them: far above the window, they tell a replay of the
    #: window rows from the rows themselves
    sentinels: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if min(self.anchor, self.history_size) < 0 or min(self.width, self.height) < 1:
            raise CursorFormatError("cursor geometry out of range")
        if self.reflow_cells is not None and not 0 <= self.reflow_cells < self.width:
            raise CursorFormatError("cursor reflow width out of range")
        if len(self.window) > min(WINDOW, self.anchor):
            raise CursorFormatError("cursor window longer than the rows above its anchor")
        if len(self.anchor_hash) != HASH_SIZE or any(
            len(h) != HASH_SIZE for h in (*self.window, *self.sentinels)
        ):
            raise CursorFormatError("cursor row hash has the wrong size")
        if len(self.sentinels) > len(SENTINEL_OFFSETS) or (
            self.sentinels
            and SENTINEL_OFFSETS[len(self.sentinels) - 1] > self.anchor - len(self.window)
        ):
            raise CursorFormatError("cursor sentinels reach above the first row")

    def encode(self) -> str:
        fields: dict[str, int | str | None] = {
            "s": self.server_pid,
            "p": self.pane_id,
            "pp": self.pane_pid,
            "w": self.width,
            "h": self.height,
            "hs": self.history_size,
            "hl": self.history_limit,
            "a": self.anchor,
            "alt": int(self.alternate_on),
            "sh": int(self.shown),
        }
        if self.reflow_cells is not None:
            fields["rw"] = self.reflow_cells
        if self.sentinels:
            fields["sn"] = len(self.sentinels)
        header = json.dumps(
            fields,
            separators=(",", ":"),
            # Equivalent mutant: decode reads the keys in any order, and the
            # dict is built in one order anyway; sorting keeps the form canonical.
            sort_keys=True,  # pragma: no mutate
        ).encode()  # ASCII: json.dumps escapes everything else
        hashes = (self.anchor_hash, *self.window, *self.sentinels)
        body = header + b"\0" + b"".join(hashes)
        check = hashlib.blake2b(body, digest_size=_CHECK_SIZE).digest()
        return PREFIX + base64.urlsafe_b64encode(body + check).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        if not isinstance(text, str) or not text.startswith(PREFIX):
            if isinstance(text, str) and text.startswith("capture-since-v"):
                raise CursorFormatError(
                    "this cursor was written by another tmux MCP server (libtmux-mcp)"
                )
            raise CursorFormatError(f"a cursor starts with {PREFIX!r}")
        payload = text[len(PREFIX) :]
        try:
            # Two pads always suffice: the decoder ignores padding beyond what it needs.
            raw = base64.urlsafe_b64decode(payload + "==")
        except (binascii.Error, ValueError) as exc:
            raise CursorFormatError("the cursor is not valid base64url") from exc
        body, check = raw[:-_CHECK_SIZE], raw[-_CHECK_SIZE:]
        if (
            len(raw) <= _CHECK_SIZE
            or hashlib.blake2b(body, digest_size=_CHECK_SIZE).digest() != check
        ):
            raise CursorFormatError("the cursor is damaged (checksum mismatch)")
        header, _, hashes = body.partition(b"\0")
        if not hashes or len(hashes) % HASH_SIZE:  # no NUL leaves no hashes either
            raise CursorFormatError("the cursor's row hashes are malformed")
        try:
            fields = json.loads(header)
        except ValueError as exc:
            raise CursorFormatError("the cursor header is not JSON") from exc
        if not isinstance(fields, dict):
            raise CursorFormatError("the cursor header is not an object")
        chunks = [hashes[i : i + HASH_SIZE] for i in range(0, len(hashes), HASH_SIZE)]
        kept = 0 if fields.get("sn") is None else _int(fields, "sn")
        if kept >= len(chunks):
            raise CursorFormatError("the cursor's row hashes are malformed")
        return cls(
            server_pid=_int(fields, "s"),
            pane_id=_str(fields, "p"),
            pane_pid=None if fields.get("pp") is None else _int(fields, "pp"),
            width=_int(fields, "w"),
            height=_int(fields, "h"),
            history_size=_int(fields, "hs"),
            history_limit=_int(fields, "hl"),
            anchor=_int(fields, "a"),
            alternate_on=bool(_int(fields, "alt")),
            shown=bool(_int(fields, "sh")),
            anchor_hash=chunks[0],
            window=tuple(chunks[1 : len(chunks) - kept]),
            sentinels=tuple(chunks[len(chunks) - kept :]),
            reflow_cells=None if fields.get("rw") is None else _int(fields, "rw"),
        )


def _int(fields: dict[str, object], key: str) -> int:
    value = fields.get(key)
    if type(value) is not int or value < 0:
        raise CursorFormatError(f"cursor field {key!r} must be a non-negative integer")
    return value


def _str(fields: dict[str, object], key: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value:
        raise CursorFormatError(f"cursor field {key!r} must be a non-empty string")
    return value
