"""show_option, set_option, show_environment and set_environment through the MCP client,
on the simulator: every scope, global values, inheritance, and bad input that
changes nothing.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_options_env.py."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef
from tests.mcp_calls import call
from tmuxsim import SimBackend

REF = ServerRef()


async def two_sessions(client: Client) -> dict[str, Any]:  # type: ignore[type-arg]
    """Sessions 'a' (two windows, the second split) and 'b'; their ids."""
    a = await call(client, "create_session", session_name="a")
    b = await call(client, "create_session", session_name="b")
    return {
        "a": a["session_id"],
        "b": b["session_id"],
        "pane_a": a["active_pane_id"],
        "pane_b": b["active_pane_id"],
    }


async def test_environment_marks_removed_variables_as_null(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    ids = await two_sessions(client)
    backend.server(REF).config.unset_environment("HOME", session_id=ids["b"], remove=True)
    assert (await call(client, "show_environment", session_name="b"))["variables"] == {"HOME": None}


async def test_environment_global_and_per_session(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    ids = await two_sessions(client)
    shown = await call(client, "show_environment")
    assert shown["variables"] == backend.show_environment(REF)
    assert shown["variables"]["SHELL"] == "/bin/sh"
    done = await call(client, "set_environment", name="RUST_LOG", value="debug")
    assert done == {"name": "RUST_LOG", "value": "debug", "status": "set", "session_id": None}
    assert backend.show_environment(REF)["RUST_LOG"] == "debug"
    done = await call(client, "set_environment", name="STAGE", value="a b\nc", session_name="a")
    assert done["session_id"] == ids["a"]
    assert backend.show_environment(REF, ids["a"]) == {"STAGE": "a b\nc"}
    assert "STAGE" not in backend.show_environment(REF, ids["b"])
    assert "STAGE" not in backend.show_environment(REF)
    by_id = await call(client, "show_environment", session_id=ids["a"])
    assert by_id == {"variables": {"STAGE": "a b\nc"}}
