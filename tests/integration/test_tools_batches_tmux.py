"""The tool-call batches against a real tmux server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call

pytestmark = pytest.mark.tmux


def op(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


def session_names(tmux: Callable[..., str]) -> list[str]:
    return sorted(tmux("list-sessions", "-F", "#{session_name}").split())


async def test_a_mutating_batch_builds_a_session_and_types_into_it(
    client: Client,  # type: ignore[type-arg]
    tmux: Callable[..., str],
    wait_until: Callable[..., None],
) -> None:
    out = await call(
        client,
        "call_mutating_tools_batch",
        operations=[
            op("create_session", session_name="built", x=70, y=12),
            op("send_keys", keys="echo from-a-batch", session_name="built"),
            op("list_sessions"),
        ],
    )
    assert (out["succeeded"], out["failed"], out["stopped_at"]) == (3, 0, None)
    pane = out["results"][0]["structured_content"]["active_pane_id"]
    assert session_names(tmux) == ["built"]
    assert tmux("display-message", "-p", "-t", pane, "#{pane_width}x#{pane_height}").strip() == (
        "70x12"
    )
    wait_until(
        lambda: "from-a-batch" in tmux("capture-pane", "-p", "-t", pane),
        what="the typed command on screen",
    )
    listed = out["results"][2]["structured_content"]["result"]
    assert [s["session_name"] for s in listed] == ["built"]


async def test_a_readonly_batch_reads_what_tmux_shows(
    client: Client,  # type: ignore[type-arg]
    pane: str,
    tmux: Callable[..., str],
    wait_until: Callable[..., None],
) -> None:
    tmux("send-keys", "-t", pane, "echo marker-$((6*7))", "Enter")
    wait_until(lambda: "marker-42" in tmux("capture-pane", "-p", "-t", pane), what="marker")
    out = await call(
        client,
        "call_readonly_tools_batch",
        operations=[op("get_pane_info", pane_id=pane), op("capture_pane", pane_id=pane)],
    )
    info, capture = out["results"]
    assert info["structured_content"]["pane_id"] == pane
    assert "marker-42" in capture["structured_content"]["result"]


@pytest.mark.parametrize("on_error", ["stop", "continue"])
async def test_a_failed_step_stops_the_batch_or_not(
    client: Client,  # type: ignore[type-arg]
    tmux: Callable[..., str],
    on_error: str,
) -> None:
    out = await call(
        client,
        "call_mutating_tools_batch",
        operations=[
            op("create_session", session_name="first"),
            op("get_pane_info", pane_id="%9999"),
            op("create_session", session_name="second"),
        ],
        on_error=on_error,
    )
    assert out["results"][1]["success"] is False and "%9999" in out["results"][1]["error"]
    if on_error == "stop":
        assert out["stopped_at"] == 1
        assert session_names(tmux) == ["first"]
    else:
        assert out["stopped_at"] is None
        assert session_names(tmux) == ["first", "second"]


async def test_refused_rows_change_nothing_on_tmux(
    client: Client,  # type: ignore[type-arg]
    pane: str,
    tmux: Callable[..., str],
) -> None:
    before = tmux("list-panes", "-a", "-F", "#{session_name} #{pane_id} #{pane_dead}")
    out = await call(
        client,
        "call_readonly_tools_batch",
        operations=[
            op("create_session", session_name="refused"),
            op("send_keys", keys="exit", pane_id=pane),
            op("call_mutating_tools_batch", operations=[op("create_session")]),
            op("run_command", command="true", pane_id=pane),
        ],
        on_error="continue",
    )
    assert out["failed"] == 4
    assert tmux("list-panes", "-a", "-F", "#{session_name} #{pane_id} #{pane_dead}") == before


async def test_a_readonly_server_runs_readonly_batches_only(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: Callable[..., str],
) -> None:
    settings = Settings(socket_path=tmux_server.socket_path, safety="readonly")
    async with Client(create_server(backend, settings)) as client:
        names = {t.name for t in await client.list_tools()}
        assert "call_readonly_tools_batch" in names
        assert not names & {"call_mutating_tools_batch", "call_destructive_tools_batch"}
        out = await call(
            client,
            "call_readonly_tools_batch",
            operations=[op("create_session", session_name="nope"), op("list_sessions")],
            on_error="continue",
        )
    assert "safety tier readonly" in out["results"][0]["error"]
    assert out["results"][1]["structured_content"] == {"result": []}
    assert tmux("list-sessions", "-F", "#{session_name}") == ""
