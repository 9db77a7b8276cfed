"""run_command's guard: every refusal of run_command, in one module.

Before anything is typed (``take``):

1. The command is one non-blank line without NUL characters.
2. The pane is not the one this MCP server runs in.
3. Claim the pane (``_shells.claim``: a compare-and-set of the pane option
   ``@gridmux-run`` in tmux, so every gridmux process on the server sees it);
   a pane another run holds is refused.
4. Wait for the previous run's prompt (this process's; or, while the
   foreground is not the shell, up to ``SETTLE`` seconds for the cursor to
   move: another process's run gives its claim back while its shell's
   ``tmux`` client is still ending, before the prompt is drawn).
5. Prove the pane takes a line: alive, not in copy mode, not on the
   alternate screen, synchronize-panes off, its foreground program the
   pane's own POSIX shell (``nested_shell``: any POSIX shell; fish, csh and
   friends never), no continuation prompt, and an empty command line. A
   prompt may still be being drawn: a shell let go a moment ago is read
   again until its deadline, a pane with nothing on it until the run's
   timeout.

Any refusal types nothing and gives the claim back. The errors the run
itself can end in (the shell exits while the command runs) are made here too.

**An empty command line.** A line typed at the prompt without Enter lives in
the shell's line editor (or, for dash, in the tty), which tmux cannot see;
only its echo is on the screen. run_command's own line would be appended to
it, and the shell would run ``<their text> . '/tmp/gridmux-XXXX/T'``. So
the row the cursor is on is split at the cursor (``_prompt_line``), and the
line counts as empty when:

* right of the cursor there is nothing, or only what was there when the line
  was last proven empty in this pane, or (zsh) a right prompt: a block that
  ends at the right edge, apart from the cursor; and
* left of the cursor is exactly the prompt seen when the line was last proven
  empty in this pane (same shell process); or else it ends the way prompts do
  (``$``, ``#``, ``%``, ``>``, or an arrow, guillemet or lambda as themed
  prompts use, then spaces), and does not merely extend that proven prompt.

A line is *proven* empty when run_command's typed line ran its script: the
shell read exactly that line. The prompt seen before typing it is then
remembered, per pane and shell process, so a prompt of any shape is
recognised from the second run on. The first run in a pane with a prompt of
another shape is refused (the hint says how to vouch for it:
``prompt_only``). What this cannot see: typed text that itself ends like a
prompt (``echo $ ``) on a pane whose proven prompt is not on screen.
"""

from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass

from gridmux.backend import PaneInfo, PaneSnapshot, PaneState, ServerRef
from gridmux.capture import WINDOW
from gridmux.errors import GridmuxError, InvalidArgument, NotFound, PaneDead

from ._context import ToolContext
from ._prompt_line import PromptRow, columns, split_row
from ._run_script import SCRIPTS
from ._shells import Busy, Claim, Released, claim, give_back

#: A run_command waits at most this long after the previous one in its pane
#: for the shell to show its prompt.
SETTLE = 0.5
_SETTLE_POLL = 0.0005
#: The longest pause between two reads of a pane whose prompt is still to come.
_PROMPT_POLL = 0.02


@dataclass(frozen=True, slots=True)
class RunRequest:
    """What run_command was asked to do, and when and as which run (``token``)."""

    command: str
    pane_id: str | None
    session_name: str | None
    session_id: str | None
    window_id: str | None
    timeout: float
    suppress_history: bool
    nested_shell: bool
    prompt_only: bool
    started: float
    token: str


@dataclass(frozen=True, slots=True)
class Taken:
    """A pane claimed for a run and proven to take a line: its record, its
    window as read then, and the cursor's row split at the cursor."""

    pane_id: str
    claim: Claim
    pane: PaneInfo
    snap: PaneSnapshot
    prompt: PromptRow


def take(ctx: ToolContext, server: ServerRef, request: RunRequest) -> Taken:
    """Claim the pane ``request`` names and prove it takes a line (module doc);
    else raise, with nothing typed and the claim given back."""
    check_command(request.command)
    target = ctx.pane_target(
        server, request.pane_id, request.session_name, request.session_id, request.window_id
    )
    ctx.refuse_input_to_caller(server, target)
    try:
        held = claim(ctx.backend, server, target, request.token)
    except Busy as exc:
        raise busy_error(target, exc.abandoned) from None
    except NotFound as exc:
        raise NotFound(f"no pane {target} on this tmux server") from exc
    try:
        pane, snap, prompt = _at_prompt(ctx, server, target, request)
    except BaseException:
        with contextlib.suppress(GridmuxError):
            give_back(ctx.backend, held, typed=False)
        raise
    # The shell is at its prompt: a timed-out run's script is read.
    leftover = ctx.shells.scripts.pop((server, target), None)
    if leftover is not None:
        SCRIPTS.discard(leftover)
    return Taken(target, held, pane, snap, prompt)


def check_command(command: str) -> None:
    if not command.strip() or "\0" in command:
        raise InvalidArgument(
            "command must be non-blank text without NUL characters",
            hint="Pass the shell command line to run, e.g. 'make test'.",
        )
    if "\n" in command or "\r" in command:
        raise InvalidArgument(
            "command must be a single line",
            hint="Join the commands with ';' or '&&', or put a longer script in a file "
            "and run that.",
        )


def _read_pane(ctx: ToolContext, server: ServerRef, target: str) -> tuple[PaneInfo, PaneSnapshot]:
    try:
        # The window and a sentinel row at least: the typed token pins the
        # output's start, the cursor only narrows the search for it.
        return ctx.backend.pane_snapshot(server, target, start=-(WINDOW + 1))
    except NotFound as exc:
        raise NotFound(f"no pane {target} on this tmux server") from exc


def _at_prompt(
    ctx: ToolContext, server: ServerRef, target: str, request: RunRequest
) -> tuple[PaneInfo, PaneSnapshot, PromptRow]:
    """The pane once the previous run's prompt is drawn, if it takes a line now;
    read again while a prompt may still be being drawn: the shell was let go a
    moment ago (until that run's deadline), or has drawn nothing yet (until
    this run's timeout)."""
    previous = ctx.shells.released.pop((server, target), None)
    pane, snap = _read_pane(ctx, server, target)
    if previous is None and not is_shell(pane.current_command):
        # Another gridmux process may have let this shell go a moment ago: its
        # tmux client is ending and the prompt is still to come. Wait for it as
        # for one of ours; a program that stays in the foreground is refused
        # below all the same.
        previous = Released(snap.state, time.monotonic() + SETTLE)
    if previous is not None and not previous.settled(snap.state):
        while not previous.settled(ctx.backend.pane_state(server, target)):
            time.sleep(_SETTLE_POLL)  # in a worker thread, between reads of tmux
        pane, snap = _read_pane(ctx, server, target)
    pause = _SETTLE_POLL
    while True:
        try:
            return pane, snap, check_pane(ctx, server, pane, snap, request)
        except PartlyTyped:
            blank = not any(row.strip() for row in snap.rows)
            settling = 0.0 if previous is None else previous.deadline
            until = request.started + request.timeout if blank else settling
            if time.monotonic() >= until:
                raise
        time.sleep(pause)  # in a worker thread, between reads of tmux
        pause = min(pause * 2, _PROMPT_POLL)
        pane, snap = _read_pane(ctx, server, target)


def check_pane(
    ctx: ToolContext, server: ServerRef, pane: PaneInfo, snap: PaneSnapshot, request: RunRequest
) -> PromptRow:
    """The pane takes a typed line now: the cursor's row, split at the cursor."""
    check_typeable(ctx, server, pane)
    foreground = (
        None if request.nested_shell else ctx.backend.foreground_process_group(server, pane.pane_id)
    )
    state = snap.state
    row = snap.rows[state.history_size + state.cursor_y - snap.top]
    check_at_prompt(pane, row, nested_shell=request.nested_shell, foreground=foreground)
    if request.prompt_only:
        return split_row(pane, row)
    proven = ctx.shells.prompts.get((server, pane.pane_id))
    return check_line_empty(pane, row, proven, width=state.width)


def busy_error(target: str, abandoned: bool = False) -> InvalidArgument:
    if abandoned:
        return InvalidArgument(
            f"pane {target} is still running a command from an earlier run_command "
            "that timed out; nothing was typed",
            hint="Wait for it (wait_for_text or capture_since), stop it with send_keys "
            "C-c, or use another pane.",
        )
    return InvalidArgument(
        f"pane {target} is already running a command from run_command (this or another "
        "gridmux process); nothing was typed",
        hint="Wait for that call to finish, or use another pane.",
    )


def shell_exited(target: str, state: PaneState) -> PaneDead:
    return PaneDead(
        f"the shell in pane {target} exited while running the command"
        + ("" if state.dead_status is None else f" (status {state.dead_status})"),
        hint="Read its last output with capture_pane; respawn_pane restarts it.",
    )


def check_typeable(ctx: ToolContext, server: ServerRef, pane: PaneInfo) -> None:
    """Keys typed into the pane reach its program, and only this pane's."""
    where = f"pane {pane.pane_id}"
    if pane.dead:
        raise PaneDead(f"the program in {where} has exited; there is no shell to run a command")
    if pane.in_mode:
        raise InvalidArgument(
            f"{where} is in {pane.mode or 'a mode'}: typed keys would go to the mode",
            hint="Leave it with exit_copy_mode, then call run_command again.",
        )
    if pane.alternate_on:
        raise InvalidArgument(
            f"{where} shows a full-screen program ({pane.current_command}), not a shell prompt",
            hint="Quit that program first, or drive it with send_keys.",
        )
    # The pane's synchronize-panes, its own value or else its window's or the
    # global one, in one read: what tmux looks at when keys are sent to the pane.
    if ctx.backend.display_message(server, pane.pane_id, "#{pane_synchronized}") == "1":
        raise InvalidArgument(
            f"{where} has synchronize-panes on: tmux would type the command line into every "
            f"pane of window {pane.window_id} that has it on; nothing was typed",
            hint="Turn it off for this pane with set_option synchronize-panes off "
            f"(scope pane, target {pane.pane_id}), or run the command in another window.",
        )


#: Shells whose syntax run_command's typed line is written in.
POSIX_SHELLS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "ksh93", "mksh", "oksh", "ash", "yash", "posh"}
)
#: Shells it refuses: their syntax is not POSIX (``$?``, ``eval '...'``, ``\\;``).
OTHER_SHELLS = frozenset(
    {"fish", "csh", "tcsh", "nu", "pwsh", "xonsh", "elvish", "rc", "es", "ion", "murex"}
)


def is_shell(command: str) -> bool:
    """Whether ``command`` (a pane's current command) is a POSIX shell run_command
    types into (a login shell's leading ``-`` aside)."""
    return command.lstrip("-") in POSIX_SHELLS


def check_at_prompt(
    pane: PaneInfo,
    row: str,
    *,
    nested_shell: bool,
    foreground: int | None,
) -> None:
    """The pane's foreground is its POSIX shell, at its prompt (``row`` is the
    cursor's row): else an error that says what the pane does instead."""
    where = f"pane {pane.pane_id}"
    program = pane.current_command.lstrip("-")
    if program in OTHER_SHELLS:
        raise InvalidArgument(
            f"{where} runs {program}, which run_command does not support: it types POSIX "
            "shell syntax (sh, bash, zsh, dash, ksh)",
            hint="Drive it with send_keys, or start a POSIX shell (e.g. bash) in the pane.",
        )
    if not nested_shell:
        if not is_shell(program):
            raise InvalidArgument(
                f"{where} is running {program or 'a program'!r} in the foreground, not a "
                "shell at its prompt: typed text would go to that program; nothing was typed",
                hint="Wait for it to finish (wait_for_text), stop it with send_keys C-c, or "
                "use another pane. If it is a POSIX shell started in this one (bash inside "
                "bash), pass nested_shell=true; for a shell through ssh or sudo, where "
                "tmux is out of reach, use send_keys and wait_for_text instead.",
            )
        if foreground is not None and pane.pid is not None and foreground != pane.pid:
            raise InvalidArgument(
                f"{where}: a {program} started from the pane's own shell is in the "
                "foreground, not the pane's shell; nothing was typed",
                hint="Pass nested_shell=true to run the command in it, or exit it first.",
            )
    typed = row[: pane.cursor_x].ljust(pane.cursor_x)
    if _CONTINUATION.match(typed):
        raise InvalidArgument(
            f"{where} shows a continuation prompt ({typed.strip()!r}): the shell waits for "
            "the rest of an unfinished line (an open quote); nothing was typed",
            hint="Cancel that line with send_keys C-c, then call run_command again.",
        )


#: A continuation prompt: PS2's '> ' (sh, bash, dash, ksh), or zsh's '%_> ' (the
#: open constructs: 'dquote> ', 'quote> ', 'heredoc> ', 'cmdsubst dquote> ' ...).
_CONTINUATION = re.compile(r"^(?:[a-z]+ )*[a-z]*> $")


class PartlyTyped(InvalidArgument):
    """The command line may hold text typed without Enter (or its prompt is
    not drawn yet): run_command types nothing."""


#: How a prompt ends: a prompt character, then spaces (the cursor's column).
_PROMPT_END = re.compile("[$#%>\u276f\u279c\u00bb\u03bb\u2192] *$")


def check_line_empty(
    pane: PaneInfo, row: str, proven: PromptRow | None, *, width: int
) -> PromptRow:
    """The cursor's row as ``split_row`` splits it, if the shell's command line
    is empty (see the module doc); else an error that names the text."""
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


__all__ = [
    "OTHER_SHELLS",
    "POSIX_SHELLS",
    "SETTLE",
    "PartlyTyped",
    "RunRequest",
    "Taken",
    "busy_error",
    "check_at_prompt",
    "check_command",
    "check_line_empty",
    "check_pane",
    "check_typeable",
    "is_shell",
    "shell_exited",
    "take",
]
