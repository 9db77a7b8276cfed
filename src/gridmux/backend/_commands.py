"""tmux command lists as values, and the text of tmux's command language.

The leaf every part of the real backend builds on: a ``Command`` is an
argument list (never a shell string); the helpers here turn caller text into
something tmux takes literally, as a format (``format_literal``), as one word
of a command line (``quote_word``, ``command_text``), or as one argument of a
command string such as if-shell's (``command_quote``), and read tmux's output
back as text (``decode``, ``split_lines``). No transport, no error tree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: One tmux command: its name followed by its arguments.
Command = Sequence[str]

# A run of "#" not followed by another "#" or by "[" (format_literal).
_HASH_RUN = re.compile(r"#+(?![#\[])")
# Words the parser takes literally without quotes (no #, %, {, }, ~, $ ...).
_BARE = re.compile(r"[A-Za-z0-9_./:@,+=-]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
#: Inside double quotes: ``\\ " $ ~`` escaped, control characters as octal.
_DOUBLE_QUOTED = {ord(ch): "\\" + ch for ch in '\\"$~'} | {
    code: f"\\{code:03o}" for code in (*range(0x20), 0x7F)
}


def format_literal(text: str) -> str:
    """Make ``text`` survive tmux's format expansion unchanged (``#`` -> ``##``).

    A run of ``#`` followed by ``[`` is left alone: tmux keeps such a run
    verbatim (a style for format_draw), so doubling it would add ``#``s.
    """
    return _HASH_RUN.sub(lambda run: run.group(0) * 2, text)


def command_quote(text: str) -> str:
    """``text`` as one literal argument in a tmux command string (if-shell's commands)."""
    return "'" + text.replace("'", "'\\''") + "'"


def quote_word(arg: str) -> str:
    """``arg`` as one literal word of a tmux command line.

    Single quotes take everything literally; double quotes are used when the
    word holds a quote or a control character. There ``$`` and a leading
    ``~`` would expand, so ``\\ " $ ~`` are escaped with a backslash and
    control characters written as three-digit octal escapes (verified on
    tmux 3.3a, 3.5a, 3.7c and 3.8).
    """
    if _BARE.fullmatch(arg):
        return arg
    if "'" not in arg and not _CONTROL.search(arg):
        return "'" + arg + "'"
    return '"' + arg.translate(_DOUBLE_QUOTED) + '"'


def command_text(command: Command) -> str:
    """``command`` as one line of tmux's command language, every argument literal."""
    if not command:
        raise ValueError("empty tmux command")
    return " ".join(quote_word(arg) for arg in command)


def pane_condition(pane_id: str, flag: str, *, missing: bool) -> str:
    """An ``if-shell -F -t pane_id`` condition: ``flag`` of that pane, ``missing`` if none.

    When the target pane does not exist, if-shell expands its condition for
    the client's current pane instead: nothing for a one-off tmux process,
    but a real pane for a control client. Comparing ``#{pane_id}`` sends a
    missing pane to the branch chosen here (the one whose command fails).
    """
    if missing:
        return f"#{{||:#{{!=:#{{pane_id}},{pane_id}}},{flag}}}"
    return f"#{{&&:#{{==:#{{pane_id}},{pane_id}}},{flag}}}"


def decode(data: bytes) -> str:
    """tmux output as text (tmux -u writes UTF-8; stray bytes become U+FFFD)."""
    return data.decode("utf-8", errors="replace")


def split_lines(text: str) -> list[str]:
    """Lines of tmux output: split on ``\\n`` only, one final newline dropped.

    ``str.splitlines`` would also split on ``\\x1c``-``\\x1e``, ``\\x85``,
    U+2028 …, which can all appear in pane text.
    """
    if not text:
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")
