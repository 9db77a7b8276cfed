"""Parameter types shared by tools: one description per concept, one place."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

SocketName = Annotated[
    str | None, Field(description="tmux socket name (tmux -L); default: the configured server.")
]
SocketPath = Annotated[
    str | None,
    Field(description="tmux socket path (tmux -S), absolute; overrides socket_name."),
]
PaneId = Annotated[str | None, Field(description="Pane id, e.g. '%1'.")]
SessionName = Annotated[str | None, Field(description="Session name, to pick its active pane.")]
SessionId = Annotated[
    str | None, Field(description="Session id, e.g. '$1', to pick its active pane.")
]
WindowId = Annotated[
    str | None, Field(description="Window id, e.g. '@1', to pick its active pane.")
]
WindowIndex = Annotated[str | None, Field(description="Window index within the session, e.g. '0'.")]
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


SessionIdArg = Annotated[str | None, Field(description="Session id, e.g. '$1'.")]
WindowIdArg = Annotated[str | None, Field(description="Window id, e.g. '@1'.")]
