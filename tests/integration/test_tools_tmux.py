"""The tools through the in-memory MCP client, on the real backend."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call

from .conftest import RawTmux, WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux


async def test_listing_and_pane_info_match_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
) -> None:
    made = await call(client, "create_session", session_name="w", x=90, y=20)
    tmux("split-window", "-d", "-t", made["active_pane_id"])
    panes = (await call(client, "list_panes", session_name="w", fields=["pane_top"]))["result"]
    assert len(panes) == 2
    assert {p["pane_width"] for p in panes} == {90}
    assert sum(p["pane_height"] for p in panes) == 19  # one row for the border
    info = await call(client, "get_pane_info", pane_id=panes[1]["pane_id"])
    assert info["pane_top"] == panes[1]["pane_top"] > 0
    assert info["pane_at_bottom"] is True
    vims = await call(client, "list_panes", filters={"pane_current_command": "vim"})
    assert vims["result"] == []


async def test_capture_and_snapshot_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, "".join(f"L{i}\n" for i in range(1, 41)).encode())
    wait_until(lambda: backend.pane_state(tmux_server, quiet_pane).anchor == 40, what="40 lines")
    text = await client.call_tool("capture_pane", {"pane_id": quiet_pane, "start": -3, "end": -1})
    assert text.content[0].text.splitlines() == ["L15", "L16", "L17"]  # type: ignore[union-attr]
    snap = await call(client, "snapshot_pane", pane_id=quiet_pane, max_lines=5)
    assert snap["content"].splitlines() == ["L36", "L37", "L38", "L39", "L40"]
    assert snap["content_truncated_lines"] == 18
    assert (snap["cursor_x"], snap["cursor_y"], snap["history_size"]) == (0, 23, 17)
    backend.copy_mode(tmux_server, quiet_pane, enter=True, scroll_up=4)
    moded = await call(client, "snapshot_pane", pane_id=quiet_pane)
    assert (moded["pane_in_mode"], moded["pane_mode"], moded["scroll_position"]) == (
        True,
        "copy-mode",
        4,
    )


async def test_send_keys_and_capture_since_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    pane: str,
    wait_until: WaitUntil,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
) -> None:
    def prompt_after(text: str) -> bool:
        snap = backend.snapshot(tmux_server, pane, start="-")
        row = snap.state.anchor
        return snap.rows[row] == "$" and text in snap.rows[:row]

    await call(client, "send_keys", keys="seq 1 30", pane_id=pane)
    wait_until(lambda: prompt_after("30"), what="seq and a new prompt")
    start = await call(client, "capture_since", pane_id=pane)
    await call(client, "send_keys", keys="echo 'a;b' \"$HOME\" \\", pane_id=pane, literal=True)
    # The shell's continuation prompt first: keys typed before it is drawn are
    # echoed by the terminal ahead of it ("tail" then "> "), a race, not a bug.
    wait_until(
        lambda: ">" in backend.snapshot(tmux_server, pane).rows,
        what="the continuation prompt",
    )
    await call(client, "send_keys", keys="tail", pane_id=pane)
    wait_until(lambda: any(r.startswith("a;b /") for r in backend.snapshot(tmux_server, pane).rows))
    wait_until(lambda: prompt_after("> tail"), what="the continued line and a new prompt")
    delta = await call(client, "capture_since", cursor=start["cursor"])
    assert delta["lines_missed"] is False
    assert delta["first_line_rewritten"] is True
    assert delta["lines"][0] == "$ echo 'a;b' \"$HOME\" \\"
    assert delta["lines"][1] == "> tail"
    assert delta["lines"][2].startswith("a;b /") and delta["lines"][2].endswith("tail")
    assert delta["lines"][-1] == "$"
