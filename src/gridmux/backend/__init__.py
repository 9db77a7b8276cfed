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

from ._hooks import hook_names
from ._protocol import TmuxBackend
from ._types import (
    BufferInfo,
    HookEntry,
    OptionScope,
    PaneDirection,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    RowBound,
    ServerInfo,
    ServerRef,
    SessionInfo,
    SplitDirection,
    WindowDirection,
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
    "PaneDirection",
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
    "WindowDirection",
    "WindowInfo",
    "hook_names",
    "resolve_row_range",
]
