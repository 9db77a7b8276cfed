"""The host pane is off limits (issue 26 item 5), on both backends: no tool
types or pastes into the pane gridmux's own client runs in, or into a pane
whose input tmux copies there (synchronize-panes), whatever the tier; the
panes beside it stay usable."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.pane_views import session
from tests.contract.test_pane_lifecycle import client_for
from tests.mcp_calls import call, call_error


def inputs(pane: str) -> list[tuple[str, dict[str, Any]]]:
    return [
        ("send_keys", {"pane_id": pane, "keys": "echo typed-by-gridmux"}),
        ("send_keys", {"pane_id": pane, "keys": "C-c"}),
        ("send_keys_batch", {"operations": [{"pane_id": pane, "keys": "y"}]}),
        ("paste_text", {"pane_id": pane, "text": "echo pasted-by-gridmux\n"}),
        ("run_command", {"pane_id": pane, "command": "echo run-by-gridmux", "timeout": 5}),
    ]


async def refused_everywhere(
    guarded: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    ref: ServerRef,
    pane: str,
    caller: str,
) -> None:
    before = backend.snapshot(ref, caller).rows
    for tool, arguments in inputs(pane):
        error = await call_error(guarded, tool, **arguments)
        assert f"refusing to send input to pane {pane}" in error, (tool, error)
        assert caller in error
    loaded = await call(guarded, "load_buffer", content="echo buffered\n")
    error = await call_error(
        guarded, "paste_buffer", buffer_name=loaded["buffer_name"], pane_id=pane
    )
    assert f"refusing to send input to pane {pane}" in error
    assert backend.snapshot(ref, caller).rows == before


@pytest.mark.parametrize("safety", ["mutating", "destructive"])
async def test_no_input_reaches_the_host_pane(
    ref: ServerRef, backend: TmuxBackend, safety: str
) -> None:
    caller = session(backend, ref)
    beside = backend.split_window(ref, caller).pane_id
    async with client_for(backend, ref, safety=safety, caller_pane=caller) as guarded:
        await refused_everywhere(guarded, backend, ref, caller, caller)
        # The pane beside it is the agent's to use.
        for tool, arguments in inputs(beside):
            if tool != "run_command":  # a shell prompt there is not this test's business
                await call(guarded, tool, **arguments)


async def test_synchronized_input_that_would_reach_the_host_is_refused(
    ref: ServerRef, backend: TmuxBackend
) -> None:
    caller = session(backend, ref)
    beside = backend.split_window(ref, caller).pane_id
    window = next(p.window_id for p in backend.list_panes(ref) if p.pane_id == caller)
    elsewhere = backend.new_window(ref, next(s.session_id for s in backend.list_sessions(ref)))
    async with client_for(backend, ref, caller_pane=caller) as guarded:
        for where in (window, elsewhere.window_id):
            await call(
                guarded,
                "set_option",
                option="synchronize-panes",
                value="on",
                scope="window",
                target=where,
            )
        await refused_everywhere(guarded, backend, ref, beside, caller)
        # A synchronized window without the host pane is not the host's.
        assert elsewhere.active_pane_id is not None
        await call(guarded, "send_keys", pane_id=elsewhere.active_pane_id, keys="true")
        await call(
            guarded,
            "set_option",
            option="synchronize-panes",
            value="off",
            scope="window",
            target=window,
        )
        await call(guarded, "send_keys", pane_id=beside, keys="true")
