"""``SimBackend``: the ``TmuxBackend`` protocol over simulated tmux servers.

Servers are keyed by socket path, resolved from a ``ServerRef`` as tmux does
(a path wins over a name; no name means ``default``). ``new_session`` starts
a server that is not running; every other call on one raises NotFound (``no
server running on …``), except ``server_info`` (``is_alive`` False) and
``list_sessions`` (empty), as the protocol specifies.

Calls are serialised on a lock (tools call from worker threads). Calls that
start or drive programs run inside ``SimServer.atomic``, the simulator's
version of one tmux command list: nothing a program does in reaction
(exiting, say) is handled until the call's values have been read, so
``snapshot`` is consistent and ``new_session`` reports the session it made.
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from gridmux.backend import (
    BufferInfo,
    HookEntry,
    InvalidArgument,
    NotFound,
    OptionScope,
    PaneDirection,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    RowBound,
    ServerInfo,
    ServerRef,
    SessionInfo,
    SplitDirection,
    WindowDirection,
    WindowInfo,
    resolve_row_range,
)

from ._clock import Clock, ManualClock
from ._processes import ProcessTable
from ._server import SimServer
from ._server_state import socket_of
from ._values import pane_info, session_info, window_info
from ._values import pane_state as pane_state_value

_CAPTURE_MAX = 32767  # docs/tmux-model.md §14: larger -S/-E values count as unparsable
_CAPTURE_MIN = -(2**31)


_SWAP_NAME = re.compile(r"@[A-Za-z0-9_-]{1,64}")
_SWAP_VALUE = re.compile(r"[A-Za-z0-9._-]{0,128}")


def _socket_name(ref: ServerRef) -> str | None:
    if ref.socket_path is not None:
        return ref.socket_name
    return ref.socket_name or "default"


def _bound(value: RowBound, which: str) -> RowBound:
    if value is None or value == "-":
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"{which} must be a row number, '-' or None, not {value!r}")
    if not _CAPTURE_MIN <= value <= _CAPTURE_MAX:
        return None
    return value


_T = TypeVar("_T")


def _one_call_at_a_time(cls: type[_T]) -> type[_T]:
    """Serialise every public method on the instance's lock.

    The MCP layer runs backend calls in worker threads; a tmux server handles
    one command list at a time, and so does the simulator.
    """

    def locked(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            with self._lock:
                return method(self, *args, **kwargs)

        return call

    for name, attribute in list(vars(cls).items()):
        if not name.startswith("_") and callable(attribute):
            setattr(cls, name, locked(attribute))
    return cls


@_one_call_at_a_time
class SimBackend:
    def __init__(
        self,
        servers: Mapping[ServerRef, SimServer] | None = None,
        *,
        version: str = "3.3a",
        clock: Clock | None = None,
    ) -> None:
        self.version = version
        self.clock: Clock = clock if clock is not None else ManualClock()
        self.processes = ProcessTable()
        self._lock = threading.RLock()
        self._servers: dict[str, SimServer] = {}
        for ref, server in (servers or {}).items():
            server.socket_name, server.socket_path = _socket_name(ref), socket_of(ref)
            self._servers[socket_of(ref)] = server

    # -- test hooks ----------------------------------------------------------------
    def server(self, ref: ServerRef | None = None) -> SimServer:
        """The running SimServer behind ``ref`` (for tests that drive panes directly)."""
        ref = ref or ServerRef()
        server = self._servers.get(socket_of(ref))
        if server is None or not server.alive:
            raise NotFound(f"no server running on {socket_of(ref)}")
        return server

    def _start_server(self, ref: ServerRef) -> SimServer:
        server = SimServer(
            self.version,
            clock=self.clock,
            socket_name=_socket_name(ref),
            socket_path=socket_of(ref),
            processes=self.processes,
        )
        self._servers[socket_of(ref)] = server
        return server

    # -- discovery --------------------------------------------------------------------
    def server_info(self, server: ServerRef) -> ServerInfo:
        sim = self._servers.get(socket_of(server))
        alive = sim is not None and sim.alive
        return ServerInfo(
            socket_name=_socket_name(server),
            socket_path=socket_of(server),
            is_alive=alive,
            pid=sim.pid if sim is not None and alive else None,
            version=str(sim.version) if sim is not None else self.version,
            session_count=len(sim.sessions) if sim is not None and alive else 0,
        )

    def list_sessions(self, server: ServerRef) -> list[SessionInfo]:
        sim = self._servers.get(socket_of(server))
        if sim is None or not sim.alive:
            return []
        return [session_info(s) for s in sim.ordered_sessions()]

    def list_windows(self, server: ServerRef, session_id: str | None = None) -> list[WindowInfo]:
        sim = self.server(server)
        if session_id is None:
            return [window_info(w) for w in sim.all_windows()]
        return [window_info(w) for w in sim.session(session_id).ordered_windows()]

    def list_panes(
        self,
        server: ServerRef,
        *,
        session_id: str | None = None,
        window_id: str | None = None,
        pane_id: str | None = None,
    ) -> list[PaneInfo]:
        sim = self.server(server)
        if window_id is not None:
            window = sim.window(window_id)
            if session_id is not None and window.session is not sim.session(session_id):
                raise NotFound(f"can't find window: {window_id} in session {session_id}")
            panes = list(window.panes)
        elif session_id is not None:
            panes = [p for w in sim.session(session_id).ordered_windows() for p in w.panes]
        else:
            panes = sim.all_panes()
        return [pane_info(p) for p in panes if pane_id is None or p.pane_id == pane_id]

    # -- reads ----------------------------------------------------------------------------
    def pane_state(self, server: ServerRef, pane_id: str) -> PaneState:
        return pane_state_value(self.server(server).pane(pane_id))

    def exit_state(self, server: ServerRef, pane_id: str, grace: float = 1.0) -> PaneState:
        return self.pane_state(server, pane_id)  # the simulated server reaps at once

    def snapshot(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
        untrimmed_start: int | None = None,
        samples: Sequence[int] = (),
    ) -> PaneSnapshot:
        start, end = _bound(start, "start"), _bound(end, "end")
        sim = self.server(server)
        with sim.atomic():
            pane = sim.pane(pane_id)
            state = pane_state_value(pane)
            rows = pane.terminal.capture(start, end, join=join_wrapped)
            if join_wrapped:  # as the real backend does (trim_joined)
                rows = [row.rstrip(" ") for row in rows]
            top, _ = resolve_row_range(state.history_size, state.height, start, end)
            untrimmed_top = 0
            untrimmed: tuple[str, ...] = ()
            if untrimmed_start is not None:
                ustart = _bound(untrimmed_start, "untrimmed_start")
                untrimmed = tuple(pane.terminal.capture(ustart, None, keep_trailing=True))
                untrimmed_top, _ = resolve_row_range(state.history_size, state.height, ustart, None)
            sampled: list[tuple[int, str]] = []
            for row in samples:
                bound = _bound(row, "samples")
                (text,) = pane.terminal.capture(bound, bound)
                index, _ = resolve_row_range(state.history_size, state.height, bound, bound)
                sampled.append((index, text))
        return PaneSnapshot(state, top, tuple(rows), untrimmed_top, untrimmed, tuple(sampled))

    def foreground_process_group(self, server: ServerRef, pane_id: str) -> int | None:
        # The simulated shell runs no process groups: its jobs show only as
        # ``pane_current_command``, which is what run_command's guard reads here.
        self.server(server).resolve(pane_id)
        return None

    def pane_snapshot(
        self, server: ServerRef, pane_id: str, *, start: RowBound = None, end: RowBound = None
    ) -> tuple[PaneInfo, PaneSnapshot]:
        sim = self.server(server)
        with sim.atomic():
            snap = self.snapshot(server, pane_id, start=start, end=end)
            return pane_info(sim.pane(pane_id)), snap

    def snapshots(
        self,
        server: ServerRef,
        pane_ids: Sequence[str],
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> dict[str, PaneSnapshot]:
        found: dict[str, PaneSnapshot] = {}
        for pane_id in pane_ids:
            with contextlib.suppress(NotFound):
                found[pane_id] = self.snapshot(
                    server, pane_id, start=start, end=end, join_wrapped=join_wrapped
                )
        return found

    def scan_panes(
        self,
        server: ServerRef,
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> list[tuple[PaneInfo, PaneSnapshot]]:
        return [
            (
                pane,
                self.snapshot(
                    server, pane.pane_id, start=start, end=end, join_wrapped=join_wrapped
                ),
            )
            for pane in self.list_panes(server)
        ]

    def display_message(self, server: ServerRef, target: str, fmt: str) -> str:
        # tmux itself prints an empty expansion for a pane that is gone
        # (§13); the protocol asks for NotFound, which resolve raises.
        sim = self.server(server)
        _, _, pane = sim.resolve(target)
        return sim.expand_format(fmt, pane)

    def show_options(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> dict[str, str]:
        return self.server(server).config.show_options(scope=scope, target=target, global_=global_)

    def show_environment(
        self, server: ServerRef, session_id: str | None = None
    ) -> dict[str, str | None]:
        return self.server(server).config.show_environment(session_id)

    def list_buffers(self, server: ServerRef) -> list[BufferInfo]:
        return [
            BufferInfo(name=b.name, size=len(b.data.encode()), created=b.created)
            for b in self.server(server).buffers.newest_first()
        ]

    def show_buffer(self, server: ServerRef, name: str) -> str:
        return self.server(server).buffers.get(name).data

    def show_hooks(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> list[HookEntry]:
        entries = self.server(server).config.show_hooks(scope=scope, target=target, global_=global_)
        return [HookEntry(hook_name=n, index=i, command=c) for n, i, c in entries]

    # -- sessions, windows, panes ---------------------------------------------------------
    def new_session(
        self,
        server: ServerRef,
        *,
        name: str | None = None,
        window_name: str | None = None,
        start_directory: str | None = None,
        width: int | None = None,
        height: int | None = None,
        environment: Mapping[str, str] | None = None,
        command: str | None = None,
    ) -> SessionInfo:
        sim = self._servers.get(socket_of(server))
        if sim is None or not sim.alive:
            sim = self._start_server(server)
        try:
            with sim.atomic():
                session = sim.new_session(
                    name=name,
                    window_name=window_name,
                    start_directory=start_directory,
                    width=width,
                    height=height,
                    environment=environment,
                    command=command,
                )
                if not sim.version.honours_detached_size and (width or height):
                    # What the real backend does on 3.2a, which ignores -x/-y here.
                    for window in session.windows.values():
                        sim.controls.resize_window(window.window_id, width=width, height=height)
                return session_info(session)
        finally:
            if not sim.sessions and sim.server_options.get("exit-empty") == "on":
                sim.alive = False  # e.g. a server started for a refused new-session exits

    def new_window(
        self,
        server: ServerRef,
        session_id: str,
        *,
        name: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
        select: bool = False,
        direction: WindowDirection | None = None,
    ) -> WindowInfo:
        sim = self.server(server)
        with sim.atomic():
            window = sim.new_window(
                session_id,
                name=name,
                start_directory=start_directory,
                command=command,
                environment=environment,
                select=select,
                direction=direction,
            )
            return window_info(window)

    def split_window(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        direction: SplitDirection = "below",
        size: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> PaneInfo:
        sim = self.server(server)
        with sim.atomic():
            pane = sim.split_window(
                pane_id,
                direction=direction,
                size=size,
                start_directory=start_directory,
                command=command,
                environment=environment,
            )
            return pane_info(pane)

    def rename_session(self, server: ServerRef, session_id: str, new_name: str) -> None:
        self.server(server).controls.rename_session(session_id, new_name)

    def rename_window(self, server: ServerRef, window_id: str, new_name: str) -> None:
        self.server(server).controls.rename_window(window_id, new_name)

    def select_window(self, server: ServerRef, window_id: str) -> None:
        self.server(server).controls.select_window(window_id)

    def select_pane(
        self, server: ServerRef, pane_id: str, *, direction: PaneDirection | None = None
    ) -> None:
        self.server(server).controls.select_pane(pane_id, direction=direction)

    def set_pane_title(self, server: ServerRef, pane_id: str, title: str) -> None:
        self.server(server).controls.set_pane_title(pane_id, title)

    def select_layout(self, server: ServerRef, window_id: str, layout: str) -> None:
        self.server(server).controls.select_layout(window_id, layout)

    def resize_pane(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
        zoom: bool | None = None,
    ) -> None:
        self.server(server).controls.resize_pane(pane_id, width=width, height=height, zoom=zoom)

    def resize_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
    ) -> None:
        self.server(server).controls.resize_window(window_id, width=width, height=height)

    def move_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        destination_session_id: str | None = None,
        destination_index: int | None = None,
    ) -> None:
        self.server(server).controls.move_window(
            window_id,
            destination_session_id=destination_session_id,
            destination_index=destination_index,
        )

    def swap_pane(self, server: ServerRef, source_pane_id: str, target_pane_id: str) -> None:
        self.server(server).controls.swap_pane(source_pane_id, target_pane_id)

    def respawn_pane(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        kill: bool = True,
        command: str | None = None,
        start_directory: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.server(server).respawn_pane(
            pane_id,
            kill=kill,
            command=command,
            start_directory=start_directory,
            environment=environment,
        )

    def kill_pane(self, server: ServerRef, pane_id: str) -> None:
        self.server(server).controls.kill_pane(pane_id)

    def kill_window(self, server: ServerRef, window_id: str) -> None:
        self.server(server).controls.kill_window(window_id)

    def kill_session(self, server: ServerRef, session_id: str) -> None:
        self.server(server).controls.kill_session(session_id)

    def kill_server(self, server: ServerRef) -> None:
        self.server(server).kill()

    # -- input and content -------------------------------------------------------------
    def send_keys(
        self,
        server: ServerRef,
        pane_id: str,
        keys: str,
        *,
        literal: bool = False,
        enter: bool = False,
    ) -> None:
        self.server(server).controls.send_keys(pane_id, keys, literal=literal, enter=enter)

    def clear_history(self, server: ServerRef, pane_id: str) -> None:
        self.server(server).controls.clear_history(pane_id)

    def clear_pane(self, server: ServerRef, pane_id: str) -> None:
        self.server(server).controls.clear_pane(pane_id)

    def copy_mode(
        self, server: ServerRef, pane_id: str, *, enter: bool, scroll_up: int | None = None
    ) -> None:
        self.server(server).controls.copy_mode(pane_id, enter=enter, scroll_up=scroll_up)

    def pipe_pane(
        self, server: ServerRef, pane_id: str, command: str | None, *, append: bool = True
    ) -> None:
        # ``append`` shapes the command the real backend builds; here the
        # command (``cat >> PATH`` or ``cat > PATH``) already says it.
        self.server(server).controls.pipe_pane(pane_id, command)

    def open_pipe(self, server: ServerRef, pane_id: str, command: str) -> bool:
        pane = self.server(server).pane(pane_id)
        if pane.pipe_command is not None:
            return False
        self.server(server).controls.pipe_pane(pane_id, command)
        return True

    # -- options, environment, buffers, channels -----------------------------------------
    def set_option(
        self,
        server: ServerRef,
        name: str,
        value: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        self.server(server).config.set_option(
            name, value, scope=scope, target=target, global_=global_
        )

    def unset_option(
        self,
        server: ServerRef,
        name: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        self.server(server).config.unset_option(name, scope=scope, target=target, global_=global_)

    def swap_pane_option(
        self, server: ServerRef, pane_id: str, name: str, expected: str, new: str
    ) -> str:
        if not _SWAP_NAME.fullmatch(name) or not all(
            _SWAP_VALUE.fullmatch(v) for v in (expected, new)
        ):
            raise InvalidArgument(f"not a user option name and plain values: {name!r}")
        sim = self.server(server)
        _, _, pane = sim.resolve(pane_id)
        config = sim.config
        current = config.show_options(scope="pane", target=pane.pane_id).get(name, "")
        if current == expected:
            if new:
                config.set_option(name, new, scope="pane", target=pane.pane_id, global_=False)
            elif name in config.show_options(scope="pane", target=pane.pane_id):
                config.unset_option(name, scope="pane", target=pane.pane_id, global_=False)
            current = new
        return current

    def set_environment(
        self, server: ServerRef, name: str, value: str, *, session_id: str | None = None
    ) -> None:
        self.server(server).config.set_environment(name, value, session_id=session_id)

    def load_buffer(self, server: ServerRef, name: str, content: str) -> None:
        self.server(server).controls.set_buffer(content, name)

    def paste_buffer(
        self,
        server: ServerRef,
        name: str,
        pane_id: str,
        *,
        bracket: bool = True,
        delete: bool = False,
    ) -> None:
        self.server(server).controls.paste_buffer(name, pane_id, bracket=bracket, delete=delete)

    def delete_buffer(self, server: ServerRef, name: str) -> None:
        self.server(server).buffers.delete(name)

    def wait_for(self, server: ServerRef, channel: str, timeout: float) -> bool:
        return self.server(server).wait_for(channel, timeout)

    def signal_channel(self, server: ServerRef, channel: str) -> None:
        self.server(server).signal_channel(channel)
