"""The servers under test and the MCP stdio clients that drive them.

gridmux runs with an audit log (``GRIDMUX_AUDIT_LOG``) per connection: its
records carry each call's request id and ``duration_ms``, the time the call
spent inside the server (FastMCP's middleware chain, from the call reaching
it to its result), which is what the budgets judge.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .floor_server import TOOL as FLOOR_TOOL
from .rawclient import RawStdioClient
from .tmuxenv import BenchError, TmuxEnv

PREDECESSOR = "predecessor"
#: The one-tool FastMCP server timed beside gridmux (``bench/floor_server.py``).
FLOOR = "floor"
FLOOR_SERVER = Path(__file__).resolve().parent / "floor_server.py"


@dataclass(frozen=True)
class ServerSpec:
    """How to start one server: ``key`` names it in results and tables."""

    key: str
    label: str
    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    #: A server with one tool: every timed call (a ping aside) calls it, without arguments.
    only_tool: str | None = None

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
    """gridmux (control mode on, or off and on) and the predecessor."""
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


def floor_spec() -> ServerSpec:
    """The one-tool FastMCP server (the floor), with this Python and its packages."""
    argv = (sys.executable, str(FLOOR_SERVER))
    return ServerSpec(FLOOR, "FastMCP one-tool floor", argv, only_tool=FLOOR_TOOL)


def spawn_target(key: str) -> float:
    """tmux processes per call allowed: 0 over control mode, 1 with it forced off."""
    return 1.0 if key == "gridmux-off" else 0.0


def budgeted(key: str) -> bool:
    """Whether the server-side budgets apply: gridmux with control mode on (the default)."""
    return key in ("gridmux", "gridmux-on")


def audit_durations(path: Path) -> dict[str, float]:
    """request id -> seconds inside the server, for each top-level call in an audit log
    (calls nested in a batch carry ``parent`` and are part of their batch's time)."""
    durations: dict[str, float] = {}
    with contextlib.suppress(FileNotFoundError):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            if "parent" not in record and "request_id" in record:
                durations[str(record["request_id"])] = record["duration_ms"] / 1000.0
    return durations


def answer_parts(result: Mapping[str, Any]) -> tuple[int, int]:
    """A tool answer's two parts in bytes: its text ``content`` (UTF-8 of the text
    blocks) and its ``structuredContent`` (compact JSON; 0 when there is none)."""
    text = "".join(b.get("text", "") for b in result.get("content", []))
    structured = result.get("structuredContent")
    encoded = (
        b""
        if structured is None
        else json.dumps(structured, ensure_ascii=False, separators=(",", ":")).encode()
    )
    return len(text.encode()), len(encoded)


class McpServer:
    """One running server behind a connected MCP client."""

    def __init__(self, spec: ServerSpec, client: RawStdioClient, audit_log: Path | None) -> None:
        self.spec = spec
        self.client = client
        self.audit_log = audit_log
        #: the request id of the latest call, to find its audit record
        self.last_request = ""
        #: the latest answer in bytes: its JSON line over stdio, text, structured
        self.last_bytes = (0, 0, 0)

    async def call(self, tool: str, arguments: Mapping[str, Any]) -> tuple[float, Any]:
        """Call ``tool`` (``ping``: an MCP ping); (seconds to the answer, structured result)."""
        if self.spec.only_tool is not None and tool != "ping":
            tool, arguments = self.spec.only_tool, {}
        start = time.perf_counter()
        try:
            if tool == "ping":
                await self.client.ping()
                self.last_bytes = (self.client.last_answer_bytes, 0, 0)
                return time.perf_counter() - start, None
            result = await self.client.call_tool_mcp(tool, dict(arguments))
        except Exception as exc:  # a protocol error or a timeout, not a tool error
            raise BenchError(f"{self.spec.label}: {tool}: {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - start
        self.last_request = str(self.client.last_request_id)
        self.last_bytes = (self.client.last_answer_bytes, *answer_parts(self.client.last_result))
        if result.is_error:
            text = " ".join(block.text for block in result.content)
            raise BenchError(f"{self.spec.label}: {tool} failed: {text}")
        data: Any = result.structured_content
        if data is None:
            text = "".join(block.text for block in result.content)
            with contextlib.suppress(ValueError):
                data = json.loads(text)
        if isinstance(data, dict) and set(data) == {"result"}:
            data = data["result"]
        return elapsed, data

    async def server_seconds(self, requests: Sequence[str]) -> list[float] | None:
        """Seconds inside the server of the calls ``requests`` named, from its audit log
        (None for a server without one). A ping first: the server writes a call's record
        on the event loop's turn after the call, so by the ping's answer it is written."""
        if self.audit_log is None:
            return None
        await self.call("ping", {})
        durations = audit_durations(self.audit_log)
        return [durations[request] for request in requests if request in durations]


def _client(
    spec: ServerSpec, env: TmuxEnv, path_first: Path | None, log: str
) -> tuple[RawStdioClient, Path | None]:
    logs = env.root / "logs"
    audit = (
        None if spec.is_predecessor or spec.only_tool else logs / f"{spec.key}-{log}-audit.jsonl"
    )
    server_env = {**env.base_env(path_first), **spec.env}
    if audit is not None:
        server_env["GRIDMUX_AUDIT_LOG"] = str(audit)
    client = RawStdioClient(
        spec.argv, env=server_env, cwd=str(env.root), log_file=logs / f"{spec.key}-{log}.log"
    )
    return client, audit


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
            client, audit = _client(spec, env, directory, log)
            try:
                await stack.enter_async_context(client)
            except Exception as exc:
                raise BenchError(f"{spec.label} did not start: {exc}") from exc
            servers.append((McpServer(spec, client, audit), counter))
        yield servers


async def tool_list_bytes(spec: ServerSpec, env: TmuxEnv) -> int:
    """Bytes of the ``tools/list`` answer as the client receives it (one JSON line)."""
    client, _ = _client(spec, env, None, "tool-list")
    try:
        async with client:
            tools = await client.list_tools()
            size = client.last_answer_bytes
    except Exception as exc:
        raise BenchError(f"{spec.label} did not start: {exc}") from exc
    if not tools:
        raise BenchError(f"{spec.label} listed no tools")
    return size


async def startup_seconds(spec: ServerSpec, env: TmuxEnv) -> float:
    """Seconds from spawning the server to the answer of its first tools/list."""
    client, _ = _client(spec, env, None, "startup")
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
