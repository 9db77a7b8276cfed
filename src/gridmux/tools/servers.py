"""Server tools: list_servers, get_server_info, kill_server."""

from __future__ import annotations

from fastmcp import FastMCP

from ._context import ToolContext


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    """Register this module's tools on ``mcp``."""
