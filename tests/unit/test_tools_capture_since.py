"""capture_since through the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_capture_since.py."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef
from tmuxsim import SimBackend

REF = ServerRef()


def new_pane(backend: SimBackend, *, limit: int | None = None, height: int = 10) -> str:
    if limit is not None:
        backend.new_session(REF, name="scratch")
        backend.set_option(REF, "history-limit", str(limit), scope="session", global_=True)
    session = backend.new_session(REF, name="work", width=40, height=height, command="cat")
    assert session.active_pane_id is not None
    return session.active_pane_id


def write(backend: SimBackend, pane_id: str, text: str) -> None:
    backend.server(REF).pane(pane_id).write(text.encode())


async def since(client: Client, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result = await client.call_tool("capture_since", args)
    assert result.structured_content is not None
    return result.structured_content


async def test_first_call_returns_the_screen_and_an_opaque_cursor(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    write(backend, pane, "hello\nworld\n")
    out = await since(client, pane_id=pane)
    assert out["lines"] == ["hello", "world"]
    assert out["pane_id"] == pane
    assert out["cursor"].startswith("gms2:")
    assert out["lines_missed"] is False
    assert out["truncated"] is False
    assert (out["truncated_lines"], out["truncated_bytes"]) == (0, 0)


async def test_follow_up_reads_only_new_rows_across_scrollback(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    write(backend, pane, "".join(f"start {i}\n" for i in range(8)))
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "".join(f"line {i}\n" for i in range(50)))
    out = await since(client, cursor=cursor)
    assert out["lines"] == [f"line {i}" for i in range(50)]
    assert out["lines_missed"] is False
    again = await since(client, cursor=out["cursor"])
    assert again["lines"] == []
    assert again["lines_missed"] is False


async def test_exact_while_history_is_trimmed_at_the_limit(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend, limit=100)
    write(backend, pane, "".join(f"old {i}\n" for i in range(150)))
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "".join(f"new {i}\n" for i in range(60)))
    out = await since(client, cursor=cursor)
    assert out["lines"] == [f"new {i}" for i in range(60)]
    assert out["lines_missed"] is False


async def test_a_replay_of_the_last_rows_read_after_they_were_trimmed_is_a_miss(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    """A second run that ends like the first and pushes it out of history: the
    window rows match once, at the replay, but the rows above them differ."""
    pane = new_pane(backend, limit=100)
    tail = "".join(f"summary {i}\n" for i in range(20))
    write(backend, pane, "".join(f"run 1 line {i}\n" for i in range(300)) + tail)
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "".join(f"run 2 line {i}\n" for i in range(300)) + tail)
    out = await since(client, cursor=cursor)
    assert out["lines_missed"] is True
    assert out["lines"][-1] == "summary 19"


async def test_rows_trimmed_away_are_reported_missed(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend, limit=20)
    write(backend, pane, "".join(f"a{i}\n" for i in range(8)))
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "".join(f"n{i}\n" for i in range(100)))
    out = await since(client, cursor=cursor)
    assert out["lines_missed"] is True
    # The cursor had seen the whole grid (8 rows): every row still retained
    # (20 of history, 9 on the screen) comes back, not just the screen.
    assert out["lines"] == [f"n{i}" for i in range(72, 100)]


async def test_truncation_keeps_the_tail_and_says_how_much(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "".join(f"row {i}\n" for i in range(30)))
    out = await since(client, cursor=cursor, max_lines=5)
    assert out["lines"] == [f"row {i}" for i in range(25, 30)]
    assert out["truncated"] is True
    assert out["truncated_lines"] == 25
    assert out["truncated_bytes"] == sum(len(f"row {i}") + 1 for i in range(25))
    small = await since(client, pane_id=pane, max_bytes=7)
    assert small["lines"] == ["row 29"]
    tiny = await since(client, pane_id=pane, max_bytes=6)
    assert tiny["lines"] == ["ow 29"]
    assert tiny["truncated_bytes"] > 0


async def test_a_rewritten_cursor_row_is_flagged(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    write(backend, pane, "".join(f"step {i}\n" for i in range(8)) + "progress 10%")
    cursor = (await since(client, pane_id=pane))["cursor"]
    write(backend, pane, "\r\x1b[Kprogress 90%")
    out = await since(client, cursor=cursor)
    assert out["lines"] == ["progress 90%"]
    assert out["first_line_rewritten"] is True


async def test_a_young_cursor_resynchronises_from_the_top(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    # Fewer than MIN_EVIDENCE rows above the cursor: nothing can vouch for it.
    pane = new_pane(backend)
    write(backend, pane, "$ ")
    first = await since(client, pane_id=pane)
    assert first["lines"] == ["$"]  # capture-pane trims trailing blanks
    # Even unchanged it misses: `clear` at a bare prompt would look the same.
    # Every row is returned, the one it had seen flagged as a possible repeat.
    same = await since(client, cursor=first["cursor"])
    assert (same["lines"], same["lines_missed"], same["may_repeat"]) == (["$"], True, 1)
    write(backend, pane, "make\n" + "".join(f"cc {i}\n" for i in range(30)) + "$ ")
    out = await since(client, cursor=same["cursor"])
    assert (out["lines_missed"], out["may_repeat"]) == (True, 1)
    assert out["lines"] == ["$ make"] + [f"cc {i}" for i in range(30)] + ["$"]
    later = await since(client, cursor=out["cursor"])
    assert (later["lines"], later["lines_missed"], later["may_repeat"]) == ([], False, 0)
    # Truncation drops the head first: the possible repeat with it.
    write(backend, pane, "x\n")
    young = await since(client, cursor=first["cursor"], max_lines=2)
    assert (young["truncated_lines"], young["may_repeat"]) == (30, 0)


async def test_dead_pane_refuses_with_a_recovery_hint(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = new_pane(backend)
    backend.set_option(REF, "remain-on-exit", "on", scope="window", global_=True)
    cursor = (await since(client, pane_id=pane))["cursor"]
    backend.server(REF).pane(pane).exit(3)
    result = await client.call_tool("capture_since", {"cursor": cursor}, raise_on_error=False)
    assert result.is_error
    assert "capture_pane" in result.content[0].text  # type: ignore[union-attr]
