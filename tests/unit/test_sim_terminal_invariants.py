"""Seeded random operation scripts: whatever the bytes and commands, the
terminal's observable state stays self-consistent."""

from __future__ import annotations

import random

import pytest

from tmuxsim._terminal import Terminal
from tmuxsim._versions import KNOWN_VERSIONS, TmuxVersion

PIECES = [
    b"a",
    b"bcdefghijklmnop",
    b"\r\n",
    b"\n",
    b"\r",
    b"\t",
    b"\x08",
    "中".encode(),
    "e\u0301".encode(),
    b"\x1b[2J",
    b"\x1b[H",
    b"\x1b[J",
    b"\x1b[1J",
    b"\x1b[K",
    b"\x1b[1K",
    b"\x1b[2K",
    b"\x1b[3J",
    b"\x1bc",
    b"\x1b[?1049h",
    b"\x1b[?1049l",
    b"\x1b[?47h",
    b"\x1b[?47l",
    b"\x1b[2;4r",
    b"\x1b[r",
    b"\x1bM",
    b"\x1bD",
    b"\x1b[3L",
    b"\x1b[2M",
    b"\x1b[5@",
    b"\x1b[3P",
    b"\x1b[4X",
    b"\x1b[2S",
    b"\x1b[2T",
    b"\x1b[5;7H",
    b"\x1b7",
    b"\x1b8",
    b"\x1b[?7l",
    b"\x1b[?7h",
    b"\x1b[4h",
    b"\x1b[4l",
    b"\x1b[3b",
    b"\xff",
]


def check(t: Terminal) -> None:
    serials = t.line_serials()
    assert len(serials) == t.history_size + t.height
    assert len(set(serials)) == len(serials)
    assert 0 <= t.cursor_y < t.height
    assert 0 <= t.hscrolled <= t.history_size
    upper, lower = t.scroll_region
    assert 0 <= upper < t.height
    assert upper <= lower < t.height
    rows = t.capture("-")
    assert len(rows) == len(serials)
    joined = t.capture("-", join=True)
    wrapped = sum(t.row_wrapped(a) for a in range(len(serials) - 1))
    assert len(joined) == len(rows) - wrapped
    assert not any(row.endswith(" ") for row in rows)


@pytest.mark.parametrize("seed", range(12))
def test_random_scripts_keep_the_grid_consistent(seed: int) -> None:
    rng = random.Random(seed)
    version = TmuxVersion.parse(KNOWN_VERSIONS[seed % len(KNOWN_VERSIONS)])
    t = Terminal(rng.randint(1, 12), rng.randint(1, 6), rng.choice([0, 1, 3, 10, 100]), version)
    for _ in range(80):
        roll = rng.random()
        if roll < 0.08:
            t.resize(rng.randint(1, 14), rng.randint(1, 8))
        elif roll < 0.10:
            t.respawn_reset()
        elif roll < 0.11:
            t.write_dead_message("Pane is dead (status 3)")
        elif roll < 0.12:
            t.clear_history()
        elif roll < 0.13 and version.history_limit_applies_to_existing_panes:
            t.set_history_limit(rng.choice([0, 1, 5, 50]))
        else:
            t.feed(rng.choice(PIECES))
        check(t)
