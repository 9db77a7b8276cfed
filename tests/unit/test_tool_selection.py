"""Choosing tools (--tools, --exclude-tools, groups) and the server-wide defaults
(--suppress-history, --wait-max-seconds): what is listed is what can be called,
directly or in a batch, and every call behaves as its listing says."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.safety import POLICY
from gridmux.selection import GROUPS, select_tools
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


def test_every_tool_is_in_exactly_one_group() -> None:
    grouped = [name for names in GROUPS.values() for name in names]
    assert sorted(grouped) == sorted(POLICY)
    assert set(GROUPS) == {"inspect", "read", "execute", "arrange", "settings", "batch", "teardown"}


def test_groups_and_names_mix_and_exclusions_win() -> None:
    chosen = select_tools("read,send_keys,teardown", "kill_server,capture_pane")
    assert chosen == (set(GROUPS["read"]) | {"send_keys", *GROUPS["teardown"]}) - {
        "kill_server",
        "capture_pane",
    }
    assert select_tools(None, "batch") == set(POLICY) - set(GROUPS["batch"])


@pytest.mark.parametrize(
    ("tools", "exclude", "needle"),
    [
        ("inspekt", None, "did you mean 'inspect'?"),
        (None, "send_key", "did you mean 'send_keys'?"),
        (" , ", None, "names no tool"),
        ("batch", "batch", "leaves no tool"),
    ],
)
def test_a_bad_selection_is_refused_saying_why(
    tools: str | None, exclude: str | None, needle: str
) -> None:
    with pytest.raises(ValueError, match=needle):
        Settings(tools=tools, exclude_tools=exclude)


async def _names(client: Client) -> set[str]:  # type: ignore[type-arg]
    return {t.name for t in await client.list_tools()}


async def test_a_tool_switched_off_is_not_listed_nor_callable_nor_batched() -> None:
    backend = SimBackend(version="3.3a")
    pane = backend.new_session(REF, name="s", width=40, height=5).active_pane_id
    settings = Settings(
        backend="sim",
        safety="destructive",
        tools="inspect,read,batch",
        exclude_tools="search_panes",
    )
    async with Client(create_server(backend, settings)) as client:
        listed = await _names(client)
        assert listed == (set(GROUPS["inspect"]) | set(GROUPS["read"]) | set(GROUPS["batch"])) - {
            "search_panes"
        }
        error = await call_error(client, "send_keys", keys="x", pane_id=pane)
        assert "send_keys is switched off on this server" in error
        assert "--tools" in error
        batch = await call(
            client,
            "call_destructive_tools_batch",
            operations=[
                {"tool": "list_panes", "arguments": {}},
                {"tool": "kill_pane", "arguments": {"pane_id": pane}},
            ],
            on_error="continue",
        )
        rows = batch["results"]
        assert rows[0]["success"] is True
        assert rows[1]["success"] is False and "switched off" in rows[1]["error"]
    assert [p.pane_id for p in backend.list_panes(REF)] == [pane]  # nothing was killed


async def test_the_tier_still_applies_on_top_of_a_selection() -> None:
    settings = Settings(backend="sim", safety="readonly", tools="read,teardown")
    async with Client(create_server(SimBackend(version="3.3a"), settings)) as client:
        assert await _names(client) == set(GROUPS["read"])
        assert "safety tier" in await call_error(client, "kill_server")


# -- server-wide defaults ---------------------------------------------------------------


def _first_row(backend: SimBackend, pane: str) -> str:
    return str(backend.server(REF).pane(pane).terminal.capture("-")[0])


def bash_pane(backend: SimBackend) -> str:
    """A pane whose shell is (the simulator's) bash: it keeps a history."""
    backend.new_session(REF, name="scratch")  # the server, to set the option on
    backend.set_option(REF, "default-shell", "/bin/bash", scope="session", global_=True)
    pane = backend.new_session(REF, name="s", width=80, height=10).active_pane_id
    assert pane is not None
    return pane


async def listed_history(client: Client, pane: str) -> list[str]:  # type: ignore[type-arg]
    listed = await call(
        client, "run_command", command="history", pane_id=pane, suppress_history=True
    )
    return [line.split(None, 1)[1] for line in listed["output"]]


@pytest.mark.parametrize(("setting", "kept"), [("on", []), ("off", ["echo ran"])])
async def test_run_command_takes_the_servers_suppress_history_default(
    setting: str, kept: list[str]
) -> None:
    backend = SimBackend(version="3.3a")
    pane = bash_pane(backend)
    settings = Settings(backend="sim", suppress_history=setting)
    async with Client(create_server(backend, settings)) as client:
        schema = {t.name: t.input_schema for t in await client.list_tools()}["run_command"]
        assert schema["properties"]["suppress_history"]["default"] is (setting == "on")
        result = await call(client, "run_command", command="echo ran", pane_id=pane)
        assert result["exit_status"] == 0
        assert await listed_history(client, pane) == kept
    assert _first_row(backend, pane) == "$ echo ran"  # on screen, as typed, either way


async def test_a_call_overrides_the_suppress_history_default() -> None:
    backend = SimBackend(version="3.3a")
    pane = bash_pane(backend)
    settings = Settings(backend="sim", suppress_history="off")
    async with Client(create_server(backend, settings)) as client:
        await call(client, "run_command", command="true", pane_id=pane, suppress_history=True)
        assert await listed_history(client, pane) == []


WAITS: list[tuple[str, dict[str, Any]]] = [
    ("wait_for_text", {"patterns": ["x"]}),
    ("wait_for_content_change", {}),
    ("wait_for_channel", {"channel": "c"}),
    ("run_command", {"command": "true"}),
    ("send_keys_batch", {"operations": [{"keys": "x"}]}),
]


@pytest.mark.parametrize(("tool", "args"), WAITS)
async def test_a_timeout_past_the_ceiling_is_refused_and_listed_as_the_maximum(
    tool: str, args: dict[str, Any]
) -> None:
    backend = SimBackend(version="3.3a")
    pane = backend.new_session(REF, name="s", width=40, height=5).active_pane_id
    assert pane is not None
    settings = Settings(backend="sim", wait_max_seconds=5)
    async with Client(create_server(backend, settings)) as client:
        schema = {t.name: t.input_schema for t in await client.list_tools()}[tool]
        timeout = schema["properties"]["timeout"]
        assert timeout["maximum"] == 5
        assert timeout.get("default") is None or timeout["default"] <= 5
        if tool == "send_keys_batch":
            args = {"operations": [{"keys": "x", "pane_id": pane}]}
        elif tool != "wait_for_channel":
            args = {**args, "pane_id": pane}
        error = await call_error(client, tool, timeout=6, **args)
    assert "timeout 6 s is above this server's wait ceiling of 5 s" in error
    assert "--wait-max-seconds" in error
    assert backend.server(REF).pane(pane).terminal.capture("-")[0] == "$"  # nothing was typed


async def test_an_omitted_timeout_past_the_ceiling_waits_for_the_ceiling() -> None:
    backend = SimBackend(version="3.3a")
    backend.new_session(REF, name="s", width=40, height=5)
    settings = Settings(backend="sim", wait_max_seconds=0.2)
    async with Client(create_server(backend, settings)) as client:
        error = await call_error(client, "wait_for_channel", channel="never")
    assert "not signalled within 0.2 s" in error
