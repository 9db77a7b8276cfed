"""Set-up and views of panes for the pane tool tests, on either backend."""

from __future__ import annotations

from typing import Any

from gridmux.backend import ServerRef, TmuxBackend


def session(
    backend: TmuxBackend, ref: ServerRef, name: str = "main", command: str | None = None
) -> str:
    made = backend.new_session(ref, name=name, width=80, height=24, command=command)
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
