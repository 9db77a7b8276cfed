"""Bounded capture_since follow-ups on real tmux: a follow-up reads the rows
near the screen and the oldest rows, never the whole history, and stays
exact -- through trimming at the limit, repetitive rows and height changes.
Whatever it cannot prove goes to the full read (``gridmux.capture._bounded``).
"""

from __future__ import annotations

import pytest

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.capture import (
    FIRST_PLAN,
    FOLLOW_PLAN,
    Cursor,
    Ledgers,
    Reading,
    ReadPlan,
    advance,
    advance_bounded,
    bounded_plan,
    first,
)
from gridmux.tools._reader import read_plan

from .conftest import RawTmux, WaitUntil, WriteToPane
from .test_capture_since_tmux import make_pane

pytestmark = pytest.mark.tmux


class Bounded:
    """Follows a pane as the capture_since tool does, counting the paths taken."""

    def __init__(self, backend: TmuxCommandBackend, server: ServerRef, pane_id: str) -> None:
        self.backend, self.server, self.pane_id = backend, server, pane_id
        self.ledgers = Ledgers()
        self.paths = {"bounded": 0, "full": 0}

    def snapshot(self, plan: ReadPlan) -> PaneSnapshot:
        return read_plan(self.backend, self.server, self.pane_id, plan)

    def keep(self, reading: Reading) -> Reading:
        self.ledgers.put(reading.cursor.encode(), reading.ledger)
        return reading

    def first(self) -> Reading:
        return self.keep(first(self.snapshot(FIRST_PLAN), keep_ledger=True))

    def follow(self, cursor: Cursor) -> Reading:
        ledger = self.ledgers.get(cursor.encode())
        if ledger is not None:
            snap = self.snapshot(bounded_plan(cursor))
            found = None if snap.top == 0 else advance_bounded(cursor, ledger, snap)
            if found is not None:
                self.paths["bounded"] += 1
                return self.keep(found)
        self.paths["full"] += 1
        return self.keep(advance(cursor, self.snapshot(FOLLOW_PLAN), keep_ledger=True))


def lines(prefix: str, start: int, count: int) -> list[str]:
    return [f"{prefix} {i}" for i in range(start, start + count)]


def write(write_to_pane: WriteToPane, wait_until: WaitUntil, f: Bounded, rows: list[str]) -> None:
    """Write ``rows`` and wait until tmux has parsed them all: by the last row
    when the rows are unique, else by the anchor's move -- ``len(rows)``
    down, less one trim of ``history-limit // 10`` rows (there is at most
    one while fewer rows than that are written)."""
    before = f.backend.pane_state(f.server, f.pane_id)
    batch = before.history_limit // 10
    unique = len(set(rows)) == len(rows)
    assert unique or len(rows) < batch
    targets = {before.anchor + len(rows), before.anchor + len(rows) - batch}
    write_to_pane(f.pane_id, "".join(f"{row}\n" for row in rows).encode())

    def shown() -> bool:
        snap = f.backend.snapshot(f.server, f.pane_id)
        state = snap.state
        y = state.cursor_y
        if state.cursor_x != 0 or snap.rows[y - 1 : y] != (rows[-1],):
            return False
        return unique or state.anchor in targets

    wait_until(shown, what=f"tmux to show {rows[-1]!r}")


def test_follow_ups_below_the_limit_are_bounded_and_exact(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    # tmux cannot trim below the limit (less a batch): no row moves, so the ledger
    # places the anchor
    pane = make_pane(backend, tmux_server, tmux, limit=6000, height=10)
    f = Bounded(backend, tmux_server, pane)
    write(write_to_pane, wait_until, f, lines("n", 0, 2300))
    cursor = f.follow(f.first().cursor).cursor  # the full read that makes the ledger
    start = 2300
    for size in (3, 1, 150, 3, 60, 199, 3):
        new = lines("n", start, size)
        write(write_to_pane, wait_until, f, new)
        reading = f.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
        cursor, start = reading.cursor, start + size
    # Repetitive rows: the window alone proves nothing, the ledger does.
    for _ in range(3):
        write(write_to_pane, wait_until, f, ["status: ok"] * 40)
        reading = f.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (("status: ok",) * 40, False)
        cursor = reading.cursor
    assert f.paths == {"bounded": 10, "full": 1}
    assert len(cursor.encode()) <= 100


def test_follow_ups_at_the_limit_are_bounded_and_exact(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    """Where tmux trims (batches of 1,000 rows here), the oldest row measures how
    far every row moved: each follow-up after the one that makes the ledger
    reads about REACH rows and that row, exactly, across trims, repetitive rows
    and the same lines printed again."""
    pane = make_pane(backend, tmux_server, tmux, limit=10000, height=10)
    f = Bounded(backend, tmux_server, pane)
    write(write_to_pane, wait_until, f, lines("n", 0, 10500))
    cursor = f.follow(f.first().cursor).cursor  # the full read that makes the ledger
    assert len(bounded_plan(cursor).samples) == 1  # the oldest row, which measures the shift
    start = 10500
    for size in (3, 700, 3, 999, 1, 600, 3):  # trims of 1,000 rows come and go
        new = lines("n", start, size)
        write(write_to_pane, wait_until, f, new)
        reading = f.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
        cursor, start = reading.cursor, start + size
    for _ in range(3):  # repetitive rows: placed by the shift, not by a search
        write(write_to_pane, wait_until, f, ["status: ok"] * 40)
        reading = f.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (("status: ok",) * 40, False)
        cursor = reading.cursor
    again = lines("n", start - 900, 900)  # the same lines printed again
    write(write_to_pane, wait_until, f, again)
    reading = f.follow(cursor)
    assert (reading.lines, reading.lines_missed) == (tuple(again), False)
    assert f.paths == {"bounded": 11, "full": 1}
    assert len(reading.cursor.encode()) <= 100


def test_height_changes_and_clear_history(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane = make_pane(backend, tmux_server, tmux, limit=3000, height=10)
    f = Bounded(backend, tmux_server, pane)
    write(write_to_pane, wait_until, f, lines("n", 0, 2500))
    cursor = f.follow(f.first().cursor).cursor
    start = 2500
    for height in (20, 6, 30, 10):
        tmux("resize-window", "-t", pane, "-y", str(height))
        wait_until(
            lambda h=height: backend.pane_state(tmux_server, pane).height == h,
            what=f"height {height}",
        )
        new = lines("n", start, 7)
        write(write_to_pane, wait_until, f, new)
        reading = f.follow(cursor)
        assert (reading.lines[-7:], reading.lines_missed) == (tuple(new), False)
        cursor, start = reading.cursor, start + 7
    assert f.paths == {"bounded": 4, "full": 1}
    # clear-history: the oldest rows are gone, the bounded read defers to the content proof.
    tmux("clear-history", "-t", pane)
    new = lines("n", start, 5)
    write(write_to_pane, wait_until, f, new)
    reading = f.follow(cursor)
    assert (reading.lines, reading.lines_missed) == (tuple(new), False)
    assert f.paths == {"bounded": 4, "full": 2}
