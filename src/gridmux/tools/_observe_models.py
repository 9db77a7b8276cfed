"""Results (and the one input model) of the observing and running tools:
search_panes, wait_for_text, wait_for_content_change, run_command and
send_keys_batch.

Field names follow the predecessor's models; additions are marked
"gridmux:" in their descriptions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from ._models import _Result
from ._params import PaneIdText, SessionIdText, WindowIdText

# -- search_panes -------------------------------------------------------------------------


class PaneContentMatch(_Result):
    """A pane whose text matched: where it is and what matched (get_pane_info for the rest)."""

    pane_id: str
    pane_current_command: str
    pane_current_path: str
    window_id: str
    window_name: str
    session_name: str
    matched_lines: list[str] = Field(
        description="The newest matching lines (wrapped lines joined), oldest first."
    )
    matched_line_count: int = Field(
        description=(
            "gridmux: how many lines matched in the range searched; more than "
            "len(matched_lines) when max_matched_lines_per_pane cut the oldest."
        )
    )
    is_caller: bool | None


class SearchPanesResult(_Result):
    matches: list[PaneContentMatch] = Field(description="This page of matching panes, by id.")
    truncated: bool = Field(description="More matching panes follow this page.")
    truncated_panes: list[str] = Field(
        description="Ids of the matching panes after this page (call again with a higher offset)."
    )
    total_panes_matched: int
    offset: int
    limit: int | None


# -- waits ----------------------------------------------------------------------------------

WaitOutcome = Literal["matched", "any_output", "stopped", "alternate_screen", "timeout"]


class WaitForTextResult(_Result):
    found: bool = Field(description="A pattern matched (or, with patterns=null, output came).")
    outcome: WaitOutcome = Field(
        description=(
            "matched: a pattern matched new output; any_output: new output came (patterns=null); "
            "stopped: a stop pattern matched; alternate_screen: the timeout passed while a "
            "full-screen program ran; timeout: the timeout passed."
        )
    )
    timed_out: bool = Field(description="gridmux: the wait ended at its timeout.")
    matched_index: int | None = Field(
        description="Index of the pattern that matched, in patterns (or in stop when stopped)."
    )
    matched_pattern: str | None = Field(description="gridmux: the pattern that matched.")
    matched_lines: list[str] = Field(description="New lines that matched (at most 20, newest).")
    tail: list[str] = Field(description="The newest lines seen during the wait (at most 20).")
    saw_new_output: bool
    matched_at_entry: bool = Field(
        description=(
            "A pattern was already on the screen when the wait began, and nothing new matched "
            "(output from before the call is never matched)."
        )
    )
    alternate_screen: bool = Field(description="A full-screen program ran during the wait.")
    pane_id: str
    elapsed_seconds: float
    effective_timeout: float


class ContentChangeResult(_Result):
    changed: bool = Field(description="The visible screen (or its cursor) changed.")
    pane_id: str
    elapsed_seconds: float
    timed_out: bool


# -- run_command ------------------------------------------------------------------------------


class RunCommandResult(_Result):
    pane_id: str
    exit_status: int | None = Field(
        description="The command's exit status ($?); null when it has not finished."
    )
    timed_out: bool
    still_running: bool = Field(
        description=(
            "gridmux: after a timeout, the command is still running (it is not interrupted; "
            "send C-c with send_keys to stop it, or wait with wait_for_text/capture_since)."
        )
    )
    elapsed_seconds: float
    output: list[str] = Field(
        description=(
            "What the command printed, line by line (wrapped lines joined), without the "
            "echoed command line or the next prompt."
        )
    )
    output_truncated: bool
    output_truncated_lines: int = Field(
        description="Oldest whole lines dropped by max_lines/max_bytes."
    )
    output_truncated_bytes: int = Field(description="UTF-8 bytes dropped from the head.")
    full_output: str | None = Field(
        default=None,
        description=(
            "gridmux: resource URI with every output line (last 16 runs kept); null if "
            "read from the screen."
        ),
    )
    lines_missed: bool = Field(
        description=(
            "gridmux: the start of the output is gone (trimmed by history-limit or cleared), "
            "so output holds only the rows tmux still retains (full_output null)."
        )
    )
    effective_timeout: float


# -- send_keys_batch --------------------------------------------------------------------------


class SendKeysOperation(BaseModel):
    """One send_keys call inside a batch."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    keys: str = Field(description="Keys or text to send (a key name like C-c unless literal).")
    pane_id: PaneIdText | None = Field(default=None, description="Pane id, e.g. '%1'.")
    session_name: str | None = Field(default=None, description="Session name (its active pane).")
    session_id: SessionIdText | None = Field(
        default=None, description="Session id (its active pane)."
    )
    window_id: WindowIdText | None = Field(default=None, description="Window id (its active pane).")
    enter: bool = Field(default=True, description="Press Enter after the keys.")
    literal: bool = Field(default=False, description="Send the keys as literal text.")
    suppress_history: bool = Field(
        default=False, description="Prefix a space, which many shells keep out of history."
    )


class SendKeysOperationResult(_Result):
    index: int
    pane_id: str | None
    success: bool
    error: str | None
    elapsed_seconds: float


class SendKeysBatchResult(_Result):
    results: list[SendKeysOperationResult]
    succeeded: int
    failed: int
    stopped_at: int | None = Field(
        description="Index of the operation that failed with on_error='stop'; else null."
    )
