"""list_sessions, create_session, list_panes, get_pane_info, capture_pane,
snapshot_pane and send_keys through the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_sessions_panes.py."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef
from tmuxsim import SimBackend

REF = ServerRef()


def text(result: Any) -> str:
    return str(result.content[0].text)


async def test_capture_pane_ranges_and_truncation(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = backend.new_session(REF, name="s", width=40, height=5, command="cat").active_pane_id
    assert pane is not None
    backend.server(REF).pane(pane).write("".join(f"L{i}\n" for i in range(1, 21)).encode())
    visible = text(await client.call_tool("capture_pane", {"pane_id": pane}))
    assert visible.splitlines() == ["L17", "L18", "L19", "L20"]
    history = text(
        await client.call_tool("capture_pane", {"pane_id": pane, "start": -3, "end": -1})
    )
    assert history.splitlines() == ["L14", "L15", "L16"]
    cut = text(
        await client.call_tool("capture_pane", {"pane_id": pane, "start": -10, "max_lines": 3})
    )
    assert cut.splitlines() == ["[... truncated 11 lines ...]", "L18", "L19", "L20"]


async def test_snapshot_pane_reports_cursor_mode_and_content(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = backend.new_session(REF, name="s", width=40, height=5, command="cat").active_pane_id
    assert pane is not None
    backend.server(REF).pane(pane).write(b"abc\nde")
    snap = (await client.call_tool("snapshot_pane", {"pane_id": pane})).structured_content
    assert snap is not None
    assert snap["content"] == "abc\nde"
    assert (snap["cursor_x"], snap["cursor_y"]) == (2, 1)
    assert (snap["pane_width"], snap["pane_height"]) == (40, 5)
    assert snap["alternate_on"] is False and snap["pane_dead"] is False
    assert snap["history_size"] == 0 and snap["history_limit"] == 2000
    assert snap["content_truncated"] is False
    assert (snap["pane_in_mode"], snap["pane_mode"], snap["scroll_position"]) == (False, None, None)
    backend.copy_mode(REF, pane, enter=True)
    in_copy = (await client.call_tool("snapshot_pane", {"pane_id": pane})).structured_content
    assert in_copy is not None
    assert (in_copy["pane_in_mode"], in_copy["pane_mode"]) == (True, "copy-mode")
    assert in_copy["scroll_position"] == 0
