"""display_message, find_pane_by_position, set_pane_title, resize_pane and
paste_text through the MCP client, on both backends (select_pane and swap_pane:
test_pane_selection.py)."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend, TmuxFailure
from gridmux.safety import effective_hints
from tests.contract.pane_views import grid, screens, session, world
from tests.mcp_calls import call, call_error

TOOLS = {
    # name: (tier tag, readOnly, destructive, idempotent, openWorld, title)
    "display_message": ("readonly", True, False, True, False, "Evaluate tmux Format String"),
    "find_pane_by_position": ("readonly", True, False, True, False, "Find tmux Pane by Position"),
    "set_pane_title": ("mutating", False, False, True, False, "Set tmux Pane Title"),
    "clear_pane": ("mutating", False, True, False, False, "Clear tmux Pane"),
    "resize_pane": ("mutating", False, False, True, False, "Resize tmux Pane"),
    "select_pane": ("mutating", False, False, True, False, "Select tmux Pane"),
    "swap_pane": ("mutating", False, False, False, False, "Swap tmux Panes"),
    "paste_text": ("mutating", False, True, False, True, "Paste Text into tmux Pane"),
}


# -- registration -------------------------------------------------------------------


async def test_tools_are_registered_with_their_tier_title_and_hints(
    client: Client,  # type: ignore[type-arg]
) -> None:
    listed = {t.name: t for t in await client.list_tools()}
    for name, (tier, read_only, destructive, idempotent, open_world, title) in TOOLS.items():
        wire = listed[name].model_dump(by_alias=True)
        hints = effective_hints(listed[name].annotations)
        assert wire["title"] == title
        assert (
            hints["readOnlyHint"],
            hints["destructiveHint"],
            hints["idempotentHint"],
            hints["openWorldHint"],
        ) == (read_only, destructive, idempotent, open_world), name
        assert wire["_meta"]["fastmcp"]["tags"] == [tier], name
        assert list(wire["inputSchema"]["properties"])[-1] == "socket_path", name


# -- display_message ----------------------------------------------------------------------


async def test_display_message_expands_a_format_for_the_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = session(backend, ref)
    other = backend.split_window(ref, pane, direction="right").pane_id
    out = await call(
        client, "display_message", format_string="#{pane_id}:#{pane_width}", pane_id=other
    )
    assert out == {"result": f"{other}:39"}
    by_session = await call(
        client, "display_message", format_string="#{pane_id}", session_name="main"
    )
    assert by_session == {"result": pane}  # the session's active pane


@pytest.mark.parametrize(
    "fmt",
    [
        "#(touch /tmp/gridmux-should-not-exist)",
        "x #{?pane_active,#(id),no}",
        "#{E:@evil}",
        "#{T:@evil}",
        "#{s/:/-/;E:@evil}",
        "",
    ],
)
async def test_display_message_refuses_formats_that_could_run_commands(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    fmt: str,
) -> None:
    pane = session(backend, ref)
    backend.set_option(ref, "@evil", "#(touch /tmp/gridmux-should-not-exist)", scope="server")
    error = await call_error(client, "display_message", format_string=fmt, pane_id=pane)
    assert "format_string" in error


# -- find_pane_by_position -----------------------------------------------------------


@pytest.mark.parametrize("corner", ["top-left", "top-right", "bottom-left", "bottom-right"])
async def test_find_pane_by_position_finds_each_corner(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    corner: str,
) -> None:
    panes = grid(backend, ref)
    found = await call(client, "find_pane_by_position", corner=corner)
    assert found["pane_id"] == panes[corner]
    by_index = await call(
        client, "find_pane_by_position", corner=corner, session_name="main", window_index="0"
    )
    assert by_index["pane_id"] == panes[corner]


async def test_find_pane_by_position_in_a_zoomed_window_is_the_zoomed_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)
    backend.resize_pane(ref, panes["bottom-right"], zoom=True)
    for corner in panes:
        found = await call(client, "find_pane_by_position", corner=corner, window_id="@0")
        assert found["pane_id"] == panes["bottom-right"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({}, "no target given and the server has 2 windows"),
        ({"window_id": "@9"}, "no window @9"),
        ({"window_id": "0"}, "not a tmux window id"),
        ({"session_name": "main", "window_index": "5"}, "has no window 5"),
        ({"session_name": "nope"}, "no session 'nope'"),
        ({"corner": "middle"}, "corner"),
    ],
)
async def test_find_pane_by_position_bad_targets(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    grid(backend, ref)
    backend.new_window(ref, "$0")
    error = await call_error(client, "find_pane_by_position", **{"corner": "top-left", **args})
    assert needle in error


# -- set_pane_title -----------------------------------------------------------------------


async def test_set_pane_title_sets_it_literally(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = session(backend, ref)
    other = backend.split_window(ref, pane).pane_id
    info = await call(client, "set_pane_title", title="build #[1] 100%", pane_id=other)
    assert (info["pane_id"], info["pane_title"]) == (other, "build #[1] 100%")
    titles = {p.pane_id: p.title for p in backend.list_panes(ref)}
    assert titles[other] == "build #[1] 100%"
    assert titles[pane] != "build #[1] 100%"


# -- resize_pane --------------------------------------------------------------------------


async def test_resize_pane_sets_height_and_width(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)
    info = await call(client, "resize_pane", pane_id=panes["top-left"], height=7, width=30)
    assert (info["pane_height"], info["pane_width"]) == (7, 30)
    below = next(p for p in backend.list_panes(ref) if p.pane_id == panes["bottom-left"])
    assert below.height == 24 - 7 - 1


async def test_resize_pane_zooms_and_unzooms(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = grid(backend, ref)
    zoomed = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=True)
    assert (zoomed["pane_width"], zoomed["pane_height"], zoomed["pane_active"]) == (80, 24, True)
    assert backend.list_windows(ref)[0].zoomed
    again = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=True)
    assert again["pane_width"] == 80  # zoom=true sets, never toggles
    unzoomed = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=False)
    assert unzoomed["pane_width"] < 80
    assert not backend.list_windows(ref)[0].zoomed


# -- paste_text ---------------------------------------------------------------------------


async def test_paste_text_deletes_its_buffer_when_the_paste_fails(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pane = session(backend, ref, command="cat")
    loaded: list[str] = []
    load = backend.load_buffer

    def spy_load(server: ServerRef, name: str, content: str) -> None:
        loaded.append(name)
        load(server, name, content)

    def failing_paste(*args: Any, **kwargs: Any) -> None:
        raise TmuxFailure("paste failed on purpose")

    monkeypatch.setattr(backend, "load_buffer", spy_load)
    monkeypatch.setattr(backend, "paste_buffer", failing_paste)
    error = await call_error(client, "paste_text", text="hello", pane_id=pane)
    assert "paste failed on purpose" in error
    assert loaded and loaded[0].startswith("gridmux-paste-")
    assert backend.list_buffers(ref) == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"text": ""}, "text is empty"),
        ({"text": "x", "pane_id": "%31"}, "no pane %31"),
        ({"text": "x", "pane_id": "31"}, "not a tmux pane id"),
        ({"text": "x", "pane_id": None}, "no target given"),
    ],
)
async def test_paste_text_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    pane = session(backend, ref, command="cat")
    backend.split_window(ref, pane, command="cat")
    before = (world(backend, ref), screens(backend, ref))
    assert needle in await call_error(client, "paste_text", **{"pane_id": pane, **args})
    assert (world(backend, ref), screens(backend, ref)) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"height": 5, "zoom": True}, "either a size or zoom"),
        ({}, "needs height, width or zoom"),
        ({"height": 0}, "height"),
        ({"width": 10001}, "width"),
        ({"height": -3}, "height"),
        ({"pane_id": "%77", "height": 5}, "no pane %77"),
        ({"pane_id": "%%", "height": 5}, "not a tmux pane id"),
    ],
)
async def test_resize_pane_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    panes = grid(backend, ref)
    before = (world(backend, ref), backend.list_windows(ref))
    error = await call_error(client, "resize_pane", **{"pane_id": panes["top-left"], **args})
    assert needle in error
    assert (world(backend, ref), backend.list_windows(ref)) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"title": "two\nlines", "pane_id": "%0"}, "control characters"),
        ({"title": "bell\x07", "pane_id": "%0"}, "control characters"),
        ({"title": "x", "pane_id": "%5"}, "no pane %5"),
        ({"title": "x", "pane_id": "pane0"}, "not a tmux pane id"),
        ({"title": "x"}, "no target given"),
    ],
)
async def test_set_pane_title_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    backend.split_window(ref, session(backend, ref))
    before = world(backend, ref)
    assert needle in await call_error(client, "set_pane_title", **args)
    assert world(backend, ref) == before
