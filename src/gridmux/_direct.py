"""Direct tool calls: ``tools/call`` over stdio on a short path of our own.

Through the MCP SDK and FastMCP, a ``tools/call`` costs about 0.8 ms of
Python on a 2-CPU machine before and after the tool itself runs (message
models, a dispatcher task and memory streams, FastMCP's request context,
telemetry seam, a visibility lookup in its state store, the middleware
chain): more than tmux takes to answer over control mode. Over stdio,
:class:`DirectCalls` answers the calls it can answer exactly as that path
would, in a fraction of the time, and passes everything else on:

* **the connection** opened with the ``initialize`` handshake (the SDK's
  2025 era) at a version whose ``tools/call`` result the SDK can shape, the
  server wrote its ``initialize`` answer and the client sent
  ``notifications/initialized``;
* **the request** is one JSON object ``{"jsonrpc": "2.0", "id", "method":
  "tools/call", "params": {"name", "arguments"?, "_meta"?}}`` whose ``_meta``
  carries neither the 2026-07-28 envelope nor a FastMCP component version;
* **the tool** is listed at the server's safety tier and is a plain function
  tool: every parameter of its function is in its input schema (no FastMCP
  ``Context``, hence no progress notifications), with no timeout, auth rule
  or task support;
* **the server's middleware** that see tool calls are gridmux's audit and
  tier gate only.

The steps are the same ones: FastMCP's ``Tool.run`` (argument validation,
the tool, result conversion), the audit record (the tier gate has nothing to
refuse: hidden tools are not served here), FastMCP's error texts, and the
SDK's result shaping for the negotiated version. The answer is written on
the same pipe as the SDK's, one whole line per write, so the two never
interleave. ``notifications/cancelled`` for a direct call cancels it and
nothing is answered, as the SDK does. ``--direct-calls off`` sends every
request to the SDK; ``tests/unit/test_direct_calls.py`` makes the same calls
both ways and compares the answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import FastMCPError, ToolError
from fastmcp.server.middleware import Middleware
from fastmcp.tools.base import ToolResult
from fastmcp.tools.function_tool import FunctionTool
from mcp_types import PROTOCOL_VERSION_META_KEY, CallToolResult, TextContent

from gridmux.audit import AuditMiddleware, CallRecord
from gridmux.safety import TierGate

logger = logging.getLogger("gridmux.direct")

#: The only keys of ``params`` a direct call may have.
_PARAMS = frozenset({"name", "arguments", "_meta"})
#: Middleware hooks that see a ``tools/call``.
_CALL_HOOKS = ("__call__", "on_message", "on_request", "on_call_tool")


def sees_calls(middleware: Middleware) -> bool:
    """Whether ``middleware`` would see a tool call (FastMCP's own ref
    dereferencing, for one, only rewrites listings)."""
    return any(
        getattr(type(middleware), hook) is not getattr(Middleware, hook) for hook in _CALL_HOOKS
    )


def plain_tool(tool: object) -> bool:
    """Whether FastMCP would run ``tool`` with nothing but its validated arguments."""
    if not isinstance(tool, FunctionTool):
        return False
    if tool.timeout is not None or tool.auth is not None:
        return False
    task = getattr(tool, "task_config", None)
    if task is not None and getattr(task, "mode", "forbidden") != "forbidden":
        return False
    schema = tool.output_schema  # a wrapped result's schema is an object too
    if schema is not None and schema.get("type") != "object":
        return False
    accepted = set(tool.parameters.get("properties", {}))
    try:
        params = inspect.signature(tool.fn).parameters
    except (TypeError, ValueError):
        return False
    return all(name in accepted for name in params)


def direct_calls(mcp: FastMCP, writer: asyncio.StreamWriter) -> DirectCalls | None:
    """The direct path for ``mcp``, or None when it cannot serve any call exactly.

    The table of plain tools is read just before the first ``tools/call`` is
    looked at (``prepare``), not here: listing the tools takes FastMCP some
    milliseconds that a client waiting for ``initialize`` and ``tools/list``
    should not wait.
    """
    try:  # the SDK's result shaping; an SDK without it keeps every call
        from mcp_types.methods import SERVER_RESULTS, serialize_server_result  # noqa: PLC0415
        from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS  # noqa: PLC0415
    except ImportError:
        return None
    versions = frozenset(
        v for v in HANDSHAKE_PROTOCOL_VERSIONS if ("tools/call", v) in SERVER_RESULTS
    )
    # Strict validation and masked errors are read off FastMCP's request
    # context, which a direct call does not have: such a server keeps them all.
    if getattr(mcp, "strict_input_validation", False) or getattr(mcp, "_mask_error_details", False):
        return None
    audit: AuditMiddleware | None = None
    for middleware in mcp.middleware:
        if isinstance(middleware, AuditMiddleware):
            audit = middleware
        elif not isinstance(middleware, TierGate) and sees_calls(middleware):
            return None
    shape = partial(serialize_server_result, "tools/call")
    return DirectCalls(mcp.list_tools, audit, writer, versions=versions, shape=shape)


class DirectCalls:
    """Answer eligible ``tools/call`` lines; say which lines the SDK must have."""

    def __init__(
        self,
        list_tools: Callable[[], Awaitable[Sequence[object]]],
        audit: AuditMiddleware | None,
        writer: asyncio.StreamWriter,
        *,
        versions: frozenset[str],
        shape: Callable[[str, dict[str, Any]], dict[str, Any]],
    ) -> None:
        self._list_tools = list_tools
        self._tools: Mapping[str, FunctionTool] | None = None  # until ``load``
        self._audit = audit
        self._writer = writer
        self._versions = versions  # handshake versions whose results ``shape`` knows
        self._shape_for = shape  # (version, dumped CallToolResult) -> the wire form
        self._tasks: dict[str | int, asyncio.Task[None]] = {}
        # The handshake, as seen on the wire.
        self._opened = False  # the client's first request came (it decides the era)
        self._modern = False  # ... and opened the 2026-07-28 era
        self._init_ids: set[object] = set()  # initialize requests not answered yet
        self._version: str | None = None  # from the server's initialize answer
        self._initialized = False  # notifications/initialized came
        self.ready = False

    # -- what the client sends ---------------------------------------------------
    def inbound(self, line: bytes) -> bool:
        """Look at one line from the client; True when it is handled here."""
        if self.ready:
            if b'"tools/call"' not in line and b'"notifications/cancelled"' not in line:
                return False
        elif b'"method"' not in line:
            return False
        try:
            message = json.loads(line)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
            return False
        method = message.get("method")
        if not self.ready or method == "initialize":
            self._observe(method, message)
            return False
        if method == "notifications/cancelled":
            return self._cancel(message.get("params"))
        if method != "tools/call":
            return False
        call = self._eligible(message)
        if call is None:
            return False
        request_id, name, arguments, meta = call
        task = asyncio.get_running_loop().create_task(
            self._answer(request_id, name, arguments, meta)
        )
        self._tasks[request_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(request_id, None))
        return True

    async def prepare(self, line: bytes) -> None:
        """Before the first ``tools/call`` is looked at, read the tool table."""
        if self._tools is None and self.ready and b'"tools/call"' in line:
            await self.load()

    async def load(self) -> None:
        """Read the table of plain tools (the server's tools at its tier)."""
        try:
            listed = await self._list_tools()
        except Exception:  # then every call stays with the SDK
            logger.exception("cannot list the tools for direct calls")
            self._tools = {}
            return
        self._tools = {
            tool.name: tool
            for tool in listed
            if isinstance(tool, FunctionTool) and plain_tool(tool)
        }

    def _observe(self, method: object, message: dict[str, Any]) -> None:
        """Follow the handshake as the SDK does (``serve_dual_era_loop``)."""
        if "id" in message and method is not None:
            if not self._opened:
                params = message.get("params")
                meta = params.get("_meta") if isinstance(params, dict) else None
                self._opened = True
                self._modern = (
                    method != "initialize"
                    and isinstance(meta, dict)
                    and PROTOCOL_VERSION_META_KEY in meta
                )
            request_id = message.get("id")
            if method == "initialize" and isinstance(request_id, str | int):
                self._init_ids.add(request_id)  # (again: wait for what it negotiates)
                self._version = None
        elif method == "notifications/initialized":
            self._initialized = True
        self._arm()

    def _eligible(
        self, message: dict[str, Any]
    ) -> tuple[str | int, str, dict[str, Any], dict[str, Any]] | None:
        request_id = message.get("id")
        params = message.get("params")
        if (
            isinstance(request_id, bool)
            or not isinstance(request_id, str | int)
            or request_id in self._tasks
            or not isinstance(params, dict)
            or not params.keys() <= _PARAMS
        ):
            return None
        name = params.get("name")
        arguments = params.get("arguments", {})
        meta = params.get("_meta", {})
        if (
            not isinstance(name, str)
            or self._tools is None
            or name not in self._tools
            or not isinstance(arguments, dict)
            or not isinstance(meta, dict)
            or PROTOCOL_VERSION_META_KEY in meta
            or "fastmcp" in meta
        ):
            return None
        return request_id, name, arguments, meta

    def _cancel(self, params: object) -> bool:
        """Cancel a direct call; other cancellations are the SDK's."""
        if not isinstance(params, dict):
            return False
        request_id = params.get("requestId")
        if isinstance(request_id, bool) or not isinstance(request_id, str | int):
            return False
        task = self._tasks.pop(request_id, None)
        if task is None:
            return False
        task.cancel()
        return True

    # -- what the server sends ---------------------------------------------------
    def outbound(self, text: str) -> None:
        """Look at one message the SDK writes (only until the handshake is done)."""
        if self.ready or not self._init_ids or '"protocolVersion"' not in text:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        answered = message.get("id") if isinstance(message, dict) else None
        if not isinstance(answered, str | int) or answered not in self._init_ids:
            return
        self._init_ids.discard(answered)
        result = message.get("result")
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        self._version = version if isinstance(version, str) else None
        self._arm()

    def _arm(self) -> None:
        self.ready = (
            self._opened
            and not self._modern
            and not self._init_ids
            and self._initialized
            and self._version in self._versions
        )

    # -- answering -----------------------------------------------------------------
    async def _answer(
        self, request_id: str | int, name: str, arguments: dict[str, Any], meta: dict[str, Any]
    ) -> None:
        assert self._tools is not None
        tool = self._tools[name]
        try:
            try:
                if self._audit is None:
                    result = await _run(tool, arguments)
                else:
                    client_id = meta.get("client_id")
                    record = CallRecord(
                        name=name,
                        arguments=arguments,
                        request_id=str(request_id),
                        client_id=client_id if isinstance(client_id, str) else None,
                    )
                    result = await self._audit.audited(record, lambda: _run(tool, arguments))
            except FastMCPError as exc:  # a tool error is an answer, never a wire error
                result = _error_result(str(exc))
            body = self._shape(result)
        except asyncio.CancelledError:
            return  # a cancelled request is never answered
        except Exception as exc:  # a wire error, as the SDK answers one
            logger.exception("direct call of %r failed", name)
            await self._send({"jsonrpc": "2.0", "id": request_id, "error": _internal_error(exc)})
            return
        await self._send({"jsonrpc": "2.0", "id": request_id, "result": body})

    def _shape(self, result: ToolResult) -> dict[str, Any]:
        assert self._version is not None
        mcp_result = result.to_mcp_result()
        if isinstance(mcp_result, CallToolResult):
            model = mcp_result
        elif isinstance(mcp_result, tuple):
            model = CallToolResult(content=mcp_result[0], structured_content=mcp_result[1])
        else:
            model = CallToolResult(content=mcp_result)
        dumped = model.model_dump(by_alias=True, mode="json", exclude_none=True)
        return self._shape_for(self._version, dumped)

    async def _send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n"
        with contextlib.suppress(ConnectionError, RuntimeError):  # the client went away
            self._writer.write(line.encode("utf-8"))
            await self._writer.drain()

    async def finish(self) -> None:
        """Let the calls in flight answer (stdin closed; stdout still open)."""
        while self._tasks:
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)

    def cancel_all(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()


async def _run(tool: FunctionTool, arguments: dict[str, Any]) -> ToolResult:
    """``Tool.run``, a failing tool's error worded as FastMCP words it (unmasked)."""
    try:
        return await tool.run(arguments)
    except FastMCPError:
        raise
    except Exception as exc:
        logger.error("Error calling tool %r", tool.name, exc_info=True)
        raise ToolError(f"Error calling tool {tool.name!r}: {exc}") from exc


def _error_result(text: str) -> ToolResult:
    return ToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def _internal_error(exc: Exception) -> dict[str, Any]:
    return {"code": -32603, "message": str(exc) or type(exc).__name__}
