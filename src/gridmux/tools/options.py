"""Option and environment tools: show_option, set_option, show_environment, set_environment.

tmux keeps options in tables: one for the server, a global table and one
per session for session options, a global table and one per window (and
per pane) for window options. tmux itself picks the table from the option's
name; the tools check that the scope and target a caller gives fit that
table, and never fall back to "the current session" the way a bare tmux
command would. Reads without a target show the global value; writes without
a target need ``global_=True``.

Hooks live in the same tables: ``_scopes`` resolves a scope and target for
both this module and ``hooks``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Annotated

from pydantic import Field

from gridmux.backend import CONTROL_CHARACTER, ServerRef, TmuxBackend
from gridmux.errors import InvalidArgument, NotFound, TmuxFailure, TmuxUnavailable
from gridmux.safety import acting_tier, tool
from gridmux.settable import SETTABLE_OPTIONS, option_refusal

from ._config_models import (
    EnvironmentResult,
    EnvironmentSetResult,
    OptionResult,
    OptionSetResult,
    Scope,
)
from ._context import TOOL_CONTEXT, ToolContext
from ._params import SessionId, SessionName, SocketName, SocketPath
from ._scopes import HOOK_NAMES, GlobalFlag, OptionScopeParam, OptionTarget, Where, where
from ._spawn import check_lasting_environment
from ._targets import resolve_session

#: A user option's name is letters, digits, '_', '.' and '-': tmux expands the name
#: argument of set-option as a format, so '#' (a '#(...)' job) never reaches it.
#: Options that end sessions or the server by themselves when set (not ``off``).
_ENDING = frozenset({"exit-empty", "exit-unattached", "destroy-unattached"})
_OPTION_NAME = re.compile(r"(?P<base>@[A-Za-z0-9_.-]+|[a-z][a-z0-9-]*)(?:\[(?P<index>\d+)\])?")


# -- options ---------------------------------------------------------------------------


def _split_name(option: str) -> str:
    """The option's base name (without ``[index]``); InvalidArgument when malformed."""
    match = _OPTION_NAME.fullmatch(option)
    if match is None:
        raise InvalidArgument(
            f"{option!r} is not a tmux option name",
            hint="Option names look like 'history-limit', 'status-format[1]' or '@my-option' "
            "(a user option: letters, digits, '_', '.' and '-' after the '@').",
        )
    base = match.group("base")
    if base in HOOK_NAMES:
        raise InvalidArgument(
            f"{base!r} is a hook, not an option",
            hint="Read hooks with show_hooks or show_hook; gridmux does not set hooks.",
        )
    return base


def _catalog(backend: TmuxBackend, server: ServerRef) -> dict[str, dict[str, str]]:
    """The global tables: every option tmux knows, by table, with its global value."""
    return {
        "server": backend.show_options(server, scope="server"),
        "session": backend.show_options(server, scope="session", global_=True),
        "window": backend.show_options(server, scope="window", global_=True),
    }


def _base_names(values: dict[str, str]) -> set[str]:
    return {name.partition("[")[0] for name in values}


def _option_scope(
    base: str, place: Where, catalog: Callable[[], dict[str, dict[str, str]]], option: str
) -> Scope:
    """The table ``option`` lives in at ``place``; InvalidArgument when they do not fit."""
    if base.startswith("@"):  # user options go wherever they are put (tmux: session by default)
        return place.scope or "session"
    tables = catalog()
    table: Scope | None = next(
        (t for t in ("server", "session", "window") if base in _base_names(tables[t])), None
    )
    if table is None:
        raise InvalidArgument(
            f"unknown tmux option {option!r}",
            hint="Check the spelling against `man tmux` (OPTIONS); user options start with '@'.",
        )
    if place.scope is None or place.scope == table:
        return table
    if table == "window" and place.scope == "pane":
        return "pane"
    fits = "scope='window' or scope='pane'" if table == "window" else f"scope={table!r}"
    raise InvalidArgument(
        f"{option!r} is a {table} option, not a {place.scope} option",
        hint=f"Pass {fits} (with a matching target), or leave scope out.",
    )


def _pick(values: dict[str, str], option: str) -> str | dict[int, str] | None:
    if option in values:
        return values[option]
    if "[" in option:
        return None
    items = {
        int(name[len(option) + 1 : -1]): value
        for name, value in values.items()
        if name.startswith(option + "[")
    }
    return items or None


def read_option(
    backend: TmuxBackend, server: ServerRef, option: str, place: Where, scope: Scope
) -> tuple[str | dict[int, str], Scope, bool]:
    """(value, table it came from, inherited) following tmux's inheritance."""
    chain: list[tuple[Scope, dict[str, str]]] = []
    if scope == "server":
        chain.append(("server", backend.show_options(server, scope="server")))
    elif place.target is not None:
        chain.append((scope, backend.show_options(server, scope=scope, target=place.target)))
        if place.window_id is not None:
            local = backend.show_options(server, scope="window", target=place.window_id)
            chain.append(("window", local))
    if scope != "server":
        table: Scope = "session" if scope == "session" else "window"
        chain.append((table, backend.show_options(server, scope=table, global_=True)))
    for level, (table_name, values) in enumerate(chain):
        value = _pick(values, option)
        if value is not None:
            return value, table_name, level > 0
    if option.startswith("@"):
        raise NotFound(
            f"user option {option!r} is not set here",
            hint="Set it with set_option, or look at another scope or target.",
        )
    raise NotFound(f"option {option!r} has no value here", hint="Check the array index.")


def _no_nul(what: str, value: str) -> None:
    if "\0" in value:
        raise InvalidArgument(f"{what} must not contain NUL characters")


# -- environment -----------------------------------------------------------------------


def check_variable_name(name: str) -> None:
    if not name or "=" in name or CONTROL_CHARACTER.search(name):
        raise InvalidArgument(
            f"{name!r} is not a valid environment variable name",
            hint="A variable name is non-empty, without '=' or a control character: 'RUST_LOG'.",
        )


def _environment_session(
    backend: TmuxBackend, server: ServerRef, session_name: str | None, session_id: str | None
) -> str | None:
    if session_name is None and session_id is None:
        return None
    found = resolve_session(backend, server, session_name=session_name, session_id=session_id)
    return found.session_id


@tool("Show tmux Option")
async def show_option(
    option: Annotated[
        str, Field(description="Option name, e.g. 'history-limit', 'status-format[0]'.")
    ],
    scope: OptionScopeParam = None,
    target: OptionTarget = None,
    global_: GlobalFlag = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> OptionResult:
    """Show one tmux option's value for a target (inherited=true when it comes from above) or
    globally.

    Use to check settings such as history-limit, mouse or remain-on-exit
    before relying on them. With a target, a value the target does not set
    itself is inherited (from its window, then the global table) and
    reported with inherited=true. Without a target: the global value.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> OptionResult:
        base = _split_name(option)
        place = where(ctx.backend, server, scope, target, global_)
        scope_ = _option_scope(base, place, lambda: _catalog(ctx.backend, server), option)
        value, table, inherited = read_option(ctx.backend, server, option, place, scope_)
        return OptionResult(option=option, value=value, scope=table, inherited=inherited)

    return await ctx.call(read)


@tool("Set tmux Option")
async def set_option(
    option: Annotated[str, Field(description="Option name, e.g. 'history-limit'.")],
    value: Annotated[str, Field(description="The new value, as tmux's set-option takes it.")],
    scope: OptionScopeParam = None,
    target: OptionTarget = None,
    global_: GlobalFlag = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> OptionSetResult:
    """Set a tmux option on a session, window or pane, or globally (global_=true); tmux checks the
    value. Options holding formats, commands or files are refused.

    Use to change tmux behaviour at runtime (history-limit for new panes,
    mouse, remain-on-exit, styles, '@name' user options); options holding
    formats, commands or files are refused (docs/safety.md). Pass a target, or
    global_=True to change the default every target inherits; server
    options need neither. tmux checks the value: an invalid one is an
    error and changes nothing.
    """
    server = ctx.server(socket_name, socket_path)
    tier = acting_tier(ctx.settings.safety)

    def write() -> OptionSetResult:
        base = _split_name(option)
        _no_nul("value", value)
        refused = option_refusal(base, value, tier)
        if refused is not None:
            close = difflib.get_close_matches(base, SETTABLE_OPTIONS, n=1)
            guess = f"Did you mean {close[0]!r}? " if close and close[0] != base else ""
            raise InvalidArgument(
                f"not setting {option!r}: {refused}",
                hint=(
                    f"{guess}Nothing was changed. gridmux sets display and behaviour options "
                    "(history-limit, mouse, remain-on-exit, styles, '@name' user options); "
                    "ask the user to put the others in their tmux.conf."
                ),
            )
        place = where(ctx.backend, server, scope, target, global_)
        scope_ = _option_scope(base, place, lambda: _catalog(ctx.backend, server), option)
        if scope_ != "server" and place.target is None and not global_:
            raise InvalidArgument(
                f"say where to set {scope_} option {option!r}",
                hint=(
                    "Pass target (a session, window or pane) to set it there, or "
                    "global_=True to change the global default."
                ),
            )
        # tmux has no global pane table: pane options inherit the global window ones.
        table: Scope = "window" if scope_ == "pane" and place.target is None else scope_
        if base in _ENDING and value not in ("off", "0"):
            # It ends sessions or the server later, when their last client leaves:
            # never the one this MCP server runs in (as kill_session, kill_server).
            panes = ctx.backend.list_panes(server)
            ended = [
                p.pane_id
                for p in panes
                if table == "server" or global_ or p.session_id == place.target
            ]
            ctx.protect_caller(server, ended, f"set {base} {value}")
        try:
            ctx.backend.set_option(
                server,
                option,
                value,
                scope=table,
                target=place.target,
                global_=global_ and table != "server",
            )
        except (InvalidArgument, TmuxFailure) as exc:
            if isinstance(exc, TmuxUnavailable):
                raise
            raise InvalidArgument(
                f"tmux refused to set {option!r} to {value!r}: {exc.message}",
                hint=(
                    "Nothing was changed. Pass a value of the option's kind (a number, "
                    "on/off, one of its choices, a style or a format); show_option shows "
                    "the current value."
                ),
            ) from exc
        target_id = place.target
        if table == "pane" and place.target is not None:
            # tmux puts a window option that has no per-pane value on the pane's window.
            own = ctx.backend.show_options(server, scope="pane", target=place.target)
            if _pick(own, option) is None:
                table, target_id = "window", place.window_id
        return OptionSetResult(option=option, value=value, scope=table, target=target_id)

    return await ctx.call(write)


@tool("Show tmux Environment")
async def show_environment(
    session_name: SessionName = None,
    session_id: SessionId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> EnvironmentResult:
    """Show a session's tmux environment (what differs from the global one), or the global one: what
    new panes will inherit.

    Use to see what new panes and windows will inherit. A session's own
    environment holds only what differs from the global one.
    """
    server = ctx.server(socket_name, socket_path)

    def read() -> EnvironmentResult:
        sid = _environment_session(ctx.backend, server, session_name, session_id)
        return EnvironmentResult(variables=ctx.backend.show_environment(server, sid))

    return await ctx.call(read)


@tool("Set tmux Environment Variable")
async def set_environment(
    name: Annotated[str, Field(description="Variable name, e.g. 'RUST_LOG'.")],
    value: Annotated[str, Field(description="Its value.")],
    session_name: SessionName = None,
    session_id: SessionId = None,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> EnvironmentSetResult:
    """Set a variable in a session's or the global tmux environment, for processes tmux starts
    later. For one command, prefer 'NAME=value cmd' through send_keys.

    Processes tmux starts later (new panes and windows, also ones the user
    opens) inherit it; running processes do not. For one command, prefer
    'NAME=value command' through send_keys.
    """
    server = ctx.server(socket_name, socket_path)

    tier = acting_tier(ctx.settings.safety)

    def write() -> EnvironmentSetResult:
        check_variable_name(name)
        _no_nul("value", value)
        check_lasting_environment({name: value}, tier)
        sid = _environment_session(ctx.backend, server, session_name, session_id)
        ctx.backend.set_environment(server, name, value, session_id=sid)
        return EnvironmentSetResult(name=name, value=value, session_id=sid)

    return await ctx.call(write)


#: This module's tools, in the order clients list them.
TOOLS = (
    show_option,
    set_option,
    show_environment,
    set_environment,
)


__all__ = [
    "TOOLS",
    "check_variable_name",
    "read_option",
    "set_environment",
    "set_option",
    "show_environment",
    "show_option",
]
