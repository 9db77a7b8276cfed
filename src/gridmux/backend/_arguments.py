"""Checks and argv fragments shared by the real backend's operations.

Ids are checked before anything runs: sessions ``$N``, windows ``@N``, panes
``%N`` (names are resolved by the MCP layer), so a malformed value is an
``InvalidArgument`` and never reaches tmux as a name to guess at. Text that
tmux expands as a format (``-c`` directories here) is escaped to arrive
verbatim; ``-e`` values are taken as they are.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Mapping
from typing import TypeVar

from gridmux.errors import InvalidArgument, TmuxFailure

from ._commands import format_literal
from ._ids import CONTROL_CHARACTER, IDS
from ._layouts import parse_layout
from ._types import OptionScope, ServerRef, SplitDirection

_T = TypeVar("_T")

_SIZE = re.compile(r"[1-9]\d*%?")
_SWAP_NAME = re.compile(r"@[A-Za-z0-9_-]{1,64}")
_SWAP_VALUE = re.compile(r"[A-Za-z0-9._-]{0,128}")
_SCOPE_FLAGS: dict[str, list[str]] = {
    "server": ["-s"],
    "session": [],
    "window": ["-w"],
    "pane": ["-p"],
}
_SPLIT_FLAGS: dict[str, list[str]] = {
    "below": ["-v"],
    "above": ["-v", "-b"],
    "right": ["-h"],
    "left": ["-h", "-b"],
}


# -- argument checks and builders ------------------------------------------------


def check_id(kind: str, value: str) -> str:
    form = IDS[kind]
    if not form.matches(value):
        raise InvalidArgument(f"{value!r} is not a tmux {kind} id (expected {form.example[0]}N)")
    return value


def check_target(value: str | None) -> str:
    if not isinstance(value, str) or not any(form.matches(value) for form in IDS.values()):
        raise InvalidArgument(f"{value!r} is not a tmux id ($N session, @N window, %N pane)")
    return value


def check_given(what: str, value: str) -> str:
    """A path or a command: any non-empty text (the command builder quotes it)."""
    if not isinstance(value, str) or not value:
        raise InvalidArgument(f"{what} must be a non-empty string")
    return value


def check_name(what: str, value: str) -> str:
    """A name: non-empty, without a control character."""
    check_given(what, value)
    if CONTROL_CHARACTER.search(value):
        raise InvalidArgument(
            f"{what} {value!r} holds a control character (a line break, tab, escape …); "
            "give it without one"
        )
    return value


def check_env_name(name: str) -> str:
    if not isinstance(name, str) or not name or "=" in name or CONTROL_CHARACTER.search(name):
        raise InvalidArgument(
            f"environment variable name {name!r} must be non-empty, without '=' "
            "or a control character"
        )
    return name


def size_args(width: int | None, height: int | None) -> list[str]:
    args: list[str] = []
    for flag, value in (("-x", width), ("-y", height)):
        if value is None:
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidArgument(f"size {value!r} must be a positive number of cells")
        args += [flag, str(value)]
    return args


def spawn_args(
    start_directory: str | None,
    environment: Mapping[str, str] | None,
    *,
    here_by_default: bool = True,
) -> list[str]:
    """``-c`` (format-expanded by tmux, so escaped) and ``-e`` (taken verbatim).

    With no ``start_directory`` a new pane starts in this process's working
    directory, as tmux does for a one-off tmux process; a control client would
    otherwise hand it the session's directory. ``here_by_default=False`` (for
    respawn) leaves the pane's own directory.
    """
    args: list[str] = []
    if start_directory is None and here_by_default:
        with contextlib.suppress(OSError):
            start_directory = os.getcwd()
    if start_directory is not None:
        args += ["-c", format_literal(check_given("start_directory", start_directory))]
    for name, value in (environment or {}).items():
        args += ["-e", f"{check_env_name(name)}={value}"]
    return args


def command_args(command: str | None) -> list[str]:
    return [] if command is None else ["--", command]


def split_args(direction: SplitDirection, size: str | None) -> list[str]:
    if direction not in _SPLIT_FLAGS:
        raise InvalidArgument(f"direction {direction!r} is not one of {list(_SPLIT_FLAGS)}")
    args = list(_SPLIT_FLAGS[direction])
    if size is not None:
        if not isinstance(size, str) or not _SIZE.fullmatch(size):
            raise InvalidArgument(f"split size {size!r} must be 'N' cells or 'N%' (N >= 1)")
        args += ["-l", size]
    return args


def check_layout(layout: str) -> str:
    """A preset, or a layout string or JSON layout that tiles (``_layouts``)."""
    parse_layout(layout)
    return layout


def scope_args(scope: OptionScope, target: str | None, global_: bool) -> list[str]:
    if scope not in _SCOPE_FLAGS:
        raise InvalidArgument(f"option scope {scope!r} is not one of {list(_SCOPE_FLAGS)}")
    args = ["-g"] if global_ else []
    args += _SCOPE_FLAGS[scope]
    if target is not None:
        if global_:
            raise InvalidArgument("a global option takes no target")
        args += ["-t", check_target(target)]
    return args


def parsed(what: str, parse: Callable[[], _T]) -> _T:
    """``parse()``, with a malformed answer from tmux reported as ``TmuxFailure``."""
    try:
        return parse()
    except ValueError as exc:
        raise TmuxFailure(f"cannot {what}: unexpected output from tmux ({exc})") from exc


def first(what: str, parse: Callable[[], list[_T]]) -> _T:
    items = parsed(what, parse)
    if len(items) != 1:
        raise TmuxFailure(f"cannot {what}: tmux printed {len(items)} records instead of one")
    return items[0]


def socket_name(server: ServerRef, socket_path: str) -> str | None:
    if server.socket_path is not None:
        return None
    return server.socket_name or os.path.basename(socket_path)


def check_swap_words(name: str, *values: str) -> None:
    """A compare-and-set's option name and values: plain words, never a format."""
    if not _SWAP_NAME.fullmatch(name):
        raise InvalidArgument(f"option {name!r} must be a user option: '@' and a word")
    for value in values:
        if not _SWAP_VALUE.fullmatch(value):
            raise InvalidArgument(
                f"value {value!r} must be letters, digits, '.', '-' or '_' (128 at most)"
            )
