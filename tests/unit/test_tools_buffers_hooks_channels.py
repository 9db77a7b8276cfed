"""load_buffer, paste_buffer, show_buffer, delete_buffer, show_hooks, show_hook,
wait_for_channel and signal_channel through the MCP client, on the simulator.

Only what needs the simulator is here (its fake shell, injected clock,
pane writes, default socket, spies, known fidelity gaps); what holds on both
backends is in tests/contract/test_buffers_hooks_channels.py."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef
from tests.mcp_calls import call
from tmuxsim import SimBackend

REF = ServerRef()


async def session(client: Client, name: str) -> str:  # type: ignore[type-arg]
    """A new session's pane id."""
    made = await call(client, "create_session", session_name=name)
    return str(made["active_pane_id"])


# -- hooks -------------------------------------------------------------------------------


async def test_hooks_at_every_scope(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    pane = await session(client, "a")
    other = await session(client, "b")
    sim = backend.server(REF)
    (session_a,) = [s.session_id for s in backend.list_sessions(REF) if s.session_name == "a"]
    window = next(p.window_id for p in backend.list_panes(REF) if p.pane_id == pane)
    config = sim.config
    config.set_hook("after-new-window", "run-shell 'echo one'", global_=True)
    config.set_hook("after-new-window", "display-message two", global_=True, append=True)
    config.set_hook("window-renamed", "set -g @renamed 1", scope="window", global_=True)
    config.set_hook("session-renamed", "set -g @s 1", target=session_a)
    config.set_hook("window-renamed", "set -g @w 1", scope="window", target=window)
    config.set_hook("pane-exited", "set -g @p 1", scope="pane", target=pane)

    def entries(result: dict[str, Any]) -> list[tuple[str, int | None, str]]:
        return [(e["hook_name"], e["index"], e["command"]) for e in result["entries"]]

    everything = await call(client, "show_hooks")
    assert entries(everything) == [
        ("after-new-window", 0, "run-shell 'echo one'"),
        ("after-new-window", 1, "display-message two"),
        ("window-renamed", 0, "set -g @renamed 1"),
    ]
    assert await call(client, "show_hooks", scope="server") == everything
    session_hooks = await call(client, "show_hooks", target="a")
    assert [e[0] for e in entries(session_hooks)] == ["session-renamed"]
    assert [e[0] for e in entries(await call(client, "show_hooks", target=window))] == [
        "window-renamed"
    ]
    assert [e[0] for e in entries(await call(client, "show_hooks", target=pane))] == ["pane-exited"]
    assert await call(client, "show_hooks", target=other) == {"entries": []}
    glob = await call(client, "show_hooks", scope="session", global_=True)
    assert [e[0] for e in entries(glob)] == ["after-new-window", "after-new-window"]
    assert await call(client, "show_hooks", scope="session") == glob  # no target: global
    win_glob = await call(client, "show_hooks", scope="pane")
    assert [e[0] for e in entries(win_glob)] == ["window-renamed"]

    one = await call(client, "show_hook", hook_name="after-new-window")
    assert [(e[1], e[2]) for e in entries(one)] == [
        (0, "run-shell 'echo one'"),
        (1, "display-message two"),
    ]
    exited = await call(client, "show_hook", hook_name="pane-exited", scope="pane", target=pane)
    assert entries(exited) == [("pane-exited", 0, "set -g @p 1")]
    assert await call(client, "show_hook", hook_name="pane-exited", target=other) == {"entries": []}
    assert await call(client, "show_hook", hook_name="client-attached") == {"entries": []}
