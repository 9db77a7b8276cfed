"""docs/tmux-model.md §1 to §3 (grid model, linefeed, scroll regions, SU/SD/RI, pending
wrap) and §16 (state for cursor tracking) against the simulated terminal."""

from __future__ import annotations

import time

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import KNOWN_VERSIONS, TmuxVersion

V33 = TmuxVersion.parse("3.3a")


def numbered(first: int, last: int, prefix: str = "L") -> bytes:
    """Lines ``L<first>`` .. ``L<last>`` as a program prints them through ONLCR."""
    return b"".join(f"{prefix}{i}\r\n".encode() for i in range(first, last + 1))


def term(width: int = 80, height: int = 10, limit: int = 2000, version: str = "3.3a") -> Terminal:
    return Terminal(width, height, limit, TmuxVersion.parse(version))


@pytest.mark.parametrize("version", KNOWN_VERSIONS)
def test_25_lines_at_80x10(version: str) -> None:
    t = term(version=version)
    t.feed(numbered(1, 25))
    assert (t.history_size, t.cursor_y, t.cursor_x) == (16, 9, 0)
    assert t.capture("-")[0] == "L1"
    assert t.capture(-2, 0) == ["L15", "L16", "L17"]


def test_scroll_region_pushes_its_top_row_even_below_row_0() -> None:
    t = term(20, 6)
    t.feed(b"top\r\n\x1b[2;5r\x1b[5;1H")
    t.feed(numbered(0, 5, "R"))
    assert t.history_size == 6
    assert t.capture("-", -1) == ["", "", "", "R0", "R1", "R2"]
    assert t.capture() == ["top", "R3", "R4", "R5", "", ""]
    assert t.scroll_region == (1, 4)


def test_su_scrolls_into_history_without_moving_the_cursor() -> None:
    t = term()
    t.feed(b"a\r\nb\r\nc")
    t.feed(b"\x1b[2S")
    assert t.history_size == 2
    assert t.capture("-", -1) == ["a", "b"]
    assert (t.cursor_x, t.cursor_y) == (1, 2)
    assert t.capture()[0] == "c"


def test_su_is_capped_by_the_region_height() -> None:
    t = term(20, 4)
    t.feed(b"1\r\n2\r\n3\r\n4")
    t.feed(b"\x1b[99S")
    assert t.history_size == 4
    assert t.capture() == ["", "", "", ""]


def test_sd_and_ri_never_touch_history() -> None:
    t = term()
    t.feed(numbered(1, 15))
    before = t.history_size
    assert before == 6
    t.feed(b"\x1b[3T")
    assert t.history_size == before
    assert t.capture()[:4] == ["", "", "", "L7"]
    t.feed(b"\x1b[H\x1bM\x1bM")
    assert t.history_size == before
    assert t.capture()[:6] == ["", "", "", "", "", "L7"]
    assert t.capture("-", -1)[-1] == "L6"


def test_pending_wrap_then_wrap_on_next_character() -> None:
    t = term(10, 3)
    t.feed(b"0123456789")
    assert (t.cursor_x, t.cursor_y) == (10, 0)
    assert not t.row_wrapped(0)
    t.feed(b"x")
    assert (t.cursor_x, t.cursor_y) == (1, 1)
    assert t.row_wrapped(0)
    assert t.capture() == ["0123456789", "x", ""]


def test_linefeed_below_region_stops_at_last_row() -> None:
    t = term(20, 6)
    t.feed(b"\x1b[1;3r\x1b[6;1Hlast\n\n\n")
    assert t.history_size == 0
    assert t.cursor_y == 5
    assert t.capture()[5] == "last"


def test_ind_nel_vt_ff_are_linefeeds() -> None:
    t = term(20, 3)
    t.feed(b"a\x1bDb\x1bEc\x0bd\x0ce")
    # IND/VT/FF keep the column, NEL returns to column 0.
    assert t.capture("-") == ["a", " b", "c", " d", "  e"]
    assert t.history_size == 2


def test_history_needs_a_non_zero_limit_at_creation() -> None:
    t = term(limit=0)
    t.feed(numbered(1, 30))
    assert t.history_size == 0
    # 3.7+: the limit can be raised later, but GRID_HISTORY stays off (§1).
    t37 = term(limit=0, version="3.7c")
    t37.set_history_limit(100)
    t37.feed(numbered(1, 30))
    assert (t37.history_size, t37.history_limit) == (0, 100)


def test_state_after_ab_at_40x5() -> None:
    # §16 measured: the values display-message would print.
    t = term(40, 5)
    t.feed(b"ab")
    assert (t.history_size, t.cursor_x, t.cursor_y) == (0, 2, 0)
    assert (t.height, t.width) == (5, 40)
    assert t.scroll_region == (0, 4)
    assert t.alternate_on is False


def test_region_scroll_without_history_discards_the_top_row() -> None:
    t = term(20, 4, limit=0)
    t.feed(b"a\r\nb\r\nc\r\nd\x1b[2;4r\x1b[4;1H\n")
    assert t.capture() == ["a", "c", "d", ""]
    assert t.history_size == 0


def test_cursor_movement_sequences() -> None:
    t = term(20, 6)
    t.feed(b"\x1b[3;5H")
    assert (t.cursor_x, t.cursor_y) == (4, 2)
    t.feed(b"\x1b[2A\x1b[3C")
    assert (t.cursor_x, t.cursor_y) == (7, 0)
    t.feed(b"\x1b[9B\x1b[99D")
    assert (t.cursor_x, t.cursor_y) == (0, 5)
    t.feed(b"\x1b[12G\x1b[2d")
    assert (t.cursor_x, t.cursor_y) == (11, 1)
    t.feed(b"\x1b[4;7f")
    assert (t.cursor_x, t.cursor_y) == (6, 3)
    t.feed(b"\x1b[99;99H")
    assert (t.cursor_x, t.cursor_y) == (19, 5)
    t.feed(b"\x1b[H")
    assert (t.cursor_x, t.cursor_y) == (0, 0)


def test_cursor_up_and_down_leave_pending_wrap() -> None:
    t = term(10, 3)
    t.feed(b"\r\n0123456789")
    assert t.cursor_x == 10
    t.feed(b"\x1b[A")
    assert (t.cursor_x, t.cursor_y) == (9, 0)


def test_backspace_returns_to_a_wrapped_row() -> None:
    t = term(10, 3)
    t.feed(b"0123456789x\x08\x08")
    assert (t.cursor_x, t.cursor_y) == (9, 0)
    t.feed(b"Z")
    assert t.capture()[0] == "012345678Z"


def test_decsc_decrc_and_csi_s_u() -> None:
    t = term(20, 5)
    t.feed(b"\x1b[2;3H\x1b7\x1b[5;9H\x1b8")
    assert (t.cursor_x, t.cursor_y) == (2, 1)
    t.feed(b"\x1b[4;4H\x1b[s\x1b[H\x1b[u")
    assert (t.cursor_x, t.cursor_y) == (3, 3)


def test_origin_mode_makes_cup_region_relative() -> None:
    t = term(20, 8)
    t.feed(b"\x1b[3;6r\x1b[?6h")
    assert (t.cursor_x, t.cursor_y) == (0, 2)
    t.feed(b"\x1b[2;1H")
    assert t.cursor_y == 3
    t.feed(b"\x1b[99;1H")
    assert t.cursor_y == 5


def test_erase_in_line_variants() -> None:
    t = term(10, 3)
    t.feed(b"abcdefghij\r\x1b[5C\x1b[K")
    assert t.capture()[0] == "abcde"
    t.feed(b"\x1b[2D\x1b[1K")
    assert t.capture()[0] == "    e"
    t.feed(b"\x1b[2K")
    assert t.capture()[0] == ""


def test_insert_and_delete_lines() -> None:
    t = term(10, 5)
    t.feed(b"a\r\nb\r\nc\r\nd\r\ne\x1b[2;1H\x1b[2L")
    assert t.capture() == ["a", "", "", "b", "c"]
    t.feed(b"\x1b[3M")
    assert t.capture() == ["a", "c", "", "", ""]
    assert t.history_size == 0


def test_insert_and_delete_lines_below_the_region() -> None:
    t = term(10, 5)
    t.feed(b"a\r\nb\r\nc\r\nd\r\ne\x1b[1;2r\x1b[4;1H\x1b[L")
    assert t.capture() == ["a", "b", "c", "", "d"]
    t.feed(b"\x1b[M")
    assert t.capture() == ["a", "b", "c", "d", ""]


def test_insert_delete_and_erase_characters() -> None:
    t = term(10, 2)
    t.feed(b"abcdef\r\x1b[2C\x1b[2@")
    assert t.capture()[0] == "ab  cdef"
    t.feed(b"\x1b[3P")
    assert t.capture()[0] == "abdef"
    t.feed(b"\x1b[2X")
    assert t.capture()[0] == "ab  f"


def test_insert_mode_shifts_text_right() -> None:
    t = term(10, 2)
    t.feed(b"world\r\x1b[4hhello \x1b[4l")
    assert t.capture()[0] == "hello worl"


def test_autowrap_off_overwrites_last_column() -> None:
    t = term(5, 2)
    t.feed(b"\x1b[?7labcdefg")
    assert t.capture() == ["abcdg", ""]
    assert (t.cursor_x, t.cursor_y) == (4, 0)


def test_unknown_and_attribute_sequences_do_not_print() -> None:
    t = term(40, 3)
    t.feed(
        b"\x1b[1;31mred\x1b[0m"
        b"\x1b]0;title\x07"
        b"\x1b]2;other\x1b\\"
        b"\x1bP+q544e\x1b\\"
        b"\x1b_apc\x1b\\"
        b"\x1bktitle\x1b\\"
        b"\x1b[?2004h\x1b[>4;1m\x1b[ q\x1b(0\x1b)B\x1b=\x1b[6n!"
    )
    assert t.capture()[0] == "red!"


def test_sequences_split_across_feeds() -> None:
    t = term(20, 3)
    for byte in b"\x1b[2;3Hx\x1b]0;t\x07" + "é中".encode():
        t.feed(bytes([byte]))
    assert t.capture()[1] == "  xé中"


def test_invalid_utf8_is_dropped() -> None:
    t = term(20, 3)
    t.feed(b"a\xffb\xc3c\x80d\xe4\xb8e")
    assert t.capture()[0] == "abcde"


def test_can_aborts_an_escape_sequence() -> None:
    t = term(20, 3)
    t.feed(b"\x1b[12\x18x")
    assert t.capture()[0] == "x"


def test_feeding_10000_lines_is_fast() -> None:
    t = term(80, 24, 2000)
    data = numbered(1, 10000)
    started = time.perf_counter()
    t.feed(data)
    elapsed = time.perf_counter() - started
    assert t.capture()[-2] == "L10000"
    assert t.history_size <= 2000
    assert elapsed < 1.0


@pytest.mark.parametrize(
    ("version", "row"),
    [("3.3a", "中0"), ("3.5a", "中0"), ("3.6b", " 0"), ("3.7c", " 0"), ("3.8", " 0")],
)
def test_text_over_the_right_half_of_a_wide_character_in_column_0(version: str, row: str) -> None:
    """Measured on real tmux: up to 3.5a the character survives, from 3.6b it is blanked."""
    t = Terminal(6, 2, 100, TmuxVersion.parse(version))
    t.feed("中\b0".encode())
    assert t.capture()[0] == row
    assert (t.cursor_x, t.cursor_y) == (2, 0)
