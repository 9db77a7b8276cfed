"""search_panes through the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_search.py."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()


def pane_with(backend: SimBackend, name: str, *lines: str, height: int = 10) -> str:
    """A session ``name`` whose pane printed ``lines`` (each with printf)."""
    session = backend.new_session(REF, name=name, width=60, height=height)
    assert session.active_pane_id is not None
    pane = session.active_pane_id
    for line in lines:
        backend.send_keys(REF, pane, f"printf '%s\\n' '{line}'", literal=True, enter=True)
    return pane


async def search(client: Client, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(client, "search_panes", **args)
    return result


def grids(backend: SimBackend) -> list[list[str]]:
    sim = backend.server(REF)
    return [pane.terminal.capture("-") for pane in sim.all_panes()]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"pattern": ""}, "pattern"),
        ({"pattern": "(", "regex": True}, "not a valid regular expression"),
        ({"pattern": "x", "limit": 0}, "limit"),
        ({"pattern": "x", "offset": -1}, "offset"),
        ({"pattern": "x", "max_matched_lines_per_pane": 0}, "max_matched_lines_per_pane"),
        ({"pattern": "x", "session_name": "nope"}, "no session"),
        ({"pattern": "x", "session_id": "7"}, "not a tmux session id"),
        ({"pattern": "x", "socket_name": "a/b"}, "socket_name"),
    ],
)
async def test_bad_input(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    expected: str,
) -> None:
    pane_with(backend, "a", "x")
    before = grids(backend)
    error = await call_error(client, "search_panes", **args)
    assert expected in error
    assert grids(backend) == before


async def test_match_case_and_regex(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    a = pane_with(backend, "a", "Error: disk full")
    b = pane_with(backend, "b", "error 42")
    assert [
        m["pane_id"] for m in (await search(client, pattern="Error", match_case=True))["matches"]
    ] == [a]
    out = await search(client, pattern=r"^error \d+$", regex=True)
    assert [m["pane_id"] for m in out["matches"]] == [b]
    assert out["matches"][0]["matched_lines"] == ["error 42"]
