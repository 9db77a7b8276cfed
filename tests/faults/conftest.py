"""Fault tests: real tmux on private sockets, gridmux as a separate process.

Each test gets a private directory (HOME, TMUX_TMPDIR and the socket inside
it) and a tmux server with one session; whatever tmux server is left on that
socket is killed at the end. Only processes a test started are signalled.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.faults.stdio_peer import env_for

Tmux = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def private_dir() -> Iterator[Path]:
    # Unix socket paths are limited to ~108 bytes; pytest's tmp_path can be longer.
    root = Path(tempfile.mkdtemp(prefix="gmxf-", dir="/tmp" if os.path.isdir("/tmp") else None))
    (root / "home").mkdir()
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def socket(private_dir: Path) -> Iterator[str]:
    path = str(private_dir / "sock")
    yield path
    subprocess.run(
        [shutil.which("tmux") or "tmux", "-S", path, "kill-server"],
        capture_output=True,
        timeout=10,
        check=False,
        stdin=subprocess.DEVNULL,
    )


@pytest.fixture
def env(private_dir: Path, socket: str) -> dict[str, str]:
    home = str(private_dir / "home")
    return env_for(socket, HOME=home, TMUX_TMPDIR=str(private_dir), LC_ALL="C.UTF-8")


@pytest.fixture
def tmux(socket: str, env: dict[str, str]) -> Tmux:
    binary = shutil.which("tmux")
    assert binary, "tmux is not on PATH"

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [binary, "-u", "-f", "/dev/null", "-S", socket, *args],
            capture_output=True,
            text=True,
            errors="replace",  # panes may hold binary output
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
            env=env,
        )

    return run


@pytest.fixture
def session(tmux: Tmux) -> str:
    """A session ``f`` (80x24, ``sh``); its first pane's id."""
    made = tmux(
        "new-session", "-d", "-s", "f", "-x", "80", "-y", "24", "-P", "-F", "#{pane_id}", "sh"
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()
