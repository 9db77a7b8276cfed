"""No tier reaches destructive or server-outliving effects through options
or respawn_pane (issue 16 item 4), on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.conftest import Eventually
from tests.contract.pane_views import session
from tests.contract.test_pane_lifecycle import client_for
from tests.mcp_calls import call, call_error


def op(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


def options(backend: TmuxBackend, ref: ServerRef) -> tuple[dict[str, str], ...]:
    """Every global table: a refused call leaves them as they were."""
    return (
        backend.show_options(ref, scope="server"),
        backend.show_options(ref, scope="session", global_=True),
        backend.show_options(ref, scope="window", global_=True),
    )


@pytest.mark.parametrize(
    ("option", "value", "why"),
    [
        ("command-alias[50]", "list-panes=kill-server ; list-panes", "not an option gridmux"),
        ("automatic-rename-format", "#{pane_id}", "holding '#{'"),
        ("status-left", "plain", "not an option gridmux"),
        ("default-command", "true", "not an option gridmux"),
        ("default-shell", "/bin/true", "not an option gridmux"),
        ("history-file", "/tmp/gridmux-never", "not an option gridmux"),
        ("@job", "#(id)", "holding '#('"),
        ("@job", "a ## b", "holding '##'"),
        ("@job", "#{E:@x}", "holding '#{'"),
    ],
)
async def test_set_option_refuses_formats_commands_and_files_at_every_tier(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    option: str,
    value: str,
    why: str,
) -> None:
    session(backend, ref)
    before = options(backend, ref)
    error = await call_error(client, "set_option", option=option, value=value, global_=True)
    assert why in error and "Nothing was changed" in error
    assert options(backend, ref) == before


@pytest.mark.parametrize("option", ["exit-unattached", "destroy-unattached", "exit-empty"])
async def test_options_that_end_sessions_need_the_destructive_tier(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    option: str,
) -> None:
    session(backend, ref)
    before = options(backend, ref)
    out = await call(
        client,
        "call_mutating_tools_batch",
        operations=[op("set_option", option=option, value="off", global_=True)],
    )
    row = out["results"][0]
    assert row["success"] is False
    assert "only a destructive call may set it (this one is mutating)" in row["error"]
    assert options(backend, ref) == before
    done = await call(client, "set_option", option=option, value="off", global_=True)
    assert done["value"] == "off"


async def test_set_option_still_sets_display_and_user_options(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    session(backend, ref)
    for option, value in [("history-limit", "5000"), ("@note", "#ff0000 fine"), ("mouse", "on")]:
        out = await call(
            client,
            "call_mutating_tools_batch",
            operations=[op("set_option", option=option, value=value, global_=True)],
        )
        assert out["results"][0]["success"] is True, out["results"][0]["error"]


async def test_respawn_pane_with_a_program_that_exits_keeps_the_pane_and_session(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    pane = session(backend, ref)
    info = await call(client, "respawn_pane", pane_id=pane, shell="exit 3")
    assert info["pane_id"] == pane

    def dead() -> bool:
        return any(p.pane_id == pane and p.dead for p in backend.list_panes(ref))

    await eventually(dead, what="the respawned program to exit")
    assert [s.session_name for s in backend.list_sessions(ref)] == ["main"]
    again = await call(client, "respawn_pane", pane_id=pane, kill=False)
    assert again["pane_id"] == pane


@pytest.mark.parametrize(
    ("option", "where"),
    [
        ("exit-unattached", {}),
        ("exit-empty", {}),
        ("destroy-unattached", {"global_": True}),
        ("destroy-unattached", {"target": "own session"}),
    ],
)
async def test_an_option_that_would_end_the_callers_session_is_refused(
    ref: ServerRef, backend: TmuxBackend, option: str, where: dict[str, Any]
) -> None:
    """At the destructive tier too: it would end the pane this MCP server runs in once
    its last client leaves, as kill_session and kill_server would now."""
    caller = session(backend, ref)
    own = next(p.session_id for p in backend.list_panes(ref) if p.pane_id == caller)
    where = {k: own if v == "own session" else v for k, v in where.items()}
    before = options(backend, ref)
    async with client_for(backend, ref, caller_pane=caller) as guarded:
        error = await call_error(guarded, "set_option", option=option, value="on", **where)
    assert f"refusing to set {option} on" in error and "this MCP server itself runs" in error
    assert options(backend, ref) == before
    assert backend.show_options(ref, scope="session", target=own).get(option) is None
