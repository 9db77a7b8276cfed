"""docs/tmux-model.md §5, §6: history-limit collection, hsize above the limit after a
shrink, and the 3.7+ ``set history-limit`` semantics."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import TmuxVersion


def numbered(first: int, last: int) -> bytes:
    return b"".join(f"L{i}\r\n".encode() for i in range(first, last + 1))


def term(limit: int, version: str = "3.3a", width: int = 80, height: int = 10) -> Terminal:
    return Terminal(width, height, limit, TmuxVersion.parse(version))


@pytest.mark.parametrize(
    ("count", "hsize", "oldest"),
    [(109, 100, "L1"), (110, 91, "L11"), (111, 92, "L11"), (112, 93, "L11"), (120, 91, "L21")],
)
def test_collection_in_batches_of_ten_percent(count: int, hsize: int, oldest: str) -> None:
    t = term(100)
    t.feed(numbered(1, count))
    assert t.history_size == hsize
    assert t.capture("-", "-")[0] == oldest


def test_linefeed_that_collects_moves_the_anchor_by_one_minus_ny() -> None:
    t = term(100)
    t.feed(numbered(1, 109))
    anchor = t.history_size + t.cursor_y
    t.feed(b"L110\r\n")
    assert t.history_size + t.cursor_y == anchor + 1 - 10


def test_small_limit_collects_one_row_at_a_time() -> None:
    t = term(5)
    t.feed(numbered(1, 30))
    assert t.history_size == 5
    assert t.capture("-", -1) == ["L17", "L18", "L19", "L20", "L21"]


def test_zero_limit_keeps_no_history() -> None:
    t = term(0)
    t.feed(numbered(1, 30))
    assert t.history_size == 0
    assert t.capture("-")[0] == "L22"


def test_shrink_pushes_past_the_limit_then_each_line_nets_minus_one() -> None:
    t = term(20)
    t.feed(numbered(1, 28))
    assert t.history_size == 19
    t.resize(80, 3)
    assert t.history_size == 26
    seen = []
    for i in range(29, 33):
        t.feed(f"L{i}\r\n".encode())
        seen.append(t.history_size)
    assert seen == [25, 24, 23, 22]


@pytest.mark.parametrize("version", ["3.3a", "3.8"])
def test_shrink_past_a_limit_below_20_never_falls(version: str) -> None:
    t = term(5, version)
    t.feed(numbered(1, 30))
    assert t.history_size == 5
    t.resize(80, 3)
    assert t.history_size == 12
    seen = []
    for i in range(31, 35):
        t.feed(f"L{i}\r\n".encode())
        seen.append(t.history_size)
    assert seen == [12, 12, 12, 12]


# The §6 table: (step, (hsize, hlimit) on 3.2a..3.6b, (hsize, hlimit) on 3.7c/3.8).
TABLE = [
    ("set 100", (291, 1000), (100, 100)),
    ("+1 line", (292, 1000), (91, 100)),
    ("set 91", (292, 1000), (90, 91)),
    ("set 0", (292, 1000), (0, 0)),
    ("+5 lines", (297, 1000), (1, 0)),
    ("set 5000, +50 lines", (347, 1000), (51, 5000)),
]


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.4", "3.5a", "3.6b", "3.7c", "3.8"])
def test_set_history_limit_table(version: str) -> None:
    v = TmuxVersion.parse(version)
    t = Terminal(80, 10, 1000, v)
    t.feed(numbered(1, 300))
    assert (t.history_size, t.history_limit) == (291, 1000)
    line = 301

    def set_limit(limit: int) -> None:
        # The server only pushes the option into existing panes on 3.7+.
        if v.history_limit_applies_to_existing_panes:
            t.set_history_limit(limit)

    def more(n: int) -> None:
        nonlocal line
        t.feed(numbered(line, line + n - 1))
        line += n

    def set_5000_and_50_lines() -> None:
        set_limit(5000)
        more(50)

    steps: dict[str, Callable[[], None]] = {
        "set 100": lambda: set_limit(100),
        "+1 line": lambda: more(1),
        "set 91": lambda: set_limit(91),
        "set 0": lambda: set_limit(0),
        "+5 lines": lambda: more(5),
        "set 5000, +50 lines": set_5000_and_50_lines,
    }
    new = v.history_limit_applies_to_existing_panes
    for step, old_expected, new_expected in TABLE:
        steps[step]()
        assert (t.history_size, t.history_limit) == (new_expected if new else old_expected), step
        if step == "set 100":
            assert t.capture("-")[0] == ("L192" if new else "L1")
        if step == "+5 lines" and new:
            assert t.capture("-", -1) == ["L297"]


def test_set_limit_at_hsize_still_drops_one_row() -> None:
    t = term(1000, "3.7c")
    t.feed(numbered(1, 59))
    assert t.history_size == 50
    t.set_history_limit(50)
    assert (t.history_size, t.capture("-")[0]) == (49, "L2")


def test_raising_the_limit_only_changes_the_limit() -> None:
    t = term(1000, "3.7c")
    t.feed(numbered(1, 59))
    t.set_history_limit(5000)
    assert (t.history_size, t.history_limit) == (50, 5000)


def test_respawn_keeps_history_limit_and_hsize() -> None:
    t = term(1000, "3.6b")
    t.feed(numbered(1, 306))
    assert t.history_size == 297
    t.respawn_reset()
    assert (t.history_size, t.history_limit, t.cursor_y) == (297, 1000, 0)
    t.feed(numbered(1, 100))
    assert (t.history_size, t.history_limit) == (388, 1000)


def test_respawn_at_a_3_7_limit_keeps_collecting_in_batches() -> None:
    t = term(1000, "3.7c")
    t.feed(numbered(1, 59))
    t.set_history_limit(50)
    t.feed(b"L60\r\n")
    assert (t.history_size, t.history_limit) == (50, 50)
    t.respawn_reset()
    assert t.history_size == 50
    t.feed(numbered(1, 12))
    # Rows 0..8 fill without scrolling; the next three linefeeds collect 5
    # then add one, add one, add one.
    assert t.history_size == 48


def test_collection_clamps_hscrolled() -> None:
    t = term(10)
    t.feed(numbered(1, 19))
    assert (t.history_size, t.hscrolled) == (10, 10)
    t.feed(b"L20\r\n")
    assert (t.history_size, t.hscrolled) == (10, 10)
    t.set_history_limit(4)
    assert (t.history_size, t.hscrolled) == (4, 4)
