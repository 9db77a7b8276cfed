"""Oracle: what gridmux reads from a pane, held against libtmux's ``capture_pane``.

A 40x12 pane running ``sleep`` (which never writes or echoes) gets bytes
written to its tty: numbered lines that scroll into history, CJK and emoji
(two cells each), a line with trailing spaces, lines wrapping at the width
(one ending in a wide character that cannot fit the last cell), blank lines
in the middle and at the end. Once libtmux sees the last marker nothing
changes, so both sides read the same screen.

**libtmux drops trailing empty lines** from every command's output
(``tmux_cmd`` strips them), and gridmux's ``capture_pane`` and
``snapshot_pane`` drop trailing blank rows too, by contract. Compared as is,
those two cannot see a blank row gone missing or added at the end. So the
oracle restores what tmux printed: ``capture-pane -S a -E b`` prints exactly
``b - a + 1`` rows, so libtmux's list is padded with empty rows to that
count (after checking it is not longer). ``capture_since`` keeps blank rows
down to the cursor row, so its comparison does see them.
"""

from __future__ import annotations

from typing import Any

import libtmux
import pytest
from fastmcp import Client

from tests.mcp_calls import call

from .conftest import WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux

WIDTH, HEIGHT = 40, 12
HISTORY = [f"history line {n:03d}" for n in range(30)]
SCREEN = [
    "plain ascii",
    "wide 日本語テキスト end",
    "emoji 🙂 and ✓ marks",
    "",
    "trailing spaces   ",
    "x" * 55,
    "a" + "日本" * 10,  # the last wide character cannot take the one cell left: it wraps
    "last marker ✓",
    "",
    "",
]


def body(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode()


def rows(pane: libtmux.Pane, start: int, end: int) -> list[str]:
    """Rows ``start..end`` as tmux printed them: libtmux's capture, trailing blanks restored."""
    got = pane.capture_pane(start, end)
    assert isinstance(got, list)
    count = end - start + 1
    assert len(got) <= count, got
    return got + [""] * (count - len(got))


def info(pane: libtmux.Pane, field: str) -> str:
    shown = pane.display_message(f"#{{{field}}}", get_text=True)
    assert shown is not None and len(shown) == 1, shown
    return shown[0]


def pane_now(server: libtmux.Server, pane_id: str) -> libtmux.Pane:
    return libtmux.Pane.from_pane_id(server=server, pane_id=pane_id)


@pytest.fixture
def written(
    server: libtmux.Server, write_to_pane: WriteToPane, wait_until: WaitUntil
) -> libtmux.Pane:
    """The pane, after HISTORY and SCREEN were written and tmux has drawn them."""
    session = server.new_session("captures", x=WIDTH, y=HEIGHT, window_command="exec sleep 100000")
    # tmux 3.2a sizes a detached session by default-size whatever -x/-y say.
    session.active_window.resize(width=WIDTH, height=HEIGHT)
    pane = session.active_pane
    assert pane is not None and pane.pane_id is not None
    assert (pane.pane_width, pane.pane_height) == (str(WIDTH), str(HEIGHT))
    pane_id = pane.pane_id
    write_to_pane(pane_id, body(HISTORY + SCREEN))
    wait_until(lambda: drawn(server, pane_id, SCREEN), what="the whole screen drawn")
    return pane_now(server, pane_id)


def drawn(server: libtmux.Server, pane_id: str, lines: list[str]) -> bool:
    """tmux has processed every byte of ``body(lines)``: the last non-blank line sits
    as many rows above the cursor (at the start of its row) as it was written."""
    pane = pane_now(server, pane_id)
    last = max(i for i, line in enumerate(lines) if line)
    cursor_y = _int(pane.cursor_y)
    above = cursor_y - (len(lines) - last)
    return pane.cursor_x == "0" and above >= 0 and rows(pane, above, above) == [lines[last]]


def _int(value: str | None) -> int:
    assert value is not None and value.isdigit(), value
    return int(value)


async def test_visible_screen_and_ranges_match_libtmux(
    client: Client,  # type: ignore[type-arg]
    written: libtmux.Pane,
) -> None:
    history = _int(written.history_size)
    assert history > 20  # HISTORY scrolled in
    screen = (await call(client, "capture_pane", pane_id=written.pane_id))["result"]
    assert screen == "\n".join(written.capture_pane() or [])
    assert "日本語テキスト" in screen and "🙂" in screen
    for start, end in [(-history, -1), (-5, 3), (0, HEIGHT - 1), (-history, HEIGHT - 1)]:
        want = rows(written, start, end)
        while want and want[-1] == "":  # capture_pane drops the blank tail (see above)
            want.pop()
        got = await call(client, "capture_pane", pane_id=written.pane_id, start=start, end=end)
        assert got["result"] == "\n".join(want), (start, end)


def expected_snapshot(pane: libtmux.Pane) -> dict[str, Any]:
    height = _int(pane.pane_height)
    content = rows(pane, 0, height - 1)
    while content and content[-1] == "":
        content.pop()
    in_mode = info(pane, "pane_in_mode") == "1"
    return {
        "pane_id": pane.pane_id,
        "content": "\n".join(content),
        "cursor_x": _int(pane.cursor_x),
        "cursor_y": _int(pane.cursor_y),
        "pane_width": _int(pane.pane_width),
        "pane_height": height,
        "pane_tty": pane.pane_tty,
        "pane_pid": _int(pane.pane_pid),
        "pane_dead": pane.pane_dead == "1",
        "alternate_on": info(pane, "alternate_on") == "1",
        "pane_in_mode": in_mode,
        "pane_mode": info(pane, "pane_mode") if in_mode else None,
        "scroll_position": _int(info(pane, "scroll_position")) if in_mode else None,
        "history_size": _int(pane.history_size),
        "history_limit": _int(pane.history_limit),
        "title": pane.pane_title,
        "pane_current_command": pane.pane_current_command,
        "pane_current_path": pane.pane_current_path,
        "is_caller": None,  # the test process runs in no tmux pane
        "content_truncated": False,
        "content_truncated_lines": 0,
        "pane_left": _int(pane.pane_left),
        "pane_top": _int(pane.pane_top),
        "pane_right": _int(pane.pane_right),
        "pane_bottom": _int(pane.pane_bottom),
        "pane_at_left": pane.pane_at_left == "1",
        "pane_at_right": pane.pane_at_right == "1",
        "pane_at_top": pane.pane_at_top == "1",
        "pane_at_bottom": pane.pane_at_bottom == "1",
    }


@pytest.mark.parametrize("state", ["normal", "copy mode, scrolled", "alternate screen"])
async def test_snapshot_matches_libtmux(
    client: Client,  # type: ignore[type-arg]
    server: libtmux.Server,
    written: libtmux.Pane,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
    state: str,
) -> None:
    pane_id = written.pane_id or ""
    if state == "copy mode, scrolled":
        written.copy_mode(scroll_up=True)
        wait_until(lambda: info(written, "scroll_position") not in {"", "0"}, what="copy mode")
    elif state == "alternate screen":
        write_to_pane(pane_id, b"\x1b[?1049h\x1b[H\x1b[2Jfull screen \xe2\x9c\x93\x1b[3;5Hat 3,5")

        def at_the_end() -> bool:  # "at 3,5" written from row 3, column 5 (1-based)
            return (info(written, "cursor_y"), info(written, "cursor_x")) == ("2", "10")

        wait_until(at_the_end, what="the alternate screen drawn")
    pane = pane_now(server, pane_id)
    want = expected_snapshot(pane)
    assert want["pane_in_mode"] == (state == "copy mode, scrolled")
    assert want["alternate_on"] == (state == "alternate screen")
    assert await call(client, "snapshot_pane", pane_id=pane_id) == want


def since_rows(pane: libtmux.Pane, top: int) -> list[str]:
    """Rows from absolute row ``top`` down to the cursor row, an empty cursor row left out
    (capture_since's contract), read with libtmux."""
    history, cursor_y = _int(pane.history_size), _int(pane.cursor_y)
    got = rows(pane, top - history, cursor_y)
    return got[:-1] if got and got[-1] == "" else got


async def test_capture_since_matches_libtmux(
    client: Client,  # type: ignore[type-arg]
    server: libtmux.Server,
    written: libtmux.Pane,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    pane_id = written.pane_id or ""
    first = await call(client, "capture_since", pane_id=pane_id)
    history = _int(written.history_size)
    assert first["lines"] == since_rows(written, history)  # the visible screen
    assert first["lines"][-3:] == ["last marker ✓", "", ""]  # blank rows libtmux drops
    assert not first["lines_missed"]
    anchor = history + _int(written.cursor_y)  # the empty cursor row: not read yet

    more = ["", "after ✓ 日本語", "", "y" * 45, *(f"scrolled {n}" for n in range(15)), "", "end"]
    write_to_pane(pane_id, body(more))
    wait_until(lambda: drawn(server, pane_id, more), what="the new lines drawn")
    pane = pane_now(server, pane_id)
    second = await call(client, "capture_since", pane_id=pane_id, cursor=first["cursor"])
    assert second["lines"] == since_rows(pane, anchor)
    assert second["lines"][0] == "" and second["lines"][-1] == "end"
    flags = ("lines_missed", "truncated", "first_line_rewritten", "alternate_on")
    assert {k: second[k] for k in flags} == dict.fromkeys(flags, False)
    assert (second["truncated_lines"], second["truncated_bytes"]) == (0, 0)
