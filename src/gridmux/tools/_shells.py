"""run_command's memory of the shells it types into, one per server.

A pane is *busy* while a run_command types into it and waits; a shell it has
let go is *released* until its prompt is drawn (the next run_command in that
pane waits for it). The memory belongs to one :class:`~._context.ToolContext`,
so two servers in one process never share it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from gridmux.backend import PaneState, ServerRef


@dataclass(frozen=True, slots=True)
class Released:
    """A shell let go by run_command, which may not have drawn its prompt yet."""

    held: PaneState
    deadline: float

    def settled(self, state: PaneState) -> bool:
        """The prompt is (or will never be) there: the cursor moved, or time is up."""
        return state.moved_from(self.held) or state.dead or time.monotonic() >= self.deadline


@dataclass(slots=True)
class Shells:
    """Which panes run a command now, and which shells may still be drawing a prompt."""

    busy: set[tuple[ServerRef, str]] = field(default_factory=set)
    released: dict[tuple[ServerRef, str], Released] = field(default_factory=dict)


__all__ = ["Released", "Shells"]
