"""Window tools through the MCP client, on both backends: list_windows,
get_window_info, create_window, select_window, rename_window, kill_window.
(split_window, select_layout, resize_window, move_window: test_window_layout.py.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.window_views import everything, windows
from tests.mcp_calls import call, call_error

# -- list_windows, get_window_info ------------------------------------------------------


async def test_list_windows_all_per_session_and_filtered(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    every = await windows(client)
    assert [(w["session_name"], w["window_index"], w["window_name"]) for w in every] == [
        ("dev", 0, "editor"),
        ("dev", 1, "shell"),
        ("ops", 0, "logs"),
    ]
    editor = every[0]
    assert editor["window_active"] is True and every[1]["window_active"] is False
    assert (editor["window_width"], editor["window_height"], editor["pane_count"]) == (80, 24, 1)
    assert editor["active_pane_id"].startswith("%") and editor["window_layout"]
    assert [w["window_name"] for w in await windows(client, session_name="ops")] == ["logs"]
    assert [w["window_name"] for w in await windows(client, session_id=two_sessions["dev"])] == [
        "editor",
        "shell",
    ]
    only = await windows(client, filters={"window_name__startswith": "sh"})
    assert [w["window_id"] for w in only] == [two_sessions["shell"]]
    active = await windows(client, filters='{"window_active": "true"}')
    assert [w["window_name"] for w in active] == ["editor", "logs"]


async def test_list_windows_on_a_stopped_server_is_empty(client: Client) -> None:  # type: ignore[type-arg]
    assert await windows(client) == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"session_name": "nope"}, "no session 'nope'"),
        ({"session_id": "1"}, "not a tmux session id"),
        ({"filters": {"window_nme": "x"}}, "unknown filter field"),
        ({"filters": "{not json"}, "not valid JSON"),
    ],
)
async def test_list_windows_bad_input(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    assert needle in await call_error(client, "list_windows", **args)


async def test_get_window_info_by_id_index_session_and_the_only_window(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    shell = await call(client, "get_window_info", window_id=two_sessions["shell"])
    assert (shell["window_name"], shell["session_name"], shell["window_index"]) == (
        "shell",
        "dev",
        1,
    )
    by_index = await call(client, "get_window_info", window_index="1", session_name="dev")
    assert by_index == shell
    current = await call(client, "get_window_info", session_id=two_sessions["dev"])
    assert current["window_id"] == two_sessions["editor"]
    assert (await call(client, "get_window_info", session_name="ops"))["window_name"] == "logs"
    # window_index alone is fine on a server with one session.
    backend.kill_session(ref, two_sessions["ops"])
    assert (await call(client, "get_window_info", window_index="0"))["window_name"] == "editor"
    backend.kill_window(ref, two_sessions["shell"])
    assert (await call(client, "get_window_info"))["window_id"] == two_sessions["editor"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "no target given and the server has 3 windows: @0 (dev:0 editor), @1 (dev:1 shell)"),
        ({"window_index": "0"}, "no session given and the server has 2 sessions"),
        ({"window_id": "@9"}, "no window @9"),
        ({"window_id": "9"}, "not a tmux window id"),
        ({"window_index": "x", "session_name": "dev"}, "is not a window index"),
        ({"window_index": "-1", "session_name": "dev"}, "is not a window index"),
        ({"window_index": "5", "session_name": "dev"}, "has no window 5 (it has 0, 1)"),
        ({"window_id": "@2", "session_name": "dev"}, "is not in session 'dev'"),
        ({"window_id": "@1", "window_index": "0"}, "has index 1, not 0"),
        ({"session_name": "nope"}, "no session 'nope'"),
    ],
)
async def test_get_window_info_never_guesses(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    assert needle in await call_error(client, "get_window_info", **args)


# -- create_window -----------------------------------------------------------------------


async def test_create_window_appends_quietly_or_attaches(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    made = await call(client, "create_window", session_name="dev", window_name="build")
    assert (made["window_index"], made["window_name"], made["session_name"]) == (2, "build", "dev")
    assert made["window_active"] is False and made["pane_count"] == 1
    assert (await call(client, "get_window_info", session_name="dev"))["window_name"] == "editor"
    attached = await call(client, "create_window", session_id=two_sessions["ops"], attach=True)
    assert attached["window_active"] is True and attached["window_index"] == 1
    assert (await call(client, "get_window_info", session_name="ops"))["window_id"] == (
        attached["window_id"]
    )


async def test_create_window_before_and_after_the_current_window(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    # dev: 0 editor (current), 1 shell
    after = await call(
        client, "create_window", session_name="dev", window_name="a", direction="after"
    )
    assert after["window_index"] == 1
    names = [
        (w["window_index"], w["window_name"]) for w in await windows(client, session_name="dev")
    ]
    assert names == [(0, "editor"), (1, "a"), (2, "shell")]
    before = await call(
        client, "create_window", session_name="dev", window_name="b", direction="before"
    )
    assert before["window_index"] == 0
    names = [
        (w["window_index"], w["window_name"]) for w in await windows(client, session_name="dev")
    ]
    assert names == [(0, "b"), (1, "editor"), (2, "a"), (3, "shell")]
    assert (await call(client, "get_window_info", session_name="dev"))["window_name"] == "editor"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "no session given and the server has 2 sessions"),
        ({"session_name": "nope"}, "no session 'nope'"),
        ({"session_id": "dev"}, "not a tmux session id"),
        ({"session_name": "dev", "window_name": ""}, "window_name must not be empty"),
        ({"session_name": "dev", "start_directory": "/no/such/dir"}, "not an existing directory"),
        ({"session_name": "dev", "start_directory": "relative"}, "not an existing directory"),
        ({"session_name": "dev", "environment": {"1X": "y"}}, "not a valid environment variable"),
        ({"session_name": "dev", "environment": "[]"}, "must map names"),
        (
            {
                "session_name": "dev",
                "environment": {"HISTFILE": "/h"},
                "suppress_persistent_history": True,
            },
            "suppress_persistent_history needs it",
        ),
        ({"session_name": "dev", "direction": "up"}, "before"),
    ],
)
async def test_create_window_bad_input_creates_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "create_window", **args)
    assert everything(backend, ref) == before


# -- select_window ------------------------------------------------------------------------


async def test_select_window_by_id_index_and_direction(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    backend.new_window(ref, two_sessions["dev"], name="third")  # dev: editor, shell, third

    async def current() -> str:
        return str((await call(client, "get_window_info", session_name="dev"))["window_name"])

    chosen = await call(client, "select_window", window_id=two_sessions["shell"])
    assert (chosen["window_name"], chosen["window_active"]) == ("shell", True)
    assert await current() == "shell"
    assert (await call(client, "select_window", window_index="2", session_name="dev"))[
        "window_name"
    ] == "third"
    assert (await call(client, "select_window", direction="last", session_name="dev"))[
        "window_name"
    ] == "shell"
    steps = []
    for direction in ("next", "next", "next", "previous", "previous"):
        moved = await call(client, "select_window", direction=direction, session_name="dev")
        steps.append(moved["window_name"])
    assert steps == ["third", "editor", "shell", "editor", "third"]
    assert await current() == "third"
    # Other sessions are untouched.
    assert (await call(client, "get_window_info", session_name="ops"))["window_name"] == "logs"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"session_name": "dev"}, "needs window_id, window_index or direction"),
        ({"window_id": "@1", "direction": "next"}, "not both"),
        ({"window_index": "1", "direction": "next", "session_name": "dev"}, "not both"),
        ({"direction": "next"}, "no session given and the server has 2 sessions"),
        ({"direction": "last", "session_name": "dev"}, "has no last window"),
        ({"direction": "next", "session_name": "ops"}, "has no next window"),
        ({"direction": "sideways", "session_name": "dev"}, "next"),
        ({"window_id": "@77"}, "no window @77"),
        ({"window_index": "9", "session_name": "dev"}, "has no window 9"),
    ],
)
async def test_select_window_bad_input_selects_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "select_window", **args)
    assert everything(backend, ref) == before


# -- rename_window -------------------------------------------------------------------------


async def test_rename_window_keeps_the_id(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    renamed = await call(client, "rename_window", new_name="vim", window_id=two_sessions["editor"])
    assert (renamed["window_id"], renamed["window_name"]) == (two_sessions["editor"], "vim")
    by_index = await call(
        client, "rename_window", new_name="sh 2", window_index="1", session_name="dev"
    )
    assert by_index["window_id"] == two_sessions["shell"]
    names = [w["window_name"] for w in await windows(client)]
    assert names == ["vim", "sh 2", "logs"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"new_name": "", "window_id": "@0"}, "new_name must not be empty"),
        ({"new_name": "x"}, "no target given and the server has 3 windows"),
        ({"new_name": "x", "window_id": "@50"}, "no window @50"),
        ({"new_name": "x", "window_id": "0"}, "not a tmux window id"),
    ],
)
async def test_rename_window_bad_input_renames_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "rename_window", **args)
    assert everything(backend, ref) == before


# -- kill_window ------------------------------------------------------------------------------


async def test_kill_window_removes_it_and_a_last_window_ends_its_session(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    said = await call(client, "kill_window", window_id=two_sessions["shell"])
    assert said["result"] == f"Window killed: {two_sessions['shell']}"
    assert [w.window_name for w in backend.list_windows(ref)] == ["editor", "logs"]
    await call(client, "kill_window", window_id=two_sessions["logs"])
    assert [s.session_name for s in backend.list_sessions(ref)] == ["dev"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"window_id": "@40"}, "no window @40"),
        ({"window_id": "1"}, "not a tmux window id"),
        ({"window_id": ""}, "not a tmux window id"),
    ],
)
async def test_kill_window_needs_an_exact_existing_id(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "kill_window", **args)
    assert everything(backend, ref) == before


async def test_kill_window_requires_window_id(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend, ref)
    assert "window_id" in await call_error(client, "kill_window", session_name="dev")
    assert everything(backend, ref) == before


@pytest.fixture
async def guarded(
    ref: ServerRef, backend: TmuxBackend, two_sessions: dict[str, str]
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A client whose MCP server runs in the 'shell' window's pane."""
    (pane,) = backend.list_panes(ref, window_id=two_sessions["shell"])
    settings = Settings(
        safety="destructive",
        caller_pane=pane.pane_id,
        socket_path=ref.socket_path,
        caller_socket=backend.server_info(ref).socket_path,
    )
    async with Client(create_server(backend, settings)) as c:
        yield c


async def test_kill_window_refuses_the_window_the_mcp_server_runs_in(
    ref: ServerRef,
    guarded: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend, ref)
    error = await call_error(guarded, "kill_window", window_id=two_sessions["shell"])
    assert f"refusing to kill window {two_sessions['shell']}" in error
    assert everything(backend, ref) == before
    await call(guarded, "kill_window", window_id=two_sessions["editor"])
    assert [w.window_name for w in backend.list_windows(ref)] == ["shell", "logs"]
