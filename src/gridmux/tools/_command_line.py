"""The line run_command types and the script it sources (see ``run_command``,
step 2, for what the script does)."""

from __future__ import annotations

from dataclasses import dataclass

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


def markers(token: str) -> tuple[str, str]:
    """The start and end markers of run ``token``, as the script prints them."""
    return f"\x1b]gridmux-{token}-start\x07", f"\x1b]gridmux-{token}-end\x07"


def printf_text(marker: str) -> str:
    """``marker`` as a printf format (no ``%`` or ``\\`` in it but the escapes)."""
    return marker.replace("\x1b", "\\033").replace("\x07", "\\007")


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
    pane ``width`` cells wide, and the script it sources (see ``run_command``)."""
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


def parse_status(value: str) -> int:
    return int(value.strip().strip('"'))


__all__ = [
    "HOLD_LIMIT",
    "TypedLine",
    "displayed",
    "markers",
    "parse_status",
    "printf_text",
    "squash",
    "typed_line",
]
