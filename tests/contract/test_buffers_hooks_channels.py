"""load_buffer, paste_buffer, show_buffer, delete_buffer, show_hooks, show_hook,
wait_for_channel and signal_channel through the MCP client, on both backends."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from tests.contract.conftest import Eventually
from tests.contract.pane_views import wait_for_prompt
from tests.mcp_calls import call, call_error

OURS = re.compile(r"^gridmux_[0-9a-f]{32}_(?P<logical>[A-Za-z0-9_.-]+)$")


def buffers(backend: TmuxBackend, ref: ServerRef) -> dict[str, str]:
    return {b.name: backend.show_buffer(ref, b.name) for b in backend.list_buffers(ref)}


def screen(backend: TmuxBackend, ref: ServerRef, pane_id: str) -> list[str]:
    return [row for row in backend.snapshot(ref, pane_id).rows if row]


async def session(client: Client, name: str) -> str:  # type: ignore[type-arg]
    """A new session's pane id."""
    made = await call(client, "create_session", session_name=name)
    return str(made["active_pane_id"])


async def test_tools_are_listed_with_honest_annotations(client: Client) -> None:  # type: ignore[type-arg]
    listed = {t.name: t for t in await client.list_tools()}
    tools = {name: t.model_dump(by_alias=True) for name, t in listed.items()}
    expect = {  # name: (readOnly, destructive, idempotent, openWorld)
        "load_buffer": (False, False, False, False),
        "paste_buffer": (False, True, False, True),
        "show_buffer": (True, False, True, False),
        "delete_buffer": (False, True, True, False),
        "show_hooks": (True, False, True, False),
        "show_hook": (True, False, True, False),
        "wait_for_channel": (False, False, False, False),
        "signal_channel": (False, False, True, False),
    }
    for name, hints in expect.items():
        notes = effective_hints(listed[name].annotations)
        got = (
            notes["readOnlyHint"],
            notes["destructiveHint"],
            notes["idempotentHint"],
            notes["openWorldHint"],
        )
        assert got == hints, name
        assert "tmux" in tools[name]["title"]
        assert "socket_path" in tools[name]["inputSchema"]["properties"]
    assert not {"set_hook", "unset_hook", "list_buffers"} & set(tools)  # deliberately absent
    timeout = tools["wait_for_channel"]["inputSchema"]["properties"]["timeout"]
    assert (timeout["default"], timeout["exclusiveMinimum"], timeout["maximum"]) == (30.0, 0, 300)


# -- buffers -----------------------------------------------------------------------------


async def test_load_and_show_buffer_round_trip(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    await session(client, "a")
    text = "first line\nzweite Zeile ✓\n\nlast\n"
    loaded = await call(client, "load_buffer", content=text, logical_name="notes.v1")
    match = OURS.match(loaded["buffer_name"])
    assert match is not None and match.group("logical") == "notes.v1"
    assert loaded["logical_name"] == "notes.v1"
    assert buffers(backend, ref) == {loaded["buffer_name"]: text}
    shown = await call(client, "show_buffer", buffer_name=loaded["buffer_name"])
    assert shown == {
        "buffer_name": loaded["buffer_name"],
        "content": text,
        "content_truncated": False,
        "content_truncated_lines": 0,
    }
    plain = await call(client, "load_buffer", content="x")
    assert plain["logical_name"] == "buf"
    assert plain["buffer_name"].endswith("_buf")
    again = await call(client, "load_buffer", content="x", logical_name="notes.v1")
    assert again["buffer_name"] != loaded["buffer_name"]
    assert len(buffers(backend, ref)) == 3


async def test_show_buffer_keeps_the_newest_lines(client: Client) -> None:  # type: ignore[type-arg]
    await session(client, "a")
    text = "".join(f"line {i}\n" for i in range(1, 11))
    name = (await call(client, "load_buffer", content=text))["buffer_name"]
    shown = await call(client, "show_buffer", buffer_name=name, max_lines=3)
    assert shown["content"] == "line 8\nline 9\nline 10\n"
    assert (shown["content_truncated"], shown["content_truncated_lines"]) == (True, 7)
    whole = await call(client, "show_buffer", buffer_name=name, max_lines=None)
    assert (whole["content"], whole["content_truncated"]) == (text, False)
    unended = (await call(client, "load_buffer", content="a\nb\nc"))["buffer_name"]
    tail = await call(client, "show_buffer", buffer_name=unended, max_lines=2)
    assert (tail["content"], tail["content_truncated_lines"]) == ("b\nc", 1)
    exact = await call(client, "show_buffer", buffer_name=unended, max_lines=3)
    assert (exact["content"], exact["content_truncated"]) == ("a\nb\nc", False)
    assert "greater than or equal to 1" in await call_error(
        client, "show_buffer", buffer_name=name, max_lines=0
    )


async def test_paste_buffer_types_into_the_target_pane(
    eventually: Eventually,
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane_a = await session(client, "a")
    pane_b = await session(client, "b")
    wait_for_prompt(backend, ref, pane_a)
    wait_for_prompt(backend, ref, pane_b)
    name = (await call(client, "load_buffer", content="echo pasted-'42'\n"))["buffer_name"]
    before = screen(backend, ref, pane_a), screen(backend, ref, pane_b)
    text = await call_error(client, "paste_buffer", buffer_name=name)
    assert "no target given and the server has 2 panes" in text
    assert (screen(backend, ref, pane_a), screen(backend, ref, pane_b)) == before
    done = await call(client, "paste_buffer", buffer_name=name, session_name="b")
    assert done == {"result": f"Pasted buffer {name} into pane {pane_b}"}
    await eventually(lambda: "pasted-42" in screen(backend, ref, pane_b), what="the paste")
    assert screen(backend, ref, pane_a) == before[0]
    await call(client, "paste_buffer", buffer_name=name, pane_id=pane_a, bracket=False)
    await eventually(lambda: "pasted-42" in screen(backend, ref, pane_a), what="the paste")
    assert name in buffers(backend, ref)  # pasting keeps the buffer


async def test_paste_buffer_bad_input_pastes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await session(client, "a")
    name = (await call(client, "load_buffer", content="echo no\n"))["buffer_name"]
    backend.load_buffer(ref, "users-own", "echo mine\n")
    missing = "gridmux_" + "0" * 32 + "_gone"
    before = screen(backend, ref, pane)
    for args, needle in [
        ({"buffer_name": "users-own", "pane_id": pane}, "not a buffer made by load_buffer"),
        ({"buffer_name": missing, "pane_id": pane}, "no buffer"),
        ({"buffer_name": name, "pane_id": "%99"}, "no pane %99"),
        ({"buffer_name": name, "pane_id": "3"}, "not a tmux pane id"),
        ({"buffer_name": name, "window_id": "@99"}, "no window @99"),
        ({"buffer_name": name, "session_name": "zz"}, "no session 'zz'"),
    ]:
        text = await call_error(client, "paste_buffer", **args)
        assert needle in text, args
        assert "Hint:" in text
    assert screen(backend, ref, pane) == before


async def test_paste_buffer_into_a_dead_pane_is_refused(
    eventually: Eventually,
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await session(client, "a")
    await call(client, "set_option", option="remain-on-exit", value="on", global_=True)
    wait_for_prompt(backend, ref, pane)
    await call(client, "send_keys", pane_id=pane, keys="exit 3", enter=True)
    await eventually(lambda: backend.pane_state(ref, pane).dead, what="the shell's exit")
    name = (await call(client, "load_buffer", content="echo x\n"))["buffer_name"]
    text = await call_error(client, "paste_buffer", buffer_name=name, pane_id=pane)
    assert "is dead" in text
    assert "respawn_pane" in text


async def test_delete_buffer_removes_only_its_buffer(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    await session(client, "a")
    keep = (await call(client, "load_buffer", content="keep"))["buffer_name"]
    gone = (await call(client, "load_buffer", content="gone"))["buffer_name"]
    done = await call(client, "delete_buffer", buffer_name=gone)
    assert done == {"result": f"Deleted buffer {gone}"}
    assert buffers(backend, ref) == {keep: "keep"}
    text = await call_error(client, "delete_buffer", buffer_name=gone)
    assert f"no buffer {gone!r}" in text
    assert "load_buffer" in text
    assert "no buffer" in await call_error(client, "show_buffer", buffer_name=gone)
    assert buffers(backend, ref) == {keep: "keep"}


async def test_buffers_not_made_by_load_buffer_are_off_limits(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    await session(client, "a")
    backend.load_buffer(ref, "clipboard", "secret")
    backend.load_buffer(ref, "gridmux_" + "a" * 31 + "_x", "almost ours")
    before = buffers(backend, ref)
    for name in ["clipboard", "gridmux_" + "a" * 31 + "_x", "", "gridmux_" + "A" * 32 + "_x"]:
        for tool in ("show_buffer", "delete_buffer"):
            assert "not a buffer made by load_buffer" in await call_error(
                client, tool, buffer_name=name
            )
    assert buffers(backend, ref) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"content": ""}, "content must not be empty"),
        ({"content": "x", "logical_name": "has space"}, "logical_name"),
        ({"content": "x", "logical_name": "a/b"}, "logical_name"),
        ({"content": "x", "logical_name": "n" * 65}, "logical_name"),
        ({"content": "x" * (4 * 1024 * 1024 + 1)}, "larger than 4194304 bytes"),
    ],
)
async def test_load_buffer_bad_input_loads_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    await session(client, "a")
    text = await call_error(client, "load_buffer", **args)
    assert needle in text
    assert "Hint:" in text
    assert buffers(backend, ref) == {}


@pytest.mark.parametrize(
    ("tool", "args", "needle"),
    [
        ("show_hook", {"hook_name": "after-nothing"}, "unknown tmux hook 'after-nothing'"),
        ("show_hook", {"hook_name": "after-new-window[0]"}, "not a hook name"),
        ("show_hook", {"hook_name": ""}, "not a hook name"),
        ("show_hooks", {"scope": "server", "target": "a"}, "server scope takes no target"),
        ("show_hooks", {"scope": "window", "target": "a"}, "is not a window"),
        ("show_hooks", {"target": "%42"}, "no pane %42"),
        ("show_hooks", {"target": "@42"}, "no window @42"),
        ("show_hooks", {"target": "$42"}, "no session $42"),
        ("show_hooks", {"target": "a", "global_": True}, "exclude each other"),
        ("show_hook", {"hook_name": "pane-exited", "target": "%x1"}, "not a tmux pane id"),
    ],
)
async def test_hook_reads_reject_bad_input(
    client: Client,  # type: ignore[type-arg]
    tool: str,
    args: dict[str, Any],
    needle: str,
) -> None:
    await session(client, "a")
    text = await call_error(client, tool, **args)
    assert needle in text
    assert "Hint:" in text


# -- channels ----------------------------------------------------------------------------


async def test_a_held_signal_ends_the_next_wait(client: Client) -> None:  # type: ignore[type-arg]
    await session(client, "a")
    assert await call(client, "signal_channel", channel="build:1.done") == {
        "result": "Signalled channel 'build:1.done'"
    }
    done = await call(client, "wait_for_channel", channel="build:1.done", timeout=5)
    assert "'build:1.done' signalled" in done["result"]
    text = await call_error(client, "wait_for_channel", channel="build:1.done", timeout=1)
    assert "was not signalled within 1 s" in text  # the held signal was used up
    assert "wait-for -S" in text


async def test_a_pane_signal_wakes_the_wait_and_a_timeout_leaves_no_waiter(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await session(client, "a")
    await call(client, "send_keys", pane_id=pane, keys="sleep 5; tmux wait-for -S job", enter=True)
    text = await call_error(client, "wait_for_channel", channel="job", timeout=2)
    assert "not signalled within 2 s" in text
    done = await call(client, "wait_for_channel", channel="job", timeout=10)
    assert "'job' signalled" in done["result"]
    # the timed-out wait left no waiter to swallow a later signal
    assert "not signalled" in await call_error(
        client, "wait_for_channel", channel="late", timeout=0.5
    )
    await call(client, "signal_channel", channel="late")
    assert "'late' signalled" in (await call(client, "wait_for_channel", channel="late"))["result"]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"channel": ""}, "not a valid channel name"),
        ({"channel": "two words"}, "not a valid channel name"),
        ({"channel": "a/b"}, "not a valid channel name"),
        ({"channel": "c" * 129}, "not a valid channel name"),
        ({"channel": "held", "timeout": 0}, "greater than 0"),
        ({"channel": "held", "timeout": -1}, "greater than 0"),
        ({"channel": "held", "timeout": 301}, "less than or equal to 300"),
    ],
)
async def test_wait_bad_input_is_refused_before_waiting(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str,
) -> None:
    await session(client, "a")
    await call(client, "signal_channel", channel="held")
    assert needle in await call_error(client, "wait_for_channel", **args)
    # the held signal is still there: nothing waited
    assert "signalled" in (await call(client, "wait_for_channel", channel="held"))["result"]


@pytest.mark.parametrize("channel", ["", "a b", "x;y", "c" * 129])
async def test_signal_bad_channel_is_refused(
    client: Client,  # type: ignore[type-arg]
    channel: str,
) -> None:
    await session(client, "a")
    text = await call_error(client, "signal_channel", channel=channel)
    assert "not a valid channel name" in text
    assert "Hint:" in text
