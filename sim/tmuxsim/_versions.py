"""tmux releases the simulator can imitate, and the behaviours that differ.

Every flag cites ``reference/tmux-grid.md`` §0; everything not listed there is
identical from 3.2a to 3.8.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

KNOWN_VERSIONS = ("3.2a", "3.3a", "3.4", "3.5a", "3.6b", "3.7c", "3.8")

_VERSION = re.compile(r"^(?:next-)?(\d+)\.(\d+)([a-z]?)$")


@dataclass(frozen=True, slots=True, order=True)
class TmuxVersion:
    major: int
    minor: int
    patch: str = ""

    @classmethod
    def parse(cls, text: str) -> TmuxVersion:
        match = _VERSION.match(text.strip().removeprefix("tmux ").strip())
        if match is None:
            raise ValueError(f"not a tmux version: {text!r} (expected e.g. '3.5a')")
        return cls(int(match.group(1)), int(match.group(2)), match.group(3))

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}{self.patch}"

    def _at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)

    # -- grid and capture ----------------------------------------------------
    @property
    def has_scroll_on_clear_option(self) -> bool:
        """3.3+: ED2/ED0-at-home/RIS scroll into history only if ``scroll-on-clear``."""
        return self._at_least(3, 3)

    @property
    def history_limit_applies_to_existing_panes(self) -> bool:
        """3.7+: ``set history-limit`` trims existing panes at once."""
        return self._at_least(3, 7)

    @property
    def capture_prints_tabs(self) -> bool:
        """3.6+: a TAB cell is stored and ``capture-pane`` prints ``\\t``."""
        return self._at_least(3, 6)

    @property
    def join_pads_to_cellsize(self) -> bool:
        """3.2a: ``capture-pane -J`` keeps trailing blanks up to the allocated size."""
        return not self._at_least(3, 3)

    @property
    def reflow_counts_padding(self) -> bool:
        """3.7+ (measured on 3.7c and 3.8; 3.6b not available to measure): reflow
        counts a wide character's padding cell as one column, so a character
        wider than the new width no longer swallows the one after it."""
        return self._at_least(3, 7)

    @property
    def text_overwrite_reaches_column_zero(self) -> bool:
        """3.7+ (measured on 3.7c and 3.8; 3.6b not available): text written
        over the right half of a wide character in column 0 blanks it; up to
        3.5a the character stays and the text lands on its padding."""
        return self._at_least(3, 7)

    @property
    def bounds_are_formats(self) -> bool:
        """3.4+: ``-S``/``-E`` are format-expanded."""
        return self._at_least(3, 4)

    # -- panes -----------------------------------------------------------------
    @property
    def dead_pane_message_is_format(self) -> bool:
        """3.3+: ``remain-on-exit-format`` clipped to one row; 3.2a fixed text that wraps."""
        return self._at_least(3, 3)

    @property
    def dead_pane_pid_empty(self) -> bool:
        """3.8 (head): ``pane_pid`` is empty for a dead pane."""
        return self._at_least(3, 8)

    @property
    def honours_detached_size(self) -> bool:
        """3.3+: ``new-session -d -x -y`` is honoured (3.2a gave 80x23)."""
        return self._at_least(3, 3)

    @property
    def default_term(self) -> str:
        return "tmux-256color" if self._at_least(3, 3) else "screen"


DEFAULT_VERSION = TmuxVersion.parse("3.3a")
