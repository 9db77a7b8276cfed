"""Paste-buffer tools: load_buffer, paste_buffer, show_buffer, delete_buffer."""

from __future__ import annotations

from fastmcp import FastMCP

from ._context import ToolContext


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    """Register this module's tools on ``mcp``."""
