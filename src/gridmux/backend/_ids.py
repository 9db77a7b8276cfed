"""The forms of tmux ids, sockets, names and layouts: ONE definition.

The MCP tools put each pattern into their input schema (as pydantic types in
``gridmux.tools._params``) and check values with it; the real backend checks
the ids it is handed with the same forms before anything reaches tmux.
Patterns are anchored and written in the subset that Python's ``re``, the
JSON Schema ``pattern`` dialect (ECMA-262) and pydantic's regex engine read
alike; kept short, because every pattern is repeated in ``tools/list``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Form:
    """What a value of one kind looks like: its pattern and an example."""

    pattern: str
    example: str
    _regex: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_regex", re.compile(self.pattern))

    def matches(self, value: object) -> bool:
        return isinstance(value, str) and self._regex.fullmatch(value) is not None


#: ``%3``: a pane.
PANE_ID = Form(r"^%\d+$", "%1")
#: ``@2``: a window.
WINDOW_ID = Form(r"^@\d+$", "@1")
#: ``$1``: a session.
SESSION_ID = Form(r"^\$\d+$", "$1")
#: A window's index within its session, as digits.
WINDOW_INDEX = Form(r"^\d{1,9}$", "0")
#: ``tmux -L NAME``: a plain file name in tmux's socket directory.
SOCKET_NAME = Form(r"^[^/\x00]+$", "work")
#: ``tmux -S PATH``: an absolute path.
SOCKET_PATH = Form(r"^/[^\x00]*$", "/tmp/tmux-1000/default")
#: A name tmux accepts for a new session: not empty, no ':' or '.'.
SESSION_NAME = Form(r"^[^:.\x00-\x1f\x7f]+$", "dev")

#: A control character (C0 or DEL): never part of a name of any kind (a
#: session, window, option, buffer, channel, hook or variable name). A line
#: break would end a control-mode command line, so such a name is refused
#: whole, never trimmed.
CONTROL_CHARACTER = re.compile(r"[\x00-\x1f\x7f]")

#: An environment variable name a shell can use: ``RUST_LOG``.
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: The id forms by kind, as tmux's own words name them.
IDS = {"pane": PANE_ID, "window": WINDOW_ID, "session": SESSION_ID}

# Presets every tmux from 3.2a knows. tmux 3.3a crashes (the server exits) on
# select-layout with an unknown name or a layout string whose checksum is not
# four hex digits, so nothing else is let through.
LAYOUT_PRESETS = ("even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled")


def is_json_layout(layout: str) -> bool:
    """Whether ``layout`` is a layout as tmux 3.8 prints it: JSON ``{"V": 2, "L": {...}}``."""
    try:
        parsed = json.loads(layout)
    except ValueError:
        return False
    return isinstance(parsed, dict) and isinstance(parsed.get("L"), dict) and "V" in parsed


__all__ = [
    "CONTROL_CHARACTER",
    "IDS",
    "LAYOUT_PRESETS",
    "PANE_ID",
    "SESSION_ID",
    "SESSION_NAME",
    "SOCKET_NAME",
    "SOCKET_PATH",
    "VARIABLE_NAME",
    "WINDOW_ID",
    "WINDOW_INDEX",
    "Form",
    "is_json_layout",
]
