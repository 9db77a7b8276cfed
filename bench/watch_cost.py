"""What the output watch costs a fresh pane's reads, side by side with it off.

    python -m bench.watch_cost [--tmux-bin PATH] [--control on,off] [--rounds N]

Per control mode, on one private tmux server with two other sessions: a new
session's first ``capture_since`` read (with the watch on, the first one of
the run attaches a watcher to every session), then follow-ups of its young
cursor after one new line each; the same with the watch off (where those
follow-ups miss). Medians in milliseconds, and how many follow-ups were exact.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.since_classes import Checker, Tally, Writer, announced_tmux, private_server


def measure(binary: str, control: bool, watch: bool, rounds: int) -> dict[str, float]:
    first: list[float] = []
    follow: list[float] = []
    tally = Tally()
    with private_server(binary, control=control, watch=watch) as (backend, server, tmux):
        for name in ("keep", "other"):
            tmux("new-session", "-d", "-s", name, "exec sleep 100000")
        for _ in range(rounds):
            made = backend.new_session(server, width=80, height=24, command="exec sleep 100000")
            assert made.active_pane_id is not None
            pane = made.active_pane_id
            writer = Writer(tmux("display-message", "-p", "-t", pane, "#{pane_tty}").strip())
            checker = Checker(backend, server, pane, watch=watch)
            started = time.perf_counter()
            checker.read(tally)
            first.append(time.perf_counter() - started)
            for _ in range(4):
                writer.lines(1)
                started = time.perf_counter()
                checker.read(tally)
                follow.append(time.perf_counter() - started)
            writer.close()
            tmux("kill-session", "-t", pane)
    return {
        "first": statistics.median(first) * 1000,
        "follow": statistics.median(follow) * 1000,
        "exact": tally.exact,
        "reads": tally.reads,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tmux-bin")
    parser.add_argument("--control", default="on,off")
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    binary = announced_tmux(args.tmux_bin)
    print("| control | watch | first read (ms) | young follow-up (ms) | exact follow-ups |")
    print("|---|---|---:|---:|---:|")
    for mode in args.control.split(","):
        for watch in (True, False):
            got = measure(binary, mode == "on", watch, args.rounds)
            print(
                f"| {mode} | {'on' if watch else 'off'} | {got['first']:.1f} | "
                f"{got['follow']:.1f} | {got['exact']:.0f} of {got['reads']:.0f} |"
            )


if __name__ == "__main__":
    main()
