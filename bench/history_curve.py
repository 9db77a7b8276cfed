"""capture_since's cost against the pane's history size, and its cursor length.

    python -m bench.history_curve [--tmux-bin PATH] [--rounds N] [--sizes 1000,10000,100000]

For each history size, with control mode on and off: a private tmux server
(its own socket under a temporary directory, killed at the end), one pane
holding that many numbered rows (``history-limit`` twice the size, so tmux
has not trimmed: with ``--at-limit`` at the size, so it trims as in a
long-lived pane at its limit, where the rows sampled deeper in the history
measure how far rows moved), gridmux in-process over an MCP
client; then ``--rounds`` times: 3 new lines, one ``capture_since`` follow-up,
timed around the call. Every follow-up must be exact (its lines are the 3
new ones); the script fails otherwise. Prints a Markdown table: the median
and p90 follow-up in ms, the ratio of each median to the 1,000-row median,
and the longest cursor seen.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client

from gridmux.app import create_server, load_backend
from gridmux.settings import Settings


def tmux(binary: str, socket: Path, *args: str) -> str:
    done = subprocess.run(
        [binary, "-S", str(socket), "-f", "/dev/null", *args],
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def wait_rows(binary: str, socket: Path, pane: str, last: str, deadline: float) -> None:
    """Until the pane's screen shows ``last`` (the writer's final line)."""
    while time.monotonic() < deadline:
        if last in tmux(binary, socket, "capture-pane", "-p", "-t", pane).split("\n"):
            return
        time.sleep(0.02)
    raise RuntimeError(f"pane {pane} never showed {last!r}")


async def measure(
    binary: str, size: int, control: bool, rounds: int, at_limit: bool = False
) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="gmcurve-"))
    socket = root / "sock"
    fifo = root / "in"
    os.mkfifo(fifo)
    try:
        tmux(binary, socket, "new-session", "-d", "-x", "80", "-y", "24", "sleep 100000")
        limit = size if at_limit else 2 * size
        tmux(binary, socket, "set-option", "-g", "history-limit", str(limit))
        # A pane reading numbered lines from a FIFO: the history fills at once.
        pane = tmux(
            binary, socket, "new-window", "-P", "-F", "#{pane_id}", f"exec cat {fifo}"
        ).strip()
        writer = await asyncio.to_thread(open, fifo, "w")
        writer.write("".join(f"H{i:07d}\n" for i in range(size + 24)))
        writer.flush()
        wait_rows(binary, socket, pane, f"H{size + 23:07d}", time.monotonic() + 60)
        os.environ["GRIDMUX_CONTROL_MODE"] = "on" if control else "off"
        settings = Settings(socket_path=str(socket), safety="destructive", tmux_bin=binary)
        server = create_server(load_backend(settings), settings)
        times: list[float] = []
        longest = 0
        async with Client(server) as client:
            first = await client.call_tool("capture_since", {"pane_id": pane})
            cursor = first.structured_content["cursor"]
            for n in range(rounds + 1):
                new = [f"N{n:05d}-{j}" for j in range(3)]
                writer.write("".join(f"{line}\n" for line in new))
                writer.flush()
                wait_rows(binary, socket, pane, new[-1], time.monotonic() + 10)
                started = time.perf_counter()
                got = await client.call_tool("capture_since", {"cursor": cursor})
                elapsed = time.perf_counter() - started
                data = got.structured_content
                assert data is not None
                if data["lines"] != new or data["lines_missed"]:
                    raise RuntimeError(f"follow-up {n} at {size} rows was not exact: {data}")
                cursor = data["cursor"]
                longest = max(longest, len(cursor))
                if n:  # the first follow-up makes the ledger: a full read
                    times.append(elapsed * 1000)
        writer.close()
        times.sort()
        return {
            "size": size,
            "control": control,
            "median": statistics.median(times),
            "p90": times[int(0.9 * (len(times) - 1))],
            "cursor": longest,
        }
    finally:
        subprocess.run([binary, "-S", str(socket), "kill-server"], check=False, capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


async def main_async(args: argparse.Namespace) -> int:
    binary = args.tmux_bin or shutil.which("tmux")
    if binary is None:
        print("no tmux on PATH (pass --tmux-bin)", file=sys.stderr)
        return 2
    sizes = [int(s) for s in args.sizes.split(",")]
    version = subprocess.run(
        [binary, "-V"], check=False, capture_output=True, text=True
    ).stdout.strip()
    where = "at its limit" if args.at_limit else "history-limit twice the rows"
    print(f"{version}, {args.rounds} follow-ups of 3 new lines each, 80x24 pane, {where}\n")
    print("| history rows | control mode | median ms | p90 ms | x median at 1,000 | cursor chars |")
    print("|---:|---|---:|---:|---:|---:|")
    base: dict[bool, float] = {}
    worst = 0.0
    for control in (True, False):
        for size in sizes:
            row = await measure(binary, size, control, args.rounds, args.at_limit)
            base.setdefault(control, row["median"])
            ratio = row["median"] / base[control]
            worst = max(worst, ratio)
            print(
                f"| {size:,} | {'on' if control else 'off'} | {row['median']:.2f} | "
                f"{row['p90']:.2f} | {ratio:.2f} | {row['cursor']} |"
            )
    print(f"\nworst ratio to the 1,000-row median: {worst:.2f} (budget 2.00)")
    return 0 if worst <= 2.0 else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tmux-bin")
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument(
        "--at-limit", action="store_true", help="history-limit at the size: tmux trims"
    )
    raise SystemExit(asyncio.run(main_async(parser.parse_args())))


if __name__ == "__main__":
    main()
