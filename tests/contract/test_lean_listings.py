"""list_panes' lean default shape, its ``fields`` parameter and boolean filters,
on both backends; the bytes an agent receives per pane have a budget."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.tools._models import PANE_ROW_FIELDS
from tests.contract.pane_views import wait_for_prompt
from tests.mcp_calls import call, call_error

#: Bytes a pane may cost in list_panes' default answer, text and structuredContent together.
PANE_BYTES_BUDGET = 400


async def panes(client: Client, **args: Any) -> list[dict[str, Any]]:  # type: ignore[type-arg]
    listed: list[dict[str, Any]] = (await call(client, "list_panes", **args))["result"]
    return listed


async def test_the_default_shape_has_the_deciding_columns_typed(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    rows = await panes(client)
    assert len(rows) == 3
    for row in rows:
        assert tuple(row) == PANE_ROW_FIELDS
        assert isinstance(row["pane_active"], bool) and isinstance(row["pane_dead"], bool)
        assert isinstance(row["pane_width"], int) and isinstance(row["window_index"], int)
    assert {r["session_name"] for r in rows} == {"dev", "ops"}


async def test_fields_adds_columns_and_all_matches_get_pane_info(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    two_sessions: dict[str, str],
) -> None:
    (row,) = await panes(client, window_id=two_sessions["logs"], fields=["pane_pid", "pane_top"])
    assert tuple(row) == (*PANE_ROW_FIELDS, "pane_pid", "pane_top")
    # The shell has started (its command is read twice below, and is "tmux" before).
    wait_for_prompt(backend, ref, row["pane_id"])
    (full,) = await panes(client, window_id=two_sessions["logs"], fields=["all"])
    assert full == await call(client, "get_pane_info", pane_id=row["pane_id"])


async def test_an_unknown_field_is_refused_with_a_suggestion(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    error = await call_error(client, "list_panes", fields=["pane_pdi"])
    assert error.startswith("unknown field 'pane_pdi' in fields\nHint: Did you mean 'pane_pid'?")


@pytest.mark.parametrize(
    ("wanted", "dead"),
    [("1", True), ("true", True), ("TRUE", True), ("0", False), ("no", False), (False, False)],
)
async def test_a_boolean_filter_takes_1_0_and_words(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
    wanted: Any,
    dead: bool,
) -> None:
    rows = await panes(client, session_name="dev", filters={"pane_dead": wanted})
    assert len(rows) == (0 if dead else 2)
    as_json = await panes(client, session_name="dev", filters=json.dumps({"pane_active": "1"}))
    assert len(as_json) == 2


async def test_the_default_answer_stays_within_its_bytes_per_pane(
    ref: ServerRef,
    backend: TmuxBackend,
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    for n in range(5):
        backend.new_window(ref, two_sessions["dev"], name=f"work-{n}")
    result = await client.call_tool("list_panes", {})
    count = len(result.structured_content["result"])  # type: ignore[index]
    assert count == 8
    text = "".join(getattr(b, "text", "") for b in result.content)
    size = len(text.encode()) + len(json.dumps(result.structured_content).encode())
    assert size / count <= PANE_BYTES_BUDGET, size / count
    assert text.count("\n") == count  # a header and one line a pane


async def test_a_search_match_says_where_and_what_without_geometry(
    client: Client,  # type: ignore[type-arg]
    two_sessions: dict[str, str],
) -> None:
    found = await call(client, "search_panes", pattern="$", regex=True)
    assert found["matches"]
    for match in found["matches"]:
        assert set(match) == {
            "pane_id",
            "pane_current_command",
            "pane_current_path",
            "window_id",
            "window_name",
            "session_name",
            "matched_lines",
            "matched_line_count",
            "is_caller",
        }
