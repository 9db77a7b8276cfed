"""One exception tree for every layer of gridmux.

::

    GridmuxError
    ├── NotFound                 a server, session, window, pane or buffer does not exist
    ├── PaneDead                 the pane's program has exited (remain-on-exit keeps it)
    ├── PaneRespawned            the pane now runs a different process than a cursor recorded
    ├── InvalidArgument          the caller asked for something malformed or out of range
    │   └── InvalidCursor        a capture_since cursor is malformed, foreign or unsupported
    ├── TmuxFailure              tmux refused or failed a command
    │   └── TmuxUnavailable      no tmux binary, or it cannot be started
    └── TmuxTimeout              a tmux command or a wait did not finish in time

The real backend translates tmux's failures (exit status, stderr, timeouts)
into these classes in exactly one place; the simulator raises the same
classes; the MCP layer turns each into a tool error whose text says what to
do next (``hint``).
"""

from __future__ import annotations


class GridmuxError(Exception):
    """Base class. ``hint`` tells an agent how to recover; ``parameter`` names
    the argument at fault when there is one; ``kind`` is the error's class
    as a client sees it (``invalid_argument``, ``not_found``, ...)."""

    default_hint = ""

    def __init__(
        self, message: str, *, hint: str | None = None, parameter: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = self.default_hint if hint is None else hint
        self.parameter = parameter

    @property
    def kind(self) -> str:
        """The class name in snake case: ``NotFound`` -> ``not_found``."""
        name = type(self).__name__
        return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")

    def __str__(self) -> str:
        return self.message


class NotFound(GridmuxError):
    default_hint = "List what exists with list_sessions or list_panes and target it by id."


class PaneDead(GridmuxError):
    default_hint = (
        "The program in this pane has exited. Read its last output with capture_pane, "
        "or restart it with respawn_pane."
    )


class PaneRespawned(GridmuxError):
    default_hint = (
        "The pane runs a new process now. Call capture_since without a cursor to start a new one."
    )


class InvalidArgument(GridmuxError):
    default_hint = "Check the argument against the tool's schema and call again."


class InvalidCursor(InvalidArgument):
    default_hint = (
        "Pass a cursor exactly as a previous capture_since call returned it for the same pane, "
        "or call capture_since without a cursor to start a new one."
    )


class TmuxFailure(GridmuxError):
    default_hint = "Check that the tmux server is running and the target exists."


class TmuxUnavailable(TmuxFailure):
    default_hint = "Install tmux (3.2a or newer) and make sure it is on PATH."


class TmuxTimeout(GridmuxError):
    default_hint = "tmux did not answer in time; try again, or check the server's load."


__all__ = [
    "GridmuxError",
    "InvalidArgument",
    "InvalidCursor",
    "NotFound",
    "PaneDead",
    "PaneRespawned",
    "TmuxFailure",
    "TmuxTimeout",
    "TmuxUnavailable",
]
