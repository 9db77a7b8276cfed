"""Shallow anchors: the ledger places a cursor that trimming left few rows
above, and a cursor that nothing can place says which lines may repeat
(``gridmux.capture._bounded``, ``_core._resync``; docs/capture-since.md,
"When a miss can still happen")."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from bench.since_classes import burst_to

from gridmux.capture import Cursor, Reading, first, follow
from tests.unit.test_capture_bounded import Pane


@dataclass(frozen=True)
class State:
    history_size: int
    cursor_y: int
    history_limit: int = 100
    height: int = 5
    width: int = 80
    pane_id: str = "%1"
    pid: int | None = 7
    dead: bool = False
    alternate_on: bool = False
    server_pid: int = 1


@dataclass(frozen=True)
class Snap:
    """Every row of a grid, its cursor on row ``y`` of the screen (else the last)."""

    rows: tuple[str, ...]
    limit: int = 100
    y: int | None = None
    height: int = 5
    top: int = 0
    untrimmed_top: int = 0
    untrimmed: tuple[str, ...] = ()
    samples: tuple[tuple[int, str], ...] = ()

    @property
    def state(self) -> State:
        history = len(self.rows) - self.height
        y = self.height - 1 if self.y is None else self.y
        return State(history, y, self.limit, self.height)


def grid(rows: list[str], limit: int = 100, y: int | None = None) -> Snap:
    return Snap(tuple(rows), limit, y)


def old_cursor() -> tuple[Cursor, bytes]:
    """A cursor at row 100 (on an empty row) below rows r0 .. r99, and its ledger."""
    reading = first(grid([f"r{i}" for i in range(100)] + [""]), keep_ledger=True)
    assert reading.cursor.anchor == 100
    assert reading.ledger is not None
    return reading.cursor, reading.ledger


def follow_up(cursor: Cursor, ledger: bytes | None, snap: Snap) -> Reading:
    return follow(cursor, ledger, lambda _plan: snap)


@pytest.mark.parametrize("shift", [90, 93])
def test_at_the_limit_a_shallow_placement_needs_whole_trim_batches(shift: int) -> None:
    """Trimming left 10 (or 7) of the rows above the anchor: no sentinel row
    and a cut window, so the rows alone miss. The ledger places the anchor
    when the rows trimmed are whole batches of a tenth of the limit, the only
    way tmux trims at a steady limit; 93 rows is no run of trims (a clear and
    a replay of r93..r99 at the top could look so): a miss, never a guess."""
    cursor, ledger = old_cursor()
    new = [f"n{i}" for i in range(88)]
    snap = grid([f"r{i}" for i in range(shift, 100)] + new + [""])
    assert snap.state.history_size + snap.height > 90  # tmux may have trimmed
    reading = follow_up(cursor, ledger, snap)
    if shift == 90:
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
    else:
        assert reading.lines_missed
        assert reading.lines == tuple(new[-4:])  # the visible screen
    # Without the ledger (evicted, or gridmux restarted): an honest miss.
    gone = follow_up(cursor, None, snap)
    assert gone.lines_missed
    assert (gone.lines, gone.may_repeat) == (tuple(new[-4:]), 0)


def test_a_young_cursor_is_never_placed_by_its_ledger_below_the_limit() -> None:
    """Below the limit the shift is taken to be 0 -- but ``clear`` at a bare
    prompt redraws a young cursor's rows exactly, after rows it never saw."""
    reading = first(grid(["$ ", "", "", "", ""], y=0), keep_ledger=True)
    assert reading.ledger == b""  # nothing above the anchor
    again = follow_up(reading.cursor, reading.ledger, grid(["$ ", "", "", "", ""], y=0))
    assert (again.lines, again.lines_missed, again.may_repeat) == (("$ ",), True, 1)


def test_a_shallow_miss_returns_every_row_and_says_which_may_repeat() -> None:
    """Three rows and a prompt seen; after a clear or not, the answer is every
    row the pane holds, the first four of them possibly the ones seen."""
    seen = ["a", "b", "c", "$ "]
    cursor = first(grid([*seen, ""], y=3), keep_ledger=True).cursor
    assert (cursor.anchor, cursor.shown) == (3, True)
    now = grid(["a", "b", "c", "$ x", "d", "$ ", "", "", ""], y=1)
    reading = follow_up(cursor, None, now)
    assert reading.lines_missed  # a clear in between could have taken rows
    assert reading.lines == ("a", "b", "c", "$ x", "d", "$ ")
    assert reading.may_repeat == 4
    # A cursor with sentinel rows resynchronises from the screen: nothing repeats.
    assert old_cursor()[0].sentinels


@pytest.mark.parametrize("limit", [300, 1500])
@pytest.mark.parametrize("above", [0, 1, 5, 16])
def test_a_burst_that_trims_to_a_few_rows_above_the_last_read_is_exact(
    limit: int, above: int
) -> None:
    """The simulator trims as tmux does; the last row read ends ``above`` rows
    below the top, still held: the follow-up is every line of the burst."""
    pane = Pane(limit=limit, height=24)
    pane.lines("old", limit + 30)
    cursor = pane.follow(pane.first().cursor).cursor
    pad = (above + 1 - cursor.anchor) % max(1, limit // 10)
    if pad:
        pane.lines("pad", pad)
        cursor = pane.follow(cursor).cursor
    burst = pane.lines("new", burst_to(cursor.history_size, limit, cursor.anchor - 1 - above))
    assert len(pane.history()) > above
    last_read = pane.history()[above]
    assert not last_read.startswith("new")
    assert pane.history()[above + 1] == burst[0]  # the burst trimmed exactly so far
    reading = pane.follow(cursor)
    assert (reading.lines, reading.lines_missed) == (tuple(burst), False)
