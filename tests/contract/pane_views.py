"""Set-up and views of panes for the pane tool tests, on either backend."""

from __future__ import annotations

import time
from typing import Any

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.conftest import PROMPT


def session(
    backend: TmuxBackend, ref: ServerRef, name: str = "main", command: str | None = None
) -> str:
    # Named outright: tmux's automatic-rename may name a new window after a
    # passing process (ld-linux-x86-64.so.2 on the private-root builds) for a
    # moment, and the views compare window listings.
    made = backend.new_session(
        ref, name=name, window_name="sh", width=80, height=24, command=command
    )
    assert made.active_pane_id is not None
    return made.active_pane_id


def grid(backend: TmuxBackend, ref: ServerRef) -> dict[str, str]:
    """A 2x2 window: corner name -> pane id (top-left stays active)."""
    top_left = session(backend, ref)
    top_right = backend.split_window(ref, top_left, direction="right").pane_id
    bottom_left = backend.split_window(ref, top_left, direction="below").pane_id
    bottom_right = backend.split_window(ref, top_right, direction="below").pane_id
    return {
        "top-left": top_left,
        "top-right": top_right,
        "bottom-left": bottom_left,
        "bottom-right": bottom_right,
    }


def world(backend: TmuxBackend, ref: ServerRef) -> tuple[Any, ...]:
    """What a failed call must leave alone: each pane's place and state, and the buffers.

    Not the screens: on tmux a shell may still be drawing its prompt. Tests of
    tools that type compare the screens of quiet panes themselves (``screens``).
    """
    panes = [
        (p.pane_id, p.window_id, p.pane_index, p.width, p.height, p.left, p.top)
        + (p.active, p.title, p.dead, p.in_mode, p.history_size)
        for p in backend.list_panes(ref)
    ]
    return (panes, backend.list_buffers(ref))


def screens(backend: TmuxBackend, ref: ServerRef) -> list[tuple[str, ...]]:
    return [
        tuple(backend.snapshot(ref, p.pane_id, start="-").rows) for p in backend.list_panes(ref)
    ]


def active(backend: TmuxBackend, ref: ServerRef) -> str:
    return next(p.pane_id for p in backend.list_panes(ref) if p.active)


def shows_prompt(backend: TmuxBackend, ref: ServerRef, pane_id: str, prompts: int = 1) -> bool:
    """The pane's shell waits at its prompt, the ``prompts``-th one on the screen."""
    snap = backend.snapshot(ref, pane_id)
    at_cursor = snap.rows[snap.state.cursor_y].rstrip() == PROMPT.rstrip()
    drawn = sum(row.startswith(PROMPT.rstrip()) for row in snap.rows[: snap.state.cursor_y + 1])
    return at_cursor and snap.state.cursor_x == len(PROMPT) and drawn >= prompts


def wait_for_prompt(
    backend: TmuxBackend, ref: ServerRef, pane_id: str, prompts: int = 1, timeout: float = 15.0
) -> None:
    """Before typing into a new pane: wait (with a deadline) until its shell prompts.

    On tmux a shell draws its prompt when it gets to it, and keys typed before
    that are echoed ahead of it; the simulator prompts at once.
    """
    deadline = time.monotonic() + timeout
    while not shows_prompt(backend, ref, pane_id, prompts):
        assert time.monotonic() < deadline, f"no prompt #{prompts} in {pane_id} in {timeout}s"
        time.sleep(0.01)  # a poll interval, not a synchronisation


def written_rows(backend: TmuxBackend, ref: ServerRef, pane_id: str) -> list[str]:
    """Every retained row of a pane, blank rows below the last text left out."""
    rows = list(backend.snapshot(ref, pane_id, start="-").rows)
    while rows and not rows[-1]:
        rows.pop()
    return rows
