"""Calling tools through an MCP client in tests: results and tool errors."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError


async def call(client: Client, tool: str, **args: Any) -> Any:  # type: ignore[type-arg]
    """Call ``tool``; return its structured content (``{"result": ...}`` for
    non-object results), or its text when it has no structured content."""
    result = await client.call_tool(tool, args)
    if result.structured_content is not None:
        return result.structured_content
    return "".join(getattr(block, "text", "") for block in result.content)


async def call_error(client: Client, tool: str, **args: Any) -> str:  # type: ignore[type-arg]
    """Call ``tool`` expecting a tool error; return the error's text."""
    with pytest.raises(ToolError) as caught:
        await client.call_tool(tool, args)
    return str(caught.value)
