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

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from gridmux.backend import ServerRef
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


async def wait(
    client: Client,  # type: ignore[type-arg]
    tool: str,
    action: Callable[[], None] | None = None,
    **args: Any,
) -> tuple[dict[str, Any], list[tuple[float, float | None, str | None]]]:
    """Call ``tool``; run ``action`` once it reported its first progress."""
    reports: list[tuple[float, float | None, str | None]] = []
    baseline = anyio.Event()
    result: dict[str, Any] = {}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reports.append((progress, total, message))
        baseline.set()

    async def waiter() -> None:
        try:
            answer = await client.call_tool(tool, args, progress_handler=on_progress)
        except ToolError as exc:
            result["error"] = str(exc)
            baseline.set()
            return
        assert answer.structured_content is not None
        result.update(answer.structured_content)

    async with anyio.create_task_group() as group:
        group.start_soon(waiter)
        await baseline.wait()
        if action is not None:
            action()
    return result, reports


def _targeted(pane: str, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` aimed at ``pane`` unless they name a target of their own."""
    own = {"pane_id", "session_name", "session_id", "window_id"} & set(args)
    return dict(args) if own else {"pane_id": pane, **args}


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
    error = await call_error(client, "wait_for_text", **_targeted(pane, args))
    assert expected in error
    assert grid(backend, pane) == before
