"""Tier and target hardening on real tmux (issue 16): self-kill protection
whatever the socket's spelling, socket paths that are not sockets refused
before tmux runs, confinement to the configured server."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call, call_error

from .conftest import RawTmux

pytestmark = pytest.mark.tmux


@pytest.fixture
async def guarded(
    backend: TmuxCommandBackend, tmux_server: ServerRef, quiet_pane: str
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A destructive-tier client whose server believes it runs in ``quiet_pane``."""
    settings = Settings(
        socket_path=tmux_server.socket_path,
        caller_pane=quiet_pane,
        caller_socket=tmux_server.socket_path,
        safety="destructive",
    )
    async with Client(create_server(backend, settings)) as client:
        yield client


def spellings(socket: str, tmp_path: Path) -> list[str]:
    """The caller's socket path written five other ways."""
    folder, name = os.path.split(socket)
    link = tmp_path / "link.sock"
    link.symlink_to(socket)
    return [
        f"{folder}//{name}",
        f"{folder}/./{name}",
        f"{folder}/../{os.path.basename(folder)}/{name}",
        str(link),
        f"/{socket}",
    ]


@pytest.mark.parametrize("tool", ["kill_pane", "kill_window", "kill_session", "kill_server"])
async def test_self_kill_protection_sees_through_socket_spellings(
    guarded: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    tmux_server: ServerRef,
    quiet_pane: str,
    tmp_path: Path,
    tool: str,
) -> None:
    assert tmux_server.socket_path is not None
    ids = tmux("display-message", "-p", "-t", quiet_pane, "#{window_id} #{session_id}").split()
    target = {
        "kill_pane": {"pane_id": quiet_pane},
        "kill_window": {"window_id": ids[0]},
        "kill_session": {"session_id": ids[1]},
        "kill_server": {},
    }[tool]
    for socket in spellings(tmux_server.socket_path, tmp_path):
        error = await call_error(guarded, tool, socket_path=socket, **target)
        assert "where this MCP server itself runs" in error, socket
    assert quiet_pane in tmux("list-panes", "-a", "-F", "#{pane_id}").split()


async def test_respawn_protection_sees_through_a_symlink(
    guarded: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    tmux_server: ServerRef,
    quiet_pane: str,
    tmp_path: Path,
) -> None:
    assert tmux_server.socket_path is not None
    pid = tmux("display-message", "-p", "-t", quiet_pane, "#{pane_pid}")
    for socket in spellings(tmux_server.socket_path, tmp_path):
        error = await call_error(
            guarded, "respawn_pane", pane_id=quiet_pane, kill=True, socket_path=socket
        )
        assert "where this MCP server itself runs" in error, socket
    assert tmux("display-message", "-p", "-t", quiet_pane, "#{pane_pid}") == pid


async def test_create_session_leaves_a_file_at_socket_path_alone(
    client: Client,  # type: ignore[type-arg]
    tmp_path: Path,
) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    link = tmp_path / "link"
    link.symlink_to(precious)
    for path in (precious, link, tmp_path):
        error = await call_error(client, "create_session", session_name="x", socket_path=str(path))
        assert "exists and is not a socket" in error
    assert precious.read_text() == "keep me" and link.is_symlink()
    missing = tmp_path / "no-such-dir" / "s.sock"
    assert "does not exist" in await call_error(
        client, "create_session", session_name="x", socket_path=str(missing)
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "precious.txt"]


async def test_a_configured_socket_confines_calls_on_real_tmux(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
) -> None:
    assert tmux_server.socket_path is not None
    elsewhere = tmp_path / "else.sock"
    settings = Settings(socket_path=tmux_server.socket_path, safety="destructive")
    async with Client(create_server(backend, settings)) as confined:
        for tool, args in [
            ("create_session", {"session_name": "x"}),
            ("list_sessions", {}),
            ("kill_server", {}),
        ]:
            error = await call_error(confined, tool, socket_path=str(elsewhere), **args)
            assert "confined to tmux server" in error
        link = tmp_path / "same.sock"
        link.symlink_to(tmux_server.socket_path)
        sessions = await call(confined, "list_sessions", socket_path=str(link))
        assert [s["session_name"] for s in sessions["result"]] == ["quiet"]
        servers = await call(confined, "list_servers")
        assert [s["socket_path"] for s in servers["result"]] == [tmux_server.socket_path]
    assert not elsewhere.exists()
    assert tmux("list-sessions", "-F", "#{session_name}").split() == ["quiet"]
