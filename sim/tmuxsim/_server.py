"""``SimServer``: one simulated tmux server -- sessions, windows and panes
with tmux's ids, lifecycles and options.

The layers under it, in the order they depend on each other: the objects
(``_model``: sessions, windows, panes, and ``Host``, the server as they see
it), the state with its lookups and teardown (``_server_state``), the command
groups that work on that state (``_server_config``, ``_controls``,
``_spawn``, ``_lifecycle``) and the ``tmux`` client of a pane
(``_pane_client``). This module puts them together: creation, process
events, program ticks and wait-for. ``SimServer`` implements ``Host``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from gridmux.backend import (
    InvalidArgument,
    SplitDirection,
    TmuxFailure,
    WindowDirection,
)

from . import _lifecycle as lifecycle
from ._clock import Clock, ManualClock
from ._controls import Controls
from ._layout import Layout
from ._model import SimPane, SimSession, SimWindow, check_name, check_size
from ._pane_client import PaneClient
from ._processes import ProcessTable
from ._programs import ProgramFactory
from ._server_config import ServerConfig
from ._server_state import ServerState, current_window
from ._spawn import make_pane, split_size, start_program


class SimServer(ServerState):
    """A tmux server. State, lookups and teardown come from ``ServerState``;
    creation, process events and wait-for are methods here; option, hook and
    environment commands are on ``config`` (``ServerConfig``); commands that
    rearrange or drive what exists are on ``controls`` (``Controls``). Tests
    reach a pane with ``pane("%N")``.

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
        super().__init__(
            version,
            clock=clock,
            socket_name=socket_name,
            socket_path=socket_path,
            pid=pid,
            processes=processes,
            cwd=cwd,
            program_factory=program_factory,
        )
        if isinstance(self.clock, ManualClock):
            self.clock.add_listener(self.tick)
        self._ticking = False
        self._tick_again = False
        #: ``run-shell -d`` commands: (due time, pane, argv), in order of scheduling.
        self._timers: list[tuple[float, SimPane, list[str]]] = []
        self.config = ServerConfig(self)
        self.controls = Controls(self)

    # -- running state -------------------------------------------------------------
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
                    self._fire_timers()
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
        deadlines += [due for due, _, _ in self._timers]
        return min(deadlines, default=None)

    def schedule(self, delay: float, pane: SimPane, argv: list[str]) -> None:
        """``run-shell -d delay -C``: run the tmux command ``argv`` once ``delay`` has passed."""
        self._timers.append((self.clock.now() + max(delay, 0.0), pane, argv))
        self._tick_again = True

    def _fire_timers(self) -> None:
        now = self.clock.now()
        due = [timer for timer in self._timers if timer[0] <= now]
        self._timers = [timer for timer in self._timers if timer[0] > now]
        for _, pane, argv in due:
            if not pane.destroyed:
                self.tmux_client(pane, argv).run()  # a command that blocks is dropped
                self._tick_again = True

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
        if window_name is not None:  # refused before the session exists, as the real backend does
            check_name("window", window_name)
        if name is not None:
            name = check_name("session", name)
            if any(s.name == name for s in self.sessions.values()):
                raise TmuxFailure(f"duplicate session: {name}")
            number = self.next_session_number
            self.next_session_number += 1
        else:
            # session.c: an unnamed session is named after its id, skipping taken names.
            taken = {s.name for s in self.sessions.values()}
            number = self.next_session_number
            while str(number) in taken:
                number += 1
            self.next_session_number = number + 1
            name = str(number)
        if self.version.honours_detached_size:
            default_size = self.session_options.get("default-size") or "80x24"
            dsx, _, dsy = default_size.partition("x")
            size = (width or int(dsx), height or int(dsy))
        else:
            size = (80, 23)  # docs/tmux-model.md §19: 3.2a ignores -x/-y for detached sessions
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
            index = _shuffle_up(session, current_window(session).index + (direction == "after"))
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
        window = SimWindow(self, self.next_window_number, session, sx, sy)
        self.next_window_number += 1
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
        self.when_idle(lambda: lifecycle.exited(self, pane, status, signal))

    def pane_tty_closed(self, pane: SimPane) -> None:
        """Called by ``SimPane.close_tty``; handled now or at the end of the operation."""
        self.when_idle(lambda: lifecycle.tty_closed(self, pane))

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

    # -- clients -------------------------------------------------------------------------
    def tmux_client(self, pane: SimPane, args: Sequence[str]) -> PaneClient:
        """``tmux ARGS`` typed in ``pane`` (``SimPane.tmux``): a client of this server."""
        return PaneClient(pane, args, config=self.config, controls=self.controls)

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


def _shuffle_up(session: SimSession, index: int) -> int:
    """Free ``index`` by moving the run of windows from it up one (winlink_shuffle_up)."""
    last = index
    while last in session.windows:
        last += 1
    for moving in range(last - 1, index - 1, -1):
        session.windows[moving + 1] = session.windows.pop(moving)
    return index
