"""Waits do not starve other calls (issue 26 item 8): a call that blocks in
tmux (``wait_for_channel``, ``run_command``) takes its worker thread from a
pool of its own, so more waits than the default pool's 40 threads still
leave other tools theirs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from fastmcp import Client

from tests.integration.conftest import RawTmux, wait_until
from tests.mcp_calls import call

pytestmark = pytest.mark.tmux

#: More waits than anyio's default pool of worker threads (40).
WAITS = 45


def waiting_processes(channel: str) -> int:
    """The ``tmux wait-for CHANNEL`` processes on this machine (ours: the
    channel name is this test's)."""
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().rstrip(b"\0").split(b"\0")
            except OSError:
                continue
            count += argv[-2:] == [b"wait-for", os.fsencode(channel)]
    return count


async def test_more_waits_than_worker_threads_leave_other_calls_theirs(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
) -> None:
    channel = f"gm-starve-{os.getpid()}-{id(client)}"
    waits = [
        asyncio.create_task(call(client, "wait_for_channel", channel=channel, timeout=120))
        for _ in range(WAITS)
    ]
    try:
        await asyncio.to_thread(
            wait_until,
            lambda: waiting_processes(channel) == WAITS,
            what=f"{WAITS} waits to block in tmux",
        )
        # Every wait holds a thread now; a listing must not queue behind them.
        listed = await asyncio.wait_for(call(client, "list_panes"), timeout=30)
        assert pane in str(listed)
        assert not any(task.done() for task in waits)
    finally:
        # One signal wakes every waiter tmux holds; a wait that had no
        # thread yet (the bug this test is for) is woken by a later one.
        for _ in range(60):
            tmux("wait-for", "-S", channel)
            if all(task.done() for task in waits):
                break
            await asyncio.wait(waits, timeout=0.5)
        answers = await asyncio.gather(*waits, return_exceptions=True)
    assert all("signalled" in str(a) for a in answers), answers
    assert not any(isinstance(a, BaseException) for a in answers), answers
