"""run_command's full output on real tmux (issue 14): every line through the
pipe, however far past history-limit; a bounded tail in the result."""

from __future__ import annotations

from typing import Any

import libtmux
import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.mcp_calls import call

from .conftest import PROMPT, WaitUntil, _first_pane, prompt_shown

pytestmark = pytest.mark.tmux


def limited_pane(
    server: libtmux.Server, backend: TmuxBackend, ref: ServerRef, wait_until: WaitUntil
) -> str:
    """A fresh ``sh`` pane whose history keeps 2,000 rows."""
    backend.set_option(ref, "history-limit", "2000", scope="session", global_=True)
    session = server.new_session(
        "big", x=80, y=24, environment={"PS1": PROMPT}, window_command="sh"
    )
    pane_id = _first_pane(session)
    wait_until(lambda: prompt_shown(backend.snapshot(ref, pane_id)), what="the prompt")
    return pane_id


async def whole(client: Client, result: dict[str, Any]) -> list[str]:  # type: ignore[type-arg]
    contents = await client.read_resource(result["full_output"])
    text: str = contents[0].text  # type: ignore[union-attr]
    return text.split("\n") if text else []


async def test_a_hundred_thousand_lines_past_history_limit_come_whole(
    server: libtmux.Server,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    pane = limited_pane(server, backend, tmux_server, wait_until)
    out = await call(
        client, "run_command", command="seq 1 100000; (exit 7)", pane_id=pane, timeout=300
    )
    assert (out["exit_status"], out["timed_out"], out["lines_missed"]) == (7, False, False)
    # The result holds the default tail: the newest 200 lines, and says so.
    assert out["output"] == [str(i) for i in range(99801, 100001)]
    assert (out["output_truncated"], out["output_truncated_lines"]) == (True, 99800)
    assert out["output_truncated_bytes"] == sum(len(f"{i}\n") for i in range(1, 99801))
    # Every line through the full-output path, though tmux kept 2,000 rows.
    assert await whole(client, out) == [str(i) for i in range(1, 100001)]
    assert backend.pane_state(tmux_server, pane).history_size <= 2000
    assert backend.display_message(tmux_server, pane, "#{pane_pipe}") == "0"  # closed again


async def test_a_command_that_prints_nothing_has_an_empty_full_output(
    server: libtmux.Server,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    pane = limited_pane(server, backend, tmux_server, wait_until)
    out = await call(client, "run_command", command="true", pane_id=pane)
    assert (out["exit_status"], out["output"], out["output_truncated"]) == (0, [], False)
    assert out["full_output"] is not None
    assert await whole(client, out) == []
    # Progress bars and colours arrive as the screen would end up showing them.
    drawn = await call(
        client,
        "run_command",
        command=r"printf 'a\r\033[31mb\033[0m\tc\n\033]0;title\007d\n'",
        pane_id=pane,
    )
    assert drawn["output"] == ["b       c", "d"]
    assert await whole(client, drawn) == ["b       c", "d"]
