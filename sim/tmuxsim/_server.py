"""``SimServer``: one simulated tmux server — sessions, windows and panes
with tmux's ids, lifecycles and options.

Ids come from server-wide counters that only grow, starting at 0 (``$0``,
``@0``, ``%0``), like tmux's ``next_session_id``/``next_window_id``/
``next_window_pane_id``. A server stops when its last session goes
(``exit-empty``, default on); every later call raises NotFound.

Process exits that happen while the server runs one operation are handled
when the operation ends (``atomic``), as tmux handles a pane's exit in its
event loop only after the current command list: a ``new-session`` whose
command exits at once still reports the session it made.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

from gridmux.backend import (
    InvalidArgument,
    NotFound,
    SplitDirection,
    TmuxFailure,
    WindowDirection,
)

from . import _lifecycle as lifecycle
from ._clock import Clock, ManualClock
from ._controls import Controls
from ._format_vars import all_variables
from ._formats import expand
from ._layout import Layout
from ._model import SimPane, SimSession, SimWindow, check_name, check_size
from ._options import global_defaults, option_table
from ._processes import ProcessTable
from ._programs import ProgramFactory
from ._server_config import ServerConfig
from ._spawn import make_pane, split_size, start_program
from ._stores import Buffers, Channels, Environment
from ._versions import TmuxVersion


def default_socket_path(name: str) -> str:
    """Where tmux puts ``-L name``'s socket (TMUX_TMPDIR unset)."""
    return f"/tmp/tmux-{os.getuid()}/{name}"


class SimServer:
    """A tmux server. Structure and lifecycles are methods here; option,
    hook and environment commands are on ``config`` (``ServerConfig``);
    commands that rearrange or drive what exists are on ``controls``
    (``Controls``). Tests reach a pane with ``pane("%N")``.

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
        if isinstance(self.clock, ManualClock):
            self.clock.add_listener(self.tick)
        self.processes = processes if processes is not None else ProcessTable()
        self.pid = pid if pid is not None else self.processes.new_pid()
        self.socket_name = socket_name
        self.socket_path = socket_path or default_socket_path(socket_name or "default")
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
        self._next_session = 0
        self._next_window = 0
        self.next_pane_number = 0
        self._depth = 0
        self._exits: list[Callable[[], None]] = []
        self._ticking = False
        self._tick_again = False
        self.config = ServerConfig(self)
        self.controls = Controls(self)

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

    def check_alive(self) -> None:
        if not self.alive:
            raise NotFound(f"no server running on {self.socket_path}")

    def tick(self) -> None:
        """Let every program finish work that became due (the clock moved, a
        channel was signalled). A tick asked for while one runs (a program
        signalling a channel) makes the running one go round again."""
        if not self.alive:
            return
        if self._ticking:
            self._tick_again = True
            return
        self._ticking = True
        try:
            with self.atomic():
                self._tick_again = True
                while self._tick_again and self.alive:
                    self._tick_again = False
                    for pane in self.all_panes():
                        if not (pane.exited or pane.destroyed):
                            pane.program.tick()
        finally:
            self._ticking = False

    def next_deadline(self) -> float | None:
        deadlines = [
            d
            for pane in self.all_panes()
            if not pane.exited and (d := pane.program.next_deadline()) is not None
        ]
        return min(deadlines, default=None)

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
            window = _current(session)
        elif target.startswith("%"):
            pane = self.pane(target)
            return pane.window.session, pane.window, pane
        elif target.startswith("@"):
            window = self.window(target)
            session = window.session
        elif target.startswith("$"):
            session = self.session(target)
            window = _current(session)
        else:
            raise NotFound(f"can't find target: {target}")
        assert window.active is not None
        return session, window, window.active

    def expand_format(self, fmt: str, pane: SimPane, *, control: bool = False) -> str:
        """``fmt`` expanded for ``pane``, as a client (``control``: a control-mode
        one attached without ``new-layouts``) would see it."""
        return expand(fmt, all_variables(pane, control))

    # -- creating ----------------------------------------------------------------------
    def new_session(
        self,
        *,
        name: str | None = None,
        window_name: str | None = None,
        start_directory: str | None = None,
        width: int | None = None,
        height: int | None = None,
        environment: Mapping[str, str] | None = None,
        command: str | None = None,
    ) -> SimSession:
        self.check_alive()
        check_size("width", width)
        check_size("height", height)
        if name is not None:
            name = check_name("session", name)
            if any(s.name == name for s in self.sessions.values()):
                raise TmuxFailure(f"duplicate session: {name}")
            number = self._next_session
            self._next_session += 1
        else:
            # session.c: an unnamed session is named after its id, skipping taken names.
            taken = {s.name for s in self.sessions.values()}
            number = self._next_session
            while str(number) in taken:
                number += 1
            self._next_session = number + 1
            name = str(number)
        if self.version.honours_detached_size:
            default_size = self.session_options.get("default-size") or "80x24"
            dsx, _, dsy = default_size.partition("x")
            size = (width or int(dsx), height or int(dsy))
        else:
            size = (80, 23)  # tmux-grid.md §0: 3.2a ignores -x/-y for detached sessions
        with self.atomic():
            session = SimSession(
                self,
                number,
                name,
                created=int(self.clock.now()),
                size=size,
                cwd=start_directory or self.cwd,
            )
            for key, value in (environment or {}).items():
                session.environment.set(key, value)
            self.sessions[number] = session
            self._add_window(session, window_name, start_directory, command, None, select=True)
        return session

    def new_window(
        self,
        session_id: str,
        *,
        name: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
        select: bool = False,
        index: int | None = None,
        direction: WindowDirection | None = None,
    ) -> SimWindow:
        session = self.session(session_id)
        if index is not None and index in session.windows:
            raise TmuxFailure(f"index in use: {index}")
        if direction is not None:
            if direction not in ("before", "after") or index is not None:
                raise InvalidArgument(f"invalid window direction: {direction!r}")
            if name is not None:
                check_name("window", name)
            index = _shuffle_up(session, _current(session).index + (direction == "after"))
        with self.atomic():
            return self._add_window(
                session, name, start_directory, command, environment, select=select, index=index
            )

    def _add_window(
        self,
        session: SimSession,
        name: str | None,
        start_directory: str | None,
        command: str | None,
        environment: Mapping[str, str] | None,
        *,
        select: bool,
        index: int | None = None,
    ) -> SimWindow:
        sx, sy = session.size
        window = SimWindow(self, self._next_window, session, sx, sy)
        self._next_window += 1
        if index is None:
            index = session.free_index(int(session.option("base-index")))
        session.windows[index] = window
        if name is not None:
            window.fixed_name = check_name("window", name)
            window.options.set("automatic-rename", "off")
        if select or session.current is None:
            session.set_current(window)
        pane = make_pane(self, window, sx, sy, start_directory or session.cwd, environment)
        window.layout = Layout.single(pane.number, sx, sy)
        window.panes.append(pane)
        window.set_active(pane)
        start_program(self, pane, command)
        return window

    def split_window(
        self,
        pane_id: str,
        *,
        direction: SplitDirection = "below",
        size: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> SimPane:
        target = self.pane(pane_id)
        window = target.window
        vertical = direction in ("above", "below")
        before = direction in ("above", "left")
        _, _, tsx, tsy = window.layout.geometry()[target.number]  # its unzoomed cell
        cells = split_size(size, tsy if vertical else tsx)
        with self.atomic():
            window.zoomed = None  # split-window unzooms first
            window.layout.split(
                target.number, self.next_pane_number, vertical=vertical, before=before, size=cells
            )
            _, _, sx, sy = window.layout.geometry()[self.next_pane_number]
            pane = make_pane(
                self, window, sx, sy, start_directory or target.current_path, environment
            )
            position = window.panes.index(target) + (0 if before else 1)
            window.panes.insert(position, pane)
            # Like split-window -d (what the real backend runs): focus stays put.
            window.fit_panes()
            start_program(self, pane, command)
        return pane

    # -- process exit and respawn (_lifecycle) ------------------------------------------
    def pane_exited(self, pane: SimPane, status: int, signal: int | None = None) -> None:
        """Called by ``SimPane.exit``; handled now or at the end of the operation."""
        self._when_idle(lambda: lifecycle.exited(self, pane, status, signal))

    def pane_tty_closed(self, pane: SimPane) -> None:
        """Called by ``SimPane.close_tty``; handled now or at the end of the operation."""
        self._when_idle(lambda: lifecycle.tty_closed(self, pane))

    def _when_idle(self, event: Callable[[], None]) -> None:
        if self._depth > 0:
            self._exits.append(event)
        else:
            event()

    def respawn_pane(
        self,
        pane_id: str,
        *,
        kill: bool = True,
        command: str | None = None,
        start_directory: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> SimPane:
        return lifecycle.respawn(
            self,
            pane_id,
            kill=kill,
            command=command,
            start_directory=start_directory,
            environment=environment,
        )

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

    # -- wait-for ---------------------------------------------------------------------------
    def signal_channel(self, channel: str) -> None:
        """``wait-for -S``: waiters wake at once, so programs blocked on it run now."""
        self.check_alive()
        self.channels.signal(channel)
        self.tick()

    def wait_for(self, channel: str, timeout: float) -> bool:
        """Wait until ``channel`` is signalled, letting the clock (and due work) run."""
        self.check_alive()
        if timeout < 0:
            raise InvalidArgument(f"timeout must not be negative: {timeout}")
        token = self.channels.begin_wait(channel)
        if token is None:
            return True
        deadline = self.clock.now() + timeout
        while True:
            self.tick()
            if self.channels.woken(channel, token):
                return True
            now = self.clock.now()
            if now >= deadline or not self.alive:
                self.channels.abandon(channel)
                return False
            due = self.next_deadline()
            step_to = deadline if due is None or due <= now else min(due, deadline)
            self.clock.sleep(step_to - now)


def _number(text: str, prefix: str) -> int | None:
    if not text.startswith(prefix) or not text[1:].isdigit():
        return None
    return int(text[1:])


def _shuffle_up(session: SimSession, index: int) -> int:
    """Free ``index`` by moving the run of windows from it up one (winlink_shuffle_up)."""
    last = index
    while last in session.windows:
        last += 1
    for moving in range(last - 1, index - 1, -1):
        session.windows[moving + 1] = session.windows.pop(moving)
    return index


def _current(session: SimSession) -> SimWindow:
    assert session.current is not None
    return session.current
