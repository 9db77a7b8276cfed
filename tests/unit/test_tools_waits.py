"""wait_for_text and wait_for_content_change through the MCP client, on the simulator.

A wait reports progress as soon as it has taken its baseline; the tests act
on the pane only after that first notification, so what counts as "new" is
decided by the order of events, never by timing. Timeouts the tests expect
are kept short (the waits poll in real time).


Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_waits.py.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from tests.contract.wait_calls import targeted, wait
from tests.mcp_calls import call_error
from tmuxsim import SimBackend

REF = ServerRef()
SHORT = 0.3


def new_pane(backend: SimBackend, name: str = "work", *, height: int = 10) -> str:
    session = backend.new_session(REF, name=name, width=60, height=height)
    assert session.active_pane_id is not None
    return session.active_pane_id


def grid(backend: SimBackend, pane_id: str) -> list[str]:
    return backend.server(REF).pane(pane_id).terminal.capture("-")


async def test_timeout_on_the_alternate_screen(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    backend.server(REF).pane(pane).write(b"\x1b[?1049hREADY in a full-screen program")
    out, _ = await wait(client, "wait_for_text", patterns=["ready"], pane_id=pane, timeout=SHORT)
    assert (out["outcome"], out["alternate_screen"], out["timed_out"]) == (
        "alternate_screen",
        True,
        True,
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"patterns": []}, "patterns"),
        ({"patterns": [""]}, "patterns"),
        ({"patterns": ["("], "regex": True}, "not a valid regular expression"),
        ({"stop": ["[a-"], "regex": True}, "stop[0]"),
        ({"timeout": 0}, "timeout"),
        ({"timeout": 1e6}, "timeout"),
        ({"interval": 0.001}, "interval"),
        ({"interval": 61}, "interval"),
        ({"pane_id": "%42"}, "no pane %42"),
        ({"pane_id": "pane"}, "not a tmux pane id"),
        ({"window_id": "@9"}, "no window @9"),
    ],
)
async def test_bad_input_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    args: dict[str, Any],
    expected: str,
) -> None:
    pane = new_pane(backend)
    before = grid(backend, pane)
    error = await call_error(client, "wait_for_text", **targeted(pane, args))
    assert expected in error
    assert grid(backend, pane) == before
