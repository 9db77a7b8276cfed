"""The user's tmux server stays flat however often gridmux reads a pane.

tmux before 3.6 never frees a ``capture-pane -p`` it answers a control client
with (3.3a: ~20 KB per capture of a screen of binary output, and a new client
does not give it back), so with control mode on a pane polled by
``capture_since`` grew the server without bound (docs/control-mode.md). The server's resident size
after N captures through gridmux's runner, control mode on, must stay within
2x of control mode off (one-off tmux processes, which cost the server nothing).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend import ServerRef
from gridmux.backend._runner import TmuxRunner
from tests.faults.conftest import Tmux
from tests.faults.stdio_peer import wait_until

pytestmark = pytest.mark.tmux

#: Enough for the old growth to show clearly: ~6 MB on 3.3a against ~0.1 MB off.
READS = 300
#: Allocator noise a few hundred reads cause with control mode off.
FLOOR_KB = 512


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def growth(runner: TmuxRunner, server: ServerRef, pane: str, pid: int) -> int:
    capture = ["capture-pane", "-p", "-e", "-J", "-t", pane, "-S", "-", "-E", "-"]
    runner.run(server, [capture], what="capture")  # attach and warm up first
    before = rss_kb(pid)
    for _ in range(READS):
        runner.run(server, [capture], what="capture")
    return rss_kb(pid) - before


def test_server_memory_flat_under_reads_with_control_mode(
    tmux: Tmux, socket: str, env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    # Binary output, the same every run: digits turned into lone UTF-8
    # continuation bytes (0x80-0x89), ~24 KB of invalid UTF-8.
    made = tmux(
        "new-session", "-d", "-x", "200", "-y", "50", "-P", "-F", "#{pane_id}",
        "sh -c 'seq 1 5000 | tr 0-9 \\200-\\211; echo DONE; exec sleep 600'",
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    pane = made.stdout.strip()
    wait_until(lambda: "DONE" in tmux("capture-pane", "-p", "-t", pane).stdout, "the output")
    pid = int(tmux("display-message", "-p", "#{pid}").stdout)
    server = ServerRef(socket_path=socket)
    off = TmuxRunner(control_mode=False)
    on = TmuxRunner(control_mode=True)
    try:
        grown_off = growth(off, server, pane, pid)
        grown_on = growth(on, server, pane, pid)
    finally:
        on.close()
        off.close()
    assert grown_on <= 2 * max(grown_off, FLOOR_KB), (
        f"tmux server grew {grown_on} KB over {READS} reads with control mode on, "
        f"{grown_off} KB with it off"
    )
