"""The user's tmux server's memory after many reads, control mode on beside off.

Issue 16 item 9: a pane with binary output is captured ``--reads`` times through
gridmux's runner with control mode on, and as many times with it off (a one-off
tmux process per read); the server's resident size before and after each series
is printed. Run once per release with that tmux first on PATH::

    python -m bench.server_memory --reads 10000

The figures go in docs/control-mode.md; ``tests/faults/test_server_memory.py``
checks the same thing with fewer reads on every matrix cell.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from gridmux.backend import ServerRef
from gridmux.backend._runner import TmuxRunner

#: ~24 KB of binary output, the same every run: digits made lone UTF-8
#: continuation bytes, as in the fault test.
PRINTER = "seq 1 5000 | tr 0-9 '\\200-\\211'; echo DONE; exec sleep 100000"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for {pid}")


def measure(control: bool, reads: int) -> tuple[int, int, float]:
    """RSS in KB of a fresh server before and after ``reads`` captures; seconds taken."""
    home = tempfile.mkdtemp(prefix="gridmux-memory-")
    socket = os.path.join(home, "socket")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    env |= {"HOME": home, "TMUX_TMPDIR": home}

    def tmux(*words: str) -> str:
        argv = ["tmux", "-S", socket, "-f", "/dev/null", *words]
        return subprocess.run(argv, env=env, capture_output=True, check=True, text=True).stdout

    try:
        tmux("new-session", "-d", "-x", "200", "-y", "50", "sh", "-c", PRINTER)
        deadline = time.monotonic() + 30
        while "DONE" not in tmux("capture-pane", "-p"):
            if time.monotonic() > deadline:
                raise SystemExit("the pane's output did not arrive")
            time.sleep(0.05)
        pid = int(tmux("display-message", "-p", "#{pid}"))
        capture = ["capture-pane", "-p", "-e", "-J", "-S", "-", "-E", "-"]
        server = ServerRef(socket_path=socket)
        runner = TmuxRunner(control_mode=control)
        try:
            runner.run(server, [capture], what="capture")  # attach, warm up
            before = rss_kb(pid)
            started = time.monotonic()
            for _ in range(reads):
                runner.run(server, [capture], what="capture")
            return before, rss_kb(pid), time.monotonic() - started
        finally:
            runner.close()
    finally:
        stop = ["tmux", "-S", socket, "kill-server"]
        subprocess.run(stop, env=env, capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=10000)
    reads = parser.parse_args().reads
    shown = subprocess.run(["tmux", "-V"], capture_output=True, text=True, check=True)
    version = shown.stdout.strip()
    on = measure(True, reads)
    off = measure(False, reads)
    print(
        f"{version}: {reads} reads, fresh server each; control on: {on[0]} -> {on[1]} KB "
        f"({on[2] / reads * 1000:.2f} ms/read); off: {off[0]} -> {off[1]} KB "
        f"({off[2] / reads * 1000:.2f} ms/read); final RSS on/off {on[1] / off[1]:.2f}"
    )


if __name__ == "__main__":
    main()
