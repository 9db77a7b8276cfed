"""capture_since on the workloads of issue 13, on real tmux: at least 100
follow-ups per class, read as the tool reads (``bench.since_classes``: the
bounded read with the process's ledgers, else the full read), every reading
checked against the numbered lines.

Each class asserts no silent loss and no needless miss -- a ``lines_missed``
while tmux still held the first line not yet delivered -- except those of a
*shallow* cursor (no row above its window: fewer than 17 rows above it, a
fresh pane), which content cannot place when it is young or tmux may have
trimmed (docs/capture-since.md, "When a miss can still happen"): those are
counted and bounded by how many shallow cursors a class makes, and each must
return every row tmux holds and flag the rows that may repeat. Bursts that
trim to within 0-16 rows above the last row read are exact (the ledger).
``python -m bench.since_classes`` prints the same table for a release.
"""

from __future__ import annotations

import random

import pytest
from bench.since_classes import Rig, Tally, events, fresh, shallow_anchors, status, stream

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import RawTmux

pytestmark = pytest.mark.tmux


@pytest.fixture
def rig(backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux) -> Rig:
    """The test server, kept alive by a session of its own while panes come and go."""
    tmux("new-session", "-d", "-s", "keep", "exec sleep 100000")
    return Rig(backend, tmux_server, tmux)


def clean(tally: Tally, reads: int) -> None:
    assert tally.reads >= reads
    assert tally.silent == 0, tally.notes
    assert tally.needless == tally.shallow, tally.notes
    assert tally.left_out == 0, tally.notes
    assert tally.exact + tally.needless + tally.gone == tally.reads
    assert tally.longest_cursor <= 100


def test_a_fresh_pane_read_while_a_command_prints(rig: Rig) -> None:
    tally = fresh(rig, random.Random(1), sessions=20, follow_ups=5)
    clean(tally, 100)
    # Every cursor here is shallow (5 follow-ups of 1-3 lines: at most 16
    # rows); those with 6 rows above them or more are placed exactly. A miss
    # after the first follow-up (rows above the cursor) says they may repeat.
    assert tally.exact > 0
    assert tally.repeat >= tally.needless - 20


def test_a_cursor_on_a_recurring_status_row_at_the_limit(rig: Rig) -> None:
    tally = status(rig, random.Random(2), rounds=100)
    clean(tally, 100)
    # The first cursor (one line and the status row) is the only shallow one.
    assert tally.shallow <= 1
    assert tally.exact >= 99


def test_quiet_rounds_after_clears_resizes_and_limit_changes(rig: Rig) -> None:
    quiet, evented = events(rig, random.Random(3), rounds=160)
    clean(quiet, 100)
    clean(evented, 1)
    assert quiet.shallow == evented.shallow == 0


def test_streaming_numbered_lines(rig: Rig) -> None:
    tally = stream(rig, random.Random(4), reads=150)
    clean(tally, 150)


def test_bursts_that_trim_to_a_few_rows_above_the_last_read(rig: Rig) -> None:
    tally = shallow_anchors(rig, random.Random(5), rounds=100)
    clean(tally, 100)
    assert tally.exact == tally.reads
