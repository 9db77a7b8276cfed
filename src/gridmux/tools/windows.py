"""Window tools: list, inspect, create, split, rename, select, lay out, resize, move, kill."""

from __future__ import annotations

from fastmcp import FastMCP

from ._context import ToolContext


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    """Register this module's tools on ``mcp``."""
