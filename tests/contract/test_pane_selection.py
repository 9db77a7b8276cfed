"""select_pane and swap_pane through the MCP client, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.pane_views import active, grid, session, world
from tests.mcp_calls import call, call_error


async def test_select_pane_by_id(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)
    info = await call(client, "select_pane", pane_id=panes["bottom-right"])
    assert (info["pane_id"], info["pane_active"]) == (panes["bottom-right"], True)
    assert active(backend, ref) == panes["bottom-right"]


@pytest.mark.parametrize(
    ("start", "direction", "expected"),
    [
        ("top-left", "right", "top-right"),
        ("top-left", "down", "bottom-left"),
        ("top-left", "up", "bottom-left"),  # wraps round the window
        ("top-left", "left", "top-right"),
        ("bottom-right", "up", "top-right"),
        ("bottom-right", "left", "bottom-left"),
    ],
)
async def test_select_pane_by_direction_from_the_active_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    start: str,
    direction: str,
    expected: str,
) -> None:
    panes = grid(backend, ref)
    backend.select_pane(ref, panes[start])
    info = await call(client, "select_pane", direction=direction, window_id="@0")
    assert info["pane_id"] == panes[expected]
    assert active(backend, ref) == panes[expected]


async def test_select_pane_direction_from_a_given_pane_and_last_next_previous(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)  # indexes: top-left 0, bottom-left 1, top-right 2, bottom-right 3
    moved = await call(client, "select_pane", pane_id=panes["bottom-left"], direction="right")
    assert moved["pane_id"] == panes["bottom-right"]
    last = await call(client, "select_pane", direction="last")
    assert last["pane_id"] == panes["top-left"]
    nxt = await call(client, "select_pane", direction="next")
    assert nxt["pane_id"] == panes["bottom-left"]
    prev = await call(client, "select_pane", direction="previous", session_name="main")
    assert prev["pane_id"] == panes["top-left"]
    wrapped = await call(client, "select_pane", direction="previous")
    assert wrapped["pane_id"] == panes["bottom-right"]


async def test_select_pane_with_no_neighbour_keeps_the_active_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = session(backend, ref)
    assert (await call(client, "select_pane", direction="up"))["pane_id"] == pane
    assert (await call(client, "select_pane", direction="next"))["pane_id"] == pane


async def test_select_pane_direction_needs_a_window_when_there_are_several(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    session(backend, ref)
    session(backend, ref, name="other")
    before = world(backend, ref)
    error = await call_error(client, "select_pane", direction="up")
    assert "no target given and the server has 2 windows" in error
    assert world(backend, ref) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "needs pane_id or direction"),
        ({"direction": "last", "window_id": "@1"}, "no last pane"),
        ({"direction": "sideways"}, "direction"),
        ({"pane_id": "%42"}, "no pane %42"),
        ({"pane_id": "42"}, "not a tmux pane id"),
        ({"pane_id": "%0", "window_id": "@1"}, "not in the window or session"),
        ({"pane_id": "%0", "session_name": "other"}, "not in the window or session"),
        ({"direction": "up", "window_id": "@7"}, "no window @7"),
        ({"direction": "up", "window_index": "x1", "session_name": "main"}, "window index"),
    ],
)
async def test_select_pane_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    first = session(backend, ref)
    backend.split_window(ref, first)
    session(backend, ref, name="other")
    before = (world(backend, ref), backend.list_windows(ref))
    assert needle in await call_error(client, "select_pane", **args)
    assert (world(backend, ref), backend.list_windows(ref)) == before


async def test_swap_pane_exchanges_places_and_keeps_ids(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)
    before = {p.pane_id: (p.left, p.top) for p in backend.list_panes(ref)}
    info = await call(
        client,
        "swap_pane",
        source_pane_id=panes["top-left"],
        target_pane_id=panes["bottom-right"],
    )
    after = {p.pane_id: (p.left, p.top) for p in backend.list_panes(ref)}
    assert info["pane_id"] == panes["top-left"]
    assert (info["pane_left"], info["pane_top"]) == before[panes["bottom-right"]]
    assert after[panes["bottom-right"]] == before[panes["top-left"]]
    assert after[panes["top-right"]] == before[panes["top-right"]]


async def test_swap_pane_across_windows(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = session(backend, ref)
    other = backend.new_window(ref, "$0").active_pane_id
    info = await call(client, "swap_pane", source_pane_id=pane, target_pane_id=other)
    assert info["window_id"] == "@1"
    windows = {p.pane_id: p.window_id for p in backend.list_panes(ref)}
    assert windows == {pane: "@1", other: "@0"}


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"source_pane_id": "%0", "target_pane_id": "%0"}, "with itself"),
        ({"source_pane_id": "%0", "target_pane_id": "%8"}, "no pane %8"),
        ({"source_pane_id": "%8", "target_pane_id": "%0"}, "no pane %8"),
        ({"source_pane_id": "%0", "target_pane_id": "@1"}, "not a tmux pane id"),
        ({"source_pane_id": "%0"}, "target_pane_id"),
    ],
)
async def test_swap_pane_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    grid(backend, ref)
    before = world(backend, ref)
    assert needle in await call_error(client, "swap_pane", **args)
    assert world(backend, ref) == before
