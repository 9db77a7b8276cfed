"""The capture core's refusals of a cursor, as gridmux errors with hints."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from gridmux.capture import CursorRejected, Refusal
from gridmux.errors import GridmuxError, InvalidCursor, PaneDead, PaneRespawned

T = TypeVar("T")

_REFUSALS: dict[Refusal, type[GridmuxError]] = {
    Refusal.MALFORMED: InvalidCursor,
    Refusal.OTHER_PANE: InvalidCursor,
    Refusal.OTHER_SERVER: InvalidCursor,
    Refusal.RESPAWNED: PaneRespawned,
    Refusal.DEAD: PaneDead,
}


def refusal_error(exc: CursorRejected) -> GridmuxError:
    error = _REFUSALS[exc.reason](str(exc))
    if exc.reason is Refusal.DEAD:
        error.hint = (
            "Its last output can still be read with capture_pane; respawn_pane restarts it, "
            "and capture_since without a cursor starts over."
        )
    return error


def guarded(fn: Callable[[], T]) -> Callable[[], T]:
    """``fn`` with the capture core's refusals turned into gridmux errors."""

    def call() -> T:
        try:
            return fn()
        except CursorRejected as exc:
            raise refusal_error(exc) from exc

    return call


__all__ = ["guarded", "refusal_error"]
