"""The recipe prompts through the MCP client (both eras)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastmcp import Client
from mcp import MCPError

from gridmux.prompts import ERROR_PATTERN

PROMPTS = {
    "run_and_wait",
    "tail_log",
    "find_error_pane",
    "diagnose_failing_pane",
    "build_dev_workspace",
    "interrupt_gracefully",
}
#: One valid argument set per prompt.
ARGS: dict[str, dict[str, Any]] = {
    "run_and_wait": {"command": "make test", "pane_id": "%3"},
    "tail_log": {"pane_id": "%3", "log_path": "/var/log/app.log", "watch_for": "ERROR"},
    "find_error_pane": {},
    "diagnose_failing_pane": {"pane_id": "%3"},
    "build_dev_workspace": {"session_name": "work"},
    "interrupt_gracefully": {"pane_id": "%3"},
}


async def render(client: Client, name: str, **args: Any) -> str:  # type: ignore[type-arg]
    result = await client.get_prompt(name, args)
    (message,) = result.messages
    assert message.role == "user"
    return str(message.content.text)  # type: ignore[union-attr]


def tool_names_in(text: str) -> set[str]:
    """Identifiers in ``text`` that are written like tool names (verb_noun...)."""
    return set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text))


async def test_prompts_are_listed_with_titles_and_arguments(
    client: Client,  # type: ignore[type-arg]
) -> None:
    prompts = {p.name: p for p in await client.list_prompts()}
    assert set(prompts) == PROMPTS
    for name, prompt in prompts.items():
        assert prompt.title
        assert prompt.description
        declared = {a.name for a in prompt.arguments or []}
        assert set(ARGS[name]) <= declared
    required = {a.name for a in prompts["run_and_wait"].arguments or [] if a.required}
    assert required == {"command", "pane_id"}


@pytest.mark.parametrize("name", sorted(PROMPTS))
async def test_every_tool_a_prompt_names_exists(
    client: Client,  # type: ignore[type-arg]
    name: str,
) -> None:
    text = await render(client, name, **ARGS[name])
    tools = {t.name for t in await client.list_tools()}
    mentioned = tool_names_in(text)
    named_tools = {m for m in mentioned if m in tools}
    assert named_tools, f"{name} names no tool"
    # Anything else written like a tool name must be a known argument or field.
    fields = {
        "pane_id",
        "exit_status",
        "timed_out",
        "still_running",
        "log_path",
        "watch_for",
        "lines_missed",
        "may_repeat",
        "first_line_rewritten",
        "max_lines",
        "content_start",
        "content_truncated",
        "pane_dead",
        "alternate_on",
        "active_pane_id",
        "session_name",
        "pane_current_command",
    }
    assert mentioned - tools <= fields


async def test_run_and_wait_quotes_the_command_verbatim(
    client: Client,  # type: ignore[type-arg]
) -> None:
    command = "printf '%s\\n' \"a b\"; echo done"
    text = await render(client, "run_and_wait", command=command, pane_id="%7", timeout=12.5)
    assert 'command="printf \'%s\\\\n\' \\"a b\\"; echo done"' in text
    assert 'pane_id="%7", timeout=12.5' in text
    assert "exit_status" in text
    assert "capture_since" in text


async def test_tail_log_starts_tail_and_waits_for_the_pattern(
    client: Client,  # type: ignore[type-arg]
) -> None:
    text = await render(client, "tail_log", pane_id="%2", log_path="/tmp/it's.log", watch_for="OK")
    assert "tail -F '/tmp/it'\\\\''s.log'" in text
    assert 'patterns=["OK"]' in text
    assert "cursor=<the last cursor>" in text
    plain = await render(client, "tail_log", pane_id="%2")
    assert "tail -F" not in plain
    assert "patterns=null" in plain


async def test_find_error_pane_defaults_to_a_broad_regex(
    client: Client,  # type: ignore[type-arg]
) -> None:
    text = await render(client, "find_error_pane")
    assert f'pattern="{ERROR_PATTERN}", regex=true' in text
    custom = await render(client, "find_error_pane", pattern="segfault")
    assert 'pattern="segfault"' in custom


@pytest.mark.parametrize(
    "name", ["run_and_wait", "tail_log", "diagnose_failing_pane", "interrupt_gracefully"]
)
@pytest.mark.parametrize("bad", ["3", "@3", "%", "pane"])
async def test_a_malformed_pane_id_is_a_prompt_error_with_a_hint(
    client: Client,  # type: ignore[type-arg]
    name: str,
    bad: str,
) -> None:
    args = {**ARGS[name], "pane_id": bad}
    with pytest.raises(MCPError) as caught:
        await client.get_prompt(name, args)
    assert "is not a tmux pane id" in caught.value.error.message
    assert "Hint:" in caught.value.error.message


async def test_missing_required_argument_is_an_error(
    client: Client,  # type: ignore[type-arg]
) -> None:
    with pytest.raises(MCPError):
        await client.get_prompt("run_and_wait", {"pane_id": "%1"})
