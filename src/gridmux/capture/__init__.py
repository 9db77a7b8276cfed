"""The sans-IO core of ``capture_since`` (standard library only; a test enforces it)."""

from ._core import (
    FIRST_PLAN,
    FOLLOW_PLAN,
    MIN_EVIDENCE,
    CursorRejected,
    Reading,
    ReadPlan,
    Refusal,
    SnapshotView,
    StateView,
    advance,
    first,
    parse_cursor,
)
from ._cursor import (
    MAX_LENGTH,
    PREFIX,
    SENTINEL_OFFSETS,
    WINDOW,
    Cursor,
    CursorFormatError,
    row_hash,
)
from ._limits import Limited, limit_tail, line_cost
from ._rows import RowMemory

__all__ = [
    "FIRST_PLAN",
    "FOLLOW_PLAN",
    "MAX_LENGTH",
    "MIN_EVIDENCE",
    "PREFIX",
    "SENTINEL_OFFSETS",
    "WINDOW",
    "Cursor",
    "CursorFormatError",
    "CursorRejected",
    "Limited",
    "ReadPlan",
    "Reading",
    "Refusal",
    "RowMemory",
    "SnapshotView",
    "StateView",
    "advance",
    "first",
    "limit_tail",
    "line_cost",
    "parse_cursor",
    "row_hash",
]
