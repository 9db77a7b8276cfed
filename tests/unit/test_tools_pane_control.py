"""display_message, find_pane_by_position, set_pane_title, clear_pane, resize_pane,
select_pane, swap_pane and paste_text through the MCP client, on the simulator;
and the backend capabilities they added (directional select_pane, clear_pane,
paste_buffer into a dead pane) on the SimBackend itself."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import PaneDead, ServerRef, TmuxFailure
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()
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


def session(backend: SimBackend, name: str = "main", command: str | None = None) -> str:
    made = backend.new_session(REF, name=name, width=80, height=24, command=command)
    assert made.active_pane_id is not None
    return made.active_pane_id


def grid(backend: SimBackend) -> dict[str, str]:
    """A 2x2 window: corner name -> pane id (top-left stays active)."""
    top_left = session(backend)
    top_right = backend.split_window(REF, top_left, direction="right").pane_id
    bottom_left = backend.split_window(REF, top_left, direction="below").pane_id
    bottom_right = backend.split_window(REF, top_right, direction="below").pane_id
    return {
        "top-left": top_left,
        "top-right": top_right,
        "bottom-left": bottom_left,
        "bottom-right": bottom_right,
    }


def dead_pane(backend: SimBackend, beside: str) -> str:
    """A pane whose program exited with status 3, kept by remain-on-exit."""
    backend.set_option(REF, "remain-on-exit", "on", scope="window", global_=True)
    pane = backend.split_window(REF, beside, command="cat").pane_id
    backend.server(REF).pane(pane).exit(3)
    assert next(p for p in backend.list_panes(REF) if p.pane_id == pane).dead
    return pane


def world(backend: SimBackend) -> tuple[Any, ...]:
    """Everything a failed call must leave alone: panes, screens, buffers."""
    panes = backend.list_panes(REF)
    screens = [backend.snapshot(REF, p.pane_id, start="-") for p in panes]
    return (panes, screens, backend.list_buffers(REF))


def active(backend: SimBackend) -> str:
    return next(p.pane_id for p in backend.list_panes(REF) if p.active)


# -- registration -------------------------------------------------------------------


async def test_tools_are_registered_with_their_tier_title_and_hints(
    client: Client,  # type: ignore[type-arg]
) -> None:
    listed = {t.name: t for t in await client.list_tools()}
    for name, (tier, read_only, destructive, idempotent, open_world, title) in TOOLS.items():
        wire = listed[name].model_dump(by_alias=True)
        hints = wire["annotations"]
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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    other = backend.split_window(REF, pane, direction="right").pane_id
    out = await call(
        client, "display_message", format_string="#{pane_id}:#{pane_width}", pane_id=other
    )
    assert out == {"result": f"{other}:39"}
    by_session = await call(
        client, "display_message", format_string="#{pane_id}", session_name="main"
    )
    assert by_session == {"result": pane}  # the session's active pane


async def test_display_message_reads_a_dead_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = dead_pane(backend, session(backend))
    out = await call(
        client, "display_message", format_string="#{pane_dead} #{pane_dead_status}", pane_id=pane
    )
    assert out == {"result": "1 3"}


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    fmt: str,
) -> None:
    pane = session(backend)
    backend.set_option(REF, "@evil", "#(touch /tmp/gridmux-should-not-exist)", scope="server")
    error = await call_error(client, "display_message", format_string=fmt, pane_id=pane)
    assert "format_string" in error


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # a bare pane id goes to tmux directly: tmux's own words
        ({"pane_id": "%99"}, re.compile(r"no pane %99|can't find pane: %99")),
        ({"pane_id": "7"}, "not a tmux pane id"),
        ({"window_id": "@42"}, "no window @42"),
        ({}, "no target given and the server has 2 panes"),
    ],
)
async def test_display_message_bad_targets(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str | re.Pattern[str],
) -> None:
    backend.split_window(REF, session(backend))
    error = await call_error(client, "display_message", format_string="#{pane_id}", **args)
    assert needle.search(error) if isinstance(needle, re.Pattern) else needle in error
    assert "Hint:" in error


# -- find_pane_by_position -----------------------------------------------------------


@pytest.mark.parametrize("corner", ["top-left", "top-right", "bottom-left", "bottom-right"])
async def test_find_pane_by_position_finds_each_corner(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    corner: str,
) -> None:
    panes = grid(backend)
    found = await call(client, "find_pane_by_position", corner=corner)
    assert found["pane_id"] == panes[corner]
    by_index = await call(
        client, "find_pane_by_position", corner=corner, session_name="main", window_index="0"
    )
    assert by_index["pane_id"] == panes[corner]


async def test_find_pane_by_position_in_a_zoomed_window_is_the_zoomed_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)
    backend.resize_pane(REF, panes["bottom-right"], zoom=True)
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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    grid(backend)
    backend.new_window(REF, "$0")
    error = await call_error(client, "find_pane_by_position", **{"corner": "top-left", **args})
    assert needle in error


# -- set_pane_title -----------------------------------------------------------------------


async def test_set_pane_title_sets_it_literally(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    other = backend.split_window(REF, pane).pane_id
    info = await call(client, "set_pane_title", title="build #[1] 100%", pane_id=other)
    assert (info["pane_id"], info["pane_title"]) == (other, "build #[1] 100%")
    titles = {p.pane_id: p.title for p in backend.list_panes(REF)}
    assert titles[other] == "build #[1] 100%"
    assert titles[pane] != "build #[1] 100%"


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    backend.split_window(REF, session(backend))
    before = world(backend)
    assert needle in await call_error(client, "set_pane_title", **args)
    assert world(backend) == before


# -- clear_pane ---------------------------------------------------------------------------


async def test_clear_pane_blanks_the_screen_and_the_history(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend, command="cat")
    other = backend.split_window(REF, pane, command="cat").pane_id
    for target in (pane, other):
        backend.server(REF).pane(target).write(b"".join(b"line %d\n" % i for i in range(60)))
    backend.copy_mode(REF, pane, enter=True, scroll_up=3)
    assert await call(client, "clear_pane", pane_id=pane) == {"result": f"Pane cleared: {pane}"}
    state = backend.pane_state(REF, pane)
    assert (state.history_size, state.cursor_x, state.cursor_y, state.in_mode) == (0, 0, 0, False)
    assert not any(backend.snapshot(REF, pane, start="-").rows)
    assert backend.pane_state(REF, other).history_size > 0  # only the target was cleared


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"pane_id": "%9"}, "no pane %9"),
        ({"pane_id": "x"}, "not a tmux pane id"),
        ({}, "no target"),
    ],
)
async def test_clear_pane_bad_target_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    pane = session(backend, command="cat")
    backend.split_window(REF, pane)
    backend.server(REF).pane(pane).write(b"".join(b"line %d\n" % i for i in range(60)))
    before = world(backend)
    assert needle in await call_error(client, "clear_pane", **args)
    assert world(backend) == before


# -- resize_pane --------------------------------------------------------------------------


async def test_resize_pane_sets_height_and_width(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)
    info = await call(client, "resize_pane", pane_id=panes["top-left"], height=7, width=30)
    assert (info["pane_height"], info["pane_width"]) == (7, 30)
    below = next(p for p in backend.list_panes(REF) if p.pane_id == panes["bottom-left"])
    assert below.height == 24 - 7 - 1


async def test_resize_pane_zooms_and_unzooms(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)
    zoomed = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=True)
    assert (zoomed["pane_width"], zoomed["pane_height"], zoomed["pane_active"]) == (80, 24, True)
    assert backend.list_windows(REF)[0].zoomed
    again = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=True)
    assert again["pane_width"] == 80  # zoom=true sets, never toggles
    unzoomed = await call(client, "resize_pane", pane_id=panes["bottom-right"], zoom=False)
    assert unzoomed["pane_width"] < 80
    assert not backend.list_windows(REF)[0].zoomed


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    panes = grid(backend)
    before = (world(backend), backend.list_windows(REF))
    error = await call_error(client, "resize_pane", **{"pane_id": panes["top-left"], **args})
    assert needle in error
    assert (world(backend), backend.list_windows(REF)) == before


# -- select_pane --------------------------------------------------------------------------


async def test_select_pane_by_id(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)
    info = await call(client, "select_pane", pane_id=panes["bottom-right"])
    assert (info["pane_id"], info["pane_active"]) == (panes["bottom-right"], True)
    assert active(backend) == panes["bottom-right"]


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    start: str,
    direction: str,
    expected: str,
) -> None:
    panes = grid(backend)
    backend.select_pane(REF, panes[start])
    info = await call(client, "select_pane", direction=direction, window_id="@0")
    assert info["pane_id"] == panes[expected]
    assert active(backend) == panes[expected]


async def test_select_pane_direction_from_a_given_pane_and_last_next_previous(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)  # indexes: top-left 0, bottom-left 1, top-right 2, bottom-right 3
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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    assert (await call(client, "select_pane", direction="up"))["pane_id"] == pane
    assert (await call(client, "select_pane", direction="next"))["pane_id"] == pane


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    first = session(backend)
    backend.split_window(REF, first)
    session(backend, name="other")
    before = (world(backend), backend.list_windows(REF))
    assert needle in await call_error(client, "select_pane", **args)
    assert (world(backend), backend.list_windows(REF)) == before


async def test_select_pane_direction_needs_a_window_when_there_are_several(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    session(backend)
    session(backend, name="other")
    before = world(backend)
    error = await call_error(client, "select_pane", direction="up")
    assert "no target given and the server has 2 windows" in error
    assert world(backend) == before


# -- swap_pane ----------------------------------------------------------------------------


async def test_swap_pane_exchanges_places_and_keeps_ids(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    panes = grid(backend)
    before = {p.pane_id: (p.left, p.top) for p in backend.list_panes(REF)}
    info = await call(
        client,
        "swap_pane",
        source_pane_id=panes["top-left"],
        target_pane_id=panes["bottom-right"],
    )
    after = {p.pane_id: (p.left, p.top) for p in backend.list_panes(REF)}
    assert info["pane_id"] == panes["top-left"]
    assert (info["pane_left"], info["pane_top"]) == before[panes["bottom-right"]]
    assert after[panes["bottom-right"]] == before[panes["top-left"]]
    assert after[panes["top-right"]] == before[panes["top-right"]]


async def test_swap_pane_across_windows(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend)
    other = backend.new_window(REF, "$0").active_pane_id
    info = await call(client, "swap_pane", source_pane_id=pane, target_pane_id=other)
    assert info["window_id"] == "@1"
    windows = {p.pane_id: p.window_id for p in backend.list_panes(REF)}
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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    grid(backend)
    before = world(backend)
    assert needle in await call_error(client, "swap_pane", **args)
    assert world(backend) == before


# -- paste_text ---------------------------------------------------------------------------


async def test_paste_text_types_it_and_deletes_its_buffer(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = session(backend, command="cat")
    backend.load_buffer(REF, "mine", "keep me")
    result = await call(client, "paste_text", text="alpha\nbeta\n", pane_id=pane, bracket=False)
    assert result == {"result": f"Text pasted to pane {pane}"}
    rows = [r for r in backend.snapshot(REF, pane).rows if r]
    assert rows == ["alpha", "alpha", "beta", "beta"]  # the tty's echo, then cat's copy
    assert [b.name for b in backend.list_buffers(REF)] == ["mine"]


async def test_paste_text_into_a_dead_pane_is_refused_and_leaves_no_buffer(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = dead_pane(backend, session(backend))
    before = world(backend)
    error = await call_error(client, "paste_text", text="hello", pane_id=pane)
    assert "has exited" in error
    assert "respawn_pane" in error
    assert world(backend) == before


async def test_paste_text_deletes_its_buffer_when_the_paste_fails(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pane = session(backend, command="cat")
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
    assert backend.list_buffers(REF) == []


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
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    pane = session(backend, command="cat")
    backend.split_window(REF, pane, command="cat")
    before = world(backend)
    assert needle in await call_error(client, "paste_text", **{"pane_id": pane, **args})
    assert world(backend) == before


# -- the SimBackend capabilities behind these tools --------------------------------------


def test_sim_select_pane_directions_wrap_and_prefer_the_most_recent() -> None:
    backend = SimBackend()
    top = session(backend)
    left = backend.split_window(REF, top, direction="below").pane_id
    right = backend.split_window(REF, left, direction="right").pane_id
    # below the top pane lie two panes; the more recently active one wins
    backend.select_pane(REF, right)
    backend.select_pane(REF, top)
    backend.select_pane(REF, top, direction="down")
    assert active(backend) == right
    backend.select_pane(REF, left)
    backend.select_pane(REF, top)
    backend.select_pane(REF, top, direction="up")  # wraps to the bottom row
    assert active(backend) == left
    backend.select_pane(REF, left, direction="left")  # wraps to the right edge
    assert active(backend) == right
    backend.select_pane(REF, right, direction="last")
    assert active(backend) == left


def test_sim_select_pane_last_without_a_last_pane_fails() -> None:
    backend = SimBackend()
    pane = session(backend)
    with pytest.raises(TmuxFailure, match="no last pane"):
        backend.select_pane(REF, pane, direction="last")
    other = backend.split_window(REF, pane).pane_id  # two panes: the other one
    backend.select_pane(REF, pane, direction="last")
    assert active(backend) == other


def test_sim_clear_pane_resets_the_screen_and_drops_history() -> None:
    backend = SimBackend()
    pane = session(backend, command="cat")
    backend.server(REF).pane(pane).write(b"".join(b"L%d\n" % i for i in range(40)) + b"tail")
    assert backend.pane_state(REF, pane).history_size > 0
    backend.copy_mode(REF, pane, enter=True)
    backend.clear_pane(REF, pane)
    state = backend.pane_state(REF, pane)
    assert (state.history_size, state.cursor_x, state.cursor_y, state.in_mode) == (0, 0, 0, False)
    assert backend.snapshot(REF, pane, start="-").rows == ("",) * 24


def test_sim_paste_buffer_into_a_dead_pane_raises_and_keeps_the_buffer() -> None:
    backend = SimBackend()
    pane = dead_pane(backend, session(backend))
    backend.load_buffer(REF, "b", "text")
    with pytest.raises(PaneDead):
        backend.paste_buffer(REF, "b", pane, delete=True)
    assert [b.name for b in backend.list_buffers(REF)] == ["b"]
