"""Hook tools: show_hooks, show_hook. Read-only on purpose.

There is no tool to set or unset a hook: a hook keeps running tmux commands
after the agent that set it is gone. Scopes and targets work as for options
(``options.where``); without a target the global hooks are shown.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field

from gridmux.backend import HookEntry as BackendHook
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.errors import InvalidArgument
from gridmux.safety import tool

from ._config_models import HookEntry, HookListResult, Scope
from ._context import TOOL_CONTEXT, ToolContext
from ._params import SocketName, SocketPath
from ._scopes import HOOK_NAMES, GlobalFlag, OptionScopeParam, OptionTarget, where

_HOOK_NAME = re.compile(r"[a-z][a-z-]*")


def read_hooks(
    backend: TmuxBackend,
    server: ServerRef,
    scope: Scope | None,
    target: str | None,
    global_: bool,
) -> list[HookEntry]:
    """Hooks set at one scope (a target's own, or the global ones), sorted by name."""
    place = where(backend, server, scope, target, global_)
    found: list[BackendHook]
    if place.scope in (None, "server"):
        # The server's hooks: the global session and global window tables together.
        found = backend.show_hooks(server, scope="session", global_=True)
        found += backend.show_hooks(server, scope="window", global_=True)
    elif place.target is not None:
        found = backend.show_hooks(server, scope=place.scope, target=place.target)
    else:
        # No global pane table exists: panes inherit the global window hooks.
        table: Scope = "window" if place.scope == "pane" else place.scope
        found = backend.show_hooks(server, scope=table, global_=True)
    entries = [
        HookEntry(hook_name=h.hook_name, index=h.index, command=h.command)
        for h in found
        if h.command  # tmux also lists hooks that are not set, without a command
    ]
    return sorted(entries, key=lambda e: (e.hook_name, -1 if e.index is None else e.index))


@tool("Show tmux Hooks")
async def show_hooks(
    scope: OptionScopeParam = None,
    target: OptionTarget = None,
    global_: GlobalFlag = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> HookListResult:
    """List the tmux hooks (commands tmux runs on events) set on a target, or the global ones of a
    scope.

    Use to find out what runs when, say, a window is created or a pane
    exits. With a target: the hooks set on it; without one: the global
    hooks of the scope (all of them for no scope or scope='server').
    """
    server = ctx.server(socket_name, socket_path)
    entries = await ctx.call(lambda: read_hooks(ctx.backend, server, scope, target, global_))
    return HookListResult(entries=entries)


@tool("Show tmux Hook")
async def show_hook(
    hook_name: Annotated[
        str, Field(description="Hook name, e.g. 'after-new-window' or 'pane-exited'.")
    ],
    scope: OptionScopeParam = None,
    target: OptionTarget = None,
    global_: GlobalFlag = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> HookListResult:
    """Show the commands of one tmux hook (an empty list when unset); scope and target as for
    show_hooks.

    Scope and target work as for show_hooks.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> HookListResult:
        if not _HOOK_NAME.fullmatch(hook_name):
            raise InvalidArgument(
                f"{hook_name!r} is not a hook name",
                hint="Hook names look like 'after-new-window'; pass no '[index]'.",
            )
        entries = read_hooks(ctx.backend, server, scope, target, global_)
        mine = [e for e in entries if e.hook_name == hook_name]
        if not mine and hook_name not in HOOK_NAMES:
            raise InvalidArgument(
                f"unknown tmux hook {hook_name!r}",
                hint="List the hooks that are set with show_hooks; see `man tmux` (HOOKS).",
            )
        return HookListResult(entries=mine)

    return await ctx.call(read)


#: This module's tools, in the order clients list them.
TOOLS = (
    show_hooks,
    show_hook,
)


__all__ = ["TOOLS", "read_hooks", "show_hook", "show_hooks"]
