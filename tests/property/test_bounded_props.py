"""Bounded capture_since follow-ups against the simulator's truth: whatever
happens between reads -- bursts past ``history-limit``, repetitive rows,
output printed again, height changes, clear-history -- a reading that claims to be exact returns
exactly the lines written since the last one, by either path."""

from __future__ import annotations

from hypothesis import event, given, settings
from hypothesis import strategies as st

from gridmux.backend import PaneSnapshot, ServerRef
from gridmux.capture import (
    FIRST_PLAN,
    FOLLOW_PLAN,
    Cursor,
    Ledgers,
    Reading,
    ReadPlan,
    advance,
    advance_bounded,
    bounded_plan,
    first,
)
from gridmux.tools._reader import read_plan
from tmuxsim import SimBackend

REF = ServerRef()

events = st.lists(
    st.one_of(
        st.tuples(st.just("unique"), st.integers(1, 500)),
        st.tuples(st.just("repeat"), st.integers(1, 300)),
        # the newest unique lines printed again: the same command run twice
        st.tuples(st.just("replay"), st.integers(1, 2600)),
        st.tuples(st.just("height"), st.integers(4, 40)),
        st.tuples(st.just("clear"), st.just(0)),
        st.tuples(st.just("read"), st.just(0)),
    ),
    min_size=1,
    max_size=15,
)


# 200 examples in every profile: each one drives thousands of rows (CI time).
@settings(max_examples=200)
@given(st.sampled_from([1200, 2000]), st.integers(1300, 2600), events)
def test_every_exact_claim_is_the_truth(
    limit: int, start: int, script: list[tuple[str, int]]
) -> None:
    backend = SimBackend(version="3.8")
    backend.new_session(REF, name="boot", width=40, height=10, command="cat")
    backend.set_option(REF, "history-limit", str(limit), scope="session", global_=True)
    session = backend.new_session(REF, name="t", width=40, height=10, command="cat")
    pane_id = session.active_pane_id
    assert pane_id is not None
    window_id = next(p.window_id for p in backend.list_panes(REF) if p.pane_id == pane_id)
    pane = backend.server(REF).pane(pane_id)
    ledgers = Ledgers()
    counter = 0
    pending: list[str] = []
    written: list[str] = []  # every unique line, in order

    def write(lines: list[str]) -> None:
        pane.write("".join(f"{line}\n" for line in lines).encode())
        pending.extend(lines)

    def snap(plan: ReadPlan) -> PaneSnapshot:
        return read_plan(backend, REF, pane_id, plan)

    def follow(cursor: Cursor) -> Reading:
        ledger = ledgers.get(cursor.encode())
        if ledger is not None:
            bounded = snap(bounded_plan(cursor))
            found = None if bounded.top == 0 else advance_bounded(cursor, ledger, bounded)
            if found is not None:
                event("bounded read")
                return found
        return advance(cursor, snap(FOLLOW_PLAN), keep_ledger=True)

    def unique(count: int) -> list[str]:
        nonlocal counter
        made = [f"u{counter + i}" for i in range(count)]
        counter += count
        written.extend(made)
        return made

    write(unique(start))
    reading = first(snap(FIRST_PLAN), keep_ledger=True)
    pending.clear()
    ledgers.put(reading.cursor.encode(), reading.ledger)
    made = follow(reading.cursor)  # the full read that makes a ledger (history > REACH)
    ledgers.put(made.cursor.encode(), made.ledger)
    cursor = made.cursor
    anchor = pane.terminal.line_serials()[cursor.anchor]  # the last read row's identity
    for kind, size in [*script, ("read", 0)]:
        if kind == "unique":
            write(unique(size))
        elif kind == "repeat":
            write(["status: ok"] * size)
        elif kind == "replay":
            write(written[-size:])
        elif kind == "height":
            backend.resize_window(REF, window_id, height=size)
        elif kind == "clear":
            backend.clear_history(REF, pane_id)
        else:
            reading = follow(cursor)
            if not reading.lines_missed and list(reading.lines) != pending:
                # Only a replay of the rows above the anchor, after they were
                # trimmed away (the window cut, or the anchor gone), can pass
                # for them: the limit of bounded evidence (capture-since.md).
                serials = pane.terminal.line_serials()
                q = serials.index(anchor) if anchor in serials else None
                assert q is None or q <= len(cursor.window), "an exact claim is wrong"
                event("a replay after the rows above the anchor were trimmed")
            pending.clear()
            ledgers.put(reading.cursor.encode(), reading.ledger)
            cursor = reading.cursor
            anchor = pane.terminal.line_serials()[cursor.anchor]
