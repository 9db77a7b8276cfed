"""search_panes through the MCP client, on both backends."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.conftest import Eventually
from tests.contract.pane_views import shows_prompt, wait_for_prompt
from tests.mcp_calls import call


def pane_with(
    backend: TmuxBackend, ref: ServerRef, name: str, *lines: str, height: int = 10
) -> str:
    """A session ``name`` whose pane printed ``lines`` (each with printf).

    Its window is named ``sh`` outright: tmux's automatic-rename names a new
    window after whatever runs in the pane when its timer fires, which can
    be the server's own process before the shell starts (``ld-linux...``
    for a build run through its loader), and renames it only half a second
    later."""
    session = backend.new_session(ref, name=name, window_name="sh", width=60, height=height)
    assert session.active_pane_id is not None
    pane = session.active_pane_id
    for typed, line in enumerate(lines, start=1):
        wait_for_prompt(backend, ref, pane, prompts=typed)
        backend.send_keys(ref, pane, f"printf '%s\\n' '{line}'", literal=True, enter=True)
    wait_for_prompt(backend, ref, pane, prompts=len(lines) + 1)
    return pane


async def search(client: Client, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(client, "search_panes", **args)
    return result


async def test_finds_the_panes_and_lines_that_match(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    a = pane_with(backend, ref, "a", "PASS one", "FAIL two")
    pane_with(backend, ref, "b", "all good")
    c = pane_with(backend, ref, "c", "fail three")
    out = await search(client, pattern="FAIL:? ")
    assert out["total_panes_matched"] == 0  # literal by default: ':' and '?' are text
    out = await search(client, pattern="fail")
    assert [m["pane_id"] for m in out["matches"]] == [a, c]
    # The typed command lines match too: they are on the screen.
    assert out["matches"][0]["matched_lines"] == ["$ printf '%s\\n' 'FAIL two'", "FAIL two"]
    first = out["matches"][0]
    assert (first["session_name"], first["window_name"], first["pane_current_command"]) == (
        "a",
        "sh",
        "sh",
    )
    assert first["matched_line_count"] == 2
    assert first["is_caller"] is None
    assert (out["truncated"], out["truncated_panes"], out["total_panes_matched"]) == (False, [], 2)
    assert (out["offset"], out["limit"]) == (0, 500)


async def test_session_scope(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane_with(backend, ref, "a", "needle")
    b = pane_with(backend, ref, "b", "needle")
    session_b = backend.list_sessions(ref)[1].session_id
    by_name = await search(client, pattern="needle", session_name="b")
    by_id = await search(client, pattern="needle", session_id=session_b)
    assert [m["pane_id"] for m in by_name["matches"]] == [b]
    assert by_id["matches"] == by_name["matches"]


async def test_pages_through_matching_panes(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    panes = [pane_with(backend, ref, f"s{i}", "hit") for i in range(5)]
    page1 = await search(client, pattern="hit", limit=2)
    assert [m["pane_id"] for m in page1["matches"]] == panes[:2]
    assert (page1["truncated"], page1["truncated_panes"], page1["total_panes_matched"]) == (
        True,
        panes[2:],
        5,
    )
    page3 = await search(client, pattern="hit", limit=2, offset=4)
    assert [m["pane_id"] for m in page3["matches"]] == panes[4:]
    assert (page3["truncated"], page3["truncated_panes"], page3["offset"]) == (False, [], 4)
    beyond = await search(client, pattern="hit", offset=10)
    assert (beyond["matches"], beyond["total_panes_matched"]) == ([], 5)
    everything = await search(client, pattern="hit", limit=None)
    assert len(everything["matches"]) == 5 and everything["limit"] is None


async def test_per_pane_cap_keeps_the_newest_lines(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = pane_with(backend, ref, "a", height=20)
    backend.send_keys(ref, pane, "seq 1 9", literal=True, enter=True)
    wait_for_prompt(backend, ref, pane, prompts=2)  # seq has printed all nine
    out = await search(client, pattern=r"^\d$", regex=True, max_matched_lines_per_pane=3)
    match = out["matches"][0]
    assert match["matched_lines"] == ["7", "8", "9"]
    assert match["matched_line_count"] == 9


async def test_scrollback_only_with_content_start(
    eventually: Eventually,
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = pane_with(backend, ref, "a", "OLD LINE", height=5)
    backend.send_keys(ref, pane, "seq 1 30", literal=True, enter=True)

    def seq_done() -> bool:
        return "30" in backend.snapshot(ref, pane).rows and shows_prompt(backend, ref, pane)

    await eventually(seq_done, what="seq's output and the next prompt")
    assert (await search(client, pattern="old line"))["matches"] == []
    near = await search(client, pattern="old line", content_start=-10)
    assert near["matches"] == []  # further back than 10 rows: not scanned
    far = await search(client, pattern="old line", content_start=-100)
    assert [m["pane_id"] for m in far["matches"]] == [pane]
    assert far["matches"][0]["matched_lines"][-1] == "OLD LINE"
    window = await search(client, pattern=r"^\d+$", regex=True, content_start=0, content_end=1)
    assert window["matches"][0]["matched_lines"] == ["27", "28"]


async def test_wrapped_lines_are_joined(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane_with(backend, ref, "a", "x" * 55 + "SPLIT" + "y" * 10)
    out = await search(client, pattern="split")
    assert out["matches"][0]["matched_lines"][-1] == "x" * 55 + "SPLIT" + "y" * 10


async def test_readonly_annotations(client: Client) -> None:  # type: ignore[type-arg]
    tool = {t.name: t for t in await client.list_tools()}["search_panes"]
    assert tool.annotations is not None and tool.annotations.read_only_hint is True
    props = tool.input_schema["properties"]
    assert list(props)[-2:] == ["socket_name", "socket_path"]
    assert (props["max_matched_lines_per_pane"]["default"], props["limit"]["default"]) == (50, 500)
