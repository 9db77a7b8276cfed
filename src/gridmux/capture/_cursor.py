"""The opaque ``capture_since`` cursor: what it records and how it travels.

A cursor is a handle an agent passes back verbatim, on every call, so it is
short (at most ``MAX_LENGTH`` characters, about 30 tokens). It carries its
own identity (server, pane, process) so a cursor for anything else is
refused, and enough content context to re-locate the last row read among the
rows tmux still retains: digests of up to ``WINDOW`` rows above the anchor
(the cursor row), of the anchor row itself and of *sentinel* rows far above
the window.

Digests are prefixes of the 64-bit ``row_hash``, as wide as their job needs:

* ``ANCHOR_DIGEST`` bytes for the anchor row (a rewrite of the delivered row
  must be seen) and for the window's last row (the *key*: the search looks
  for it among every retained row, so a lookalike must not pass it);
* ``WINDOW_DIGEST`` byte for each other window row: a candidate position
  is only ever checked against at least ``MIN_EVIDENCE`` rows, the key among
  them, so a lookalike position passes with odds below 2**-72;
* ``SENTINEL_DIGEST`` bytes for each sentinel row: one retained sentinel
  tells a replay of the window from the original with odds 1 - 2**-16.

Wire form: ``gms2:`` + base64url (no padding) of the header (unsigned LEB128
integers: server pid, pane number, pane pid + 1 (0: unknown), width, history
size, anchor; a flags byte; a counts byte ``window * 12 + sentinels``; the
reflow bound when flag 4 is set), the digests (anchor, window oldest first,
sentinels) and a ``CHECK_SIZE``-byte checksum. The checksum catches cursors
damaged in transit (an agent truncating or retyping one); a damaged cursor is
refused, never half-trusted.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import re
from dataclasses import dataclass

PREFIX = "gms2:"
#: Prefix of the cursors of gridmux before version 2 (longer, JSON inside).
OLD_PREFIX = "gridmux-since-v1:"
WINDOW = 16
#: Distances above the window of the rows a cursor also keeps digests of.
SENTINEL_OFFSETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
#: Bytes of a full row hash (``row_hash``).
HASH_SIZE = 8
ANCHOR_DIGEST = 4
WINDOW_DIGEST = 1
SENTINEL_DIGEST = 2
CHECK_SIZE = 3
#: The longest cursor: every integer at its largest plausible value (pids
#: below 2**22, the Linux maximum, panes, rows and widths below 2**21).
MAX_LENGTH = 100

_FLAG_ALTERNATE = 1
_FLAG_SHOWN = 2
_FLAG_REFLOW = 4
_PANE_ID = re.compile(r"%(0|[1-9][0-9]*)")


class CursorFormatError(ValueError):
    """The text is not a cursor this version of gridmux wrote."""


@functools.lru_cache(maxsize=1 << 16)
def row_hash(text: str) -> bytes:
    """A row's fingerprint. Cached: follow-up reads hash the same history rows again."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=HASH_SIZE).digest()


def window_digests(hashes: tuple[bytes, ...]) -> tuple[bytes, ...]:
    """The digests a cursor keeps of its window rows' full hashes: the last
    (the key) ``ANCHOR_DIGEST`` bytes wide, the others ``WINDOW_DIGEST``."""
    if not hashes:
        return ()
    return (*(h[:WINDOW_DIGEST] for h in hashes[:-1]), hashes[-1][:ANCHOR_DIGEST])


def _window_sizes(k: int) -> tuple[int, ...]:
    """The sizes of the digests of a window of ``k`` rows."""
    return tuple(len(d) for d in window_digests((bytes(HASH_SIZE),) * k))


def fits(full: tuple[bytes, ...], digests: tuple[bytes, ...]) -> bool:
    """Rows with hashes ``full`` carry ``digests``, one each."""
    return len(full) == len(digests) and all(
        h.startswith(d) for h, d in zip(full, digests, strict=True)
    )


@dataclass(frozen=True, slots=True)
class Cursor:
    server_pid: int
    pane_id: str
    pane_pid: int | None
    width: int
    history_size: int
    anchor: int
    alternate_on: bool
    #: whether the anchor row's text was the last line delivered to the agent
    shown: bool
    anchor_hash: bytes
    #: digests of rows ``anchor - len(window) .. anchor - 1``, oldest first
    #: (``window_digests``)
    window: tuple[bytes, ...]
    #: the widest window row in cells, when no window row nor the row above
    #: them is provably a wrapped row; None when that could not be shown
    reflow_cells: int | None = None
    #: digests of rows ``anchor - len(window) - SENTINEL_OFFSETS[i]``, as far as
    #: the snapshot held them: far above the window, they tell a replay of the
    #: window rows from the rows themselves
    sentinels: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if min(self.anchor, self.history_size) < 0 or self.width < 1:
            raise CursorFormatError("cursor geometry out of range")
        if self.server_pid < 0 or (self.pane_pid is not None and self.pane_pid < 0):
            raise CursorFormatError("cursor process ids out of range")
        if not _PANE_ID.fullmatch(self.pane_id):
            raise CursorFormatError("cursor pane id is not a tmux pane id (%N)")
        if self.reflow_cells is not None and not 0 <= self.reflow_cells < self.width:
            raise CursorFormatError("cursor reflow width out of range")
        if len(self.window) > min(WINDOW, self.anchor):
            raise CursorFormatError("cursor window longer than the rows above its anchor")
        if (
            len(self.anchor_hash) != ANCHOR_DIGEST
            or any(len(h) != SENTINEL_DIGEST for h in self.sentinels)
            or tuple(map(len, self.window)) != _window_sizes(len(self.window))
        ):
            raise CursorFormatError("cursor row digest has the wrong size")
        if len(self.sentinels) > len(SENTINEL_OFFSETS) or (
            self.sentinels
            and SENTINEL_OFFSETS[len(self.sentinels) - 1] > self.anchor - len(self.window)
        ):
            raise CursorFormatError("cursor sentinels reach above the first row")

    def encode(self) -> str:
        flags = (
            _FLAG_ALTERNATE * self.alternate_on
            + _FLAG_SHOWN * self.shown
            + _FLAG_REFLOW * (self.reflow_cells is not None)
        )
        header = bytearray()
        for value in (
            self.server_pid,
            int(self.pane_id[1:]),
            0 if self.pane_pid is None else self.pane_pid + 1,
            self.width,
            self.history_size,
            self.anchor,
        ):
            _put(header, value)
        header += bytes((flags, len(self.window) * 12 + len(self.sentinels)))
        if self.reflow_cells is not None:
            _put(header, self.reflow_cells)
        body = bytes(header) + b"".join((self.anchor_hash, *self.window, *self.sentinels))
        check = hashlib.blake2b(body, digest_size=CHECK_SIZE).digest()
        return PREFIX + base64.urlsafe_b64encode(body + check).decode().rstrip("=")

    @classmethod
    def decode(cls, text: str) -> Cursor:
        if not isinstance(text, str) or not text.startswith(PREFIX):
            if isinstance(text, str) and text.startswith("capture-since-v"):
                raise CursorFormatError(
                    "this cursor was written by another tmux MCP server (libtmux-mcp)"
                )
            if isinstance(text, str) and text.startswith(OLD_PREFIX):
                raise CursorFormatError("this cursor was written by an older gridmux")
            raise CursorFormatError(f"a cursor starts with {PREFIX!r}")
        payload = text[len(PREFIX) :]
        try:
            # Two pads always suffice: the decoder ignores padding beyond what it needs.
            raw = base64.urlsafe_b64decode(payload + "==")
        except (binascii.Error, ValueError) as exc:
            raise CursorFormatError("the cursor is not valid base64url") from exc
        body, check = raw[:-CHECK_SIZE], raw[-CHECK_SIZE:]
        if (
            len(raw) <= CHECK_SIZE
            or hashlib.blake2b(body, digest_size=CHECK_SIZE).digest() != check
        ):
            raise CursorFormatError("the cursor is damaged (checksum mismatch)")
        reader = _Reader(body)
        server_pid, pane, pane_pid, width, history_size, anchor = (
            reader.integer() for _ in range(6)
        )
        flags, counts = reader.take(1)[0], reader.take(1)[0]
        if flags >= 2 * _FLAG_REFLOW or counts > WINDOW * 12 + len(SENTINEL_OFFSETS):
            raise CursorFormatError("the cursor header is malformed")
        reflow = reader.integer() if flags & _FLAG_REFLOW else None
        k, kept = divmod(counts, 12)
        anchor_hash = reader.take(ANCHOR_DIGEST)
        window = tuple(reader.take(size) for size in _window_sizes(k))
        sentinels = tuple(reader.take(SENTINEL_DIGEST) for _ in range(kept))
        if reader.rest:
            raise CursorFormatError("the cursor has trailing bytes")
        return cls(
            server_pid=server_pid,
            pane_id=f"%{pane}",
            pane_pid=None if pane_pid == 0 else pane_pid - 1,
            width=width,
            history_size=history_size,
            anchor=anchor,
            alternate_on=bool(flags & _FLAG_ALTERNATE),
            shown=bool(flags & _FLAG_SHOWN),
            anchor_hash=anchor_hash,
            window=window,
            sentinels=sentinels,
            reflow_cells=reflow,
        )


def _put(out: bytearray, value: int) -> None:
    """Append ``value`` (non-negative) as unsigned LEB128."""
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


class _Reader:
    """Reads a cursor body front to back; running short is a malformed cursor."""

    __slots__ = ("data", "offset")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.offset = 0

    @property
    def rest(self) -> int:
        return len(self.data) - self.offset

    def take(self, size: int) -> bytes:
        if size > self.rest:
            raise CursorFormatError("the cursor is truncated")
        chunk = self.data[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def integer(self) -> int:
        value = shift = 0
        while True:
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value
            if shift >= 35:
                raise CursorFormatError("the cursor header is malformed")
