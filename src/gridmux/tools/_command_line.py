"""run_command's parts that hold no state: the typed line, where its echo
ends, which rows are output (also joined), and the checks and errors.

See ``commands`` for how run_command goes, step by step or as one list.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gridmux.backend import PaneInfo, PaneSnapshot, PaneState, ServerRef
from gridmux.capture import Cursor, RowMemory, advance, untrimmed
from gridmux.errors import GridmuxError, InvalidArgument, PaneDead

from ._context import ToolContext, tool_error
from ._run_output import markers, printf_text
from ._shells import CLAIM_OPTION


@dataclass(frozen=True, slots=True)
class TypedLine:
    """The line run_command types, the script it sources, and the names it uses."""

    text: str
    status_option: str
    done_channel: str
    ack_channel: str
    #: The command as redrawn, whitespace removed: finds the redrawn line's last row.
    needle: str
    #: What the shell sources (written to ``script_path`` before typing).
    script: str
    script_path: str
    #: Where ``pipe-pane`` copies the pane's output to (``_run_output``).
    pipe_path: str

    @property
    def pipe_command(self) -> str:
        """The shell command ``pipe-pane`` runs: append to ``pipe_path``."""
        return "exec cat >> " + shell_quote(self.pipe_path)


def shell_quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


#: Seconds after which tmux itself lets a held shell go if nobody acknowledged
#: (the gridmux that typed the line died): the hold never wedges the pane.
HOLD_LIMIT = 5

#: How each shell adds a line to its history (``suppress_history=False``).
_HISTORY = {"bash": "history -s -- ", "zsh": "print -rs -- ", "ksh": "print -rs -- "}


def displayed(command: str) -> str:
    """The command as it is redrawn on screen: tabs as spaces, other control
    characters in caret notation (``^[``), so none of them reaches the terminal."""
    out: list[str] = []
    for char in command:
        code = ord(char)
        if char == "\t":
            out.append(" ")
        elif code < 0x20 or code == 0x7F:
            out.append("^" + chr(code ^ 0x40))
        elif 0x80 <= code < 0xA0:
            out.append("?")
        else:
            out.append(char)
    return "".join(out)


def typed_line(
    command: str,
    pane_id: str,
    token: str,
    *,
    suppress_history: bool,
    script_path: str,
    cursor_x: int = 0,
    width: int = 80,
    shell: str = "sh",
) -> TypedLine:
    """The short line to type at a prompt whose cursor is at ``cursor_x`` in a
    pane ``width`` cells wide, and the script it sources (see ``commands``)."""
    status, done, ack = f"@gridmux-status-{token}", f"gridmux-{token}", f"gridmux-{token}-ack"
    # run-shell expands its argument as a format once (## -> #); the delayed if-shell
    # then signals the ack only while the status is still there, i.e. the shell
    # still waits: an acknowledged run leaves no signal behind.
    still_held = f"##{{!=:##{{{status}}},}}"
    release = f"if -F -t {pane_id} '{still_held}' 'wait-for -S {ack}'"
    saved = f"_gridmux_{token}"
    finish = (
        f'tmux set-option -p -t {pane_id} {status} "${saved}"'
        f' \\; run-shell -b -d {HOLD_LIMIT} -C "{release}"'
        f" \\; wait-for -S {done} \\; wait-for {ack}"
        f" \\; set-option -p -u -t {pane_id} {status}"
        # A run that timed out left its claim to the shell (``_shells``).
        f" \\; if -F -t {pane_id} '#{{==:#{{{CLAIM_OPTION}}},x.{token}}}'"
        f" 'set -p -u -t {pane_id} {CLAIM_OPTION}'"
    )
    # The leading space keeps this line out of the history of shells that
    # skip such lines (HISTCONTROL=ignorespace, zsh's HIST_IGNORE_SPACE).
    text = " . " + shell_quote(script_path)
    shown = displayed(command)
    # The echoed line took this many rows from the prompt's row down (the
    # cursor is on the row below); redraw the command from the prompt's end.
    rows = max(1, -(-(cursor_x + len(text)) // max(1, width)))
    start, end = (printf_text(marker) for marker in markers(token))
    redraw = f"printf '\\033[{rows}A\\033[{cursor_x + 1}G\\033[J%s\\n{start}' " + shell_quote(shown)
    history = _HISTORY.get(shell.lstrip("-"))
    lines = [redraw]
    if not suppress_history and history is not None:
        lines.append(history + shell_quote(command))
    lines += [
        "eval " + shell_quote(command),
        f"{saved}=$?",
        f"printf '{end}'",
        finish,
        f"unset {saved}",
    ]
    script = "\n".join(lines) + "\n"
    return TypedLine(
        text, status, done, ack, squash(shown), script, script_path, script_path + ".pipe"
    )


def squash(text: str) -> str:
    return "".join(text.split())


def echo_end(rows: Sequence[str], needle: str) -> int | None:
    """Index of the row where the echoed line ends (its text ends in ``needle``)."""
    carry = ""
    keep = len(needle) - 1
    for index, row in enumerate(rows):
        text = carry + squash(row)
        if needle in text:
            return index
        carry = text[-keep:] if keep > 0 else ""
    return None


def output_rows(
    snap: PaneSnapshot, cursor: Cursor, line: TypedLine, memory: RowMemory | None = None
) -> tuple[list[str], bool, int, int]:
    """Rows after the redrawn command line up to the cursor, whether the head
    is gone, and their absolute first and last index (every retained row in
    ``snap``; ``cursor`` was taken at the prompt just before typing).

    The command line starts on the cursor's anchor row: where the delta from
    ``cursor`` starts, or, when the capture core cannot prove that delta (a
    young cursor), at the anchor's own index while tmux provably moved no row
    (no trim, no clear, no reflow since). Else no row is known to be the
    command's: every retained row is output, and the head counts as missed.
    """
    reading = advance(cursor, snap, memory=memory)
    state, top, rows = snap.state, snap.top, snap.rows
    anchor = state.history_size + state.cursor_y
    end = anchor if rows[anchor - top] else anchor - 1
    start: int | None = None
    if not reading.lines_missed:
        end = anchor if reading.cursor.shown else anchor - 1
        start = end - len(reading.lines) + 1
    elif (
        untrimmed(state)
        and state.width == cursor.width
        and state.history_size >= cursor.history_size
        and top <= cursor.anchor <= anchor
    ):
        start = cursor.anchor
    if start is None:
        return list(rows[: end - top + 1]), True, top, end
    echoed = echo_end(rows[start - top : end - top + 1], line.needle)
    if echoed is not None:
        start += echoed + 1
    # Else the redrawn line is no longer retained (cleared): every row
    # after its start is output.
    return list(rows[start - top : end - top + 1]), echoed is None, start, end


def joined_lines(
    snap: PaneSnapshot, joined: Sequence[str], start: int, end: int
) -> list[str] | None:
    """Rows ``start..end`` of ``snap`` as lines of ``joined`` (the same rows read
    at the same instant with wrapped rows joined), or None when that cannot be
    told for sure.

    Rows below ``end`` are never joined to it (the echo ended with a newline,
    the cursor row ends its line, rows below it are empty), so the last line
    is found by counting from the bottom. Walking up, each joined line takes
    the fewest rows whose text, whitespace removed, is its text; the walk
    must land exactly on ``start``.
    """
    top, rows = snap.top, snap.rows
    last = len(joined) - 1 - (top + len(rows) - 1 - end)
    taken: list[str] = []
    row = end
    index = last
    while row >= start:
        if index < 0:
            return None
        text = squash(joined[index])
        size = 1
        covered = squash(rows[row - top])
        while covered != text:
            size += 1
            if row - size + 1 < start or not text.endswith(covered):
                return None
            covered = squash(rows[row - size + 1 - top]) + covered
        taken.append(joined[index])
        row -= size
        index -= 1
    return taken[::-1]


@dataclass(frozen=True, slots=True)
class Output:
    lines: list[str]
    lines_missed: bool
    #: the pane while the shell was still held: its prompt moves the cursor
    held: PaneState
    #: where the whole output can be read (it came through the pipe)
    uri: str | None = None


def check_not_caller(ctx: ToolContext, server: ServerRef, pane_id: str) -> None:
    if ctx.is_caller(server, pane_id):
        raise InvalidArgument(
            f"refusing to type into pane {pane_id}: this MCP server itself runs there",
            hint="Run the command in another pane (create one with split_window).",
        )


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


def parse_status(value: str) -> int:
    return int(value.strip().strip('"'))


def checked(check: Callable[[], None]) -> None:
    """Run ``check``; a gridmux error becomes the tool error it stands for."""
    try:
        check()
    except GridmuxError as exc:
        raise tool_error(exc) from exc


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


def check_typeable(ctx: ToolContext, server: ServerRef, pane: PaneInfo) -> None:
    where = f"pane {pane.pane_id}"
    check_not_caller(ctx, server, pane.pane_id)
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
    if _synchronized(ctx, server, pane.pane_id):
        raise InvalidArgument(
            f"{where} has synchronize-panes on: tmux would type the command line into every "
            f"pane of window {pane.window_id} that has it on; nothing was typed",
            hint="Turn it off for this pane with set_option synchronize-panes off "
            f"(scope pane, target {pane.pane_id}), or run the command in another window.",
        )


def _synchronized(ctx: ToolContext, server: ServerRef, pane_id: str) -> bool:
    """The pane's synchronize-panes, its own value or else its window's or the global
    one, in one read: what tmux looks at when keys are sent to the pane."""
    return ctx.backend.display_message(server, pane_id, "#{pane_synchronized}") == "1"
