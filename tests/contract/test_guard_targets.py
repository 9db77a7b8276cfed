"""Contradictory targets are refused, never silently resolved (issue 16 item
13): a pane_id given with a session or window that does not hold it names no
pane, and the call changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.pane_views import session, world
from tests.mcp_calls import call, call_error

#: Tools that take a pane_id beside session and window targets, with their other arguments.
PANE_TOOLS: dict[str, dict[str, Any]] = {
    "display_message": {"format_string": "#{pane_id}"},
    "get_pane_info": {},
    "capture_pane": {},
    "snapshot_pane": {},
    "send_keys": {"keys": "echo never"},
    "set_pane_title": {"title": "never"},
    "clear_pane": {},
    "paste_text": {"text": "never"},
}


@pytest.mark.parametrize("tool", sorted(PANE_TOOLS))
async def test_a_pane_id_with_another_session_or_window_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tool: str,
) -> None:
    mine = session(backend, ref, "mine")
    other = session(backend, ref, "other")
    theirs = backend.list_sessions(ref)
    other_session = next(s for s in theirs if s.session_name == "other")
    other_window = next(p.window_id for p in backend.list_panes(ref) if p.pane_id == other)
    before = world(backend, ref)
    for contradiction in (
        {"session_name": "other"},
        {"session_id": other_session.session_id},
        {"window_id": other_window},
    ):
        error = await call_error(client, tool, pane_id=mine, **contradiction, **PANE_TOOLS[tool])
        assert f"pane {mine} is in" in error and "contradict" in error, contradiction
        assert "Hint: Pass pane_id alone" in error
    assert world(backend, ref) == before


async def test_a_pane_id_with_its_own_session_is_that_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    mine = session(backend, ref, "mine")
    session(backend, ref, "other")
    out = await call(
        client, "display_message", format_string="#{pane_id}", pane_id=mine, session_name="mine"
    )
    assert out == {"result": mine}


@pytest.mark.parametrize("bad", ["a\x1b[31mred", "two\nlines", "cr\r", "nul\x00cut", "del\x7f"])
async def test_names_with_control_characters_are_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    bad: str,
) -> None:
    session(backend, ref)
    before = (world(backend, ref), [s.session_name for s in backend.list_sessions(ref)])
    window = backend.list_panes(ref)[0].window_id
    for tool, args in [
        ("create_session", {"session_name": bad}),
        ("create_session", {"session_name": "fine", "window_name": bad}),
        ("rename_session", {"session_name": "main", "new_name": bad}),
        ("create_window", {"session_name": "main", "window_name": bad}),
        ("rename_window", {"window_id": window, "new_name": bad}),
    ]:
        error = await call_error(client, tool, **args)
        assert "control character" in error, (tool, args)
    assert (world(backend, ref), [s.session_name for s in backend.list_sessions(ref)]) == before


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("send_keys", {"keys": "echo a\x00b", "literal": True}),
        ("paste_text", {"text": "a\x00b"}),
        ("load_buffer", {"content": "a\x00b"}),
        ("send_keys_batch", {"operations": [{"keys": "echo a\x00b", "literal": True}]}),
    ],
)
async def test_text_with_a_nul_is_refused_not_cut(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tool: str,
    args: dict[str, Any],
) -> None:
    pane = session(backend, ref)
    before = world(backend, ref)
    if tool == "send_keys_batch":  # each operation names its pane
        args = {"operations": [{**op, "pane_id": pane} for op in args["operations"]]}
    extra = {} if tool in ("load_buffer", "send_keys_batch") else {"pane_id": pane}
    error = await call_error(client, tool, **args, **extra)
    assert "NUL character (at offset" in error and "Hint:" in error
    assert world(backend, ref) == before
