"""tmux commands given as arguments (``cmd-parse.c:cmd_parse_from_arguments``)
and the few the simulator runs from the command line (``cmd-*.c``).

Flags are parsed as tmux's getopt-style ``args_parse`` does, against the
flags the simulated version has: ``capture-pane -T`` on 3.3a or
``display-message -l`` on 3.3a is refused with tmux's own words, ``command
capture-pane: unknown flag -T`` (docs/tmux-model.md §19; ``TmuxVersion.capture_flags``,
``has_display_literal``).

``capture-pane -p`` runs with ``-a -e -J -N -T -L -q -S -E -t``, and ``-M``
outside copy mode (where it shows the base screen, measured on 3.7c).
Flags the version has but the simulator does not model (``-C -P -F -H -R``,
``-M`` in copy mode, ``-L`` with ``-J``, no ``-p``) fail with "not simulated".
``display-message`` runs with ``-p`` (and ``-l``, ``-t``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridmux.backend import GridmuxError, RowBound

from ._versions import TmuxVersion

if TYPE_CHECKING:
    from ._model import SimPane

ALIASES = {
    "set": "set-option",
    "wait": "wait-for",
    "setb": "set-buffer",
    "capturep": "capture-pane",
    "display": "display-message",
    "run": "run-shell",
    "if": "if-shell",
}
SUPPORTED = "tmuxsim._commands"

#: name, flags, arguments
Command = tuple[str, dict[str, str], list[str]]

_NOT_SIMULATED_CAPTURE = "CPFHR"
_BOUND_MIN = -(2**31)
_BOUND_MAX = 32767


def _specs(version: TmuxVersion) -> dict[str, tuple[str, str, str, int, int]]:
    """command: (switches, flags taking a value, usage, min args, max args)."""
    capture = version.capture_flags
    display = "aCINpv" + ("l" if version.has_display_literal else "")
    return {
        "wait-for": ("S", "", "wait-for [-S] channel", 1, 1),
        "set-option": ("pwsguq", "t", "set-option [-gpqsuw] [-t target] option [value]", 1, 2),
        "set-buffer": ("", "b", "set-buffer [-b buffer-name] data", 1, 1),
        # Only their tmux-command forms (run-shell -C, if-shell -F) are simulated.
        "run-shell": ("bC", "dt", "run-shell [-bC] [-d delay] [-t target-pane] [command]", 1, 1),
        "if-shell": (
            "bF",
            "t",
            "if-shell [-bF] [-t target-pane] condition command [command]",
            2,
            3,
        ),
        "capture-pane": (
            capture,
            "bESt",
            f"capture-pane [-{''.join(sorted(capture))}] [-b buffer-name] [-E end-line] "
            "[-S start-line] [-t target-pane]",
            0,
            0,
        ),
        "display-message": (
            display,
            "cdFt",
            f"display-message [-{''.join(sorted(display))}] [-c target-client] "
            "[-d delay] [-F format] [-t target-pane] [message]",
            0,
            1,
        ),
    }


def parse(argv: list[str], version: TmuxVersion) -> Command:
    name = ALIASES.get(argv[0], argv[0])
    specs = _specs(version)
    if name not in specs:
        raise GridmuxError(f"tmux: {argv[0]!r} is not simulated (see {SUPPORTED})")
    switches, with_values, usage, least, most = specs[name]
    flags, rest = parse_flags(name, argv[1:], switches, with_values)
    fits = least <= len(rest) <= most
    if name == "set-option":
        fits = fits and ("u" in flags) == (len(rest) == 1)
    if (name == "run-shell" and "C" not in flags) or (name == "if-shell" and "F" not in flags):
        raise GridmuxError(f"tmux: {name} without -C/-F runs a shell: not simulated")
    if not fits:
        raise GridmuxError(f"command {name}: usage: {usage}")
    return name, flags, rest


def global_options(args: list[str]) -> list[str]:
    while args and args[0] in ("-L", "-S", "-u"):
        args = args[1:] if args[0] == "-u" else args[2:]
    return args


def split(args: list[str]) -> list[list[str]]:
    """Command lists: a ``;`` argument, or one ending in an unescaped ``;``, ends a command."""
    commands: list[list[str]] = [[]]
    for arg in args:
        if arg == ";":
            commands.append([])
        elif arg.endswith("\\;"):
            commands[-1].append(arg[:-2] + ";")
        elif arg.endswith(";"):
            commands[-1].append(arg[:-1])
            commands.append([])
        else:
            commands[-1].append(arg)
    return [command for command in commands if command]


def parse_flags(
    name: str, args: list[str], switches: str, with_values: str
) -> tuple[dict[str, str], list[str]]:
    """getopt-style flags (``-pg``, ``-t %1``); the rest after them or ``--``."""
    flags: dict[str, str] = {}
    i = 0
    while i < len(args) and args[i].startswith("-") and args[i] != "-":
        if args[i] == "--":
            i += 1
            break
        letters = args[i][1:]
        for position, letter in enumerate(letters):
            if letter in switches:
                flags[letter] = ""
            elif letter in with_values:
                value = letters[position + 1 :]
                if not value:
                    i += 1
                    if i >= len(args):
                        raise GridmuxError(f"command {name}: -{letter} expects an argument")
                    value = args[i]
                flags[letter] = value
                break
            else:
                raise GridmuxError(f"command {name}: unknown flag -{letter}")
        i += 1
    return flags, args[i:]


# -- capture-pane and display-message ---------------------------------------------------


def _target(pane: SimPane, flags: dict[str, str]) -> SimPane:
    target = flags.get("t")
    if target is None:
        return pane
    _, _, found = pane.server.resolve(target)
    return found


def _bound(value: str | None, pane: SimPane) -> RowBound:
    # args_strtonum(INT_MIN, SHRT_MAX): anything else is as if missing; 3.4+
    # expands formats first (§14).
    if value is None:
        return None
    if pane.server.version.bounds_are_formats:
        value = pane.server.expand_format(value, pane)
    if value == "-":
        return "-"
    try:
        number = int(value)
    except ValueError:
        return None
    return number if _BOUND_MIN <= number <= _BOUND_MAX else None


def capture_pane(pane: SimPane, flags: dict[str, str]) -> str:
    """``capture-pane -p``: the text, ending in one newline."""
    target = _target(pane, flags)
    unmodelled = [f for f in _NOT_SIMULATED_CAPTURE if f in flags]
    if "M" in flags and target.in_mode:
        unmodelled.append("M")
    if "L" in flags and "J" in flags:
        unmodelled.append("L with -J")
    if "p" not in flags:
        unmodelled.append("b (capture into a buffer, without -p)")
    if unmodelled:
        raise GridmuxError(f"capture-pane -{unmodelled[0]} is not simulated")
    try:
        rows = target.terminal.capture(
            _bound(flags.get("S"), target),
            _bound(flags.get("E"), target),
            join="J" in flags,
            keep_trailing="N" in flags,
            alternate="a" in flags,
            trim_used="T" in flags,
            escapes="e" in flags,
            line_numbers="L" in flags,
        )
    except GridmuxError:
        if "q" in flags:
            return ""
        raise
    return "\n".join(rows) + "\n"


def display_message(pane: SimPane, flags: dict[str, str], rest: list[str]) -> str:
    """``display-message -p``: the message, format-expanded unless ``-l`` (3.4+)."""
    if "p" not in flags:
        raise GridmuxError("display-message without -p is not simulated")
    target = _target(pane, flags)
    message = flags.get("F", rest[0] if rest else "")
    if "l" in flags:
        return message + "\n"
    return target.server.expand_format(message, target) + "\n"
