"""Window tools through the MCP client, on the simulator: list_windows,
get_window_info, create_window, select_window, split_window, rename_window,
kill_window, select_layout, resize_window, move_window; plus the simulator's
side of the backend additions they use (``new_window`` direction,
``WindowInfo.last``)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.tools._layouts import layout_checksum
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


async def windows(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_windows", **args))["result"]
    return listed


async def panes(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_panes", **args))["result"]
    return listed


def layout_of(backend: SimBackend) -> list[tuple[str, int, str, int, int, int]]:
    """Everything about the default server's windows that a bad call must not change."""
    return [
        (w.window_id, w.window_index, w.session_id, w.pane_count, w.width, w.height)
        for w in backend.list_windows(REF)
    ]


def everything(backend: SimBackend) -> tuple[object, ...]:
    return (
        backend.list_sessions(REF),
        backend.list_windows(REF),
        [(p.pane_id, p.width, p.height, p.left, p.top) for p in backend.list_panes(REF)],
    )


@pytest.fixture
def two_sessions(backend: SimBackend) -> dict[str, str]:
    """'dev' with windows 0 (editor) and 1 (shell), 'ops' with window 0; ids by name."""
    dev = backend.new_session(REF, name="dev", window_name="editor", width=80, height=24)
    shell = backend.new_window(REF, dev.session_id, name="shell")
    ops = backend.new_session(REF, name="ops", window_name="logs", width=80, height=24)
    editor = backend.list_windows(REF, dev.session_id)[0]
    logs = backend.list_windows(REF, ops.session_id)[0]
    return {
        "dev": dev.session_id,
        "ops": ops.session_id,
        "editor": editor.window_id,
        "shell": shell.window_id,
        "logs": logs.window_id,
    }


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
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
    backend.kill_session(REF, two_sessions["ops"])
    assert (await call(client, "get_window_info", window_index="0"))["window_name"] == "editor"
    backend.kill_window(REF, two_sessions["shell"])
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


async def test_get_window_info_on_a_stopped_server(client: Client) -> None:  # type: ignore[type-arg]
    assert "no server running" in await call_error(client, "get_window_info")


# -- create_window -----------------------------------------------------------------------


async def test_create_window_appends_quietly_or_attaches(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
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


async def test_create_window_environment_directory_and_history(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    directory = tempfile.mkdtemp(prefix="gmxw-")
    try:
        made = await call(
            client,
            "create_window",
            session_name="dev",
            start_directory=directory,
            environment={"STAGE": "test"},
            suppress_persistent_history=True,
        )
        pane = backend.server(REF).pane(made["active_pane_id"])
        assert pane.environment["STAGE"] == "test"
        assert pane.environment["HISTFILE"] == ""
        assert "ignorespace" in pane.environment["HISTCONTROL"]
        info = (await panes(client, window_id=made["window_id"]))[0]
        assert info["pane_current_path"] == directory
        # Per process: the session environment is not changed.
        other = await call(client, "create_window", session_name="dev", environment='{"X": "1"}')
        assert "STAGE" not in backend.server(REF).pane(other["active_pane_id"]).environment
    finally:
        os.rmdir(directory)


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "create_window", **args)
    assert everything(backend) == before


# -- select_window ------------------------------------------------------------------------


async def test_select_window_by_id_index_and_direction(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    backend.new_window(REF, two_sessions["dev"], name="third")  # dev: editor, shell, third

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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "select_window", **args)
    assert everything(backend) == before


# -- split_window ---------------------------------------------------------------------------


async def test_split_window_below_by_default_and_returns_the_new_pane(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    (old,) = await panes(client, window_id=two_sessions["logs"])
    new = await call(client, "split_window", session_name="ops")
    assert new["pane_id"] != old["pane_id"] and new["window_id"] == two_sessions["logs"]
    assert new["pane_top"] > 0 and new["pane_left"] == 0 and new["pane_width"] == 80
    assert new["pane_active"] is False  # focus stays on the old pane
    assert {p["pane_id"] for p in await panes(client, window_id=two_sessions["logs"])} == {
        old["pane_id"],
        new["pane_id"],
    }


async def test_split_window_directions_sizes_and_targets(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    (first,) = await panes(client, window_id=two_sessions["shell"])
    right = await call(
        client, "split_window", window_id=two_sessions["shell"], direction="right", size="25%"
    )
    assert right["pane_width"] == 20 and right["pane_left"] == 60  # 25% of 80 columns
    above = await call(client, "split_window", pane_id=right["pane_id"], direction="above", size=5)
    assert (above["pane_height"], above["pane_top"]) == (5, 0)
    left = await call(
        client, "split_window", window_index="1", session_name="dev", direction="left", size="10"
    )
    assert left["pane_width"] == 10 and left["pane_left"] == 0
    assert (await call(client, "get_pane_info", pane_id=first["pane_id"]))["pane_active"] is True


async def test_split_window_command_environment_and_directory(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    directory = tempfile.mkdtemp(prefix="gmxs-")
    try:
        new = await call(
            client,
            "split_window",
            window_id=two_sessions["logs"],
            shell="cat",
            start_directory=directory,
            environment={"ROLE": "tail"},
            suppress_persistent_history=True,
        )
        assert new["pane_current_command"] == "cat"
        assert new["pane_current_path"] == directory
        env = backend.server(REF).pane(new["pane_id"]).environment
        assert env["ROLE"] == "tail" and env["fish_private_mode"] == "1"
    finally:
        os.rmdir(directory)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "no target given and the server has 3 windows"),
        ({"pane_id": "%99"}, "no pane %99"),
        ({"pane_id": "1"}, "not a tmux pane id"),
        ({"window_id": "@99"}, "no window @99"),
        ({"session_name": "ops", "size": "0"}, "does not fit"),
        ({"session_name": "ops", "size": 0}, "does not fit"),
        ({"session_name": "ops", "size": -3}, "does not fit"),
        ({"session_name": "ops", "size": 23}, "pane %2 is 24 rows tall (1..22 cells)"),
        ({"session_name": "ops", "size": 79, "direction": "left"}, "80 columns wide"),
        ({"session_name": "ops", "size": "0%"}, "between 1% and 99%"),
        ({"session_name": "ops", "size": "100%"}, "between 1% and 99%"),
        ({"session_name": "ops", "size": "abc"}, "is not 'N%' or a number of cells"),
        ({"session_name": "ops", "size": "5.5"}, "is not 'N%' or a number of cells"),
        ({"session_name": "ops", "size": "-5"}, "is not 'N%' or a number of cells"),
        ({"session_name": "ops", "size": "50 %"}, "is not 'N%' or a number of cells"),
        ({"session_name": "ops", "direction": "up"}, "above"),
        ({"session_name": "ops", "shell": "  "}, "shell must not be empty"),
        ({"session_name": "ops", "start_directory": "/no/such"}, "not an existing directory"),
        ({"session_name": "ops", "environment": {"A=B": "x"}}, "not a valid environment"),
    ],
)
async def test_split_window_bad_input_splits_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "split_window", **args)
    assert everything(backend) == before


async def test_split_window_refuses_a_pane_too_small_to_split(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    backend.new_session(REF, name="tiny", width=80, height=2)
    before = everything(backend)
    error = await call_error(client, "split_window", size=1)
    assert "no room to split it" in error
    assert everything(backend) == before


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "rename_window", **args)
    assert everything(backend) == before


# -- kill_window ------------------------------------------------------------------------------


async def test_kill_window_removes_it_and_a_last_window_ends_its_session(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    said = await call(client, "kill_window", window_id=two_sessions["shell"])
    assert said["result"] == f"Window killed: {two_sessions['shell']}"
    assert [w.window_name for w in backend.list_windows(REF)] == ["editor", "logs"]
    await call(client, "kill_window", window_id=two_sessions["logs"])
    assert [s.session_name for s in backend.list_sessions(REF)] == ["dev"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"window_id": "@40"}, "no window @40"),
        ({"window_id": "1"}, "not a tmux window id"),
        ({"window_id": ""}, "not a tmux window id"),
    ],
)
async def test_kill_window_needs_an_exact_existing_id(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "kill_window", **args)
    assert everything(backend) == before


async def test_kill_window_requires_window_id(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend)
    assert "window_id" in await call_error(client, "kill_window", session_name="dev")
    assert everything(backend) == before


@pytest.fixture
async def guarded(backend: SimBackend, two_sessions: dict[str, str]) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A client whose MCP server runs in the 'shell' window's pane."""
    (pane,) = backend.list_panes(REF, window_id=two_sessions["shell"])
    settings = Settings(
        backend="sim",
        safety="destructive",
        caller_pane=pane.pane_id,
        caller_socket=f"/tmp/tmux-{os.getuid()}/default",
    )
    async with Client(create_server(backend, settings)) as c:
        yield c


async def test_kill_window_refuses_the_window_the_mcp_server_runs_in(
    guarded: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend)
    error = await call_error(guarded, "kill_window", window_id=two_sessions["shell"])
    assert f"refusing to kill window {two_sessions['shell']}" in error
    assert everything(backend) == before
    await call(guarded, "kill_window", window_id=two_sessions["editor"])
    assert [w.window_name for w in backend.list_windows(REF)] == ["shell", "logs"]


# -- select_layout -------------------------------------------------------------------------------


async def test_select_layout_presets_and_a_saved_layout_string(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    target = two_sessions["logs"]
    for _ in range(2):
        await call(client, "split_window", window_id=target)
    stacked = (await call(client, "get_window_info", window_id=target))["window_layout"]
    side = await call(client, "select_layout", layout="even-horizontal", window_id=target)
    assert side["window_layout"] != stacked
    assert {p["pane_top"] for p in await panes(client, window_id=target)} == {0}
    restored = await call(client, "select_layout", layout=stacked, session_name="ops")
    assert restored["window_layout"] == stacked
    assert len({p["pane_top"] for p in await panes(client, window_id=target)}) == 3
    for name in ("even-vertical", "main-horizontal", "main-vertical", "tiled"):
        await call(client, "select_layout", layout=name, window_id=target)


def test_layout_checksum_matches_tmux() -> None:
    # Printed by tmux 3.3a for an 80x24 window with one pane.
    assert f"{layout_checksum('80x24,0,0,2'):04x}" == "b25f"


@pytest.mark.parametrize(
    ("layout", "needle"),
    [
        ("sideways", "neither a layout name nor a tmux layout string"),
        ("", "neither a layout name"),
        ("Tiled", "neither a layout name"),
        ("main-vertical-mirrored", "not supported here"),
        ("ffff,80x24,0,0,2", "wrong checksum"),
        ("b25f,80x24,0,0,2;kill-server", "neither a layout name"),
        ("80x24,0,0,2", "neither a layout name"),
    ],
)
async def test_select_layout_rejects_bad_layouts_and_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    layout: str,
    needle: str,
) -> None:
    await call(client, "split_window", window_id=two_sessions["logs"])
    before = everything(backend)
    error = await call_error(client, "select_layout", layout=layout, window_id=two_sessions["logs"])
    assert needle in error and "even-horizontal" in error  # the hint lists the presets
    assert everything(backend) == before


async def test_select_layout_for_another_pane_count_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    single = (await call(client, "get_window_info", window_id=two_sessions["editor"]))[
        "window_layout"
    ]
    await call(client, "split_window", window_id=two_sessions["logs"])
    before = everything(backend)
    error = await call_error(client, "select_layout", layout=single, window_id=two_sessions["logs"])
    assert "invalid layout" in error
    assert everything(backend) == before


# -- resize_window -------------------------------------------------------------------------------


async def test_resize_window_sets_its_size(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    resized = await call(
        client, "resize_window", window_id=two_sessions["logs"], width=100, height=30
    )
    assert (resized["window_width"], resized["window_height"]) == (100, 30)
    (pane,) = await panes(client, window_id=two_sessions["logs"])
    assert (pane["pane_width"], pane["pane_height"]) == (100, 30)
    narrower = await call(client, "resize_window", session_name="ops", width=60)
    assert (narrower["window_width"], narrower["window_height"]) == (60, 30)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"window_id": "@2"}, "needs height or width"),
        ({"window_id": "@2", "width": 0}, "greater than or equal to 1"),
        ({"window_id": "@2", "height": 10001}, "less than or equal to 10000"),
        ({"window_id": "@2", "height": "tall"}, "valid integer"),
        ({"width": 50}, "no target given and the server has 3 windows"),
        ({"window_id": "@12", "width": 50}, "no window @12"),
    ],
)
async def test_resize_window_bad_input_resizes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "resize_window", **args)
    assert everything(backend) == before


# -- move_window ---------------------------------------------------------------------------------


async def test_move_window_reorders_and_moves_between_sessions(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    moved = await call(
        client, "move_window", window_id=two_sessions["editor"], destination_index="5"
    )
    assert (moved["window_index"], moved["session_name"]) == (5, "dev")
    assert [
        (w.window_index, w.window_name) for w in backend.list_windows(REF, two_sessions["dev"])
    ] == [
        (1, "shell"),
        (5, "editor"),
    ]
    across = await call(
        client, "move_window", window_id=two_sessions["shell"], destination_session="ops"
    )
    assert (across["session_name"], across["window_index"]) == ("ops", 1)
    back = await call(
        client,
        "move_window",
        window_index="1",
        session_name="ops",
        destination_session=two_sessions["dev"],
        destination_index="0",
    )
    assert (back["session_id"], back["window_index"], back["window_name"]) == (
        two_sessions["dev"],
        0,
        "shell",
    )
    # Moving a session's only window away ends that session.
    await call(client, "move_window", window_id=two_sessions["logs"], destination_session="dev")
    assert [s.session_name for s in backend.list_sessions(REF)] == ["dev"]
    # ... and the window takes the lowest free index.
    assert [w.window_name for w in backend.list_windows(REF)] == ["shell", "logs", "editor"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"window_id": "@0"}, "is already in session 'dev'"),
        ({"window_id": "@0", "destination_session": "dev"}, "is already in session 'dev'"),
        ({"window_id": "@0", "destination_index": "1"}, "index 1 is taken by window @1 ('shell')"),
        ({"window_id": "@0", "destination_index": "x"}, "is not a window index"),
        ({"window_id": "@0", "destination_index": "-2"}, "is not a window index"),
        ({"window_id": "@0", "destination_session": "nope"}, "no session 'nope'"),
        ({"window_id": "@0", "destination_session": "$9"}, "no session $9"),
        ({"window_id": "@0", "destination_session": "$x"}, "not a tmux session id"),
        ({"window_id": "@8", "destination_index": "4"}, "no window @8"),
        ({"destination_index": "4"}, "no target given and the server has 3 windows"),
        (
            {"window_id": "@0", "destination_session": "ops", "destination_index": "0"},
            "index 0 is taken by window @2 ('logs')",
        ),
    ],
)
async def test_move_window_bad_input_moves_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend)
    assert needle in await call_error(client, "move_window", **args)
    assert everything(backend) == before


async def test_move_window_to_its_own_index_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend)
    same = await call(client, "move_window", window_id=two_sessions["shell"], destination_index="1")
    assert same["window_index"] == 1
    assert everything(backend) == before


# -- the simulator's side of the backend additions ------------------------------------------------


def test_sim_new_window_inserts_before_or_after_the_current_window(backend: SimBackend) -> None:
    session = backend.new_session(REF, name="s", window_name="w0")
    sid = session.session_id
    backend.new_window(REF, sid, name="w1")
    backend.move_window(REF, backend.list_windows(REF, sid)[1].window_id, destination_index=3)
    # s: 0 w0 (current), 3 w1
    made = backend.new_window(REF, sid, name="after", direction="after")
    assert made.window_index == 1
    made = backend.new_window(REF, sid, name="before", direction="before")
    assert made.window_index == 0
    listed = [(w.window_index, w.window_name) for w in backend.list_windows(REF, sid)]
    # Only the run of windows up to the first free index shifts (winlink_shuffle_up).
    assert listed == [(0, "before"), (1, "w0"), (2, "after"), (3, "w1")]


def test_sim_window_info_marks_the_last_window(backend: SimBackend) -> None:
    session = backend.new_session(REF, name="s")
    first = backend.list_windows(REF, session.session_id)[0]
    assert first.last is False
    second = backend.new_window(REF, session.session_id, select=True)
    flags = {w.window_id: (w.active, w.last) for w in backend.list_windows(REF)}
    assert flags == {first.window_id: (False, True), second.window_id: (True, False)}
