"""One reader of a pane's output by cursor, around the sans-IO core in
``gridmux.capture``: ``capture_since``, the waits and whatever else follows a
pane read through it, so every one of them gets the same exact deltas and
the same bounded follow-ups.

A first read snapshots the screen (``FIRST_PLAN``); a follow-up reads only
the rows near the screen when the cursor's ledger can prove its position,
else the whole grid (``capture.follow``). Each read is one atomic tmux
command list. The capture core's refusals of a cursor become gridmux errors
with hints here (``_refusals``), and a cursor's pane that is gone says so.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridmux.backend import PaneSnapshot, ServerRef, TmuxBackend
from gridmux.capture import FIRST_PLAN, Cursor, CursorRejected, Reading, ReadPlan, first, follow
from gridmux.errors import NotFound

from ._context import ToolContext
from ._refusals import refusal_error


def read_plan(
    backend: TmuxBackend, server: ServerRef, pane_id: str, plan: ReadPlan
) -> PaneSnapshot:
    """One atomic snapshot of the rows ``plan`` names: how every cursor read
    takes its snapshot (the benchmark and the tests read the same way)."""
    return backend.snapshot(
        server,
        pane_id,
        start=plan.start,
        end=plan.end,
        untrimmed_start=plan.untrimmed_start,
        samples=plan.samples,
    )


@dataclass(frozen=True, slots=True)
class PaneReader:
    """Cursor reads of the panes of one server. Call its methods in a worker
    thread (each is one or two tmux command lists)."""

    ctx: ToolContext
    server: ServerRef

    def first(self, pane_id: str) -> Reading:
        """The screen and a cursor after it (with its ledger)."""
        snap = read_plan(self.ctx.backend, self.server, pane_id, FIRST_PLAN)
        return first(snap, memory=self.ctx.row_memory, keep_ledger=True)

    def follow(self, cursor: Cursor, ledger: bytes | None) -> Reading:
        """What was written since ``cursor`` (whose ledger is ``ledger``, if
        kept): the bounded read where the ledger proves the position."""
        pane_id = cursor.pane_id
        try:
            return follow(
                cursor,
                ledger,
                lambda plan: read_plan(self.ctx.backend, self.server, pane_id, plan),
                memory=self.ctx.row_memory,
            )
        except CursorRejected as exc:
            raise refusal_error(exc) from exc
        except NotFound as exc:
            raise NotFound(
                f"pane {pane_id} of this cursor no longer exists",
                hint="Call capture_since without a cursor on a live pane (see list_panes).",
            ) from exc


__all__ = ["PaneReader", "read_plan"]
