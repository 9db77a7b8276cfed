"""A name is data: no string argument ends a tmux command line or starts a
command of its own (issue 26 item 1), on both backends.

Over control mode, tmux reads one command list per line, so a line break in
an argument sent unquoted ends the list and the rest of the argument runs as
a command. Each call here carries an injected ``set -g @pwned 1`` (and a
``kill-server`` where a one-word command would do); every one is refused or
takes the text literally, the server lives and ``@pwned`` stays unset.
"""

from __future__ import annotations

from pathlib import Path
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


#: Every other name-taking argument (issue 26 item 9), with the placeholders
#: {session}, {pane} and {dir} (an existing directory whose name has the
#: injection: a path may hold a line break, and tmux gets it as text).
MORE_CALLS: list[tuple[str, dict[str, Any]]] = [
    ("create_session", {"session_name": "s" + INJECTED}),
    ("create_session", {"session_name": "s", "window_name": "w" + INJECTED}),
    ("create_session", {"session_name": "s", "start_directory": "{dir}"}),
    ("create_window", {"session_id": "{session}", "start_directory": "{dir}"}),
    ("split_window", {"pane_id": "{pane}", "start_directory": "{dir}"}),
    ("respawn_pane", {"pane_id": "{pane}", "start_directory": "{dir}"}),
    ("rename_session", {"session_id": "{session}", "new_name": "n" + INJECTED}),
    ("rename_window", {"session_id": "{session}", "new_name": "n" + INJECTED}),
    ("rename_window", {"session_id": "{session}", "window_index": "0\n", "new_name": "n"}),
    ("select_window", {"session_id": "{session}", "window_index": "0" + INJECTED}),
    ("move_window", {"session_id": "{session}", "destination_session": "main" + INJECTED}),
    ("set_pane_title", {"pane_id": "{pane}", "title": "t" + INJECTED}),
    ("list_panes", {"session_name": "main" + INJECTED}),
    ("send_keys", {"keys": "x", "session_name": "main\n"}),
    ("show_option", {"option": "status", "target": "main" + INJECTED}),
    ("show_hooks", {"target": "main" + INJECTED}),
    ("show_hook", {"hook_name": "pane-exited", "target": "main" + INJECTED}),
    ("set_option", {"option": "@ok", "value": "1", "target": "main" + INJECTED}),
    ("load_buffer", {"content": "text", "logical_name": "b\n"}),
    ("delete_buffer", {"buffer_name": "gridmux_" + "0" * 32 + "_b\n"}),
    ("paste_buffer", {"buffer_name": "gridmux_" + "0" * 32 + "_b\n", "pane_id": "{pane}"}),
]


@pytest.mark.parametrize(
    ("tool", "arguments"), MORE_CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(MORE_CALLS)]
)
async def test_every_other_name_with_a_line_break_runs_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tmp_path: Path,
    tool: str,
    arguments: dict[str, Any],
) -> None:
    pane = session(backend, ref)
    directory = tmp_path / ("d" + INJECTED)
    directory.mkdir()
    before = [(s.session_id, s.session_name) for s in backend.list_sessions(ref)]
    places = {"{session}": before[0][0], "{pane}": pane, "{dir}": str(directory)}
    error = await call_error(
        client,
        tool,
        **{k: places.get(v, v) if isinstance(v, str) else v for k, v in arguments.items()},
    )
    assert "\\n" in error and "Hint:" in error, error
    assert "@pwned" not in backend.show_options(ref, scope="session", global_=True)
    assert [(s.session_id, s.session_name) for s in backend.list_sessions(ref)] == before
    assert [p.pane_id for p in backend.list_panes(ref)] == [pane]
    assert backend.list_buffers(ref) == []
