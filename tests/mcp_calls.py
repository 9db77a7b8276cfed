"""Calling tools through an MCP client in tests: results and tool errors."""

from __future__ import annotations

import re
import time
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


async def until_shown(
    client: Client,  # type: ignore[type-arg]
    pane: str,
    needle: str | re.Pattern[str],
    *,
    seconds: float = 10,
) -> str:
    """``capture_pane`` until its text contains ``needle`` (a string, or a
    pattern to search for); fail after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        text = str((await client.call_tool("capture_pane", {"pane_id": pane})).data)
        if needle.search(text) if isinstance(needle, re.Pattern) else needle in text:
            return text
        assert time.monotonic() < deadline, f"{needle!r} never appeared in {text!r}"


async def warm_up(client: Client, pane: str, count: int = 12) -> str:  # type: ignore[type-arg]
    """Type ``count`` numbered echo commands into a shell pane and wait for the
    shell to have run them all; return its prompt ('$', or '#' for root).

    Commands typed ahead are echoed before the shell runs them, so the last
    number on screen proves nothing: the wait is for the last output line with
    the prompt below it."""
    for i in range(count):
        await call(client, "send_keys", keys=f"echo warmup {i}", pane_id=pane)
    done = re.compile(rf"^warmup {count - 1}\n([$#])\s*\Z", re.MULTILINE)
    match = done.search(await until_shown(client, pane, done))
    assert match is not None
    return match.group(1)
