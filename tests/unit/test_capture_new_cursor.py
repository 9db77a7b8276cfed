"""What a new cursor records: its window, its sentinel rows and the proof that a
width change leaves them alone (``_cursor_at``, ``_sentinels``, ``_reflow_cells``)."""

from __future__ import annotations

import pytest

from gridmux.backend import PaneSnapshot, PaneState
from gridmux.capture import MIN_EVIDENCE, SENTINEL_OFFSETS, WINDOW, Cursor, first, row_hash


def snap(
    rows: list[str],
    *,
    height: int = 5,
    top: int = 0,
    untrimmed: list[str] | None = None,
    width: int = 20,
) -> PaneSnapshot:
    """The cursor on the last screen row; ``untrimmed`` rows (-N) end at the bottom."""
    state = PaneState(
        pane_id="%1",
        pid=100,
        dead=False,
        dead_status=None,
        history_size=len(rows) - height,
        history_limit=100_000,
        cursor_x=0,
        cursor_y=height - 1,
        width=width,
        height=height,
        alternate_on=False,
        in_mode=False,
        server_pid=7,
    )
    extra = untrimmed or []
    return PaneSnapshot(
        state=state,
        top=top,
        rows=tuple(rows[top:]),
        untrimmed_top=len(rows) - len(extra),
        untrimmed=tuple(extra),
    )


def numbered(n: int, start: int = 1) -> list[str]:
    return [f"L{i}" for i in range(start, start + n)]


def hashes(rows: list[str], size: int = 8) -> tuple[bytes, ...]:
    return tuple(row_hash(r)[:size] for r in rows)


def window_of(rows: list[str]) -> tuple[bytes, ...]:
    """The digests a cursor keeps: one byte per row, four of the last (the key)."""
    return (*hashes(rows[:-1], 1), *hashes(rows[-1:], 4))


def test_a_first_read_reports_its_booleans_as_booleans() -> None:
    reading = first(snap([*numbered(10), ""]))
    assert reading.lines == tuple(numbered(4, start=7))
    assert reading.lines_missed is False
    assert reading.first_line_rewritten is False
    assert reading.alternate_on is False
    assert reading.cursor.shown is False


def test_a_first_read_keeps_every_sentinel_the_plan_reads() -> None:
    rows = [*numbered(2000), ""]
    anchor = 2000
    top = anchor - WINDOW - SENTINEL_OFFSETS[-1]  # what FIRST_PLAN asks for
    cursor = first(snap(rows, top=top)).cursor
    assert cursor.window == window_of(rows[anchor - WINDOW : anchor])
    window_top = anchor - WINDOW
    assert cursor.sentinels == hashes([rows[window_top - o] for o in SENTINEL_OFFSETS], 2)
    assert cursor.anchor_hash == row_hash("")[:4]
    assert (cursor.anchor, cursor.history_size, cursor.width) == (anchor, 1996, 20)


def test_a_snapshot_that_starts_near_the_cursor_gives_a_short_window() -> None:
    rows = [*numbered(100), ""]
    cursor = first(snap(rows, top=97)).cursor
    assert cursor.window == window_of(["L98", "L99", "L100"])
    assert cursor.sentinels == ()


def window_rows(width: int = 6) -> list[str]:
    return [f"w{i:0{width - 1}d}" for i in range(WINDOW)]


def proof(above: list[str], window: list[str], anchor: str = "", width: int = 20) -> int | None:
    """The reflow proof of a cursor whose untrimmed rows are ``above`` + ``window`` + anchor."""
    rows = [*numbered(50), *above, *window, anchor]
    reading = first(snap(rows, untrimmed=[*above, *window, anchor], width=width, height=3))
    return reading.cursor.reflow_cells


def test_the_proof_is_the_widest_of_the_window_and_the_sentinel_row() -> None:
    assert proof(["a", "b"], window_rows()) == 6
    assert proof(["a", "x" * 9], window_rows()) == 9  # the sentinel row is widest
    assert proof(["x" * 9, "b"], window_rows()) == 6  # two above only checked, not counted
    assert proof(["a", ""], [""] * WINDOW) == 0


@pytest.mark.parametrize(
    ("above", "anchor"),
    [
        (["x" * 20, "b"], ""),  # two rows above the window as wide as the screen: wrapped?
        (["a", "x" * 20], ""),  # the sentinel row
        (["a", "b"], "中"),  # the row below the window starts with a wide character
        (["a", "b\t"], ""),  # a tab is not one cell
        (["a", "中"], ""),  # nor a wide character
    ],
)
def test_rows_that_could_have_wrapped_void_the_proof(above: list[str], anchor: str) -> None:
    assert proof(above, window_rows(), anchor) is None


def test_only_the_first_character_of_the_row_below_matters() -> None:
    assert proof(["a", "b"], window_rows(), "x中") == 6


def test_a_row_three_above_the_window_does_not_matter() -> None:
    assert proof(["x" * 30, "a", "b"], window_rows()) == 6


def test_a_window_at_the_top_of_the_grid_checks_row_zero() -> None:
    window = window_rows()
    rows = [*window, ""]
    untrimmed = ["x" * 20, *window[1:], ""]
    reading = first(snap(rows, untrimmed=untrimmed, height=1))
    assert reading.cursor.reflow_cells is None
    reading = first(snap(rows, untrimmed=[*window, ""], height=1))
    assert reading.cursor.reflow_cells == 6


def test_a_window_of_min_evidence_rows_has_a_proof() -> None:
    window = [f"r{i}" for i in range(MIN_EVIDENCE)]
    rows = [*window, ""]
    cursor: Cursor = first(snap(rows, untrimmed=rows, height=1)).cursor
    assert len(cursor.window) == MIN_EVIDENCE
    assert cursor.reflow_cells == 2
    shorter = first(snap(rows[1:], untrimmed=rows[1:], height=1)).cursor
    assert shorter.reflow_cells is None


@pytest.mark.parametrize("kept", [5, WINDOW + 2])
def test_without_untrimmed_rows_there_is_no_proof(kept: int) -> None:
    """Every checked row needs its ``-N`` text: here the topmost is missing."""
    rows = [*numbered(50), *window_rows(), ""]
    assert first(snap(rows, untrimmed=rows[-kept:], height=3)).cursor.reflow_cells is None
    assert first(snap(rows, untrimmed=rows[-kept - 1 :], height=3)).cursor.reflow_cells == (
        None if kept == 5 else 6
    )
