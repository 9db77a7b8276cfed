"""How the control client reads back a capture it routed through a buffer and a
file (tmux before 3.6, ``backend/_control_client.py``), from the lines tmux sends."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend._control_client import ControlClient, _NotSaved, _Saved


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
    client = ControlClient(["tmux"], timeout=1)
    answer = client._parsed(reply(SAVE_AND_DELETE), ["M1"], {0: _Saved(str(saved), 1)})
    assert answer.stdout == b"row one\n\xff binary\n\n"


def test_a_save_that_failed_is_not_taken_for_a_short_capture(tmp_path: Path) -> None:
    """tmux reports a failed write (a full disk) as a bare line after the save's
    block; the file it left may hold part of the capture."""
    saved = tmp_path / "cap"
    saved.write_bytes(b"row one\n")  # the part written before the disk filled
    failed = [*SAVE_AND_DELETE[:2], b"/tmp/x/cap: No space left on device", *SAVE_AND_DELETE[2:]]
    client = ControlClient(["tmux"], timeout=1)
    with pytest.raises(_NotSaved, match="No space left"):
        client._parsed(reply(failed), ["M1"], {0: _Saved(str(saved), 1)})


def test_a_missing_file_is_not_saved(tmp_path: Path) -> None:
    client = ControlClient(["tmux"], timeout=1)
    with pytest.raises(_NotSaved, match="No such file"):
        client._parsed(reply(SAVE_AND_DELETE), ["M1"], {0: _Saved(str(tmp_path / "x"), 1)})
