"""Regular expressions run in linear time (issue 16, item 6), on the simulator.

``^(a+)+$`` over a line of a's and one other character backtracks in
Python's ``re`` for 2**n steps: 19 s at 29 characters, and the server
answered nothing else meanwhile. Each test here uses 60 characters (years
with ``re``, so a regression hangs until pytest-timeout fails it); with RE2
every call answers at once. The dialect's refusals are clear and change
nothing.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from gridmux.tools._text import compile_pattern
from tests.contract.wait_calls import wait
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend

REF = ServerRef()
EVIL = r"^(a+)+$"
LINE = "a" * 60 + "!"


def pane_showing(backend: SimBackend, name: str, text: str) -> str:
    session = backend.new_session(REF, name=name, width=80, height=10)
    assert session.active_pane_id is not None
    backend.server(REF).pane(session.active_pane_id).write(f"\r\n{text}\r\n".encode())
    return session.active_pane_id


def grids(backend: SimBackend) -> list[list[str]]:
    return [pane.terminal.capture("-") for pane in backend.server(REF).all_panes()]


async def test_search_panes_with_a_catastrophic_pattern_answers(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = pane_showing(backend, "w", LINE)
    out: dict[str, Any] = await call(client, "search_panes", pattern=EVIL, regex=True)
    assert out["total_panes_matched"] == 0
    # The same shape that can match does: the engine really ran the expression.
    out = await call(client, "search_panes", pattern=r"^(a+)+!$", regex=True)
    assert [m["pane_id"] for m in out["matches"]] == [pane]
    assert out["matches"][0]["matched_lines"] == [LINE]


async def test_other_calls_are_served_while_searching(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    for i in range(4):
        pane_showing(backend, f"s{i}", LINE)
    answers: list[str] = []

    async def searcher() -> None:
        out = await call(client, "search_panes", pattern=EVIL, regex=True)
        answers.append(f"search:{out['total_panes_matched']}")

    async def lister() -> None:
        out = await call(client, "list_sessions")
        answers.append(f"list:{len(out['result'] if 'result' in out else out['sessions'])}")

    async with anyio.create_task_group() as group:
        group.start_soon(searcher)
        group.start_soon(lister)
    assert sorted(answers) == ["list:4", "search:0"]


async def test_wait_for_text_with_a_catastrophic_pattern_times_out_cleanly(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = pane_showing(backend, "w", "")
    sim_pane = backend.server(REF).pane(pane)
    out, _ = await wait(
        client,
        "wait_for_text",
        lambda: sim_pane.write(f"{LINE}\r\n".encode()),
        patterns=[EVIL],
        regex=True,
        pane_id=pane,
        timeout=0.5,
    )
    assert (out["outcome"], out["timed_out"]) == ("timeout", True)
    out, _ = await wait(
        client,
        "wait_for_text",
        lambda: sim_pane.write(f"{LINE}\r\n".encode()),
        patterns=[EVIL],
        stop=[r"^(a|aa)+!$"],
        regex=True,
        pane_id=pane,
        timeout=5,
    )
    assert out["outcome"] == "stopped"


async def test_regex_filters_with_a_catastrophic_pattern(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane_showing(backend, LINE, "")
    pane_showing(backend, "other", "")
    for op in ("regex", "iregex"):
        out = await call(client, "list_sessions", filters={f"session_name__{op}": EVIL})
        assert out["result"] == []
        out = await call(client, "list_sessions", filters={f"session_name__{op}": r"^(A+)+!$"})
        names = [row["session_name"] for row in out["result"]]
        assert names == ([] if op == "regex" else [LINE])


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("search_panes", {"pattern": r"(a)\1", "regex": True}),
        ("search_panes", {"pattern": r"a(?=b)", "regex": True}),
        ("list_sessions", {"filters": {"session_name__regex": r"(?<!x)a"}}),
        ("list_panes", {"filters": {"pane_title__iregex": r"(a)\1"}}),
    ],
)
async def test_outside_the_dialect_is_refused_with_a_way_out(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    tool: str,
    args: dict[str, Any],
) -> None:
    pane_showing(backend, "w", "aa")
    before = grids(backend)
    error = await call_error(client, tool, **args)
    assert "regular expression" in error or "invalid regex" in error
    assert "RE2" in error
    assert "backreferences" in error
    assert grids(backend) == before


def test_literal_patterns_are_literal() -> None:
    pattern = compile_pattern("a.(b", regex=False, match_case=False, what="pattern")
    assert pattern.search("x A.(B y") is not None
    assert pattern.search("axxb") is None
    assert compile_pattern("ÄB", regex=True, match_case=False, what="p").search("äb")
    assert compile_pattern("ÄB", regex=True, match_case=True, what="p").search("äb") is None
