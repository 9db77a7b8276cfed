"""Calling the wait tools through the MCP client, for the contract and unit wait tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
from fastmcp import Client
from fastmcp.exceptions import ToolError


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


def targeted(pane: str, args: dict[str, Any]) -> dict[str, Any]:
    """``args`` aimed at ``pane`` unless they name a target of their own."""
    own = {"pane_id", "session_name", "session_id", "window_id"} & set(args)
    return dict(args) if own else {"pane_id": pane, **args}
