"""``gridmux.backend._plain``: which pane output only appends, and what it adds."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridmux.backend import PaneState
from gridmux.backend._plain import only_appended, replay, settle
from gridmux.backend._watch import _split_sessions, _unescape

STATE = PaneState(
    pane_id="%1",
    pid=42,
    dead=False,
    dead_status=None,
    history_size=0,
    history_limit=100,
    cursor_x=2,
    cursor_y=0,
    width=20,
    height=5,
    alternate_on=False,
    in_mode=False,
    server_pid=7,
)
FULL = (0, 4)


@pytest.mark.parametrize(
    ("data", "x", "expected"),
    [
        (b"", 2, (0, 2, 2)),
        (b"abc", 2, (0, 5, 5)),
        (b"x" * 18, 2, (0, 20, 20)),  # the last column written: a wrap pending, not made
        (b"ls\r\nfile\r\n", 2, (2, 0, 0)),
        (b"\n\x0b\x0c", 0, (3, 0, 0)),
        (b"ab\x08\x08", 0, (0, 0, 0)),
        (b"\t", 0, (0, 1, 19)),
        (b"\tx", 0, (0, 2, 20)),
        (b"\x1b[1;31mred\x1b[0m", 0, (0, 3, 3)),
        (b"\x1b[K\x1b[2K\x1b[1K", 4, (0, 4, 4)),
        (b"\x1b[?2004h\x1b[?25l\x1b[?1;1000h", 0, (0, 0, 0)),
        (b"\x1b]0;title\x07\x1b]2;t\x1b\\", 0, (0, 0, 0)),
        (b"\x1b(B\x1b)0\x1b=\x1b>", 0, (0, 0, 0)),
        (b"\x1b[6n\x1b[c\x1b[>c\x1b[2 q\x1b[>0q\x1b[22;0t\x1b[>1u", 0, (0, 0, 0)),
        ("é中".encode(), 0, (0, 0, 4)),
        (b"\x07\x00\x0e\x0f\x7f", 3, (0, 3, 3)),
    ],
)
def test_plain_bytes_and_what_they_do(data: bytes, x: int, expected: tuple[int, int, int]) -> None:
    assert replay(data, x, 20) == expected


@pytest.mark.parametrize(
    ("data", "x"),
    [
        (b"x" * 19, 2),  # the 19th character wraps
        (b"\x08", 0),  # column 0: may go up to a wrapped row
        (b"\tab", 0),  # after a tab the column may be the last
        (b"\x1b[H", 0),
        (b"\x1b[2J", 0),
        (b"\x1b[3J", 0),
        (b"\x1b[J", 0),
        (b"\x1b[A", 0),
        (b"\x1b[5;1H", 0),
        (b"\x1b[2;4r", 0),
        (b"\x1b[L", 0),
        (b"\x1b[S", 0),
        (b"\x1b[u", 0),  # restore the cursor
        (b"\x1b[4h", 0),  # insert mode
        (b"\x1b[?1049h", 0),
        (b"\x1b[?7l", 0),
        (b"\x1b[?6h", 0),
        (b"\x1bM", 0),
        (b"\x1bD", 0),
        (b"\x1bE", 0),
        (b"\x1b7\x1b8", 0),
        (b"\x1bc", 0),
        (b"\x1bPq#0\x1b\\", 0),  # DCS (sixel)
        (b"\x1b]0;open", 0),  # not finished
        (b"\x1b]0;bad\x1bx", 0),
        (b"\x1b[", 0),
        (b"\x1b[1\n2m", 0),  # a control inside a sequence
        (b"\x05", 0),
        ("中".encode() * 11, 0),  # may wrap past the last column
    ],
)
def test_bytes_that_are_not_plain(data: bytes, x: int) -> None:
    assert replay(data, x, 20) is None


@pytest.mark.parametrize(
    ("pending", "data", "expected"),
    [
        (b"", b"plain text\r\n", b""),
        (b"", b"\x1b[31mred", b""),
        (b"", b"red\x1b[3", b"\x1b["),
        (b"\x1b[", b"1m", b""),
        (b"\x1b[", b"1\n2", b"\x1b["),  # a control inside runs; the sequence goes on
        (b"", b"\x1b]0;title", b"\x1b]"),
        (b"\x1b]", b"\x07", b""),
        (b"\x1b]", b"\x1b", b"\x1b"),
        (b"\x1b", b"\\", b""),
        (b"", b"\x1b[12\x18", b""),  # CAN ends a sequence anywhere
        (b"", b"\x1b(", b"\x1b "),
        (b"\x1b ", b"B", b""),
        (b"", b"\x1bktitle", b"\x1b_"),  # tmux's window name: a string, to ESC \\
        (b"\x1b_", b"more\x1b\\", b""),
        (b"", b"\x1bPq#0", b"\x1bP"),
        (b"", b"\x1bPtmux;\x1b\x1b[2J", b"\x1bP"),  # escapes inside a DCS stay in it
        (b"\x1bP", b"\x18\x1b", b"\x1bP\x1b"),
        (b"\x1bP\x1b", b"\\text", b""),
        (b"", b"\x1b]" + b"x" * 100_000, b"\x1b]"),  # a long string is followed, not dropped
        (None, b"plain", None),
    ],
)
def test_where_a_stream_stands(pending: bytes | None, data: bytes, expected: bytes | None) -> None:
    assert settle(pending, data) == expected


TOKENS = st.sampled_from(
    [b"text", b"\r\n", b"\x1b[31m", b"\x1b[K", b"\x1b]0;t\x07", b"\x1b]2;t\x1b\\", b"\x1b(B"]
    + [b"\x1b[?2004h", "é".encode(), b"\t", b"\x1b[2J", b"\x1bPq#0\x1b\\", b"\x1bkname\x1b\\"]
)


@given(tokens=st.lists(TOKENS, max_size=12), cuts=st.lists(st.integers(0, 200), max_size=6))
def test_a_stream_stands_where_it_stands_however_it_is_cut(
    tokens: list[bytes], cuts: list[int]
) -> None:
    data = b"".join(tokens)
    pending: bytes | None = b""
    last = 0
    for cut in sorted({min(cut, len(data)) for cut in cuts}) + [len(data)]:
        pending = settle(pending, data[last:cut])
        last = cut
    assert pending == b""  # every token ends a sequence it opens
    assert settle(b"", data) == b""


def moved(**changes: object) -> PaneState:
    return dataclasses.replace(STATE, **changes)  # type: ignore[arg-type]


def test_a_prompt_a_command_and_its_output() -> None:
    after = moved(cursor_x=2, cursor_y=2)
    assert only_appended(STATE, after, b"ls\r\nfile\r\n$ ", FULL, FULL)


def test_lines_that_scroll_into_history() -> None:
    # 6 line feeds from row 0 of a 5-row pane: 4 move the cursor, 2 push rows
    after = moved(cursor_x=0, cursor_y=4, history_size=2)
    assert only_appended(STATE, after, b"\r\n" * 6, FULL, FULL)
    assert not only_appended(STATE, moved(cursor_x=0, cursor_y=4), b"\r\n" * 6, FULL, FULL)


def test_a_region_pushes_its_top_row_and_rows_below_it_stay() -> None:
    region = (1, 3)
    after = moved(cursor_x=0, cursor_y=3, history_size=2)
    assert only_appended(STATE, after, b"\r\n" * 5, region, region)
    below = moved(cursor_y=4)
    assert only_appended(below, moved(cursor_x=0, cursor_y=4), b"\r\n" * 3, region, region)


def test_what_no_byte_shows_is_caught_by_the_state() -> None:
    history = moved(history_size=3, cursor_y=4, cursor_x=0)
    # clear-history between: history_size fell where only line feeds came
    assert not only_appended(
        history, moved(history_size=1, cursor_y=4, cursor_x=0), b"\r\n", FULL, FULL
    )
    # the history limit reached: a trim and a clear look alike
    full = moved(history_size=99, cursor_y=4, cursor_x=0)
    assert only_appended(full, moved(history_size=100, cursor_y=4, cursor_x=0), b"\n", FULL, FULL)
    assert not only_appended(
        full, moved(history_size=91, cursor_y=4, cursor_x=0), b"\n\n", FULL, FULL
    )
    # the column where plain bytes cannot have left it (a reset, a resize)
    assert not only_appended(STATE, moved(cursor_x=0), b"", FULL, FULL)


@pytest.mark.parametrize(
    "after",
    [
        moved(pid=43),
        moved(server_pid=8),
        moved(pane_id="%2"),
        moved(width=30),
        moved(height=6),
        moved(history_limit=50),
        moved(alternate_on=True),
        moved(dead=True),
    ],
)
def test_another_pane_process_size_or_screen_proves_nothing(after: PaneState) -> None:
    assert not only_appended(STATE, after, b"", FULL, FULL)


def test_a_changed_region_proves_nothing() -> None:
    assert not only_appended(STATE, STATE, b"", FULL, (1, 4))
    assert only_appended(STATE, STATE, b"", FULL, FULL)


def test_control_mode_output_is_unescaped() -> None:
    # tmux escapes bytes below a space and the backslash as three octal digits
    assert _unescape(rb"ls\015\012a\134b") == b"ls\r\na\\b"


def test_a_cut_reply_splits_into_sessions_region_and_snapshot() -> None:
    sessions, region, rest = _split_sessions(b"$0\n$12\nregion 0 23\n%1\x1fstate\nrow\n")
    assert (sessions, region, rest) == ({"$0", "$12"}, (0, 23), b"%1\x1fstate\nrow\n")
    # a pane that is gone prints an empty region: no region, the line dropped
    assert _split_sessions(b"$0\nregion  \n\n") == ({"$0"}, None, b"\n")
