"""docs/tmux-model.md §3, §4, §11: carriage-return rewrites, wide and combining characters,
the alternate screen, and row identity (``line_serials``)."""

from __future__ import annotations

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import TmuxVersion


def term(width: int = 10, height: int = 3, version: str = "3.3a", limit: int = 2000) -> Terminal:
    return Terminal(width, height, limit, TmuxVersion.parse(version))


def numbered(first: int, last: int) -> bytes:
    return b"".join(f"L{i}\r\n".encode() for i in range(first, last + 1))


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.5a", "3.7c", "3.8"])
def test_carriage_return_rewrites_in_place(version: str) -> None:
    t = term(version=version)
    t.feed(b"\r\x1b[Kprogress 1\rprogress 2")
    assert t.capture()[0] == "progress 2"
    assert (t.cursor_x, t.cursor_y) == (10, 0)


def test_shorter_rewrite_leaves_the_old_tail() -> None:
    t = term(20)
    t.feed(b"downloading 100%\rdone")
    assert t.capture()[0] == "doneloading 100%"
    t.feed(b"\x1b[K")
    assert t.capture()[0] == "done"


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.6b", "3.8"])
def test_wide_characters_fill_the_row(version: str) -> None:
    t = term(version=version)
    t.feed("中文字abéx".encode())
    assert t.capture()[0] == "中文字abéx"
    assert (t.cursor_x, t.cursor_y) == (10, 0)


@pytest.mark.parametrize("version", ["3.3a", "3.8"])
def test_wide_character_that_does_not_fit_wraps_early(version: str) -> None:
    t = term(version=version)
    t.feed("123456789中X".encode())
    assert t.capture()[:2] == ["123456789", "中X"]
    assert (t.cursor_y, t.cursor_x) == (1, 3)
    assert t.row_wrapped(0)
    assert t.capture(join=True)[0] == "123456789中X"


def test_combining_mark_joins_the_previous_cell() -> None:
    t = term()
    t.feed("e\u0301x".encode())
    assert t.capture()[0] == "e\u0301x"
    assert t.cursor_x == 2


def test_combining_mark_after_a_wide_character_and_at_column_0() -> None:
    t = term()
    t.feed("\u0301中\u0301".encode())
    assert t.capture()[0] == "中\u0301"
    assert t.cursor_x == 2


def test_overwriting_half_of_a_wide_character_blanks_the_other_half() -> None:
    t = term()
    t.feed("中文\r\x1b[3Cx".encode())
    assert t.capture()[0] == "中 x"
    t.feed("\rab中".encode())
    assert t.capture()[0] == "ab中"
    t.feed(b"\r\x1b[2Cz")
    assert t.capture()[0] == "abz"


def test_overwriting_the_right_half_at_column_1_keeps_the_left_half() -> None:
    # screen_write_collect_end walks back over padding only while x > 0, so
    # the character in column 0 is never looked at: it survives (tmux quirk).
    t = term()
    t.feed("中文\r\x1b[1Cx".encode())
    assert t.capture()[0] == "中x文"


def alt_ready(version: str) -> Terminal:
    t = Terminal(80, 4, 2000, TmuxVersion.parse(version))
    t.feed(numbered(1, 6) + b"norm")
    assert (t.history_size, t.cursor_y, t.cursor_x) == (3, 3, 4)
    return t


@pytest.mark.parametrize("version", ["3.3a", "3.6b", "3.8"])
def test_alternate_screen_1049(version: str) -> None:
    t = alt_ready(version)
    t.feed(b"\x1b[?1049h")
    entered = t.alternate_on
    assert (t.cursor_y, t.cursor_x) == (3, 4)
    assert t.capture() == ["", "", "", ""]
    t.feed(b"\x1b[H" + numbered(1, 10))
    assert t.history_size == 3
    t.feed(b"\x1b[?1049l")
    assert (entered, t.alternate_on) == (True, False)
    assert t.capture() == ["L4", "L5", "L6", "norm"]
    assert (t.history_size, t.cursor_y, t.cursor_x) == (3, 3, 4)


@pytest.mark.parametrize("mode", [b"47", b"1047"])
def test_alternate_screen_47_and_1047_do_not_restore_the_cursor(mode: bytes) -> None:
    t = alt_ready("3.3a")
    t.feed(b"\x1b[?" + mode + b"h\x1b[2;2Halt\x1b[?" + mode + b"l")
    assert t.capture() == ["L4", "L5", "L6", "norm"]
    assert (t.cursor_y, t.cursor_x) == (1, 4)


def test_leaving_alternate_screen_clamps_a_pending_wrap() -> None:
    t = term(10, 3)
    t.feed(b"0123456789\x1b[?1049h\x1b[?1049l")
    assert (t.cursor_x, t.cursor_y) == (9, 0)


def test_entering_twice_keeps_the_first_saved_screen() -> None:
    t = alt_ready("3.3a")
    t.feed(b"\x1b[?1049hfirst\x1b[?1049h\x1b[?1049l")
    assert t.capture() == ["L4", "L5", "L6", "norm"]


def test_entering_alternate_screen_unwraps_the_newest_history_row() -> None:
    t = term(10, 2)
    t.feed(b"0123456789abc\r\n")
    assert t.row_wrapped(0)
    assert t.history_size == 1
    t.feed(b"\x1b[?1049h")
    assert not t.row_wrapped(0)


def test_alignment_test_fills_the_screen() -> None:
    t = term(4, 2)
    t.feed(b"\x1b#8")
    assert t.capture() == ["EEEE", "EEEE"]
    assert (t.cursor_x, t.cursor_y) == (0, 0)


def test_repeat_last_character() -> None:
    t = term(10, 2)
    t.feed(b"ab\x1b[3b")
    assert t.capture()[0] == "abbbb"
    t.feed(b"\r\n\x1b[5b")
    assert t.capture()[1] == ""


# -- line_serials ------------------------------------------------------------


def test_serials_follow_rows_into_history() -> None:
    t = term(10, 3)
    t.feed(b"a\r\nb\r\nc")
    first = t.line_serials()
    assert len(first) == 3
    assert len(set(first)) == 3
    t.feed(b"\r\nd")
    after = t.line_serials()
    assert after[:3] == first
    assert after[3] not in first
    assert t.history_size == 1


def test_serials_survive_in_place_changes() -> None:
    t = term(10, 3)
    t.feed(b"hello\rjello\x1b[K\x1b[2K")
    before = t.line_serials()
    t.feed(b"\x1b[2;1Hxyz\x1b[1K")
    assert t.line_serials() == before


def test_serials_after_region_scroll_and_inserted_lines() -> None:
    t = term(10, 4)
    t.feed(b"a\r\nb\r\nc\r\nd")
    before = t.line_serials()
    t.feed(b"\x1b[2;1H\x1b[L")
    after = t.line_serials()
    # a stays, a fresh blank row appears, b and c move down, d is pushed out.
    assert after[0] == before[0]
    assert after[1] not in before
    assert after[2:] == before[1:3]


def test_serials_on_height_changes() -> None:
    t = term(10, 4)
    t.feed(b"a\r\nb\r\nc\r\nd")
    before = t.line_serials()
    t.resize(10, 2)
    assert t.line_serials() == before
    assert t.history_size == 2
    t.resize(10, 6)
    grown = t.line_serials()
    assert grown[:4] == before
    assert set(grown[4:]).isdisjoint(before)


def test_serials_on_ed2_scroll_into_history() -> None:
    t = term(10, 3)
    t.feed(b"a\r\nb")
    before = t.line_serials()
    t.feed(b"\x1b[2J")
    after = t.line_serials()
    assert after[:3] == before
    assert set(after[3:]).isdisjoint(before)
    assert t.history_size == 2


def test_serials_of_the_normal_screen_survive_the_alternate_screen() -> None:
    t = term(10, 3)
    t.feed(b"a\r\nb\r\nc")
    before = t.line_serials()
    t.feed(b"\x1b[?1049h")
    assert set(t.line_serials()).isdisjoint(before)
    t.feed(b"\x1b[?1049l")
    assert t.line_serials() == before


def test_serials_are_dropped_with_collected_rows() -> None:
    t = term(10, 2, limit=10)
    t.feed(numbered(1, 11))
    before = t.line_serials()
    assert t.history_size == 10
    t.feed(b"L12\r\n")
    after = t.line_serials()
    assert after[:-2] == before[1:-1]


# Regressions found by the differential test against tmux 3.3a (D1-D3).


def test_wide_character_in_a_one_column_pane_neither_wraps_nor_scrolls() -> None:
    # What tmux 3.3a does (tests/integration/test_differential.py, D1): the
    # unsigned bound check lets it through without a linefeed.
    t = Terminal(2, 2, 10, TmuxVersion.parse("3.3a"))
    t.feed(b"0")
    t.resize(1, 2)
    t.feed("中".encode())
    assert (t.cursor_y, t.history_size) == (0, 0)
    assert t.capture("-") == ["0", ""]


def test_wide_character_with_autowrap_off_parks_the_cursor_past_the_edge() -> None:
    t = Terminal(2, 2, 10, TmuxVersion.parse("3.3a"))
    t.feed("\x1b[?7l中".encode())
    assert t.cursor_x == 2
    t.feed(b"x")  # no room: dropped
    assert t.capture() == ["中", ""]


def test_a_blank_written_past_the_allocated_cells_does_not_extend_the_row() -> None:
    t = Terminal(10, 2, 10, TmuxVersion.parse("3.3a"))
    t.feed(b"\x1b[?7lab ")
    assert t.capture(join=True)[0] == "ab"


def test_a_blank_written_inside_the_allocated_cells_extends_the_row() -> None:
    # Width 40: the first cell allocates 10 cells, so the blank at x=2 lands
    # inside the allocation on a cleared cell and is stored (cellused 3).
    t = Terminal(40, 2, 10, TmuxVersion.parse("3.3a"))
    t.feed(b"ab ")
    assert t.capture(join=True)[0] == "ab "
