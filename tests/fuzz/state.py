"""What a failed call must leave alone: a tmux server's state, and the files around the test.

:func:`server_state` reads a backend only through :class:`TmuxBackend`'s
public methods (sessions, windows, panes with names, sizes and titles,
options and hooks at every scope, environments, buffers with contents), so
the same snapshot works on the simulator. :func:`files_state` lists a
directory tree with sizes and mtimes, skipping the subtrees a test owns.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from gridmux.backend import OptionScope, ServerRef, TmuxBackend

SCOPES: tuple[OptionScope, ...] = ("server", "session", "window", "pane")


def _read(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:  # a read's error is part of the state
        return f"error: {type(exc).__name__}"


def server_state(backend: TmuxBackend, ref: ServerRef) -> dict[str, Any]:
    sessions = _read(lambda: backend.list_sessions(ref))
    state: dict[str, Any] = {
        "sessions": sessions,
        "windows": _read(lambda: backend.list_windows(ref)),
        "panes": _read(lambda: backend.list_panes(ref)),
        "environment": _read(lambda: backend.show_environment(ref)),
    }
    for scope in SCOPES:
        state[f"{scope} options"] = _read(
            partial(backend.show_options, ref, scope=scope, global_=True)
        )
        state[f"{scope} hooks"] = _read(partial(backend.show_hooks, ref, scope=scope, global_=True))
    targets: dict[OptionScope, Iterable[str]] = {"session": [], "window": [], "pane": []}
    if isinstance(sessions, list):
        targets["session"] = [s.session_id for s in sessions]
        for sid in targets["session"]:
            state[f"environment {sid}"] = _read(partial(backend.show_environment, ref, sid))
    if isinstance(state["windows"], list):
        targets["window"] = [w.window_id for w in state["windows"]]
    if isinstance(state["panes"], list):
        targets["pane"] = [p.pane_id for p in state["panes"]]
    for scope, ids in targets.items():
        for target in ids:
            state[f"{scope} options {target}"] = _read(
                partial(backend.show_options, ref, scope=scope, target=target)
            )
    buffers = _read(lambda: backend.list_buffers(ref))
    state["buffers"] = buffers
    if isinstance(buffers, list):
        for buffer in buffers:
            state[f"buffer {buffer.name}"] = _read(partial(backend.show_buffer, ref, buffer.name))
    return state


def state_diff(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The keys whose values differ, each with both values (shortened)."""
    return [
        f"{key}: {str(before.get(key))[:300]} -> {str(after.get(key))[:300]}"
        for key in sorted(set(before) | set(after))
        if before.get(key) != after.get(key)
    ]


@dataclass
class Files:
    """A directory tree's entries, sizes and mtimes, minus the subtrees it skips."""

    root: Path
    skip: tuple[Path, ...] = ()
    entries: dict[str, tuple[int, int]] = field(default_factory=dict)

    def take(self) -> Files:
        found: dict[str, tuple[int, int]] = {}
        for top, dirs, files in os.walk(self.root):
            here = Path(top)
            dirs[:] = [d for d in dirs if here / d not in self.skip]
            for name in dirs + files:
                path = here / name
                try:
                    info = path.lstat()
                except FileNotFoundError:
                    continue
                found[str(path)] = (info.st_size, info.st_mtime_ns)
        return Files(self.root, self.skip, found)

    def changes(self, later: Files) -> list[str]:
        return [
            path
            for path in sorted(set(self.entries) | set(later.entries))
            if self.entries.get(path) != later.entries.get(path)
        ]
