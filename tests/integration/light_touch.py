"""A user's tmux server as gridmux finds it, and what of it gridmux may change.

Support for ``test_light_touch_tmux.py``. :class:`UserTmux` sets up a private
server the way a user might have it: global hooks that count
``client-attached``, ``client-detached`` and ``session-closed`` (each in a
global user option), and a session ``d`` with ``destroy-unattached on`` that
a real client is attached to. That client is a ``tmux attach`` running in a
pane of a second private server (the "terminal"), so it has a tty and is
read continuously. :meth:`UserTmux.state` records what a user could see:
clients, ``session_attached``, options and hooks of every scope,
environments, buffers, ``pipe-pane`` state, and files.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

#: Each counted hook and the global user option it counts in.
COUNTERS = {
    "client-attached": "@attached",
    "client-detached": "@detached",
    "session-closed": "@closed",
}
#: The terminal the user's client runs in (a second private server).
TERMINAL = ("-x", "100", "-y", "30")
_MARK = "=== "


@dataclass(frozen=True)
class State:
    """What a user can see of a server, split by whose it is."""

    #: the user's clients (not control mode): pid and session
    user_clients: tuple[str, ...]
    #: control-mode clients (gridmux's): pid and session
    control_clients: tuple[str, ...]
    #: ``session_attached`` of each user session
    attached: tuple[str, ...]
    #: server, global session and global window options, global hooks and environment
    globals: tuple[str, ...]
    #: options (session, window, pane), environment of each user session
    user_sessions: tuple[str, ...]
    #: option lines of any scope that name gridmux (``@gridmux…``)
    gridmux_options: tuple[str, ...]
    buffers: frozenset[str]
    #: panes whose output is piped (``#{pane_pipe}``)
    pipes: frozenset[str]
    #: entries of the socket directory
    sockets: tuple[str, ...]
    #: files (not folders) under gridmux's temporary directory
    files: tuple[str, ...]


class UserTmux:
    """The user's server at ``socket`` (``tmux -S``), its terminal at ``terminal``."""

    def __init__(self, tmux_bin: str, socket: str, terminal: str, scratch: Path) -> None:
        self.tmux_bin = tmux_bin
        self.socket = socket
        self.terminal = terminal
        #: gridmux's TMPDIR: every file it makes goes below
        self.scratch = scratch
        self.user_sessions: tuple[str, ...] = ()

    def run(self, *args: str, socket: str | None = None) -> str:
        done = subprocess.run(
            [self.tmux_bin, "-u", "-S", socket or self.socket, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, f"tmux {' '.join(args)}: {done.stderr}"
        return done.stdout

    # -- the user's set-up -----------------------------------------------------------------

    def configure(self) -> None:
        """The user's global hooks, each adding one to its counter.

        Panes run ``sh`` as a plain shell, not a login shell: a login shell's
        profile resets ``PATH``, and ``tmux`` in a pane (run_command's
        signal) must be the release under test.
        """
        self.run("set-option", "-g", "default-command", "/bin/sh")
        for hook, counter in COUNTERS.items():
            self.run("set-option", "-g", counter, "0")
            self.run("set-hook", "-g", hook, f'set -gF {counter} "#{{e|+:#{{{counter}}},1}}"')

    def attach_user(self, session: str) -> None:
        """A real client on ``session``: ``tmux attach`` in a pane of the terminal server."""
        attach = f"env -u TMUX {self.tmux_bin} -S {self.socket} attach-session -t {session}"
        self.run("-f", os.devnull, "new-session", "-d", *TERMINAL, attach, socket=self.terminal)

    def user_clients(self) -> list[str]:
        return [c for c in self.clients() if c.split()[1] == "0"]

    def clients(self) -> list[str]:
        """``pid control_mode session`` of each client."""
        listed = self.run(
            "list-clients", "-F", "#{client_pid} #{client_control_mode} #{session_name}"
        )
        return sorted(listed.splitlines())

    def close_terminal(self) -> None:
        """The user closes the terminal their client runs in: the client goes away.

        Not ``detach-client``: on a ``destroy-unattached`` session that crashes
        the server now and then on tmux 3.2a, and on 3.3a with hooks on both
        ``client-detached`` and ``session-closed`` (without gridmux).
        """
        self.run("kill-server", socket=self.terminal)

    def counts(self) -> dict[str, int]:
        """How often each counted hook has run."""
        return {hook: int(self.run("show-options", "-gv", c)) for hook, c in COUNTERS.items()}

    def session_names(self) -> list[str]:
        return self.run("list-sessions", "-F", "#{session_name}").split()

    # -- what a user can see ---------------------------------------------------------------

    def state(self) -> State:
        clients = self.clients()
        sessions = self.run("list-sessions", "-F", "#{session_name} #{session_attached}")
        attached = tuple(
            line for line in sessions.splitlines() if line.split()[0] in self.user_sessions
        )
        counters = tuple(COUNTERS.values())
        globals_ = [
            line
            for line in self._dump(
                ["show-options", "-s"],
                ["show-options", "-g"],
                ["show-options", "-gw"],
                ["show-hooks", "-g"],
                ["show-environment", "-g"],
            )
            if not line.startswith(counters)
        ]
        panes = self.run("list-panes", "-a", "-F", "#{session_name} #{window_id} #{pane_id}")
        places = [line.split() for line in panes.splitlines()]
        every: list[list[str]] = []
        for session in sorted({p[0] for p in places}):
            every += [["show-options", "-t", session], ["show-environment", "-t", session]]
        for window in sorted({p[1] for p in places}):
            every.append(["show-options", "-w", "-t", window])
        for pane in sorted({p[2] for p in places}):
            every.append(["show-options", "-p", "-t", pane])
        dumped = self._dump(*every)
        user_targets = {p[0] for p in places if p[0] in self.user_sessions}
        user_targets |= {p[i] for p in places if p[0] in self.user_sessions for i in (1, 2)}
        user_sessions: list[str] = []
        target = ""
        for line in dumped:
            if line.startswith(_MARK):
                target = line.split()[-1]
            if target in user_targets:
                user_sessions.append(line)
        piped = self.run("list-panes", "-a", "-F", "#{pane_pipe} #{pane_id}").splitlines()
        socket_dir = Path(self.socket).parent
        return State(
            user_clients=tuple(c for c in clients if c.split()[1] == "0"),
            control_clients=tuple(c for c in clients if c.split()[1] == "1"),
            attached=attached,
            globals=tuple(globals_),
            user_sessions=tuple(user_sessions),
            gridmux_options=tuple(line for line in dumped if "gridmux" in line.split(" ")[0]),
            buffers=frozenset(self.run("list-buffers", "-F", "#{buffer_name}").split()),
            pipes=frozenset(line.split()[1] for line in piped if line.startswith("1 ")),
            sockets=tuple(sorted(entry.name for entry in socket_dir.iterdir())),
            files=tuple(
                sorted(
                    str(p.relative_to(self.scratch))
                    for p in self.scratch.rglob("*")
                    if not p.is_dir()
                )
            ),
        )

    def _dump(self, *commands: list[str]) -> list[str]:
        """The output of ``commands`` as one tmux list, each after a line naming it."""
        argv: list[str] = []
        for command in commands:
            argv += ["display-message", "-p", _MARK + " ".join(command), ";", *command, ";"]
        return self.run(*argv[:-1]).splitlines()


def waiters(socket: str, channels: Collection[str] | None = None) -> list[int]:
    """Pids of the ``tmux … -S socket … wait-for CHANNEL`` processes running now (Linux),
    of any channel or of ``channels``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:  # not a process, or gone meanwhile
            continue
        ours = len(argv) > 3 and argv[-3] == b"wait-for" and socket.encode() in argv
        if ours and (channels is None or argv[-2].decode() in channels):
            found.append(int(entry.name))
    return found


def zombies_of(socket: str) -> list[str]:
    """Unreaped children of the gridmux process serving ``socket`` (its ``stat`` lines)."""
    mine = f"GRIDMUX_SOCKET_PATH={socket}".encode()
    parents = set()
    stats = []
    for entry in Path("/proc").iterdir():
        try:
            if mine in (entry / "environ").read_bytes().split(b"\0"):
                parents.add(entry.name)
            stats.append((entry / "stat").read_text())
        except OSError:  # not a process, gone, or not ours
            continue
    # the state and the parent follow the command's closing parenthesis
    fields = [(stat, stat.rsplit(")", 1)[1].split()) for stat in stats]
    return [stat for stat, (state, ppid, *_) in fields if state == "Z" and ppid in parents]
