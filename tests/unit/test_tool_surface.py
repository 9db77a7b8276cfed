"""The whole tool surface, checked against the predecessor's facts.

One row per tool: name, safety tier, what it returns, and its parameters
(``name`` is required, ``name=default`` optional with that default), taken
from the predecessor (libtmux-mcp 0.1.0a20) plus ``wait_for_content_change``
from the release before it. Every tool except ``list_servers`` and the three
batch tools also takes ``socket_name`` and ``socket_path`` (both default
null): ``socket_path`` is gridmux's addition, so it is not in the rows.

Each test reports every tool that is missing or differs, not just the first.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from gridmux import Settings, create_server
from gridmux.backend import (
    PANE_ID,
    SESSION_ID,
    SOCKET_NAME,
    SOCKET_PATH,
    WINDOW_ID,
    WINDOW_INDEX,
    ServerRef,
)
from gridmux.tools import SHARED_PARAMETERS, ToolContext, panes
from tmuxsim import SimBackend

_REQUIRED = object()

#: tool tier return-type, then its parameters on indented lines.
_TABLE = """\
call_readonly_tools_batch readonly ToolCallBatchResult
    operations on_error='stop'
call_mutating_tools_batch mutating ToolCallBatchResult
    operations on_error='stop'
call_destructive_tools_batch destructive ToolCallBatchResult
    operations on_error='stop'
list_sessions readonly list[SessionInfo]
    socket_name=None filters=None
list_servers readonly list[ServerInfo]
    extra_socket_paths=None
create_session mutating SessionInfo
    session_name=None window_name=None start_directory=None x=None y=None environment=None
    socket_name=None suppress_persistent_history=False
kill_server destructive str
    socket_name=None
get_server_info readonly ServerInfo
    socket_name=None
list_windows readonly list[WindowInfo]
    session_name=None session_id=None socket_name=None filters=None
get_session_info readonly SessionInfo
    session_id=None session_name=None socket_name=None
create_window mutating WindowInfo
    session_name=None session_id=None window_name=None start_directory=None attach=False
    direction=None socket_name=None environment=None suppress_persistent_history=False
rename_session mutating SessionInfo
    new_name session_name=None session_id=None socket_name=None
kill_session destructive str
    session_name=None session_id=None socket_name=None
select_window mutating WindowInfo
    window_id=None window_index=None direction=None session_name=None session_id=None
    socket_name=None
list_panes readonly list[PaneRow]
    session_name=None session_id=None window_id=None window_index=None socket_name=None
    filters=None fields=None
get_window_info readonly WindowInfo
    window_id=None window_index=None session_name=None session_id=None socket_name=None
split_window mutating PaneInfo
    pane_id=None session_name=None session_id=None window_id=None window_index=None
    direction=None size=None start_directory=None shell=None socket_name=None
    environment=None suppress_persistent_history=False
rename_window mutating WindowInfo
    new_name window_id=None window_index=None session_name=None session_id=None
    socket_name=None
kill_window destructive str
    window_id socket_name=None
select_layout mutating WindowInfo
    layout window_id=None window_index=None session_name=None session_id=None
    socket_name=None
resize_window mutating WindowInfo
    window_id=None window_index=None session_name=None session_id=None height=None
    width=None socket_name=None
move_window mutating WindowInfo
    window_id=None window_index=None session_name=None session_id=None destination_index=''
    destination_session=None socket_name=None
send_keys mutating str
    keys pane_id=None session_name=None session_id=None window_id=None enter=True
    literal=False suppress_history=False socket_name=None
send_keys_batch mutating SendKeysBatchResult
    operations on_error='stop' timeout=None socket_name=None
run_command mutating RunCommandResult
    command pane_id=None session_name=None session_id=None window_id=None timeout=30.0
    max_lines=200 max_bytes=64000 suppress_history=True nested_shell=False prompt_only=False
    socket_name=None
capture_pane readonly str
    pane_id=None session_name=None session_id=None window_id=None start=None end=None
    max_lines=500 socket_name=None
capture_since readonly CaptureSinceResult
    cursor=None pane_id=None session_name=None session_id=None window_id=None max_lines=500
    max_bytes=128000 socket_name=None
snapshot_pane readonly PaneSnapshot
    pane_id=None session_name=None session_id=None window_id=None max_lines=500
    socket_name=None
search_panes readonly SearchPanesResult
    pattern regex=False session_name=None session_id=None match_case=False
    content_start=None content_end=None max_matched_lines_per_pane=50 limit=500 offset=0
    socket_name=None
wait_for_text readonly WaitForTextResult
    patterns=None stop=None regex=False pane_id=None session_name=None session_id=None
    window_id=None timeout=8.0 interval=0.05 match_case=False socket_name=None
display_message readonly str
    format_string pane_id=None session_name=None session_id=None window_id=None
    socket_name=None
get_pane_info readonly PaneInfo
    pane_id=None session_name=None session_id=None window_id=None socket_name=None
find_pane_by_position readonly PaneInfo
    corner window_id=None window_index=None session_name=None session_id=None
    socket_name=None
set_pane_title mutating PaneInfo
    title pane_id=None session_name=None session_id=None window_id=None socket_name=None
respawn_pane mutating PaneInfo
    pane_id kill=True shell=None start_directory=None environment=None socket_name=None
    suppress_persistent_history=False
kill_pane destructive str
    pane_id socket_name=None
clear_pane mutating str
    pane_id=None session_name=None session_id=None window_id=None socket_name=None
paste_text mutating str
    text pane_id=None bracket=True session_name=None session_id=None window_id=None
    socket_name=None
resize_pane mutating PaneInfo
    pane_id=None session_name=None session_id=None window_id=None height=None width=None
    zoom=None socket_name=None
select_pane mutating PaneInfo
    pane_id=None direction=None window_id=None window_index=None session_name=None
    session_id=None socket_name=None
swap_pane mutating PaneInfo
    source_pane_id target_pane_id socket_name=None
enter_copy_mode mutating PaneInfo
    pane_id=None scroll_up=None session_name=None session_id=None window_id=None
    socket_name=None
exit_copy_mode mutating PaneInfo
    pane_id=None session_name=None session_id=None window_id=None socket_name=None
pipe_pane mutating str
    pane_id=None output_path=None append=True session_name=None session_id=None
    window_id=None socket_name=None
show_option readonly OptionResult
    option scope=None target=None global_=False socket_name=None
set_option mutating OptionSetResult
    option value scope=None target=None global_=False socket_name=None
show_environment readonly EnvironmentResult
    session_name=None session_id=None socket_name=None
set_environment mutating EnvironmentSetResult
    name value session_name=None session_id=None socket_name=None
load_buffer mutating BufferRef
    content logical_name=None socket_name=None
paste_buffer mutating str
    buffer_name pane_id=None bracket=True session_name=None session_id=None window_id=None
    socket_name=None
show_buffer readonly BufferContent
    buffer_name max_lines=500 socket_name=None
delete_buffer mutating str
    buffer_name socket_name=None
show_hooks readonly HookListResult
    scope=None target=None global_=False socket_name=None
show_hook readonly HookListResult
    hook_name scope=None target=None global_=False socket_name=None
wait_for_channel mutating str
    channel timeout=30.0 socket_name=None
signal_channel mutating str
    channel socket_name=None
wait_for_content_change readonly ContentChangeResult
    pane_id=None session_name=None session_id=None window_id=None timeout=8.0 interval=0.05
    socket_name=None
"""

#: Tools that take no socket arguments (they do not address one server).
SOCKET_EXEMPT = frozenset(
    {
        "list_servers",
        "call_readonly_tools_batch",
        "call_mutating_tools_batch",
        "call_destructive_tools_batch",
    }
)


@dataclass(frozen=True)
class Expected:
    name: str
    tier: str
    returns: str
    params: dict[str, Any]  # name -> default, or _REQUIRED


def _parse(table: str) -> dict[str, Expected]:
    tools: dict[str, Expected] = {}
    current: Expected | None = None
    for line in table.splitlines():
        if not line.startswith(" "):
            name, tier, returns = line.split()
            current = Expected(name, tier, returns, {})
            tools[name] = current
            continue
        assert current is not None
        for item in line.split():
            key, sep, default = item.partition("=")
            current.params[key] = ast.literal_eval(default) if sep else _REQUIRED
    for name, tool in tools.items():
        if name not in SOCKET_EXEMPT:
            tool.params["socket_path"] = None
    return tools


EXPECTED = _parse(_TABLE)


def test_the_table_itself() -> None:
    """Guard against editing mistakes: 57 tools, 22/30/5 by tier."""
    assert len(EXPECTED) == 57
    tiers = [t.tier for t in EXPECTED.values()]
    assert (tiers.count("readonly"), tiers.count("mutating"), tiers.count("destructive")) == (
        22,
        30,
        5,
    )


@pytest.fixture
async def wire() -> dict[str, dict[str, Any]]:
    """Every tool as a client lists it (server at the destructive tier, so all show,
    listing its output schemas: ``--output-schemas on``)."""
    server = create_server(
        SimBackend(version="3.3a"),
        Settings(backend="sim", safety="destructive", output_schemas=True),
    )
    async with Client(server) as client:
        tools = await client.list_tools()
    return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in tools}


def _report(problems: dict[str, list[str]]) -> str:
    lines = [f"{len(problems)} tool(s) differ from the expected surface:"]
    for name in sorted(problems):
        lines.extend(f"  {name}: {p}" for p in problems[name])
    return "\n".join(lines)


def test_every_expected_tool_exists_and_nothing_else(wire: dict[str, dict[str, Any]]) -> None:
    listed = set(wire)
    missing = sorted(set(EXPECTED) - listed)
    unexpected = sorted(listed - set(EXPECTED))
    assert not missing and not unexpected, (
        f"missing {len(missing)} tool(s): {', '.join(missing) or '-'}\n"
        f"unexpected {len(unexpected)} tool(s): {', '.join(unexpected) or '-'}"
    )


def _param_problems(expected: Expected, schema: dict[str, Any]) -> list[str]:
    props: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    problems = []
    missing = [p for p in expected.params if p not in props]
    extra = [p for p in props if p not in expected.params]
    if missing:
        problems.append(f"missing parameters {missing}")
    if extra:
        problems.append(f"unexpected parameters {extra}")
    for name, default in expected.params.items():
        if name not in props:
            continue
        if default is _REQUIRED:
            if name not in required or "default" in props[name]:
                problems.append(f"{name} should be required (no default)")
            continue
        if name in required:
            problems.append(f"{name} should be optional (default {default!r})")
        elif props[name].get("default") != default:  # an optional one listed without: null
            got = props[name].get("default")
            problems.append(f"{name} default is {got!r}, expected {default!r}")
    return problems


def test_parameters_required_and_defaults_match(wire: dict[str, dict[str, Any]]) -> None:
    problems: dict[str, list[str]] = {}
    for name, expected in EXPECTED.items():
        if name not in wire:
            problems[name] = ["not registered"]
            continue
        found = _param_problems(expected, wire[name]["inputSchema"])
        if found:
            problems[name] = found
    assert not problems, _report(problems)


def test_tiers_match(wire: dict[str, dict[str, Any]]) -> None:
    """The tier each tool is registered in (its tag), as the predecessor had it."""
    problems: dict[str, list[str]] = {}
    for name, expected in EXPECTED.items():
        if name not in wire:
            problems[name] = ["not registered"]
            continue
        tags = set(wire[name].get("_meta", {}).get("fastmcp", {}).get("tags", []))
        tiers = tags & {"readonly", "mutating", "destructive"}
        if tiers != {expected.tier}:
            problems[name] = [f"tier tags {sorted(tiers)}, expected {expected.tier}"]
    assert not problems, _report(problems)


def test_socket_arguments_everywhere_but_the_exempt_tools(
    wire: dict[str, dict[str, Any]],
) -> None:
    problems: dict[str, list[str]] = {}
    for name, tool in wire.items():
        props = tool["inputSchema"].get("properties", {})
        has = {"socket_name", "socket_path"} & set(props)
        if name in SOCKET_EXEMPT and has:
            problems[name] = [f"takes {sorted(has)} but addresses no single server"]
        elif name not in SOCKET_EXEMPT:
            for arg in ("socket_name", "socket_path"):
                if arg not in props:
                    problems.setdefault(name, []).append(f"lacks {arg}")
                elif "default" in props[arg] or arg in tool["inputSchema"].get("required", []):
                    problems.setdefault(name, []).append(f"{arg} must be optional (null)")
    assert not problems, _report(problems)


def test_model_results_have_an_output_schema(wire: dict[str, dict[str, Any]]) -> None:
    problems: dict[str, list[str]] = {}
    for name, expected in EXPECTED.items():
        if expected.returns == "str":
            continue
        if name not in wire:
            problems[name] = ["not registered"]
            continue
        schema = wire[name].get("outputSchema")
        if schema is None or schema.get("type") != "object" or not schema.get("properties"):
            problems[name] = [f"returns {expected.returns} but has no object output schema"]
    assert not problems, _report(problems)


# -- contracts in types: ids and sockets carry their patterns -------------------------

#: Which form each parameter name takes (its pattern is in the input schema).
FORMS = {
    "pane_id": PANE_ID,
    "source_pane_id": PANE_ID,
    "target_pane_id": PANE_ID,
    "window_id": WINDOW_ID,
    "session_id": SESSION_ID,
    "window_index": WINDOW_INDEX,
    "socket_name": SOCKET_NAME,
    "socket_path": SOCKET_PATH,
}


def _patterns(prop: dict[str, Any]) -> set[str]:
    return {p["pattern"] for p in [prop, *prop.get("anyOf", [])] if "pattern" in p}


def test_ids_and_sockets_carry_their_pattern_unless_shared(
    wire: dict[str, dict[str, Any]],
) -> None:
    """The shared target parameters are listed as plain strings (the server checks
    their form and says what a valid one looks like, below); other ids carry
    their pattern."""
    problems: dict[str, list[str]] = {}
    for name, tool in wire.items():
        for param, prop in tool["inputSchema"].get("properties", {}).items():
            form = FORMS.get(param)
            if form is None:
                continue
            if param in SHARED_PARAMETERS:
                if _patterns(prop) or prop.get("type") != "string":
                    problems.setdefault(name, []).append(f"{param} listed as {prop}")
            elif _patterns(prop) != {form.pattern}:
                problems.setdefault(name, []).append(f"{param} patterns {_patterns(prop)}")
    assert not problems, _report(problems)
    typed = sum(
        param in FORMS for t in wire.values() for param in t["inputSchema"].get("properties", {})
    )
    assert typed > 200  # the rule above checked the id parameters, not an empty set


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        (
            "get_pane_info",
            {"pane_id": "3"},
            "pane_id '3' is not a tmux pane id\nHint: A pane id looks like '%1'; "
            "list them with list_panes.",
        ),
        ("kill_window", {"window_id": "$1"}, "window_id '$1' is not a tmux window id"),
        ("list_windows", {"session_id": "1"}, "session_id '1' is not a tmux session id"),
        ("swap_pane", {"source_pane_id": "%1", "target_pane_id": "@2"}, "'@2' is not a tmux"),
        ("list_panes", {"session_id": "$1", "window_index": "x"}, "is not a window index"),
        ("list_sessions", {"socket_name": "a/b"}, "invalid socket_name 'a/b'\nHint: "),
        ("list_sessions", {"socket_path": "rel"}, "invalid socket_path 'rel'\nHint: "),
        ("create_session", {"session_name": "a.b"}, "invalid session name 'a.b'"),
    ],
)
async def test_a_value_off_its_pattern_gets_our_words_not_a_schema_dump(
    tool: str, arguments: dict[str, Any], expected: str
) -> None:
    server = create_server(
        SimBackend(version="3.3a"), Settings(backend="sim", safety="destructive")
    )
    async with Client(server) as client:
        with pytest.raises(ToolError) as caught:
            await client.call_tool(tool, arguments)
    text = str(caught.value)
    assert expected in text
    assert "validation error" not in text and "pattern" not in text, text


# -- flat tools: the context is injected, never a parameter -----------------------------


def test_the_injected_context_is_in_no_schema(wire: dict[str, dict[str, Any]]) -> None:
    leaked = sorted(n for n, t in wire.items() if "ctx" in t["inputSchema"].get("properties", {}))
    assert leaked == []


async def test_a_tool_is_a_plain_function_that_takes_its_context() -> None:
    backend = SimBackend(version="3.3a")
    session = backend.new_session(ServerRef(), name="direct", width=80, height=24)
    ctx = ToolContext(backend=backend, settings=Settings(backend="sim"))
    pane = await panes.get_pane_info(pane_id=session.active_pane_id, ctx=ctx)
    assert (pane.pane_id, pane.session_name) == (session.active_pane_id, "direct")
