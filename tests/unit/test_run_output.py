"""run_command's full output: terminal bytes to lines, the kept runs and
their resource (``gridmux.tools._run_output``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fastmcp import Client
from mcp import MCPError

from gridmux.tools._command_line import markers
from gridmux.tools._run_output import (
    Outputs,
    as_piped,
    pipe_started,
    piped_output,
    terminal_lines,
)


def test_terminal_lines_end_as_a_screen_shows_them() -> None:
    data = (
        b"plain\r\n"
        b"10%\r50%\r100%\r\n"  # a progress line: the last draw wins
        b"\x1b[1;31mred\x1b[0m and \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\\r\n"
        b"a\tb\x08c  \r\n"  # a tab, a backspace, trailing blanks trimmed
        b"bell\x07\x1b(B\r\n"
        b"no newline"
    )
    assert terminal_lines(data) == [
        "plain",
        "100%",
        "red and link",
        "a" + " " * 7 + "c",
        "bell",
        "no newline",
    ]
    assert terminal_lines(b"") == []
    assert terminal_lines(b"\r\n\r\n") == ["", ""]
    assert terminal_lines("é\r\n".encode()) == ["é"]


def test_screen_rows_read_as_the_pipe_would_give_them() -> None:
    # tmux 3.8 captures a tab it kept as a tab; the pipe's lines have its blanks
    assert as_piped(["b\tc", "ab\tc\td", "plain", ""]) == [
        "b       c",
        "ab      c       d",
        "plain",
        "",
    ]
    assert as_piped(["b\tc"]) == terminal_lines(b"b\tc\n")


def test_the_output_is_what_lies_between_the_runs_markers(tmp_path: Path) -> None:
    start, end = (m.encode() for m in markers("ab"))
    path = tmp_path / "pipe"
    path.write_bytes(b"$ . 'x'\r\nredrawn" + start + b"1\r\n2\r\n" + end + b"$ ")
    assert piped_output(str(path), "ab") == b"1\r\n2\r\n"
    path.write_bytes(b"$ " + start + b"1\r\n")  # the end never came through the pipe
    assert piped_output(str(path), "ab", lag=0.0) is None


def test_the_pipe_has_started_once_its_start_marker_is_in_the_file(tmp_path: Path) -> None:
    start = markers("ab")[0].encode()
    path = tmp_path / "pipe"
    path.write_bytes(b"$ . 'x'\r\n")  # the typed line's echo only: cat may not have it yet
    assert pipe_started(str(path), "ab", lag=0.0) is False
    path.write_bytes(b"$ . 'x'\r\nredrawn" + start + b"1\r\n")  # the end is still to come
    assert pipe_started(str(path), "ab", lag=0.0) is True
    assert piped_output(str(path), "ab", lag=0.0) is None


def test_only_the_last_runs_are_kept_and_evicted_files_deleted(tmp_path: Path) -> None:
    outputs = Outputs(runs=2, size=10)
    paths = [str(tmp_path / f"{n}.out") for n in range(4)]
    outputs.keep("a", paths[0], ["1"])
    outputs.keep("b", paths[1], ["2"])
    outputs.keep("c", paths[2], ["3"])  # past two runs: a goes
    assert (outputs.lines("a"), outputs.lines("b"), outputs.lines("c")) == (None, ["2"], ["3"])
    assert not os.path.exists(paths[0])
    assert os.stat(paths[2]).st_mode & 0o777 == 0o600
    outputs.keep("d", paths[3], ["0123456789"])  # past ten bytes: all older ones go
    assert (outputs.lines("b"), outputs.lines("c"), outputs.lines("d")) == (
        None,
        None,
        ["0123456789"],
    )
    assert sorted(os.listdir(tmp_path)) == ["3.out"]


@pytest.mark.parametrize(
    ("run_id", "message"),
    [("0123456789abcdef", "keeps no output of run"), ("nothex", "is not a run id")],
)
async def test_a_run_not_kept_is_a_clear_error(
    client: Client,  # type: ignore[type-arg]
    run_id: str,
    message: str,
) -> None:
    with pytest.raises(MCPError, match=message):
        await client.read_resource(f"tmux://runs/{run_id}/output")
