"""docs/tmux-model.md §3, §7, §8: clear-history, ED 0/1/2/3, RIS, scroll-on-clear and the
WRAPPED flag lost when the row below is blanked."""

from __future__ import annotations

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import TmuxVersion


def numbered(first: int, last: int) -> bytes:
    return b"".join(f"L{i}\r\n".encode() for i in range(first, last + 1))


def prepared(version: str = "3.3a") -> Terminal:
    """80x10 after 25 lines + ``P1 P2 abc``: h=18 cy=9 cx=3."""
    t = Terminal(80, 10, 2000, TmuxVersion.parse(version))
    t.feed(numbered(1, 25) + b"P1\r\nP2\r\nabc")
    assert (t.history_size, t.cursor_y, t.cursor_x) == (18, 9, 3)
    return t


def test_clear_history_keeps_screen_and_cursor() -> None:
    t = prepared()
    t.clear_history()
    assert (t.history_size, t.cursor_y, t.cursor_x, t.hscrolled) == (0, 9, 3, 0)
    assert t.capture()[0] == "L19"


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.7c", "3.8"])
def test_ed2_scrolls_used_rows_into_history_and_keeps_the_cursor(version: str) -> None:
    t = prepared(version)
    t.feed(b"\x1b[2J")
    assert (t.history_size, t.cursor_y, t.cursor_x, t.hscrolled) == (28, 9, 3, 0)
    assert t.capture(-1, -1) == ["abc"]
    assert t.capture() == [""] * 10


def test_esc_3j_clears_history() -> None:
    t = prepared()
    t.feed(b"\x1b[2J\x1b[3J")
    assert (t.history_size, t.cursor_y) == (0, 9)


def test_esc_3j_with_a_non_zero_second_parameter_is_ignored() -> None:
    t = prepared()
    t.feed(b"\x1b[3;1J")
    assert t.history_size == 18


@pytest.mark.parametrize(("version", "hsize"), [("3.2a", 28), ("3.3a", 18), ("3.8", 18)])
def test_scroll_on_clear_off(version: str, hsize: int) -> None:
    t = prepared(version)
    t.scroll_on_clear = False
    t.feed(b"\x1b[2J")
    assert t.history_size == hsize
    assert t.capture() == [""] * 10


def test_home_then_ed0_is_a_full_clear() -> None:
    t = prepared()
    t.feed(b"\x1b[H\x1b[J")
    assert (t.history_size, t.cursor_y, t.cursor_x) == (28, 0, 0)


def test_ed0_elsewhere_only_blanks() -> None:
    t = prepared()
    t.feed(b"\x1b[5;1H\x1b[J")
    assert t.history_size == 18
    screen = t.capture()
    assert screen[3] == "L22"
    assert screen[4:] == [""] * 6


def test_ed1_blanks_up_to_and_including_the_cursor() -> None:
    t = prepared()
    t.feed(b"\x1b[3;2H\x1b[1J")
    assert t.history_size == 18
    assert t.capture()[:4] == ["", "", "  1", "L22"]


def test_ris_scrolls_homes_and_keeps_history() -> None:
    t = prepared()
    t.feed(b"\x1b[3;5r\x1bc")
    assert (t.history_size, t.cursor_y, t.cursor_x) == (28, 0, 0)
    assert t.scroll_region == (0, 9)
    assert t.capture("-")[0] == "L1"


def test_ed2_with_two_used_rows_pushes_two() -> None:
    t = Terminal(80, 10, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"a\r\nb\r\n\x1b[2J")
    assert (t.history_size, t.cursor_y) == (2, 2)
    assert t.capture("-", -1) == ["a", "b"]


def test_ed2_on_an_empty_screen_adds_nothing() -> None:
    t = Terminal(80, 10, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"\x1b[2J")
    assert t.history_size == 0


def test_clear_sequence_with_and_without_3j() -> None:
    t = prepared()
    t.feed(b"\x1b[H\x1b[J\x1b[3J")
    assert (t.history_size, t.cursor_x, t.cursor_y) == (0, 0, 0)
    t2 = prepared("3.2a")
    t2.feed(b"\x1b[H\x1b[J")
    assert t2.history_size == 28


def test_ed2_collects_before_each_pushed_row() -> None:
    t = Terminal(80, 10, 20, TmuxVersion.parse("3.3a"))
    t.feed(numbered(1, 28))
    assert t.history_size == 19
    t.feed(b"x\x1b[2J")
    # Ten pushes, collecting 2 whenever hsize is at 20: 20, 19, 20, 19, ... 19.
    assert t.history_size == 19
    assert t.capture(-1, -1) == ["x"]


def test_ris_in_alternate_screen_stays_there() -> None:
    t = prepared()
    t.feed(b"\x1b[?1049hstuff\x1bc")
    assert t.alternate_on
    assert t.history_size == 18
    assert t.capture() == [""] * 10


def test_ed3_in_alternate_screen_clears_the_base_history() -> None:
    t = prepared()
    t.feed(b"\x1b[?1049h\x1b[3J")
    assert t.history_size == 0


def wrapped_setup() -> Terminal:
    t = Terminal(10, 3, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"L1\r\nL2\r\n" + b"A" * 10 + b"BBBBB\r\nx\r\ny")
    assert t.capture("-", -1) == ["L1", "L2", "A" * 10]
    assert t.capture() == ["BBBBB", "x", "y"]
    assert t.row_wrapped(2)
    return t


def test_join_follows_the_wrap_flag_into_the_screen() -> None:
    t = wrapped_setup()
    assert t.capture("-", join=True) == ["L1", "L2", "A" * 10 + "BBBBB", "x", "y"]


def test_blanking_visible_row_0_unwraps_the_newest_history_row() -> None:
    t = wrapped_setup()
    t.feed(b"\x1b[1;1H\x1b[2K")
    assert not t.row_wrapped(2)
    assert t.capture("-", join=True) == ["L1", "L2", "A" * 10, "", "x", "y"]


def test_ed2_without_scrolling_unwraps_the_newest_history_row() -> None:
    t = wrapped_setup()
    t.scroll_on_clear = False
    t.feed(b"\x1b[2J")
    assert not t.row_wrapped(2)


def test_el2_on_a_never_written_row_keeps_the_flag_above() -> None:
    t = Terminal(10, 3, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"a\r\nb\r\nc")
    # The dead-pane linefeed leaves a WRAPPED row above a never-written one.
    t.write_dead_message("")
    assert t.row_wrapped(t.history_size + 1)
    t.feed(b"\x1b[2K")
    assert t.row_wrapped(t.history_size + 1)
    t.feed(b"z\x1b[2K")
    assert not t.row_wrapped(t.history_size + 1)
