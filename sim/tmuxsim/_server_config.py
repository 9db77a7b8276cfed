"""Options, hooks and environments of a server, with tmux's scoping.

tmux picks the table an option goes to from the option itself
(``options.c:options_scope_from_name``): server options always go to the
server table; session options to the global session table (``-g``) or the
target's session; window options to the global window table or the target's
window; options that are both window and pane options go to the target pane
with ``-p`` (here: ``scope="pane"``). User options (``@name``) follow the
requested scope. Changing ``history-limit`` or ``scroll-on-clear`` reaches
the panes' grids as docs/tmux-model.md §6 and §8 describe.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gridmux.backend import InvalidArgument, OptionScope

from ._options import HOOK_NAMES, Options, hook_table
from ._stores import Environment

if TYPE_CHECKING:
    from ._model import SimPane
    from ._server_state import ServerState

_INDEXED = re.compile(r"(.+)\[(\d+)\]")


class ServerConfig:
    def __init__(self, server: ServerState) -> None:
        self._server = server

    # -- where a value lives -------------------------------------------------------
    def _table(self, table: str, target: str | None, global_: bool) -> Options:
        server = self._server
        if table == "server":
            return server.server_options
        if global_:
            return server.session_options if table == "session" else server.window_options
        session, window, pane = server.resolve(target)
        if table == "session":
            return session.options
        if table == "window":
            return window.options
        return pane.options

    def _option_table(self, name: str, scope: OptionScope) -> str:
        if name.startswith("@"):
            return scope
        definition = self._server.option_table.get(name)
        if definition is None:
            raise InvalidArgument(f"unknown option: {name}")
        if scope == "pane" and definition.per_pane:
            return "pane"
        return definition.table

    # -- options -------------------------------------------------------------------------
    def set_option(
        self,
        name: str,
        value: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        self._server.check_alive()
        indexed = _INDEXED.fullmatch(name)
        base = indexed.group(1) if indexed else name
        if base in HOOK_NAMES:  # hooks are array options: set-option works on them too
            index = int(indexed.group(2)) if indexed else None
            self.set_hook(base, value, scope=scope, target=target, global_=global_, index=index)
            return
        if indexed:
            raise InvalidArgument(f"not an array: {base}")
        table = self._option_table(name, scope)
        definition = self._server.option_table.get(name)
        normalised = definition.normalise(value) if definition is not None else value
        self._table(table, target, global_).set(name, normalised)
        self._push_change(name)

    def unset_option(
        self, name: str, *, scope: OptionScope, target: str | None = None, global_: bool = False
    ) -> None:
        """``set-option -u``: a global option returns to its default, a local one is removed."""
        self._server.check_alive()
        table = self._option_table(name, scope)
        options = self._table(table, target, global_)
        definition = self._server.option_table.get(name)
        if options.parent is None and definition is not None:
            options.set(name, definition.default)
        else:
            options.unset(name)
        self._push_change(name)

    def show_options(
        self, *, scope: OptionScope, target: str | None = None, global_: bool = False
    ) -> dict[str, str]:
        """Every option of a global table, or those set locally on a target."""
        self._server.check_alive()
        table = "server" if scope == "server" else scope
        if scope == "pane" and global_:
            table = "window"
        options = self._table(table, target, global_)
        return dict(sorted(options.values.items()))

    def _push_change(self, name: str) -> None:
        server = self._server
        if name == "history-limit" and server.version.history_limit_applies_to_existing_panes:
            # docs/tmux-model.md §6 (3.7+): every pane of every session gets its session's
            # limit and is trimmed at once, even when the value did not change.
            for session in server.ordered_sessions():
                limit = int(session.option("history-limit"))
                for window in session.ordered_windows():
                    for pane in window.panes:
                        pane.terminal.set_history_limit(limit)
        elif name == "scroll-on-clear":
            for pane in server.all_panes():
                apply_pane_options(pane)

    # -- hooks ---------------------------------------------------------------------------
    def _hook_options(
        self, name: str, scope: OptionScope, target: str | None, global_: bool
    ) -> Options:
        table, per_pane = hook_table(name)
        if table == "window" and per_pane and scope == "pane":
            return self._table("pane", target, global_)
        return self._table(table, target, global_)

    def set_hook(
        self,
        name: str,
        command: str,
        *,
        scope: OptionScope = "session",
        target: str | None = None,
        global_: bool = False,
        index: int | None = None,
        append: bool = False,
    ) -> None:
        """``set-hook``: without an index or ``append`` it replaces the whole hook."""
        self._server.check_alive()
        options = self._hook_options(name, scope, target, global_)
        options.set_hook(name, command, index=index, append=append)

    def unset_hook(
        self,
        name: str,
        *,
        scope: OptionScope = "session",
        target: str | None = None,
        global_: bool = False,
        index: int | None = None,
    ) -> None:
        self._server.check_alive()
        self._hook_options(name, scope, target, global_).unset_hook(name, index)

    def show_hooks(
        self, *, scope: OptionScope, target: str | None = None, global_: bool = False
    ) -> list[tuple[str, int | None, str]]:
        """(name, index, command); a global listing also names the hooks that are unset."""
        self._server.check_alive()
        table = "session" if scope == "server" else scope
        if scope == "pane" and global_:
            table = "window"
        options = self._table(table, target, global_)
        entries: list[tuple[str, int | None, str]] = list(options.hook_entries())
        if global_:
            wanted = "session" if table == "session" else "window"
            for name in HOOK_NAMES:
                if hook_table(name)[0] == wanted and name not in options.hooks:
                    entries.append((name, None, ""))
            entries.sort(key=lambda e: (e[0], -1 if e[1] is None else e[1]))
        return entries

    # -- environment -----------------------------------------------------------------------
    def set_environment(self, name: str, value: str, *, session_id: str | None = None) -> None:
        _check_variable(name)
        self._environment(session_id).set(name, value)

    def unset_environment(
        self, name: str, *, session_id: str | None = None, remove: bool = False
    ) -> None:
        """``set-environment -u`` (forget) or ``-r`` (mark for removal from new processes)."""
        _check_variable(name)
        environment = self._environment(session_id)
        if remove:
            environment.mark_removed(name)
        else:
            environment.unset(name)

    def show_environment(self, session_id: str | None = None) -> dict[str, str | None]:
        return self._environment(session_id).items()

    def _environment(self, session_id: str | None) -> Environment:
        self._server.check_alive()
        if session_id is None:
            return self._server.environment
        return self._server.session(session_id).environment


def apply_pane_options(pane: SimPane) -> None:
    """Options the grid reads directly (§8: 3.3+ scroll-on-clear)."""
    if pane.server.version.has_scroll_on_clear_option:
        pane.terminal.scroll_on_clear = pane.option("scroll-on-clear") == "on"


def _check_variable(name: str) -> None:
    if not name or "=" in name:
        raise InvalidArgument(f"invalid environment variable name: {name!r}")
