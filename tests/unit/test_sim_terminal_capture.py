"""docs/tmux-model.md §14, §15: capture-pane ranges, trailing blanks per version, -J, -a,
tabs and wide characters."""

from __future__ import annotations

import pytest

from gridmux.backend import InvalidArgument, RowBound
from tmuxsim._terminal import Terminal
from tmuxsim._versions import KNOWN_VERSIONS, TmuxVersion

ALL = ["L1", "L2", "L3", "L4", "L5", "L6", "v"]


def ranged(version: str = "3.3a") -> Terminal:
    t = Terminal(80, 4, 2000, TmuxVersion.parse(version))
    t.feed(b"".join(f"L{i}\r\n".encode() for i in range(1, 7)) + b"v")
    assert t.history_size == 3
    return t


@pytest.mark.parametrize(
    ("start", "end", "rows"),
    [
        ("-", None, ALL),
        (-100, None, ALL),
        (-2, -1, ["L2", "L3"]),
        (2, 0, ["L4", "L5", "L6"]),
        (99, None, ["v"]),
        (None, -100, ["L1", "L2", "L3", "L4"]),
        ("-", -100, ["L1"]),
        (40000, None, ["L4", "L5", "L6", "v"]),
        (None, -1, ["L3", "L4"]),
        (None, None, ["L4", "L5", "L6", "v"]),
        (-3, "-", ALL),
        (None, 40000, ["L4", "L5", "L6", "v"]),
    ],
)
@pytest.mark.parametrize("version", ["3.3a", "3.4", "3.8"])
def test_ranges(version: str, start: RowBound, end: RowBound, rows: list[str]) -> None:
    assert ranged(version).capture(start, end) == rows


def trailing(version: str) -> Terminal:
    t = Terminal(80, 4, 2000, TmuxVersion.parse(version))
    t.feed(b"abc\r\nxy   \r\n\x1b[31mred\x1b[0m\x1b[K\r\nq\x1b[1K")
    return t


@pytest.mark.parametrize("version", KNOWN_VERSIONS)
def test_trailing_blanks_are_trimmed_by_default(version: str) -> None:
    assert trailing(version).capture() == ["abc", "xy", "red", ""]


@pytest.mark.parametrize("version", ["3.2a", "3.4", "3.5a", "3.6b", "3.7c", "3.8"])
def test_keep_trailing_pads_to_cellsize(version: str) -> None:
    rows = trailing(version).capture(keep_trailing=True)
    assert rows == ["abc".ljust(20), "xy".ljust(20), "red".ljust(20), " " * 20]


def test_keep_trailing_on_3_3a_stops_at_cellused() -> None:
    assert trailing("3.3a").capture(keep_trailing=True) == ["abc", "xy   ", "red", " "]


@pytest.mark.parametrize(("version", "joined"), [("3.2a", "0123456789A "), ("3.3a", "0123456789A")])
def test_join_trailing_blanks(version: str, joined: str) -> None:
    t = Terminal(10, 3, 2000, TmuxVersion.parse(version))
    t.feed(b"0123456789A")
    assert t.capture(join=True)[0] == joined


@pytest.mark.parametrize("version", ["3.4", "3.6b", "3.8"])
def test_join_reads_to_cellused_from_3_3(version: str) -> None:
    t = Terminal(10, 3, 2000, TmuxVersion.parse(version))
    t.feed(b"0123456789A")
    assert t.capture(join=True) == ["0123456789A", ""]


def test_join_keeps_spaces_inside_a_row() -> None:
    t = Terminal(10, 3, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"ab  \r\n")
    assert t.capture(join=True)[0] == "ab  "


def test_join_of_a_wrapped_last_row_has_no_newline() -> None:
    t = Terminal(10, 3, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"\r\n0123456789AB")
    # The range ends on the wrapped row, so its continuation is not read.
    assert t.capture(0, 1, join=True) == ["", "0123456789"]
    assert t.capture(1, 2, join=True) == ["0123456789AB"]


def alt_setup(version: str) -> Terminal:
    t = Terminal(80, 4, 2000, TmuxVersion.parse(version))
    t.feed(b"".join(f"L{i}\r\n".encode() for i in range(1, 7)) + b"norm")
    t.feed(b"\x1b[?1049h\x1b[H")
    t.feed(b"".join(f"A{i}\r\n".encode() for i in range(1, 11)) + b"altlast")
    return t


@pytest.mark.parametrize("version", ["3.3a", "3.6b", "3.8"])
def test_alternate_screen_capture(version: str) -> None:
    t = alt_setup(version)
    assert t.capture("-") == ["L1", "L2", "L3", "A8", "A9", "A10", "altlast"]
    assert t.capture(alternate=True) == ["L4", "L5", "L6", "norm"]
    assert t.capture(-1, 1, alternate=True) == ["L4", "L5"]
    t.feed(b"\x1b[?1049l")
    with pytest.raises(InvalidArgument, match="no alternate screen"):
        t.capture(alternate=True)
    assert t.capture() == ["L4", "L5", "L6", "norm"]


@pytest.mark.parametrize(
    ("version", "row"),
    [("3.2a", "a       b"), ("3.5a", "a       b"), ("3.6b", "a\tb"), ("3.8", "a\tb")],
)
def test_tab_output(version: str, row: str) -> None:
    t = Terminal(20, 2, 2000, TmuxVersion.parse(version))
    t.feed(b"a\tb")
    assert t.cursor_x == 9
    assert t.capture()[0] == row


@pytest.mark.parametrize(("version", "row"), [("3.5a", "x"), ("3.6b", "x\t")])
def test_trailing_tab(version: str, row: str) -> None:
    t = Terminal(20, 2, 2000, TmuxVersion.parse(version))
    t.feed(b"x\t")
    assert t.capture()[0] == row


def test_tab_over_text_is_only_a_cursor_move_on_3_6() -> None:
    t = Terminal(20, 2, 2000, TmuxVersion.parse("3.6b"))
    t.feed(b"abcdefghij\r\t")
    assert t.cursor_x == 8
    assert t.capture()[0] == "abcdefghij"


def test_tab_stops_at_the_last_column() -> None:
    t = Terminal(12, 2, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"\t\t\t")
    assert t.cursor_x == 11


def test_tab_stop_set_and_cleared() -> None:
    t = Terminal(20, 2, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"\x1b[3g\x1b[4G\x1bH\r\tX")
    assert t.capture()[0] == "   X"
    # With the only stop cleared, TAB runs to the last column.
    t.feed(b"\x1b[4G\x1b[g\r\tY")
    assert t.capture()[0] == "   X" + " " * 15 + "Y"


def test_wide_padding_is_skipped() -> None:
    t = Terminal(10, 2, 2000, TmuxVersion.parse("3.3a"))
    t.feed("中x".encode())
    assert t.capture() == ["中x", ""]
    assert t.capture(keep_trailing=True)[0] == "中x"
