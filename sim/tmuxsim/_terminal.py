"""PLACEHOLDER: the simulated terminal (grid + VT writer + capture) is being written.

The public API below is the contract the rest of the simulator codes against.
"""

from __future__ import annotations

from gridmux.backend import RowBound

from ._versions import TmuxVersion


class Terminal:
    """One pane's screen: the base grid (history + visible rows), the alternate
    screen, the cursor and the VT parser state."""

    def __init__(
        self, width: int, height: int, history_limit: int, version: TmuxVersion
    ) -> None:
        raise NotImplementedError

    # state (read-only properties): width, height, history_size, history_limit,
    # cursor_x, cursor_y, alternate_on, hscrolled
    # settable attribute: scroll_on_clear: bool (the pane option, default True)

    def feed(self, data: bytes) -> None:
        """Bytes as the terminal receives them (after the tty's ONLCR)."""
        raise NotImplementedError

    def resize(self, width: int, height: int) -> None:
        raise NotImplementedError

    def clear_history(self) -> None:
        raise NotImplementedError

    def set_history_limit(self, limit: int) -> None:
        """3.7+ semantics: set hlimit and trim at once (the caller gates by version)."""
        raise NotImplementedError

    def respawn_reset(self) -> None:
        """screen_reinit: leave alt screen, blank visible rows, cursor home; keep history."""
        raise NotImplementedError

    def write_dead_message(self, text: str) -> None:
        """remain-on-exit: reset region, cursor to last row, one wrapped linefeed, message."""
        raise NotImplementedError

    def capture(
        self,
        start: RowBound = None,
        end: RowBound = None,
        *,
        join: bool = False,
        keep_trailing: bool = False,
        alternate: bool = False,
    ) -> list[str]:
        raise NotImplementedError

    def line_serials(self) -> list[int]:
        """Identity of every absolute row (history then screen), for test oracles."""
        raise NotImplementedError
