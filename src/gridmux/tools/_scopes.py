"""Option and hook tables: the scope and target arguments and their resolution.

tmux keeps options (and hooks) in tables: one for the server, a global table
and one per session for session options, a global table and one per window
(and per pane) for window options. ``where`` checks that the scope and
target a caller gives fit a table and exist; the options and hooks tools
share it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field

from gridmux.backend import ServerRef, TmuxBackend, hook_names
from gridmux.errors import InvalidArgument, NotFound

from ._config_models import Scope
from ._targets import resolve_session

#: Every hook of tmux 3.2a to 3.8. set-option could set them, but gridmux
#: leaves hooks read-only: a hook outlives the agent that set it.
HOOK_NAMES = hook_names()


_TARGET_KIND: dict[str, Scope] = {"%": "pane", "@": "window", "$": "session"}


_TARGET_HINT = "Pass a session id or name, a window id like '@1' or a pane id like '%1'."


_TARGET_FORM = {
    "session": "a session id like '$1' or a session name",
    "window": "a window id like '@1'",
    "pane": "a pane id like '%1'",
}


OptionScopeParam = Annotated[
    Literal["server", "session", "window", "pane"] | None,
    Field(description=("Option table (default: the target's kind, else the option's own table).")),
]


OptionTarget = Annotated[
    str | None,
    Field(
        description=(
            "A session id or name, window id '@1' or pane id '%1'; omit for the global value."
        )
    ),
]


GlobalFlag = Annotated[
    bool,
    Field(description="Use the global table (tmux -g); excludes target."),
]


@dataclass(frozen=True, slots=True)
class Where:
    """A resolved scope: ``target`` is an id, or None for the global/server table."""

    scope: Scope | None
    target: str | None = None
    window_id: str | None = None  # a pane target's window, for inheritance


def where(
    backend: TmuxBackend,
    server: ServerRef,
    scope: Scope | None,
    target: str | None,
    global_: bool,
) -> Where:
    """Check that ``target`` fits ``scope`` and exists; resolve a session name to its id.

    ``scope`` stays None when neither scope nor target says it (the caller
    decides from the option or hook).
    """
    if target is None:
        return Where(scope)
    if not target or "\0" in target:
        raise InvalidArgument(f"target {target!r} is empty or malformed", hint=_TARGET_HINT)
    if global_:
        raise InvalidArgument(
            "global_=True and a target exclude each other",
            hint="Drop target for the global table, or global_ for the target's own.",
        )
    kind = _TARGET_KIND.get(target[:1], "session")
    if scope is None:
        scope = kind
    if scope == "server":
        raise InvalidArgument(
            f"server scope takes no target (got {target!r})",
            hint="Leave target out: the server has one table.",
        )
    if kind != scope:
        raise InvalidArgument(
            f"target {target!r} is not a {scope}",
            hint=f"For scope={scope!r} pass {_TARGET_FORM[scope]}, or change scope.",
        )
    if scope == "session":
        if target.startswith("$"):
            session = resolve_session(backend, server, session_name=None, session_id=target)
        else:
            session = resolve_session(backend, server, session_name=target, session_id=None)
        return Where("session", session.session_id)
    if scope == "window":
        _check_id_form("window", target)
        if not any(w.window_id == target for w in backend.list_windows(server)):
            raise NotFound(f"no window {target} on this tmux server")
        return Where("window", target)
    _check_id_form("pane", target)
    for pane in backend.list_panes(server):
        if pane.pane_id == target:
            return Where("pane", target, pane.window_id)
    raise NotFound(f"no pane {target} on this tmux server")


def _check_id_form(kind: str, value: str) -> None:
    if not value[1:].isdigit():
        raise InvalidArgument(
            f"{value!r} is not a tmux {kind} id", hint=f"Pass {_TARGET_FORM[kind]}."
        )


__all__ = ["HOOK_NAMES", "GlobalFlag", "OptionScopeParam", "OptionTarget", "Where", "where"]
