"""Views of a server's windows for the window tool tests: what the tools list,
and what a refused call must leave as it was."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.mcp_calls import call


async def windows(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_windows", **args))["result"]
    return listed


async def panes(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_panes", **args))["result"]
    return listed


def everything(backend: TmuxBackend, ref: ServerRef) -> tuple[object, ...]:
    return (
        backend.list_sessions(ref),
        backend.list_windows(ref),
        [(p.pane_id, p.width, p.height, p.left, p.top) for p in backend.list_panes(ref)],
    )
