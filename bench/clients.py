"""The servers under test and the real MCP stdio clients that drive them."""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from .rawclient import RawStdioClient
from .tmuxenv import BenchError, TmuxEnv

PREDECESSOR = "predecessor"


@dataclass(frozen=True)
class ServerSpec:
    """How to start one server: ``key`` names it in results and tables."""

    key: str
    label: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_predecessor(self) -> bool:
        return self.key == PREDECESSOR


def _executable(name: str, configured: str | None) -> list[str]:
    """A console script: ``--gridmux``/``--predecessor``, next to this Python, or on PATH."""
    if configured:
        return configured.split()
    beside = Path(sys.executable).parent / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise BenchError(f"{name} is not installed (nox -s bench installs it)")
    return [found]


def server_specs(
    env: TmuxEnv,
    *,
    both_modes: bool,
    gridmux: str | None = None,
    predecessor: str | None = None,
) -> list[ServerSpec]:
    """gridmux (default mode, or control mode off and on) and the predecessor."""
    grid_argv = (*_executable("gridmux", gridmux), "--socket-name", env.socket)
    grid_argv += ("--safety", "mutating")
    variants = [("gridmux-off", "off"), ("gridmux-on", "on")] if both_modes else [("gridmux", "")]
    specs = [
        ServerSpec(
            key,
            f"gridmux (control mode {mode})" if mode else "gridmux",
            grid_argv,
            {"GRIDMUX_CONTROL_MODE": mode} if mode else {},
        )
        for key, mode in variants
    ]
    pred_argv = tuple(_executable("libtmux-mcp", predecessor))
    specs.append(ServerSpec(PREDECESSOR, "libtmux-mcp", pred_argv, {"LIBTMUX_SOCKET": env.socket}))
    return specs


def spawn_target(key: str) -> float:
    """tmux processes per call allowed: 0 over control mode, 1 with it forced off."""
    return 1.0 if key == "gridmux-off" else 0.0


class McpServer:
    """One running server behind a connected MCP client."""

    def __init__(self, spec: ServerSpec, client: Any) -> None:
        self.spec = spec
        self.client = client

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[float, Any]:
        """Call ``tool`` (``ping``: an MCP ping); (seconds to the answer, structured result)."""
        start = time.perf_counter()
        try:
            if tool == "ping":
                await self.client.ping()
                return time.perf_counter() - start, None
            result = await self.client.call_tool_mcp(tool, dict(arguments))
        except Exception as exc:  # a protocol error or a timeout, not a tool error
            raise BenchError(f"{self.spec.label}: {tool}: {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - start
        if result.is_error:
            text = " ".join(getattr(block, "text", "") for block in result.content)
            raise BenchError(f"{self.spec.label}: {tool} failed: {text}")
        data: Any = result.structured_content
        if data is None:
            text = "".join(getattr(block, "text", "") for block in result.content)
            with contextlib.suppress(ValueError):
                data = json.loads(text)
        if isinstance(data, dict) and set(data) == {"result"}:
            data = data["result"]
        return elapsed, data


#: Which MCP client drives the servers: "raw" (bench/rawclient.py, no per-call
#: work of its own) or "fastmcp" (FastMCP's Client). Set by bench.run --client.
CLIENT = {"kind": "raw"}


def _client(spec: ServerSpec, env: TmuxEnv, path_first: Path | None, log: str) -> Any:
    server_env = {**env.base_env(path_first), **spec.env}
    log_file = env.root / "logs" / f"{spec.key}-{log}.log"
    if CLIENT["kind"] == "raw":
        return RawStdioClient(spec.argv, env=server_env, cwd=str(env.root), log_file=log_file)
    transport = StdioTransport(
        spec.argv[0],
        list(spec.argv[1:]),
        env=server_env,
        cwd=str(env.root),
        keep_alive=False,
        log_file=log_file,
    )
    return Client(transport, mode="legacy", timeout=120, init_timeout=60)


@contextlib.asynccontextmanager
async def connected(
    specs: list[ServerSpec], env: TmuxEnv, *, counting: bool, log: str
) -> AsyncIterator[list[tuple[McpServer, Path | None]]]:
    """Start every server and connect; with ``counting``, each has a counting tmux first on
    PATH and the counter file comes alongside it."""
    async with contextlib.AsyncExitStack() as stack:
        servers = []
        for spec in specs:
            directory, counter = env.counting_dir(spec.key) if counting else (None, None)
            try:
                client = await stack.enter_async_context(_client(spec, env, directory, log))
            except Exception as exc:
                raise BenchError(f"{spec.label} did not start: {exc}") from exc
            servers.append((McpServer(spec, client), counter))
        yield servers


async def startup_seconds(spec: ServerSpec, env: TmuxEnv) -> float:
    """Seconds from spawning the server to the answer of its first tools/list."""
    client = _client(spec, env, None, "startup")
    start = time.perf_counter()
    try:
        async with client:
            tools = await client.list_tools()
            elapsed = time.perf_counter() - start
    except Exception as exc:
        raise BenchError(f"{spec.label} did not start: {exc}") from exc
    if not tools:
        raise BenchError(f"{spec.label} listed no tools")
    return elapsed
