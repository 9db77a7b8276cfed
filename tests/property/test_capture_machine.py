"""The flagship property test: capture_since against the simulator's ground truth.

A ``RuleBasedStateMachine`` drives one simulated pane: unique and repetitive
lines, partial lines and cursor-row rewrites, bursts past the history limit,
clear-history, height and width resizes, history-limit changes and respawns,
and reads since the cursor in between.

The oracle is the simulator's row identity: every grid row carries a serial
that survives scrolling, trimming of OTHER rows and height resizes, and is
replaced when the row is created anew. So at each read the true delta is
known exactly: the rows after the previously read row (found by serial) up
to the cursor row, with the delivery rules of ``gridmux.capture``. Then:

* exact claims must equal the true delta (no silent loss, no repeats);
* when the anchor row is gone, the answer must say ``lines_missed``;
* in "unique" runs, while nothing but prints, rewrites, trims and height
  resizes happened and enough rows above the anchor survive -- or, at the
  limit, any row above it while the process holds the cursor's ledger
  (bursts that trim to within 0-16 rows above it) -- the answer must be
  exact (no needless loss);
* a shallow cursor's miss flags every row it had seen that comes again
  (``may_repeat``);
* dead, respawned, foreign cursors are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import event, note
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.capture import (
    FIRST_PLAN,
    MIN_EVIDENCE,
    SENTINEL_OFFSETS,
    Cursor,
    CursorRejected,
    Reading,
    ReadPlan,
    Refusal,
    RowMemory,
    first,
    follow,
    row_hash,
)
from gridmux.tools._reader import read_plan
from tmuxsim import SimBackend

VERSIONS = ("3.2a", "3.3a", "3.5a", "3.7c", "3.8")
REF = ServerRef()
REPEATED = st.sampled_from(["y", "ab", "", "$ ", "ok"])
MESSY = st.text(alphabet=st.sampled_from(list("abc xyz-") + ["中", "文", "\t", "é"]), max_size=70)


@dataclass(frozen=True)
class Seen:
    """What the previous read left behind, in ground-truth terms."""

    serial: int
    text: str
    shown: bool
    window: int
    #: whether the cursor had rows above its window (sentinels) to vouch for it
    sentinels: bool


class CaptureMachine(RuleBasedStateMachine):
    """Unique output: every delta must be exact unless the rows really went."""

    unique = True

    @initialize(
        version=st.sampled_from(VERSIONS),
        width=st.integers(20, 50),
        height=st.integers(3, 10),
        limit=st.sampled_from([1, 5, 10, 19, 20, 25, 40, 100]),
    )
    def setup(self, version: str, width: int, height: int, limit: int) -> None:
        self.backend = SimBackend(version=version)
        self.backend.new_session(REF, name="scratch")
        self.backend.set_option(REF, "history-limit", str(limit), scope="session", global_=True)
        session = self.backend.new_session(REF, name="t", width=width, height=height, command="cat")
        assert session.active_pane_id is not None
        self.pane_id = session.active_pane_id
        self.version = version
        self.counter = 0
        self.cursor: Cursor | None = None
        self.previous: tuple[tuple[str, ...], int, int] | None = None
        self.seen: Seen | None = None
        self.disturbed = False
        self.rewrapped = False
        self.respawned = False
        self.memory = RowMemory()
        #: the cursor's ledger, as the process keeps it (None: evicted, restarted)
        self.ledger: bytes | None = None
        #: serials of the rows up to the cursor's anchor: what its reader was given
        self.given: frozenset[int] = frozenset()

    # -- helpers ---------------------------------------------------------------
    @property
    def pane(self):  # type: ignore[no-untyped-def]
        return self.backend.server(REF).pane(self.pane_id)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def write(self, data: str) -> None:
        self.pane.write(data.encode("utf-8"))

    def width(self) -> int:
        return int(self.pane.terminal.width)

    # -- output ------------------------------------------------------------------
    @rule(n=st.integers(1, 6))
    def print_unique(self, n: int) -> None:
        self.write("".join(self.fresh("u") + "\n" for _ in range(n)))

    @rule(n=st.integers(1, 4))
    def burst(self, n: int) -> None:
        # Past the history limit: several trims of history-limit // 10 rows.
        lines = int(self.pane.terminal.history_limit) + n * 7
        self.write("".join(self.fresh("b") + "\n" for _ in range(lines)))

    @rule(above=st.integers(0, 16))
    def burst_to_few_rows(self, above: int) -> None:
        # Until trimming leaves at most ``above`` rows above the row read last.
        if self.seen is None:
            return
        for _ in range(4 * int(self.pane.terminal.history_limit) + 60):
            serials = self.pane.terminal.line_serials()
            if self.seen.serial not in serials or serials.index(self.seen.serial) <= above:
                return
            self.write(self.fresh("t") + "\n")

    @rule()
    def forget_ledger(self) -> None:
        # Evicted, or gridmux restarted: the cursor comes without its ledger.
        self.ledger = None

    @rule(text=st.integers(0, 3))
    def partial(self, text: int) -> None:
        self.write(self.fresh("p") + "." * text)

    @rule()
    def rewrite_cursor_row(self) -> None:
        self.write("\r\x1b[K" + self.fresh("r"))

    # -- disturbances ---------------------------------------------------------------
    @rule()
    def clear_history(self) -> None:
        self.backend.clear_history(REF, self.pane_id)
        self.disturbed = True

    @rule(height=st.integers(2, 12))
    def resize_height(self, height: int) -> None:
        window = self.backend.list_panes(REF, window_id=None, session_id=None)
        window_id = next(p.window_id for p in window if p.pane_id == self.pane_id)
        self.backend.resize_window(REF, window_id, height=height)

    @rule(width=st.integers(10, 60))
    def resize_width(self, width: int) -> None:
        panes = self.backend.list_panes(REF)
        window_id = next(p.window_id for p in panes if p.pane_id == self.pane_id)
        if width != self.width():
            self.disturbed = True
            self.rewrapped = True
        self.backend.resize_window(REF, window_id, width=width)

    @rule(limit=st.sampled_from([0, 3, 10, 30, 200]))
    def set_history_limit(self, limit: int) -> None:
        self.backend.set_option(REF, "history-limit", str(limit), scope="session", global_=True)
        self.disturbed = True

    @rule()
    def respawn(self) -> None:
        self.backend.respawn_pane(REF, self.pane_id, kill=True, command="cat")
        self.respawned = True

    @rule()
    def forget_row_texts(self) -> None:
        # As in a new server process: the core locates rows by hash alone.
        self.memory = RowMemory()

    # -- reading ------------------------------------------------------------------
    def snapshot(self, start: int | str) -> PaneSnapshot:
        return self.backend.snapshot(
            REF,
            self.pane_id,
            start=start,  # type: ignore[arg-type]
            untrimmed_start=FIRST_PLAN.untrimmed_start,
        )

    @rule()
    def read(self) -> None:
        if self.cursor is None:
            self.respawned = False
            snap = self.snapshot(FIRST_PLAN.start)
            reading = first(snap, memory=self.memory, keep_ledger=True)
            self.check_visible(reading, snap)
            self.remember(reading)
            return
        snap = self.snapshot("-")
        if self.respawned:
            with pytest.raises(CursorRejected) as refused:
                follow(self.cursor, self.ledger, self.read_plan, memory=self.memory)
            assert refused.value.reason is Refusal.RESPAWNED
            self.cursor = None
            self.respawned = False
            event("read: refused after respawn")
            return
        reading = follow(self.cursor, self.ledger, self.read_plan, memory=self.memory)
        self.check_delta(reading, snap)
        self.remember(reading)

    def read_plan(self, plan: ReadPlan) -> PaneSnapshot:
        return read_plan(self.backend, REF, self.pane_id, plan)

    def remember(self, reading: Reading) -> None:
        terminal = self.pane.terminal
        anchor = reading.cursor.anchor
        serials = terminal.line_serials()
        rows = terminal.capture("-", None)
        self.cursor = reading.cursor
        self.ledger = reading.ledger
        self.given = frozenset(serials[: anchor + reading.cursor.shown])
        self.previous = self.observed(self.snapshot("-"))
        self.seen = Seen(
            serials[anchor],
            rows[anchor],
            reading.cursor.shown,
            len(reading.cursor.window),
            bool(reading.cursor.sentinels),
        )
        self.disturbed = False
        self.rewrapped = False

    def indistinguishable(self, reading: Reading, snap: PaneSnapshot) -> bool:
        """The pane looks exactly as at the previous read: "nothing new" is the only answer.

        (E.g. a pane cleared and refilled with the very same rows.) No reader
        can tell such a pane from an untouched one.
        """
        return (
            self.previous == self.observed(snap)
            and not reading.lines_missed
            and reading.lines == ()
        )

    @staticmethod
    def observed(snap: PaneSnapshot) -> tuple[tuple[str, ...], int, int]:
        """What a reader can see of the transcript: rows to the cursor, cursor, history."""
        anchor = snap.state.anchor
        return tuple(snap.rows[: anchor + 1]), anchor, snap.state.history_size

    def replayed(self, snap: PaneSnapshot, q: int | None) -> bool:
        """New output repeats everything the cursor vouches with, while the true
        position's own evidence was trimmed away: no reader keeping that much
        evidence can tell the replay from the original (capture-since.md).

        The evidence: the window rows above the position and the sentinel rows
        still retained above it (at least one, unless the cursor had none).
        """
        cursor = self.cursor
        assert cursor is not None
        k = len(cursor.window)
        if q is not None and q > k:
            return False  # the truth still has its window and a row above it
        hashes = [row_hash(text) for text in snap.rows]
        for p in range(k, len(hashes)):
            if p == q or tuple(hashes[p - k : p]) != cursor.window:
                continue
            retained = [
                (p - k - offset, sentinel)
                for offset, sentinel in zip(SENTINEL_OFFSETS, cursor.sentinels, strict=False)
                if p - k - offset >= 0
            ]
            if all(hashes[row] == sentinel for row, sentinel in retained) and (
                retained or not cursor.sentinels
            ):
                return True
        return False

    def check_visible(
        self, reading: Reading, snap: PaneSnapshot, *, from_top: bool = False
    ) -> None:
        """A first read (or a miss) shows the screen -- the whole grid for a young cursor."""
        state = snap.state
        first = 0 if from_top else state.history_size - snap.top
        rows = list(snap.rows[first : state.history_size - snap.top + state.cursor_y + 1])
        if rows and rows[-1] == "":
            rows.pop()
        assert list(reading.lines) == rows

    def check_delta(self, reading: Reading, snap: PaneSnapshot) -> None:
        assert self.seen is not None
        state = snap.state
        serials = self.pane.terminal.line_serials()
        assert len(serials) == len(snap.rows)
        new_anchor = state.history_size + state.cursor_y
        q = serials.index(self.seen.serial) if self.seen.serial in serials else None
        # A cursor without rows above its window resynchronises from the top.
        young = not self.seen.sentinels
        if q is None or q > new_anchor:
            if self.indistinguishable(reading, snap):
                event("read: nothing observable changed")
                return
            if not reading.lines_missed and self.replayed(snap, q):
                event("read: a replay beyond the cursor's evidence")
                return
            assert reading.lines_missed, "claimed an exact delta although the last read row is gone"
            self.check_visible(reading, snap, from_top=young)
            self.check_repeats(reading, serials, young=young)
            event("read: missed (rows really gone)")
            return
        rows = snap.rows
        changed = rows[q] != self.seen.text
        rewrite = self.seen.shown and changed
        include = rewrite or (not self.seen.shown and (q < new_anchor or rows[q] != ""))
        start = q if include else q + 1
        expected: list[str] = [] if start > new_anchor else list(rows[start : new_anchor + 1])
        if expected and expected[-1] == "" and not (rewrite and q == new_anchor):
            expected.pop()
        if not reading.lines_missed:
            note(f"expected {expected!r}, got {list(reading.lines)!r}")
            if list(reading.lines) != expected and self.replayed(snap, q):
                event("read: a replay beyond the cursor's evidence")
                return
            assert list(reading.lines) == expected, "exact delta differs from the truth"
            assert reading.first_line_rewritten == (rewrite and bool(expected))
            event("read: exact" + (" after a width change" if self.rewrapped else ""))
            return
        self.check_visible(reading, snap, from_top=young)
        self.check_repeats(reading, serials, young=young)
        # Exact is owed while the window and the sentinel row above it survive,
        # and, while the history is too short to have been trimmed, as long as
        # MIN_EVIDENCE window rows do; where it may have been, as long as one
        # row above the anchor does and the ledger is held (capture-since.md).
        limit = state.history_limit
        untrimmed = state.history_size + state.height <= limit - max(1, limit // 10)
        owed = (
            (not young and q > self.seen.window)
            or (untrimmed and self.seen.window >= MIN_EVIDENCE and q >= MIN_EVIDENCE)
            or (self.ledger is not None and not untrimmed and q >= 1)
        )
        needless = self.unique and not self.disturbed and owed
        assert not needless, "lines_missed although the rows were retained and unambiguous"
        event("read: missed (ambiguous or disturbed)")

    def check_repeats(self, reading: Reading, serials: list[int], *, young: bool) -> None:
        """A shallow cursor's miss returns the grid from its top: every row in it
        that its reader was given (by row identity) is among the first
        ``may_repeat``; any other miss repeats nothing."""
        top = serials[: len(reading.lines)]
        given = [i for i, serial in enumerate(top) if serial in self.given]
        if young:
            assert all(i < reading.may_repeat for i in given), "a row came again, unflagged"
        else:
            assert reading.may_repeat == 0
        assert reading.may_repeat <= len(reading.lines)

    @invariant()
    def cursor_round_trips(self) -> None:
        if self.cursor is not None:
            assert Cursor.decode(self.cursor.encode()) == self.cursor


class RepetitiveCaptureMachine(CaptureMachine):
    """Repeated and messy output (wide characters, tabs, wrapping): ambiguity
    must be reported, never guessed."""

    unique = False

    @rule(line=REPEATED, n=st.integers(1, 30))
    def print_repeated(self, line: str, n: int) -> None:
        self.write((line + "\n") * n)

    @rule(line=MESSY, newline=st.booleans())
    def print_messy(self, line: str, newline: bool) -> None:
        self.write(line + ("\n" if newline else ""))


TestUniqueOutput = CaptureMachine.TestCase
TestRepetitiveOutput = RepetitiveCaptureMachine.TestCase
