"""What every tool needs: the backend, the settings, and a safe way to call tmux.

Tools are module-level functions; each takes its :class:`ToolContext` as the
keyword-only parameter ``ctx: ToolContext = TOOL_CONTEXT``, which FastMCP's
dependency injection fills in (``Depends``) and leaves out of the input
schema. The context reaches FastMCP as the server's lifespan value
(:meth:`ToolContext.lifespan`, passed to ``FastMCP(lifespan=...)``), so every
server has its own and nothing is global. A test or another module can call
a tool function directly with ``ctx=`` given.

Backend calls are synchronous (subprocesses or the simulator), so tools run
them in a worker thread and never block the event loop. Every error from the
backend is turned into a tool error here, in one place, with the hint that
tells the agent what to do next.
"""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from anyio.lowlevel import RunVar
from fastmcp import Context, FastMCP
from fastmcp.dependencies import CurrentContext, Depends
from fastmcp.exceptions import ToolError
from fastmcp.server.lifespan import Lifespan

from gridmux.backend import (
    SOCKET_NAME,
    SOCKET_PATH,
    PaneInfo,
    ServerRef,
    TmuxBackend,
    default_socket_path,
)
from gridmux.capture import Ledgers, RowMemory
from gridmux.errors import GridmuxError, InvalidArgument
from gridmux.settings import Settings

from ._shells import Shells
from ._targets import check_id, resolve_pane

T = TypeVar("T")

#: The key of the tool context in a server's lifespan value.
_LIFESPAN_KEY = "gridmux.tools"


def check_socket_path(socket_path: str) -> str:
    """A ``tmux -S`` path in its form (``backend.SOCKET_PATH``)."""
    if not SOCKET_PATH.matches(socket_path):
        raise InvalidArgument(
            f"invalid socket_path {socket_path!r}",
            hint=f"A socket path is absolute, like {SOCKET_PATH.example!r} (tmux -S).",
        )
    return socket_path


def check_socket_name(socket_name: str) -> str:
    """A ``tmux -L`` name in its form (``backend.SOCKET_NAME``)."""
    if not SOCKET_NAME.matches(socket_name):
        raise InvalidArgument(
            f"invalid socket_name {socket_name!r}",
            hint=f"A socket name is a plain name like {SOCKET_NAME.example!r} (tmux -L).",
        )
    return socket_name


def check_socket_file(socket_path: str) -> str:
    """A path tmux may connect to or bind: a socket, or nothing in an existing directory.

    tmux unlinks whatever is at a ``-S`` path it starts a server on, so a
    regular file, a directory, a device or a symlink to one is refused
    before tmux runs.
    """
    try:
        found = os.stat(socket_path)
    except FileNotFoundError:
        if os.path.islink(socket_path):
            raise InvalidArgument(
                f"socket_path {socket_path!r} is a symlink to nothing",
                hint="Pass the path of a tmux socket, or a new path in an existing directory.",
            ) from None
        folder = os.path.dirname(socket_path)
        if not os.path.isdir(folder):
            raise InvalidArgument(
                f"socket_path {socket_path!r}: its directory {folder!r} does not exist",
                hint="Pass a path in an existing directory (tmux does not create one).",
            ) from None
        return socket_path
    except OSError as exc:
        raise InvalidArgument(
            f"socket_path {socket_path!r} cannot be examined: {exc.strerror}",
            hint="Pass the path of a tmux socket you can reach.",
        ) from None
    if not stat.S_ISSOCK(found.st_mode):
        raise InvalidArgument(
            f"socket_path {socket_path!r} exists and is not a socket; refusing, since "
            "tmux would delete it to start a server there",
            hint="Pass the path of a tmux socket, or a path where nothing exists yet.",
        )
    return socket_path


def same_socket(first: str, second: str) -> bool:
    """Whether two socket paths name one socket, however each is spelled.

    Equal device and inode decide when both exist (a hard link, a symlink,
    ``//``, ``/./`` or ``/../`` cannot hide one); else the real paths.
    """
    if first == second:
        return True
    try:
        one, other = os.stat(first), os.stat(second)
    except OSError:
        return os.path.realpath(first) == os.path.realpath(second)
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


class TaughtError(ToolError):
    """A tool error that knows its kind, the parameter at fault and what to do
    instead; the answer shaper (``_answers``) sends them as the error's
    ``_meta`` beside the text."""

    def __init__(
        self, message: str, *, kind: str, hint: str = "", parameter: str | None = None
    ) -> None:
        super().__init__(message if not hint else f"{message}\nHint: {hint}")
        self.message = message
        self.kind = kind
        self.hint = hint
        self.parameter = parameter


def tool_error(exc: GridmuxError) -> ToolError:
    return TaughtError(exc.message, kind=exc.kind, hint=exc.hint, parameter=exc.parameter)


#: Worker threads for calls that wait (wait_for_channel, run_command), apart
#: from the default pool of 40 every other call uses; a wait beyond them
#: queues for one, and never holds a thread another tool needs.
WAITING_THREADS = 64


#: The limiter of ``WAITING_THREADS``: one per event loop (a limiter belongs
#: to the loop that made it), made on first use.
_WAITING: RunVar[anyio.CapacityLimiter] = RunVar("gridmux_waiting_threads")


def waiting_limiter() -> anyio.CapacityLimiter:
    try:
        return _WAITING.get()
    except LookupError:
        limiter = anyio.CapacityLimiter(WAITING_THREADS)
        _WAITING.set(limiter)
        return limiter


@dataclass(frozen=True, slots=True)
class ToolContext:
    backend: TmuxBackend
    settings: Settings
    #: run_command's memory of the shells it typed into (this server's only)
    shells: Shells = field(default_factory=Shells, compare=False)
    #: row texts the capture core keeps between reads (speed only; bounded)
    row_memory: RowMemory = field(default_factory=RowMemory, compare=False)
    #: capture_since's ledgers of the cursors it handed out (cost only: a
    #: cursor without one is followed by a full read; bounded)
    ledgers: Ledgers = field(default_factory=Ledgers, compare=False)

    def lifespan(self) -> Lifespan:
        """A FastMCP lifespan that hands this context to the server's tools."""

        async def provide(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
            yield {_LIFESPAN_KEY: self}

        return Lifespan(provide)

    def server(
        self,
        socket_name: str | None = None,
        socket_path: str | None = None,
        *,
        check_file: bool = True,
    ) -> ServerRef:
        """The server a call addresses: its own socket, else the configured default.

        A per-call ``socket_path`` (tmux -S) wins over ``socket_name`` (tmux -L).
        When the settings name a socket, gridmux is confined to that server: a
        per-call socket must name the same one (however spelled) unless
        ``allow_other_servers`` is set. A socket path must be a socket or a
        free name in an existing directory (``check_socket_file``), unless
        ``check_file`` is false (a path only probed, never given to tmux).
        """
        try:
            configured = ServerRef(
                socket_name=self.settings.socket_name, socket_path=self.settings.socket_path
            )
            if socket_path is not None:
                wanted = ServerRef(socket_path=check_socket_path(socket_path))
            elif socket_name is not None:
                wanted = ServerRef(socket_name=check_socket_name(socket_name))
            else:
                wanted = configured
            if (
                wanted is not configured
                and self.confined
                and not self._same_server(wanted, configured)
            ):
                raise InvalidArgument(
                    f"this gridmux is confined to tmux server {self.confinement}; "
                    f"{_spelled(wanted)} is another server",
                    hint=(
                        "Leave socket_name and socket_path out to use the configured server; "
                        "reaching others needs the user to restart gridmux with "
                        "--allow-other-servers on."
                    ),
                )
            if check_file and wanted.socket_path is not None:
                check_socket_file(wanted.socket_path)
        except InvalidArgument as exc:
            raise tool_error(exc) from None
        return wanted

    @property
    def confined(self) -> bool:
        """Whether calls may reach only the configured server (a socket is named)."""
        named = self.settings.socket_name is not None or self.settings.socket_path is not None
        return named and not self.settings.allow_other_servers

    @property
    def confinement(self) -> str:
        """The configured server, as the error texts name it."""
        return _spelled(
            ServerRef(socket_name=self.settings.socket_name, socket_path=self.settings.socket_path)
        )

    @staticmethod
    def _same_server(first: ServerRef, second: ServerRef) -> bool:
        return same_socket(default_socket_path(first), default_socket_path(second))

    def protect_caller(self, server: ServerRef, pane_ids: Iterable[str], action: str) -> None:
        """Refuse ``action`` when it would end the pane this MCP server runs in.

        ``pane_ids`` are all the panes the action would kill or respawn (a
        window's, a session's, or every pane for kill_server). A server
        addressed by default or by name is compared with the caller's socket
        by name; when the caller's pane id is among ``pane_ids``, the server's
        real socket path is asked for and compared as well. Call it in a
        worker thread (it may query the backend).
        """
        ids = list(pane_ids)
        self._refuse_caller(server, ids, action)
        if self.settings.caller_pane not in ids or server.socket_path is not None:
            return
        path = self.backend.server_info(server).socket_path
        if path:
            self._refuse_caller(ServerRef(socket_path=path), ids, action)

    def _refuse_caller(self, server: ServerRef, pane_ids: list[str], action: str) -> None:
        for pane_id in pane_ids:
            if self.is_caller(server, pane_id):
                raise tool_error(
                    InvalidArgument(
                        f"refusing to {action}: it would end pane {pane_id}, "
                        "where this MCP server itself runs",
                        hint="Target another pane, window or session; ask the user to do this.",
                    )
                )

    def refuse_input_to_caller(self, server: ServerRef, pane_id: str) -> None:
        """Refuse input to ``pane_id`` that would reach the pane this MCP server
        runs in, whatever the tier: typed or pasted there, or into a pane of its
        window while synchronize-panes copies input to every pane (its host's
        permission prompts and C-c are not the agent's to answer). Panes beside
        it stay usable. Asks tmux only when gridmux runs in a pane of ``server``.
        Call it in a worker thread."""
        caller = self.settings.caller_pane
        if caller is None or not self.is_caller(server, caller):
            return
        reason = None
        if pane_id == caller:
            reason = "this MCP server itself runs there"
        else:
            shown = self.backend.display_message(
                server, pane_id, "#{pane_synchronized} #{window_id}"
            ).split()
            if shown[:1] == ["1"]:
                host = self.backend.display_message(server, caller, "#{window_id}").strip()
                if shown[1:] == [host]:
                    reason = (
                        f"its window has synchronize-panes on, so tmux would copy the input to "
                        f"pane {caller}, where this MCP server itself runs"
                    )
        if reason is not None:
            raise InvalidArgument(
                f"refusing to send input to pane {pane_id}: {reason}",
                hint="Use another pane (create one with split_window); ask the user to type "
                "into their own pane.",
            )

    def resolve(
        self,
        server: ServerRef,
        pane_id: str | None = None,
        session_name: str | None = None,
        session_id: str | None = None,
        window_id: str | None = None,
    ) -> PaneInfo:
        """The one pane a tool's target arguments name (see ``_targets``)."""
        return resolve_pane(
            self.backend,
            server,
            pane_id=pane_id,
            session_name=session_name,
            session_id=session_id,
            window_id=window_id,
        )

    def pane_target(
        self,
        server: ServerRef,
        pane_id: str | None = None,
        session_name: str | None = None,
        session_id: str | None = None,
        window_id: str | None = None,
    ) -> str:
        """The pane id a tool's target arguments name, asking tmux only if needed.

        A bare ``pane_id`` is used as it is (its format checked): the command
        that follows fails with NotFound if the pane is gone, so a listing
        first would only cost a round trip.
        """
        if pane_id is not None and session_name is session_id is window_id is None:
            check_id("pane", pane_id)
            return pane_id
        return self.resolve(server, pane_id, session_name, session_id, window_id).pane_id

    async def call(self, fn: Callable[[], T]) -> T:
        """Run a backend call in a worker thread, translating gridmux errors."""
        try:
            return await anyio.to_thread.run_sync(fn)
        except GridmuxError as exc:
            raise tool_error(exc) from exc

    async def call_waiting(self, fn: Callable[[], T]) -> T:
        """``call`` for a call that blocks until something happens (a wait-for,
        a run): its worker thread comes from a pool of its own
        (``WAITING_THREADS``), so however many of them wait, the other calls
        keep the default pool's threads."""
        try:
            return await anyio.to_thread.run_sync(fn, limiter=waiting_limiter())
        except GridmuxError as exc:
            raise tool_error(exc) from exc

    def is_caller(self, server: ServerRef, pane_id: str) -> bool | None:
        """Whether ``pane_id`` is the pane this MCP server runs in (None: not in tmux)."""
        caller = self.settings.caller_pane
        if caller is None:
            return None
        if caller != pane_id:
            return False
        socket = self.settings.caller_socket
        if socket is None:
            return True
        if server.socket_path is not None:
            return same_socket(server.socket_path, socket)
        return socket.rsplit("/", 1)[-1] == (server.socket_name or "default")


def _spelled(ref: ServerRef) -> str:
    if ref.socket_path is not None:
        return f"socket_path {ref.socket_path!r}"
    return f"socket_name {ref.socket_name or 'default'!r}"


_REQUEST: Context = CurrentContext()


def current_tool_context(context: Context = _REQUEST) -> ToolContext:
    """The tool context of the server handling the current request (a dependency)."""
    found = context.lifespan_context.get(_LIFESPAN_KEY)
    if not isinstance(found, ToolContext):
        raise RuntimeError(
            "gridmux tools need their server's lifespan: build the server with "
            "create_server and serve it (or open a Client on it) before calling tools"
        )
    return found


#: The default of every tool's ``ctx`` parameter: injected, never in the schema.
TOOL_CONTEXT: ToolContext = Depends(current_tool_context)
