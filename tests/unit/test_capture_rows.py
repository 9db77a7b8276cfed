"""RowMemory, the caller-owned row texts that speed up follow-ups, and Rows."""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneSnapshot, PaneState
from gridmux.capture import RowMemory, advance, first, row_hash
from gridmux.capture._rows import Rows


def snap(lines: list[str], *, height: int = 5, cursor_y: int = 4) -> PaneSnapshot:
    history = lines[: len(lines) - height]
    state = PaneState(
        pane_id="%1",
        pid=100,
        dead=False,
        dead_status=None,
        history_size=len(history),
        history_limit=100_000,
        cursor_x=0,
        cursor_y=cursor_y,
        width=40,
        height=height,
        alternate_on=False,
        in_mode=False,
        server_pid=7,
    )
    return PaneSnapshot(state=state, top=0, rows=CountingRows(lines))


class CountingRows(tuple[str, ...]):
    """Rows that count how many were read one by one (to hash them)."""

    reads = 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, int):
            CountingRows.reads += 1
        return super().__getitem__(index)


def numbered(n: int) -> list[str]:
    return [f"L{i}" for i in range(n)]


def test_a_memory_recalls_a_kept_text_by_its_row_hash() -> None:
    memory = RowMemory()
    memory.keep("hello")
    assert memory.recall(row_hash("hello")) == "hello"
    assert memory.recall(row_hash("other")) is None
    assert len(memory) == 1


def test_a_full_memory_starts_over_and_never_exceeds_its_capacity() -> None:
    memory = RowMemory(capacity=3)
    for text in ("a", "b", "c"):
        memory.keep(text)
    assert len(memory) == 3
    memory.keep("d")
    assert len(memory) == 1
    assert memory.recall(row_hash("d")) == "d"
    assert memory.recall(row_hash("a")) is None


def test_keeping_a_known_text_again_does_not_count_twice() -> None:
    memory = RowMemory(capacity=2)
    memory.keep("a")
    memory.keep("a")
    memory.keep("b")
    assert memory.recall(row_hash("a")) == "a"
    assert len(memory) == 2


@pytest.mark.parametrize("capacity", [0, -1])
def test_a_memory_needs_room_for_one_row(capacity: int) -> None:
    with pytest.raises(ValueError, match=r"^a row memory keeps at least one row$"):
        RowMemory(capacity=capacity)


def test_first_remembers_the_row_that_ends_the_cursor_window() -> None:
    memory = RowMemory()
    reading = first(snap(numbered(30) + ["$ "]), memory=memory)
    assert len(reading.cursor.window) == 16
    assert memory.recall(reading.cursor.window[-1]) == "L29"
    assert len(memory) == 1


def test_a_cursor_at_the_top_of_the_grid_remembers_nothing() -> None:
    memory = RowMemory()
    reading = first(snap(["$ ", "", "", "", ""], cursor_y=0), memory=memory)
    assert reading.cursor.window == ()
    assert len(memory) == 0


def test_a_remembered_row_is_found_without_hashing_the_history() -> None:
    history = numbered(5000)
    memory = RowMemory()
    cursor = first(snap([*history, ""]), memory=memory).cursor
    later = snap([*history, "new", ""])
    CountingRows.reads = 0
    with_memory = advance(cursor, later, memory=memory)
    assert CountingRows.reads < 100  # the window, the sentinels and a few more
    CountingRows.reads = 0
    without = advance(cursor, later)
    assert CountingRows.reads >= 5000
    assert with_memory == without
    assert with_memory.lines == ("new",) and not with_memory.lines_missed


def test_a_memory_finds_every_occurrence_of_a_repeated_row() -> None:
    """The text search must not stop at the first match: two matches are ambiguity."""
    rows = [*numbered(40), *numbered(40), ""]
    memory = RowMemory()
    cursor = first(snap(rows[:41] + ["", "", "", ""]), memory=memory).cursor
    reading = advance(cursor, snap(rows), memory=memory)
    assert reading == advance(cursor, snap(rows))
    assert reading.lines_missed


def test_a_memory_of_one_row_keeps_the_newest() -> None:
    memory = RowMemory(capacity=1)
    memory.keep("a")
    memory.keep("b")
    assert (len(memory), memory.recall(row_hash("b"))) == (1, "b")


@pytest.mark.parametrize("memory", [None, RowMemory()])
def test_rows_after_counts_from_the_snapshot_top(memory: RowMemory | None) -> None:
    """Positions are absolute rows, also for a snapshot that starts below row 0."""
    snapshot = dataclasses.replace(snap(["x", "a", "b", "a", "c"]), top=10)
    if memory is not None:
        memory.keep("a")
    rows = Rows(snapshot, memory)
    assert rows.rows_after(row_hash("a"), 0) == [12, 14]
    assert rows.rows_after(row_hash("a"), 12) == [14]
    assert rows.rows_after(row_hash("a"), 14) == []
    assert rows.rows_after(row_hash("x"), 10) == [11]
    repeated = Rows(dataclasses.replace(snap(["a", "a", "a", "b", "c"]), top=10), memory)
    assert repeated.rows_after(row_hash("a"), 0) == [11, 12, 13]
    assert rows.tail(13) == ("a", "c")
    assert rows.slice(9, 11) == ("x", "a")
    assert rows.text(14) == "c"
    assert rows.slice(5, 9) == ()
    assert rows.slice(12, 11) == ()
    assert rows.slice(13, 20) == ("a", "c")
    for outside in (9, 15):
        with pytest.raises(
            ValueError, match=rf"^row {outside} is outside the snapshot \(10\.\.14\)$"
        ):
            rows.text(outside)
    with pytest.raises(ValueError, match=r"^row 9 is above the snapshot \(top 10\)$"):
        rows.hash_at(9)
