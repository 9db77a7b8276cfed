"""The capture core on hand-built snapshots (no simulator, no tmux)."""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneSnapshot, PaneState
from gridmux.capture import (
    MAX_LENGTH,
    MIN_EVIDENCE,
    Cursor,
    CursorRejected,
    Reading,
    Refusal,
    advance,
    first,
    parse_cursor,
)


def snap(
    history: list[str],
    screen: list[str],
    cy: int,
    *,
    pid: int | None = 100,
    server_pid: int = 7,
    dead: bool = False,
    alt: bool = False,
    pane: str = "%1",
    width: int = 40,
    top: int = 0,
    limit: int = 2000,
) -> PaneSnapshot:
    state = PaneState(
        pane_id=pane,
        pid=pid,
        dead=dead,
        dead_status=None,
        history_size=len(history),
        history_limit=limit,
        cursor_x=0,
        cursor_y=cy,
        width=width,
        height=len(screen),
        alternate_on=alt,
        in_mode=False,
        server_pid=server_pid,
    )
    rows = tuple(history + screen)[top:]
    return PaneSnapshot(state=state, top=top, rows=rows)


def screen_of(lines: list[str], height: int = 5) -> tuple[list[str], list[str], int]:
    """Split a transcript ending at the cursor row into history, screen and cursor_y."""
    history = lines[: max(0, len(lines) - height)]
    visible = lines[len(history) :]
    cy = len(visible) - 1
    return history, visible + [""] * (height - len(visible)), cy


def read(lines: list[str], cursor: Cursor | None = None, **kw: object) -> Reading:
    history, screen, cy = screen_of(lines)
    s = snap(history, screen, cy, **kw)  # type: ignore[arg-type]
    return first(s) if cursor is None else advance(cursor, s)


def numbered(n: int, start: int = 1) -> list[str]:
    return [f"L{i}" for i in range(start, start + n)]


def test_first_read_returns_visible_rows_down_to_the_cursor() -> None:
    r = read(numbered(8) + ["$ "])
    assert r.lines == ("L5", "L6", "L7", "L8", "$ ")
    assert not r.lines_missed
    assert r.cursor.shown


def test_an_empty_cursor_row_is_not_delivered() -> None:
    r = read(numbered(3) + [""])
    assert r.lines == ("L1", "L2", "L3")
    assert not r.cursor.shown


def test_follow_up_returns_only_new_rows_even_from_history() -> None:
    base = numbered(8) + [""]
    c = read(base).cursor
    r = read(numbered(40) + [""], c)
    assert r.lines == tuple(numbered(32, start=9))
    assert not r.lines_missed and not r.first_line_rewritten


def test_nothing_new_is_an_empty_delta_with_a_fresh_cursor() -> None:
    c = read(numbered(8) + ["$ "]).cursor
    r = read(numbered(8) + ["$ "], c)
    assert r.lines == ()
    assert not r.lines_missed
    assert r.cursor.anchor == c.anchor and r.cursor.shown


def test_a_rewritten_prompt_row_comes_first_and_is_flagged() -> None:
    c = read(numbered(8) + ["$ "]).cursor
    r = read(numbered(8) + ["$ ls", "a.txt", "$ "], c)
    assert r.lines == ("$ ls", "a.txt", "$ ")
    assert r.first_line_rewritten


def test_an_empty_cursor_row_that_gets_text_is_plain_new_output() -> None:
    c = read(numbered(8) + [""]).cursor
    r = read(numbered(8) + ["partial"], c)
    assert r.lines == ("partial",)
    assert not r.first_line_rewritten
    r2 = read(numbered(8) + ["partial done", ""], r.cursor)
    assert r2.lines == ("partial done",)
    assert r2.first_line_rewritten


def test_erasing_the_delivered_cursor_row_is_reported_as_a_rewrite_to_empty() -> None:
    c = read(numbered(8) + ["progress 10%"]).cursor
    r = read(numbered(8) + [""], c)
    assert r.lines == ("",)
    assert r.first_line_rewritten
    r2 = read(numbered(8) + ["progress 20%"], r.cursor)
    assert r2.lines == ("progress 20%",)
    assert r2.first_line_rewritten


def test_trimmed_history_is_relocated_exactly() -> None:
    c = read(numbered(100) + [""]).cursor
    # 50 more lines, then the oldest 60 rows were collected by history-limit.
    r = read(numbered(150)[60:] + [""], c)
    assert r.lines == tuple(numbered(50, start=101))
    assert not r.lines_missed


def test_trimming_that_cuts_into_the_window_is_a_miss() -> None:
    """Seven surviving window rows would match -- but so would a replay of them
    after the whole window was trimmed, and no sentinel row is left to tell."""
    c = read(numbered(100) + [""]).cursor
    keep = MIN_EVIDENCE + 1  # rows above the anchor that survive the trim
    r = read(numbered(110)[100 - keep :] + [""], c, limit=14)  # a full history: trimmed
    assert r.lines_missed
    assert r.lines == tuple(numbered(4, start=107))


def test_without_a_full_history_only_a_clear_moves_rows_and_the_window_suffices() -> None:
    c = read(numbered(100) + [""]).cursor
    keep = MIN_EVIDENCE + 1
    r = read(numbered(110)[100 - keep :] + [""], c)  # clear-history kept 7 rows above
    assert r.lines == tuple(numbered(10, start=101))
    assert not r.lines_missed


def test_trimming_that_leaves_a_sentinel_row_is_exact() -> None:
    c = read(numbered(100) + [""]).cursor
    r = read(numbered(110)[100 - 16 - 2 :] + [""], c, limit=25)  # window and 2 rows above
    assert r.lines == tuple(numbered(10, start=101))
    assert not r.lines_missed


@pytest.mark.parametrize("limit", [50, 2000])
def test_a_sentinel_row_that_differs_voids_the_match(limit: int) -> None:
    c = read(numbered(100) + [""]).cursor
    rows = numbered(110)[60:]
    rows[100 - 16 - 1 - 60] = "changed"  # the row just above the window
    r = read([*rows, ""], c, limit=limit)
    assert r.lines_missed


def test_a_window_at_the_top_vouches_only_while_nothing_can_be_trimmed() -> None:
    c = read(numbered(8) + [""]).cursor
    assert not c.sentinels
    assert read(numbered(40) + [""], c).lines == tuple(numbered(32, start=9))
    # The same rows, but with the history at its limit: they could be a replay.
    history, screen, cy = screen_of(numbered(40) + [""])
    full = snap(history, screen, cy)
    full = dataclasses.replace(full, state=dataclasses.replace(full.state, history_limit=36))
    r = advance(c, full)
    assert r.lines_missed
    assert r.lines == tuple(numbered(40))  # from the top: it had seen the whole grid


def test_anchor_trimmed_away_is_a_miss_with_the_visible_screen() -> None:
    c = read(numbered(30) + [""]).cursor
    r = read(numbered(500)[400:] + [""], c)
    assert r.lines_missed
    assert r.lines == ("L497", "L498", "L499", "L500")


def test_periodic_output_is_ambiguous_after_a_trim() -> None:
    c = read(["y"] * 40 + [""]).cursor
    r = read(["y"] * 30 + [""], c)
    assert r.lines_missed


def test_identical_repetitive_grid_is_not_claimed_exact() -> None:
    # clear-history plus as many new 'y' lines as were removed gives the same grid:
    # several positions fit, so the reader must not claim that nothing happened.
    c = read(["y"] * 40 + [""]).cursor
    r = read(["y"] * 40 + [""], c)
    assert r.lines_missed


def test_cursor_moving_above_the_anchor_is_a_miss() -> None:
    c = read(numbered(20) + ["$ "]).cursor
    history, screen, _ = screen_of(numbered(20) + ["$ "])
    r = advance(c, snap(history, screen, 0))
    assert r.lines_missed


def test_alternate_screen_returns_the_full_screen_and_no_delta() -> None:
    c = read(numbered(8) + ["$ "]).cursor
    history, _, _ = screen_of(numbered(8) + ["$ "])
    tui = ["vim", "~", "~", "", ""]
    r = advance(c, snap(history, tui, 0, alt=True))
    assert r.alternate_on and r.lines_missed
    assert r.lines == ("vim", "~", "~")
    back = read(numbered(8) + ["$ vim", "$ "], r.cursor)
    assert back.lines_missed


@pytest.mark.parametrize(
    ("kw", "reason"),
    [
        ({"pid": 101}, Refusal.RESPAWNED),
        ({"dead": True}, Refusal.DEAD),
        ({"server_pid": 8}, Refusal.OTHER_SERVER),
        ({"pane": "%2"}, Refusal.OTHER_PANE),
    ],
)
def test_lifecycle_and_identity_refusals(kw: dict[str, object], reason: Refusal) -> None:
    c = read(numbered(8) + ["$ "]).cursor
    with pytest.raises(CursorRejected) as info:
        read(numbered(9) + ["$ "], c, **kw)
    assert info.value.reason is reason


def test_cursor_round_trips_and_rejects_damage() -> None:
    c = read(numbered(30) + ["$ "]).cursor
    text = c.encode()
    assert parse_cursor(text, pane_id="%1") == c
    assert len(text) <= MAX_LENGTH
    with pytest.raises(CursorRejected) as info:
        parse_cursor(text[:-3], pane_id=None)
    assert info.value.reason is Refusal.MALFORMED
    with pytest.raises(CursorRejected) as info:
        parse_cursor(text, pane_id="%9")
    assert info.value.reason is Refusal.OTHER_PANE
    for bad in ("", "hello", "gms2:!!!", "gridmux-since-v1:AAAA", "capture-since-v1:abc"):
        with pytest.raises(CursorRejected) as info:
            parse_cursor(bad, pane_id=None)
        assert info.value.reason is Refusal.MALFORMED


def test_advance_needs_every_retained_row() -> None:
    c = read(numbered(30) + ["$ "]).cursor
    history, screen, cy = screen_of(numbered(31) + ["$ "])
    with pytest.raises(ValueError, match="every retained row"):
        advance(c, snap(history, screen, cy, top=3))
