"""The classes of issue 13 on the simulator, read as the capture_since tool
reads (``bench.since_classes.Checker``: bounded reads with ledgers, else the
full read), every line uniquely numbered: no silent loss, and no needless
miss -- a ``lines_missed`` while the pane still held the first line not yet
delivered -- but those of a shallow cursor, one without a row above its
window (docs/capture-since.md, "When a miss can still happen").

``tests/integration/test_capture_classes_tmux.py`` runs the same classes on
real tmux.
"""

from __future__ import annotations

from bench.since_classes import STATUS, Checker, Tally, burst_to, line
from hypothesis import given
from hypothesis import strategies as st

from gridmux.capture import MIN_EVIDENCE
from tests.unit.test_capture_bounded import REF, Pane


class SimPane(Pane):
    def __init__(self, version: str, *, limit: int, height: int) -> None:
        super().__init__(limit=limit, height=height, version=version)
        self.checker = Checker(self.backend, REF, self.pane_id)
        self.next = 0

    def numbered(self, count: int, *, before: str = "") -> None:
        self.write(before + "".join(f"{line(self.next + i)}\n" for i in range(count)))
        self.next += count


def clean(tally: Tally) -> None:
    """No silent loss (nor a repeat outside ``may_repeat``), no needless miss
    but a shallow cursor's, and those return every held row."""
    assert tally.silent == 0, tally.notes
    assert tally.needless == tally.shallow, tally.notes
    assert tally.left_out == 0, tally.notes


@given(
    version=st.sampled_from(["3.3a", "3.8"]),
    height=st.integers(3, 24),
    script=st.lists(st.integers(0, 4), min_size=1, max_size=12),
)
def test_a_young_cursor_misses_only_while_it_is_young(
    version: str, height: int, script: list[int]
) -> None:
    """A fresh pane, read at once and after every few lines: a miss is owed
    only to a cursor with fewer than MIN_EVIDENCE rows above it, and it says
    which lines may repeat: every numbered line it had delivered, which the
    simulator's rows show, and no other."""
    pane = SimPane(version, limit=2000, height=height)
    tally = Tally()
    pane.checker.read(tally)
    for count in script:
        pane.numbered(count)
        cursor = pane.checker.cursor
        assert cursor is not None
        young = len(cursor.window) < MIN_EVIDENCE
        before, delivered = tally.needless, pane.checker.last
        reading = pane.checker.read(tally)
        assert young or tally.needless == before
        if reading.lines_missed:
            # every row the pane holds, from its first
            assert list(reading.lines) == pane.above_anchor()[: len(reading.lines)]
            assert pane.next - 1 == pane.checker.last  # no numbered line left out
            # the cursor had seen its anchor's rows: exactly those may repeat
            assert reading.may_repeat == min(cursor.anchor + cursor.shown, len(reading.lines))
            assert (delivered + 1, cursor.shown) == (cursor.anchor, False)
    clean(tally)


@given(
    version=st.sampled_from(["3.2a", "3.3a", "3.8"]),
    limit=st.sampled_from([40, 150, 300]),
    data=st.data(),
)
def test_bursts_that_trim_to_a_few_rows_above_the_last_read_are_exact(
    version: str, limit: int, data: st.DataObject
) -> None:
    """Bursts that leave 0-16 rows above the last row read, the row itself
    held: the ledger places every follow-up, the rows alone could not. (A
    longer history, read bounded first: ``tests/unit/test_capture_shallow.py``.)"""
    pane = SimPane(version, limit=limit, height=24)
    tally, setup = Tally(), Tally()
    pane.numbered(limit + 30)
    pane.checker.read(setup)
    batch = max(1, limit // 10)
    for above in data.draw(st.lists(st.integers(0, 16), min_size=1, max_size=6)):
        cursor = pane.checker.cursor
        assert cursor is not None
        if pad := (above + 1 - cursor.anchor) % batch:
            pane.numbered(pad)
            pane.checker.read(setup)
            cursor = pane.checker.cursor
            assert cursor is not None
        pane.numbered(burst_to(cursor.history_size, limit, cursor.anchor - 1 - above))
        assert pane.history().index(line(pane.checker.last)) == above  # the simulator's truth
        pane.checker.read(tally)
    clean(setup)
    clean(tally)
    assert tally.exact == tally.reads


@given(
    version=st.sampled_from(["3.3a", "3.8"]),
    limit=st.sampled_from([40, 100, 200]),
    height=st.integers(10, 30),
    data=st.data(),
)
def test_bursts_at_the_limit_onto_a_recurring_status_row(
    version: str, limit: int, height: int, data: st.DataObject
) -> None:
    """Bursts of numbered lines, each followed by ``status: ok`` without a
    newline, at the history limit: the cursor rests on a row whose text
    recurs every round. While the window and a row above it survive the
    trims (bursts up to the rows a trimmed grid keeps, less 20), every
    follow-up is exact."""
    largest = limit - limit // 10 + height - 20
    bursts = data.draw(st.lists(st.integers(1, largest), min_size=1, max_size=8))
    pane = SimPane(version, limit=limit, height=height)
    tally = Tally()
    pane.numbered(1)
    pane.write(STATUS)
    pane.checker.read(tally)
    for size in bursts:
        cursor = pane.checker.cursor
        deep = cursor is not None and bool(cursor.sentinels)
        exact = tally.exact
        pane.numbered(size, before="\n")
        pane.write(STATUS)
        pane.checker.read(tally)
        # A cursor with a row above its window (17 rows above it) is placed exactly.
        assert not deep or tally.exact == exact + 1
    clean(tally)
