"""Control-mode lines and replies, without tmux: quoting, markers, forged guards."""

from __future__ import annotations

import pytest

from gridmux.backend._commands import command_text, quote_word
from gridmux.backend._control_syntax import (
    ProtocolError,
    find_token_block,
    parse_segment,
    request_lines,
)
from gridmux.backend._control_transport import carried
from gridmux.backend._formats import gridmux_clients


@pytest.mark.parametrize(
    ("arg", "word"),
    [
        ("%1", "'%1'"),
        ("plain-word_1.2:x@y", "plain-word_1.2:x@y"),
        ("", "''"),
        ("a;", "'a;'"),
        ("$HOME ~ #{x} {y}", "'$HOME ~ #{x} {y}'"),
        ("it's", '"it\'s"'),
        ('say "$x" \\', "'say \"$x\" \\'"),
        ("a\nb\tc\x1b", '"a\\012b\\011c\\033"'),
        ("it's $x\n", '"it\'s \\$x\\012"'),
        ("~'", '"\\~\'"'),
        ("é 漢", "'é 漢'"),
    ],
)
def test_each_argument_is_one_literal_word(arg: str, word: str) -> None:
    assert quote_word(arg) == word


def test_a_request_is_one_list_with_markers_then_a_sentinel_line() -> None:
    groups = [[["display-message", "-p", "x"]], [["list-panes", "-a"]]]
    data = request_lines(groups, ["M1"], "S")
    assert data == b"display-message -p x ; display-message -p M1 ; list-panes -a\n" + (
        b"display-message -p S\n"
    )
    with pytest.raises(ValueError, match="marker"):
        request_lines([[["a"]], [["b"]]], [], "S")
    with pytest.raises(ValueError, match="at least one"):
        request_lines([], [], "S")
    with pytest.raises(ValueError, match="at least one"):
        request_lines([[["a"]], []], ["M1"], "S")
    with pytest.raises(TypeError, match="group"):
        request_lines([["display-message", "-p", "x"]], [], "S")  # a command, not a group
    # a group of several commands: no marker between them
    data = request_lines([[["a"]], [["b", "-x"], ["c"]]], ["M1"], "S")
    assert data == b"a ; display-message -p M1 ; b -x ; c\ndisplay-message -p S\n"


def test_marker_blocks_are_found_only_whole() -> None:
    lines = [b"%begin 1 5 1", b"M", b"%end 1 5 1", b"M", b"%begin 1 6 1", b"M", b"%end 1 7 1"]
    assert find_token_block(lines, b"M") == 1
    assert find_token_block(lines, b"M", 2) is None


def test_forged_closing_guards_inside_output_are_output() -> None:
    body = [b"%end 9 5 1", b"%error 9 5 1", b"%begin 9 6 1", b"%exit", b"text"]
    lines = [b"%begin 9 5 1", *body, b"%end 9 5 1"]
    segment = parse_segment(lines, b"1")
    assert segment.output == body
    assert segment.error is None


def test_errors_nested_blocks_and_notifications() -> None:
    lines = [
        b"%session-changed $1 x",
        b"%begin 9 3 0",  # a hook's output before ours: not ours
        b"hook",
        b"%end 9 3 0",
        b"%begin 9 5 1",
        b"%end 9 5 1",
        b"%layout-change @1 abc",
        b"X from a hook run for a notification",
        b"%begin 9 6 1",  # what if-shell chose
        b"can't find pane: %9",
        b"%error 9 6 1",
    ]
    segment = parse_segment(lines, b"1")
    assert segment.output == []
    assert segment.error == [b"can't find pane: %9"]


@pytest.mark.parametrize(
    "lines",
    [
        [],
        [b"%begin 9 5 1", b"out"],
        [b"%begin 9 5 1", b"%end 9 5 2"],
        [b"%begin 9 5 0", b"%end 9 5 0"],
    ],
)
def test_replies_that_do_not_divide_into_blocks_are_protocol_errors(lines: list[bytes]) -> None:
    with pytest.raises(ProtocolError):
        parse_segment(lines, b"1")


def test_only_blocking_commands_and_client_changers_avoid_the_channel() -> None:
    assert carried([["display-message", "-p", "x"], ["wait-for", "-S", "c"]])
    assert not carried([["wait-for", "c"]])
    assert not carried([["display-message", "-p", "x"], ["kill-session", "-t", "$1"]])
    assert not carried([["load-buffer", "-b", "b", "-"]])


def test_gridmux_control_clients_are_counted_per_session() -> None:
    data = (
        b"10:$1:attached,focused,control-mode,ignore-size,no-output,UTF-8\n"
        b"11:$1:attached,focused,UTF-8\n"
        b"12:$2:attached,control-mode,no-output\n"
        b"$1\x1frest"
    )
    ours, rest = gridmux_clients(data)
    assert dict(ours) == {"$1": 1}
    assert rest == b"$1\x1frest"


@pytest.mark.parametrize("arg", ["@x\n", "a\nb", "x\r", "ok\x1b", "tab\there", "\n"])
def test_no_argument_leaves_a_raw_control_character_in_a_command_line(arg: str) -> None:
    word = quote_word(arg)
    assert word.startswith('"') and word.endswith('"')
    assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in command_text(["set", "-g", arg, "v"]))
