"""run_command's output as the pane holds it: the rows after the redrawn command.

Read while the shell is held (its prompt not drawn yet, so there is none to
strip): the capture core returns every row written since the cursor taken
at the prompt (also rows that scrolled into history), starting at the
prompt's row, where the redrawn command starts. The command -- however many
rows it wraps over -- is skipped by its text: rows are concatenated with
whitespace removed until the whole command appears, and everything after
that row is output. When the core cannot prove the delta (a young cursor,
repetitive output above the prompt), the prompt's row is still known by its
index if tmux provably moved no row since (no trim at history-limit, no
clear, no resize), so the output is exact. Otherwise no row is known to be
the command's: every row still retained is output, and ``lines_missed``
says the head is gone. The output rows are then read again with wrapped rows
joined (when the pane provably did not change in between). Commands are
single lines.

An exact read with its rows joined holds every line the command printed
(``Output.whole``): the run answers from it without waiting for its pipe
(``_run_output``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gridmux.backend import PaneSnapshot, PaneState, ServerRef
from gridmux.capture import FOLLOW_PLAN, Cursor, RowMemory, advance, untrimmed

from ._command_line import squash
from ._context import ToolContext

#: tmux reads ``capture-pane -S/-E`` values beyond this as unparsable.
_CAPTURE_BOUND = 32767


@dataclass(frozen=True, slots=True)
class Output:
    lines: list[str]
    lines_missed: bool
    #: the pane while the shell was still held: its prompt moves the cursor
    held: PaneState
    #: where the whole output can be read (``full_output``)
    uri: str | None = None
    #: ``lines`` are every line the command printed, wrapped rows joined
    whole: bool = False


def echo_end(rows: Sequence[str], needle: str) -> int | None:
    """Index of the row where the echoed line ends (its text ends in ``needle``)."""
    carry = ""
    keep = len(needle) - 1
    for index, row in enumerate(rows):
        text = carry + squash(row)
        if needle in text:
            return index
        carry = text[-keep:] if keep > 0 else ""
    return None


def output_rows(
    snap: PaneSnapshot, cursor: Cursor, needle: str, memory: RowMemory | None = None
) -> tuple[list[str], bool, int, int]:
    """Rows after the redrawn command line (``needle``: its text, whitespace
    removed) up to the cursor, whether the head is gone, and their absolute
    first and last index (every retained row in ``snap``; ``cursor`` was taken
    at the prompt just before typing).

    The command line starts on the cursor's anchor row: where the delta from
    ``cursor`` starts, or, when the capture core cannot prove that delta (a
    young cursor), at the anchor's own index while tmux provably moved no row
    (no trim, no clear, no reflow since). Else no row is known to be the
    command's: every retained row is output, and the head counts as missed.
    """
    reading = advance(cursor, snap, memory=memory)
    state, top, rows = snap.state, snap.top, snap.rows
    anchor = state.history_size + state.cursor_y
    end = anchor if rows[anchor - top] else anchor - 1
    start: int | None = None
    if not reading.lines_missed:
        end = anchor if reading.cursor.shown else anchor - 1
        start = end - len(reading.lines) + 1
    elif (
        untrimmed(state)
        and state.width == cursor.width
        and state.history_size >= cursor.history_size
        and top <= cursor.anchor <= anchor
    ):
        start = cursor.anchor
    if start is None:
        return list(rows[: end - top + 1]), True, top, end
    echoed = echo_end(rows[start - top : end - top + 1], needle)
    if echoed is not None:
        start += echoed + 1
    # Else the redrawn line is no longer retained (cleared): every row
    # after its start is output.
    return list(rows[start - top : end - top + 1]), echoed is None, start, end


def read_screen(
    ctx: ToolContext, server: ServerRef, pane_id: str, cursor: Cursor, needle: str
) -> Output:
    """The command's output so far, as the pane holds it (see the module doc)."""
    snap = ctx.backend.snapshot(server, pane_id, start=FOLLOW_PLAN.start, end=None)
    lines, missed, start, end = output_rows(snap, cursor, needle, ctx.row_memory)
    state = snap.state
    joined = not lines
    first_row, last_row = start - state.history_size, end - state.history_size
    if lines and first_row >= -_CAPTURE_BOUND and last_row <= _CAPTURE_BOUND:
        again = ctx.backend.snapshot(
            server, pane_id, start=first_row, end=last_row, join_wrapped=True
        )
        if again.state == state:  # nothing moved between the two reads
            lines, joined = list(again.rows), True
    return Output(lines, lines_missed=missed, held=state, whole=joined and not missed)


__all__ = ["Output", "echo_end", "output_rows", "read_screen"]
