"""Parameter types shared by tools: one description per concept, one place.

Ids, sockets, window indexes and new session names are typed: each type
carries its pattern from ``gridmux.backend`` (the forms the backend checks
too) into the input schema, and a value that does not fit is refused before
the tool runs with the same words the tool's own check uses -- what was
wrong, and what a valid value looks like -- instead of a bare pattern
mismatch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BeforeValidator, Field

from gridmux.backend import (
    PANE_ID,
    SESSION_ID,
    SESSION_NAME,
    SOCKET_NAME,
    SOCKET_PATH,
    WINDOW_ID,
    WINDOW_INDEX,
)
from gridmux.errors import InvalidArgument

from ._context import check_socket_name, check_socket_path, tool_error
from ._targets import check_id, check_session_name, window_index_number


def _explained(check: Callable[[str], object]) -> BeforeValidator:
    """Run ``check`` on a string before its pattern is matched: a value that does
    not fit fails with ``check``'s text as a tool error (pydantic wraps only
    ValueError and AssertionError; a ToolError passes through unchanged)."""

    def before(value: object) -> object:
        if isinstance(value, str):
            try:
                check(value)
            except InvalidArgument as exc:
                raise tool_error(exc) from None
        return value

    return BeforeValidator(before)


PaneIdText = Annotated[
    str, Field(pattern=PANE_ID.pattern), _explained(lambda v: check_id("pane", v))
]
WindowIdText = Annotated[
    str, Field(pattern=WINDOW_ID.pattern), _explained(lambda v: check_id("window", v))
]
SessionIdText = Annotated[
    str, Field(pattern=SESSION_ID.pattern), _explained(lambda v: check_id("session", v))
]
WindowIndexText = Annotated[
    str, Field(pattern=WINDOW_INDEX.pattern), _explained(window_index_number)
]
SocketNameText = Annotated[str, Field(pattern=SOCKET_NAME.pattern), _explained(check_socket_name)]
SocketPathText = Annotated[str, Field(pattern=SOCKET_PATH.pattern), _explained(check_socket_path)]


def _check_extra_socket_path(path: str) -> None:
    if not SOCKET_PATH.matches(path):
        raise InvalidArgument(
            f"extra socket path {path!r} is not an absolute path",
            hint="Pass paths such as '/run/user/1000/tmux.sock' (what tmux -S took).",
        )


#: A socket path list_servers probes besides tmux's socket directory.
ExtraSocketPath = Annotated[
    str, Field(pattern=SOCKET_PATH.pattern), _explained(_check_extra_socket_path)
]
#: A name for a new session (or a session's new name).
NewSessionName = Annotated[str, Field(pattern=SESSION_NAME.pattern), _explained(check_session_name)]

#: The target parameters, described once for every tool (in the server's
#: instructions and in docs/tools.md) rather than again in each tool's schema:
#: their names and id patterns say the rest. A tool whose parameter means
#: something else (a required id, a cursor's pane) describes its own.
SHARED_PARAMETERS: dict[str, str] = {
    "pane_id": "a pane id ('%3')",
    "window_id": "a window id ('@2'): the window, or its active pane for pane tools",
    "window_index": "a window's index in the session ('0')",
    "session_id": "a session id ('$1'): the session, or its current window or pane",
    "session_name": "a session's exact name: the same as session_id",
    "socket_name": "another tmux server by socket name (tmux -L)",
    "socket_path": "another tmux server by absolute socket path (tmux -S); wins over socket_name",
}

SocketName = Annotated[SocketNameText | None, Field()]
SocketPath = Annotated[SocketPathText | None, Field()]
PaneId = Annotated[PaneIdText | None, Field()]
SessionName = Annotated[str | None, Field()]
SessionId = Annotated[SessionIdText | None, Field()]
WindowId = Annotated[WindowIdText | None, Field()]
WindowIndex = Annotated[WindowIndexText | None, Field()]
Filters = Annotated[
    dict[str, Any] | str | None,
    Field(
        description=(
            'Filters on result fields, e.g. {"pane_current_command__contains": "vim"}; '
            "ops: exact contains startswith endswith regex (i-prefixed: any case), in, nin. "
            "An object or a JSON string."
        )
    ),
]
MaxLines = Annotated[
    int | None,
    Field(ge=1, description="Keep at most this many of the newest lines; null for no limit."),
]

#: Naming a session for a session or window tool (the pane tools' wording differs).
SessionNameArg = SessionName
SessionIdArg = SessionId
WindowIdArg = WindowId
