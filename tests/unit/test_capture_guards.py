"""Each guard of the capture core, at its boundary: a test per way of getting it wrong.

Hand-built snapshots (rows ``0 ..`` of the grid, screen at the bottom); each
test names the guard it holds and fails when that guard is deleted or moved
by one (``nox -s mutation`` checks this, docs/testing.md).
"""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneSnapshot, PaneState
from gridmux.capture import (
    MIN_EVIDENCE,
    Cursor,
    CursorRejected,
    Reading,
    advance,
    first,
    parse_cursor,
)


def grid(
    rows: list[str],
    *,
    height: int = 5,
    cursor_y: int | None = None,
    limit: int = 100_000,
    width: int = 40,
    alt: bool = False,
    top: int = 0,
) -> PaneSnapshot:
    """A pane whose grid is ``rows``: the last ``height`` rows are the screen and
    the cursor is on its last row unless ``cursor_y`` says otherwise."""
    state = PaneState(
        pane_id="%1",
        pid=100,
        dead=False,
        dead_status=None,
        history_size=len(rows) - height,
        history_limit=limit,
        cursor_x=0,
        cursor_y=height - 1 if cursor_y is None else cursor_y,
        width=width,
        height=height,
        alternate_on=alt,
        in_mode=False,
        server_pid=7,
    )
    return PaneSnapshot(state=state, top=top, rows=tuple(rows[top:]))


def numbered(n: int, start: int = 1) -> list[str]:
    return [f"L{i}" for i in range(start, start + n)]


def start(rows: list[str], **kw: object) -> Cursor:
    return first(grid(rows, **kw)).cursor  # type: ignore[arg-type]


def exact(reading: Reading, lines: list[str]) -> None:
    assert reading.lines_missed is False
    assert reading.lines == tuple(lines)
    assert reading.alternate_on is False


# -- how many window rows vouch for a position (_locate) ---------------------------


def test_a_window_of_exactly_min_evidence_rows_vouches() -> None:
    cursor = start([*numbered(MIN_EVIDENCE), ""], height=2)
    assert len(cursor.window) == MIN_EVIDENCE
    exact(advance(cursor, grid([*numbered(20), ""])), numbered(14, start=7))


def test_min_evidence_surviving_window_rows_vouch_while_nothing_was_trimmed() -> None:
    cursor = start([*numbered(100), ""])
    rows = [*numbered(100)[100 - MIN_EVIDENCE :], *numbered(5, start=101), ""]
    exact(advance(cursor, grid(rows)), numbered(5, start=101))


def test_fewer_than_min_evidence_surviving_window_rows_do_not() -> None:
    cursor = start([*numbered(100), ""])
    rows = [*numbered(100)[101 - MIN_EVIDENCE :], *numbered(5, start=101), ""]
    assert advance(cursor, grid(rows)).lines_missed


def test_a_window_seen_exactly_twice_is_ambiguous() -> None:
    cursor = start([*numbered(40), ""])
    rows = [*numbered(40), *numbered(40), ""]  # the same 40 lines printed again
    assert advance(cursor, grid(rows)).lines_missed


def test_a_window_found_below_the_old_anchor_is_a_replay() -> None:
    """Without a width change rows only move up: a match further down is new output
    repeating the window (its own sentinel rows included), not the old rows."""
    cursor = start([*numbered(20), ""])
    rows = [*(f"new{i}" for i in range(10)), *numbered(20), ""]
    reading = advance(cursor, grid(rows))
    assert reading.lines_missed
    assert reading.lines == tuple(numbered(4, start=17))  # the visible screen


@pytest.mark.parametrize("surviving", range(1, MIN_EVIDENCE))
def test_top_rows_that_could_be_the_window_tail_void_a_replayed_match(surviving: int) -> None:
    """The grid starts with the window's last ``surviving`` rows, then the window is
    printed again with its sentinel rows: the truth may be the top, so no proof."""
    cursor = start([*numbered(100), ""])
    sentinels = {13: "L84", 12: "L83", 10: "L81", 6: "L77"}  # 1, 2, 4, 8 above the window
    filler = [sentinels.get(i, f"f{i}") for i in range(surviving, 14)]
    rows = [*numbered(surviving, start=101 - surviving), *filler, *numbered(16, start=85), ""]
    assert advance(cursor, grid(rows)).lines_missed
    # the same grid with a different top row is a proof
    rows[0] = "other"
    if surviving == 1:
        exact(advance(cursor, grid(rows)), [])


# -- sentinel rows ---------------------------------------------------------------------


def test_a_second_sentinel_row_that_differs_voids_the_match() -> None:
    cursor = start([*numbered(100), ""])
    rows = numbered(110)
    rows[100 - 16 - 2] = "changed"  # the row two above the window
    assert advance(cursor, grid([*rows, ""])).lines_missed


def test_a_sentinel_row_at_the_very_top_is_checked() -> None:
    cursor = start([*numbered(100), ""])
    rows = numbered(100)[68:]  # row 0 holds the sentinel 16 rows above the window
    rows[0] = "changed"
    assert advance(cursor, grid([*rows, ""])).lines_missed
    rows[0] = "L69"
    exact(advance(cursor, grid([*rows, ""])), [])


# -- could tmux have trimmed? (_untrimmed) -------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "total", "is_exact"),
    [(12, 11, True), (12, 12, False), (100, 90, True), (100, 91, False)],
)
def test_a_window_at_the_top_vouches_up_to_the_first_possible_trim(
    limit: int, total: int, is_exact: bool
) -> None:
    """tmux trims ``max(1, limit // 10)`` rows once the history passes its limit, so a
    history of ``limit - batch`` rows (screen included) cannot have been trimmed."""
    cursor = start([*numbered(8), ""])
    assert not cursor.sentinels
    reading = advance(cursor, grid([*numbered(total - 1), ""], limit=limit))
    if is_exact:
        exact(reading, numbered(total - 9, start=9))
    else:
        assert reading.lines_missed
        assert reading.lines == tuple(numbered(total - 1))  # from the top


# -- young cursors ------------------------------------------------------------------------


def young() -> Cursor:
    cursor = start(["a", "b", "$ ", "", ""], cursor_y=2)
    assert len(cursor.window) < MIN_EVIDENCE
    return cursor


def test_a_young_cursor_misses_even_on_a_pane_that_looks_unchanged() -> None:
    """``echo secret`` then ``clear`` (``ESC[H ESC[J ESC[3J``) at a bare prompt
    leaves exactly the grid the cursor saw: only a miss is honest. It returns
    the whole grid, which the cursor had seen, so nothing is withheld."""
    reading = advance(young(), grid(["a", "b", "$ ", "", ""], cursor_y=2))
    assert reading.lines_missed
    assert reading.lines == ("a", "b", "$ ")
    assert reading.cursor.shown is True


@pytest.mark.parametrize(
    ("rows", "height", "cursor_y", "limit"),
    [
        (["a", "b", "$ ls", "", ""], 5, 2, 100_000),  # the cursor row changed
        (["a", "c", "$ ", "", ""], 5, 2, 100_000),  # a row above it changed
        (["a", "b", "$ ", "", ""], 5, 2, 5),  # nothing changed, but a trim is possible
        (["a", "b", "$ ", "", ""], 4, 1, 100_000),  # shorter: a row went to history
        (["a", "b", "$ ", "x", ""], 5, 3, 100_000),  # the cursor moved down
    ],
)
def test_a_young_cursor_after_any_change_resynchronises_from_the_top(
    rows: list[str], height: int, cursor_y: int, limit: int
) -> None:
    reading = advance(young(), grid(rows, height=height, cursor_y=cursor_y, limit=limit))
    assert reading.lines_missed
    assert reading.lines == tuple(rows[: len(rows) - height + cursor_y + 1])


# -- width changes -----------------------------------------------------------------------


def test_window_rows_as_wide_as_the_new_width_stay_exact() -> None:
    cursor = dataclasses.replace(start([*numbered(100), ""]), reflow_cells=20)
    exact(advance(cursor, grid([*numbered(102), ""], width=20)), ["L101", "L102"])


def test_window_rows_wider_than_the_new_width_are_a_miss_from_the_screen() -> None:
    cursor = dataclasses.replace(start([*numbered(100), ""]), reflow_cells=21)
    reading = advance(cursor, grid([*numbered(102), ""], width=20))
    assert reading.lines_missed
    assert reading.lines == tuple(numbered(4, start=99))  # the screen, not the history


def test_a_window_of_min_evidence_rows_survives_a_width_change() -> None:
    cursor = start([*numbered(MIN_EVIDENCE), ""], height=2)
    cursor = dataclasses.replace(cursor, reflow_cells=3)
    exact(advance(cursor, grid([*numbered(8), ""], width=30)), ["L7", "L8"])


# -- full-screen programs --------------------------------------------------------------------


def test_a_full_screen_program_shows_its_last_row() -> None:
    screen = ["vim", "~", "", "", "-- INSERT --"]
    reading = first(grid([*numbered(40), *screen], alt=True, top=20, cursor_y=0))
    assert reading.lines == tuple(screen)
    assert reading.lines_missed is False
    assert reading.alternate_on is True
    assert reading.first_line_rewritten is False
    assert reading.cursor.shown is False
    follow = advance(reading.cursor, grid([*numbered(40), *screen], alt=True, cursor_y=0))
    assert follow.lines == tuple(screen)
    assert follow.lines_missed is True
    assert follow.first_line_rewritten is False


def test_nothing_new_and_new_rows_report_booleans_as_booleans() -> None:
    cursor = start([*numbered(20), ""])
    for rows in ([*numbered(20), ""], [*numbered(22), ""]):
        reading = advance(cursor, grid(rows))
        assert reading.lines == (() if len(rows) == 21 else ("L21", "L22"))
        assert reading.lines_missed is False
        assert reading.first_line_rewritten is False
        assert reading.alternate_on is False


def test_a_delivered_row_left_as_it_was_is_not_delivered_again() -> None:
    cursor = start([*numbered(8), "abc"])
    assert cursor.shown
    exact(advance(cursor, grid([*numbered(8), "abc", "def", ""])), ["def"])
    same = advance(cursor, grid([*numbered(8), "abc"]))
    exact(same, [])
    assert same.first_line_rewritten is False
    assert same.cursor.shown is True


def test_an_empty_cursor_row_left_out_is_delivered_once_it_has_text() -> None:
    reading = advance(start([*numbered(8), ""]), grid([*numbered(10), ""]))
    exact(reading, ["L9", "L10"])
    assert reading.cursor.shown is False
    later = advance(reading.cursor, grid([*numbered(10), "partial"]))
    exact(later, ["partial"])
    assert later.first_line_rewritten is False
    assert later.cursor.shown is True
    # still empty: nothing new, and still not delivered
    same = advance(reading.cursor, grid([*numbered(10), ""]))
    exact(same, [])
    assert same.cursor.shown is False


# -- messages ----------------------------------------------------------------------------------


def test_advance_says_which_plan_it_needs() -> None:
    cursor = start([*numbered(30), ""])
    with pytest.raises(
        ValueError, match=r"^advance\(\) needs a snapshot of every retained row \(FOLLOW_PLAN\)$"
    ):
        advance(cursor, grid([*numbered(31), ""], top=3))


def test_refusals_say_what_was_wrong() -> None:
    cursor = start([*numbered(30), ""])
    with pytest.raises(CursorRejected) as info:
        parse_cursor("hello", pane_id=None)
    assert str(info.value) == "malformed cursor: a cursor starts with 'gms2:'"
    with pytest.raises(CursorRejected) as info:
        parse_cursor(cursor.encode(), pane_id="%9")
    assert str(info.value) == "the cursor belongs to pane %1, not %9"
    later = grid([*numbered(31), ""])
    changes: list[tuple[dict[str, object], str]] = [
        ({"pane_id": "%2"}, "the cursor belongs to pane %1, not %2"),
        (
            {"server_pid": 8},
            "the cursor was made on another tmux server (pid 7, this one is 8)",
        ),
        ({"pid": 101}, "pane %1 was respawned: it ran pid 100, now 101"),
        ({"dead": True}, "the program in pane %1 has exited"),
    ]
    for changed, message in changes:
        state = dataclasses.replace(later.state, **changed)  # type: ignore[arg-type]
        snap = dataclasses.replace(later, state=state)
        with pytest.raises(CursorRejected) as info:
            advance(cursor, snap)
        assert str(info.value) == message
