"""The one-list run_command's liveness check (backend/_typed_run.py) on real processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from gridmux.backend._typed_run import _alive


def test_a_running_process_is_alive() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    try:
        assert _alive(child.pid)
    finally:
        child.communicate(b"")


def _state(pid: int) -> bytes:
    with open(f"/proc/{pid}/stat", "rb") as stat:
        return stat.read().rpartition(b")")[2].split()[0]


def test_a_zombie_is_not_alive_though_kill_still_reaches_it() -> None:
    """tmux 3.3a may leave an exited shell unreaped: its command has ended all the same."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    try:
        deadline = time.monotonic() + 10
        while _state(child.pid) != b"Z":
            assert time.monotonic() < deadline, "the child did not exit"
            time.sleep(0.005)  # a poll interval, not a synchronisation
        os.kill(child.pid, 0)  # still reachable: only procfs tells it has ended
        assert not _alive(child.pid)
    finally:
        child.wait()


def test_a_reaped_process_is_not_alive() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not _alive(child.pid)
