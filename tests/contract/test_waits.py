"""wait_for_text and wait_for_content_change through the MCP client, on both backends.

A wait reports progress as soon as it has taken its baseline; the tests act
on the pane only after that first notification, so what counts as "new" is
decided by the order of events, never by timing. Timeouts the tests expect
are kept short (the waits poll in real time); waits the tests expect to
match have a deadline a loaded machine meets (they end as soon as they match).
Typed commands are echoed before they run, so no pattern matches the typed
line, and output a test reads at the match is written at once (one printf).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anyio
import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.conftest import Eventually
from tests.contract.pane_views import wait_for_prompt
from tests.contract.wait_calls import targeted, wait
from tests.mcp_calls import call, call_error

SHORT = 0.3
LONG = 15


def new_pane(backend: TmuxBackend, ref: ServerRef, name: str = "work", *, height: int = 10) -> str:
    session = backend.new_session(ref, name=name, width=60, height=height)
    assert session.active_pane_id is not None
    wait_for_prompt(backend, ref, session.active_pane_id)
    return session.active_pane_id


def typed(backend: TmuxBackend, ref: ServerRef, pane_id: str, line: str) -> Callable[[], None]:
    """An action: type ``line`` and Enter into the pane (through the locked backend)."""
    return lambda: backend.send_keys(ref, pane_id, line, literal=True, enter=True)


# -- wait_for_text ------------------------------------------------------------------------------


async def test_matches_new_output(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, progress = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, "echo server is ready"),
        patterns=["nothing", "^SERVER IS READY$"],
        regex=True,
        pane_id=pane,
        timeout=LONG,
    )
    assert (out["found"], out["outcome"], out["timed_out"]) == (True, "matched", False)
    assert (out["matched_index"], out["matched_pattern"]) == (1, "^SERVER IS READY$")
    assert out["matched_lines"] == ["server is ready"]
    assert out["saw_new_output"] is True
    assert out["matched_at_entry"] is False
    assert out["pane_id"] == pane
    assert out["effective_timeout"] == LONG
    assert progress[0][1] == LONG and pane in (progress[0][2] or "")


async def test_output_that_scrolled_past_the_screen_still_matches(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref, height=5)
    # One printf writes MARK and the 40 lines after it at once: no poll sees MARK
    # still on the screen (echo then seq could, while seq starts).
    lines = " ".join(["MARK", *(str(i) for i in range(1, 41))])
    out, _ = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, f"printf '%s\\n' {lines}"),
        patterns=["^mark$"],
        regex=True,
        pane_id=pane,
        timeout=LONG,
    )
    assert out["outcome"] == "matched"
    assert out["matched_lines"] == ["MARK"]
    assert "MARK" not in backend.snapshot(ref, pane).rows  # off the screen by then
    # The last 20 new rows: the shell's next prompt is a write of its own, after
    # printf's, so the poll that matched may or may not have seen it yet.
    numbers = [str(i) for i in range(1, 41)]
    assert out["tail"] in (numbers[-20:], [*numbers[-19:], "$"])


async def test_text_from_before_the_call_never_matches(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    backend.send_keys(ref, pane, "echo READY", literal=True, enter=True)
    wait_for_prompt(backend, ref, pane, prompts=2)  # READY is on the screen before the call
    out, _ = await wait(client, "wait_for_text", patterns=["ready"], pane_id=pane, timeout=SHORT)
    assert (out["found"], out["outcome"], out["timed_out"]) == (False, "timeout", True)
    assert out["matched_at_entry"] is True
    assert out["saw_new_output"] is False
    assert out["matched_index"] is None
    assert out["elapsed_seconds"] >= SHORT


async def test_a_stop_pattern_ends_the_wait_and_says_which(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, _ = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, "printf 'build FAILED\\n'"),
        patterns=["build ok"],
        stop=["error", "^build failed"],
        regex=True,
        pane_id=pane,
        timeout=LONG,
    )
    assert (out["found"], out["outcome"], out["timed_out"]) == (False, "stopped", False)
    assert (out["matched_index"], out["matched_pattern"]) == (1, "^build failed")
    assert out["matched_lines"] == ["build FAILED"]


async def test_any_output_without_patterns(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    # One key, echoed at once (a command's echo and its next prompt come apart).
    out, _ = await wait(
        client,
        "wait_for_text",
        lambda: backend.send_keys(ref, pane, "x", literal=True),
        pane_id=pane,
        timeout=LONG,
    )
    assert (out["found"], out["outcome"]) == (True, "any_output")
    assert out["matched_lines"] == ["$ x"]


async def test_match_case(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    # 'Ready' comes first and must not match 'ready'; 'done' ends the wait (a
    # timeout instead would bet on how soon the shell prints 'Ready').
    out, _ = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, "echo Ready; echo done"),
        patterns=["ready", "^done$"],
        regex=True,
        match_case=True,
        pane_id=pane,
        timeout=LONG,
    )
    assert (out["found"], out["outcome"]) == (True, "matched")
    assert (out["matched_index"], out["matched_lines"]) == (1, ["done"])
    assert "Ready" in out["tail"]


async def test_literal_patterns_are_not_regular_expressions(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, _ = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, "echo 'file[1]' '(x)'"),  # the typed line does not match
        patterns=["file[1] (x)"],
        pane_id=pane,
        timeout=LONG,
    )
    assert out["outcome"] == "matched"
    assert out["matched_lines"][-1] == "file[1] (x)"


async def test_a_pane_that_dies_during_the_wait_is_an_error(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    backend.set_option(ref, "remain-on-exit", "on", scope="window", target=pane)
    out, _ = await wait(
        client,
        "wait_for_text",
        typed(backend, ref, pane, "exit 4"),
        patterns=["never printed"],  # not "x": the typed 'exit 4' would match it
        pane_id=pane,
        timeout=LONG,
    )
    assert "has exited" in out["error"]


# -- wait_for_content_change ----------------------------------------------------------------------


async def test_content_change_sees_new_output(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, progress = await wait(
        client,
        "wait_for_content_change",
        typed(backend, ref, pane, "echo hi"),
        pane_id=pane,
        timeout=LONG,
    )
    assert (out["changed"], out["timed_out"], out["pane_id"]) == (True, False, pane)
    assert progress


async def test_content_change_sees_typing_without_enter(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, _ = await wait(
        client,
        "wait_for_content_change",
        lambda: backend.send_keys(ref, pane, "x", literal=True),
        pane_id=pane,
        timeout=LONG,
    )
    assert out["changed"] is True


async def test_content_change_times_out_as_a_result(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out, _ = await wait(client, "wait_for_content_change", pane_id=pane, timeout=SHORT)
    assert (out["changed"], out["timed_out"]) == (False, True)
    assert out["elapsed_seconds"] >= SHORT


async def test_content_change_on_a_dead_pane_is_an_error(
    eventually: Eventually,
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    backend.set_option(ref, "remain-on-exit", "on", scope="window", target=pane)
    backend.send_keys(ref, pane, "exit", literal=True, enter=True)
    await eventually(lambda: backend.pane_state(ref, pane).dead, what="the shell's exit")
    error = await call_error(client, "wait_for_content_change", pane_id=pane)
    assert "has exited" in error


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"timeout": -1}, "timeout"),
        ({"interval": 0}, "interval"),
        ({"pane_id": "%42"}, "no pane %42"),
        ({"session_name": "nope"}, "no session"),
    ],
)
async def test_content_change_bad_input(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    expected: str,
) -> None:
    pane = new_pane(backend, ref)
    error = await call_error(client, "wait_for_content_change", **targeted(pane, args))
    assert expected in error


# -- registration ----------------------------------------------------------------------------------


async def test_readonly_annotations_and_no_context_in_the_schema(
    client: Client,  # type: ignore[type-arg]
) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    for name in ("wait_for_text", "wait_for_content_change"):
        hints = tools[name].annotations
        assert hints is not None and hints.read_only_hint is True
        props = tools[name].input_schema["properties"]
        assert "context" not in props and "ctx" not in props
        assert list(props)[-2:] == ["socket_name", "socket_path"]
        assert props["timeout"]["default"] == 8.0
        assert props["interval"]["default"] == 0.05


async def test_waits_do_not_block_other_calls(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    baseline = anyio.Event()
    result: dict[str, Any] = {}

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        baseline.set()

    async def waiter() -> None:
        answer = await client.call_tool(
            "wait_for_content_change",
            {"pane_id": pane, "timeout": 30},
            progress_handler=on_progress,
        )
        assert answer.structured_content is not None
        result.update(answer.structured_content)

    async with anyio.create_task_group() as group:
        group.start_soon(waiter)
        await baseline.wait()
        panes = await call(client, "list_panes")  # answered while the wait is still polling
        assert result == {}
        assert [p["pane_id"] for p in panes["result"]] == [pane]
        backend.send_keys(ref, pane, "x", literal=True)
    assert result["changed"] is True
