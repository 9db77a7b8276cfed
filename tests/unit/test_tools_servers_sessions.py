"""Server and session tools through the MCP client, on the simulator:
list_servers, get_server_info, kill_server, get_session_info,
rename_session, kill_session; and the registration of every hierarchy tool.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_servers_sessions.py."""

from __future__ import annotations

import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from tests.mcp_calls import call
from tmuxsim import SimBackend

REF = ServerRef()
SIM_DEFAULT_SOCKET = f"/tmp/tmux-{os.getuid()}/default"


# -- list_servers ---------------------------------------------------------------------


@pytest.fixture
def socket_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private TMUX_TMPDIR (short: socket paths are limited to ~108 bytes)."""
    root = Path(tempfile.mkdtemp(prefix="gmxu-", dir="/tmp"))
    monkeypatch.setenv("TMUX_TMPDIR", str(root))
    (root / f"tmux-{os.getuid()}").mkdir()
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def listeners() -> Iterator[list[socket.socket]]:
    opened: list[socket.socket] = []
    yield opened
    for sock in opened:
        sock.close()


def listen(path: Path, opened: list[socket.socket]) -> str:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(4)
    opened.append(sock)
    return str(path)


def stale(path: Path) -> str:
    """A socket file nobody listens on any more (a server that went away)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind(str(path))
    return str(path)


async def test_list_servers_finds_live_sockets_and_extra_paths_and_they_are_addressable(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    socket_dir: Path,
    listeners: list[socket.socket],
) -> None:
    canonical = socket_dir / f"tmux-{os.getuid()}"
    alpha = listen(canonical / "alpha", listeners)
    beta = listen(canonical / "beta", listeners)
    stale(canonical / "gone")
    (canonical / "notes.txt").write_text("not a socket")
    listen(canonical / "quiet", listeners)  # accepts connections but no tmux answers
    elsewhere = socket_dir / "elsewhere"
    elsewhere.mkdir()
    extra = listen(elsewhere / "custom.sock", listeners)
    backend.new_session(ServerRef(socket_path=alpha), name="a1")
    backend.new_session(ServerRef(socket_path=beta), name="b1")
    backend.new_session(ServerRef(socket_path=beta), name="b2")
    backend.new_session(ServerRef(socket_path=extra), name="x1")

    found = (await call(client, "list_servers"))["result"]
    assert [(s["socket_name"], s["socket_path"], s["session_count"]) for s in found] == [
        ("alpha", alpha, 1),
        ("beta", beta, 2),
    ]
    assert all(s["is_alive"] and s["version"] == "3.3a" for s in found)

    missing = str(elsewhere / "missing.sock")
    with_extra = (
        await call(
            client,
            "list_servers",
            extra_socket_paths=[extra, missing, str(elsewhere), alpha],
        )
    )["result"]
    assert [s["socket_path"] for s in with_extra] == [alpha, beta, extra]
    assert with_extra[2]["socket_name"] is None  # found by path only: address it by path
    listed = (await call(client, "list_sessions", socket_path=extra))["result"]
    assert [s["session_name"] for s in listed] == ["x1"]
    info = await call(client, "get_server_info", socket_name="beta")
    assert info["session_count"] == 0  # the sim's -L sockets live in /tmp, not TMUX_TMPDIR
    by_path = await call(client, "get_server_info", socket_path=beta)
    assert (by_path["is_alive"], by_path["session_count"]) == (True, 2)


async def test_get_server_info_reports_a_stopped_then_a_running_server(
    client: Client,  # type: ignore[type-arg]
) -> None:
    stopped = await call(client, "get_server_info")
    assert stopped == {
        "is_alive": False,
        "socket_name": "default",
        "socket_path": SIM_DEFAULT_SOCKET,
        "session_count": 0,
        "version": "3.3a",
    }
    await call(client, "create_session", session_name="s")
    await call(client, "create_session", session_name="t")
    running = await call(client, "get_server_info")
    assert (running["is_alive"], running["session_count"]) == (True, 2)
    other = await call(client, "get_server_info", socket_name="other")
    assert (other["is_alive"], other["socket_name"]) == (False, "other")


async def test_kill_server_ends_the_server_and_only_that_one(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    await call(client, "create_session", session_name="s")
    await call(client, "create_session", session_name="keep", socket_name="other")
    said = (await call(client, "kill_server"))["result"]
    assert said == f"Server killed: {SIM_DEFAULT_SOCKET}"
    assert backend.server_info(REF).is_alive is False
    assert [s.session_name for s in backend.list_sessions(ServerRef(socket_name="other"))] == [
        "keep"
    ]
    again = (await call(client, "kill_server"))["result"]  # already gone: success, said so
    assert (
        again
        == f"No tmux server runs on {SIM_DEFAULT_SOCKET}: it is already gone, nothing to kill."
    )
    assert [s.session_name for s in backend.list_sessions(ServerRef(socket_name="other"))] == [
        "keep"
    ]
