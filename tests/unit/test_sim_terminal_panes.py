"""docs/tmux-model.md §12, §13: respawn (``screen_reinit``) and the remain-on-exit message."""

from __future__ import annotations

import pytest

from gridmux.backend import InvalidArgument
from tmuxsim._terminal import Terminal
from tmuxsim._versions import TmuxVersion

# remain-on-exit-format's default expansion for status 3 (24 + 24 + 1 chars).
DEAD = "Pane is dead (status 3, Sat Nov 22 04:58:00 2025)"


def numbered(first: int, last: int) -> bytes:
    return b"".join(f"L{i}\r\n".encode() for i in range(first, last + 1))


def respawned(version: str) -> Terminal:
    t = Terminal(40, 5, 2000, TmuxVersion.parse(version))
    t.feed(numbered(1, 8) + b"cur")
    assert (t.history_size, t.cursor_y, t.cursor_x) == (4, 4, 3)
    t.respawn_reset()
    return t


@pytest.mark.parametrize("version", ["3.2a", "3.3a", "3.8"])
def test_respawn_keeps_history_blanks_screen_and_homes(version: str) -> None:
    t = respawned(version)
    assert (t.history_size, t.cursor_y, t.cursor_x) == (4, 0, 0)
    assert t.capture("-", -1) == ["L1", "L2", "L3", "L4"]
    assert t.capture() == [""] * 5


@pytest.mark.parametrize("version", ["3.3a", "3.4", "3.7c", "3.8"])
def test_dead_message_from_3_3_is_one_clipped_row(version: str) -> None:
    t = respawned(version)
    t.feed(b"\x1b[?1049hfull screen app")
    t.respawn_reset()
    assert not t.alternate_on
    t.feed(b"out")
    t.write_dead_message(DEAD)
    assert (t.history_size, t.cursor_y, t.cursor_x) == (5, 4, 0)
    assert t.capture()[-1] == DEAD[:40]
    assert t.capture("-", -1)[-2:] == ["L4", "out"]


def test_dead_message_on_3_2a_wraps_and_scrolls() -> None:
    t = respawned("3.2a")
    t.feed(b"\x1b[?1049hfull screen app")
    t.respawn_reset()
    t.feed(b"out")
    t.write_dead_message(DEAD)
    assert (t.history_size, t.cursor_y, t.cursor_x) == (6, 4, 9)
    assert t.capture()[-2:] == [DEAD[:40], DEAD[40:]]
    # 3.2a -J reads the continuation row to its cellsize (10 of 40 columns).
    assert t.capture(join=True)[-1] == DEAD + " "


def test_dead_message_linefeed_sets_the_wrap_flag_and_collects() -> None:
    t = Terminal(20, 4, 10, TmuxVersion.parse("3.3a"))
    t.feed(numbered(1, 13))
    assert t.history_size == 10
    t.feed(b"last")
    t.write_dead_message("dead")
    # One row entered history after collecting one (limit 10 -> batch 1).
    assert t.history_size == 10
    assert t.row_wrapped(t.history_size + 2)
    assert t.capture() == ["L12", "L13", "last", "dead"]


def test_dead_message_resets_the_scroll_region() -> None:
    t = Terminal(20, 4, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"a\r\nb\x1b[1;2r")
    t.write_dead_message("gone")
    assert t.scroll_region == (0, 3)
    assert t.history_size == 1
    assert t.capture() == ["b", "", "", "gone"]


def test_growing_after_respawn_pulls_old_history_back() -> None:
    t = Terminal(20, 4, 2000, TmuxVersion.parse("3.3a"))
    t.feed(numbered(1, 10))
    assert (t.history_size, t.hscrolled) == (7, 7)
    t.respawn_reset()
    assert (t.history_size, t.cursor_y, t.hscrolled) == (7, 0, 7)
    t.resize(20, 7)
    assert (t.history_size, t.cursor_y) == (4, 3)
    assert t.capture()[:4] == ["L5", "L6", "L7", ""]


def test_respawn_resets_region_modes_and_parser_state() -> None:
    t = Terminal(20, 4, 2000, TmuxVersion.parse("3.3a"))
    t.feed(b"\x1b[2;3r\x1b[?7l\x1b[4h\x1b[3;3H\x1b7\x1b[31")
    t.respawn_reset()
    assert t.scroll_region == (0, 3)
    # The half-read CSI is gone; autowrap is back on, insert mode off; the
    # DECSC slot is back at the origin.
    t.feed(b"mabcdefghijklmnopqrstuvwxyz\x1b8")
    assert t.capture()[:2] == ["mabcdefghijklmnopqrs", "tuvwxyz"]
    assert (t.cursor_x, t.cursor_y) == (0, 0)


def test_respawn_leaves_the_alternate_screen_and_restores_then_blanks() -> None:
    t = Terminal(20, 4, 2000, TmuxVersion.parse("3.3a"))
    t.feed(numbered(1, 5) + b"\x1b[?1049halt")
    before = t.history_size
    t.respawn_reset()
    assert not t.alternate_on
    assert t.history_size == before
    assert t.capture() == [""] * 4
    with pytest.raises(InvalidArgument, match="no alternate screen"):
        t.capture(alternate=True)
