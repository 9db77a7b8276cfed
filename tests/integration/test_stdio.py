"""The installed ``gridmux`` command as an MCP server over stdio, against real tmux."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gridmux.backend import ServerRef
from tests.mcp_calls import until_shown, warm_up

pytestmark = pytest.mark.tmux

GRIDMUX = Path(sys.executable).with_name("gridmux")
TOOLS = {
    "list_sessions",
    "create_session",
    "list_panes",
    "get_pane_info",
    "capture_pane",
    "snapshot_pane",
    "send_keys",
    "capture_since",
}
#: Hidden at the default tier (mutating); the other 52 of the 57 are listed.
DESTRUCTIVE = {
    "kill_server",
    "kill_session",
    "kill_window",
    "kill_pane",
    "call_destructive_tools_batch",
}


def transport(*args: str, **env: str) -> StdioTransport:
    assert GRIDMUX.exists(), f"the gridmux console script is not installed at {GRIDMUX}"
    return StdioTransport(command=str(GRIDMUX), args=list(args), env={**os.environ, **env})


@pytest.mark.parametrize("mode", ["legacy", "auto"])  # 2025-11-25 handshake, 2026-07-28
async def test_stdio_server_drives_real_tmux(tmux_server: ServerRef, mode: str) -> None:
    assert tmux_server.socket_path is not None
    env = {"GRIDMUX_SOCKET_PATH": tmux_server.socket_path}
    async with Client(transport(**env), mode=mode) as client:
        if mode == "legacy":
            assert client.initialize_result is not None
            assert client.initialize_result.server_info.name == "gridmux"
            assert "capture_since" in (client.initialize_result.instructions or "")
        listed = {t.name for t in await client.list_tools()}
        assert len(listed) == 57 - len(DESTRUCTIVE)
        assert listed >= TOOLS and not listed & DESTRUCTIVE
        made = (await client.call_tool("create_session", {"session_name": "io"})).data
        pane = made["active_pane_id"]
        prompt = await warm_up(client, pane)  # distinct rows above the cursor
        start = (await client.call_tool("capture_since", {"pane_id": pane})).structured_content
        assert start is not None
        await client.call_tool("send_keys", {"keys": "echo over stdio", "pane_id": pane})
        await until_shown(client, pane, f"over stdio\n{prompt}")
        delta = (
            await client.call_tool("capture_since", {"cursor": start["cursor"]})
        ).structured_content
        assert delta is not None
        assert delta["lines_missed"] is False
        assert delta["first_line_rewritten"] is True
        assert delta["lines"] == [f"{prompt} echo over stdio", "over stdio", prompt]
        sessions = (await client.call_tool("list_sessions", {})).structured_content
        assert sessions is not None
        assert [s["session_name"] for s in sessions["result"]] == ["io"]


async def test_stdio_server_can_serve_the_simulator() -> None:
    async with Client(transport("--backend", "sim")) as client:
        made = (await client.call_tool("create_session", {"session_name": "sim"})).data
        await client.call_tool(
            "send_keys", {"keys": "echo simulated", "pane_id": made["active_pane_id"]}
        )
        text = await until_shown(client, made["active_pane_id"], "simulated")
        assert text.splitlines() == ["$ echo simulated", "simulated", "$"]


def test_version_flag_prints_and_exits() -> None:
    out = subprocess.run(
        [str(GRIDMUX), "--version"], capture_output=True, text=True, timeout=30, check=False
    )
    assert out.returncode == 0
    assert out.stdout.startswith("gridmux ")


_HANDSHAKE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n'
    '{"jsonrpc":"2.0","method":"notifications/initialized"}\n'
    '{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    '{"jsonrpc":"2.0","id":3,"method":"tools/list"}\n'
)


@pytest.mark.parametrize("stdout_kind", ["pipe", "file"])
def test_stdio_answers_into_a_pipe_and_into_a_regular_file(
    stdout_kind: str, tmp_path: Path
) -> None:
    """FastMCP's stdio transport answers into a pipe and into a regular file alike."""
    out_path = tmp_path / "replies.jsonl"
    with out_path.open("wb") as out_file:
        proc = subprocess.Popen(
            [str(GRIDMUX), "--backend", "sim"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE if stdout_kind == "pipe" else out_file,
            stderr=subprocess.DEVNULL,
        )
        assert proc.stdin is not None
        proc.stdin.write(_HANDSHAKE.encode())
        proc.stdin.flush()
        lines: list[bytes] = []
        deadline = time.monotonic() + 30
        while len(lines) < 3 and time.monotonic() < deadline:
            if proc.stdout is not None:
                lines.append(proc.stdout.readline())
            else:
                # Whole lines only: the server may be halfway through writing one.
                lines = out_path.read_bytes().split(b"\n")[:-1]
                time.sleep(0.01)  # polling a file the server writes; no event to wait on
        proc.stdin.close()
        assert proc.wait(timeout=30) == 0
    replies = [json.loads(line) for line in lines]
    assert [reply["id"] for reply in replies] == [1, 2, 3]
    assert replies[1]["result"] == {}
    assert any(tool["name"] == "capture_since" for tool in replies[2]["result"]["tools"])
