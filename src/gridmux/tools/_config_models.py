"""Result models of the option, environment, buffer and hook tools.

Field names follow the predecessor's results; fields gridmux adds are
marked "gridmux:" in their descriptions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Scope = Literal["server", "session", "window", "pane"]


class _Result(BaseModel):
    model_config = ConfigDict(frozen=True)


class OptionResult(_Result):
    option: str = Field(description="The option asked for, e.g. 'history-limit'.")
    value: str | dict[int, str] = Field(
        description=(
            "The value as tmux stores it (numbers and flags as text, e.g. '2000', 'on'); "
            "for an array option asked for without an index, its items by index."
        )
    )
    scope: Scope = Field(description="gridmux: the option table the value was read from.")
    inherited: bool = Field(
        description=(
            "gridmux: true when the target does not set the option itself and the value "
            "comes from its window or from the global table."
        )
    )


class OptionSetResult(_Result):
    option: str
    value: str = Field(description="The value that was set.")
    status: Literal["set"] = "set"
    scope: Scope = Field(description="gridmux: the option table that was changed.")
    target: str | None = Field(
        description="gridmux: the id of the session, window or pane changed; null when global."
    )


class EnvironmentResult(_Result):
    variables: dict[str, str | None] = Field(
        description=(
            "Variable name to value; null marks a variable tmux removes from new processes "
            "(set-environment -r)."
        )
    )


class EnvironmentSetResult(_Result):
    name: str
    value: str
    status: Literal["set"] = "set"
    session_id: str | None = Field(
        description="gridmux: the session whose environment changed; null for the global one."
    )


class BufferRef(_Result):
    buffer_name: str = Field(
        description="The tmux buffer's name; pass it to paste_buffer, show_buffer, delete_buffer."
    )
    logical_name: str | None = Field(description="The short name it was loaded under.")


class BufferContent(_Result):
    buffer_name: str
    content: str = Field(description="The buffer's text (only its newest lines when truncated).")
    content_truncated: bool
    content_truncated_lines: int = Field(description="Leading lines left out to fit max_lines.")


class HookEntry(_Result):
    hook_name: str = Field(description="Hook name, e.g. 'after-new-window'.")
    index: int | None = Field(description="Position in the hook's command array.")
    command: str = Field(description="The tmux command the hook runs, in tmux syntax.")


class HookListResult(_Result):
    entries: list[HookEntry]
