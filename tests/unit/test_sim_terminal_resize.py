"""docs/tmux-model.md §9, §10: height changes (``screen_resize_y``), width reflow and
cursor placement."""

from __future__ import annotations

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import TmuxVersion

V33 = TmuxVersion.parse("3.3a")


def numbered(first: int, last: int) -> bytes:
    return b"".join(f"L{i}\r\n".encode() for i in range(first, last + 1))


def state(t: Terminal) -> tuple[int, int, int]:
    return t.history_size, t.cursor_y, t.cursor_x


def test_height_shrink_and_grow_keep_the_anchor() -> None:
    t = Terminal(80, 10, 2000, V33)
    t.feed(b"a\r\nb\r\nc")
    assert state(t) == (0, 2, 1)
    t.resize(80, 6)
    assert state(t) == (0, 2, 1)
    t.resize(80, 2)
    assert state(t) == (1, 1, 1)
    assert t.capture() == ["b", "c"]
    assert t.hscrolled == 1
    t.resize(80, 10)
    assert state(t) == (0, 2, 1)
    assert t.capture()[:3] == ["a", "b", "c"]


def test_growth_pulls_back_only_scrolled_rows() -> None:
    t = Terminal(80, 10, 2000, V33)
    t.feed(numbered(1, 25) + b"abc")
    assert (t.history_size, t.cursor_y) == (16, 9)
    t.resize(80, 15)
    assert (t.history_size, t.cursor_y) == (11, 14)
    assert t.capture()[0] == "L12"
    t.resize(80, 5)
    assert (t.history_size, t.cursor_y) == (21, 4)
    assert t.capture()[0] == "L22"
    t.feed(b"\x1b[2J")
    assert t.history_size == 26
    t.resize(80, 12)
    assert (t.history_size, t.cursor_y) == (26, 4)
    assert t.capture()[0] == ""


def test_shrink_deletes_rows_below_the_cursor_even_with_text() -> None:
    t = Terminal(80, 6, 2000, V33)
    t.feed(b"r0\r\nr1\r\nr2\r\nr3\r\nr4\r\nr5\x1b[2;1H")
    t.resize(80, 3)
    assert (t.history_size, t.cursor_y) == (0, 1)
    assert t.capture("-") == ["r0", "r1", "r2"]


def test_shrink_without_history_deletes_from_the_top() -> None:
    t = Terminal(80, 6, 0, V33)
    t.feed(b"r0\r\nr1\r\nr2\r\nr3\r\nr4\r\nr5")
    t.resize(80, 3)
    assert (t.history_size, t.cursor_y) == (0, 2)
    assert t.capture() == ["r3", "r4", "r5"]


def test_resize_resets_the_scroll_region() -> None:
    t = Terminal(80, 10, 2000, V33)
    t.feed(b"\x1b[2;5r")
    t.resize(80, 8)
    assert t.scroll_region == (0, 7)


def long_lines() -> bytes:
    return b"".join(f"{i:02d}".encode() + bytes([97 + i]) * 97 + b"\r\n" for i in range(12))


def test_reflow_80_40_120_80() -> None:
    t = Terminal(80, 10, 2000, V33)
    t.feed(long_lines() + b"tail")
    assert state(t) == (15, 9, 4)
    joined = t.capture("-", join=True)
    t.resize(40, 10)
    assert state(t) == (27, 9, 4)
    assert t.capture("-", join=True) == joined
    t.resize(120, 10)
    assert state(t) == (3, 9, 4)
    assert t.capture("-") == joined[:13]
    t.resize(80, 10)
    assert state(t) == (15, 9, 4)
    assert t.capture("-", join=True) == joined


def test_reflow_keeps_the_cursor_at_its_logical_position() -> None:
    t = Terminal(20, 5, 2000, V33)
    t.feed(b"x" * 30)
    assert state(t) == (0, 1, 10)
    t.resize(10, 5)
    assert state(t) == (1, 1, 10)
    t.resize(40, 5)
    assert state(t) == (0, 0, 30)
    assert not t.row_wrapped(0)


def test_reflow_mid_line_cursor() -> None:
    t = Terminal(20, 5, 2000, V33)
    t.feed(b"\r\n\r\n" + b"x" * 30 + b"\x1b[3;6H")
    t.resize(10, 5)
    # Offset 5 of the logical line is still column 5 of its first row, which
    # is now one row higher because a row went into history.
    assert (t.history_size, t.cursor_y, t.cursor_x) == (1, 1, 5)


def test_reflow_cursor_row_pushed_into_history_goes_home() -> None:
    t = Terminal(20, 5, 2000, V33)
    t.feed(b"x" * 30 + b"\x1b[1;6H")
    t.resize(10, 5)
    # screen_resize_cursor: the cursor's row is history now, so (0, 0).
    assert (t.history_size, t.cursor_y, t.cursor_x) == (1, 0, 0)


def test_reflow_never_splits_a_wide_character() -> None:
    t = Terminal(10, 3, 2000, V33)
    t.feed("abcd中文字".encode())
    assert t.capture()[0] == "abcd中文字"
    t.resize(5, 3)
    assert t.capture("-")[:3] == ["abcd", "中文", "字"]
    assert t.row_wrapped(0)
    assert t.capture("-", join=True)[0] == "abcd中文字"
    t.resize(10, 3)
    assert t.capture("-")[0] == "abcd中文字"


@pytest.mark.parametrize(
    ("version", "rows", "joined", "cursor"),
    [
        # up to 3.5a the padding cell counts 0 columns: it starts the next row,
        # which then takes 'y' behind it, and capture never shows 'y'
        ("3.5a", ["x", "", "中", "", "z"], "x中z", (3, 1, 1)),
        # from 3.6b it counts as one column: it fills a row of its own
        ("3.6b", ["x", "", "中", "", "y", "z"], "x中yz", (4, 1, 1)),
        ("3.7c", ["x", "", "中", "", "y", "z"], "x中yz", (4, 1, 1)),
    ],
)
def test_reflow_of_a_character_wider_than_the_pane(
    version: str, rows: list[str], joined: str, cursor: tuple[int, int, int]
) -> None:
    """Both measured on real tmux (fidelity example in test_differential)."""
    t = Terminal(3, 3, 10, TmuxVersion.parse(version))
    t.feed("x中yz".encode())
    t.resize(1, 3)
    assert t.capture("-")[: len(rows)] == rows
    assert t.capture("-", join=True)[0] == joined
    assert state(t) == cursor


def test_reflow_joins_only_wrapped_rows() -> None:
    t = Terminal(10, 4, 2000, V33)
    t.feed(b"0123456789ab\r\ncd")
    t.resize(20, 4)
    assert t.capture() == ["0123456789ab", "cd", "", ""]
    assert (t.cursor_x, t.cursor_y) == (2, 1)


def test_reflow_serials_follow_the_start_of_each_row() -> None:
    t = Terminal(10, 4, 2000, V33)
    t.feed(b"short\r\n0123456789ab\r\nx")
    before = t.line_serials()
    t.resize(6, 4)
    after = t.line_serials()
    assert t.capture("-")[:4] == ["short", "012345", "6789ab", "x"]
    # untouched rows and the first piece of a rewrapped line keep their identity
    assert (after[0], after[1], after[3]) == (before[0], before[1], before[3])
    # the piece cut off by the split is a new row
    assert after[2] not in before
    t.resize(10, 4)
    assert t.capture("-")[:3] == ["short", "0123456789", "ab"]
    assert t.line_serials()[:2] == before[:2]


def test_no_reflow_in_alternate_screen_until_it_is_left() -> None:
    t = Terminal(10, 4, 2000, V33)
    t.feed(b"0123456789ab\r\nnorm")
    t.feed(b"\x1b[?1049h" + b"A" * 12)
    t.resize(6, 4)
    # The alternate screen is only cut to the new width, not reflowed.
    assert t.capture() == ["", "", "    AA", "AAAAAA"]
    assert t.alternate_on
    t.feed(b"\x1b[?1049l")
    assert t.capture("-", join=True)[:2] == ["0123456789ab", "norm"]
    assert t.capture("-")[:4] == ["012345", "6789ab", "norm", ""]
    assert (t.cursor_x, t.cursor_y) == (4, 2)


def test_alternate_screen_height_change_without_history() -> None:
    t = Terminal(20, 5, 2000, V33)
    t.feed(numbered(1, 7))
    hsize = t.history_size
    t.feed(b"\x1b[?1049h\x1b[H" + b"a\r\nb\r\nc\r\nd\r\ne")
    t.resize(20, 3)
    assert t.history_size == hsize
    assert t.capture() == ["c", "d", "e"]
    t.resize(20, 6)
    assert t.capture() == ["c", "d", "e", "", "", ""]
    t.feed(b"\x1b[?1049l")
    # Restored at 5 rows, then grown to 6 by pulling L3 back from history.
    assert (t.history_size, t.height, t.cursor_y) == (hsize - 1, 6, 5)
    assert t.capture()[:5] == ["L3", "L4", "L5", "L6", "L7"]
