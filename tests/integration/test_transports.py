"""The installed ``gridmux`` over stdio and streamable HTTP, both protocol eras, real tmux.

Each HTTP test starts its own server process with ``--port 0`` (a free port,
announced on stderr) and stops it by its pid when the test ends.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from fastmcp import Client
from fastmcp.client.transports import ClientTransport, StdioTransport, StreamableHttpTransport

from gridmux.backend import ServerRef
from tests.mcp_calls import until_shown, warm_up

pytestmark = pytest.mark.tmux

GRIDMUX = Path(sys.executable).with_name("gridmux")
ANNOUNCED = re.compile(r"gridmux: serving MCP at (http://127\.0\.0\.1:(\d+)/mcp)$", re.M)
TOKEN = re.compile(r"^gridmux: send Authorization: Bearer (\S+)$", re.M)
ERAS = {"auto": "2026-07-28", "legacy": "2025-11-25"}


def gridmux_env(tmux_server: ServerRef) -> dict[str, str]:
    assert GRIDMUX.exists(), f"the gridmux console script is not installed at {GRIDMUX}"
    assert tmux_server.socket_path is not None
    return {**os.environ, "GRIDMUX_SOCKET_PATH": tmux_server.socket_path}


def stop(process: subprocess.Popen[bytes]) -> int:
    """Terminate the server we started (by its pid) and wait for it to exit."""
    if process.poll() is None:
        process.terminate()
        try:
            return process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)
            raise AssertionError("gridmux did not exit within 15 s of SIGTERM") from None
    return process.returncode


class HttpServer:
    """A ``gridmux --transport http --port 0`` process and what it announced."""

    def __init__(self, env: dict[str, str], log: Path, *args: str) -> None:
        self.log = log
        with log.open("wb") as sink:
            self.process = subprocess.Popen(
                [str(GRIDMUX), "--transport", "http", "--port", "0", *args],
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
            )
        self.url, self.port, self.token = self._announced()

    def _announced(self) -> tuple[str, int, str]:
        deadline = time.monotonic() + 60
        while True:
            text = self.log.read_text(errors="replace")
            found, token = ANNOUNCED.search(text), TOKEN.search(text)
            if found and token:
                return found.group(1), int(found.group(2)), token.group(1)
            if self.process.poll() is not None:
                raise AssertionError(f"gridmux exited early:\n{self.log.read_text()}")
            assert time.monotonic() < deadline, f"no address announced:\n{self.log.read_text()}"
            time.sleep(0.05)


@pytest.fixture
def http_server(tmux_server: ServerRef, tmp_path: Path) -> Iterator[HttpServer]:
    server = HttpServer(gridmux_env(tmux_server), tmp_path / "gridmux.log")
    try:
        yield server
    finally:
        stop(server.process)


def client_transport(kind: str, tmux_server: ServerRef, http: HttpServer | None) -> ClientTransport:
    if kind == "stdio":
        return StdioTransport(command=str(GRIDMUX), args=[], env=gridmux_env(tmux_server))
    assert http is not None
    return StreamableHttpTransport(http.url, auth=http.token)


async def drive(client: Client, mode: str, word: str) -> None:  # type: ignore[type-arg]
    """One session's worth of work: tools, a capture_since delta, a resource, a prompt."""
    assert client.server_info is not None
    assert client.server_info.name == "gridmux"
    assert "capture_since" in (client.instructions or "")
    if mode == "legacy":
        assert client.initialize_result is not None
        assert client.initialize_result.protocol_version == ERAS["legacy"]
    tools = {t.name for t in await client.list_tools()}
    assert {"list_sessions", "create_session", "send_keys", "capture_since"} <= tools
    made = (await client.call_tool("create_session", {"session_name": word})).data
    pane = made["active_pane_id"]
    # Distinct rows above the prompt, so the cursor's context is unambiguous.
    prompt = await warm_up(client, pane)
    start: Any = (await client.call_tool("capture_since", {"pane_id": pane})).structured_content
    await client.call_tool("send_keys", {"keys": f"echo {word} done", "pane_id": pane})
    await until_shown(client, pane, f"{word} done\n{prompt}")
    delta: Any = (
        await client.call_tool("capture_since", {"cursor": start["cursor"]})
    ).structured_content
    assert delta["lines_missed"] is False
    assert delta["first_line_rewritten"] is True
    assert delta["lines"] == [f"{prompt} echo {word} done", f"{word} done", prompt]
    sessions = json.loads((await client.read_resource("tmux://sessions"))[0].text)  # type: ignore[union-attr]
    assert [s["session_name"] for s in sessions] == [word]
    content = (await client.read_resource(f"tmux://panes/{quote(pane, safe='')}/content"))[0]
    assert f"{word} done" in content.text  # type: ignore[union-attr]
    recipe = await client.get_prompt("run_and_wait", {"command": "true", "pane_id": pane})
    assert pane in recipe.messages[0].content.text  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", sorted(ERAS))
@pytest.mark.parametrize("kind", ["stdio", "http"])
async def test_both_transports_in_both_eras(
    tmux_server: ServerRef, tmp_path: Path, kind: str, mode: str
) -> None:
    http = (
        HttpServer(gridmux_env(tmux_server), tmp_path / "gridmux.log") if kind == "http" else None
    )
    try:
        async with Client(client_transport(kind, tmux_server, http), mode=mode) as client:
            await drive(client, mode, f"{kind}{mode}")
    finally:
        if http is not None:
            assert stop(http.process) in (0, -15)


async def test_one_http_server_serves_both_eras_at_once(http_server: HttpServer) -> None:
    transport_a = StreamableHttpTransport(http_server.url, auth=http_server.token)
    transport_b = StreamableHttpTransport(http_server.url, auth=http_server.token)
    async with (
        Client(transport_a, mode="auto") as modern,
        Client(transport_b, mode="legacy") as old,
    ):
        made = (await modern.call_tool("create_session", {"session_name": "shared"})).data
        seen = (await old.call_tool("list_sessions", {})).structured_content
        assert seen is not None
        assert [s["session_id"] for s in seen["result"]] == [made["session_id"]]


def post(port: int, headers: dict[str, str]) -> int:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": ERAS["legacy"],
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "0"},
        },
    }
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request(
            "POST",
            "/mcp",
            body=json.dumps(body),
            headers={
                "Content-Type": "application/json",
                "Accept": "application/json, text/event-stream",
                **headers,
            },
        )
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_http_refuses_foreign_hosts_and_origins(http_server: HttpServer) -> None:
    port = http_server.port
    bearer = {"Authorization": f"Bearer {http_server.token}"}
    assert urlsplit(http_server.url).path == "/mcp"
    assert post(port, {"Host": f"127.0.0.1:{port}", **bearer}) == 200
    assert post(port, {"Host": f"localhost:{port}", **bearer}) == 200
    assert post(port, {"Host": f"127.0.0.1:{port}"}) == 401  # no token
    assert post(port, {"Host": "attacker.example", **bearer}) == 421  # DNS rebinding
    origin = {"Host": f"127.0.0.1:{port}", "Origin": "http://attacker.example", **bearer}
    assert post(port, origin) == 403  # a web page's cross-site request


def test_http_server_stops_on_sigterm(http_server: HttpServer) -> None:
    assert http_server.process.poll() is None
    assert stop(http_server.process) in (0, -15)
    refused = False
    try:
        post(http_server.port, {"Host": f"127.0.0.1:{http_server.port}"})
    except OSError:
        refused = True
    assert refused, "the port still answered after the server exited"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1"])
def test_non_loopback_hosts_are_refused_at_start(tmux_server: ServerRef, host: str) -> None:
    done = subprocess.run(
        [str(GRIDMUX), "--transport", "http", "--host", host, "--port", "0"],
        env=gridmux_env(tmux_server),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert f"--host={host!r}: refusing to serve on a non-loopback address" in done.stderr
    assert "serving MCP" not in done.stderr
    assert done.stdout == ""
