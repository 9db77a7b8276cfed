"""Pane control: titles, clearing, sizing, selection, swaps, respawn, kill, copy mode, pipes."""

from __future__ import annotations

from fastmcp import FastMCP

from ._context import ToolContext


def register(mcp: FastMCP, ctx: ToolContext) -> None:
    """Register this module's tools on ``mcp``."""
