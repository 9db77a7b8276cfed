"""A lean MCP client over stdio: the handshake, then one request at a time.

It speaks MCP as any client does (``initialize``, ``notifications/initialized``,
``tools/list``, ``tools/call``, ``ping``; newline-delimited JSON-RPC on the
server's stdin/stdout) and does nothing else per call, so the latencies it
measures are the servers' own, not a client library's. Request ids count up
from 1; :attr:`RawStdioClient.last_request_id` names the latest, which is how
gridmux's audit record of a call is found.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

PROTOCOL_VERSION = "2025-06-18"


@dataclass
class TextBlock:
    text: str


@dataclass
class CallResult:
    """The parts of a ``tools/call`` answer the bench reads (as FastMCP names them)."""

    is_error: bool
    content: list[TextBlock] = field(default_factory=list)
    structured_content: Any = None


class RawStdioClient:
    """Start ``argv`` with ``env`` in ``cwd``; stderr goes to ``log_file``."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str,
        log_file: Path,
        timeout: float = 120.0,
    ) -> None:
        self._argv = list(argv)
        self._env = dict(env)
        self._cwd = cwd
        self._log_file = log_file
        self._timeout = timeout
        self._proc: asyncio.subprocess.Process | None = None
        self._next_id = 0
        #: every byte read from the server's stdout: answers, notifications, newlines
        self.bytes_received = 0
        #: the latest tools/call answer as the server sent it (``result`` of the reply)
        self.last_result: dict[str, Any] = {}

    async def __aenter__(self) -> RawStdioClient:
        self._log_file.parent.mkdir(parents=True, exist_ok=True)
        with self._log_file.open("ab") as log:
            self._proc = await asyncio.create_subprocess_exec(
                *self._argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                env=self._env,
                cwd=self._cwd,
                limit=1 << 26,
            )
        info = {"name": "gridmux-bench", "version": "1"}
        params = {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": info}
        await self._request("initialize", params)
        await self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            await asyncio.wait_for(proc.wait(), 5)
        except asyncio.TimeoutError:  # not the builtin TimeoutError before 3.11
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()

    #: Bytes of the latest answer as it came over stdio (its JSON line).
    last_answer_bytes = 0

    @property
    def last_request_id(self) -> int:
        """The id of the latest request sent (0 before the first)."""
        return self._next_id

    async def ping(self) -> None:
        await self._request("ping", None)

    async def list_tools(self) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = (await self._request("tools/list", {}))["tools"]
        return tools

    async def call_tool_mcp(self, name: str, arguments: Mapping[str, Any]) -> CallResult:
        result = await self._request("tools/call", {"name": name, "arguments": dict(arguments)})
        self.last_result = result
        blocks = [TextBlock(b.get("text", "")) for b in result.get("content", [])]
        return CallResult(
            is_error=bool(result.get("isError")),
            content=blocks,
            structured_content=result.get("structuredContent"),
        )

    async def _send(self, message: Mapping[str, Any]) -> None:
        proc = self._proc
        assert proc is not None
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(message).encode() + b"\n")
        await proc.stdin.drain()

    async def _request(self, method: str, params: Mapping[str, Any] | None) -> Any:
        self._next_id += 1
        wanted = self._next_id
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": wanted, "method": method}
        if params is not None:
            message["params"] = params
        await self._send(message)
        return await asyncio.wait_for(self._answer(wanted, method), self._timeout)

    async def _answer(self, wanted: int, method: str) -> Any:
        proc = self._proc
        assert proc is not None
        assert proc.stdout is not None
        while True:
            line = await proc.stdout.readline()
            self.bytes_received += len(line)
            if not line:
                raise ConnectionError(f"the server closed its output during {method}")
            reply = json.loads(line)
            if reply.get("id") != wanted or "method" in reply:
                continue  # a notification, or a request to us (none are announced)
            self.last_answer_bytes = len(line.rstrip(b"\n"))
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error'].get('message')}")
            return reply.get("result")
