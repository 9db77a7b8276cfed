"""The direct path for ``tools/call`` (``gridmux._direct``).

Two ways to be wrong, two kinds of test:

* **It answers differently.** The same script of calls goes to two
  ``gridmux --backend sim`` processes over stdio, one with the direct path
  and one with ``--direct-calls off`` (everything through the MCP SDK and
  FastMCP); the two simulators start alike, so every answer and every audit
  record must be the same (timings aside).
* **It answers what it must not, or not what it should.** In-process, lines
  are fed to :class:`DirectCalls` as the stdio transport feeds them, and what
  it takes, leaves to the SDK and writes is checked.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp.server.middleware import Middleware

from gridmux import Settings, create_server
from gridmux._direct import DirectCalls, direct_calls, plain_tool
from tmuxsim import SimBackend

GRIDMUX = Path(sys.executable).with_name("gridmux")
TIMINGS = {"elapsed_seconds", "ts", "duration_ms"}
RANDOM_BUFFER = re.compile(r"gridmux_[0-9a-f]{32}")


class StdioPeer:
    """One server process; one request at a time, answers matched by id."""

    def __init__(self, *args: str, audit: Path) -> None:
        self.proc = subprocess.Popen(
            [str(GRIDMUX), "--backend", "sim", "--audit-log", str(audit), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "FASTMCP_CHECK_FOR_UPDATES": "off"},
        )
        self._selector = selectors.DefaultSelector()
        assert self.proc.stdout is not None
        self._selector.register(self.proc.stdout, selectors.EVENT_READ)
        self._next = 0
        self._buffer = b""
        #: ids of answers read while waiting for another one
        self.seen: list[object] = []
        #: what the server sent that was not an answer (notifications, requests)
        self.notifications: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Any = None, **extra: Any) -> dict[str, Any]:
        self._next += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next, "method": method}
        if params is not None:
            message["params"] = params
        message.update(extra)
        self.send(message)
        return self.answer(message["id"])

    def answer(self, wanted: object, timeout: float = 30) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            reply = json.loads(self._line(deadline))
            if "method" in reply:
                self.notifications.append(reply)
                continue
            if reply.get("id") == wanted:
                return dict(reply)
            self.seen.append(reply.get("id"))

    def _line(self, deadline: float) -> bytes:
        """The next line the server wrote (read unbuffered: select() sees only the pipe)."""
        assert self.proc.stdout is not None
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "no answer in time"
            if self._selector.select(remaining):
                chunk = os.read(self.proc.stdout.fileno(), 1 << 16)
                assert chunk, "the server closed its output"
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def handshake(self, version: str) -> None:
        info = {"name": "t", "version": "0"}
        params = {"protocolVersion": version, "capabilities": {}, "clientInfo": info}
        assert self.request("initialize", params)["result"]["protocolVersion"] == version
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()


def untimed(value: Any) -> Any:
    """``value`` without timings and random buffer names (they differ from run
    to run, not by path)."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMINGS}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    if isinstance(value, str) and value.startswith("{"):
        try:
            return json.dumps(untimed(json.loads(value)))
        except ValueError:
            pass
    if isinstance(value, str):
        return RANDOM_BUFFER.sub("gridmux_<random>", value)
    return value


#: (tool, arguments): every hot tool, errors of every kind, a nested batch.
SCRIPT: list[tuple[str, Any]] = [
    ("create_session", {"session_name": "a"}),
    ("list_sessions", {}),
    ("list_windows", {"session_name": "a"}),
    ("list_panes", {}),
    ("get_pane_info", {"pane_id": "%0"}),
    ("send_keys", {"pane_id": "%0", "keys": "echo one"}),
    ("capture_pane", {"pane_id": "%0"}),
    ("snapshot_pane", {"pane_id": "%0"}),
    ("capture_since", {"pane_id": "%0"}),
    ("send_keys", {"pane_id": "%0", "keys": "printf 'two\\nthree\\n'"}),
    ("capture_since", "CURSOR"),
    ("search_panes", {"pattern": "three"}),
    ("display_message", {"pane_id": "%0", "format_string": "#{pane_id} #{pane_width}"}),
    ("split_window", {"pane_id": "%0", "direction": "right"}),
    ("resize_pane", {"pane_id": "%1", "width": 20}),
    ("set_option", {"option": "history-limit", "value": "500", "scope": "session", "target": "a"}),
    ("show_option", {"option": "history-limit", "scope": "session", "target": "a"}),
    ("set_environment", {"name": "API_TOKEN", "value": "sekrit", "session_name": "a"}),
    ("load_buffer", {"content": "héllo ✓", "logical_name": "note"}),
    (
        "call_readonly_tools_batch",
        {
            "operations": [
                {"tool": "list_panes", "arguments": {}},
                {"tool": "capture_pane", "arguments": {"pane_id": "%9"}},
            ],
            "on_error": "continue",
        },
    ),
    # tool errors: a missing pane, bad cursors, bad and missing arguments
    ("get_pane_info", {"pane_id": "%99"}),
    ("capture_pane", {"pane_id": "nope"}),
    ("capture_since", {"cursor": "gridmux-since-v1:AAAA"}),
    ("capture_pane", {"pane_id": 5}),
    ("capture_pane", {"pane_id": "%0", "start": "top"}),
    ("search_panes", {}),
    ("list_panes", {"not_a_parameter": 1}),
    ("capture_since", {"pane_id": "%0", "max_lines": 0}),
    # not served directly: unknown, hidden at this tier, arguments not an object
    ("no_such_tool", {}),
    ("kill_server", {}),
    ("list_panes", ["x"]),
]


def run_script(peer: StdioPeer) -> list[dict[str, Any]]:
    answers: list[dict[str, Any]] = []
    cursor = None
    for tool, scripted in SCRIPT:
        arguments = {"cursor": cursor} if scripted == "CURSOR" else scripted
        reply = peer.request("tools/call", {"name": tool, "arguments": arguments})
        structured = reply.get("result", {}).get("structuredContent") or {}
        cursor = structured.get("cursor", cursor)
        answers.append(reply)
    # a progress token (ignored by plain tools) and a client id (audited)
    meta = {"progressToken": "p1", "client_id": "c1"}
    answers.append(
        peer.request("tools/call", {"name": "list_panes", "arguments": {}, "_meta": meta})
    )
    return answers


def audit_records(path: Path) -> list[dict[str, Any]]:
    return [untimed(json.loads(line)) for line in path.read_text().splitlines()]


@pytest.fixture
def peers(tmp_path: Path) -> Iterator[tuple[StdioPeer, StdioPeer]]:
    direct = StdioPeer(audit=tmp_path / "direct.jsonl")
    sdk = StdioPeer("--direct-calls", "off", audit=tmp_path / "sdk.jsonl")
    try:
        yield direct, sdk
    finally:
        direct.close()
        sdk.close()


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
def test_direct_answers_equal_the_sdk_path(
    peers: tuple[StdioPeer, StdioPeer], tmp_path: Path, version: str
) -> None:
    direct, sdk = peers
    for peer in peers:
        peer.handshake(version)
    got, expected = run_script(direct), run_script(sdk)
    assert len(got) == len(expected) == len(SCRIPT) + 1
    for (tool, _), mine, theirs in zip([*SCRIPT, ("list_panes", {})], got, expected, strict=True):
        assert untimed(mine) == untimed(theirs), tool
    assert direct.notifications == sdk.notifications
    # the script did reach tmux's simulator and its errors
    assert got[10]["result"]["structuredContent"]["lines"] == ["$ printf 'two\\nthree\\n'"] or (
        "two" in got[10]["result"]["structuredContent"]["lines"]
    )
    assert sum(bool(r.get("result", {}).get("isError")) for r in got) >= 10
    direct.close()
    sdk.close()
    mine_log = audit_records(tmp_path / "direct.jsonl")
    assert mine_log == audit_records(tmp_path / "sdk.jsonl")
    assert any(r.get("client_id") == "c1" for r in mine_log)
    assert any(r.get("parent") == "call_readonly_tools_batch" for r in mine_log)


def test_a_direct_call_is_cancelled_and_never_answered(tmp_path: Path) -> None:
    """The cancellation comes in the same read as the call: it is taken before the
    call's task first runs, so the outcome does not depend on timing."""
    peer = StdioPeer(audit=tmp_path / "audit.jsonl")
    try:
        peer.handshake("2025-11-25")
        params = {"name": "list_panes", "arguments": {}}
        cancel = {"requestId": "gone", "reason": "test"}
        both = [
            {"jsonrpc": "2.0", "id": "gone", "method": "tools/call", "params": params},
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": cancel},
            {"jsonrpc": "2.0", "id": "after", "method": "tools/call", "params": params},
        ]
        assert peer.proc.stdin is not None
        peer.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in both))
        peer.proc.stdin.flush()
        assert peer.request("ping")["result"] == {}
        if "after" not in peer.seen:
            reply = peer.answer("after")
            assert "no server running" in reply["result"]["content"][0]["text"]
        peer.close()
        assert peer.proc.stdout is not None
        tail = peer._buffer + peer.proc.stdout.read()
        rest = [json.loads(line).get("id") for line in tail.splitlines()]
        assert "gone" not in peer.seen + rest
        records = audit_records(tmp_path / "audit.jsonl")
        assert [r["request_id"] for r in records] == ["after"]
    finally:
        peer.close()


# -- in-process: which lines the direct path takes ----------------------------------


class Wire:
    """Stands in for the transport's StreamWriter: collects whole lines."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []

    def write(self, data: bytes) -> None:
        assert data.endswith(b"\n") and data.count(b"\n") == 1
        self.lines.append(json.loads(data))

    async def drain(self) -> None:
        return None


def line(message: dict[str, Any]) -> bytes:
    return json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n"


def call_line(request_id: object, name: str, arguments: Any = None, **params: Any) -> bytes:
    body: dict[str, Any] = {"name": name, **params}
    if arguments is not None:
        body["arguments"] = arguments
    return line({"id": request_id, "method": "tools/call", "params": body})


INITIALIZE = line(
    {
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {}},
    }
)
INITIALIZED = line({"method": "notifications/initialized"})
ANSWER = json.dumps({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-11-25"}})


def ready(calls: DirectCalls) -> bool:
    return calls.ready


async def settle(calls: DirectCalls) -> None:
    await calls.finish()
    await asyncio.sleep(0)


async def build(safety: str = "mutating") -> tuple[DirectCalls, Wire]:
    mcp = create_server(SimBackend(), Settings(backend="sim", safety=safety))
    wire = Wire()
    calls = direct_calls(mcp, wire)  # type: ignore[arg-type]
    assert calls is not None
    await calls.load()
    return calls, wire


async def test_nothing_is_taken_before_the_handshake_completes() -> None:
    calls, wire = await build()
    assert not calls.inbound(call_line(1, "list_panes", {}))
    assert not calls.inbound(INITIALIZE)
    assert not calls.inbound(call_line(2, "list_panes", {}))  # no answer to initialize yet
    calls.outbound(ANSWER)
    assert not ready(calls)
    assert not calls.inbound(INITIALIZED)
    assert ready(calls)
    assert calls.inbound(call_line(3, "create_session", {"session_name": "x"}))
    await settle(calls)
    assert calls.inbound(call_line("four", "list_panes", {}))
    await settle(calls)
    assert [(m["jsonrpc"], m["id"]) for m in wire.lines] == [("2.0", 3), ("2.0", "four")]
    made = wire.lines[0]["result"]["structuredContent"]
    panes = wire.lines[1]["result"]["structuredContent"]["result"]
    assert [p["pane_id"] for p in panes] == [made["active_pane_id"]]


async def test_a_connection_opened_in_the_2026_era_is_never_taken() -> None:
    calls, _ = await build()
    envelope = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}
    assert not calls.inbound(call_line(1, "list_panes", {}, _meta=envelope))
    assert not calls.inbound(INITIALIZED)
    calls.outbound(ANSWER)
    assert not ready(calls)
    assert not calls.inbound(call_line(2, "list_panes", {}))


@pytest.mark.parametrize(
    "request_line",
    [
        call_line(5, "no_such_tool", {}),
        call_line(5, "kill_server", {}),  # hidden at the mutating tier
        call_line(5, "run_command", {"command": "true"}),  # reports progress
        call_line(5, "list_panes", ["x"]),
        call_line(5, "list_panes", {}, task={"ttl": 1}),
        call_line(5, "list_panes", {}, _meta={"io.modelcontextprotocol/protocolVersion": "x"}),
        call_line(5, "list_panes", {}, _meta={"fastmcp": {"version": "1"}}),
        call_line(None, "list_panes", {}),
        call_line(True, "list_panes", {}),
        line({"id": 5, "method": "tools/call"}),
        line({"id": [5], "method": "tools/call", "params": {"name": "list_panes"}}),
        line({"id": 5, "method": "tools/list"}),
        b'[{"jsonrpc": "2.0", "id": 5, "method": "tools/call"}]\n',
        b"not json\n",
    ],
)
async def test_the_sdk_keeps_what_the_direct_path_cannot_answer_alike(
    request_line: bytes,
) -> None:
    calls, wire = await build()
    calls.inbound(INITIALIZE)
    calls.outbound(ANSWER)
    calls.inbound(INITIALIZED)
    assert not calls.inbound(request_line)
    await settle(calls)
    assert wire.lines == []


async def test_a_cancel_for_another_request_is_the_sdks() -> None:
    calls, _ = await build()
    for message in (INITIALIZE, INITIALIZED):
        calls.inbound(message)
    calls.outbound(ANSWER)
    cancel = {"method": "notifications/cancelled", "params": {"requestId": 9}}
    assert not calls.inbound(line(cancel))


async def test_every_tool_but_the_progress_reporters_is_plain() -> None:
    mcp = create_server(SimBackend(), Settings(backend="sim", safety="destructive"))
    tools = await mcp.list_tools()
    assert len(tools) == 57
    assert {t.name for t in tools if not plain_tool(t)} == {
        "run_command",
        "wait_for_text",
        "wait_for_content_change",
    }


async def test_a_middleware_that_sees_calls_turns_the_direct_path_off() -> None:
    class Watcher(Middleware):
        async def on_request(self, context: Any, call_next: Any) -> Any:
            return await call_next(context)

    mcp = create_server(SimBackend(), Settings(backend="sim"))
    assert direct_calls(mcp, Wire()) is not None  # type: ignore[arg-type]
    mcp.add_middleware(Watcher())
    assert direct_calls(mcp, Wire()) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("setting", ["strict_input_validation", "_mask_error_details"])
async def test_a_server_setting_read_from_the_request_context_turns_it_off(setting: str) -> None:
    mcp = create_server(SimBackend(), Settings(backend="sim"))
    setattr(mcp, setting, True)
    assert direct_calls(mcp, Wire()) is None  # type: ignore[arg-type]


async def test_the_tool_table_is_read_before_the_first_call_only() -> None:
    mcp = create_server(SimBackend(), Settings(backend="sim"))
    wire = Wire()
    calls = direct_calls(mcp, wire)  # type: ignore[arg-type]
    assert calls is not None
    calls.inbound(INITIALIZE)
    await calls.prepare(call_line(1, "list_sessions", {}))  # not ready: nothing read
    assert not calls.inbound(call_line(1, "list_sessions", {}))
    calls.outbound(ANSWER)
    calls.inbound(INITIALIZED)
    await calls.prepare(line({"id": 2, "method": "tools/list"}))
    assert not calls.inbound(call_line(3, "list_sessions", {}))  # no table yet
    await calls.prepare(call_line(3, "list_sessions", {}))
    assert calls.inbound(call_line(3, "list_sessions", {}))
    await settle(calls)
    assert [m["id"] for m in wire.lines] == [3]
