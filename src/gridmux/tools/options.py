"""Option and environment tools: show_option, set_option, show_environment, set_environment."""

from __future__ import annotations

from fastmcp import FastMCP

from ._context import ToolContext


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    """Register this module's tools on ``mcp``."""
