"""Window layout tools through the MCP client, on both backends: split_window,
select_layout, resize_window, move_window."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.window_views import everything, panes
from tests.mcp_calls import call, call_error

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
    backend: TmuxBackend,
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
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "split_window", **args)
    assert everything(backend, ref) == before


async def test_split_window_refuses_a_pane_too_small_to_split(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    backend.new_session(ref, name="tiny", width=80, height=2)
    before = everything(backend, ref)
    error = await call_error(client, "split_window", size=1)
    assert "no room to split it" in error
    assert everything(backend, ref) == before


# -- select_layout -------------------------------------------------------------------------------


async def test_select_layout_presets_and_a_saved_layout_string(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    target = two_sessions["logs"]
    for _ in range(2):
        await call(client, "split_window", window_id=target)
    stacked = (await call(client, "get_window_info", window_id=target))["window_layout"]
    side = await call(client, "select_layout", layout="even-horizontal", window_id=target)
    assert side["window_layout"] != stacked
    assert {p["pane_top"] for p in await panes(client, window_id=target, fields=["pane_top"])} == {
        0
    }
    restored = await call(client, "select_layout", layout=stacked, session_name="ops")
    assert restored["window_layout"] == stacked
    assert (
        len({p["pane_top"] for p in await panes(client, window_id=target, fields=["pane_top"])})
        == 3
    )
    for name in ("even-vertical", "main-horizontal", "main-vertical", "tiled"):
        await call(client, "select_layout", layout=name, window_id=target)


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
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    layout: str,
    needle: str,
) -> None:
    await call(client, "split_window", window_id=two_sessions["logs"])
    before = everything(backend, ref)
    error = await call_error(client, "select_layout", layout=layout, window_id=two_sessions["logs"])
    assert needle in error and "even-horizontal" in error  # the hint lists the presets
    assert everything(backend, ref) == before


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
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "resize_window", **args)
    assert everything(backend, ref) == before


# -- move_window ---------------------------------------------------------------------------------


async def test_move_window_reorders_and_moves_between_sessions(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    moved = await call(
        client, "move_window", window_id=two_sessions["editor"], destination_index="5"
    )
    assert (moved["window_index"], moved["session_name"]) == (5, "dev")
    assert [
        (w.window_index, w.window_name) for w in backend.list_windows(ref, two_sessions["dev"])
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
    assert [s.session_name for s in backend.list_sessions(ref)] == ["dev"]
    # ... and the window takes the lowest free index.
    assert [w.window_name for w in backend.list_windows(ref)] == ["shell", "logs", "editor"]


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
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
    args: dict[str, Any],
    needle: str,
) -> None:
    before = everything(backend, ref)
    assert needle in await call_error(client, "move_window", **args)
    assert everything(backend, ref) == before


async def test_move_window_to_its_own_index_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    before = everything(backend, ref)
    same = await call(client, "move_window", window_id=two_sessions["shell"], destination_index="1")
    assert same["window_index"] == 1
    assert everything(backend, ref) == before
