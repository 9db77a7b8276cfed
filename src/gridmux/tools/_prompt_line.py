"""The cursor's row split at the cursor: what run_command's guard reads a
command line from (``_run_guard``: is it empty?), and the prompt a run
remembers per pane once its line was proven typed at an empty command line
(``_shells.Shells.prompts``)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from gridmux.backend import PaneInfo


@dataclass(frozen=True, slots=True)
class PromptRow:
    """The cursor's row split at the cursor: ``left`` (the prompt, when the
    line is empty) and ``right`` (trailing blanks removed; zsh's right prompt),
    in the shell process ``pid``."""

    pid: int | None
    left: str
    right: str


def columns(char: str) -> int:
    """The cells ``char`` takes on a terminal: 2 for wide, 0 for combining."""
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def split_row(pane: PaneInfo, row: str) -> PromptRow:
    """``row`` (the cursor's, trailing blanks trimmed) split at the cursor's cell."""
    cell = 0
    for index, char in enumerate(row):
        if cell >= pane.cursor_x:
            return PromptRow(pane.pid, row[:index], row[index:].rstrip())
        cell += columns(char)
    return PromptRow(pane.pid, row + " " * (pane.cursor_x - cell), "")


__all__ = ["PromptRow", "columns", "split_row"]
