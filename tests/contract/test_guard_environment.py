"""No mutating call plants code in the panes of later (issue 26 item 4), on
both backends: variables that make shells run code or other files need the
destructive tier in a session's or the global tmux environment, as
``default-command`` does; a new pane's own environment stays open."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.pane_views import session
from tests.mcp_calls import call


def op(tool_name: str, **arguments: Any) -> dict[str, Any]:
    return {"tool": tool_name, "arguments": arguments}


async def as_mutating(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    out = await call(client, "call_mutating_tools_batch", operations=[op(tool, **arguments)])
    row: dict[str, Any] = out["results"][0]
    return row


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PROMPT_COMMAND", "touch /tmp/gridmux-pwned"),
        ("BASH_ENV", "/tmp/gridmux-pwned.sh"),
        ("ENV", "/tmp/gridmux-pwned.sh"),
        ("ZDOTDIR", "/tmp"),
        ("LD_PRELOAD", "/tmp/gridmux-pwned.so"),
        ("BASH_FUNC_ls%%", "() { id; }"),
        ("PATH", "/tmp:/usr/bin:/bin"),
        ("PS1", "$(id) $ "),
        ("PS4", "`id`"),
        ("PROMPT", "${(e)x}"),
        ("NODE_OPTIONS", "--require /tmp/gridmux-pwned.js"),
    ],
)
async def test_code_variables_need_the_destructive_tier_in_a_tmux_environment(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    name: str,
    value: str,
) -> None:
    session(backend, ref)
    before = backend.show_environment(ref)
    row = await as_mutating(client, "set_environment", name=name, value=value)
    assert row["success"] is False
    assert f"not setting {name}" in row["error"]
    assert "only a destructive call may set it" in row["error"]
    assert backend.show_environment(ref) == before
    done = await call(client, "set_environment", name=name, value=value)
    assert done["name"] == name and backend.show_environment(ref)[name] == value


async def test_plain_prompts_and_ordinary_variables_stay_mutating(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    session(backend, ref)
    for name, value in [("PS1", "\\u@\\h \\w\\$ "), ("RUST_LOG", "debug"), ("EDITOR", "vi")]:
        row = await as_mutating(client, "set_environment", name=name, value=value)
        assert row["success"] is True, row["error"]
        assert backend.show_environment(ref)[name] == value


async def test_a_new_session_lasting_environment_is_checked_a_pane_s_is_not(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    session(backend, ref)
    sessions = [s.session_id for s in backend.list_sessions(ref)]
    row = await as_mutating(
        client, "create_session", session_name="planted", environment={"BASH_ENV": "/tmp/x"}
    )
    assert row["success"] is False and "not setting BASH_ENV" in row["error"]
    assert [s.session_id for s in backend.list_sessions(ref)] == sessions
    # A new window's environment is that pane's alone, as typing it would be.
    row = await as_mutating(
        client, "create_window", session_id=sessions[0], environment={"PATH": "/usr/bin:/bin"}
    )
    assert row["success"] is True, row["error"]
