"""The answer shaper: compact text beside structuredContent, and errors that teach."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gridmux import create_server
from gridmux.settings import Settings
from gridmux.tools._answers import ECHO_LIMIT, ERROR_META_KEY, cap, compact_text
from tmuxsim import SimBackend


def text_of(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def error_meta(result: Any) -> dict[str, Any]:
    assert result.is_error
    meta: dict[str, Any] = (result.meta or {})[ERROR_META_KEY]
    return meta


def test_a_record_is_name_value_lines_and_its_rows_a_counted_block_last() -> None:
    data = {
        "pane_id": "%1",
        "lines": ["$ echo 'hi there'", "hi there", ""],
        "cursor": "c1.abc",
        "lines_missed": False,
        "elapsed_seconds": 0.5,
        "title": "",
        "note": None,
    }
    assert compact_text(data) == "\n".join(
        [
            "pane_id: %1",
            "cursor: c1.abc",
            "lines_missed: false",
            "elapsed_seconds: 0.5",
            'title: ""',
            "note: null",
            "lines (3):",
            "$ echo 'hi there'",
            "hi there",
            "",
        ]
    )


def test_a_listing_is_a_table_with_one_header_and_typed_cells() -> None:
    rows = [
        {"pane_id": "%0", "pane_active": True, "pane_current_path": "/home/a b"},
        {"pane_id": "%1", "pane_active": False, "pane_current_path": "tab\there"},
    ]
    assert compact_text({"result": rows}) == (
        'pane_id\tpane_active\tpane_current_path\n%0\ttrue\t/home/a b\n%1\tfalse\t"tab\\there"'
    )
    assert compact_text({"result": []}) == "(none)"
    assert compact_text({"result": "killed session $1"}) == "killed session $1"


def test_multi_line_text_keeps_its_lines_and_odd_strings_are_quoted() -> None:
    out = compact_text({"content": "a\n  b\n", "name": " padded ", "esc": "x\x1by"})
    assert out.split("\n") == [
        'name: " padded "',
        'esc: "x\\u001by"',
        "content (3 lines):",
        "a",
        "  b",
        "",
    ]


def test_cap_keeps_short_text_and_says_how_long_a_long_one_was() -> None:
    assert cap("x" * ECHO_LIMIT) == "x" * ECHO_LIMIT
    assert cap("y" * 5000) == "y" * ECHO_LIMIT + "… (5000 characters)"


async def test_every_answer_carries_the_text_once_beside_its_structured_content(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    made = await client.call_tool("create_session", {"session_name": "dev"})
    assert made.structured_content is not None
    assert text_of(made).startswith("session_id: $0\nsession_name: dev\n")
    assert "{" not in text_of(made)
    backend.server(None).sessions[0].windows[0].panes[0].write(b'one\r\ntwo "q"\r\n')
    first = await client.call_tool("capture_since", {"pane_id": "%0"})
    sc = first.structured_content
    assert sc is not None
    text = text_of(first)
    assert text.count(sc["cursor"]) == 1
    assert text.endswith('lines (2):\none\ntwo "q"') or 'one\ntwo "q"' in text
    assert len(text.encode()) < len(json.dumps(sc).encode())


async def test_a_misspelt_parameter_gets_did_you_mean_and_structured_metadata(
    client: Client,  # type: ignore[type-arg]
) -> None:
    result = await client.call_tool(
        "search_panes", {"patern": "x", "nonsense": 1}, raise_on_error=False
    )
    text = text_of(result)
    assert text.startswith("invalid arguments for search_panes: patern: unknown parameter; ")
    assert "did you mean `pattern`?" in text and "nonsense: unknown parameter" in text
    assert "pattern: Missing" not in text  # the misspelling says it already
    assert "pydantic" not in text and "validation error" not in text and "type=" not in text
    assert error_meta(result) == {
        "kind": "invalid_argument",
        "parameter": "patern",
        "suggestion": "Call search_panes with `pattern` instead of `patern`.",
    }


async def test_a_wrong_type_says_which_parameter_without_echoing_the_value(
    client: Client,  # type: ignore[type-arg]
) -> None:
    result = await client.call_tool(
        "capture_pane", {"max_lines": "secret-ish"}, raise_on_error=False
    )
    text = text_of(result)
    assert text.startswith("invalid arguments for capture_pane: max_lines: ")
    assert "secret-ish" not in text
    assert error_meta(result)["parameter"] == "max_lines"


async def test_a_tool_error_carries_its_kind_and_hint(client: Client) -> None:  # type: ignore[type-arg]
    result = await client.call_tool("get_pane_info", {"pane_id": "%404"}, raise_on_error=False)
    meta = error_meta(result)
    assert meta["kind"] == "not_found"
    assert meta["suggestion"] and meta["suggestion"] in text_of(result)
    assert text_of(result).split("\nHint: ")[1] == meta["suggestion"]


@pytest.mark.parametrize(
    ("arguments", "parameter"),
    [
        ({"session_name": "dev\ud800"}, "session_name"),
        ({"filters": {"session_name": "\udfff"}}, "filters"),
    ],
)
async def test_a_lone_surrogate_is_refused_plainly_before_the_tool_runs(
    client: Client,  # type: ignore[type-arg]
    arguments: dict[str, Any],
    parameter: str,
) -> None:
    result = await client.call_tool("list_panes", arguments, raise_on_error=False)
    text = text_of(result)
    assert "lone surrogate (U+D" in text and "Hint: Send valid Unicode" in text
    assert "Error" not in text and "encode" not in text
    assert error_meta(result)["parameter"] == parameter


async def test_errors_echo_a_huge_argument_capped_with_its_length(
    client: Client,  # type: ignore[type-arg]
) -> None:
    await client.call_tool("create_session", {"session_name": "dev"})
    huge = "z" * 100_000
    result = await client.call_tool("list_panes", {"session_name": huge}, raise_on_error=False)
    text = text_of(result)
    assert "z" * ECHO_LIMIT + "… (100000 characters)" in text
    assert len(text) < 1000
    assert error_meta(result)["kind"] == "not_found"


async def test_a_refusal_of_the_tier_gate_is_taught_too(backend: SimBackend) -> None:
    server: FastMCP = create_server(backend, Settings(backend="sim", safety="readonly"))
    async with Client(server) as client:
        result = await client.call_tool("kill_server", {}, raise_on_error=False)
    meta = error_meta(result)
    assert meta["kind"] == "refused"
    assert "--safety destructive" in meta["suggestion"]
