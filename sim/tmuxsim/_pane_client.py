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
``-p -w -s -g -u -q -t``, ``set-buffer``/``setb`` with ``-b``, and
``capture-pane -p`` and ``display-message -p`` (``_commands``), ``if-shell -F``
(its command runs next, in this list) and ``run-shell -C [-d delay]`` (its
format-expanded command runs on the server's clock, ``SimServer.schedule``). Flags are
those of the server's tmux version. A target defaults to the calling pane,
as tmux finds it from the client's tty.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridmux.backend import GridmuxError, OptionScope

from . import _commands as commands

if TYPE_CHECKING:
    from ._controls import Controls
    from ._model import SimPane
    from ._server_config import ServerConfig


class PaneClient:
    """One ``tmux`` invocation from a pane; ``run`` it until it is ``done``.

    The server makes it (``SimServer.tmux_client``) and hands it the command
    groups it runs commands on; everything else it reaches through the pane.
    """

    def __init__(
        self, pane: SimPane, args: Sequence[str], *, config: ServerConfig, controls: Controls
    ) -> None:
        self._pane = pane
        self._config = config
        self._controls = controls
        self.output = ""
        self.status = 0
        self.done = False
        self._waiting: tuple[str, int] | None = None
        self._commands: list[commands.Command] = []
        try:
            version = pane.server.version
            argvs = commands.split(commands.global_options(list(args)))
            self._commands = [commands.parse(argv, version) for argv in argvs]
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

    def _command(self, command: commands.Command) -> bool:
        name, flags, rest = command
        if name == "wait-for":
            return self._wait_for(flags, rest[0])
        if name == "if-shell":
            pane = self._target(flags)
            condition = pane.server.expand_format(rest[0], pane)
            branches = [*rest[1:], ""]
            text = branches[0] if condition not in ("", "0") else branches[1]
            version = pane.server.version
            parsed = [commands.parse(a, version) for a in commands.split(shlex.split(text))]
            self._commands[:0] = parsed
            return False
        if name == "run-shell":
            pane = self._target(flags)
            text = pane.server.expand_format(rest[0], pane)  # run-shell expands its argument
            pane.server.schedule(float(flags.get("d") or 0), pane, shlex.split(text))
            return False
        if name == "set-option":
            self._set_option(flags, rest)
        elif name == "capture-pane":
            self.output += commands.capture_pane(self._pane, flags)
        elif name == "display-message":
            self.output += commands.display_message(self._pane, flags, rest)
        else:
            self._controls.set_buffer(rest[0], flags.get("b"))
        return False

    def _target(self, flags: dict[str, str]) -> SimPane:
        target = flags.get("t")
        if not target:
            return self._pane
        _, _, pane = self._pane.server.resolve(target)
        return pane

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
        config = self._config
        global_ = "g" in flags
        if "u" in flags:
            config.unset_option(rest[0], scope=scope, target=target, global_=global_)
        else:
            config.set_option(rest[0], rest[1], scope=scope, target=target, global_=global_)
