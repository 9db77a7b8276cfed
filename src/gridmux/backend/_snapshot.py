"""The atomic snapshot: one ``display-message ; capture-pane`` command list.

tmux runs a client's command list back-to-back without reading pane output in
between (docs/tmux-model.md §17), so the state line and the captured rows
describe the same instant. The state line comes first; if the pane is gone,
``display-message`` prints an empty expansion and ``capture-pane`` fails,
which drops nothing we need: either way the answer is ``NotFound``.
"""

from __future__ import annotations

from collections.abc import Sequence

from gridmux.errors import InvalidArgument, NotFound, TmuxFailure

from ._commands import Command, decode, split_lines
from ._formats import STATE_FORMAT, FormatError, parse_state
from ._types import PaneSnapshot, PaneState, RowBound, resolve_row_range

# capture-pane accepts INT_MIN..32767 for -S/-E and treats larger values as
# missing; clamping keeps tmux and resolve_row_range in agreement.
_BOUND_MIN, _BOUND_MAX = -(2**31), 32767


def bound_argument(value: RowBound) -> str:
    """``-S``/``-E`` argument for a row bound (never None here)."""
    if value == "-":
        return "-"
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgument(f"row bound {value!r} must be an int, '-' or None")
    return str(min(max(value, _BOUND_MIN), _BOUND_MAX))


def state_command(pane_id: str) -> Command:
    return ["display-message", "-p", "-t", pane_id, STATE_FORMAT]


def capture_command(
    pane_id: str, start: RowBound, end: RowBound, join_wrapped: bool, *, untrimmed: bool = False
) -> Command:
    command = ["capture-pane", "-p", "-t", pane_id]
    if join_wrapped:
        command.append("-J")
    if untrimmed:
        command.append("-N")
    if start is not None:
        command += ["-S", bound_argument(start)]
    if end is not None:
        command += ["-E", bound_argument(end)]
    return command


def trim_joined(lines: list[str]) -> list[str]:
    """Joined lines without trailing blanks, like the rows tmux prints unjoined.

    ``capture-pane -J`` keeps trailing blanks, and not the same ones on every
    release: 3.2a pads each line to the size allocated for its row, 3.3 and
    later keep the blanks that were written. Neither is text the pane shows.
    """
    return [line.rstrip(" ") for line in lines]


def parse_state_line(what: str, pane_id: str, line: bytes) -> PaneState:
    """The state from a ``STATE_FORMAT`` line, or NotFound when the pane is gone."""
    try:
        state = parse_state(line)
    except FormatError as exc:
        raise TmuxFailure(f"cannot {what}: unexpected pane state {line!r} ({exc})") from exc
    if state is None:
        raise NotFound(f"cannot {what}: pane {pane_id} does not exist")
    return state


def snapshot_commands(
    pane_id: str,
    start: RowBound,
    end: RowBound,
    join_wrapped: bool,
    untrimmed_start: int | None = None,
    samples: Sequence[int] = (),
) -> list[Command]:
    """``state ; [capture -N (untrimmed rows)] ; [capture of one row, per sample] ;
    capture``: parsed by ``parse_snapshot``."""
    commands = [state_command(pane_id)]
    if untrimmed_start is not None:
        commands.append(capture_command(pane_id, untrimmed_start, None, False, untrimmed=True))
    commands += [capture_command(pane_id, row, row, False) for row in samples]
    commands.append(capture_command(pane_id, start, end, join_wrapped))
    return commands


def parse_snapshot(
    what: str,
    pane_id: str,
    stdout: bytes,
    start: RowBound,
    end: RowBound,
    join_wrapped: bool,
    untrimmed_start: int | None = None,
    samples: Sequence[int] = (),
) -> PaneSnapshot:
    """A snapshot from the output of ``snapshot_commands``.

    Without ``join_wrapped`` exactly ``bottom - top + 1`` rows come back: one
    line per grid row, blank rows as ``""``. tmux prints them all, ending in
    one newline; should a version ever drop trailing blank rows they are put
    back, and more rows than the range holds is an error, never trimmed. The
    untrimmed rows come first, and exactly as many as their range holds; then
    one row per sample.
    """
    state_line, _, captured = stdout.partition(b"\n")
    state = parse_state_line(what, pane_id, state_line)
    untrimmed_top = 0
    untrimmed: tuple[str, ...] = ()
    if untrimmed_start is not None:
        untrimmed_top, last = resolve_row_range(
            state.history_size, state.height, untrimmed_start, None
        )
        lines = captured.split(b"\n", last - untrimmed_top + 1)
        if len(lines) <= last - untrimmed_top + 1:
            raise TmuxFailure(f"cannot {what}: tmux returned too few untrimmed rows")
        untrimmed = tuple(decode(b"\n".join(lines[:-1])).split("\n"))
        captured = lines[-1]
    sampled: list[tuple[int, str]] = []
    if samples:
        lines = captured.split(b"\n", len(samples))
        if len(lines) <= len(samples):
            raise TmuxFailure(f"cannot {what}: tmux returned too few sampled rows")
        for row, text in zip(samples, lines, strict=False):
            index, _ = resolve_row_range(state.history_size, state.height, row, row)
            sampled.append((index, decode(text)))
        captured = lines[-1]
    top, bottom = resolve_row_range(state.history_size, state.height, start, end)
    rows = split_lines(decode(captured))
    if join_wrapped:
        rows = trim_joined(rows)
    if not join_wrapped:
        expected = bottom - top + 1
        if len(rows) > expected:
            raise TmuxFailure(
                f"cannot {what}: tmux returned {len(rows)} rows for the {expected} rows "
                f"{top}..{bottom} (history {state.history_size}, height {state.height})"
            )
        rows += [""] * (expected - len(rows))
    return PaneSnapshot(state, top, tuple(rows), untrimmed_top, untrimmed, tuple(sampled))
