"""The tool-call batches on both backends: order, on_error, tier ceilings,
refused rows, argument validation and the response size limit."""

from __future__ import annotations

import json
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from gridmux.tools import batches
from gridmux.tools._batch_models import ToolCallBatchResult
from tests.contract.conftest import Eventually
from tests.contract.pane_views import wait_for_prompt
from tests.mcp_calls import call, call_error

BATCHES = ("call_readonly_tools_batch", "call_mutating_tools_batch", "call_destructive_tools_batch")


def op(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


def sessions(backend: TmuxBackend, ref: ServerRef) -> list[str]:
    return [s.session_name for s in backend.list_sessions(ref)]


async def batch(client: Client, name: str, *ops: dict[str, Any], **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(client, name, operations=list(ops), **args)
    return result


# -- what a batch returns ------------------------------------------------------------------


async def test_readonly_batch_returns_what_direct_calls_return(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    # Named outright: automatic-rename names a new window on a timer of its own
    # (still "tmux", the child before it ran the shell, after the prompt on 3.2a).
    session = backend.new_session(ref, name="dev", window_name="sh", width=80, height=24)
    pane = session.active_pane_id
    assert pane is not None
    wait_for_prompt(backend, ref, pane)  # a still pane: both reads see the same screen
    out = await batch(
        client,
        "call_readonly_tools_batch",
        op("list_sessions"),
        op("get_pane_info", pane_id=pane),
        op("capture_pane", pane_id=pane),
    )
    assert (out["succeeded"], out["failed"], out["stopped_at"]) == (3, 0, None)
    assert out["response_truncated"] is False and out["response_truncated_bytes"] == 0
    rows = out["results"]
    assert [(r["index"], r["tool"], r["success"], r["error"]) for r in rows] == [
        (0, "list_sessions", True, None),
        (1, "get_pane_info", True, None),
        (2, "capture_pane", True, None),
    ]
    assert rows[0]["structured_content"] == await call(client, "list_sessions")
    assert rows[1]["structured_content"] == await call(client, "get_pane_info", pane_id=pane)
    direct = await client.call_tool("capture_pane", {"pane_id": pane})
    assert rows[2]["content"] == [{"type": "text", "text": direct.content[0].text}]  # type: ignore[union-attr]
    assert all(r["elapsed_seconds"] >= 0 for r in rows)
    ToolCallBatchResult.model_validate(out)


async def test_mutating_batch_runs_its_steps_in_order(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    out = await batch(
        client,
        "call_mutating_tools_batch",
        op("create_session", session_name="one", x=60, y=10),
        op("send_keys", keys="echo batched", session_name="one"),
        op("create_session", session_name="two"),
        op("list_sessions"),
    )
    assert out["succeeded"] == 4
    assert sessions(backend, ref) == ["one", "two"]
    listed = out["results"][3]["structured_content"]["result"]
    assert [s["session_name"] for s in listed] == ["one", "two"]
    pane = out["results"][0]["structured_content"]["active_pane_id"]
    # On tmux the typed line reaches the screen after the batch returns.
    await eventually(
        lambda: any("echo batched" in row for row in backend.snapshot(ref, pane).rows),
        what="the typed line on screen",
    )


@pytest.mark.parametrize("on_error", ["stop", "continue"])
async def test_on_error_stops_at_the_first_failure_or_carries_on(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    on_error: str,
) -> None:
    out = await batch(
        client,
        "call_mutating_tools_batch",
        op("create_session", session_name="before"),
        op("get_pane_info", pane_id="%99"),
        op("create_session", session_name="after"),
        on_error=on_error,
    )
    failed = out["results"][1]
    assert failed["success"] is False
    assert "%99" in failed["error"] and "Hint:" in failed["error"]
    assert failed["content"] == [] and failed["structured_content"] is None
    if on_error == "stop":
        assert (len(out["results"]), out["stopped_at"], out["failed"]) == (2, 1, 1)
        assert sessions(backend, ref) == ["before"]
    else:
        assert (len(out["results"]), out["stopped_at"], out["failed"]) == (3, None, 1)
        assert out["results"][2]["success"] is True
        assert sorted(sessions(backend, ref)) == ["after", "before"]


async def test_stop_is_the_default(ref: ServerRef, client: Client, backend: TmuxBackend) -> None:  # type: ignore[type-arg]
    out = await batch(
        client,
        "call_mutating_tools_batch",
        op("no_such_tool"),
        op("create_session", session_name="never"),
    )
    assert out["stopped_at"] == 0 and len(out["results"]) == 1
    assert sessions(backend, ref) == []


# -- rows a batch refuses --------------------------------------------------------------------


async def test_a_readonly_batch_refuses_a_mutating_tool(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    out = await batch(
        client,
        "call_readonly_tools_batch",
        op("create_session", session_name="no"),
        op("list_sessions"),
        on_error="continue",
    )
    refused = out["results"][0]
    assert refused["success"] is False
    assert "create_session is a mutating tool" in refused["error"]
    assert "call_mutating_tools_batch" in refused["error"]
    assert out["results"][1]["success"] is True
    assert sessions(backend, ref) == []


async def test_a_batch_never_exceeds_the_server_tier(ref: ServerRef, backend: TmuxBackend) -> None:
    server = create_server(backend, Settings(socket_path=ref.socket_path, safety="readonly"))
    async with Client(server) as client:
        out = await batch(client, "call_readonly_tools_batch", op("create_session"))
        assert "call_mutating_tools_batch" not in {t.name for t in await client.list_tools()}
    error = out["results"][0]["error"]
    assert "safety tier readonly" in error and "--safety mutating" in error
    assert sessions(backend, ref) == []


@pytest.mark.parametrize(
    "name", ["run_command", "wait_for_text", "wait_for_content_change", "wait_for_channel"]
)
async def test_tools_bounded_by_their_own_timeout_are_refused(
    client: Client,  # type: ignore[type-arg]
    name: str,
) -> None:
    out = await batch(
        client, "call_destructive_tools_batch", op(name), op("list_sessions"), on_error="continue"
    )
    assert out["results"][0]["success"] is False
    assert "cannot run inside a batch" in out["results"][0]["error"]
    assert f"call {name} directly" in out["results"][0]["error"]
    assert out["results"][1]["success"] is True


@pytest.mark.parametrize("outer", BATCHES)
@pytest.mark.parametrize("inner", BATCHES)
async def test_batches_do_not_nest(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    outer: str,
    inner: str,
) -> None:
    out = await batch(client, outer, op(inner, operations=[op("create_session")]))
    assert out["failed"] == 1
    assert "batches do not nest" in out["results"][0]["error"]
    assert sessions(backend, ref) == []


async def test_an_unknown_tool_fails_its_row_with_suggestions(client: Client) -> None:  # type: ignore[type-arg]
    out = await batch(client, "call_readonly_tools_batch", op("list_sesions"))
    error = out["results"][0]["error"]
    assert error.startswith("unknown tool 'list_sesions'")
    assert "list_sessions" in error


async def test_invalid_nested_arguments_fail_the_row_without_echoing_them(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    out = await batch(
        client,
        "call_mutating_tools_batch",
        op("create_session", session_name="ok", x=-5),
        op("send_keys", pane_id="%0", password="hunter2-secret"),
        on_error="continue",
    )
    first, second = (r["error"] for r in out["results"])
    assert "invalid arguments" in first and "x:" in first
    assert "keys: Missing required argument" in second and "password" in second
    assert "hunter2-secret" not in json.dumps(out)
    assert sessions(backend, ref) == []


# -- the batch's own arguments -------------------------------------------------------------


@pytest.mark.parametrize(
    ("arguments", "needle"),
    [
        ({"operations": []}, "at least 1 item"),
        ({"operations": [op("list_sessions")] * 1001}, "at most 1000 items"),
        (
            {"operations": [{"tool": "create_session", "arguments": {}, "extra": 1}]},
            "operations.0.extra",
        ),
        ({"operations": [{"arguments": {}}]}, "operations.0.tool"),
        ({"operations": [{"tool": "", "arguments": {}}]}, "operations.0.tool"),
        ({"operations": [op("create_session")], "on_error": "ignore"}, "'stop' or 'continue'"),
        ({"operations": [op("create_session")], "timeout": 5}, "timeout"),
        ({"operations": "create_session"}, "valid list"),
    ],
    ids=[
        "empty",
        "too-many",
        "extra-key",
        "no-tool",
        "empty-tool",
        "bad-on-error",
        "extra-arg",
        "str",
    ],
)
async def test_a_malformed_batch_is_refused_whole_and_runs_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    arguments: dict[str, Any],
    needle: str,
) -> None:
    error = await call_error(client, "call_mutating_tools_batch", **arguments)
    assert needle in error
    assert sessions(backend, ref) == []


async def test_batch_tools_declare_their_tiers_and_limits(client: Client) -> None:  # type: ignore[type-arg]
    tools = {t.name: t.model_dump(by_alias=True) for t in await client.list_tools()}
    for name in BATCHES:
        schema = tools[name]["inputSchema"]
        assert schema["required"] == ["operations"]
        ops = schema["properties"]["operations"]
        assert (ops["minItems"], ops["maxItems"]) == (1, 1000)
        assert ops["items"]["additionalProperties"] is False
        assert schema["properties"]["on_error"]["enum"] == ["stop", "continue"]
        assert tools[name]["outputSchema"] is None  # listed only with --output-schemas on
    listed = {t.name: t.annotations for t in await client.list_tools()}
    hints = {n: effective_hints(listed[n]) for n in BATCHES}
    assert hints["call_readonly_tools_batch"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "idempotentHint": True,
        "openWorldHint": False,
    }
    for name in ("call_mutating_tools_batch", "call_destructive_tools_batch"):
        assert hints[name]["readOnlyHint"] is False
        assert hints[name]["destructiveHint"] is True
        assert hints[name]["idempotentHint"] is False
        assert hints[name]["openWorldHint"] is True


# -- the response size limit ----------------------------------------------------------------


async def test_a_response_over_the_limit_elides_the_oldest_payloads(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    session = backend.new_session(ref, name="big", width=80, height=24)
    pane = session.active_pane_id
    backend.send_keys(ref, pane or "", "echo " + "x" * 70, enter=True)
    monkeypatch.setattr(batches, "RESPONSE_LIMIT_BYTES", 4000)
    out = await batch(client, "call_readonly_tools_batch", *[op("snapshot_pane", pane_id=pane)] * 6)
    assert out["response_truncated"] is True
    assert out["response_truncated_bytes"] > 0
    assert len(json.dumps(out, separators=(",", ":")).encode()) <= 4000
    rows = out["results"]
    assert rows[0]["structured_content"] is None
    assert "elided" in rows[0]["content"][0]["text"]
    assert rows[-1]["structured_content"]["pane_id"] == pane
    assert all(r["success"] for r in rows)
    elided = [r["index"] for r in rows if r["structured_content"] is None]
    assert elided == list(range(len(elided)))  # oldest first, no gaps
