"""capture_since through the MCP client, on both backends."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend


def new_pane(
    backend: TmuxBackend, ref: ServerRef, *, limit: int | None = None, height: int = 10
) -> str:
    if limit is not None:
        backend.new_session(ref, name="scratch")
        backend.set_option(ref, "history-limit", str(limit), scope="session", global_=True)
    session = backend.new_session(ref, name="work", width=40, height=height, command="cat")
    assert session.active_pane_id is not None
    return session.active_pane_id


async def since(client: Client, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result = await client.call_tool("capture_since", args)
    assert result.structured_content is not None
    return result.structured_content


async def test_cursor_for_another_pane_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    other = backend.new_session(ref, name="other", command="cat").active_pane_id
    cursor = (await since(client, pane_id=pane))["cursor"]
    result = await client.call_tool(
        "capture_since", {"cursor": cursor, "pane_id": other}, raise_on_error=False
    )
    assert result.is_error
    assert f"belongs to pane {pane}" in result.content[0].text  # type: ignore[union-attr]
    assert "without a cursor" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "bad", ["", "nonsense", "capture-since-v1:eyJ2IjoxfQ", "gridmux-since-v1:AAAA", "gms2:AAAA"]
)
async def test_malformed_cursors_are_tool_errors(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    bad: str,
) -> None:
    new_pane(backend, ref)
    result = await client.call_tool("capture_since", {"cursor": bad}, raise_on_error=False)
    assert result.is_error
    assert "cursor" in result.content[0].text  # type: ignore[union-attr]


async def test_respawned_pane_refuses_the_old_cursor(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    cursor = (await since(client, pane_id=pane))["cursor"]
    backend.respawn_pane(ref, pane, kill=True, command="cat")
    result = await client.call_tool("capture_since", {"cursor": cursor}, raise_on_error=False)
    assert result.is_error
    assert "respawned" in result.content[0].text  # type: ignore[union-attr]
    fresh = await since(client, pane_id=pane)
    assert fresh["lines_missed"] is False


async def test_gone_pane_says_to_start_over(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    keep = backend.new_session(ref, name="keep", command="cat")
    assert keep.active_pane_id
    cursor = (await since(client, pane_id=pane))["cursor"]
    backend.kill_pane(ref, pane)
    result = await client.call_tool("capture_since", {"cursor": cursor}, raise_on_error=False)
    assert result.is_error
    assert "no longer exists" in result.content[0].text  # type: ignore[union-attr]


@pytest.mark.parametrize("args", [{"max_lines": 0}, {"max_bytes": -1}, {"max_lines": "x"}])
async def test_bad_limits_are_rejected_and_change_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
) -> None:
    pane = new_pane(backend, ref)
    result = await client.call_tool(
        "capture_since", {"pane_id": pane, **args}, raise_on_error=False
    )
    assert result.is_error
