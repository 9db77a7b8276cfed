"""The snapshot is atomic: state and rows come from one instant, even under a flood.

A pane runs ``seq`` flat out (history at its limit, trimmed in batches), and
snapshots are taken while it floods. For each one:

(a) the raw command list ``display ; capture ; display`` - the snapshot's own
    two commands plus a second state read after the capture - prints the same
    state line twice: tmux processed no pane output in between;
(b) the captured rows above the cursor are consecutive integers (no gap or
    duplicate inside one capture), the cursor row is a prefix of the next
    number, and the row count is exactly what ``resolve_row_range`` says.

A control shows the flood is real: two *separate* state reads disagree.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import pytest

from gridmux.backend import PaneState, RowBound, ServerRef, resolve_row_range
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.backend._formats import parse_state
from gridmux.backend._runner import TmuxRunner
from gridmux.backend._snapshot import capture_command, state_command

pytestmark = pytest.mark.tmux

SNAPSHOTS = 300
START: RowBound = -40


def _check_rows(state: PaneState, top: int, rows: Sequence[str]) -> None:
    """Complete rows are consecutive numbers; the cursor row is the next one, in part."""
    cursor = state.history_size + state.cursor_y - top
    complete = [int(row) for row in rows[:cursor]]
    assert len(complete) > 10, (state, rows)
    assert complete == list(range(complete[0], complete[0] + len(complete))), rows
    assert str(complete[-1] + 1).startswith(rows[cursor]), (rows[cursor], complete[-1])
    # Either mid-number, or between the \r and \n of ONLCR's "\r\n" (column 0).
    assert state.cursor_x in (len(rows[cursor]), 0), (state, rows[cursor])
    assert all(row == "" for row in rows[cursor + 1 :])


@pytest.fixture
def flooding_pane(
    backend: TmuxCommandBackend, tmux_server: ServerRef, wait_until: Callable[..., None]
) -> str:
    session = backend.new_session(tmux_server, width=40, height=12, command="exec seq 1 2000000000")
    assert session.active_pane_id is not None
    pane_id = session.active_pane_id
    wait_until(
        lambda: backend.pane_state(tmux_server, pane_id).history_size >= 1000,
        what="the flood to fill the history",
    )
    return pane_id


def test_snapshots_are_atomic_under_a_flood(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux_bin: str,
    flooding_pane: str,
    record_property: Callable[[str, object], None],
) -> None:
    runner = TmuxRunner(tmux_bin)
    state_cmd = state_command(flooding_pane)
    commands = [state_cmd, capture_command(flooding_pane, START, None, False), state_cmd]
    moved = trims = disagreements = 0
    previous: PaneState | None = None
    started = time.monotonic()
    for _ in range(SNAPSHOTS):
        lines = runner.run(tmux_server, commands, what="read twice around a capture").split(b"\n")
        assert lines[-1] == b""
        before, rows, after = lines[0], lines[1:-2], lines[-2]
        disagreements += before != after  # (a): must stay 0, asserted below
        state = parse_state(before)
        assert state is not None
        top, bottom = resolve_row_range(state.history_size, state.height, START, None)
        assert len(rows) == bottom - top + 1
        _check_rows(state, top, [row.decode() for row in rows])  # (b)
        if previous is not None:
            moved += previous != state
            trims += state.history_size < previous.history_size
        previous = state

    # The same through the public method.
    for _ in range(SNAPSHOTS):
        snap = backend.snapshot(tmux_server, flooding_pane, start=START)
        top, bottom = resolve_row_range(snap.state.history_size, snap.state.height, START, None)
        assert (snap.top, len(snap.rows)) == (top, bottom - top + 1)
        _check_rows(snap.state, snap.top, snap.rows)
    elapsed = time.monotonic() - started

    # Control: two separate invocations can see different instants. tmux may
    # run a client's next command before it reads the pane again (3.7c over
    # control mode did so for 50 pairs in a row), so pairs are read until one
    # differs, within a deadline, rather than a fixed number of them.
    pairs = differ = 0
    deadline = time.monotonic() + 10
    while not differ and time.monotonic() < deadline:
        pairs += 1
        differ += backend.pane_state(tmux_server, flooding_pane) != backend.pane_state(
            tmux_server, flooding_pane
        )
    for name, value in [
        ("chained_reads", SNAPSHOTS),
        ("chained_disagreements", disagreements),
        ("public_snapshots", SNAPSHOTS),
        ("states_moved_between_snapshots", moved),
        ("history_trims_seen", trims),
        ("separate_pairs_read_until_one_differed", pairs if differ else f"none of {pairs}"),
        ("seconds", round(elapsed, 2)),
    ]:
        record_property(name, value)
        print(f"{name}: {value}")
    assert disagreements == 0, f"{disagreements}/{SNAPSHOTS} chained reads saw the pane move"
    assert moved > SNAPSHOTS // 2, "the pane was not flooding: the test proved nothing"
    assert differ, f"no two separate reads differed in {pairs} pairs: the flood proved nothing"
