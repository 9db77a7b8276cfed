"""wait-for channel tools: wait_for_channel, signal_channel.

tmux's ``wait-for`` channels let a shell command announce that it finished:
``cmd; tmux wait-for -S NAME`` (``;``, not ``&&``, so the signal fires even
when ``cmd`` fails), then wait_for_channel(NAME). A signal sent while nobody
waits is held (one per channel, until a wait takes it), so the wait may start
after the command finished. Use fresh channel names: a held signal left over
from an earlier run ends the next wait at once.

The wait runs in a worker thread, never on the event loop, and is bounded
by its timeout; a wait that times out leaves no waiter behind on the server
(the backend wakes and reaps its own client).
"""

from __future__ import annotations

import re
import time
from typing import Annotated

from pydantic import Field

from gridmux.errors import InvalidArgument, TmuxTimeout
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext
from ._params import SocketName, SocketPath

#: Longest wait_for_channel may block, in seconds.
MAX_WAIT_SECONDS = 300.0
_CHANNEL = re.compile(r"[A-Za-z0-9_.:-]{1,128}")

Channel = Annotated[
    str,
    Field(description="Channel name: 1-128 of A-Z a-z 0-9 _ . : - (e.g. 'build-42-done')."),
]


def check_channel(channel: str) -> None:
    if not _CHANNEL.fullmatch(channel):
        raise InvalidArgument(
            f"{channel!r} is not a valid channel name",
            hint="Use 1-128 letters, digits, '_', '.', ':' or '-', e.g. 'tests-7f3a-done'.",
        )


@tool("Wait for tmux Channel")
async def wait_for_channel(
    channel: Channel,
    timeout: Annotated[
        float,
        Field(
            gt=0,
            le=MAX_WAIT_SECONDS,
            description=f"Seconds to wait before giving up (at most {MAX_WAIT_SECONDS:g}).",
        ),
    ] = 30.0,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Block until a tmux wait-for channel is signalled; a timeout is an error. For exact
    completion: send_keys "cmd; tmux wait-for -S NAME" (a fresh NAME), then wait here.

    Use for exact completion of a command you send: send_keys
    "cmd; tmux wait-for -S NAME" (a fresh NAME per command), then wait
    here. The signal must come from the same tmux server. A timeout is
    an error; it says nothing about the command's exit status.
    """
    server = ctx.server(socket_name, socket_path)

    def wait() -> str:
        check_channel(channel)
        started = time.monotonic()
        if not ctx.backend.wait_for(server, channel, timeout):
            raise TmuxTimeout(
                f"channel {channel!r} was not signalled within {timeout:g} s",
                hint=(
                    "Check that the command signals this same tmux server "
                    "('cmd; tmux wait-for -S NAME', with ';' so a failing cmd signals "
                    "too) and is still running (capture_pane); then wait again."
                ),
            )
        elapsed = time.monotonic() - started
        return f"Channel {channel!r} signalled after {elapsed:.2f} s (timeout {timeout:g} s)"

    return await ctx.call_waiting(wait)


@tool("Signal tmux Channel")
async def signal_channel(
    channel: Channel,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    ctx: ToolContext = TOOL_CONTEXT,
) -> str:
    """Signal a tmux wait-for channel, waking every waiter; with none waiting, the signal is held
    for the next wait.

    Wakes every client waiting on it. With nobody waiting, the signal is
    held and ends the next wait on this channel at once, so do not signal
    "just in case".
    """
    server = ctx.server(socket_name, socket_path)

    def signal() -> str:
        check_channel(channel)
        ctx.backend.signal_channel(server, channel)
        return f"Signalled channel {channel!r}"

    return await ctx.call(signal)


#: This module's tools, in the order clients list them.
TOOLS = (
    wait_for_channel,
    signal_channel,
)


__all__ = ["MAX_WAIT_SECONDS", "TOOLS", "check_channel", "signal_channel", "wait_for_channel"]
