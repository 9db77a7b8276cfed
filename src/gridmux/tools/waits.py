"""Waiting tools: wait_for_text, wait_for_content_change.

Both poll: a backend read in a worker thread, then an ``anyio`` sleep of
``interval`` on the event loop, so a wait never blocks other calls. Each
enforces its own deadline and ends it with a structured result
(``timed_out``), never a protocol error, and reports progress to clients
that asked for it.

wait_for_text reads as capture_since does (``_reader.PaneReader``, the
bounded follow-up with each reading's ledger): each poll returns
exactly the rows written or rewritten since the previous one, so text that
was on the pane before the call never matches, text that scrolled past the
screen between two polls still does, and a repeated line (a second prompt)
counts as new. When a delta cannot be proven (a young cursor, trimmed or
cleared rows), the screen is compared with what the wait has already seen
and only the rows after the longest overlap count as new.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Sequence
from typing import Annotated, TypeVar

import anyio
from fastmcp import Context
from pydantic import Field

from gridmux.backend import PaneSnapshot, PaneState
from gridmux.capture import Reading, limit_tail
from gridmux.errors import InvalidArgument, PaneDead, PaneRespawned
from gridmux.safety import tool

from ._context import TOOL_CONTEXT, ToolContext, tool_error
from ._observe_models import ContentChangeResult, WaitForTextResult, WaitOutcome
from ._params import PaneId, SessionId, SessionName, SocketName, SocketPath, WindowId
from ._reader import PaneReader
from ._refusals import guarded
from ._text import TextPattern, compile_pattern
from ._waiting import Progress, Timeout

T = TypeVar("T")

#: At most this many lines, and bytes, in matched_lines and tail.
_REPORT_LINES, _REPORT_BYTES = 20, 2000
#: Lines of what a wait has seen kept for re-synchronising after a lost delta.
_SEEN_LINES = 1000

Interval = Annotated[
    float, Field(ge=0.01, le=60, description="Seconds between two reads of the pane.")
]


def compile_all(
    patterns: Sequence[str] | None, *, regex: bool, match_case: bool, what: str
) -> list[TextPattern]:
    try:
        return [
            compile_pattern(p, regex=regex, match_case=match_case, what=f"{what}[{i}]")
            for i, p in enumerate(patterns or ())
        ]
    except InvalidArgument as exc:
        raise tool_error(exc) from exc


def unseen(seen: Sequence[str], screen: Sequence[str]) -> list[str]:
    """The rows of ``screen`` after its longest prefix that ends ``seen``."""
    for k in range(min(len(seen), len(screen)), 0, -1):
        if list(seen[len(seen) - k :]) == list(screen[:k]):
            return list(screen[k:])
    return list(screen)


class _Transcript:
    """What a wait has seen, to tell new rows from old ones."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = list(lines)[-_SEEN_LINES:]

    def new_rows(self, reading: Reading) -> list[str]:
        if reading.lines_missed:
            new = unseen(self.lines, reading.lines)
            self.lines = list(reading.lines)[-_SEEN_LINES:]
            return new
        lines = list(reading.lines)
        if reading.first_line_rewritten and self.lines:
            self.lines.pop()
        self.lines = (self.lines + lines)[-_SEEN_LINES:]
        return lines


def _first_hit(
    patterns: Sequence[TextPattern], lines: Sequence[str]
) -> tuple[int, list[str]] | None:
    """The earliest line matching any pattern: (that pattern's index, its matching lines)."""
    for line in lines:
        for index, pattern in enumerate(patterns):
            if pattern.search(line):
                return index, [text for text in lines if pattern.search(text)]
    return None


def _capped(lines: Sequence[str]) -> list[str]:
    return list(limit_tail(tuple(lines), _REPORT_LINES, _REPORT_BYTES).lines)


@tool("Wait for Text")
async def wait_for_text(
    patterns: Annotated[
        list[Annotated[str, Field(min_length=1)]] | None,
        Field(
            min_length=1,
            description="Wait until new output matches one of these; null: any new output.",
        ),
    ] = None,
    stop: Annotated[
        list[Annotated[str, Field(min_length=1)]] | None,
        Field(
            min_length=1,
            description="End the wait early (outcome 'stopped') when one of these matches.",
        ),
    ] = None,
    regex: Annotated[
        bool,
        Field(
            description=(
                "Treat patterns and stop as regular expressions (RE2: Python syntax "
                "without backreferences or lookaround)."
            )
        ),
    ] = False,
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    timeout: Timeout = 8.0,
    interval: Interval = 0.05,
    match_case: Annotated[
        bool, Field(description="Match case exactly (default: ignore case).")
    ] = False,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    context: Context,
    ctx: ToolContext = TOOL_CONTEXT,
) -> WaitForTextResult:
    """Wait until a pane prints new text matching patterns (literal and case-insensitive unless
    regex or match_case), or any new output; a timeout is a result, not an error. For a command
    you run yourself, prefer run_command.

    Use for output you did not author: a server saying it is ready, a
    build finishing, a prompt coming back. Only output written after the
    call starts counts; matched_at_entry says a pattern was already on
    the screen. Patterns are literal text (regex=true for regular
    expressions), case-insensitive unless match_case, and match one line
    at a time. stop patterns end the wait early with outcome 'stopped'
    (e.g. 'error'). A timeout is a result (timed_out=true, outcome
    'timeout'), not an error. For a command you run yourself, prefer
    run_command: it reports completion and the exit status exactly.
    """
    started = time.monotonic()
    server = ctx.server(socket_name, socket_path)
    success = compile_all(patterns, regex=regex, match_case=match_case, what="patterns")
    stops = compile_all(stop, regex=regex, match_case=match_case, what="stop")

    reader = PaneReader(ctx, server)

    def begin() -> tuple[str, Reading]:
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        return pane.pane_id, reader.first(pane.pane_id)

    target, entry = await ctx.call(guarded(begin))
    at_entry = _first_hit(success, entry.lines) is not None
    progress = Progress(context, started, timeout, f"waiting for text in pane {target}")
    await progress.report(force=True)
    transcript = _Transcript(entry.lines)
    last: Reading = entry
    seen: list[str] = []
    alternate_now = alternate_seen = entry.alternate_on
    outcome: WaitOutcome | None = None
    hit: tuple[int, list[str]] | None = None
    matched_lines: list[str] = []
    deadline = started + timeout

    while outcome is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            outcome = "alternate_screen" if alternate_now else "timeout"
            break
        await anyio.sleep(min(interval, remaining))
        # A bounded follow-up of the last reading, with its ledger.
        reading = await ctx.call(functools.partial(reader.follow, last.cursor, last.ledger))
        last = reading
        alternate_now = reading.alternate_on
        if alternate_now:
            alternate_seen = True
        else:
            new = transcript.new_rows(reading)
            seen.extend(new)
            if (hit := _first_hit(stops, new)) is not None:
                outcome, matched_lines = "stopped", hit[1]
            elif success and (hit := _first_hit(success, new)) is not None:
                outcome, matched_lines = "matched", hit[1]
            elif not success and new:
                outcome, matched_lines = "any_output", new
        await progress.report()

    found = outcome in ("matched", "any_output")
    index = hit[0] if hit is not None else None
    pattern_list = stop if outcome == "stopped" else patterns
    return WaitForTextResult(
        found=found,
        outcome=outcome,
        timed_out=outcome in ("timeout", "alternate_screen"),
        matched_index=index,
        matched_pattern=(pattern_list[index] if pattern_list and index is not None else None),
        matched_lines=_capped(matched_lines),
        tail=_capped(seen),
        saw_new_output=bool(seen),
        matched_at_entry=at_entry and not found,
        alternate_screen=alternate_seen,
        pane_id=target,
        elapsed_seconds=round(time.monotonic() - started, 3),
        effective_timeout=timeout,
    )


@tool("Wait for Content Change")
async def wait_for_content_change(
    pane_id: PaneId = None,
    session_name: SessionName = None,
    session_id: SessionId = None,
    window_id: WindowId = None,
    timeout: Timeout = 8.0,
    interval: Interval = 0.05,
    socket_name: SocketName = None,
    socket_path: SocketPath = None,
    *,
    context: Context,
    ctx: ToolContext = TOOL_CONTEXT,
) -> ContentChangeResult:
    """Wait until anything on a pane's screen changes; a timeout is a result. Use after input when
    you do not know what the answer looks like; wait_for_text for a known pattern.

    Use after sending input when you do not know what the answer will
    look like -- it waits for "something happened" (new text, a redraw,
    the cursor moving, a full-screen program starting) rather than a
    pattern. A timeout is a result (changed=false, timed_out=true). A
    pane that dies or is respawned during the wait is an error. For a
    known pattern use wait_for_text; for a command you run yourself,
    run_command.
    """
    started = time.monotonic()
    server = ctx.server(socket_name, socket_path)

    def begin() -> tuple[str, PaneSnapshot]:
        pane = ctx.resolve(server, pane_id, session_name, session_id, window_id)
        snap = ctx.backend.snapshot(server, pane.pane_id)
        _check_alive(snap.state, snap.state.pid)
        return pane.pane_id, snap

    target, entry = await ctx.call(begin)
    progress = Progress(context, started, timeout, f"waiting for pane {target} to change")
    await progress.report(force=True)
    baseline = _screen_key(entry)
    deadline = started + timeout
    changed = False

    def poll() -> PaneSnapshot:
        snap = ctx.backend.snapshot(server, target)
        _check_alive(snap.state, entry.state.pid)
        return snap

    while not changed:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        await anyio.sleep(min(interval, remaining))
        changed = _screen_key(await ctx.call(poll)) != baseline
        await progress.report()
    return ContentChangeResult(
        changed=changed,
        pane_id=target,
        elapsed_seconds=round(time.monotonic() - started, 3),
        timed_out=not changed,
    )


#: This module's tools, in the order clients list them.
TOOLS = (
    wait_for_text,
    wait_for_content_change,
)


def _check_alive(state: PaneState, pid: int | None) -> None:
    if state.dead:
        raise PaneDead(f"the program in pane {state.pane_id} has exited; its screen cannot change")
    if state.pid != pid:
        raise PaneRespawned(
            f"pane {state.pane_id} was respawned during the wait (pid {pid}, now {state.pid})",
            hint="Call wait_for_content_change again to wait on the new process.",
        )


def _screen_key(snap: PaneSnapshot) -> tuple[object, ...]:
    state = snap.state
    return (
        snap.rows,
        state.cursor_x,
        state.cursor_y,
        state.history_size,
        state.alternate_on,
        state.width,
        state.height,
    )


__all__ = ["TOOLS", "wait_for_content_change", "wait_for_text"]
