"""The atomic snapshot: one ``display-message ; capture-pane`` command list.

tmux runs a client's command list back-to-back without reading pane output in
between (reference/tmux-grid.md §8), so the state line and the captured rows
describe the same instant. The state line comes first; if the pane is gone,
``display-message`` prints an empty expansion and ``capture-pane`` fails,
which drops nothing we need: either way the answer is ``NotFound``.
"""

from __future__ import annotations

from gridmux.errors import InvalidArgument, NotFound, TmuxFailure

from ._formats import STATE_FORMAT, FormatError, parse_state
from ._runner import Command, decode, split_lines
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


def capture_command(pane_id: str, start: RowBound, end: RowBound, join_wrapped: bool) -> Command:
    command = ["capture-pane", "-p", "-t", pane_id]
    if join_wrapped:
        command.append("-J")
    if start is not None:
        command += ["-S", bound_argument(start)]
    if end is not None:
        command += ["-E", bound_argument(end)]
    return command


def parse_state_line(what: str, pane_id: str, line: bytes) -> PaneState:
    """The state from a ``STATE_FORMAT`` line, or NotFound when the pane is gone."""
    try:
        state = parse_state(line)
    except FormatError as exc:
        raise TmuxFailure(f"cannot {what}: unexpected pane state {line!r} ({exc})") from exc
    if state is None:
        raise NotFound(f"cannot {what}: pane {pane_id} does not exist")
    return state


def parse_snapshot(
    what: str,
    pane_id: str,
    stdout: bytes,
    start: RowBound,
    end: RowBound,
    join_wrapped: bool,
) -> PaneSnapshot:
    """A snapshot from the output of ``state_command ; capture_command``.

    Without ``join_wrapped`` exactly ``bottom - top + 1`` rows come back: one
    line per grid row, blank rows as ``""``. tmux prints them all, ending in
    one newline; should a version ever drop trailing blank rows they are put
    back, and more rows than the range holds is an error, never trimmed.
    """
    state_line, _, captured = stdout.partition(b"\n")
    state = parse_state_line(what, pane_id, state_line)
    top, bottom = resolve_row_range(state.history_size, state.height, start, end)
    rows = split_lines(decode(captured))
    if not join_wrapped:
        expected = bottom - top + 1
        if len(rows) > expected:
            raise TmuxFailure(
                f"cannot {what}: tmux returned {len(rows)} rows for the {expected} rows "
                f"{top}..{bottom} (history {state.history_size}, height {state.height})"
            )
        rows += [""] * (expected - len(rows))
    return PaneSnapshot(state=state, top=top, rows=tuple(rows))
