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

SocketName = Annotated[
    SocketNameText | None,
    Field(description="tmux socket name (tmux -L); default: the configured server."),
]
SocketPath = Annotated[
    SocketPathText | None,
    Field(description="tmux socket path (tmux -S), absolute; overrides socket_name."),
]
PaneId = Annotated[PaneIdText | None, Field(description="Pane id, e.g. '%1'.")]
SessionName = Annotated[str | None, Field(description="Session name, to pick its active pane.")]
SessionId = Annotated[
    SessionIdText | None, Field(description="Session id, e.g. '$1', to pick its active pane.")
]
WindowId = Annotated[
    WindowIdText | None, Field(description="Window id, e.g. '@1', to pick its active pane.")
]
WindowIndex = Annotated[
    WindowIndexText | None, Field(description="Window index within the session, e.g. '0'.")
]
Filters = Annotated[
    dict[str, Any] | str | None,
    Field(
        description=(
            'Django-style filters, e.g. {"pane_current_command__contains": "vim"} '
            "(ops: exact iexact contains icontains startswith istartswith endswith iendswith "
            "in nin regex iregex), as an object or a JSON string."
        )
    ),
]
MaxLines = Annotated[
    int | None,
    Field(ge=1, description="Keep at most this many of the newest lines; null for no limit."),
]

#: Naming a session for a session or window tool (the pane tools' wording differs).
SessionNameArg = Annotated[str | None, Field(description="Session name (exact match).")]
SessionIdArg = Annotated[SessionIdText | None, Field(description="Session id, e.g. '$1'.")]
WindowIdArg = Annotated[WindowIdText | None, Field(description="Window id, e.g. '@1'.")]
