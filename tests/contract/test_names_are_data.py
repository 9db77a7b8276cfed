"""A name is data: no string argument ends a tmux command line or starts a
command of its own (issue 26 item 1), on both backends.

Over control mode, tmux reads one command list per line, so a line break in
an argument sent unquoted ends the list and the rest of the argument runs as
a command. Each call here carries an injected ``set -g @pwned 1`` (and a
``kill-server`` where a one-word command would do); every one is refused or
takes the text literally, the server lives and ``@pwned`` stays unset.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from tests.contract.pane_views import session
from tests.mcp_calls import call_error

INJECTED = "\nset -g @pwned 1\n"

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("set_option", {"option": "@x" + INJECTED, "value": "1", "global_": True}),
    ("set_option", {"option": "@x\n", "value": "kill-server", "global_": True}),
    ("set_environment", {"name": "X" + INJECTED, "value": "1"}),
    ("set_environment", {"name": "X\n", "value": "kill-server"}),
    ("show_option", {"option": "@x" + INJECTED, "global_": True}),
    ("show_hook", {"hook_name": "pane-exited" + INJECTED}),
    ("signal_channel", {"channel": "gm" + INJECTED}),
    ("wait_for_channel", {"channel": "gm" + INJECTED, "timeout": 1}),
    ("load_buffer", {"content": "text", "logical_name": "b" + INJECTED}),
    ("show_buffer", {"buffer_name": "gridmux_" + "0" * 32 + "_b" + INJECTED}),
    ("create_window", {"window_name": "w" + INJECTED}),
]


@pytest.mark.parametrize(
    ("tool", "arguments"), CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(CALLS)]
)
async def test_a_name_with_a_line_break_runs_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tool: str,
    arguments: dict[str, Any],
) -> None:
    session(backend, ref)
    before = [s.session_id for s in backend.list_sessions(ref)]
    if tool == "create_window":
        arguments = {**arguments, "session_id": before[0]}
    error = await call_error(client, tool, **arguments)
    # Refused as the argument it is, saying which text (never a tmux error).
    assert "\\n" in error and "Hint:" in error, error
    assert "@pwned" not in backend.show_options(ref, scope="session", global_=True)
    assert [s.session_id for s in backend.list_sessions(ref)] == before
