"""display_message, find_pane_by_position, set_pane_title, clear_pane, resize_pane,
select_pane, swap_pane and paste_text through the MCP client, on the simulator;
and the backend capabilities they added (directional select_pane, clear_pane,
paste_buffer into a dead pane) on the SimBackend itself.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_pane_control.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import PaneDead, ServerRef, TmuxFailure
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


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


async def test_display_message_reads_a_dead_pane(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = dead_pane(backend, session(backend))
    out = await call(
        client, "display_message", format_string="#{pane_dead} #{pane_dead_status}", pane_id=pane
    )
    assert out == {"result": "1 3"}


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
