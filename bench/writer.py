"""The numbered-line writer that runs inside a benchmark pane (standard library only).

Run as the pane's program (``python writer.py --commands FIFO --acks FIFO``): it
prints ``L0000001``, ``L0000002``, ... on its terminal, driven by one command
per line on the commands FIFO, and answers every command on the acks FIFO
with ``ok N`` once its output has been written to the terminal (N = the last
number printed so far). Commands:

* ``burst N``: print the next N lines in one go;
* ``stream N RATE SEED``: print the next N lines at about RATE lines a
  second, in writes of random sizes that cut lines anywhere (so a reader
  often finds a half-printed line on the cursor row);
* ``clear``: clear the screen and home the cursor (``ESC [H ESC [2J``);
* ``quit``: exit.
"""

from __future__ import annotations

import argparse
import os
import random
import time

DIGITS = 7


def numbered(first: int, count: int) -> bytes:
    """Lines ``first`` .. ``first + count - 1``, each ``L`` + 7 digits + newline."""
    return "".join(f"L{n:0{DIGITS}d}\n" for n in range(first, first + count)).encode()


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def stream(fd: int, first: int, count: int, rate: float, seed: int) -> None:
    """Print ``count`` lines at about ``rate`` lines/s in randomly cut writes."""
    rng = random.Random(seed)
    data = numbered(first, count)
    line_bytes = DIGITS + 2
    start = time.monotonic()
    sent = 0
    while sent < len(data):
        size = rng.randint(1, 24 * line_bytes)
        write_all(fd, data[sent : sent + size])
        sent += size
        due = start + (sent / line_bytes) / rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commands", required=True)
    parser.add_argument("--acks", required=True)
    args = parser.parse_args()
    out = 1  # the pane's terminal
    commands = open(args.commands, encoding="ascii")  # noqa: SIM115 (lives as long as we do)
    acks = os.open(args.acks, os.O_WRONLY)
    last = 0
    os.write(acks, b"ok 0\n")
    for line in commands:
        word, *rest = line.split()
        if word == "burst":
            count = int(rest[0])
            write_all(out, numbered(last + 1, count))
            last += count
        elif word == "stream":
            count = int(rest[0])
            stream(out, last + 1, count, float(rest[1]), int(rest[2]))
            last += count
        elif word == "clear":
            write_all(out, b"\x1b[H\x1b[2J")
        elif word == "quit":
            break
        os.write(acks, f"ok {last}\n".encode())


if __name__ == "__main__":
    main()
