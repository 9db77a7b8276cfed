"""Pane lifecycle: respawn and kill a pane, enter and leave copy mode, pipe output to a file."""

from __future__ import annotations

import contextlib
import os
import shlex
from typing import Annotated

from pydantic import Field

from gridmux.backend import PaneInfo as BackendPane
from gridmux.backend import ServerRef
from gridmux.errors import GridmuxError, InvalidArgument
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._models import PaneInfo
from ._params import PaneId, PaneIdText, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._results import pane_result
from ._spawn import check_start_directory, parse_environment
from ._targets import require_live

ExactPaneId = Annotated[PaneIdText, Field(description="Exact pane id, e.g. '%3' (see list_panes).")]
_REMAIN = "remain-on-exit"
#: tmux repeats a copy-mode command -N times; more than the history is never needed.
_SCROLL_MAX = 2**31 - 1


def check_output_path(path: str) -> str:
    """An absolute file path in an existing directory, safe to name in a shell command."""
    if not path:
        raise InvalidArgument(
            "output_path is empty", hint="Pass an absolute file path, or null to stop piping."
        )
    if "\n" in path or "\r" in path or "\0" in path:
        raise InvalidArgument(f"output_path {path!r} contains a newline or NUL")
    if not os.path.isabs(path):
        raise InvalidArgument(
            f"output_path {path!r} is not absolute", hint="Pass a path like '/tmp/pane.log'."
        )
    if os.path.isdir(path):
        raise InvalidArgument(
            f"output_path {path!r} is a directory", hint="Name a file inside it instead."
        )
    parent = os.path.dirname(path)
    if not os.path.isdir(parent):
        raise InvalidArgument(
            f"the directory of output_path {path!r} does not exist (or is not a directory)",
            hint="Create the directory first, or pick a file in an existing one.",
        )
    return path


@tool("Respawn tmux Pane")
async def respawn_pane(
    pane_id: ExactPaneId,
    kill: Annotated[
        bool,
        Field(description="Kill a program still running; false: only respawn a dead pane."),
    ] = True,
    shell: Annotated[
        str | None,
        Field(description="Command to start instead of the pane's original one."),
    ] = None,
    start_directory: Annotated[
        str | None, Field(description="Working directory for the new process (absolute).")
    ] = None,
    environment: Annotated[
        dict[str, str] | str | None,
        Field(description="Environment for the new process (object or JSON string)."),
    ] = None,
    socket_name: SocketName = None,
    suppress_persistent_history: Annotated[
        bool, Field(description="Keep the new shell from writing a history file.")
    ] = False,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Restart the program in a pane, keeping the pane, its id and its history. Use when a shell or
    program is wedged or has exited; cheaper than kill_pane plus split_window.

    Use when a shell or program is wedged or has exited: cheaper than
    kill_pane plus split_window, and pane ids held elsewhere stay valid.
    The screen is blanked; history is kept. Returns the pane with its
    new pane_pid. The pane stays when the new program exits (remain-on-exit
    on, for this pane), dead but readable and respawnable; a respawn that
    fails leaves the pane's remain-on-exit as it was. Refused for the pane
    this MCP server runs in.
    """
    server = ctx.server(socket_name, socket_path)

    def respawn() -> BackendPane:
        if shell is not None and (not shell.strip() or "\0" in shell):
            raise InvalidArgument(
                "shell is empty or contains NUL",
                hint="Pass a command, or omit shell to rerun the original.",
            )
        directory = check_start_directory(start_directory)
        env = parse_environment(environment, suppress_history=suppress_persistent_history)
        ctx.protect_caller(server, [pane_id], f"respawn pane {pane_id}")
        pane = ctx.resolve(server, pane_id)
        if not kill and not pane.dead:
            raise InvalidArgument(
                f"pane {pane_id} still runs {pane.current_command!r} and kill is false",
                hint="Pass kill=true to end it and start again.",
            )
        # Whatever the new program does, its exit must not close the pane (and
        # with it a window or session): a mutating call never ends one.
        own = ctx.backend.show_options(server, scope="pane", target=pane_id).get(_REMAIN)
        ctx.backend.set_option(server, _REMAIN, "on", scope="pane", target=pane_id)
        try:
            ctx.backend.respawn_pane(
                server,
                pane_id,
                kill=kill,
                command=shell,
                start_directory=directory,
                environment=env or None,
            )
        except GridmuxError:
            _restore_remain_on_exit(ctx, server, pane, own)
            raise
        return ctx.resolve(server, pane_id)

    return pane_result(ctx, server, await ctx.call(respawn))


def _restore_remain_on_exit(
    ctx: ToolContext, server: ServerRef, pane: BackendPane, own: str | None
) -> None:
    """After a failed respawn, the pane's own remain-on-exit as it was (``None``: it had
    none), unless the pane runs a new process after all (a respawn whose answer was
    lost) or cannot be read: then it stays on, so that process's exit keeps the pane."""
    with contextlib.suppress(GridmuxError):
        if own == "on" or ctx.resolve(server, pane.pane_id).pid != pane.pid:
            return
        if own is None:
            ctx.backend.unset_option(server, _REMAIN, scope="pane", target=pane.pane_id)
        else:
            ctx.backend.set_option(server, _REMAIN, own, scope="pane", target=pane.pane_id)


@tool("Kill tmux Pane")
async def kill_pane(
    pane_id: ExactPaneId,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Close a pane and end its program (not reversible). To restart the program in place, use
    respawn_pane.

    Use to remove one pane you no longer need; its neighbours take its
    space. Killing a window's last pane closes the window (and a
    session's last window, the session). To restart the program in
    place, use respawn_pane. Refused for the pane this MCP server runs in.
    """
    server = ctx.server(socket_name, socket_path)

    def kill() -> str:
        ctx.protect_caller(server, [pane_id], f"kill pane {pane_id}")
        ctx.resolve(server, pane_id)
        ctx.backend.kill_pane(server, pane_id)
        return pane_id

    return f"Pane killed: {await ctx.call(kill)}"


@tool("Enter tmux Copy Mode")
async def enter_copy_mode(
    pane_id: PaneId = None,
    scroll_up: Annotated[
        int | None,
        Field(ge=0, le=_SCROLL_MAX, description="Lines to scroll back at once."),
    ] = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Put a pane in copy mode, optionally scrolled back, to show history to a user; to read history
    yourself, use capture_pane with a negative start.

    Use to show scrollback to a user looking at the pane. The program
    keeps running, but keys sent to the pane go to copy mode until
    exit_copy_mode. To read history yourself, capture_pane with a
    negative start is simpler. snapshot_pane reports the scroll position.
    """
    server = ctx.server(socket_name, socket_path)

    def enter() -> BackendPane:
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        # Scrolling past the oldest row does nothing; tmux would still loop N times.
        lines = None if scroll_up is None else min(scroll_up, pane.history_size)
        ctx.backend.copy_mode(server, pane.pane_id, enter=True, scroll_up=lines)
        return ctx.resolve(server, pane.pane_id)

    return pane_result(ctx, server, await ctx.call(enter))


@tool("Exit tmux Copy Mode")
async def exit_copy_mode(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> PaneInfo:
    """Leave copy mode (or any mode) for the live screen. Use when keys sent to a pane seem to
    vanish.

    Use after enter_copy_mode, or when keys sent to a pane seem to
    vanish because it is in a mode. Nothing happens outside a mode.
    """
    server = ctx.server(socket_name, socket_path)

    def leave() -> BackendPane:
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        ctx.backend.copy_mode(server, pane.pane_id, enter=False)
        return ctx.resolve(server, pane.pane_id)

    return pane_result(ctx, server, await ctx.call(leave))


@tool("Pipe tmux Pane Output")
async def pipe_pane(
    pane_id: PaneId = None,
    output_path: Annotated[
        str | None,
        Field(description="Absolute path of the file to write; null stops piping."),
    ] = None,
    append: Annotated[
        bool, Field(description="Append to the file; false truncates it first.")
    ] = True,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Copy everything a pane's program writes into a file from now on (raw output), or stop. Use to
    keep a full log of a long-running program.

    Use to keep a complete log of a long-running program. The file gets
    the raw output, escape sequences included. A pane has one pipe:
    starting another replaces it. The file is written with this
    server's permissions wherever they allow.
    """
    server = ctx.server(socket_name, socket_path)

    def pipe() -> str:
        path = None if output_path is None else check_output_path(output_path)
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        require_live(pane, "pipe")
        if path is None:
            ctx.backend.pipe_pane(server, pane.pane_id, None)
            return f"Stopped piping pane {pane.pane_id}"
        command = f"cat {'>>' if append else '>'} {shlex.quote(path)}"
        ctx.backend.pipe_pane(server, pane.pane_id, command, append=append)
        how = "appending" if append else "overwriting"
        return f"Piping pane {pane.pane_id} to {path} ({how})"

    return await ctx.call(pipe)


#: This module's tools, in the order clients list them.
TOOLS = (
    respawn_pane,
    kill_pane,
    enter_copy_mode,
    exit_copy_mode,
    pipe_pane,
)


__all__ = [
    "TOOLS",
    "check_output_path",
    "enter_copy_mode",
    "exit_copy_mode",
    "kill_pane",
    "pipe_pane",
    "respawn_pane",
]
