"""The server instructions: every tool is pointed at, nothing unknown is named."""

from __future__ import annotations

import re

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.instructions import GUIDE, build_instructions
from gridmux.tools import SHARED_PARAMETERS
from tmuxsim import SimBackend

#: Identifiers the guide uses that are fields or arguments, not tools.
NOT_TOOLS = {
    "socket_name",
    "socket_path",
    "pane_current_command",
    "lines_missed",
    "first_line_rewritten",
    "on_error",
    "is_caller",
}


def identifiers(text: str) -> set[str]:
    return set(re.findall(r"\b[a-z]+(?:_[a-z]+)+\b", text))


#: The tools an agent should meet first; the rest it finds by their descriptions.
FIRST_TOOLS = {
    "list_panes",
    "search_panes",
    "snapshot_pane",
    "capture_pane",
    "capture_since",
    "run_command",
    "send_keys",
    "wait_for_text",
    "call_readonly_tools_batch",
}


async def test_the_guide_names_the_first_tools_and_only_real_ones(backend: SimBackend) -> None:
    server = create_server(backend, Settings(backend="sim", safety="destructive"))
    async with Client(server) as client:
        tools = {t.name for t in await client.list_tools()}
    named = identifiers(GUIDE)
    assert FIRST_TOOLS - named == set(), "first tools the instructions never mention"
    assert named - tools - NOT_TOOLS - set(SHARED_PARAMETERS) == set(), (
        "names that are neither tools nor known fields"
    )


def test_the_guide_says_what_every_target_parameter_means() -> None:
    """The schemas leave the shared target parameters undescribed: the guide says it once."""
    named = identifiers(GUIDE)
    assert set(SHARED_PARAMETERS) - named == set()


def test_the_guide_says_when_not_to_use_gridmux() -> None:
    text = " ".join(GUIDE.split())
    assert "not for browser tabs, editor buffers" in text


@pytest.mark.parametrize(
    ("safety", "needle"),
    [
        ("readonly", "Safety tier: readonly"),
        ("mutating", "need\n--safety destructive"),
        ("destructive", "Safety tier: destructive"),
    ],
)
def test_the_tier_line_follows_the_safety_setting(safety: str, needle: str) -> None:
    text = build_instructions(Settings(safety=safety))
    assert text.startswith(GUIDE)
    assert needle.replace("\n", " ") in text.replace("\n", " ")
    others = {"readonly", "mutating", "destructive"} - {safety}
    assert not any(f"Safety tier: {other}" in text for other in others)


def test_the_caller_pane_is_named_only_inside_tmux() -> None:
    inside = build_instructions(Settings(caller_pane="%7", caller_socket="/tmp/tmux-1/default"))
    assert "runs in pane %7 on socket /tmp/tmux-1/default" in inside
    outside = build_instructions(Settings())
    assert "runs in pane" not in outside


def test_a_selection_and_a_ceiling_are_said() -> None:
    plain = build_instructions(Settings())
    assert "switched off" not in plain and "No wait may last" not in plain
    chosen = build_instructions(Settings(exclude_tools="batch", wait_max_seconds=30))
    assert "Some tools are switched off on this server" in chosen
    assert "No wait may last longer than 30 s here." in chosen


def test_the_instructions_stay_short() -> None:
    longest = build_instructions(
        Settings(
            safety="mutating",
            caller_pane="%1234",
            caller_socket="/tmp/" + "x" * 90,
            exclude_tools="batch",
            wait_max_seconds=12.5,
        )
    )
    assert len(longest.encode()) <= 2048  # the seeds' budget


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_clients_receive_the_instructions(backend: SimBackend, mode: str) -> None:
    server = create_server(backend, Settings(backend="sim", safety="readonly"))
    async with Client(server, mode=mode) as client:
        received = client.instructions
        assert client.server_info is not None
        assert client.server_info.name == "gridmux"
    assert received == build_instructions(Settings(safety="readonly"))
