"""Injectable time for the simulator.

Everything time-based in ``tmuxsim`` (``sleep`` in the fake shell, wait-for
timeouts, session creation and dead-pane times) reads a ``Clock``, so tests run
in microseconds and never depend on the machine's speed. ``ManualClock`` only
moves when told to; whoever moves it also runs the work that became due
(listeners are called after every advance).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Protocol


class Clock(Protocol):
    def now(self) -> float:
        """Seconds since the epoch, as ``time.time()`` would return."""
        ...

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` pass (a manual clock just advances)."""
        ...


class ManualClock:
    """A clock that stands still until ``advance`` or ``sleep`` moves it."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = float(start)
        # Weak references: a SimServer that was thrown away must not be kept
        # alive (or ticked) by a clock shared with other servers.
        self._listeners: list[weakref.WeakMethod[Callable[[], None]]] = []

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError(f"a clock cannot go backwards ({seconds} s)")
        self._now += seconds
        self._notify()

    def sleep(self, seconds: float) -> None:
        self.advance(max(0.0, seconds))

    def add_listener(self, callback: Callable[[], None]) -> None:
        """Call the bound method ``callback`` after every advance."""
        self._listeners.append(weakref.WeakMethod(callback))

    def _notify(self) -> None:
        for ref in list(self._listeners):
            callback = ref()
            if callback is not None:
                callback()
        self._listeners = [ref for ref in self._listeners if ref() is not None]
