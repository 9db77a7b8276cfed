"""The one reader of ``/proc/PID/stat`` and ``cmdline`` (``backend/_procfs.py``)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridmux.backend._procfs import ProcStat, command_line, parse_stat, read_stat

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", [b"bash", b"my prog", b"a) R 1 2 3 4 5 (b", b"((", b")", b"x) Z"])
def test_the_command_name_runs_to_the_last_parenthesis(name: bytes) -> None:
    line = b"4242 (" + name + b") S 17 4242 4242 34817 4250 4194304 0 0 0\n"
    assert parse_stat(line) == ProcStat(name, b"S", 17, 4242, 4242, 34817, 4250)


def test_a_zombie_has_ended() -> None:
    assert parse_stat(b"9 (sh) Z 1 9 9 0 -1 0\n").ended
    assert parse_stat(b"9 (sh) Z 1 9 9 0 -1 0\n").tpgid == -1
    assert not parse_stat(b"9 (sh) S 1 9 9 0 -1 0\n").ended


@pytest.mark.parametrize(
    "line", [b"", b"4242 sh S 1 2 3 4 5", b"1 (sh) S 1 2", b"1 (sh) S x 2 3 4 5"]
)
def test_a_malformed_line_is_refused(line: bytes) -> None:
    with pytest.raises(ValueError, match="stat"):
        parse_stat(line)


def test_a_live_process_reads_back() -> None:
    own = read_stat(os.getpid())
    assert own is not None
    assert (own.ppid, own.pgrp, own.state) == (os.getppid(), os.getpgrp(), b"R")
    argv = [sys.executable, "-c", "import sys; sys.stdin.read()", "a b", ""]
    child = subprocess.Popen(argv, stdin=subprocess.PIPE)
    try:
        # Popen returns once exec has begun; the new image's argv shows in
        # /proc a moment later (seen empty on a loaded machine).
        deadline = time.monotonic() + 10
        while not command_line(child.pid) and time.monotonic() < deadline:
            time.sleep(0.001)
        assert command_line(child.pid) == [os.fsencode(arg) for arg in argv]
        found = read_stat(child.pid)
        assert found is not None and found.ppid == os.getpid() and not found.ended
    finally:
        child.communicate(b"")
    assert read_stat(2**22 + 1) is None  # above any pid_max
    assert command_line(2**22 + 1) is None


def test_no_other_source_parses_proc_stat() -> None:
    """One parser: ``src``, ``sim`` and the tests read ``/proc/PID/stat`` through it."""
    own = {ROOT / "src/gridmux/backend/_procfs.py", Path(__file__).resolve()}
    found = [
        str(path.relative_to(ROOT))
        for folder in ("src", "sim", "tests")
        for path in (ROOT / folder).rglob("*.py")
        if path not in own and '/stat"' in path.read_text()
    ]
    assert found == []
