"""Safety tiers: which tools each tier exposes, that hidden tools cannot be
called, how the tier is chosen, and that every tool's annotations tell the
truth about its tier."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations

from gridmux import Settings, create_server, main, safety
from gridmux.backend import ServerRef
from gridmux.safety import HINT_DEFAULTS, POLICY, READONLY, SETS, Rule, Tier, effective_hints
from tmuxsim import SimBackend

REF = ServerRef()

READONLY_TOOLS = frozenset(
    {
        "call_readonly_tools_batch",
        "list_servers",
        "get_server_info",
        "list_sessions",
        "get_session_info",
        "list_windows",
        "get_window_info",
        "list_panes",
        "get_pane_info",
        "find_pane_by_position",
        "capture_pane",
        "capture_since",
        "snapshot_pane",
        "search_panes",
        "display_message",
        "wait_for_text",
        "wait_for_content_change",
        "show_option",
        "show_environment",
        "show_buffer",
        "show_hooks",
        "show_hook",
    }
)
MUTATING_TOOLS = frozenset(
    {
        "call_mutating_tools_batch",
        "create_session",
        "rename_session",
        "create_window",
        "rename_window",
        "select_window",
        "select_layout",
        "resize_window",
        "move_window",
        "split_window",
        "select_pane",
        "swap_pane",
        "resize_pane",
        "set_pane_title",
        "respawn_pane",
        "clear_pane",
        "enter_copy_mode",
        "exit_copy_mode",
        "send_keys",
        "send_keys_batch",
        "paste_text",
        "run_command",
        "pipe_pane",
        "set_option",
        "set_environment",
        "load_buffer",
        "paste_buffer",
        "delete_buffer",
        "wait_for_channel",
        "signal_channel",
    }
)
DESTRUCTIVE_TOOLS = frozenset(
    {"call_destructive_tools_batch", "kill_server", "kill_session", "kill_window", "kill_pane"}
)
EXPOSED = {
    "readonly": READONLY_TOOLS,
    "mutating": READONLY_TOOLS | MUTATING_TOOLS,
    "destructive": READONLY_TOOLS | MUTATING_TOOLS | DESTRUCTIVE_TOOLS,
}
TIER_OF = (
    dict.fromkeys(READONLY_TOOLS, "readonly")
    | dict.fromkeys(MUTATING_TOOLS, "mutating")
    | dict.fromkeys(DESTRUCTIVE_TOOLS, "destructive")
)
RANK = {"readonly": 0, "mutating": 1, "destructive": 2}


def _server(safety: str) -> FastMCP:
    return create_server(SimBackend(version="3.3a"), Settings(backend="sim", safety=safety))


async def _listed(server: FastMCP) -> dict[str, dict[str, Any]]:
    async with Client(server) as client:
        tools = await client.list_tools()
    return {t.name: t.model_dump(by_alias=True, exclude_none=True) for t in tools}


def _tier_tags(tool: dict[str, Any]) -> set[str]:
    tags = set(tool.get("_meta", {}).get("fastmcp", {}).get("tags", []))
    return tags & set(RANK)


def test_the_tier_sets_add_up() -> None:
    assert (len(READONLY_TOOLS), len(MUTATING_TOOLS), len(DESTRUCTIVE_TOOLS)) == (22, 30, 5)
    assert not (READONLY_TOOLS & MUTATING_TOOLS or MUTATING_TOOLS & DESTRUCTIVE_TOOLS)


@pytest.mark.parametrize("safety", ["readonly", "mutating", "destructive"])
async def test_each_tier_lists_exactly_its_tools(safety: str) -> None:
    listed = set(await _listed(_server(safety)))
    missing = sorted(EXPOSED[safety] - listed)
    unexpected = sorted(listed - EXPOSED[safety])
    assert not missing and not unexpected, (
        f"at --safety {safety}: missing {missing or '-'}; "
        f"listed but not allowed {unexpected or '-'}"
    )


# -- tools above the tier cannot be called ------------------------------------------


def _state(backend: SimBackend) -> tuple[object, ...]:
    """Everything a tool could change that a test can observe."""
    panes = backend.list_panes(REF)
    return (
        backend.list_sessions(REF),
        backend.list_windows(REF),
        panes,
        [backend.snapshot(REF, p.pane_id).rows for p in panes],
        backend.list_buffers(REF),
        backend.show_environment(REF),
        backend.show_options(REF, scope="session", global_=True),
    )


def _arguments(backend: SimBackend) -> dict[str, dict[str, Any]]:
    """Arguments that would change something if the tool were allowed to run."""
    (session,) = backend.list_sessions(REF)
    window = backend.list_windows(REF)[0]
    first, second = (p.pane_id for p in backend.list_panes(REF))
    sid, wid = session.session_id, window.window_id
    return {
        "call_mutating_tools_batch": {
            "operations": [{"tool": "create_session", "arguments": {"session_name": "x"}}]
        },
        "call_destructive_tools_batch": {
            "operations": [{"tool": "kill_session", "arguments": {"session_id": sid}}]
        },
        "create_session": {"session_name": "new"},
        "rename_session": {"new_name": "renamed", "session_id": sid},
        "create_window": {"session_id": sid, "window_name": "w2"},
        "rename_window": {"new_name": "renamed", "window_id": wid},
        "select_window": {"window_id": wid},
        "select_layout": {"layout": "even-vertical", "window_id": wid},
        "resize_window": {"window_id": wid, "width": 100, "height": 40},
        "move_window": {"window_id": wid, "destination_index": "7"},
        "split_window": {"pane_id": first},
        "select_pane": {"pane_id": second},
        "swap_pane": {"source_pane_id": first, "target_pane_id": second},
        "resize_pane": {"pane_id": first, "height": 5},
        "set_pane_title": {"title": "t", "pane_id": first},
        "respawn_pane": {"pane_id": first},
        "clear_pane": {"pane_id": first},
        "enter_copy_mode": {"pane_id": first},
        "exit_copy_mode": {"pane_id": first},
        "send_keys": {"keys": "echo typed", "pane_id": first},
        "send_keys_batch": {"operations": [{"keys": "echo typed", "pane_id": first}]},
        "paste_text": {"text": "pasted", "pane_id": first},
        "run_command": {"command": "echo ran", "pane_id": first, "timeout": 1},
        "pipe_pane": {"pane_id": first, "output_path": "/dev/null"},
        "set_option": {"option": "status", "value": "off", "global_": True},
        "set_environment": {"name": "GRIDMUX_TIER_TEST", "value": "1"},
        "load_buffer": {"content": "buffered"},
        "paste_buffer": {"buffer_name": "b", "pane_id": first},
        "delete_buffer": {"buffer_name": "b"},
        "wait_for_channel": {"channel": "c", "timeout": 0.1},
        "signal_channel": {"channel": "c"},
        "kill_server": {},
        "kill_session": {"session_id": sid},
        "kill_window": {"window_id": wid},
        "kill_pane": {"pane_id": second},
    }


@pytest.mark.parametrize("safety", ["readonly", "mutating"])
async def test_tools_above_the_tier_cannot_be_called_and_change_nothing(safety: str) -> None:
    backend = SimBackend(version="3.3a")
    session = backend.new_session(REF, name="work", width=80, height=24)
    assert session.active_pane_id is not None
    backend.split_window(REF, session.active_pane_id)
    backend.load_buffer(REF, "b", "kept")
    server = create_server(backend, Settings(backend="sim", safety=safety))
    arguments = _arguments(backend)
    above = sorted(name for name, tier in TIER_OF.items() if RANK[tier] > RANK[safety])
    assert set(above) <= set(arguments)
    before = _state(backend)
    allowed_anyway, errors = [], {}
    async with Client(server) as client:
        for name in above:
            try:
                await client.call_tool(name, arguments[name])
            except ToolError as exc:
                errors[name] = str(exc)
            else:
                allowed_anyway.append(name)
    assert not allowed_anyway, f"at --safety {safety} these ran: {allowed_anyway}"
    for name, text in errors.items():
        tier = TIER_OF[name]
        assert f"{name} is a {tier} tool and this server runs at safety tier {safety}" in text
        assert f"--safety {tier}" in text, text
    assert _state(backend) == before


async def test_the_same_calls_do_change_things_at_the_destructive_tier() -> None:
    """Control for the test above: its arguments are real, so the refusals mean something."""
    backend = SimBackend(version="3.3a")
    session = backend.new_session(REF, name="work", width=80, height=24)
    assert session.active_pane_id is not None
    backend.split_window(REF, session.active_pane_id)
    server = create_server(backend, Settings(backend="sim", safety="destructive"))
    arguments = _arguments(backend)
    async with Client(server) as client:
        for name in ("create_session", "send_keys", "call_mutating_tools_batch"):
            before = _state(backend)
            await client.call_tool(name, arguments[name])
            assert _state(backend) != before, f"{name} changed nothing"


# -- choosing the tier -----------------------------------------------------------------


async def _highest_listed_tier(settings: Settings) -> str:
    listed = await _listed(create_server(SimBackend(version="3.3a"), settings))
    tiers = {tier for tool in listed.values() for tier in _tier_tags(tool)}
    return max(tiers, key=RANK.__getitem__)


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        ([], {}, "mutating"),
        (["--safety", "readonly"], {}, "readonly"),
        (["--safety", "destructive"], {}, "destructive"),
        ([], {"GRIDMUX_SAFETY": "readonly"}, "readonly"),
        ([], {"GRIDMUX_SAFETY": "destructive"}, "destructive"),
        (["--safety", "readonly"], {"GRIDMUX_SAFETY": "destructive"}, "readonly"),
    ],
)
async def test_the_flag_and_the_environment_select_the_tier(
    argv: list[str], env: dict[str, str], expected: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    settings = Settings.from_command_line(["--backend", "sim", *argv])
    assert settings.safety.tag == expected
    assert await _highest_listed_tier(settings) == expected


def test_an_invalid_tier_flag_is_a_start_up_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--backend", "sim", "--safety", "everything"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--safety" in err and "'everything'" in err and "destructive" in err


def test_an_invalid_tier_in_the_environment_is_a_start_up_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRIDMUX_SAFETY", "Destructive!")
    with pytest.raises(SystemExit) as exited:
        main(["--backend", "sim"])
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert "GRIDMUX_SAFETY" in captured.err and "'Destructive!'" in captured.err
    assert "readonly, mutating or destructive" in captured.err
    assert captured.out == ""


def test_create_server_refuses_an_unknown_tier() -> None:
    with pytest.raises(ValueError, match="unknown safety tier 'root'"):
        _server("root")


# -- annotations tell the truth -------------------------------------------------------------


async def test_every_tool_has_one_tier_and_honest_annotations() -> None:
    problems: dict[str, list[str]] = {}
    for name, tool in (await _listed(_server("destructive"))).items():
        found: list[str] = []
        tiers = _tier_tags(tool)
        listed = tool.get("annotations") or {}
        hints = effective_hints(ToolAnnotations.model_validate(listed))
        if len(tiers) != 1:
            found.append(f"tier tags {sorted(tiers)}")
        tier = next(iter(tiers)) if len(tiers) == 1 else None
        if name in TIER_OF and tier != TIER_OF[name]:
            found.append(f"tier {tier}, expected {TIER_OF[name]}")
        if not tool.get("title"):
            found.append("no title")
        for hint, value in listed.items():  # only hints that say something are listed
            if hint in HINT_DEFAULTS and value == HINT_DEFAULTS[hint]:
                found.append(f"{hint}={value} repeats the MCP default")
            if listed.get("readOnlyHint") and hint in ("destructiveHint", "idempotentHint"):
                found.append(f"{hint} listed on a read-only tool")
        if hints.get("readOnlyHint") is not (tier == "readonly"):
            found.append(f"readOnlyHint {hints.get('readOnlyHint')} in tier {tier}")
        if tier == "destructive" and hints.get("destructiveHint") is not True:
            found.append("destructive tier without destructiveHint")
        if tier == "readonly" and hints.get("destructiveHint") is not False:
            found.append("readonly tool claims destructiveHint")
        if found:
            problems[name] = found
    assert not problems, "\n".join(f"{n}: {'; '.join(p)}" for n, p in sorted(problems.items()))


# -- one policy ----------------------------------------------------------------------------


async def test_the_policy_has_a_row_for_every_tool_and_no_other() -> None:
    listed = set(await _listed(_server("destructive")))
    assert set(POLICY) == listed
    assert {name: rule.tier.tag for name, rule in POLICY.items()} == TIER_OF


def test_a_tool_without_a_policy_row_cannot_be_declared() -> None:
    async def unclassified_tool() -> str:
        return "never registered"

    with pytest.raises(ValueError, match="'unclassified_tool' has no row in"):
        safety.tool("Unclassified")(unclassified_tool)


@pytest.mark.parametrize(
    ("rule", "problem"),
    [
        (Rule(Tier.MUTATING, READONLY), "a readonly tool must carry readOnlyHint, and only it"),
        (Rule(Tier.READONLY, SETS), "a readonly tool must carry readOnlyHint, and only it"),
        (Rule(Tier.DESTRUCTIVE, SETS), "must carry destructiveHint"),
    ],
)
def test_a_dishonest_policy_row_is_refused(rule: Rule, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        rule.check("some_tool")
