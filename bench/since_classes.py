"""capture_since on the workloads of issue 13, counted: silent losses and needless misses.

    python -m bench.since_classes [--tmux-bin PATH] [--control on,off] [--seed N]

Four classes, each on a fresh pane of one private tmux server (its own
socket under a temporary directory, killed at the end), read the way the
``capture_since`` tool reads (``gridmux.capture.follow``: bounded reads with
the process's ledgers, else the full read):

1. **fresh**: a new session, a first read at once, then follow-ups while
   numbered lines arrive (1-3 per follow-up, read without waiting for them);
2. **status**: limit 100, height 24; bursts of 99 numbered lines, then
   ``status: ok`` without a newline, so the cursor rests on a recurring row;
3. **events**: random bursts; some rounds first clear the history, resize the
   height or change ``history-limit``; the *quiet* rounds (no event) are
   counted apart from the *event* rounds;
4. **stream**: a thread prints numbered lines continuously while the pane is
   read back to back;
7. **shallow anchors at the limit**: limits 300 and 1,500, height 24; before
   each read a burst sized so that trimming leaves 0-16 rows (at random)
   above the last row read, the row itself still held (``burst_to``).

Every output line is ``Z`` and a 7-digit number, unique, so each reading is
checked (``Checker``): an exact reading must continue the numbering with no
gap or repeat (else a *silent loss*); a ``lines_missed`` reading is
*needless* when tmux still held the first line not yet delivered (checked
right after the read: rows never come back, so held then means held at the
read), else the rows were really *gone*. A miss of a *shallow* cursor (no
sentinel row) must say how many leading lines may repeat (``may_repeat``)
and return every row tmux holds: a held row it left out is counted. Class 5
(cost against history size) is ``bench.history_curve``; class 6 (cursor
length) is the longest cursor seen here.
``tests/integration/test_capture_classes_tmux.py`` runs the same classes in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from gridmux.app import load_backend
from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.backend._protocol import TmuxBackend
from gridmux.capture import (
    FIRST_PLAN,
    Cursor,
    Ledgers,
    Reading,
    ReadPlan,
    RowMemory,
    first,
    follow,
)
from gridmux.settings import Settings
from gridmux.tools._reader import read_plan

NUMBER = re.compile(r"^Z(\d{7})$")
#: Column of the cursor after the status row.
STATUS = "status: ok"


def line(n: int) -> str:
    return f"Z{n:07d}"


@dataclass
class Tally:
    reads: int = 0
    exact: int = 0
    silent: int = 0
    needless: int = 0
    #: needless misses of a cursor with fewer than WINDOW + 1 rows above it
    #: (no sentinel row: a fresh pane), which content cannot place once tmux
    #: may have trimmed or, with fewer than MIN_EVIDENCE, at all
    #: (docs/capture-since.md, "When a miss can still happen")
    shallow: int = 0
    #: shallow misses that named leading lines that may repeat (``may_repeat``)
    repeat: int = 0
    #: shallow misses that left out a row tmux held (must be 0)
    left_out: int = 0
    gone: int = 0
    longest_cursor: int = 0
    #: what went wrong, for the report (first few)
    notes: list[str] = field(default_factory=list)


class Writer:
    """Numbered lines into a pane's tty (through its ONLCR, like program output)."""

    def __init__(self, tty: str) -> None:
        self.fd = os.open(tty, os.O_WRONLY | os.O_NOCTTY)
        self.next = 0
        self.lock = threading.Lock()

    def raw(self, text: str) -> None:
        view = memoryview(text.encode())
        while view:
            view = view[os.write(self.fd, view) :]

    def lines(self, count: int, *, end: str = "\n", before: str = "") -> str:
        """Write ``count`` new numbered lines; the last one's text."""
        with self.lock:
            rows = [line(self.next + i) for i in range(count)]
            self.next += count
            self.raw(before + end.join(rows) + end)
        return rows[-1]

    def close(self) -> None:
        os.close(self.fd)


class Checker:
    """Follows one pane as ``capture_since`` does and checks every reading."""

    def __init__(self, backend: TmuxBackend, server: ServerRef, pane_id: str) -> None:
        self.backend, self.server, self.pane_id = backend, server, pane_id
        self.ledgers = Ledgers()
        self.memory = RowMemory()
        self.cursor: Cursor | None = None
        #: the highest numbered line delivered in order, and the last line delivered
        self.last = -1
        self.tail = ""

    def snapshot(self, plan: ReadPlan) -> PaneSnapshot:
        return read_plan(self.backend, self.server, self.pane_id, plan)

    def held(self, text: str) -> bool:
        return text in self.backend.snapshot(self.server, self.pane_id, start="-").rows

    def read(self, tally: Tally) -> Reading:
        if self.cursor is None:
            reading = first(self.snapshot(FIRST_PLAN), memory=self.memory, keep_ledger=True)
            self.resync(reading)
        else:
            text = self.cursor.encode()
            reading = follow(self.cursor, self.ledgers.get(text), self.snapshot, memory=self.memory)
            self.check(reading, tally, shallow=not self.cursor.sentinels)
        self.cursor = reading.cursor
        encoded = reading.cursor.encode()
        self.ledgers.put(encoded, reading.ledger)
        tally.longest_cursor = max(tally.longest_cursor, len(encoded))
        return reading

    def resync(self, reading: Reading) -> None:
        numbers = [int(m.group(1)) for text in reading.lines if (m := NUMBER.match(text))]
        self.last = max([self.last, *numbers])
        self.tail = reading.lines[-1] if reading.lines else self.tail

    def check(self, reading: Reading, tally: Tally, *, shallow: bool) -> None:
        tally.reads += 1
        if reading.lines_missed:
            first_new = line(self.last + 1)
            held = self.held(first_new)
            if held:
                tally.needless += 1
                tally.shallow += shallow
                if not shallow and len(tally.notes) < 5:
                    tally.notes.append(f"needless miss: {first_new} still held")
            else:
                tally.gone += 1
            if shallow:
                # every row tmux holds is returned, the repeats counted: a
                # held row missing before a later one returned was left out
                # (a row after every one returned may have come after the read)
                tally.repeat += reading.may_repeat > 0
                later = [int(m.group(1)) for t in reading.lines if (m := NUMBER.match(t))]
                if held and first_new not in reading.lines and max(later, default=-1) > self.last:
                    tally.left_out += 1
                    tally.notes.append(f"a shallow miss left out {first_new}")
            # a line delivered before may come again only among the first may_repeat
            for at, text in enumerate(reading.lines[reading.may_repeat :]):
                if (m := NUMBER.match(text)) and int(m.group(1)) <= self.last:
                    tally.silent += 1
                    tally.notes.append(f"{text} repeated at {at + reading.may_repeat}, unflagged")
                    break
            self.resync(reading)
            return
        tally.exact += 1
        if reading.first_line_rewritten and (m := NUMBER.match(self.tail)):
            self.last = min(self.last, int(m.group(1)) - 1)  # that line is delivered again
        for text in reading.lines:
            m = NUMBER.match(text)
            if m is None:
                continue
            n = int(m.group(1))
            if n != self.last + 1:
                tally.silent += 1
                if len(tally.notes) < 5:
                    tally.notes.append(f"silent loss: {line(self.last)} then {text}")
            self.last = n
        self.tail = reading.lines[-1] if reading.lines else self.tail


@dataclass
class Rig:
    """A tmux server to run the classes on."""

    backend: TmuxBackend
    server: ServerRef
    #: runs one tmux command on the server, its stdout
    tmux: Callable[..., str]

    def pane(self, *, limit: int, height: int) -> tuple[str, Writer]:
        self.tmux("set-option", "-g", "history-limit", str(limit))
        session = self.backend.new_session(
            self.server, width=80, height=height, command="exec sleep 100000"
        )
        pane = session.active_pane_id
        assert pane is not None
        tty = self.tmux("display-message", "-p", "-t", pane, "#{pane_tty}").strip()
        return pane, Writer(tty)

    def close(self, pane: str, writer: Writer) -> None:
        writer.close()
        self.tmux("kill-session", "-t", pane)

    def wait(self, pane: str, last: str, cursor_x: int = 0, *, timeout: float = 10.0) -> None:
        """Until ``last`` is the row above the cursor, the cursor at ``cursor_x``
        (the writer's final line is parsed, nothing after it)."""
        deadline = time.monotonic() + timeout
        while True:
            snap = self.backend.snapshot(self.server, pane)
            y = snap.state.cursor_y
            if snap.state.cursor_x == cursor_x and snap.rows[y - 1 : y] == (last,):
                return
            if time.monotonic() >= deadline:
                raise RuntimeError(f"pane {pane} never showed {last!r} above its cursor")
            time.sleep(0.005)


def fresh(rig: Rig, rng: random.Random, sessions: int = 25, follow_ups: int = 5) -> Tally:
    """Class 1: a new pane read at once, then while lines arrive."""
    tally = Tally()
    for _ in range(sessions):
        pane, writer = rig.pane(limit=2000, height=24)
        checker = Checker(rig.backend, rig.server, pane)
        checker.read(tally)
        for _ in range(follow_ups):
            writer.lines(rng.randint(1, 3))
            checker.read(tally)
        rig.close(pane, writer)
    return tally


def status(rig: Rig, rng: random.Random, rounds: int = 100) -> Tally:
    """Class 2: bursts of 99 lines then ``status: ok``, limit 100, height 24."""
    del rng
    tally = Tally()
    pane, writer = rig.pane(limit=100, height=24)
    checker = Checker(rig.backend, rig.server, pane)
    last = writer.lines(1)
    writer.raw(STATUS)
    rig.wait(pane, last, len(STATUS))
    checker.read(tally)
    for _ in range(rounds):
        last = writer.lines(99, before="\n")
        writer.raw(STATUS)
        rig.wait(pane, last, len(STATUS))
        checker.read(tally)
    rig.close(pane, writer)
    return tally


def events(rig: Rig, rng: random.Random, rounds: int = 170) -> tuple[Tally, Tally]:
    """Class 3: random bursts, some rounds after an event; (quiet, event) tallies."""
    quiet, evented = Tally(), Tally()
    pane, writer = rig.pane(limit=500, height=24)
    checker = Checker(rig.backend, rig.server, pane)
    rig.wait(pane, writer.lines(30))
    checker.read(quiet)
    for _ in range(rounds):
        event = rng.choice(("clear", "height", "limit", None, None, None, None, None, None))
        if event == "clear":
            rig.tmux("clear-history", "-t", pane)
        elif event == "height":
            rig.tmux("resize-window", "-t", pane, "-y", str(rng.randint(8, 40)))
        elif event == "limit":
            rig.tmux("set-option", "-g", "history-limit", str(rng.randint(200, 800)))
        rig.wait(pane, writer.lines(rng.choice((1, 3, 20, rng.randint(1, 400)))))
        checker.read(quiet if event is None else evented)
    rig.close(pane, writer)
    return quiet, evented


def stream(rig: Rig, rng: random.Random, reads: int = 300) -> Tally:
    """Class 4: numbered lines printed while the pane is read: a thread writes
    1-8 lines as each read starts, so they reach tmux during the read."""
    tally = Tally()
    pane, writer = rig.pane(limit=2000, height=24)
    checker = Checker(rig.backend, rig.server, pane)
    checker.read(tally)
    go = threading.Semaphore(0)
    done = threading.Event()
    seed = rng.random()

    def print_lines() -> None:
        local = random.Random(seed)
        while go.acquire(timeout=60) and not done.is_set():
            writer.lines(local.randint(1, 8))

    thread = threading.Thread(target=print_lines)
    thread.start()
    try:
        for _ in range(reads):
            go.release()
            checker.read(tally)
    finally:
        done.set()
        go.release()
        thread.join()
    rig.wait(pane, line(writer.next - 1))
    checker.read(tally)  # everything printed is delivered
    if checker.last != writer.next - 1:
        tally.notes.append(f"the last line delivered is {line(checker.last)}")
        tally.silent += 1
    rig.close(pane, writer)
    return tally


def burst_to(history: int, limit: int, trim: int) -> int:
    """The fewest lines that make tmux trim exactly ``trim`` rows (a whole
    number of trim batches) from a full screen over ``history`` rows: a
    tenth of the limit each time a row would enter a full history
    (``grid_collect_history``)."""
    batch, gone, lines = max(1, limit // 10), 0, 0
    while gone < trim:
        lines += 1
        if history >= limit:
            history -= batch
            gone += batch
        history += 1
    if gone != trim:
        raise ValueError(f"{trim} rows is no whole number of trims at limit {limit}")
    return lines


def shallow_anchors(rig: Rig, rng: random.Random, rounds: int = 60) -> Tally:
    """Class 7: bursts that trim the history to within 0-16 rows above the
    last row read. A few lines first (read, not counted) put the cursor where
    a whole number of trims leaves the chosen count above it."""
    tally, setup = Tally(), Tally()
    for limit in (300, 1500):
        pane, writer = rig.pane(limit=limit, height=24)
        checker = Checker(rig.backend, rig.server, pane)
        rig.wait(pane, writer.lines(limit + 30))
        checker.read(setup)
        batch = max(1, limit // 10)
        for _ in range(rounds // 2):
            above = rng.randint(0, 16)
            assert checker.cursor is not None
            # lines end with a newline: the last row read is above the anchor
            pad = (above + 1 - checker.cursor.anchor) % batch
            if pad:
                rig.wait(pane, writer.lines(pad))
                checker.read(setup)
            cursor = checker.cursor
            lines = burst_to(cursor.history_size, limit, cursor.anchor - 1 - above)
            rig.wait(pane, writer.lines(lines))
            rows = rig.backend.snapshot(rig.server, pane, start="-").rows
            if rows.index(line(checker.last)) != above:
                setup.silent += 1  # the class measured something else: fail it
                setup.notes.append(f"{line(checker.last)} not {above} rows from the top")
            checker.read(tally)
        rig.close(pane, writer)
    tally.silent += setup.silent
    tally.needless += setup.needless
    tally.notes += setup.notes
    tally.longest_cursor = max(tally.longest_cursor, setup.longest_cursor)
    return tally


def run_classes(rig: Rig, seed: int = 13) -> dict[str, Tally]:
    rng = random.Random(seed)
    quiet, evented = events(rig, rng)
    return {
        "1 fresh pane": fresh(rig, rng),
        "2 status row at the limit": status(rig, rng),
        "3 quiet rounds after events": quiet,
        "3 event rounds": evented,
        "4 streaming": stream(rig, rng),
        "7 bursts to 0-16 rows above the last read": shallow_anchors(rig, rng),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tmux-bin")
    parser.add_argument("--control", default="on,off")
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args()
    binary = args.tmux_bin or shutil.which("tmux")
    if binary is None:
        print("no tmux on PATH (pass --tmux-bin)", file=sys.stderr)
        raise SystemExit(2)
    version = subprocess.run([binary, "-V"], capture_output=True, text=True, check=False)
    print(f"{version.stdout.strip()}\n")
    print(
        "| class | control | reads | exact | silent losses | needless misses "
        "| of which shallow cursor | with may_repeat | held rows left out | rows gone |"
    )
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    bad = 0
    longest = 0
    for mode in args.control.split(","):
        root = Path(tempfile.mkdtemp(prefix="gmclasses-"))
        socket = str(root / "sock")

        def tmux(*argv: str, socket: str = socket) -> str:
            done = subprocess.run(
                [binary, "-S", socket, "-f", "/dev/null", *argv],
                check=True,
                capture_output=True,
                text=True,
            )
            return done.stdout

        backend = load_backend(Settings(backend="tmux", tmux_bin=binary, control_mode=mode == "on"))
        try:
            tmux("new-session", "-d", "-s", "keep", "exec sleep 100000")
            rig = Rig(backend, ServerRef(socket_path=socket), tmux)
            for name, t in run_classes(rig, args.seed).items():
                print(
                    f"| {name} | {mode} | {t.reads} | {t.exact} | {t.silent} | "
                    f"{t.needless} | {t.shallow} | {t.repeat} | {t.left_out} | {t.gone} |"
                )
                for note in t.notes:
                    print(f"  {name}, control {mode}: {note}", file=sys.stderr)
                bad += t.silent + t.needless - t.shallow + t.left_out
                longest = max(longest, t.longest_cursor)
        finally:
            close = getattr(backend, "close", None)
            if callable(close):
                close()
            subprocess.run([binary, "-S", socket, "kill-server"], check=False, capture_output=True)
            shutil.rmtree(root, ignore_errors=True)
    print(f"\nlongest cursor: {longest} characters (budget 100)")
    raise SystemExit(1 if bad or longest > 100 else 0)


if __name__ == "__main__":
    main()
