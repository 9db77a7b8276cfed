"""The backend seam: a protocol, its value types and the error tree."""

from gridmux.errors import (
    GridmuxError,
    InvalidArgument,
    InvalidCursor,
    NotFound,
    PaneDead,
    PaneRespawned,
    TmuxFailure,
    TmuxTimeout,
    TmuxUnavailable,
)

from ._protocol import TmuxBackend
from ._types import (
    BufferInfo,
    HookEntry,
    OptionScope,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    RowBound,
    ServerInfo,
    ServerRef,
    SessionInfo,
    SplitDirection,
    WindowInfo,
    resolve_row_range,
)

__all__ = [
    "BufferInfo",
    "GridmuxError",
    "HookEntry",
    "InvalidArgument",
    "InvalidCursor",
    "NotFound",
    "OptionScope",
    "PaneDead",
    "PaneInfo",
    "PaneRespawned",
    "PaneSnapshot",
    "PaneState",
    "RowBound",
    "ServerInfo",
    "ServerRef",
    "SessionInfo",
    "SplitDirection",
    "TmuxBackend",
    "TmuxFailure",
    "TmuxTimeout",
    "TmuxUnavailable",
    "WindowInfo",
    "resolve_row_range",
]
