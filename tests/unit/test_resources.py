"""The tmux:// resources through the MCP client (both eras), on the simulator."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest
from fastmcp import Client
from mcp import MCPError
from mcp_types import INVALID_PARAMS

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from tests.mcp_calls import call
from tmuxsim import SimBackend

REF = ServerRef()
Q = "{?socket_name}"
TEMPLATES = {
    "tmux://sessions" + Q: "application/json",
    "tmux://sessions/{session}" + Q: "application/json",
    "tmux://sessions/{session}/windows" + Q: "application/json",
    "tmux://sessions/{session}/windows/{window}" + Q: "application/json",
    "tmux://windows/{window_id}/panes" + Q: "application/json",
    "tmux://panes/{pane_id}" + Q: "application/json",
    "tmux://panes/{pane_id}/content" + Q: "text/plain",
    "tmux://runs/{run_id}/output": "text/plain",
}


async def read(client: Client, uri: str) -> str:  # type: ignore[type-arg]
    (content,) = await client.read_resource(uri)
    return str(content.text)  # type: ignore[union-attr]


async def read_json(client: Client, uri: str) -> Any:  # type: ignore[type-arg]
    return json.loads(await read(client, uri))


async def read_error(client: Client, uri: str) -> MCPError:  # type: ignore[type-arg]
    with pytest.raises(MCPError) as caught:
        await client.read_resource(uri)
    return caught.value


def two_sessions(backend: SimBackend) -> tuple[str, str]:
    """Sessions 'dev' (two windows, the second split) and 'ops'; returns dev's id
    and the split window's id."""
    dev = backend.new_session(REF, name="dev", width=80, height=24)
    backend.new_session(REF, name="ops", width=80, height=24)
    window = backend.new_window(REF, dev.session_id, name="logs")
    assert window.active_pane_id is not None
    backend.split_window(REF, window.active_pane_id)
    return dev.session_id, window.window_id


async def test_resources_and_templates_are_listed(client: Client) -> None:  # type: ignore[type-arg]
    listed = {str(r.uri): r for r in await client.list_resources()}
    assert set(listed) == {"tmux://sessions"}
    assert listed["tmux://sessions"].mime_type == "application/json"
    templates = {t.uri_template: t for t in await client.list_resource_templates()}
    assert {uri: t.mime_type for uri, t in templates.items()} == TEMPLATES
    for template in templates.values():
        assert template.title
        assert template.description


async def test_sessions_resource_matches_list_sessions(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    assert await read_json(client, "tmux://sessions") == []
    two_sessions(backend)
    sessions = await read_json(client, "tmux://sessions")
    assert [s["session_name"] for s in sessions] == ["dev", "ops"]
    assert sessions == (await call(client, "list_sessions"))["result"]


async def test_session_windows_by_id_encoded_or_bare(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    session_id, window_id = two_sessions(backend)
    number = session_id.removeprefix("$")
    forms = [session_id, quote(session_id, safe=""), number]
    answers = [await read_json(client, f"tmux://sessions/{f}/windows") for f in forms]
    assert answers[0] == answers[1] == answers[2]
    windows = answers[0]
    assert [w["window_id"] for w in windows] == [
        w.window_id for w in backend.list_windows(REF, session_id)
    ]
    assert window_id in [w["window_id"] for w in windows]
    assert windows == (await call(client, "list_windows", session_id=session_id))["result"]
    assert {w["session_name"] for w in windows} == {"dev"}
    logs = next(w for w in windows if w["window_id"] == window_id)
    assert (logs["window_name"], logs["pane_count"]) == ("logs", 2)


async def test_window_panes_match_list_panes(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    _, window_id = two_sessions(backend)
    panes = await read_json(client, f"tmux://windows/{window_id}/panes")
    assert len(panes) == 2
    assert {p["window_id"] for p in panes} == {window_id}
    assert (
        panes == (await call(client, "list_panes", window_id=window_id, fields=["all"]))["result"]
    )
    bare = window_id.removeprefix("@")
    assert await read_json(client, f"tmux://windows/{bare}/panes") == panes


async def test_pane_resource_matches_get_pane_info(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    _, window_id = two_sessions(backend)
    for pane in backend.list_panes(REF, window_id=window_id):
        pane_id = pane.pane_id
        expected = await call(client, "get_pane_info", pane_id=pane_id)
        assert await read_json(client, f"tmux://panes/{quote(pane_id, safe='')}") == expected
        assert await read_json(client, f"tmux://panes/{pane_id.removeprefix('%')}") == expected


async def test_pane_content_is_the_visible_screen(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    session = backend.new_session(REF, name="s", width=40, height=10)
    pane_id = session.active_pane_id
    assert pane_id is not None
    backend.send_keys(REF, pane_id, "echo resource", literal=False, enter=True)
    text = await read(client, f"tmux://panes/{quote(pane_id, safe='')}/content")
    assert text.splitlines() == ["$ echo resource", "resource", "$"]
    assert text == (await call(client, "capture_pane", pane_id=pane_id))["result"]


@pytest.mark.parametrize(
    ("uri", "needle"),
    [
        ("tmux://panes/%2599", "no pane %99"),
        ("tmux://panes/99/content", "no pane %99"),
        ("tmux://windows/@99/panes", "no window @99"),
        ("tmux://sessions/$99/windows", "no session $99"),
        ("tmux://panes/abc", "'abc' is not a tmux pane id"),
        ("tmux://panes/@1", "'@1' is not a tmux pane id"),
        ("tmux://windows/%251/panes", "'%1' is not a tmux window id"),
        ("tmux://sessions/nosuch/windows", "no session named 'nosuch'"),
        ("tmux://sessions/$x/windows", "'$x' is not a tmux session id"),
        # A raw '%12' is a percent-escape (0x12): the hint says how to write it.
        ("tmux://panes/%12", "%253"),
    ],
)
async def test_unknown_or_malformed_ids_are_invalid_params_with_a_hint(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    uri: str,
    needle: str,
) -> None:
    two_sessions(backend)
    before = (backend.list_sessions(REF), backend.list_panes(REF))
    error = await read_error(client, uri)
    assert error.error.code == INVALID_PARAMS
    assert needle in error.error.message
    assert "Hint:" in error.error.message
    assert (backend.list_sessions(REF), backend.list_panes(REF)) == before


async def test_path_traversal_in_a_segment_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    two_sessions(backend)
    error = await read_error(client, "tmux://panes/..%2F..%2Fetc/content")
    assert error.error.code == INVALID_PARAMS


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_resources_are_there_at_the_readonly_tier(backend: SimBackend, mode: str) -> None:
    server = create_server(backend, Settings(backend="sim", safety="readonly"))
    session = backend.new_session(REF, name="ro", width=80, height=24)
    async with Client(server, mode=mode) as client:
        sessions = await read_json(client, "tmux://sessions")
        assert [s["session_id"] for s in sessions] == [session.session_id]
        listed = {t.uri_template for t in await client.list_resource_templates()}
    # run_command is not offered at readonly, so neither is its output.
    assert listed == set(TEMPLATES) - {"tmux://runs/{run_id}/output"}


async def test_a_switched_off_tool_is_not_served_as_a_resource_or_prompt(
    backend: SimBackend,
) -> None:
    """--tools inspect offers no pane text: tmux://panes/{id}/content is not
    served, nor is a prompt whose steps need a switched-off tool."""
    session = backend.new_session(REF, name="s", width=80, height=24)
    assert session.active_pane_id is not None
    backend.send_keys(REF, session.active_pane_id, "secret on screen", literal=True, enter=False)
    settings = Settings(backend="sim", tools="inspect")
    async with Client(create_server(backend, settings)) as client:
        listed = {t.uri_template for t in await client.list_resource_templates()}
        assert "tmux://panes/{pane_id}/content" + Q not in listed
        assert "tmux://panes/{pane_id}" + Q in listed  # get_pane_info is offered
        pane = session.active_pane_id.replace("%", "%25")
        error = await read_error(client, f"tmux://panes/{pane}/content")
        assert "secret on screen" not in str(error)
        prompts = {p.name for p in await client.list_prompts()}
    assert prompts == set()  # every recipe needs a tool --tools inspect switches off
    full = Settings(backend="sim")
    async with Client(create_server(backend, full)) as client:
        assert len(await client.list_prompts()) == 6
        text = await read(client, f"tmux://panes/{pane}/content")
    assert "secret on screen" in text


async def test_resources_read_the_configured_server(backend: SimBackend) -> None:
    other = ServerRef(socket_name="elsewhere")
    backend.new_session(other, name="far", width=80, height=24)
    backend.new_session(REF, name="near", width=80, height=24)
    settings = Settings(backend="sim", socket_name="elsewhere")
    async with Client(create_server(backend, settings)) as client:
        sessions = await read_json(client, "tmux://sessions")
    assert [s["session_name"] for s in sessions] == ["far"]
