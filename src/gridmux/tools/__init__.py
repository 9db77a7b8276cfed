"""The MCP surface: tools grouped by concern, each module with ``register(mcp, ctx)``."""

from __future__ import annotations

from fastmcp import FastMCP

from . import (
    batches,
    buffers,
    capture_since,
    channels,
    commands,
    hooks,
    options,
    pane_control,
    pane_lifecycle,
    panes,
    search,
    servers,
    sessions,
    waits,
    windows,
)
from ._context import ToolContext

_MODULES = (
    servers,
    sessions,
    windows,
    panes,
    pane_control,
    pane_lifecycle,
    capture_since,
    search,
    waits,
    commands,
    options,
    buffers,
    hooks,
    channels,
    batches,
)


def register_all(mcp: FastMCP, ctx: ToolContext) -> None:
    for module in _MODULES:
        module.register(mcp, ctx)


__all__ = ["ToolContext", "register_all"]
