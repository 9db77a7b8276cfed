"""How panes come to be (tmux's ``spawn.c``): a grid sized for its cell, a
tty, a process environment, and a program started on it.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import TYPE_CHECKING

from gridmux.backend import InvalidArgument

from ._model import SimPane, SimWindow
from ._programs import PaneIO, Program
from ._server_config import apply_pane_options
from ._shell import SimShell
from ._stores import merged_environment
from ._terminal import Terminal

if TYPE_CHECKING:
    from ._server_state import ServerState


def make_pane(
    server: ServerState,
    window: SimWindow,
    sx: int,
    sy: int,
    cwd: str,
    environment: Mapping[str, str] | None,
) -> SimPane:
    session = window.session
    # docs/tmux-model.md §6: the history limit is read once, when the pane is made.
    terminal = Terminal(sx, sy, int(session.option("history-limit")), server.version)
    number = server.next_pane_number
    server.next_pane_number += 1
    pane = SimPane(
        window.server,
        number,
        window,
        terminal,
        tty=server.processes.new_tty(),
        current_path=cwd,
        start_command=None,
        environment={},
    )
    apply_pane_options(pane)
    pane.environment.update(process_environment(server, pane, environment))
    return pane


def process_environment(
    server: ServerState, pane: SimPane, extra: Mapping[str, str] | None
) -> dict[str, str]:
    session = pane.window.session
    env = merged_environment(server.environment, session.environment)
    env["TERM"] = server.server_options.get("default-terminal") or server.version.default_term
    env["TMUX"] = f"{server.socket_path},{server.pid},{session.number}"
    env["TMUX_PANE"] = pane.pane_id
    env.update(extra or {})
    return env


def start_program(server: ServerState, pane: SimPane, command: str | None) -> None:
    pane.start_command = command
    pane.pid = server.processes.new_pid()
    if command is None:
        default = pane.window.session.option("default-command")
        command = default or None
    pane.program = _make_program(server, pane, command)
    pane.program.start()


def _make_program(server: ServerState, pane: SimPane, command: str | None) -> Program:
    if server.program_factory is not None:
        return server.program_factory(pane, command)
    shell = posixpath.basename(pane.window.session.option("default-shell")) or "sh"
    io: PaneIO = pane
    return SimShell(io, command, name=shell)


def split_size(size: str | None, current: int) -> int | None:
    """``split-window -l``: cells, or a percentage of the target pane."""
    if size is None:
        return None
    text = size.strip()
    try:
        if text.endswith("%"):
            percent = int(text[:-1])
            if not 0 <= percent <= 100:
                raise ValueError
            return current * percent // 100
        cells = int(text)
    except ValueError:
        raise InvalidArgument(f"invalid size: {size} (a number of cells or a percentage)") from None
    if cells < 0:
        raise InvalidArgument(f"invalid size: {size} (a number of cells or a percentage)")
    return cells
