"""The MCP surface: tools grouped by noun, each module with ``register(mcp, ctx)``."""

from __future__ import annotations

from fastmcp import FastMCP

from . import capture_since, panes, sessions
from ._context import ToolContext


def register_all(mcp: FastMCP, ctx: ToolContext) -> None:
    sessions.register(mcp, ctx)
    panes.register(mcp, ctx)
    capture_since.register(mcp, ctx)


__all__ = ["ToolContext", "register_all"]
