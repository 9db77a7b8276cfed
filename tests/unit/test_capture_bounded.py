"""Bounded follow-ups (``gridmux.capture._bounded``), on the simulator: the
cost of a read does not grow with the history, and it is exact or defers to
the full read -- never a guess."""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.capture import (
    FIRST_PLAN,
    FOLLOW_PLAN,
    REACH,
    Cursor,
    Ledgers,
    Reading,
    ReadPlan,
    advance,
    advance_bounded,
    bounded_plan,
    first,
    follow,
)
from gridmux.capture._bounded import _OLDEST, DEFAULT_LEDGER_BYTES
from gridmux.capture._rows import LEDGER_ITEM, ledger_of
from gridmux.tools._reader import read_plan
from tmuxsim import SimBackend

REF = ServerRef()


class Pane:
    """A simulated pane followed the way the capture_since tool follows one."""

    def __init__(self, *, limit: int = 5000, height: int = 10, version: str = "3.8") -> None:
        self.backend = SimBackend(version=version)
        self.backend.new_session(REF, name="boot", width=80, height=height, command="cat")
        self.backend.set_option(REF, "history-limit", str(limit), scope="session", global_=True)
        session = self.backend.new_session(REF, name="t", width=80, height=height, command="cat")
        assert session.active_pane_id is not None
        self.pane_id = session.active_pane_id
        panes = self.backend.list_panes(REF)
        self.window_id = next(p.window_id for p in panes if p.pane_id == self.pane_id)
        self.ledgers = Ledgers()
        self.bounded = 0  # follow-ups answered by the bounded read
        self.full = 0

    def write(self, text: str) -> None:
        self.backend.server(REF).pane(self.pane_id).write(text.encode())

    def lines(self, prefix: str, count: int, start: int = 0) -> list[str]:
        made = [f"{prefix}{i:06d}" for i in range(start, start + count)]
        self.write("".join(f"{line}\n" for line in made))
        return made

    def snapshot(self, plan: ReadPlan) -> PaneSnapshot:
        return read_plan(self.backend, REF, self.pane_id, plan)

    def first(self) -> Reading:
        return self.keep(first(self.snapshot(FIRST_PLAN), keep_ledger=True))

    def follow(self, cursor: Cursor) -> Reading:
        """As the tool follows (``follow``), counting bounded and full reads."""
        tops: list[int] = []

        def read(plan: ReadPlan) -> PaneSnapshot:
            snap = self.snapshot(plan)
            tops.append(snap.top)
            return snap

        reading = follow(cursor, self.ledgers.get(cursor.encode()), read)
        if 0 in tops:  # every row was read: the content proof (and the ledger)
            self.full += 1
        else:
            self.bounded += 1
        return self.keep(reading)

    def keep(self, reading: Reading) -> Reading:
        self.ledgers.put(reading.cursor.encode(), reading.ledger)
        return reading

    def history(self) -> list[str]:
        snap = self.snapshot(FOLLOW_PLAN)
        return list(snap.rows[: snap.state.history_size])

    def above_anchor(self) -> list[str]:
        """Every row above the cursor's row: what a ledger keys."""
        snap = self.snapshot(FOLLOW_PLAN)
        return list(snap.rows[: snap.state.history_size + snap.state.cursor_y])


def started(pane: Pane, rows: int) -> Cursor:
    """A cursor with a ledger: ``rows`` lines, a first read, a full follow-up."""
    pane.lines("old", rows)
    cursor = pane.first().cursor
    reading = pane.follow(cursor)
    assert reading.ledger is not None
    assert pane.full == 1
    return reading.cursor


@pytest.mark.parametrize("limit", [2000, 2600])
def test_at_the_limit_a_few_new_lines_are_read_without_the_history(limit: int) -> None:
    """Where tmux trims, the sampled rows measure how far: every follow-up
    after the first is bounded, exact, and its ledger is the history now."""
    pane = Pane(limit=limit)
    cursor = started(pane, 2500)
    for step in range(40):  # 120 rows: trims of a tenth of the limit come and go
        new = pane.lines(f"new{step}-", 3)
        reading = pane.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
        assert pane.ledgers.get(reading.cursor.encode()) == ledger_of(pane.above_anchor())
        cursor = reading.cursor
    assert (pane.bounded, pane.full) == (40, 1)


def test_the_ledger_is_every_history_row_hash() -> None:
    pane = Pane()
    cursor = started(pane, 3000)
    snap = pane.snapshot(FOLLOW_PLAN)
    assert advance(cursor, snap).ledger is None  # only when asked for
    assert first(snap).ledger is None
    assert first(snap, keep_ledger=True).ledger == pane.ledgers.get(cursor.encode())
    ledger = pane.ledgers.get(cursor.encode())
    assert ledger == ledger_of(pane.above_anchor())
    assert len(ledger) == cursor.anchor * LEDGER_ITEM


@pytest.mark.parametrize("history", [2000, 4000])
def test_a_few_new_lines_are_read_without_the_history(history: int) -> None:
    pane = Pane(limit=2 * history)  # tmux cannot have trimmed: rows stay where they were
    cursor = started(pane, history)
    for step in range(5):
        new = pane.lines(f"new{step}-", 3)
        reading = pane.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
        cursor = reading.cursor
        # The new ledger is the history now, as a full read would make it.
        assert pane.ledgers.get(cursor.encode()) == ledger_of(pane.above_anchor())
    assert (pane.bounded, pane.full) == (5, 1)


def test_the_plan_reads_the_rows_near_the_screen() -> None:
    pane = Pane()
    cursor = started(pane, 3000)
    plan = bounded_plan(cursor)
    assert (plan.start, plan.end, plan.untrimmed_start) == (
        -REACH,
        None,
        FIRST_PLAN.untrimmed_start,
    )
    # ... and the oldest row, which measures how far trimming moved the rows.
    assert plan.samples == (_OLDEST,)
    pane.lines("new", 3)
    snap = pane.snapshot(plan)
    assert snap.top == snap.state.history_size - REACH
    assert snap.samples == ((0, pane.history()[0]),)
    # A short history needs no samples: the rows near the screen are all of it.
    assert bounded_plan(dataclasses.replace(cursor, history_size=REACH)).samples == ()


def test_at_the_limit_the_shift_places_repetitive_output() -> None:
    """Where tmux trims, the shift measured from the older rows places the
    anchor by its index: a burst of identical rows, which no search for the
    window could place among themselves, is exact."""
    pane = Pane(limit=2000)
    cursor = started(pane, 2500)
    for step in range(5):
        new = pane.lines(f"n{step}-", 90)  # trims of 200 rows come and go
        reading = pane.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)
        cursor = reading.cursor
    for _ in range(3):
        pane.write("tick\n" * 90)
        reading = pane.follow(cursor)
        assert (reading.lines, reading.lines_missed) == (("tick",) * 90, False)
        cursor = reading.cursor
    assert (pane.full, pane.bounded) == (1, 8)


@pytest.mark.parametrize(
    "event",
    ["clear-history", "flood", "width", "changed row", "repetitive"],
)
def test_what_the_bounded_read_cannot_prove_goes_to_the_full_read(event: str) -> None:
    pane = Pane(limit=3000)
    cursor = started(pane, 2500)
    if event == "clear-history":
        pane.backend.clear_history(REF, pane.pane_id)
        new = pane.lines("new", 5)
    elif event == "flood":
        new = pane.lines("new", REACH)  # the anchor is above the rows read
    elif event == "width":
        pane.backend.resize_window(REF, pane.window_id, width=60)
        new = pane.lines("new", 5)
    elif event == "changed row":
        # tmux never changes a history row; a damaged ledger row stands for one.
        ledger = pane.ledgers.get(cursor.encode())
        assert ledger is not None
        at = (cursor.history_size - 100) * LEDGER_ITEM
        damaged = ledger[:at] + bytes(LEDGER_ITEM) + ledger[at + LEDGER_ITEM :]
        pane.ledgers.put(cursor.encode(), damaged)
        new = pane.lines("new", 5)
    else:
        # Every row the history holds is the same: no shift can be measured.
        pane.write("tick\n" * 4000)
        cursor = pane.follow(cursor).cursor
        pane.full, pane.bounded = 1, 0
        pane.write("tick\n" * 5)
        new = ["tick"] * 5
    reading = pane.follow(cursor)
    assert (pane.bounded, pane.full) == (0, 2)
    if event == "width":
        assert reading.lines[-5:] == tuple(new)
    elif event == "repetitive":
        assert reading.lines_missed  # honest: neither proof can place the anchor
    else:
        assert (reading.lines, reading.lines_missed) == (tuple(new), False)


def test_a_height_change_keeps_bounded_reads_exact() -> None:
    pane = Pane(limit=3000)
    cursor = started(pane, 2500)
    for step, height in enumerate((20, 6, 30, 10)):
        pane.backend.resize_window(REF, pane.window_id, height=height)
        new = pane.lines(f"h{step}-", 7)
        reading = pane.follow(cursor)
        assert (reading.lines[-7:], reading.lines_missed) == (tuple(new), False)
        cursor = reading.cursor
    assert (pane.bounded, pane.full) == (4, 1)


def test_a_ledger_of_the_wrong_length_is_not_used() -> None:
    pane = Pane()
    cursor = started(pane, 3000)
    ledger = pane.ledgers.get(cursor.encode())
    assert ledger is not None
    pane.lines("new", 3)
    snap = pane.snapshot(bounded_plan(cursor))
    assert advance_bounded(cursor, ledger[:-LEDGER_ITEM], snap) is None
    assert advance_bounded(cursor, ledger, snap) is not None
    older = dataclasses.replace(cursor, anchor=cursor.anchor - 1)
    assert advance_bounded(older, ledger, snap) is None


def test_the_ledger_store_keeps_the_newest() -> None:
    store = Ledgers(capacity=2)
    store.put("a", b"1")
    store.put("b", None)
    store.put("b", b"2")
    store.put("c", b"3")
    assert (store.get("a"), store.get("b"), store.get("c"), len(store)) == (None, b"2", b"3", 2)
    store.put("b", b"4")
    store.put("d", b"5")
    assert (store.get("b"), store.get("c")) == (b"4", None)
    with pytest.raises(ValueError, match="at least one"):
        Ledgers(capacity=0)


def test_the_ledger_store_keeps_within_its_bytes() -> None:
    assert Ledgers().max_bytes == DEFAULT_LEDGER_BYTES
    store = Ledgers(capacity=10, max_bytes=10)
    store.put("a", b"1234")
    store.put("b", b"5678")
    assert store.size == 8
    store.put("c", b"90")  # 10 bytes: all three fit
    assert (len(store), store.size) == (3, 10)
    store.put("d", b"xy")  # the oldest goes
    assert (store.get("a"), len(store), store.size) == (None, 3, 8)
    store.put("b", b"z")  # replaced: its old bytes no longer count
    assert (store.get("b"), store.size) == (b"z", 5)
    store.put("e", b"0123456789abc")  # alone over the cap: the newest is kept
    assert (len(store), store.get("e"), store.size) == (1, b"0123456789abc", 13)


@pytest.mark.parametrize("limit", [2000, 3000])
@pytest.mark.parametrize("size", [400, 1150, 1200, 1400, 1600, 1800])
def test_the_same_output_twice_is_never_a_silent_loss(limit: int, size: int) -> None:
    """A command prints the same lines again (the same tests, the same ``cat``): the
    new rows at the top of a bounded read equal old ones, at a fixed distance. A
    block of them found once in the ledger pinned a false trim distance, and the
    read said 'exact' with rows left out."""
    pane = Pane(limit=limit)
    cursor = started(pane, 2500)
    first_copy = pane.lines("x", size)
    reading = pane.follow(cursor)
    assert (reading.lines, reading.lines_missed) == (tuple(first_copy), False)
    second_copy = pane.lines("x", size)
    again = pane.follow(reading.cursor)
    assert again.lines_missed or again.lines == tuple(second_copy), (
        f"{len(again.lines)} lines said exact for {size} new ones"
    )


@pytest.mark.parametrize(("limit", "start", "size"), [(2000, 1300, 1255), (2000, 2600, 1200)])
def test_the_same_output_three_times_is_never_a_silent_loss(
    limit: int, start: int, size: int
) -> None:
    """The same lines printed again and again, each run longer than the rows
    near the screen: at the true shift no row read was history before, so
    nothing rules out the shift that takes the third run for the second. Two
    shifts: the full read decides (here, honestly, a miss)."""
    pane = Pane(limit=limit)
    cursor = started(pane, start)
    run = [f"x{i:06d}" for i in range(size)]
    for _ in range(3):
        pane.write("".join(f"{line}\n" for line in run))
        reading = pane.follow(cursor)
        assert reading.lines_missed or reading.lines == tuple(run), (
            f"{len(reading.lines)} lines said exact for {size} new ones"
        )
        cursor = reading.cursor
