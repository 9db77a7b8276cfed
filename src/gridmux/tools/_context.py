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

from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.dependencies import CurrentContext, Depends
from fastmcp.exceptions import ToolError
from fastmcp.server.lifespan import Lifespan

from gridmux.backend import SOCKET_NAME, SOCKET_PATH, PaneInfo, ServerRef, TmuxBackend
from gridmux.capture import RowMemory
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


@dataclass(frozen=True, slots=True)
class ToolContext:
    backend: TmuxBackend
    settings: Settings
    #: run_command's memory of the shells it typed into (this server's only)
    shells: Shells = field(default_factory=Shells, compare=False)
    #: row texts the capture core keeps between reads (speed only; bounded)
    row_memory: RowMemory = field(default_factory=RowMemory, compare=False)

    def lifespan(self) -> Lifespan:
        """A FastMCP lifespan that hands this context to the server's tools."""

        async def provide(server: FastMCP) -> AsyncIterator[dict[str, Any]]:
            yield {_LIFESPAN_KEY: self}

        return Lifespan(provide)

    def server(self, socket_name: str | None = None, socket_path: str | None = None) -> ServerRef:
        """The server a call addresses: its own socket, else the configured default.

        A per-call ``socket_path`` (tmux -S) wins over ``socket_name`` (tmux -L);
        a per-call socket of either kind replaces the configured one entirely.
        """
        try:
            if socket_path is not None:
                return ServerRef(socket_path=check_socket_path(socket_path))
            if socket_name is not None:
                return ServerRef(socket_name=check_socket_name(socket_name))
        except InvalidArgument as exc:
            raise tool_error(exc) from None
        return ServerRef(
            socket_name=self.settings.socket_name, socket_path=self.settings.socket_path
        )

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
            return server.socket_path == socket
        return socket.rsplit("/", 1)[-1] == (server.socket_name or "default")


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
