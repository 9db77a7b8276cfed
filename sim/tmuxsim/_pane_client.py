"""``tmux`` run from inside a simulated pane: a client of the pane's own server.

A shell in a real pane reaches its server through ``$TMUX``, so ``tmux``
typed there needs no socket option; here the client always talks to the
pane's server (``-L``/``-S``/``-u`` are accepted and ignored). Commands
are split into a command list at ``;`` arguments, as tmux's
``cmd_parse_from_arguments`` does (the shell turns ``\\;`` into ``;``). As in
tmux, the whole list is parsed first -- an unknown command or flag fails it
before anything runs -- and then run in order; the first command that fails
prints its error and ends the list with status 1.

Simulated commands: ``wait-for [-S] CHANNEL`` (without ``-S`` the client
blocks until the channel is signalled), ``set-option``/``set`` with
``-p -w -s -g -u -q -t``, and ``set-buffer``/``setb`` with ``-b``. A target
defaults to the calling pane, as tmux finds it from the client's tty.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridmux.backend import GridmuxError, OptionScope

if TYPE_CHECKING:
    from ._model import SimPane

_ALIASES = {"set": "set-option", "wait": "wait-for", "setb": "set-buffer"}
_SUPPORTED = "wait-for, set-option and set-buffer"


class PaneClient:
    """One ``tmux`` invocation from a pane; ``run`` it until it is ``done``."""

    def __init__(self, pane: SimPane, args: Sequence[str]) -> None:
        self._pane = pane
        self.output = ""
        self.status = 0
        self.done = False
        self._waiting: tuple[str, int] | None = None
        self._commands: list[_Command] = []
        try:
            self._commands = [_parse(argv) for argv in _split(_global_options(list(args)))]
        except GridmuxError as error:
            self.output = f"{error}\n"
            self._finish(1)

    def run(self) -> bool:
        """Run commands until the list ends (True) or a wait blocks (False)."""
        if self.done:
            return True
        server = self._pane.server
        if self._waiting is not None:
            channel, token = self._waiting
            if not server.alive:
                return self._finish(0)  # a wait-for client exits when the server goes
            if not server.channels.woken(channel, token):
                return False
            self._waiting = None
        while self._commands:
            command = self._commands.pop(0)
            try:
                blocked = self._command(command)
            except GridmuxError as error:
                self.output += f"{error}\n"
                return self._finish(1)
            if blocked:
                return False
        return self._finish(0)

    def _finish(self, status: int) -> bool:
        self.status = status
        self.done = True
        self._commands.clear()
        return True

    def _command(self, command: _Command) -> bool:
        name, flags, rest = command
        if name == "wait-for":
            return self._wait_for(flags, rest[0])
        if name == "set-option":
            self._set_option(flags, rest)
        else:
            self._pane.server.controls.set_buffer(rest[0], flags.get("b"))
        return False

    def _wait_for(self, flags: dict[str, str], channel: str) -> bool:
        server = self._pane.server
        if "S" in flags:
            server.signal_channel(channel)
            return False
        token = server.channels.begin_wait(channel)
        if token is None:
            return False  # an earlier signal was held for this wait
        self._waiting = (channel, token)
        return True

    def _set_option(self, flags: dict[str, str], rest: list[str]) -> None:
        scope: OptionScope = (
            "pane"
            if "p" in flags
            else "window"
            if "w" in flags
            else "server"
            if "s" in flags
            else "session"
        )
        target = flags.get("t") or self._pane.pane_id
        config = self._pane.server.config
        global_ = "g" in flags
        if "u" in flags:
            config.unset_option(rest[0], scope=scope, target=target, global_=global_)
        else:
            config.set_option(rest[0], rest[1], scope=scope, target=target, global_=global_)


#: name, flags, arguments
_Command = tuple[str, dict[str, str], list[str]]
#: command: (switches, flags taking a value, usage)
_SPECS = {
    "wait-for": ("S", "", "wait-for [-S] channel"),
    "set-option": ("pwsguq", "t", "set-option [-gpqsuw] [-t target] option [value]"),
    "set-buffer": ("", "b", "set-buffer [-b buffer-name] data"),
}


def _parse(argv: list[str]) -> _Command:
    name = _ALIASES.get(argv[0], argv[0])
    if name not in _SPECS:
        raise GridmuxError(f"tmux: only {_SUPPORTED} are simulated, not {argv[0]!r}")
    switches, with_values, usage = _SPECS[name]
    flags, rest = _flags(name, argv[1:], switches, with_values)
    if name == "set-option":
        fits = 1 <= len(rest) <= 2 and ("u" in flags) == (len(rest) == 1)
    else:
        fits = len(rest) == 1
    if not fits:
        raise GridmuxError(f"command {name}: usage: {usage}")
    return name, flags, rest


def _global_options(args: list[str]) -> list[str]:
    while args and args[0] in ("-L", "-S", "-u"):
        args = args[1:] if args[0] == "-u" else args[2:]
    return args


def _split(args: list[str]) -> list[list[str]]:
    """Command lists: a ``;`` argument, or one ending in an unescaped ``;``, ends a command."""
    commands: list[list[str]] = [[]]
    for arg in args:
        if arg == ";":
            commands.append([])
        elif arg.endswith("\\;"):
            commands[-1].append(arg[:-2] + ";")
        elif arg.endswith(";"):
            commands[-1].append(arg[:-1])
            commands.append([])
        else:
            commands[-1].append(arg)
    return [command for command in commands if command]


def _flags(
    name: str, args: list[str], switches: str, with_values: str
) -> tuple[dict[str, str], list[str]]:
    """getopt-style flags (``-pg``, ``-t %1``); the rest after them or ``--``."""
    flags: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        letters = args[i][1:]
        for position, letter in enumerate(letters):
            if letter in switches:
                flags[letter] = ""
            elif letter in with_values:
                value = letters[position + 1 :]
                if not value:
                    i += 1
                    if i >= len(args):
                        raise GridmuxError(f"command {name}: -{letter} expects an argument")
                    value = args[i]
                flags[letter] = value
                break
            else:
                raise GridmuxError(f"command {name}: unknown flag -{letter}")
        i += 1
    return flags, args[i:]
