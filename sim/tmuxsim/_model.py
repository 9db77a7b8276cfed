"""The objects a SimServer is made of: sessions, windows and panes.

They hold state and answer questions about themselves; changes that touch
more than one object (creating, killing, moving, process exit) are the
server's job (``_server_state.py``, ``_server.py``). They reach their server
only through ``Host``, the few things they (and the modules that read them)
need of it; ``SimServer`` implements it. This module therefore depends on no
part of the server, and every part of the server may depend on it.
"""

from __future__ import annotations

import posixpath
from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING, Protocol

from gridmux.backend import InvalidArgument

from ._keys import keys_to_bytes
from ._layout import Layout
from ._options import Options
from ._processes import HOST
from ._programs import IdleProgram, Program, TmuxClient
from ._stores import Environment
from ._terminal import Terminal

if TYPE_CHECKING:
    from ._clock import Clock
    from ._stores import Channels
    from ._versions import TmuxVersion


class Host(Protocol):
    """The server as its sessions, windows and panes see it."""

    @property
    def version(self) -> TmuxVersion: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def pid(self) -> int: ...

    @property
    def socket_path(self) -> str: ...

    @property
    def start_time(self) -> int: ...

    @property
    def alive(self) -> bool: ...

    @property
    def channels(self) -> Channels:
        """wait-for channels (a pane's ``tmux wait-for`` blocks on them)."""
        ...

    @property
    def session_options(self) -> Options:
        """The global session options, parent of every session's."""
        ...

    @property
    def window_options(self) -> Options:
        """The global window options, parent of every window's."""
        ...

    def pane_exited(self, pane: SimPane, status: int, signal: int | None = None) -> None:
        """``pane``'s program ended (handled at the end of the running operation)."""
        ...

    def pane_tty_closed(self, pane: SimPane) -> None:
        """``pane``'s program closed its tty (handled at the end of the running operation)."""
        ...

    def signal_channel(self, channel: str) -> None:
        """``wait-for -S channel``."""
        ...

    def resolve(self, target: str | None) -> tuple[SimSession, SimWindow, SimPane]:
        """A target as tmux's cmd-find completes it (see ``ServerState.resolve``)."""
        ...

    def expand_format(self, fmt: str, pane: SimPane, *, control: bool = False) -> str:
        """``fmt`` expanded for ``pane``."""
        ...

    def tmux_client(self, pane: SimPane, args: Sequence[str]) -> TmuxClient:
        """``tmux ARGS`` run from ``pane``, a client of this server."""
        ...

    def schedule(self, delay: float, pane: SimPane, argv: list[str]) -> None:
        """``run-shell -d delay -C``: the tmux command ``argv`` once ``delay`` has passed."""
        ...


_MAX_SIZE = 65535  # new-session -x/-y and resize bounds (USHRT_MAX)


def check_size(what: str, value: int | None) -> None:
    if value is not None and not 1 <= value <= _MAX_SIZE:
        raise InvalidArgument(f"{what} {'too small' if value < 1 else 'too large'}: {value}")


def check_name(kind: str, name: str) -> str:
    """A usable session or window name; InvalidArgument if empty."""
    if not name:
        raise InvalidArgument(f"invalid {kind} name: empty")
    # tmux replaces the target separators so the name stays addressable.
    return name.replace(":", "_").replace(".", "_")


class SimPane:
    """One pane: a Terminal (the grid) plus the program running on its tty.

    Test API: ``terminal`` (read the grid), ``write``/``write_raw`` (output as
    the program would produce it), ``input`` (keys into the program),
    ``exit`` (end the program).
    """

    def __init__(
        self,
        server: Host,
        number: int,
        window: SimWindow,
        terminal: Terminal,
        *,
        tty: str,
        current_path: str,
        start_command: str | None,
        environment: dict[str, str],
    ) -> None:
        self.server = server
        self.number = number
        self.window = window
        self.terminal = terminal
        self.options = Options(window.options)
        self.tty = tty
        self._current_path = current_path
        self.start_command = start_command
        self._environment = environment
        self.pid = 0
        self.program: Program = IdleProgram(self)
        # docs/tmux-model.md §13 (_lifecycle): the pty closed (wp->fd == -1), the exit
        # status reaped (PANE_STATUSREADY), what it was, and when the dead-pane
        # message was drawn (PANE_STATUSDRAWN).
        self.tty_closed = False
        self.exited = False
        self.dead_status: int | None = None
        self.dead_signal: int | None = None
        self.dead_time: int | None = None
        self.destroyed = False
        self.title = HOST  # tmux titles a new pane with the host name
        self.mode: str | None = None
        self.scroll_position = 0
        self.pipe_command: str | None = None
        self.pipe_path: str | None = None

    # -- PaneIO ----------------------------------------------------------------
    @property
    def pane_id(self) -> str:
        return f"%{self.number}"

    @property
    def environment(self) -> MutableMapping[str, str]:
        return self._environment

    @property
    def current_path(self) -> str:
        return self._current_path

    @current_path.setter
    def current_path(self, path: str) -> None:
        self._current_path = path

    def write(self, data: bytes) -> None:
        """Program output through the tty: ONLCR turns ``\\n`` into ``\\r\\n``."""
        self.write_raw(data.replace(b"\n", b"\r\n"))

    def write_raw(self, data: bytes) -> None:
        """Bytes exactly as the terminal receives them. Ignored once the pty is closed."""
        if self.tty_closed or self.destroyed:
            return
        self.terminal.feed(data)
        if self.pipe_path is not None:
            # pipe-pane copies what tmux reads from the pty.
            with open(self.pipe_path, "ab") as sink:
                sink.write(data)

    def exit(self, status: int = 0, *, signal: int | None = None) -> None:
        """The program exits with ``status`` (or dies of ``signal``); its tty
        closes with it and remain-on-exit decides what follows."""
        if not (self.exited or self.destroyed):
            self.server.pane_exited(self, status, signal)

    def close_tty(self) -> None:
        """The program closes its tty but goes on running (§13)."""
        if not (self.tty_closed or self.destroyed):
            self.server.pane_tty_closed(self)

    def now(self) -> float:
        return self.server.clock.now()

    def signal_channel(self, channel: str) -> None:
        self.server.signal_channel(channel)

    def tmux(self, args: Sequence[str]) -> TmuxClient:
        return self.server.tmux_client(self, args)

    # -- input -----------------------------------------------------------------
    def input(self, data: bytes) -> None:
        """Bytes typed into the pane. A closed pty has no reader: they are dropped."""
        if not (self.tty_closed or self.destroyed):
            self.program.receive(data)

    def send_keys(self, keys: str, *, literal: bool = False) -> None:
        """One ``send-keys`` argument (a key name unless ``literal``)."""
        self.input(keys_to_bytes(keys, literal=literal))

    # -- questions -------------------------------------------------------------
    @property
    def dead(self) -> bool:
        """``pane_dead``: the pty is closed (and, 3.7+, the status reaped)."""
        if not self.tty_closed:
            return False
        return self.exited or not self.server.version.pane_dead_waits_for_status

    @property
    def current_command(self) -> str:
        if not self.tty_closed:
            return self.program.command_name
        # format.c falls back to the start command, else the shell, and names
        # it as a window would be (names.c:parse_window_name: first word, basename).
        command = self.start_command or self.window.session.option("default-shell")
        first = command.strip().removeprefix("exec ").lstrip(" -").split(" ")[0]
        return posixpath.basename(first)

    @property
    def in_mode(self) -> bool:
        return self.mode is not None

    @property
    def active(self) -> bool:
        return self.window.active is self

    @property
    def index(self) -> int:
        base = int(self.window.option("pane-base-index"))
        return base + self.window.panes.index(self)

    def geometry(self) -> tuple[int, int, int, int]:
        """(xoff, yoff, sx, sy); a zoomed pane covers the window."""
        if self.window.zoomed is self:
            return 0, 0, self.window.sx, self.window.sy
        return self.window.layout.geometry()[self.number]

    def option(self, name: str) -> str:
        return self.options.get(name) or ""


class SimWindow:
    def __init__(self, server: Host, number: int, session: SimSession, sx: int, sy: int) -> None:
        self.server = server
        self.number = number
        self.session = session
        self.options = Options(server.window_options)
        self.sx = sx
        self.sy = sy
        self.panes: list[SimPane] = []
        self.active: SimPane | None = None
        self.last_panes: list[SimPane] = []  # most recent first
        self.layout = Layout.single(-1, sx, sy)
        self.zoomed: SimPane | None = None
        self.fixed_name = ""

    @property
    def window_id(self) -> str:
        return f"@{self.number}"

    @property
    def name(self) -> str:
        # automatic-rename names the window after the active pane's command.
        if self.option("automatic-rename") == "on" and self.active is not None:
            return self.active.current_command or self.fixed_name
        return self.fixed_name

    @property
    def index(self) -> int:
        for index, window in self.session.windows.items():
            if window is self:
                return index
        raise LookupError(self.window_id)

    def option(self, name: str) -> str:
        return self.options.get(name) or ""

    def set_active(self, pane: SimPane) -> None:
        if self.active is pane:
            return
        if self.active is not None:
            self.last_panes = [self.active] + [p for p in self.last_panes if p is not self.active]
        self.last_panes = [p for p in self.last_panes if p is not pane]
        self.active = pane

    def fit_panes(self) -> None:
        """Resize each pane's grid to its cell (or the window, when zoomed)."""
        for pane in self.panes:
            _, _, sx, sy = pane.geometry()
            if (pane.terminal.width, pane.terminal.height) != (sx, sy):
                pane.terminal.resize(sx, sy)


class SimSession:
    def __init__(
        self,
        server: Host,
        number: int,
        name: str,
        *,
        created: int,
        size: tuple[int, int],
        cwd: str,
    ) -> None:
        self.server = server
        self.number = number
        self.name = name
        self.created = created
        self.size = size
        self.cwd = cwd
        self.options = Options(server.session_options)
        self.environment = Environment()
        self.windows: dict[int, SimWindow] = {}
        self.current: SimWindow | None = None
        self.last_windows: list[SimWindow] = []  # most recent first

    @property
    def session_id(self) -> str:
        return f"${self.number}"

    def option(self, name: str) -> str:
        return self.options.get(name) or ""

    def ordered_windows(self) -> list[SimWindow]:
        return [self.windows[index] for index in sorted(self.windows)]

    def free_index(self, start: int) -> int:
        index = start
        while index in self.windows:
            index += 1
        return index

    def set_current(self, window: SimWindow) -> None:
        if self.current is window:
            return
        if self.current is not None:
            self.last_windows = [self.current] + [
                w for w in self.last_windows if w is not self.current
            ]
        self.last_windows = [w for w in self.last_windows if w is not window]
        self.current = window

    @property
    def active_pane(self) -> SimPane | None:
        return None if self.current is None else self.current.active
