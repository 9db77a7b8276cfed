"""``ServerState``: what a simulated tmux server holds -- its sessions,
windows and panes, option tables, environment, buffers and wait-for
channels -- how targets are found in it, and how objects are removed from it.

Ids come from server-wide counters that only grow, starting at 0 (``$0``,
``@0``, ``%0``), like tmux's ``next_session_id``/``next_window_id``/
``next_window_pane_id``. A server stops when its last session goes
(``exit-empty``, default on); every later call raises NotFound.

Process exits that happen while the server runs one operation are handled
when the operation ends (``atomic``), as tmux handles a pane's exit in its
event loop only after the current command list: a ``new-session`` whose
command exits at once still reports the session it made.

This is the layer the server's command groups (``_controls``,
``_server_config``, ``_lifecycle``, ``_spawn``) work on; ``SimServer``
(``_server.py``) builds creation, process events and wait-for on top of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from gridmux.backend import NotFound, ServerRef, default_socket_path

from ._clock import Clock, ManualClock
from ._format_vars import all_variables
from ._formats import expand
from ._model import SimPane, SimSession, SimWindow
from ._options import global_defaults, option_table
from ._processes import ProcessTable
from ._programs import ProgramFactory
from ._stores import Buffers, Channels, Environment
from ._versions import TmuxVersion


def socket_of(ref: ServerRef) -> str:
    """Where tmux puts ``ref``'s socket on the simulated machine, which has
    neither ``TMUX_TMPDIR`` nor ``TMUX`` (tmux's rule: ``gridmux.backend``)."""
    return default_socket_path(ref, environ={})


class ServerState:
    """A tmux server's state, lookups and teardown (see the module docstring).

    ``program_factory`` replaces the default program (``SimShell`` named after
    ``default-shell``) for every pane; ``processes`` shares pids and ttys with
    other servers on the same simulated machine.
    """

    def __init__(
        self,
        version: str = "3.3a",
        *,
        clock: Clock | None = None,
        socket_name: str | None = "default",
        socket_path: str | None = None,
        pid: int | None = None,
        processes: ProcessTable | None = None,
        cwd: str = "/home/sim",
        program_factory: ProgramFactory | None = None,
    ) -> None:
        self.version = TmuxVersion.parse(version)
        self.clock: Clock = clock if clock is not None else ManualClock()
        self.processes = processes if processes is not None else ProcessTable()
        self.pid = pid if pid is not None else self.processes.new_pid()
        self.socket_name = socket_name
        self.socket_path = socket_path or socket_of(ServerRef(socket_name))
        self.cwd = cwd
        self.program_factory = program_factory
        self.start_time = int(self.clock.now())
        self.alive = True
        self.option_table = option_table(self.version)
        self.server_options = global_defaults(self.version, "server")
        self.session_options = global_defaults(self.version, "session")
        self.window_options = global_defaults(self.version, "window")
        self.environment = Environment(
            {"HOME": cwd, "PATH": "/usr/local/bin:/usr/bin:/bin", "SHELL": "/bin/sh"}
        )
        self.buffers = Buffers()
        self.channels = Channels()
        self.sessions: dict[int, SimSession] = {}
        self.next_session_number = 0
        self.next_window_number = 0
        self.next_pane_number = 0
        self._depth = 0
        self._exits: list[Callable[[], None]] = []

    # -- running state -------------------------------------------------------------
    @contextmanager
    def atomic(self) -> Iterator[None]:
        """Run several operations as one tmux command list: exits wait until the end."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            if self._depth == 0:
                while self._exits:
                    self._exits.pop(0)()

    def when_idle(self, event: Callable[[], None]) -> None:
        """Run ``event`` now, or at the end of the running operation (``atomic``)."""
        if self._depth > 0:
            self._exits.append(event)
        else:
            event()

    def check_alive(self) -> None:
        if not self.alive:
            raise NotFound(f"no server running on {self.socket_path}")

    # -- lookups ---------------------------------------------------------------------
    def ordered_sessions(self) -> list[SimSession]:
        """tmux keeps sessions in a tree sorted by name."""
        return sorted(self.sessions.values(), key=lambda s: s.name)

    def all_windows(self) -> list[SimWindow]:
        return [w for s in self.ordered_sessions() for w in s.ordered_windows()]

    def all_panes(self) -> list[SimPane]:
        return [p for w in self.all_windows() for p in w.panes]

    def session(self, session_id: str) -> SimSession:
        self.check_alive()
        number = _number(session_id, "$")
        if number is None or number not in self.sessions:
            raise NotFound(f"can't find session: {session_id}")
        return self.sessions[number]

    def window(self, window_id: str) -> SimWindow:
        self.check_alive()
        number = _number(window_id, "@")
        for window in self.all_windows():
            if window.number == number:
                return window
        raise NotFound(f"can't find window: {window_id}")

    def pane(self, pane_id: str) -> SimPane:
        self.check_alive()
        number = _number(pane_id, "%")
        for pane in self.all_panes():
            if pane.number == number:
                return pane
        raise NotFound(f"can't find pane: {pane_id}")

    def resolve(self, target: str | None) -> tuple[SimSession, SimWindow, SimPane]:
        """A session, window or pane id (None: the newest session), as tmux's
        cmd-find fills in the rest: a session's current window, a window's
        active pane."""
        self.check_alive()
        if target is None:
            if not self.sessions:
                raise NotFound("no current session")
            session = self.sessions[max(self.sessions)]
            window = current_window(session)
        elif target.startswith("%"):
            pane = self.pane(target)
            return pane.window.session, pane.window, pane
        elif target.startswith("@"):
            window = self.window(target)
            session = window.session
        elif target.startswith("$"):
            session = self.session(target)
            window = current_window(session)
        else:
            raise NotFound(f"can't find target: {target}")
        assert window.active is not None
        return session, window, window.active

    def expand_format(self, fmt: str, pane: SimPane, *, control: bool = False) -> str:
        """``fmt`` expanded for ``pane``, as a client (``control``: a control-mode
        one attached without ``new-layouts``) would see it."""
        variables = all_variables(pane, control)
        # User options, as format_find looks them up: the pane's (falling through
        # to its window's and the global window table), then the session's.
        for name in re.findall(r"#\{(@[^}:,]+)\}", fmt):
            value = pane.options.get(name)
            if value is None:
                value = pane.window.session.options.get(name)
            if value is not None:
                variables[name] = value
        return expand(fmt, variables)

    # -- destroying ------------------------------------------------------------------------
    def destroy_pane(self, pane: SimPane) -> None:
        """kill-pane, or exit with remain-on-exit off: the window closes with its last pane."""
        window = pane.window
        pane.destroyed = True
        pane.program.stop()
        window.zoomed = None
        if len(window.panes) == 1:
            window.panes.clear()
            self.destroy_window(window)
            return
        window.layout.remove(pane.number)
        position = window.panes.index(pane)
        window.panes.remove(pane)
        window.last_panes = [p for p in window.last_panes if p is not pane]
        if window.active is pane:
            # window_lost_pane: the last active pane, else the previous, else the next.
            window.active = None
            fallback = window.panes[max(0, position - 1)]
            window.set_active(window.last_panes[0] if window.last_panes else fallback)
        window.fit_panes()

    def destroy_window(self, window: SimWindow) -> None:
        session = window.session
        for pane in window.panes:
            pane.destroyed = True
            pane.program.stop()
        index = window.index
        del session.windows[index]
        session.last_windows = [w for w in session.last_windows if w is not window]
        if not session.windows:
            self.destroy_session(session)
            return
        if session.current is window:
            session.current = None
            ordered = sorted(session.windows)
            previous = [i for i in ordered if i < index]
            fallback = session.windows[previous[-1] if previous else ordered[0]]
            session.set_current(session.last_windows[0] if session.last_windows else fallback)
        if session.option("renumber-windows") == "on":
            base = int(session.option("base-index"))
            windows = session.ordered_windows()
            session.windows = {base + i: w for i, w in enumerate(windows)}

    def destroy_session(self, session: SimSession) -> None:
        for window in list(session.windows.values()):
            for pane in window.panes:
                pane.destroyed = True
                pane.program.stop()
        self.sessions.pop(session.number, None)
        if not self.sessions and self.server_options.get("exit-empty") == "on":
            self.alive = False

    def kill(self) -> None:
        """kill-server."""
        self.check_alive()
        for session in list(self.sessions.values()):
            self.destroy_session(session)
        self.alive = False


def current_window(session: SimSession) -> SimWindow:
    """The session's current window (a live session always has one)."""
    assert session.current is not None
    return session.current


def _number(text: str, prefix: str) -> int | None:
    if not text.startswith(prefix) or not text[1:].isdigit():
        return None
    return int(text[1:])
