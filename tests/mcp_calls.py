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
    """Have a shell pane print ``count`` numbered lines and wait for the shell
    to be back at its prompt; return the prompt ('$', or '#' for root).

    One command prints them all. Numbered commands typed one by one would run
    while later ones are still being typed: the tty echoes typed-ahead lines at
    once, and the shell prints its prompt before output it then reads, so the
    last number can share a row with a prompt (seen on tmux 3.8). The loop's
    own text holds no number, so the last number followed by a prompt row is
    the end of the run."""
    loop = f"i=0; while [ $i -lt {count} ]; do echo warmup $i; i=$((i+1)); done"
    await call(client, "send_keys", keys=loop, pane_id=pane)
    done = re.compile(rf"^warmup {count - 1}\n([$#])\s*\Z", re.MULTILINE)
    match = done.search(await until_shown(client, pane, done))
    assert match is not None
    return match.group(1)
