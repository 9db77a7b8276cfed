"""capture_since on real tmux: the scenarios the contract names, with numbered lines.

Every pane prints lines ``n <i>``; a ``Follower`` replays each reading onto a
transcript and checks it: exact readings must continue the numbering with no
gap or repeat, and every ``lines_missed`` must be a real loss -- the first
line the reader had not seen is no longer anywhere in what tmux retains.
The tallies are printed (``-s``) for the record.
"""

from __future__ import annotations

import itertools
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.capture import FIRST_PLAN, FOLLOW_PLAN, WINDOW, Cursor, Reading, advance, first

from .conftest import RawTmux, WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux

NUMBERED = re.compile(r"^n (\d+)$")
TALLY: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def _report_tally() -> Iterator[None]:
    """After the module, print what its scenarios measured (seen with -s)."""
    yield
    print(f"\ncapture_since on real tmux: {dict(sorted(TALLY.items()))}")


@dataclass
class Follower:
    """Replays capture_since readings and checks them against the numbering."""

    backend: TmuxCommandBackend
    server: ServerRef
    pane_id: str
    cursor: Cursor | None = None
    #: a miss must mean the next unseen line is gone (off when a test clears the anchor itself)
    strict: bool = True
    transcript: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)

    def read(self) -> Reading:
        if self.cursor is None:
            snap = self.backend.snapshot(
                self.server,
                self.pane_id,
                start=FIRST_PLAN.start,
                untrimmed_start=FIRST_PLAN.untrimmed_start,
            )
            reading = first(snap)
            self.transcript = list(reading.lines)
        else:
            snap = self.backend.snapshot(
                self.server,
                self.pane_id,
                start=FOLLOW_PLAN.start,
                untrimmed_start=FOLLOW_PLAN.untrimmed_start,
            )
            reading = advance(self.cursor, snap)
            self.apply(reading, snap)
        self.cursor = reading.cursor
        self.check_transcript()
        return reading

    def apply(self, reading: Reading, snap: PaneSnapshot) -> None:
        if reading.lines_missed:
            expected = self.next_number()
            # Needless only if the reader could have proved continuity: the
            # next row is there and so is the last delivered one, with the
            # window and a sentinel row above it. When tmux's trim took those
            # but left the next, nothing ties them together any more.
            rows = list(snap.rows)
            retained = f"n {expected}" in rows and (f"n {expected - 1}" in rows[WINDOW + 1 :])
            if not self.strict:
                self.counts["missed, last-read row cleared"] += 1
            else:
                self.counts["missed, rows really gone" if not retained else "missed, needless"] += 1
                assert not retained, f"lines_missed although 'n {expected}' is still retained"
            self.transcript = list(reading.lines)
            return
        self.counts["exact"] += 1
        if reading.first_line_rewritten:
            assert self.transcript, "a rewrite with nothing before it"
            self.transcript[-1] = reading.lines[0]
            self.transcript.extend(reading.lines[1:])
        else:
            self.transcript.extend(reading.lines)

    def numbers(self) -> list[int]:
        return [int(m.group(1)) for line in self.transcript if (m := NUMBERED.match(line))]

    def next_number(self) -> int:
        complete = [n for line, n in zip(self.transcript, self.numbers(), strict=False) if line]
        return (max(complete) if complete else 0) + 1

    def check_transcript(self) -> None:
        """Complete lines are consecutive; only the last may be a partial line."""
        body = self.transcript[:-1] if self.transcript else []
        numbers = []
        for line in body:
            match = NUMBERED.match(line)
            assert match, f"unexpected line {line!r} in {self.transcript[-5:]!r}"
            numbers.append(int(match.group(1)))
        for a, b in itertools.pairwise(numbers):
            assert b == a + 1, f"silent loss or repeat: 'n {a}' followed by 'n {b}'"
        if numbers and self.transcript and self.transcript[-1]:
            tail = self.transcript[-1]
            assert f"n {numbers[-1] + 1}".startswith(tail) or NUMBERED.match(tail), tail


def numbered(start: int, count: int) -> bytes:
    return "".join(f"n {i}\n" for i in range(start, start + count)).encode()


def anchor(backend: TmuxCommandBackend, server: ServerRef, pane_id: str) -> int:
    return backend.pane_state(server, pane_id).anchor


def make_pane(
    backend: TmuxCommandBackend,
    server: ServerRef,
    tmux: RawTmux,
    *,
    limit: int = 2000,
    height: int = 10,
    command: str = "exec sleep 100000",
) -> str:
    tmux("set-option", "-g", "history-limit", str(limit))
    session = backend.new_session(server, width=60, height=height, command=command)
    assert session.active_pane_id is not None
    return session.active_pane_id


def write_and_wait(
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
    follower: Follower,
    start: int,
    count: int,
) -> None:
    """Write ``count`` numbered lines and wait until tmux has parsed them all."""
    write_to_pane(follower.pane_id, numbered(start, count))
    last = f"n {start + count - 1}"

    def parsed() -> bool:
        snap = follower.backend.snapshot(follower.server, follower.pane_id)
        state = snap.state
        return state.cursor_x == 0 and snap.rows[state.cursor_y - 1 : state.cursor_y] == (last,)

    wait_until(parsed, what=f"tmux to show {last!r}")


def test_bursts_across_scrollback_are_exact(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane = make_pane(backend, tmux_server, tmux)
    f = Follower(backend, tmux_server, pane)
    write_and_wait(write_to_pane, wait_until, f, 1, 20)
    f.read()
    start = 21
    for size in (1, 5, 9, 10, 11, 250):
        write_and_wait(write_to_pane, wait_until, f, start, size)
        reading = f.read()
        assert reading.lines == tuple(f"n {i}" for i in range(start, start + size))
        start += size
    assert f.counts == Counter({"exact": 6})
    TALLY.update(f.counts)


def test_exact_at_the_history_limit_and_honest_when_rows_are_gone(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane = make_pane(backend, tmux_server, tmux, limit=100)
    f = Follower(backend, tmux_server, pane)
    write_and_wait(write_to_pane, wait_until, f, 1, 150)
    assert backend.pane_state(tmux_server, pane).history_size <= 100
    f.read()
    start = 151
    for size in (9, 10, 11, 30, 60, 85):  # each trims in batches of 10, never past the anchor
        write_and_wait(write_to_pane, wait_until, f, start, size)
        reading = f.read()
        assert not reading.lines_missed, f"needless loss after {size} lines at the limit"
        assert reading.lines[0] == f"n {start}"
        start += size
    write_and_wait(write_to_pane, wait_until, f, start, 300)  # far past the limit
    reading = f.read()
    assert reading.lines_missed
    assert f.counts == Counter({"exact": 6, "missed, rows really gone": 1})
    TALLY.update(f.counts)


def test_resizes_keep_deltas_exact_unless_reflow_rewraps_the_rows_read_last(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane = make_pane(backend, tmux_server, tmux)
    window = backend.list_panes(tmux_server)[0].window_id
    f = Follower(backend, tmux_server, pane)
    write_and_wait(write_to_pane, wait_until, f, 1, 30)
    f.read()
    start = 31
    for height, width in ((4, None), (20, None), (None, 30), (7, 100), (None, 45), (12, 60)):
        backend.resize_window(tmux_server, window, width=width, height=height)
        write_and_wait(write_to_pane, wait_until, f, start, 5)
        reading = f.read()
        assert not reading.lines_missed, f"needless loss after resizing to {width}x{height}"
        assert reading.lines == tuple(f"n {i}" for i in range(start, start + 5))
        start += 5
    # A row wider than the new width (trailing blanks count) is split by
    # reflow: reported, never guessed.
    write_to_pane(pane, f"n {start}".ljust(50).encode() + b"\n")
    write_and_wait(write_to_pane, wait_until, f, start + 1, 3)
    f.read()
    assert f.cursor is not None
    backend.resize_window(tmux_server, window, width=30)
    snap = backend.snapshot(
        tmux_server, pane, start=FOLLOW_PLAN.start, untrimmed_start=FOLLOW_PLAN.untrimmed_start
    )
    assert f"n {start}" in snap.rows and "" in snap.rows[snap.rows.index(f"n {start}") + 1 :][:1]
    assert advance(f.cursor, snap).lines_missed
    TALLY.update(f.counts)


def test_clears_are_detected(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane = make_pane(backend, tmux_server, tmux)
    f = Follower(backend, tmux_server, pane)
    write_and_wait(write_to_pane, wait_until, f, 1, 40)
    f.read()
    write_and_wait(write_to_pane, wait_until, f, 41, 30)
    tmux("clear-history", "-t", pane)
    reading = f.read()  # the anchor was in history: gone, and said so
    assert reading.lines_missed
    write_and_wait(write_to_pane, wait_until, f, 71, 3)
    f.read()
    # clear(1) with TERM=tmux-256color: home, erase (into history), erase history.
    # The row the reader last saw is wiped; what follows it is not, but nothing
    # above the new rows can prove where they start, so the read is a miss.
    f.strict = False
    write_to_pane(pane, b"\x1b[H\x1b[J\x1b[3J")
    wait_until(lambda: backend.pane_state(tmux_server, pane).anchor == 0, what="the clear")
    write_and_wait(write_to_pane, wait_until, f, 74, 12)
    reading = f.read()
    assert reading.lines_missed
    # The cursor had seen the whole grid (history was empty after the first
    # clear): every row retained now comes back, from the top.
    assert reading.lines == tuple(f"n {i}" for i in range(74, 86))
    TALLY.update(f.counts)


def test_clear_at_a_bare_prompt_is_a_miss(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    """A fresh pane at its prompt; a command and its output, then clear(1) as
    bash runs it (TERM=tmux-256color: home, erase, erase history) and the
    prompt again: the grid is exactly the one the cursor saw, and the rows in
    between are gone. Only a miss is honest."""
    pane = make_pane(backend, tmux_server, tmux)
    write_to_pane(pane, b"$ ")
    wait_until(lambda: backend.pane_state(tmux_server, pane).cursor_x == 2, what="the prompt")
    f = Follower(backend, tmux_server, pane)
    assert f.read().lines == ("$",)
    write_to_pane(pane, b"echo secret\r\nsecret\r\n$ clear\r\n\x1b[H\x1b[J\x1b[3J$ ")

    def cleared() -> bool:
        snap = backend.snapshot(tmux_server, pane, start="-")
        return snap.state.anchor == 0 and snap.rows[0] == "$" and "secret" not in snap.rows

    wait_until(cleared, what="the clear and the prompt")
    reading = f.read()
    assert reading.lines_missed
    assert reading.lines == ("$",)


@pytest.mark.parametrize(
    ("pace", "lines", "all_exact"),
    [
        # At most ~1,000 lines/s with 2,000 rows of history: a read would have to take
        # two seconds for a row to vanish unread, so every read must be exact.
        ("case $i in *0) sleep 0.01;; esac;", 5000, True),
        # A flood far faster than reads: rows really vanish; each miss must be real.
        ("", 50000, False),
    ],
    ids=["paced", "flood"],
)
def test_a_pane_printing_continuously_while_it_is_read(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    wait_until: WaitUntil,
    tmp_path: Path,
    pace: str,
    lines: int,
    all_exact: bool,
) -> None:
    # The printer runs until the test has read it 8 times and it has printed ``lines``
    # (history wraps over and over), however fast reads are: a fixed count of lines
    # could end before the second read where reads are slow.
    stop = tmp_path / "stop"
    printer = (
        f"i=0; while [ ! -e '{stop}' ]; do j=0; while [ $j -lt 100 ]; do j=$((j+1)); "
        f'i=$((i+1)); echo "n $i"; {pace} done; done; exec sleep 100000'
    )
    pane = make_pane(backend, tmux_server, tmux, limit=2000, height=20, command=printer)
    f = Follower(backend, tmux_server, pane)
    wait_until(lambda: anchor(backend, tmux_server, pane) >= 20, what="the printer to start")
    f.read()
    reads = 1
    deadline = time.monotonic() + 60
    while reads < 8 or f.numbers()[-1:] < [lines]:
        assert time.monotonic() < deadline, f"{reads} reads, last {f.transcript[-1:]!r}"
        f.read()
        reads += 1
    stop.touch()
    command = ("display-message", "-p", "-t", pane, "#{pane_current_command}")
    wait_until(lambda: tmux(*command).strip() == "sleep", timeout=30, what="the printer to stop")
    last = [row for row in tmux("capture-pane", "-p", "-t", pane).splitlines() if row][-1]
    f.read()
    reads += 1
    assert f.transcript[-1:] == [last], f"the last read ended at {f.transcript[-1:]!r}"
    assert f.counts["missed, needless"] == 0
    if all_exact:
        assert f.counts["exact"] == reads - 1, dict(f.counts)  # every read after the first
    print(f"\ncontinuous (to {last!r}): {reads} reads: {dict(f.counts)}")
    TALLY.update(f.counts)
