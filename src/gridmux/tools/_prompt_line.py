"""Is the shell's command line empty? run_command's check of the cursor's row.

A line typed at the prompt without Enter lives in the shell's line editor (or,
for dash, in the tty), which tmux cannot see; only its echo is on the screen.
run_command's own line would be appended to it, and the shell would run
``<their text> . '/tmp/gridmux-XXXX/T'``. So before typing, the row the
cursor is on is split at the cursor, and the line counts as empty when:

* right of the cursor there is nothing, or only what was there when the line
  was last proven empty in this pane, or (zsh) a right prompt: a block that
  ends at the right edge, apart from the cursor; and
* left of the cursor is exactly the prompt seen when the line was last proven
  empty in this pane (same shell process); or else it ends the way prompts do
  (``$``, ``#``, ``%``, ``>``, or an arrow, guillemet or lambda as themed
  prompts use, then spaces), and does not merely extend that proven prompt.

A line is *proven* empty when run_command's typed line ran its script: the
shell read exactly that line. The prompt seen before typing it is then
remembered (:class:`PromptRow`), per pane and shell process, so a prompt of
any shape is recognised from the second run on. The first run in a pane with
a prompt of another shape is refused (the hint says how to vouch for it:
``prompt_only``). What this cannot see: typed text that itself ends like a
prompt (``echo $ ``) on a pane whose proven prompt is not on screen.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gridmux.backend import PaneInfo
from gridmux.errors import InvalidArgument


class PartlyTyped(InvalidArgument):
    """The command line may hold text typed without Enter (or its prompt is
    not drawn yet): run_command types nothing."""


#: How a prompt ends: a prompt character, then spaces (the cursor's column).
_PROMPT_END = re.compile("[$#%>\u276f\u279c\u00bb\u03bb\u2192] *$")


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


def check_line_empty(
    pane: PaneInfo, row: str, proven: PromptRow | None, *, width: int
) -> PromptRow:
    """The cursor's row as :func:`split_row` splits it, if the shell's command
    line is empty (see the module doc); else an error that names the text."""
    seen = split_row(pane, row)
    if proven is not None and proven.pid != pane.pid:
        proven = None  # another shell process: its prompt proves nothing
    if proven is not None and seen == proven:
        return seen
    where = f"pane {pane.pane_id}"
    hint = (
        "If someone is typing there, leave it; else clear the line with send_keys C-u "
        "(or C-c), then call run_command again."
    )
    known_right = proven is not None and seen.right == proven.right
    if seen.right and not known_right and not _right_prompt(pane, seen, width):
        raise PartlyTyped(
            f"{where} has text right of the cursor on the command line ({seen.right!r}): "
            "a partly typed line the command would be added to; nothing was typed",
            hint=hint,
        )
    if not seen.left.strip() and not seen.right:
        raise PartlyTyped(
            f"{where} shows no prompt at the cursor: its shell has not drawn one (yet); "
            "nothing was typed",
            hint="Wait for the prompt (wait_for_text), then call run_command again; if the "
            "shell's prompt is empty, pass prompt_only=true.",
        )
    if proven is not None and seen.left == proven.left:
        return seen  # the proven prompt, and only a right prompt changed
    extends = (
        proven is not None
        and proven.left.strip() != ""
        and seen.left.rstrip() != proven.left.rstrip()
        and seen.left.startswith(proven.left)
    )
    if extends or not _PROMPT_END.search(seen.left):
        raise PartlyTyped(
            f"{where}'s command line reads {seen.left.rstrip()!r} up to the cursor, which "
            "does not end like a shell prompt: a partly typed line the command would be "
            "added to; nothing was typed",
            hint=hint + " If that row is only the shell's prompt (one gridmux does not "
            "recognise), pass prompt_only=true.",
        )
    return seen


def _right_prompt(pane: PaneInfo, seen: PromptRow, width: int) -> bool:
    """zsh's right prompt: apart from the cursor, reaching the right edge (up to
    ``ZLE_RPROMPT_INDENT``, 1 by default)."""
    if pane.current_command.lstrip("-") != "zsh":
        return False
    gap = len(seen.right) - len(seen.right.lstrip(" "))
    end = pane.cursor_x + sum(columns(char) for char in seen.right)
    return gap >= 1 and end >= width - 1


__all__ = ["PartlyTyped", "PromptRow", "check_line_empty", "columns", "split_row"]
