"""The lean tool list says less and means the same: output schemas only on
request (every answer keeps its ``structuredContent``), hints only where they
differ from the MCP defaults, one-paragraph descriptions."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP
from mcp.types import TextContent, ToolAnnotations

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.safety import HINT_DEFAULTS, POLICY, effective_hints, lean_hints
from gridmux.tools import tool_docs
from tmuxsim import SimBackend

#: Calls covering each result shape: lists (wrapped as {"result": [...]}),
#: objects, and a batch that embeds nested structured content.
CALLS: list[tuple[str, dict[str, Any]]] = [
    ("list_sessions", {}),
    ("list_windows", {}),
    ("list_panes", {}),
    ("list_servers", {}),
    ("get_pane_info", {}),
    ("snapshot_pane", {}),
    ("capture_since", {}),
    ("show_hooks", {}),
    ("call_readonly_tools_batch", {"operations": [{"tool": "list_panes"}]}),
]


def _steady(value: Any) -> Any:
    """``value`` without ``elapsed_seconds``, the one field that differs run to run."""
    if isinstance(value, dict):
        return {k: _steady(v) for k, v in value.items() if k != "elapsed_seconds"}
    if isinstance(value, list):
        return [_steady(v) for v in value]
    return value


def _server(on: bool) -> FastMCP:
    backend = SimBackend(version="3.3a")
    backend.new_session(ServerRef(), name="work", width=40, height=5)
    return create_server(backend, Settings(backend="sim", safety="destructive", output_schemas=on))


async def _registered(server: FastMCP) -> dict[str, dict[str, Any] | None]:
    async with Client(server) as client:
        names = [t.name for t in await client.list_tools()]
    found = {name: await server.local_provider.get_tool(name) for name in names}
    return {name: tool.output_schema if tool else None for name, tool in found.items()}


async def test_output_schemas_are_listed_only_when_switched_on() -> None:
    off, on = _server(False), _server(True)
    async with Client(off) as client:
        assert [t.name for t in await client.list_tools() if t.output_schema] == []
    async with Client(on) as client:
        listed = {t.name: t.output_schema for t in await client.list_tools()}
    registered = await _registered(on)
    with_schema = {name for name, schema in registered.items() if schema is not None}
    assert {name for name, schema in listed.items() if schema is not None} == with_schema
    assert len(with_schema) >= 45
    assert await _registered(off) == registered  # the tools themselves are the same


@pytest.mark.parametrize(("name", "arguments"), CALLS)
async def test_answers_keep_their_structured_content_either_way(
    name: str, arguments: dict[str, Any]
) -> None:
    answers = []
    for on in (False, True):
        async with Client(_server(on)) as client:
            result = await client.call_tool(name, arguments)
        assert result.structured_content is not None, (name, on)
        structured = _steady(result.structured_content)
        text = [b.text for b in result.content if isinstance(b, TextContent)]
        answers.append((structured, [t for t in text if "elapsed_seconds" not in t], result.data))
    assert answers[0][:2] == answers[1][:2]
    content = answers[0][0]
    if name.startswith("list_"):
        assert set(content) == {"result"} and isinstance(content["result"], list)
        assert answers[0][2] == content["result"]  # the client unwraps it without a schema


def test_lean_hints_mean_what_the_full_hints_meant() -> None:
    for name, rule in POLICY.items():
        full = rule.annotations.model_dump(by_alias=True, exclude_none=True)
        short = lean_hints(rule.annotations)
        assert effective_hints(short) == full, name
        wire = short.model_dump(by_alias=True, exclude_none=True)
        assert all(wire[h] != HINT_DEFAULTS[h] for h in wire), name
    assert effective_hints(None) == HINT_DEFAULTS
    kill = lean_hints(POLICY["kill_session"].annotations)
    assert kill.model_dump(by_alias=True, exclude_none=True) == {
        "idempotentHint": True,
        "openWorldHint": False,
    }
    read = ToolAnnotations(readOnlyHint=True, destructiveHint=True, idempotentHint=False)
    assert lean_hints(read).model_dump(by_alias=True, exclude_none=True) == {"readOnlyHint": True}


async def test_a_listed_description_is_the_docstrings_first_paragraph() -> None:
    docs = tool_docs()
    async with Client(_server(False)) as client:
        tools = await client.list_tools()
    for tool in tools:
        text = tool.description or ""
        assert "\n" not in text and len(text) <= 320, tool.name
        assert text == " ".join(docs[tool.name].split("\n\n")[0].split()), tool.name
    listed = {t.name: t.description or "" for t in tools}
    # facts an agent needs to call these right the first time stay in the list
    for needle in ("POSIX shell", "prompt", "refused", "still_running", "exit_status"):
        assert needle in listed["run_command"], needle
    for needle in ("cursor", "lines_missed"):
        assert needle in listed["capture_since"], needle


async def test_each_server_lists_its_own_defaults_though_tools_are_built_once() -> None:
    """Servers in one process share each tool as FastMCP built it (``_BUILT``);
    a server's ceiling and defaults must not reach the servers made after it."""

    async def listing(settings: Settings) -> dict[str, Any]:
        async with Client(create_server(SimBackend(version="3.3a"), settings)) as client:
            return {t.name: t.input_schema for t in await client.list_tools()}

    plain = Settings(backend="sim", safety="destructive")
    before = await listing(plain)
    tight = await listing(
        Settings(backend="sim", safety="destructive", wait_max_seconds=2, suppress_history=False)
    )
    assert tight["wait_for_text"]["properties"]["timeout"]["maximum"] == 2
    assert tight != before
    assert await listing(plain) == before
