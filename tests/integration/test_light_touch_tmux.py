"""gridmux in a user's tmux: every tool, and nothing of the user's changes.

The server is set up like a user's (``light_touch.UserTmux``): global hooks
counting ``client-attached``, ``client-detached`` and ``session-closed``, and
a session ``d`` with ``destroy-unattached on`` that a real client is attached
to. gridmux runs as its own process (``gridmux`` over stdio, its temporary
directory private to the test) and drives every readonly and mutating tool,
concurrent waits and runs included, in a session of its own; it also reads
the user's session. After each call, what the user can see is compared with
what it was: the user's clients, ``session_attached``, options, hooks and
environments, no option of gridmux's, buffer, pipe or file left, no
process left waiting. gridmux's one client may attach (with control mode)
once; when the user's client detaches, ``d`` is destroyed as configured;
when gridmux exits its client detaches once.
"""

from __future__ import annotations

import os
import re
import sys
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from gridmux.backend import ServerRef
from gridmux.safety import POLICY, Tier
from tests.mcp_calls import call, call_error

from .conftest import WaitUntil, control_mode
from .light_touch import State, UserTmux, waiters, zombies_of

pytestmark = pytest.mark.tmux

GRIDMUX = Path(sys.executable).with_name("gridmux")
#: Every tool a server of the default tier (mutating) offers.
TOOLS = {name for name, rule in POLICY.items() if rule.tier <= Tier.MUTATING}
#: run_command's ``full_output``: the resource of a run's whole output
RUN_OUTPUT = re.compile(r"tmux://runs/([0-9a-f]+)/output")


@pytest.fixture
def user(
    tmux_bin: str, tmux_server: ServerRef, isolated_env: Path, wait_until: WaitUntil
) -> UserTmux:
    """The user's server: counting hooks, ``d`` attached by a real client, destroy-unattached."""
    assert tmux_server.socket_path is not None
    scratch = isolated_env / "gridmux-tmp"
    scratch.mkdir()
    found = UserTmux(tmux_bin, tmux_server.socket_path, str(isolated_env / "terminal"), scratch)
    found.configure()
    found.run("new-session", "-d", "-s", "d", "-x", "80", "-y", "24")
    found.attach_user("d")
    wait_until(lambda: len(found.user_clients()) == 1, what="the user's client on d")
    # set only now: an unattached session with it on is destroyed at once
    found.run("set-option", "-t", "d", "destroy-unattached", "on")
    found.user_sessions = ("d",)
    return found


def gridmux(user: UserTmux) -> StdioTransport:
    """``gridmux`` over stdio on the user's server, its temporary files in ``user.scratch``."""
    assert GRIDMUX.exists(), f"the gridmux console script is not installed at {GRIDMUX}"
    env = {**os.environ, "GRIDMUX_SOCKET_PATH": user.socket, "TMPDIR": str(user.scratch)}
    return StdioTransport(command=str(GRIDMUX), args=[], env=env, keep_alive=False)


class Session:
    """gridmux's client, and after each call a check that nothing of the user changed."""

    def __init__(self, client: Client, user: UserTmux, wait_until: WaitUntil) -> None:  # type: ignore[type-arg]
        self.client = client
        self.user = user
        self.wait_until = wait_until
        self.before: State = user.state()
        self.counts = user.counts()
        self.seen: set[str] = set()
        #: buffers and piped panes a call in progress may leave, being what it is for
        self.buffers: set[str] = set()
        self.pipes: set[str] = set()
        self.control_pids: set[str] = set()
        #: runs whose full output gridmux keeps readable (run_command's ``full_output``)
        self.runs: set[str] = set()

    async def __call__(self, tool: str, **args: Any) -> Any:
        result = await self.unchecked(tool, **args)
        self.check(tool)
        return result

    async def unchecked(self, tool: str, **args: Any) -> Any:
        """Call ``tool``; what it keeps for later, if anything, is noted."""
        result = await call(self.client, tool, **args)
        self.seen.add(tool)
        found = (
            RUN_OUTPUT.fullmatch(str(result.get("full_output"))) if tool == "run_command" else None
        )
        if found:
            self.runs.add(found[1])
        return result

    async def refused(self, tool: str, **args: Any) -> str:
        text = await call_error(self.client, tool, **args)
        self.seen.add(tool)
        self.check(tool)
        return text

    def check(self, after: str) -> None:
        now, before = self.user.state(), self.before
        assert now.user_clients == before.user_clients, after
        assert len(now.control_clients) <= (1 if control_mode() else 0), (after, now)
        for client in now.control_clients:  # one client, attached once, never the user's
            pid, _mode, session = client.split()
            self.control_pids.add(pid)
            assert session not in self.user.user_sessions, (after, now)
        assert len(self.control_pids) <= 1, (after, self.control_pids)
        assert now.attached == before.attached, after
        assert now.globals == before.globals, after
        assert now.user_sessions == before.user_sessions, after
        assert now.gridmux_options == (), after
        assert now.buffers <= before.buffers | self.buffers, after
        assert now.pipes <= self.pipes, after
        assert now.sockets == before.sockets, after
        # no file but a run's full output, kept for the resource that reads it
        assert [f for f in now.files if Path(f).stem not in self.runs] == [], after
        counts = self.user.counts()
        attaches = counts["client-attached"] - self.counts["client-attached"]
        assert attaches == len(self.control_pids), (after, counts)
        assert counts["client-detached"] == self.counts["client-detached"], (after, counts)
        assert counts["session-closed"] == self.counts["session-closed"], (after, counts)
        assert waiters(self.user.socket) == [], after  # no wait outlives its call
        assert zombies_of(self.user.socket) == [], after


async def test_every_tool_leaves_a_users_tmux_as_it_was(
    user: UserTmux, isolated_env: Path, wait_until: WaitUntil
) -> None:
    async with Client(gridmux(user)) as client:
        gx = Session(client, user, wait_until)
        await read_the_users_session(gx)
        panes = await build_and_drive(gx, isolated_env)
        await configure_and_buffers(gx, panes[1])
        await concurrent_waits_and_runs(gx, panes)
        await batches(gx, panes)
        await gx("rename_session", session_name="work", new_name="work2")
        assert gx.seen == TOOLS, f"not driven: {sorted(TOOLS - gx.seen)}"
        assert len(gx.control_pids) == (1 if control_mode() else 0)
        # the user leaves while gridmux runs: d goes, as configured
        user.close_terminal()
        wait_until(lambda: "d" not in user.session_names(), what="d to be destroyed")
        counts = user.counts()
        assert counts["session-closed"] == gx.counts["session-closed"] + 1
        assert counts["client-detached"] == gx.counts["client-detached"] + 1
    # gridmux's exit detaches its one client (if it had one), once
    wanted = gx.counts["client-detached"] + 1 + len(gx.control_pids)
    wait_until(lambda: user.counts()["client-detached"] == wanted, what="gridmux's client to go")
    wait_until(lambda: user.clients() == [], what="no client left")
    assert user.counts()["client-attached"] == gx.counts["client-attached"] + len(gx.control_pids)
    assert not list(user.scratch.rglob("*")), "gridmux left its temporary files"


async def read_the_users_session(gx: Session) -> None:
    """Readonly tools on the user's own session (the issue's case: a fresh pane's read)."""
    (pane,) = gx.user.run("list-panes", "-t", "d", "-F", "#{pane_id}").split()
    await gx("list_servers")
    await gx("get_server_info")
    await gx("list_sessions")
    await gx("get_session_info", session_name="d")
    await gx("list_windows", session_name="d")
    await gx("list_panes", session_name="d")
    await gx("capture_pane", pane_id=pane)
    await gx("snapshot_pane", pane_id=pane)
    first = await gx("capture_since", pane_id=pane)
    await gx("capture_since", pane_id=pane, cursor=first["cursor"])
    await gx("search_panes", pattern="$")
    await gx("show_option", option="destroy-unattached", scope="session", target="d")
    await gx("show_environment", session_name="d")
    await gx("show_hooks", global_=True)
    await gx("show_hook", hook_name="client-attached", global_=True)


async def build_and_drive(gx: Session, scratch: Path) -> list[str]:
    """gridmux's own session, windows and panes, driven by every pane and window tool."""
    made = await gx("create_session", session_name="work", x=80, y=24)
    one = made["active_pane_id"]
    window = await gx("create_window", session_name="work", window_name="second")
    two = window["active_pane_id"]
    three = (await gx("split_window", pane_id=one))["pane_id"]
    four = (await gx("split_window", pane_id=two))["pane_id"]
    await gx("select_window", session_name="work", window_index="0")
    await gx("rename_window", session_name="work", window_index="0", new_name="first")
    await gx("select_layout", session_name="work", window_index="0", layout="tiled")
    await gx("resize_window", session_name="work", window_index="0", width=90, height=26)
    await gx("move_window", session_name="work", window_index="1", destination_index="5")
    await gx("list_windows", session_name="work")
    await gx("get_window_info", session_name="work", window_index="5")
    await gx("list_panes", session_name="work")
    await gx("get_pane_info", pane_id=three)
    await gx("send_keys", keys="echo typed-by-gridmux", pane_id=one)
    await gx("display_message", format_string="#{pane_id}", pane_id=one)
    await gx("find_pane_by_position", corner="top-left", session_name="work")
    await gx("set_pane_title", title="gx", pane_id=three)
    await gx("clear_pane", pane_id=three)
    await gx("resize_pane", pane_id=three, height=8)
    await gx("select_pane", pane_id=one)
    await gx("swap_pane", source_pane_id=one, target_pane_id=three)
    await gx("paste_text", text="pasted", pane_id=three)
    await gx("send_keys", keys="C-u", pane_id=three, literal=False, enter=False)
    await gx("send_keys", keys="true", pane_id=three)  # a prompt again after the clear
    await gx("respawn_pane", pane_id=two, kill=True)
    await gx("enter_copy_mode", pane_id=three, scroll_up=1)
    await gx("exit_copy_mode", pane_id=three)
    gx.pipes.add(one)
    await gx("pipe_pane", pane_id=one, output_path=str(scratch / "piped.log"))
    await gx("pipe_pane", pane_id=one)  # closes it
    gx.pipes.clear()
    assert gx.user.state().pipes == frozenset()
    first = await gx("capture_since", pane_id=one)
    await gx("capture_since", pane_id=one, cursor=first["cursor"])
    await gx("capture_pane", pane_id=one)
    await gx("snapshot_pane", pane_id=one)
    return [one, two, three, four]


async def configure_and_buffers(gx: Session, pane: str) -> None:
    await gx("set_option", option="@mine", value="1", scope="session", target="work")
    await gx("show_option", option="@mine", scope="session", target="work")
    await gx("set_environment", name="GX_VAR", value="1", session_name="work")
    await gx("show_environment", session_name="work")
    loaded = await gx.client.call_tool("load_buffer", {"content": "buffered", "logical_name": "gx"})
    name = loaded.data["buffer_name"]
    gx.buffers.add(name)
    gx.seen.add("load_buffer")
    gx.check("load_buffer")
    await gx("show_buffer", buffer_name=name)
    await gx("paste_buffer", buffer_name=name, pane_id=pane)
    await gx("send_keys", keys="C-u", pane_id=pane, literal=False, enter=False)
    await gx("delete_buffer", buffer_name=name)
    gx.buffers.clear()
    gx.check("delete_buffer")


async def concurrent_waits_and_runs(gx: Session, panes: list[str]) -> None:
    """Three channel waits, a text wait, a change wait and two runs at once: no client."""
    one, two, three, four = panes
    # output that keeps coming, so the text and change waits end whenever they start
    await gx("send_keys", keys="while :; do echo fou''nd-it; sleep 0.2; done", pane_id=two)
    await gx("send_keys", keys="while :; do date +%s%N; sleep 0.2; done", pane_id=four)
    channels = ["gx-a", "gx-b", "gx-c"]
    outcomes: dict[str, Any] = {}

    async def record(key: str, tool: str, **args: Any) -> None:
        outcomes[key] = await gx.unchecked(tool, **args)

    async with anyio.create_task_group() as group:
        for channel in channels:
            group.start_soon(partial(record, channel, "wait_for_channel", channel=channel))
        text = partial(record, "text", "wait_for_text", patterns=["found-it"], pane_id=two)
        group.start_soon(partial(text, timeout=60))
        group.start_soon(partial(record, "change", "wait_for_content_change", pane_id=four))
        for key, pane in (("run1", one), ("run3", three)):
            run = partial(record, key, "run_command", command=f"sleep 1; echo {key}-done")
            group.start_soon(partial(run, pane_id=pane, timeout=60))
        clients = len(gx.before.user_clients) + 1

        def waiting() -> bool:  # as plain processes, or (wrongly) as clients of their own
            return len(waiters(gx.user.socket, channels)) == 3 or len(gx.user.clients()) > clients

        await anyio.to_thread.run_sync(lambda: gx.wait_until(waiting, what="the channel waits"))
        during = gx.user.state()
        assert during.user_clients == gx.before.user_clients
        assert len(during.control_clients) <= (1 if control_mode() else 0), during
        assert during.attached == gx.before.attached
        for channel in channels:
            await call(gx.client, "signal_channel", channel=channel)
    gx.seen.add("signal_channel")
    assert all("signalled after" in outcomes[c]["result"] for c in channels), outcomes
    assert outcomes["text"]["found"] is True, outcomes["text"]
    assert outcomes["change"]["changed"] is True, outcomes["change"]
    for key in ("run1", "run3"):
        assert outcomes[key]["exit_status"] == 0, outcomes[key]
        assert f"{key}-done" in outcomes[key]["output"], outcomes[key]
    gx.check("the concurrent waits")
    for looping in (two, four):
        await gx("send_keys", keys="C-c", pane_id=looping, literal=False, enter=False)
    # a wait that times out is released and reaped, and leaves no waiter behind
    refusal = await gx.refused("wait_for_channel", channel="gx-nobody", timeout=0.3)
    assert "not signalled" in refusal


def op(tool: str, **args: Any) -> dict[str, Any]:
    return {"tool": tool, "arguments": args}


async def batches(gx: Session, panes: list[str]) -> None:
    one = panes[0]
    await gx(
        "call_readonly_tools_batch", operations=[op("list_panes"), op("capture_pane", pane_id=one)]
    )
    await gx(
        "call_mutating_tools_batch",
        operations=[
            op("send_keys", keys="echo batched", pane_id=one),
            op("get_pane_info", pane_id=one),
        ],
    )
    await gx("send_keys_batch", operations=[{"keys": "echo keyed", "pane_id": one}])
    await gx("run_command", command="echo last", pane_id=one, timeout=30)
