"""The output watch on the simulator, against its ground truth: whenever it
vouches that a pane only appended between two marks, no row the first mark's
cursor saw moved or was replaced, and no row made since was lost.

The simulator gives every grid row a serial (``Terminal.line_serials``): a
row keeps it when it moves or is rewritten in place, and a new row gets a
new one. Between the marks the pane gets random writes -- plain text, line
feeds, carriage returns, tabs, backspaces, colours, erase in line, titles,
and the sequences that do move or clear rows -- and the commands that change
a pane without a byte (clear-history, reset, resize, a lowered limit).
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridmux.backend import PaneSnapshot, only_appended
from tests.unit.test_capture_bounded import REF, Pane

PLAIN = st.sampled_from(
    [
        b"word",
        b"a much longer run of text that may reach the last column of a narrow pane",
        b"\r\n",
        b"\n",
        b"\r",
        b"\t",
        b"\x08",
        b"\x1b[31m",
        b"\x1b[0m",
        b"\x1b[K",
        b"\x1b]0;title\x07",
        b"\x1b[?2004h",
        b"\xc3\xa9",
        b"\xe4\xb8\xad",
    ]
)
MOVING = st.sampled_from(
    [
        b"\x1b[H",
        b"\x1b[2J",
        b"\x1b[3J",
        b"\x1b[A",
        b"\x1b[5;1H",
        b"\x1bM",
        b"\x1bc",
        b"\x1b[2;5r",
        b"\x1b[?1049h",
        b"\x1b[?1049l",
        b"\x1b[L",
        b"\x1b[",  # split: the rest comes with the next write
    ]
)
COMMANDS = st.sampled_from(["clear-history", "reset", "taller", "shorter", "limit"])
STEP = st.one_of(
    PLAIN.map(lambda data: ("write", data)),
    MOVING.map(lambda data: ("write", data)),
    COMMANDS.map(lambda name: ("command", name)),
)


def run(pane: Pane, step: tuple[str, object]) -> None:
    kind, what = step
    terminal = pane.backend.server(REF).pane(pane.pane_id).terminal
    if kind == "write":
        assert isinstance(what, bytes)
        pane.backend.server(REF).pane(pane.pane_id).write_raw(what)
    elif what == "clear-history":
        pane.backend.clear_history(REF, pane.pane_id)
    elif what == "reset":
        terminal.reset()
    elif what == "taller":
        terminal.resize(terminal.width, terminal.height + 1)
    elif what == "shorter":
        terminal.resize(terminal.width, max(2, terminal.height - 1))
    else:
        terminal.set_history_limit(max(1, terminal.history_size - 1))


def marked(pane: Pane) -> PaneSnapshot:
    return pane.backend.snapshot(REF, pane.pane_id, start="-", watch=True)


def bytes_alone(pane: Pane, first: PaneSnapshot, last: PaneSnapshot) -> bool:
    """What the watch on real tmux decides: it hears the bytes, not the
    commands, so it has only the bytes and the two states (and the scroll
    region) to go by."""
    terminal = pane.backend.server(REF).pane(pane.pane_id).terminal
    a, b = first.mark, last.mark
    assert a is not None and b is not None
    data = terminal.fed_between(a.fed, b.fed)  # type: ignore[attr-defined]
    return (
        data is not None
        and a.at_rest  # type: ignore[attr-defined]
        and b.at_rest  # type: ignore[attr-defined]
        and only_appended(first.state, last.state, data, a.region, b.region)  # type: ignore[attr-defined]
    )


@given(
    judge=st.sampled_from(["simulator", "bytes alone"]),
    width=st.integers(8, 40),
    height=st.integers(3, 8),
    limit=st.sampled_from([5, 30, 2000]),
    before=st.lists(PLAIN, max_size=12),
    steps=st.lists(STEP, max_size=12),
)
def test_what_the_watch_vouches_for_only_appended(
    judge: str,
    width: int,
    height: int,
    limit: int,
    before: list[bytes],
    steps: list[tuple[str, object]],
) -> None:
    pane = Pane(limit=limit, height=height)
    terminal = pane.backend.server(REF).pane(pane.pane_id).terminal
    terminal.resize(width, height)
    for data in before:
        run(pane, ("write", data))
    first = marked(pane)
    anchor = first.state.anchor
    seen = terminal.line_serials()
    made: set[int] = set()  # rows made since the first mark that held text
    for step in steps:
        run(pane, step)
        rows = terminal.capture("-", None)
        made |= {
            serial
            for serial, text in zip(terminal.line_serials(), rows, strict=True)
            if serial not in seen and text
        }
    last = marked(pane)
    if judge == "simulator":
        vouched = pane.backend.vouches(REF, first.mark, last.mark)
    else:
        vouched = bytes_alone(pane, first, last)
    if not vouched:
        return
    now = terminal.line_serials()
    # Every row above the anchor is where it was, unchanged. The anchor row
    # itself -- the cursor row -- may be rewritten, even replaced (a reset
    # and clear-history after a carriage return leave a blank row there):
    # the delta delivers it again, as ``first_line_rewritten``.
    assert now[:anchor] == seen[:anchor]
    assert last.rows[:anchor] == first.rows[:anchor]
    # No row made since that held text was lost.
    assert made <= set(now)


def test_plain_output_is_vouched_for_and_a_clear_is_not() -> None:
    pane = Pane(limit=2000, height=5)
    pane.write("$ ")
    first = marked(pane)
    pane.write("ls\nfile\n$ ")
    plain = marked(pane)
    assert pane.backend.vouches(REF, first.mark, plain.mark)
    pane.write("\x1b[H\x1b[J\x1b[3J$ ")
    cleared = marked(pane)
    assert not pane.backend.vouches(REF, plain.mark, cleared.mark)
    assert not pane.backend.vouches(REF, first.mark, cleared.mark)
    # A mark that is not the backend's own vouches for nothing.
    assert not pane.backend.vouches(REF, object(), cleared.mark)
