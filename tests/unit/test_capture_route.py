"""How a capture routed through a buffer and a file (tmux before 3.6,
``backend/_capture_route.py``) is read back, from the lines tmux sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend._capture_route import NotSaved, _answer, _Routed
from gridmux.backend._commands import Command
from gridmux.backend._control_client import ControlClient

CAPTURE: list[Command] = [["capture-pane", "-b", "N"]]
SAVES: list[Command] = [["save-buffer", "-b", "N", "F"], ["delete-buffer", "-b", "N"]]


def answered(lines: list[bytes], path: str) -> bytes:
    """The list's stdout: its segments as the client splits them, the file put in."""
    segments = ControlClient(["tmux"], timeout=1)._parsed(lines, ["M1"])
    return _answer(segments, _Routed([CAPTURE, SAVES], {0: path})).stdout


def reply(tail: list[bytes]) -> list[bytes]:
    """``capture-pane -b N ; <marker M1> ; save-buffer … ; delete-buffer …`` answered."""
    return [
        b"%begin 1 10 1",
        b"%end 1 10 1",
        b"%begin 1 11 1",
        b"M1",
        b"%end 1 11 1",
        *tail,
    ]


SAVE_AND_DELETE = [b"%begin 1 12 1", b"%end 1 12 1", b"%begin 1 13 1", b"%end 1 13 1"]


def test_the_file_is_the_captures_output(tmp_path: Path) -> None:
    saved = tmp_path / "cap"
    saved.write_bytes(b"row one\n\xff binary\n\n")
    assert answered(reply(SAVE_AND_DELETE), str(saved)) == b"row one\n\xff binary\n\n"


def test_a_save_that_failed_is_not_taken_for_a_short_capture(tmp_path: Path) -> None:
    """tmux reports a failed write (a full disk) as a bare line after the save's
    block; the file it left may hold part of the capture."""
    saved = tmp_path / "cap"
    saved.write_bytes(b"row one\n")  # the part written before the disk filled
    failed = [*SAVE_AND_DELETE[:2], b"/tmp/x/cap: No space left on device", *SAVE_AND_DELETE[2:]]
    with pytest.raises(NotSaved, match="No space left"):
        answered(reply(failed), str(saved))


def test_a_missing_file_is_not_saved(tmp_path: Path) -> None:
    with pytest.raises(NotSaved, match="No such file"):
        answered(reply(SAVE_AND_DELETE), str(tmp_path / "x"))


def test_the_control_clients_request_path_knows_no_command() -> None:
    """The route is the only place that rewrites captures; the client stays generic."""
    client = (
        Path(__file__).resolve().parents[2] / "src/gridmux/backend/_control_client.py"
    ).read_text()
    for word in (
        "capture-pane",
        "save-buffer",
        "delete-buffer",
        "list-buffers",
        "FLAT_OUTPUT_FROM",
    ):
        assert word not in client, word
