"""run_command's hold on the panes it types into.

A pane is *claimed* while a run_command types into it and waits. The claim
lives in tmux, as the pane option ``@gridmux-run``, taken and given back by a
compare-and-set (``TmuxBackend.swap_pane_option``: one command list, which
tmux runs with no other client's command in between). So it is atomic, and
every gridmux process on that tmux server sees it: a second caller is refused,
however many threads or processes race. Its value names the owner:

* ``<pid>.<token>`` -- a run of gridmux process ``pid`` in progress;
* ``x.<token>`` -- a run that timed out: nobody waits for its command any more.

A claim is given back when its run ends (``x.`` after a timeout). One left
behind is taken over: a timed-out one once the pane's shell is back at its
prompt (the guard checks that before typing), one whose owner process no
longer exists (gridmux died), and one of this process that no run of it holds.

A shell let go by run_command is *released* until its prompt is drawn (the
next run_command in that pane waits for it); that memory belongs to one
:class:`~._context.ToolContext`, so two servers in one process never share it.
Another process cannot know of it: a run that finds the foreground is not the
shell waits briefly for the cursor to move before it refuses (``_run_guard``).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

from gridmux.backend import PaneState, ServerRef, TmuxBackend

from ._prompt_line import PromptRow

#: The pane option that holds the claim.
CLAIM_OPTION = "@gridmux-run"

_ACTIVE: set[str] = set()  # tokens of this process's runs holding a claim
_ACTIVE_LOCK = threading.Lock()


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
    """Which shells may still be drawing a prompt after a run let them go."""

    released: dict[tuple[ServerRef, str], Released] = field(default_factory=dict)
    #: the script of a run that timed out, per pane: its shell may still read it
    scripts: dict[tuple[ServerRef, str], str] = field(default_factory=dict)
    #: the cursor's row when a run's line was last proven typed at an empty
    #: command line, per pane (``_run_guard``): that shell's prompt
    prompts: dict[tuple[ServerRef, str], PromptRow] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Claim:
    """A pane claimed for one run (see the module doc)."""

    server: ServerRef
    pane_id: str
    value: str
    #: what it took over ("" if nothing): restored when nothing was typed
    previous: str = ""

    @property
    def token(self) -> str:
        return self.value.rpartition(".")[2]


class Busy(Exception):
    """The pane is claimed by a run in progress (``abandoned``: one that timed out)."""

    def __init__(self, abandoned: bool) -> None:
        super().__init__("busy")
        self.abandoned = abandoned


def _left_behind(value: str) -> bool:
    """A claim nobody holds any more: its run is over or its process is gone."""
    owner, _, token = value.partition(".")
    if not owner.isdigit() or not token:
        return True  # a timed-out run's, or not ours to read: not a run in progress
    pid = int(owner)
    if pid == os.getpid():
        with _ACTIVE_LOCK:
            return token not in _ACTIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def claim(backend: TmuxBackend, server: ServerRef, pane_id: str, token: str) -> Claim:
    """Claim the pane for run ``token``, or raise :class:`Busy`.

    A timed-out run's claim is taken over here: call only once the pane is
    proven to be at its shell prompt, or when that is checked right after
    (and the claim given back if it fails).
    """
    mine = f"{os.getpid()}.{token}"
    with _ACTIVE_LOCK:
        _ACTIVE.add(token)
    try:
        previous = ""
        held = backend.swap_pane_option(server, pane_id, CLAIM_OPTION, "", mine)
        if held and held != mine and _left_behind(held):
            previous = held
            held = backend.swap_pane_option(server, pane_id, CLAIM_OPTION, held, mine)
        if held != mine:
            raise Busy(abandoned=held.startswith("x."))
    except BaseException:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(token)
        raise
    return Claim(server, pane_id, mine, previous)


def give_back(
    backend: TmuxBackend, held: Claim, *, abandoned: bool = False, typed: bool = True
) -> None:
    """End the claim: free the pane, or (``abandoned``) mark its run timed out;
    with nothing ``typed``, put back what the claim took over."""
    try:
        new = f"x.{held.token}" if abandoned else ("" if typed else held.previous)
        backend.swap_pane_option(held.server, held.pane_id, CLAIM_OPTION, held.value, new)
    finally:
        with _ACTIVE_LOCK:
            _ACTIVE.discard(held.token)


__all__ = ["CLAIM_OPTION", "Busy", "Claim", "Released", "Shells", "claim", "give_back"]
