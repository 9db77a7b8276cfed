"""capture_since across width changes, on the simulator at every modelled version.

A width change reflows the whole grid. The cursor keeps a delta exact when it
can prove that reflow left its window rows alone (none wider than the new
width, none WRAPPED); otherwise the read says ``lines_missed``.
"""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.capture import FIRST_PLAN, FOLLOW_PLAN, Cursor, Reading, advance, first
from tmuxsim import SimBackend

REF = ServerRef()
VERSIONS = ("3.2a", "3.3a", "3.5a", "3.7c", "3.8")


class Pane:
    def __init__(self, version: str, *, width: int = 80, height: int = 10) -> None:
        self.backend = SimBackend(version=version)
        session = self.backend.new_session(REF, name="t", width=width, height=height, command="cat")
        assert session.active_pane_id is not None
        self.pane_id = session.active_pane_id
        panes = self.backend.list_panes(REF)
        self.window_id = next(p.window_id for p in panes if p.pane_id == self.pane_id)

    def write(self, text: str) -> None:
        self.backend.server(REF).pane(self.pane_id).write(text.encode())

    def lines(self, prefix: str, count: int) -> None:
        self.write("".join(f"{prefix}{i:04d}\n" for i in range(count)))

    def resize(self, width: int) -> None:
        self.backend.resize_window(REF, self.window_id, width=width)

    def snapshot(self, start: int | str) -> PaneSnapshot:
        plan = FIRST_PLAN if start != "-" else FOLLOW_PLAN
        return self.backend.snapshot(
            REF, self.pane_id, start=plan.start, untrimmed_start=plan.untrimmed_start
        )

    def first(self) -> Reading:
        return first(self.snapshot(FIRST_PLAN.start))

    def advance(self, cursor: Cursor) -> Reading:
        return advance(cursor, self.snapshot("-"))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("widths", [(40,), (132,), (40, 132), (20, 80), (30, 25)])
def test_short_lines_stay_exact_through_width_changes(version: str, widths: tuple[int]) -> None:
    pane = Pane(version)
    pane.lines("old", 30)
    cursor = pane.first().cursor
    low, high = used_or_allocated(version, len("old0029"), 80)
    assert cursor.reflow_cells is not None and low <= cursor.reflow_cells <= high
    for width in widths:
        pane.resize(width)
    pane.lines("new", 25)
    reading = pane.advance(cursor)
    assert not reading.lines_missed
    assert reading.lines == tuple(f"new{i:04d}" for i in range(25))
    # The new cursor is taken at the new width and carries its own proof.
    assert reading.cursor.width == widths[-1]
    low, high = used_or_allocated(version, len("new0024"), widths[-1])
    assert reading.cursor.reflow_cells is not None and low <= reading.cursor.reflow_cells <= high


def used_or_allocated(version: str, used: int, width: int) -> tuple[int, int]:
    """Bounds of what ``capture-pane -N`` shows of a short row: its used cells on
    3.3a, elsewhere its allocation (grown in steps of a quarter, a half, all of
    the width, and kept through reflow)."""
    return (used, used) if version == "3.3a" else (used, width - 1)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("width", [40, 120])
def test_a_window_row_wider_than_half_the_width(version: str, width: int) -> None:
    """A 50-cell row is split at width 40: a miss. Widening leaves it alone, which
    only 3.3a can prove: elsewhere ``-N`` shows the whole allocation (80 cells)."""
    pane = Pane(version)
    pane.lines("old", 20)
    pane.write("x" * 50 + "\n")
    pane.lines("mid", 3)
    cursor = pane.first().cursor
    assert cursor.reflow_cells == (50 if version == "3.3a" else None)
    pane.resize(width)
    pane.lines("new", 2)
    reading = pane.advance(cursor)
    if width == 120 and version == "3.3a":
        assert reading.lines == ("new0000", "new0001")
        assert not reading.lines_missed
    else:
        assert reading.lines_missed


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("offset", [0, 3, 15, 16])
def test_a_wrapped_row_at_or_above_the_window_is_a_miss(version: str, offset: int) -> None:
    """A WRAPPED row joins the next one when the width grows: no proof."""
    pane = Pane(version)
    pane.lines("old", 20)
    pane.write("y" * 100 + "\n")  # WRAPPED at width 80
    pane.lines("mid", offset)
    cursor = pane.first().cursor
    assert cursor.reflow_cells is None
    pane.resize(132)
    pane.lines("new", 2)
    assert pane.advance(cursor).lines_missed


@pytest.mark.parametrize("version", VERSIONS)
def test_a_wrapped_row_far_above_the_window_does_not_matter(version: str) -> None:
    pane = Pane(version)
    pane.write("y" * 100 + "\n")
    pane.lines("mid", 17)  # the window, the sentinel row and the row above are short
    cursor = pane.first().cursor
    low, high = used_or_allocated(version, len("mid0016"), 80)
    assert cursor.reflow_cells is not None and low <= cursor.reflow_cells <= high
    pane.resize(132)  # joins the wrapped row: every row below moves up one
    pane.lines("new", 2)
    reading = pane.advance(cursor)
    assert not reading.lines_missed
    assert reading.lines == ("new0000", "new0001")


@pytest.mark.parametrize("version", VERSIONS)
def test_a_wide_character_wrapped_early_is_a_miss(version: str) -> None:
    """A row an unfitting wide character wrapped early is shorter than the width."""
    pane = Pane(version, width=20)
    pane.lines("old", 20)
    pane.write("z" * 19 + "中文\n")  # 19 cells, then 中 does not fit: WRAPPED
    pane.lines("mid", 2)
    cursor = pane.first().cursor
    assert cursor.reflow_cells is None
    pane.resize(60)
    pane.lines("new", 1)
    assert pane.advance(cursor).lines_missed


@pytest.mark.parametrize("version", VERSIONS)
def test_trailing_blanks_count_toward_the_width(version: str) -> None:
    """Written spaces are used cells: reflow splits on them though capture trims them."""
    pane = Pane(version)
    pane.lines("old", 20)
    pane.write("w" + " " * 60 + "\n")
    pane.lines("mid", 2)
    cursor = pane.first().cursor
    assert cursor.reflow_cells is None or cursor.reflow_cells >= 61
    pane.resize(40)
    pane.lines("new", 1)
    assert pane.advance(cursor).lines_missed


def test_cursors_carry_the_proof_and_older_cursors_have_none() -> None:
    pane = Pane("3.3a")
    pane.lines("old", 20)
    cursor = pane.first().cursor
    assert Cursor.decode(cursor.encode()) == cursor
    plain = dataclasses.replace(cursor, reflow_cells=None)
    assert "rw" not in plain.encode()
    assert Cursor.decode(plain.encode()).reflow_cells is None
    pane.resize(40)
    assert pane.advance(plain).lines_missed  # no proof: the old behaviour
