"""Classify capture_since reads of a numbered-line pane (pure; no tmux, no MCP).

The pane prints ``L0000001``, ``L0000002``, ... and nothing else, so the
numbers themselves say what a reader got. The reader's side is tracked like
an agent's transcript: the highest number it holds (``last``) and what its
last line is (a complete number, or a half-printed cursor row).

The contract both servers claim: a read that does not report a loss returns
exactly the rows printed since the previous read, in order, once each.

* A half-printed line (a prefix of ``L0000123``) may end a read: that is the
  cursor row. It is not counted; the whole line must arrive in a later read
  (gridmux sends it again with ``first_line_rewritten``; the predecessor
  sends the changed anchor row again, without a flag).
* With ``first_line_rewritten`` the first line replaces the reader's last
  line, so a complete last line N may legitimately come again.
* Blank rows carry no number and are ignored.
* ``printed``: when the harness knows tmux has parsed every line up to N
  before the read started (it waited for the screen to show it), the read
  must reach N; when it does not know (a pane streaming during the read),
  rows not yet returned simply come in a later read.

Verdicts:

* ``exact``: no loss reported and the numbers are exactly the next ones;
* ``missed_gone``: a loss was reported and at least one missing row is no
  longer held by tmux (``retained``: numbers tmux still held right after the
  read, from a full ``capture-pane -S -``; rows never come back, so held
  after means held during);
* ``missed_retained``: a loss was reported although every missing row (maybe
  none) was still held: a needless loss;
* ``silent``: no loss reported, yet rows are missing, duplicated, out of
  order, or garbled.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum

NUMBER = re.compile(r"L(\d{7})")
PARTIAL = re.compile(r"L\d{0,6}")


class Verdict(str, Enum):
    EXACT = "exact"
    MISSED_GONE = "missed_gone"
    MISSED_RETAINED = "missed_retained"
    SILENT = "silent"


@dataclass(frozen=True)
class ReaderState:
    """What a reader holds: the highest number, and its last line's number (None: partial)."""

    last: int = 0
    last_line: int | None = None


@dataclass(frozen=True)
class Read:
    lines: Sequence[str]
    lines_missed: bool
    first_line_rewritten: bool = False


@dataclass(frozen=True)
class Outcome:
    verdict: Verdict
    new_rows: int = 0
    missing: int = 0  # rows never delivered (for a reported loss: gone + retained)
    gone: int = 0  # of those, rows tmux no longer held
    duplicates: int = 0
    garbled: int = 0
    disordered: bool = False


@dataclass(frozen=True)
class Parsed:
    numbers: list[int]
    garbled: int
    ends_partial: bool


def parse(lines: Sequence[str]) -> Parsed:
    """Numbers in order; lines that are neither numbers, blanks nor a final partial line."""
    content = [line.rstrip() for line in lines]
    while content and not content[-1]:
        content.pop()
    numbers: list[int] = []
    garbled = 0
    for index, line in enumerate(content):
        match = NUMBER.fullmatch(line)
        if match:
            numbers.append(int(match.group(1)))
        elif line and not (index == len(content) - 1 and PARTIAL.fullmatch(line)):
            garbled += 1
    ends_partial = bool(content) and NUMBER.fullmatch(content[-1]) is None
    return Parsed(numbers, garbled, ends_partial)


def _after(state: ReaderState, parsed: Parsed, last: int) -> ReaderState:
    if parsed.ends_partial:
        return ReaderState(last, None)
    if parsed.numbers:
        return ReaderState(last, parsed.numbers[-1])
    return ReaderState(last, state.last_line)


def classify(
    state: ReaderState,
    read: Read,
    *,
    printed: int | None = None,
    retained: Collection[int] | None = None,
) -> tuple[Outcome, ReaderState]:
    """The verdict on one follow-up read, and the reader's state after it."""
    parsed = parse(read.lines)
    numbers = parsed.numbers
    got = set(numbers)
    reach = max([*numbers, printed or 0])
    if read.lines_missed:
        missing = [n for n in range(state.last + 1, reach + 1) if n not in got]
        held = set(retained) if retained is not None else set()
        gone = sum(1 for n in missing if n not in held)
        verdict = Verdict.MISSED_GONE if gone else Verdict.MISSED_RETAINED
        fresh = sum(1 for n in got if n > state.last)
        outcome = Outcome(verdict, fresh, len(missing), gone)
        return outcome, _after(state, parsed, max(state.last, reach))
    base = state.last
    if read.first_line_rewritten and state.last_line is not None:
        base = state.last_line - 1  # lines[0] replaces the complete line last_line
    expected = list(range(base + 1, base + 1 + len(numbers)))
    short = printed is not None and base + len(numbers) < printed
    if numbers == expected and not parsed.garbled and not short:
        return Outcome(Verdict.EXACT, len(numbers)), _after(state, parsed, max(base, reach))
    seen: set[int] = set()
    firsts: list[int] = []
    duplicates = 0
    for n in numbers:
        if n <= base or n in seen:
            duplicates += 1
        else:
            firsts.append(n)
        seen.add(n)
    missing = [n for n in range(base + 1, reach + 1) if n not in got]
    disordered = firsts != sorted(firsts)
    outcome = Outcome(
        Verdict.SILENT,
        len(firsts),
        len(missing),
        duplicates=duplicates,
        garbled=parsed.garbled,
        disordered=disordered,
    )
    return outcome, _after(state, parsed, max(state.last, reach))


def start_state(first_read_lines: Sequence[str]) -> ReaderState:
    """The state after a cursor-less read (the visible screen): nothing to judge yet."""
    parsed = parse(first_read_lines)
    return _after(ReaderState(), parsed, max(parsed.numbers, default=0))


@dataclass
class Tally:
    """Counts over the reads of one workload by one server."""

    reads: int = 0
    exact: int = 0
    missed_gone: int = 0
    missed_retained: int = 0
    silent: int = 0
    rows_delivered: int = 0
    rows_gone: int = 0  # reported losses of rows tmux no longer held
    rows_needlessly_missed: int = 0  # reported losses of rows tmux still held
    rows_lost_silently: int = 0
    duplicates: int = 0
    garbled: int = 0
    errors: int = 0
    notes: list[str] = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        self.reads += 1
        self.rows_delivered += outcome.new_rows
        if outcome.verdict is Verdict.EXACT:
            self.exact += 1
        elif outcome.verdict is Verdict.MISSED_GONE:
            self.missed_gone += 1
            self.rows_gone += outcome.gone
            self.rows_needlessly_missed += outcome.missing - outcome.gone
        elif outcome.verdict is Verdict.MISSED_RETAINED:
            self.missed_retained += 1
            self.rows_needlessly_missed += outcome.missing
        else:
            self.silent += 1
            self.rows_lost_silently += outcome.missing
            self.duplicates += outcome.duplicates
            self.garbled += outcome.garbled

    @property
    def lines_missed(self) -> int:
        return self.missed_gone + self.missed_retained

    def as_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}
