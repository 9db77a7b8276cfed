"""What the tools that wait share: the longest wait, its timeout parameter,
the server's ceiling on it, and throttled progress notifications."""

from __future__ import annotations

import contextlib
import time
from typing import Annotated

from fastmcp import Context
from pydantic import Field

from gridmux.errors import InvalidArgument
from gridmux.settings import Settings

from ._context import tool_error

#: The longest any wait (or run_command) may be asked to last.
MAX_WAIT_SECONDS = 3600.0


_PROGRESS_EVERY = 0.25


Timeout = Annotated[
    float,
    Field(gt=0, le=MAX_WAIT_SECONDS, description="Give up after this many seconds."),
]


def within_ceiling(timeout: float | None, settings: Settings) -> float | None:
    """``timeout`` when the server allows a wait that long (``--wait-max-seconds``).

    Every tool that waits calls this before it starts: a longer timeout is
    refused, saying the ceiling, rather than cut short in silence.
    """
    ceiling = settings.wait_max_seconds
    if timeout is not None and timeout > ceiling:
        raise tool_error(
            InvalidArgument(
                f"timeout {timeout:g} s is above this server's wait ceiling of {ceiling:g} s",
                hint=(
                    f"Pass timeout={ceiling:g} or less, and call again to wait longer "
                    "(the user sets the ceiling with --wait-max-seconds)."
                ),
            )
        )
    return timeout


class Progress:
    """Throttled progress notifications; a client that went away is ignored."""

    def __init__(self, context: Context, started: float, total: float, what: str) -> None:
        self._context = context
        self._started = started
        self._total = total
        self._what = what
        self._last: float | None = None

    async def report(self, *, force: bool = False) -> None:
        now = time.monotonic()
        if not force and self._last is not None and now - self._last < _PROGRESS_EVERY:
            return
        self._last = now
        elapsed = min(now - self._started, self._total)
        # A client that went away must never break the wait.
        with contextlib.suppress(Exception):
            await self._context.report_progress(
                progress=round(elapsed, 3), total=self._total, message=self._what
            )


__all__ = ["MAX_WAIT_SECONDS", "Progress", "Timeout", "within_ceiling"]
