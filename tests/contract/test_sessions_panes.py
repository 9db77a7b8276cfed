"""list_sessions, create_session, list_panes, get_pane_info, capture_pane,
snapshot_pane and send_keys through the MCP client, on both backends."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from tests.contract.conftest import Eventually
from tests.contract.pane_views import wait_for_prompt


def text(result: Any) -> str:
    return str(result.content[0].text)


async def create(client: Client, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result = await client.call_tool("create_session", args)
    assert result.structured_content is not None
    return result.structured_content


async def test_tools_are_listed_with_honest_annotations(client: Client) -> None:  # type: ignore[type-arg]
    tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) >= {
        "list_sessions",
        "create_session",
        "list_panes",
        "get_pane_info",
        "capture_pane",
        "snapshot_pane",
        "send_keys",
        "capture_since",
    }
    readonly = {
        "list_sessions",
        "list_panes",
        "get_pane_info",
        "capture_pane",
        "snapshot_pane",
        "capture_since",
    }
    for name in readonly | {"create_session", "send_keys"}:
        wire = tools[name].model_dump(by_alias=True, exclude_none=True)
        assert wire["title"]
        assert effective_hints(tools[name].annotations)["readOnlyHint"] is (name in readonly)
        assert "outputSchema" not in wire  # listed only with --output-schemas on
    assert effective_hints(tools["send_keys"].annotations)["destructiveHint"] is True


async def test_list_sessions_on_a_server_that_is_not_running_is_empty(
    client: Client,  # type: ignore[type-arg]
) -> None:
    result = await client.call_tool("list_sessions", {})
    assert result.structured_content == {"result": []}


async def test_create_session_then_list_and_filter(client: Client) -> None:  # type: ignore[type-arg]
    made = await create(client, session_name="dev", x=100, y=30)
    assert made["session_name"] == "dev"
    assert made["active_pane_id"].startswith("%")
    await create(client, session_name="ops")
    listed = (await client.call_tool("list_sessions", {})).structured_content
    assert listed is not None
    assert [s["session_name"] for s in listed["result"]] == ["dev", "ops"]
    only = await client.call_tool("list_sessions", {"filters": '{"session_name__startswith": "o"}'})
    assert [s["session_name"] for s in only.structured_content["result"]] == ["ops"]  # type: ignore[index]
    panes = (await client.call_tool("list_panes", {"session_name": "dev"})).structured_content
    assert panes is not None
    (pane,) = panes["result"]
    assert (pane["pane_width"], pane["pane_height"]) == (100, 30)
    assert pane["pane_id"] == made["active_pane_id"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"session_name": "a:b"}, "cannot be empty or contain"),
        ({"x": 0}, "greater than or equal to 1"),
        ({"environment": {"1BAD": "x"}}, "not a valid environment variable name"),
        ({"environment": "[1, 2]"}, "must map names"),
    ],
)
async def test_create_session_rejects_bad_input_and_creates_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    result = await client.call_tool("create_session", args, raise_on_error=False)
    assert result.is_error
    assert needle in text(result)
    assert backend.list_sessions(ref) == []


async def test_duplicate_session_name_is_an_error(client: Client) -> None:  # type: ignore[type-arg]
    await create(client, session_name="dup")
    result = await client.call_tool("create_session", {"session_name": "dup"}, raise_on_error=False)
    assert result.is_error
    assert "already exists" in text(result)


async def test_send_keys_runs_a_command_and_capture_pane_shows_it(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    ref: ServerRef,
    eventually: Eventually,
) -> None:
    pane = (await create(client, session_name="s"))["active_pane_id"]
    wait_for_prompt(backend, ref, pane)
    sent = await client.call_tool("send_keys", {"keys": "echo hello", "pane_id": pane})
    assert text(sent) == f"Keys sent to pane {pane}"

    async def shown() -> list[str]:
        return text(await client.call_tool("capture_pane", {"pane_id": pane})).splitlines()

    async def output_shown() -> bool:
        return "hello" in await shown()

    # On tmux the shell runs the line after send_keys returns.
    await eventually(output_shown, what="the command's output")
    assert "$ echo hello" in await shown()


async def test_send_keys_literal_does_not_interpret_key_names(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    ref: ServerRef,
    eventually: Eventually,
) -> None:
    pane = (await create(client, session_name="s"))["active_pane_id"]
    wait_for_prompt(backend, ref, pane)
    await client.call_tool(
        "send_keys", {"keys": "C-c", "pane_id": pane, "literal": True, "enter": False}
    )

    async def last_row() -> str:
        shown = text(await client.call_tool("capture_pane", {"pane_id": pane}))
        return shown.splitlines()[-1]

    async def shows_typed_text() -> bool:
        return await last_row() == "$ C-c"

    await eventually(shows_typed_text, what="the typed text after the prompt")


async def test_targets_are_never_guessed(client: Client) -> None:  # type: ignore[type-arg]
    await create(client, session_name="one")
    await create(client, session_name="two")
    result = await client.call_tool("send_keys", {"keys": "ls"}, raise_on_error=False)
    assert result.is_error
    assert "pass pane_id" in text(result).lower()
    assert "%0" in text(result) and "%1" in text(result)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        # a bare pane id goes to tmux directly: tmux's own words
        ({"pane_id": "%99"}, re.compile(r"no pane %99|can't find pane: %99")),
        ({"pane_id": "7"}, "not a tmux pane id"),
        ({"session_name": "nope"}, "no session 'nope'"),
        ({"window_id": "@42"}, "no window @42"),
    ],
)
async def test_unknown_targets_are_clear_errors(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str | re.Pattern[str],
) -> None:
    await create(client, session_name="s")
    for tool in ("get_pane_info", "capture_pane", "snapshot_pane", "capture_since"):
        result = await client.call_tool(tool, args, raise_on_error=False)
        assert result.is_error, tool
        found = (
            needle.search(text(result))
            if isinstance(needle, re.Pattern)
            else needle in text(result)
        )
        assert found, (tool, text(result))


async def test_get_pane_info_of_a_session_is_its_active_pane(
    client: Client,  # type: ignore[type-arg]
) -> None:
    made = await create(client, session_name="s")
    info = (await client.call_tool("get_pane_info", {"session_name": "s"})).structured_content
    assert info is not None
    assert info["pane_id"] == made["active_pane_id"]
    assert info["session_name"] == "s"
    assert info["is_caller"] is None
