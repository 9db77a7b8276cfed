"""tmux options: the table of known options, their defaults and value rules,
and the layered stores that hold them.

tmux keeps four kinds of option tables (``options-table.c``): one server
table, the global session table and one per session (parent: global), the
global window table and one per window (parent: global), and one per pane
(parent: its window). Options marked ``per_pane`` here are tmux's
``OPTIONS_TABLE_WINDOW|OPTIONS_TABLE_PANE`` options, settable on a window or a
pane. Hooks are array options in the same tables (tmux 3.0+), so they live
here too. Only options the simulator or its users care about are listed; an
unknown name is refused like tmux refuses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from gridmux.backend import InvalidArgument, hook_names

from ._versions import TmuxVersion

Table = Literal["server", "session", "window"]
Kind = Literal["flag", "number", "string", "choice"]

_INT_MAX = 2**31 - 1

# tmux 3.3's remain-on-exit-format default (options-table.c).
DEAD_MESSAGE_FORMAT = (
    "Pane is dead ("
    "#{?#{!=:#{pane_dead_status},},status #{pane_dead_status},}"
    "#{?#{!=:#{pane_dead_signal},},signal #{pane_dead_signal},}"
    ", #{t:pane_dead_time})"
)


@dataclass(frozen=True, slots=True)
class OptionDef:
    name: str
    table: Table
    kind: Kind
    default: str
    per_pane: bool = False
    choices: tuple[str, ...] = ()
    minimum: int = 0
    maximum: int = _INT_MAX

    def normalise(self, value: str) -> str:
        """The value as tmux stores and prints it; InvalidArgument if tmux refuses it."""
        if self.kind == "flag":
            lowered = value.lower()
            if lowered in ("on", "yes", "1"):
                return "on"
            if lowered in ("off", "no", "0"):
                return "off"
            raise InvalidArgument(f"bad value: {value} (option {self.name} is on or off)")
        if self.kind == "number":
            try:
                number = int(value)
            except ValueError:
                raise InvalidArgument(f"value is invalid: {value} (option {self.name})") from None
            if number < self.minimum:
                raise InvalidArgument(f"value is too small: {value} (option {self.name})")
            if number > self.maximum:
                raise InvalidArgument(f"value is too large: {value} (option {self.name})")
            return str(number)
        if self.kind == "choice" and value not in self.choices:
            allowed = ", ".join(self.choices)
            raise InvalidArgument(f"unknown value: {value} (option {self.name}: {allowed})")
        return value


def _flag(name: str, table: Table, default: str, *, per_pane: bool = False) -> OptionDef:
    return OptionDef(name, table, "flag", default, per_pane=per_pane)


def _number(name: str, table: Table, default: int, maximum: int = _INT_MAX) -> OptionDef:
    return OptionDef(name, table, "number", str(default), maximum=maximum)


def _string(name: str, table: Table, default: str, *, per_pane: bool = False) -> OptionDef:
    return OptionDef(name, table, "string", default, per_pane=per_pane)


def _choice(
    name: str, table: Table, default: str, choices: tuple[str, ...], *, per_pane: bool = False
) -> OptionDef:
    return OptionDef(name, table, "choice", default, per_pane=per_pane, choices=choices)


def option_table(version: TmuxVersion) -> dict[str, OptionDef]:
    """The options ``version`` knows, by name."""
    defs = [
        # server
        _number("buffer-limit", "server", 50),
        _string("default-terminal", "server", version.default_term),
        _number("escape-time", "server", 500),
        _flag("exit-empty", "server", "on"),
        _flag("exit-unattached", "server", "off"),
        _flag("focus-events", "server", "off"),
        _string("history-file", "server", ""),
        _number("message-limit", "server", 1000),
        _choice("set-clipboard", "server", "external", ("off", "external", "on")),
        # session
        _number("base-index", "session", 0),
        _string("default-command", "session", ""),
        _string("default-shell", "session", "/bin/sh"),
        _string("default-size", "session", "80x24"),
        _flag("destroy-unattached", "session", "off"),
        _choice("detach-on-destroy", "session", "on", ("off", "on", "no-detached")),
        _number("display-time", "session", 750),
        _number("history-limit", "session", 2000),
        _flag("mouse", "session", "off"),
        _string("prefix", "session", "C-b"),
        _flag("renumber-windows", "session", "off"),
        _flag("set-titles", "session", "off"),
        _choice("status", "session", "on", ("off", "on", "2", "3", "4", "5")),
        _choice("status-position", "session", "bottom", ("top", "bottom")),
        # window (per_pane: tmux's WINDOW|PANE scope)
        _flag("aggressive-resize", "window", "off"),
        _flag("allow-rename", "window", "off", per_pane=True),
        _flag("alternate-screen", "window", "on", per_pane=True),
        _flag("automatic-rename", "window", "on"),
        _string("main-pane-height", "window", "24"),
        _string("main-pane-width", "window", "80"),
        _choice("mode-keys", "window", "emacs", ("emacs", "vi")),
        _flag("monitor-activity", "window", "off"),
        _number("pane-base-index", "window", 0, maximum=65535),
        _flag("synchronize-panes", "window", "off", per_pane=True),
        _choice("window-size", "window", "latest", ("largest", "smallest", "manual", "latest")),
        _flag("wrap-search", "window", "on"),
    ]
    # remain-on-exit is a choice already in 3.2a (measured: 3.2a takes "failed"
    # and refuses "1" and "yes" with "unknown value"; docs/tmux-model.md §13),
    # with "key" from 3.7; its message is a format from 3.3.
    choices: tuple[str, ...] = ("off", "on", "failed")
    if version.has_remain_on_exit_key:
        choices += ("key",)
    defs.append(_choice("remain-on-exit", "window", "off", choices, per_pane=True))
    if version.dead_pane_message_is_format:
        defs.append(_string("remain-on-exit-format", "window", DEAD_MESSAGE_FORMAT, per_pane=True))
    # docs/tmux-model.md §8: scroll-on-clear is new in 3.3 (3.2a always scrolls).
    if version.has_scroll_on_clear_option:
        defs.append(_flag("scroll-on-clear", "window", "on", per_pane=True))
    return {d.name: d for d in defs}


# Hooks (tmux 3.3 options-table.c): pane-* hooks are pane hooks, window-*
# hooks window hooks, the rest session hooks.
HOOK_NAMES = tuple(sorted(hook_names(theme_hooks=False)))


def hook_table(name: str) -> tuple[Table, bool]:
    """Where hook ``name`` lives: (table, per_pane). InvalidArgument if unknown."""
    if name not in HOOK_NAMES:
        raise InvalidArgument(f"unknown hook: {name}")
    if name.startswith("pane-"):
        return "window", True
    if name.startswith("window-"):
        return "window", False
    return "session", False


class Options:
    """One option table; lookups fall through to ``parent`` like tmux's."""

    def __init__(self, parent: Options | None = None) -> None:
        self.parent = parent
        self.values: dict[str, str] = {}
        self.hooks: dict[str, dict[int, str]] = {}

    def get(self, name: str) -> str | None:
        table: Options | None = self
        while table is not None:
            if name in table.values:
                return table.values[name]
            table = table.parent
        return None

    def set(self, name: str, value: str) -> None:
        self.values[name] = value

    def unset(self, name: str) -> None:
        self.values.pop(name, None)

    def set_hook(self, name: str, command: str, *, index: int | None, append: bool) -> None:
        entries = self.hooks.setdefault(name, {})
        if append:
            entries[max(entries, default=-1) + 1] = command
        elif index is None:
            # Without an index tmux replaces the whole array with one command.
            entries.clear()
            entries[0] = command
        else:
            entries[index] = command

    def unset_hook(self, name: str, index: int | None) -> None:
        if index is None:
            self.hooks.pop(name, None)
        else:
            self.hooks.get(name, {}).pop(index, None)
            if not self.hooks.get(name, True):
                del self.hooks[name]

    def hook_entries(self) -> Iterator[tuple[str, int, str]]:
        for name in sorted(self.hooks):
            for index in sorted(self.hooks[name]):
                yield name, index, self.hooks[name][index]


def global_defaults(version: TmuxVersion, table: Table) -> Options:
    """A global table filled with every default of ``table``."""
    options = Options()
    for definition in option_table(version).values():
        if definition.table == table:
            options.set(definition.name, definition.default)
    return options
