"""Server and session tools through the MCP client, on both backends:
list_servers, get_server_info, kill_server, get_session_info,
rename_session, kill_session; and the registration of every hierarchy tool."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from tests.mcp_calls import call, call_error

HIERARCHY = {
    # name: (tier, title, readOnly, destructive, idempotent)
    "list_servers": ("readonly", "List tmux Servers", True, False, True),
    "get_server_info": ("readonly", "Get tmux Server Info", True, False, True),
    "kill_server": ("destructive", "Kill tmux Server", False, True, True),
    "get_session_info": ("readonly", "Get tmux Session Info", True, False, True),
    "rename_session": ("mutating", "Rename tmux Session", False, False, True),
    "kill_session": ("destructive", "Kill tmux Session", False, True, True),
    "list_windows": ("readonly", "List tmux Windows", True, False, True),
    "get_window_info": ("readonly", "Get tmux Window Info", True, False, True),
    "create_window": ("mutating", "Create tmux Window", False, False, False),
    "select_window": ("mutating", "Select tmux Window", False, False, True),
    "split_window": ("mutating", "Split tmux Window", False, False, False),
    "rename_window": ("mutating", "Rename tmux Window", False, False, True),
    "kill_window": ("destructive", "Kill tmux Window", False, True, True),
    "select_layout": ("mutating", "Select tmux Layout", False, False, True),
    "resize_window": ("mutating", "Resize tmux Window", False, False, True),
    "move_window": ("mutating", "Move tmux Window", False, False, True),
}


async def sessions(client: Client) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_sessions"))["result"]
    return listed


async def test_hierarchy_tools_are_registered_with_tiers_titles_and_socket_params(
    client: Client,  # type: ignore[type-arg]
) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    for name, (tier, title, read_only, destructive, idempotent) in HIERARCHY.items():
        wire = tools[name].model_dump(by_alias=True, exclude_none=True)
        assert wire["title"] == title, name
        hints = effective_hints(tools[name].annotations)
        assert (hints["readOnlyHint"], hints["destructiveHint"]) == (read_only, destructive), name
        assert hints["idempotentHint"] is idempotent, name
        assert hints["openWorldHint"] is False, name
        params = list(wire["inputSchema"]["properties"])
        if name == "list_servers":
            assert params == ["extra_socket_paths"]
        else:
            assert params[-1] == "socket_path" and "socket_name" in params, name
        assert "outputSchema" not in wire, name  # listed only with --output-schemas on
        meta = tools[name].meta or {}
        assert meta["fastmcp"]["tags"] == [tier], name
        assert meta.get("anthropic/alwaysLoad", False) is (name == "list_windows"), name


@pytest.mark.parametrize(
    ("safety", "shown"),
    [("readonly", {"readonly"}), ("mutating", {"readonly", "mutating"})],
)
async def test_each_hierarchy_tool_is_in_its_tier(
    ref: ServerRef, backend: TmuxBackend, safety: str, shown: set[str]
) -> None:
    server = create_server(backend, Settings(socket_path=ref.socket_path, safety=safety))
    async with Client(server) as c:
        names = {t.name for t in await c.list_tools()}
    assert names & set(HIERARCHY) == {name for name, spec in HIERARCHY.items() if spec[0] in shown}


# -- list_servers ---------------------------------------------------------------------


def listen(path: Path, opened: list[socket.socket]) -> str:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.bind(str(path))
    sock.listen(4)
    opened.append(sock)
    return str(path)


async def test_list_servers_with_no_socket_directory_is_empty(
    client: Client,  # type: ignore[type-arg]
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TMUX_TMPDIR", str(tmp_path))  # no tmux-UID folder in it
    assert (await call(client, "list_servers"))["result"] == []


@pytest.mark.parametrize("path", ["relative/sock", "", "/tmp/a\0b"])
async def test_list_servers_rejects_paths_that_are_not_absolute(
    client: Client,  # type: ignore[type-arg]
    path: str,
) -> None:
    error = await call_error(client, "list_servers", extra_socket_paths=[path])
    assert "not an absolute path" in error


# -- get_server_info, kill_server -----------------------------------------------------


async def test_get_server_info_rejects_a_bad_socket(client: Client) -> None:  # type: ignore[type-arg]
    assert "invalid socket_path" in await call_error(client, "get_server_info", socket_path="x")
    assert "invalid socket_name" in await call_error(client, "get_server_info", socket_name="a/b")


@pytest.fixture
async def guarded(ref: ServerRef, backend: TmuxBackend) -> AsyncIterator[tuple[Client, str, str]]:  # type: ignore[type-arg]
    """A client whose MCP server runs in a pane of session 'home' ($0) on the default server."""
    home = backend.new_session(ref, name="home")
    backend.new_session(ref, name="work")
    assert home.active_pane_id is not None
    settings = Settings(
        safety="destructive",
        caller_pane=home.active_pane_id,
        socket_path=ref.socket_path,
        allow_other_servers=True,
        caller_socket=backend.server_info(ref).socket_path,
    )
    async with Client(create_server(backend, settings)) as c:
        yield c, home.session_id, home.active_pane_id


async def test_kill_server_refuses_to_kill_the_server_the_mcp_server_runs_in(
    ref: ServerRef,
    guarded: tuple[Client, str, str],  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    client, _, caller = guarded
    error = await call_error(client, "kill_server")
    assert "refusing to kill the tmux server" in error and caller in error
    assert [s.session_name for s in backend.list_sessions(ref)] == ["home", "work"]
    # Another server is fair game.
    backend.new_session(ServerRef(socket_name="other"), name="x")
    await call(client, "kill_server", socket_name="other")
    assert backend.server_info(ServerRef(socket_name="other")).is_alive is False


# -- get_session_info -------------------------------------------------------------------


async def test_get_session_info_by_id_by_name_and_the_only_session(
    client: Client,  # type: ignore[type-arg]
) -> None:
    made = await call(client, "create_session", session_name="dev")
    assert await call(client, "get_session_info") == made
    assert await call(client, "get_session_info", session_id=made["session_id"]) == made
    assert await call(client, "get_session_info", session_name="dev") == made
    assert made["window_count"] == 1 and made["active_pane_id"].startswith("%")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "no session given and the server has 2 sessions: $0 (dev), $1 (ops)"),
        ({"session_id": "$9"}, "no session $9"),
        ({"session_id": "9"}, "not a tmux session id"),
        ({"session_name": "de"}, "no session 'de'"),
        ({"session_id": "$1", "session_name": "dev"}, "is named 'ops', not 'dev'"),
    ],
)
async def test_get_session_info_never_guesses(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str,
) -> None:
    await call(client, "create_session", session_name="dev")
    await call(client, "create_session", session_name="ops")
    assert needle in await call_error(client, "get_session_info", **args)


async def test_get_session_info_on_an_empty_server_says_so(client: Client) -> None:  # type: ignore[type-arg]
    assert "has no sessions" in await call_error(client, "get_session_info")


# -- rename_session ----------------------------------------------------------------------


async def test_rename_session_renames_and_keeps_the_id(client: Client) -> None:  # type: ignore[type-arg]
    made = await call(client, "create_session", session_name="old")
    renamed = await call(client, "rename_session", new_name="new", session_name="old")
    assert renamed == {**made, "session_name": "new"}
    assert [s["session_name"] for s in await sessions(client)] == ["new"]
    # The only session needs no target; renaming to its own name is harmless.
    assert (await call(client, "rename_session", new_name="new"))["session_name"] == "new"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"new_name": "b", "session_name": "a"}, "already exists"),
        ({"new_name": "", "session_name": "a"}, "invalid session name"),
        ({"new_name": "x:y", "session_name": "a"}, "invalid session name"),
        ({"new_name": "x.y", "session_name": "a"}, "invalid session name"),
        ({"new_name": "z", "session_name": "nope"}, "no session 'nope'"),
        ({"new_name": "z", "session_id": "$x"}, "not a tmux session id"),
        ({"new_name": "z"}, "no session given and the server has 2 sessions"),
    ],
)
async def test_rename_session_bad_input_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str,
) -> None:
    await call(client, "create_session", session_name="a")
    await call(client, "create_session", session_name="b")
    before = await sessions(client)
    assert needle in await call_error(client, "rename_session", **args)
    assert await sessions(client) == before


# -- kill_session --------------------------------------------------------------------------


async def test_kill_session_by_name_and_by_id(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    await call(client, "create_session", session_name="a")
    b = await call(client, "create_session", session_name="b")
    await call(client, "create_session", session_name="c")
    assert (await call(client, "kill_session", session_name="a"))["result"] == "Session killed: a"
    said = await call(client, "kill_session", session_id=b["session_id"])
    assert said["result"] == "Session killed: b"
    assert [s.session_name for s in backend.list_sessions(ref)] == ["c"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "needs session_id or session_name"),
        ({"session_name": "x"}, "no session 'x'"),
        ({"session_name": "a."}, "no session 'a.'"),
        ({"session_id": "$7"}, "no session $7"),
        ({"session_id": "a"}, "not a tmux session id"),
    ],
)
async def test_kill_session_needs_an_exact_existing_session(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str,
) -> None:
    await call(client, "create_session", session_name="a")
    before = await sessions(client)
    assert needle in await call_error(client, "kill_session", **args)
    assert await sessions(client) == before


async def test_kill_session_refuses_the_session_the_mcp_server_runs_in(
    ref: ServerRef,
    guarded: tuple[Client, str, str],  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    client, home_id, caller = guarded
    for args in ({"session_name": "home"}, {"session_id": home_id}):
        error = await call_error(client, "kill_session", **args)
        assert "refusing to kill session 'home'" in error and caller in error
    assert [s.session_name for s in backend.list_sessions(ref)] == ["home", "work"]
    await call(client, "kill_session", session_name="work")
    assert [s.session_name for s in backend.list_sessions(ref)] == ["home"]
