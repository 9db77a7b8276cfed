"""Option, environment, buffer, hook and wait-for channel tools through the MCP client,
on real tmux: each tool's effect as tmux itself reports it, and bad input that
changes nothing."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitUntil

pytestmark = pytest.mark.tmux

OURS = re.compile(r"^gridmux_[0-9a-f]{32}_notes$")


def option_tables(tmux: RawTmux, pane: str) -> list[str]:
    """Every option table a test touches, as tmux prints them."""
    window = tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    session = tmux("display-message", "-p", "-t", pane, "#{session_id}").strip()
    return [
        tmux("show-options", "-s"),
        tmux("show-options", "-g"),
        tmux("show-options", "-g", "-w"),
        tmux("show-options", "-t", session),
        tmux("show-options", "-w", "-t", window),
        tmux("show-options", "-p", "-t", pane),
    ]


def buffer_names(tmux: RawTmux) -> list[str]:
    return tmux("list-buffers", "-F", "#{buffer_name}").split()


def wait_clients(server: ServerRef, channel: str) -> int:
    """tmux clients of this test's server currently running ``wait-for <channel>``.

    Matching the socket path keeps tests on other servers (xdist) out of the count.
    """
    assert server.socket_path is not None
    wanted = {b"wait-for", channel.encode(), server.socket_path.encode()}
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = set((entry / "cmdline").read_bytes().split(b"\0"))
        except OSError:
            continue
        if wanted <= argv:
            count += 1
    return count


async def wait_for_condition(wait_until: WaitUntil, predicate: Any, what: str) -> None:
    """Poll ``predicate`` off the event loop, so MCP calls in flight keep running."""
    await anyio.to_thread.run_sync(lambda: wait_until(predicate, what=what))


# -- options -------------------------------------------------------------------------------


async def test_options_at_every_scope(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
) -> None:
    window = tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    session = tmux("display-message", "-p", "-t", pane, "#{session_id}").strip()

    done = await call(client, "set_option", option="history-limit", value="4321", target="main")
    assert (done["scope"], done["target"], done["status"]) == ("session", session, "set")
    assert tmux("show-options", "-t", session, "history-limit") == "history-limit 4321\n"
    assert tmux("show-options", "-g", "history-limit") == "history-limit 2000\n"
    shown = await call(client, "show_option", option="history-limit", target=session)
    assert (shown["value"], shown["inherited"]) == ("4321", False)

    await call(client, "set_option", option="mode-keys", value="vi", scope="window", target=window)
    assert tmux("show-options", "-w", "-t", window) == "mode-keys vi\n"
    await call(client, "set_option", option="remain-on-exit", value="on", target=pane)
    assert tmux("show-options", "-p", "-t", pane) == "remain-on-exit on\n"
    moved = await call(client, "set_option", option="mode-keys", value="emacs", target=pane)
    assert (moved["scope"], moved["target"]) == ("window", window)  # no per-pane mode-keys
    assert tmux("show-options", "-w", "-t", window) == "mode-keys emacs\n"
    assert tmux("show-options", "-p", "-t", pane) == "remain-on-exit on\n"
    await call(client, "set_option", option="mode-keys", value="vi", target=window)
    shown = await call(client, "show_option", option="mode-keys", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("vi", "window", True)
    shown = await call(client, "show_option", option="remain-on-exit", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("on", "pane", False)

    await call(client, "set_option", option="mouse", value="on", global_=True)
    assert tmux("show-options", "-g", "mouse") == "mouse on\n"
    await call(client, "set_option", option="escape-time", value="7")
    assert tmux("show-options", "-s", "escape-time") == "escape-time 7\n"
    shown = await call(client, "show_option", option="escape-time", scope="server")
    assert (shown["value"], shown["scope"]) == ("7", "server")


async def test_option_values_arrays_and_user_options(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
    tmux_release: tuple[int, int],
) -> None:
    value = "#[fg=red] #S 'q' \"d\" $HOME ~x;y"  # no '#{', '#(' or '##': refused
    await call(client, "set_option", option="@note", value=value, target=pane)
    shown = await call(client, "show_option", option="@note", target=pane)
    assert (shown["value"], shown["scope"]) == (value, "pane")
    # tmux 3.4 itself prints a "$" that starts a name as "\$"; gridmux reads it back.
    printed = re.sub(r"(\$[A-Za-z_{])", r"\\\1", value) if tmux_release == (3, 4) else value
    assert tmux("show-options", "-p", "-v", "-t", pane, "@note") == printed + "\n"
    whole = await call(client, "show_option", option="status-format")
    # tmux's own listing: 'status-format[0] "..."' per index (two by default, three in 3.7+)
    listed = tmux("show-options", "-g", "status-format").splitlines()
    indices = {line.split("[", 1)[1].split("]", 1)[0] for line in listed}
    assert set(whole["value"]) == indices and {"0", "1"} <= indices
    one = await call(client, "show_option", option="status-format[1]")
    assert one["value"] == whole["value"]["1"]
    before = tmux("show-options", "-g", "-v", "status-format[1]")
    refused = await call_error(
        client, "set_option", option="status-format[1]", value="#S", global_=True
    )
    assert "not an option gridmux sets" in refused  # a format: docs/safety.md
    assert tmux("show-options", "-g", "-v", "status-format[1]") == before
    assert "not set here" in await call_error(client, "show_option", option="@unset", target=pane)


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"option": "history-limit", "value": "many", "global_": True}, "value is invalid"),
        ({"option": "mouse", "value": "sometimes", "target": "main"}, "bad value"),
        ({"option": "no-such-thing", "value": "1", "global_": True}, "not an option gridmux sets"),
        ({"option": "history-limit", "value": "9"}, "say where to set"),
        ({"option": "mode-keys", "value": "vi", "scope": "session", "target": "main"}, "window"),
        ({"option": "mode-keys", "value": "vi", "target": "%999"}, "no pane %999"),
        ({"option": "mode-keys", "value": "vi", "scope": "pane", "target": "main"}, "not a pane"),
        ({"option": "pane-exited", "value": "kill-server", "global_": True}, "is a hook"),
    ],
)
async def test_set_option_bad_input_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
    args: dict[str, Any],
    needle: str,
) -> None:
    before = option_tables(tmux, pane)
    hooks = tmux("show-hooks", "-g")
    text = await call_error(client, "set_option", **args)
    assert needle in text
    assert "Hint:" in text
    assert option_tables(tmux, pane) == before
    assert tmux("show-hooks", "-g") == hooks


# -- environment -----------------------------------------------------------------------------


async def test_environment_global_and_session(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
) -> None:
    await call(client, "set_environment", name="GRIDMUX_T", value="x y\nz")
    assert tmux("show-environment", "-g", "GRIDMUX_T") == "GRIDMUX_T=x y\nz\n"
    done = await call(client, "set_environment", name="ONLY_MAIN", value="1", session_name="main")
    assert done["status"] == "set"
    assert tmux("show-environment", "-t", "main", "ONLY_MAIN") == "ONLY_MAIN=1\n"
    glob = (await call(client, "show_environment"))["variables"]
    assert glob["GRIDMUX_T"] == "x y\nz"
    assert "ONLY_MAIN" not in glob
    mine = (await call(client, "show_environment", session_name="main"))["variables"]
    assert mine["ONLY_MAIN"] == "1"
    tmux("set-environment", "-t", "main", "-r", "GONE")
    mine = (await call(client, "show_environment", session_name="main"))["variables"]
    assert mine["GONE"] is None
    before = tmux("show-environment", "-g"), tmux("show-environment", "-t", "main")
    for args in ({"name": "A=B", "value": "1"}, {"name": "", "value": "1"}):
        assert "not a valid environment variable name" in await call_error(
            client, "set_environment", **args
        )
    assert "no session 'nope'" in await call_error(
        client, "set_environment", name="X", value="1", session_name="nope"
    )
    assert (tmux("show-environment", "-g"), tmux("show-environment", "-t", "main")) == before


# -- buffers ---------------------------------------------------------------------------------


async def test_buffer_lifecycle(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    pane: str,
    wait_until: WaitUntil,
) -> None:
    text = "echo loaded-'ok'\n"
    ref = await call(client, "load_buffer", content=text, logical_name="notes")
    name = ref["buffer_name"]
    assert OURS.match(name)
    assert buffer_names(tmux) == [name]
    assert tmux("show-buffer", "-b", name) == text
    shown = await call(client, "show_buffer", buffer_name=name)
    assert (shown["content"], shown["content_truncated"]) == (text, False)

    await call(client, "paste_buffer", buffer_name=name, pane_id=pane)
    wait_until(
        lambda: "loaded-ok" in backend.snapshot(tmux_server, pane).rows, what="the pasted command"
    )
    assert buffer_names(tmux) == [name]

    long = "".join(f"row {i}\n" for i in range(600))
    big = (await call(client, "load_buffer", content=long))["buffer_name"]
    tail = await call(client, "show_buffer", buffer_name=big)
    assert tail["content"].splitlines() == [f"row {i}" for i in range(100, 600)]
    assert (tail["content_truncated"], tail["content_truncated_lines"]) == (True, 100)

    await call(client, "delete_buffer", buffer_name=name)
    assert buffer_names(tmux) == [big]
    assert "no buffer" in await call_error(client, "delete_buffer", buffer_name=name)
    tmux("set-buffer", "-b", "user-clip", "private")
    assert "not a buffer made by load_buffer" in await call_error(
        client, "delete_buffer", buffer_name="user-clip"
    )
    assert sorted(buffer_names(tmux)) == sorted([big, "user-clip"])


async def test_paste_buffer_bracket_markers(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    # A program that turns on bracketed paste (mode 2004) and shows the bytes it reads.
    session = backend.new_session(
        tmux_server,
        name="raw",
        command="stty -echo; printf '\\033[?2004hREADY\\n'; exec cat -v",
    )
    pane = session.active_pane_id
    assert pane is not None

    def rows() -> list[str]:
        return [r for r in backend.snapshot(tmux_server, pane).rows if r]

    wait_until(lambda: rows() == ["READY"], what="the program to start")
    name = (await call(client, "load_buffer", content="plain\n"))["buffer_name"]
    await call(client, "paste_buffer", buffer_name=name, pane_id=pane, bracket=False)
    wait_until(lambda: rows()[1:] == ["plain"], what="the unbracketed paste")
    await call(client, "paste_buffer", buffer_name=name, pane_id=pane)
    wait_until(lambda: len(rows()) == 3, what="the bracketed paste")
    assert rows()[2] == "^[[200~plain"


async def test_paste_buffer_needs_a_clear_target(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    pane: str,
) -> None:
    tmux("split-window", "-d", "-t", pane, "exec sleep 1000")
    name = (await call(client, "load_buffer", content="echo never\n"))["buffer_name"]
    before = backend.snapshot(tmux_server, pane).rows
    text = await call_error(client, "paste_buffer", buffer_name=name)
    assert "no target given and the server has 2 panes" in text
    assert "no pane %77" in await call_error(
        client, "paste_buffer", buffer_name=name, pane_id="%77"
    )
    assert backend.snapshot(tmux_server, pane).rows == before


async def test_paste_buffer_into_a_dead_pane_is_refused(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    wait_until: WaitUntil,
) -> None:
    tmux("set-option", "-g", "remain-on-exit", "on")
    pane = backend.new_session(tmux_server, name="done", command="exit 3").active_pane_id
    assert pane is not None
    wait_until(lambda: backend.pane_state(tmux_server, pane).dead, what="the pane to die")
    name = (await call(client, "load_buffer", content="echo late\n"))["buffer_name"]
    text = await call_error(client, "paste_buffer", buffer_name=name, pane_id=pane)
    assert f"pane {pane} is dead" in text
    assert "respawn_pane" in text
    assert buffer_names(tmux) == [name]  # the buffer and the server are still there


# -- hooks -----------------------------------------------------------------------------------


async def test_hooks_are_read_at_each_scope(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    pane: str,
) -> None:
    window = tmux("display-message", "-p", "-t", pane, "#{window_id}").strip()
    tmux("set-hook", "-g", "after-new-window", 'run-shell "echo hi"')
    tmux("set-hook", "-g", "-a", "after-new-window", "display-message x")
    tmux("set-hook", "-g", "-w", "window-renamed", "set-option -g @renamed 1")
    tmux("set-hook", "-t", "main", "session-renamed", "set-option -g @s 1")
    tmux("set-hook", "-w", "-t", window, "window-renamed", "set-option -g @w 1")
    tmux("set-hook", "-p", "-t", pane, "pane-exited", "set-option -g @p 1")

    def entries(result: dict[str, Any]) -> list[tuple[str, int | None, str]]:
        return [(e["hook_name"], e["index"], e["command"]) for e in result["entries"]]

    assert entries(await call(client, "show_hooks")) == [
        ("after-new-window", 0, 'run-shell "echo hi"'),
        ("after-new-window", 1, "display-message x"),
        ("window-renamed", 0, "set-option -g @renamed 1"),
    ]
    assert entries(await call(client, "show_hooks", target="main")) == [
        ("session-renamed", 0, "set-option -g @s 1")
    ]
    assert entries(await call(client, "show_hooks", scope="window", target=window)) == [
        ("window-renamed", 0, "set-option -g @w 1")
    ]
    assert entries(await call(client, "show_hooks", target=pane)) == [
        ("pane-exited", 0, "set-option -g @p 1")
    ]
    one = await call(client, "show_hook", hook_name="after-new-window", scope="session")
    assert [e[1] for e in entries(one)] == [0, 1]
    assert await call(client, "show_hook", hook_name="pane-died", target=pane) == {"entries": []}
    assert "unknown tmux hook" in await call_error(client, "show_hook", hook_name="after-lunch")


# -- channels --------------------------------------------------------------------------------


async def test_a_signal_from_another_task_wakes_the_wait(
    client: Client,  # type: ignore[type-arg]
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    outcome: dict[str, Any] = {}

    async def waiter() -> None:
        outcome["result"] = await call(client, "wait_for_channel", channel="go.1", timeout=20)
        outcome["at"] = time.monotonic()

    started = time.monotonic()
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(waiter)
        await wait_for_condition(
            wait_until, lambda: wait_clients(tmux_server, "go.1") == 1, "the wait to block"
        )
        assert outcome == {}
        await call(client, "signal_channel", channel="go.1")
    assert "'go.1' signalled" in outcome["result"]["result"]
    assert outcome["at"] - started < 10
    assert wait_clients(tmux_server, "go.1") == 0


async def test_a_timed_out_wait_fails_in_time_and_leaves_no_waiter(
    client: Client,  # type: ignore[type-arg]
    tmux_server: ServerRef,
) -> None:
    started = time.monotonic()
    text = await call_error(client, "wait_for_channel", channel="never", timeout=0.5)
    elapsed = time.monotonic() - started
    assert "'never' was not signalled within 0.5 s" in text
    assert "Hint:" in text
    assert 0.5 <= elapsed < 5
    assert wait_clients(tmux_server, "never") == 0
    # no dead waiter swallows the next signal: it is held for the next wait
    await call(client, "signal_channel", channel="never")
    started = time.monotonic()
    await call(client, "wait_for_channel", channel="never", timeout=10)
    assert time.monotonic() - started < 5


async def test_wait_for_a_command_that_signals_from_its_pane(
    client: Client,  # type: ignore[type-arg]
    tmux_server: ServerRef,
    tmux_bin: str,
    pane: str,
) -> None:
    command = f"sleep 0.3; '{tmux_bin}' -S '{tmux_server.socket_path}' wait-for -S job-7"
    await call(client, "send_keys", pane_id=pane, keys=command, enter=True)
    done = await call(client, "wait_for_channel", channel="job-7", timeout=15)
    assert "'job-7' signalled" in done["result"]


async def test_channel_bad_input_is_refused_without_waiting(
    client: Client,  # type: ignore[type-arg]
    tmux_server: ServerRef,
) -> None:
    started = time.monotonic()
    for args in (
        {"channel": "bad name"},
        {"channel": "ok", "timeout": 0},
        {"channel": "ok", "timeout": 1e9},
    ):
        await call_error(client, "wait_for_channel", **args)
    assert "not a valid channel name" in await call_error(client, "signal_channel", channel="")
    assert time.monotonic() - started < 5
    assert wait_clients(tmux_server, "ok") == 0
