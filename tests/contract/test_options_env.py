"""show_option, set_option, show_environment and set_environment through the MCP client,
on both backends: every scope, global values, inheritance, and bad input that
changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from tests.mcp_calls import call, call_error


async def two_sessions(client: Client) -> dict[str, Any]:  # type: ignore[type-arg]
    """Sessions 'a' (two windows, the second split) and 'b'; their ids."""
    a = await call(client, "create_session", session_name="a")
    b = await call(client, "create_session", session_name="b")
    return {
        "a": a["session_id"],
        "b": b["session_id"],
        "pane_a": a["active_pane_id"],
        "pane_b": b["active_pane_id"],
    }


def window_of(backend: TmuxBackend, ref: ServerRef, pane_id: str) -> str:
    return next(p.window_id for p in backend.list_panes(ref) if p.pane_id == pane_id)


def all_options(backend: TmuxBackend, ref: ServerRef) -> dict[str, dict[str, str]]:
    """Every option table of the server: global ones and each object's own."""
    tables = {
        "server": backend.show_options(ref, scope="server"),
        "session-global": backend.show_options(ref, scope="session", global_=True),
        "window-global": backend.show_options(ref, scope="window", global_=True),
    }
    for session in backend.list_sessions(ref):
        tables[session.session_id] = backend.show_options(
            ref, scope="session", target=session.session_id
        )
    for window in backend.list_windows(ref):
        tables[window.window_id] = backend.show_options(
            ref, scope="window", target=window.window_id
        )
    for pane in backend.list_panes(ref):
        tables[pane.pane_id] = backend.show_options(ref, scope="pane", target=pane.pane_id)
    return tables


def all_environments(backend: TmuxBackend, ref: ServerRef) -> dict[str, dict[str, str | None]]:
    envs = {"global": backend.show_environment(ref)}
    for session in backend.list_sessions(ref):
        envs[session.session_id] = backend.show_environment(ref, session.session_id)
    return envs


async def test_tools_are_listed_with_honest_annotations(client: Client) -> None:  # type: ignore[type-arg]
    listed = {t.name: t for t in await client.list_tools()}
    tools = {name: t.model_dump(by_alias=True) for name, t in listed.items()}
    for name, readonly in [
        ("show_option", True),
        ("set_option", False),
        ("show_environment", True),
        ("set_environment", False),
    ]:
        hints = effective_hints(listed[name].annotations)
        assert hints["readOnlyHint"] is readonly
        assert hints["destructiveHint"] is False
        assert "tmux" in tools[name]["title"]
        assert tools[name]["outputSchema"] is None  # listed only with --output-schemas on
        assert "socket_path" in tools[name]["inputSchema"]["properties"]
    assert effective_hints(listed["set_option"].annotations)["idempotentHint"] is True


# -- show_option -------------------------------------------------------------------------


async def test_show_option_without_target_is_the_global_value(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    await two_sessions(client)
    version = backend.server_info(ref).version or ""
    escape_time = "10" if version >= "3.5" else "500"  # tmux 3.5 lowered the default
    assert await call(client, "show_option", option="history-limit") == {
        "option": "history-limit",
        "value": "2000",
        "scope": "session",
        "inherited": False,
    }
    window = await call(client, "show_option", option="remain-on-exit", scope="pane")
    assert (window["value"], window["scope"]) == ("off", "window")
    server = await call(client, "show_option", option="escape-time")
    assert (server["value"], server["scope"]) == (escape_time, "server")


async def test_show_option_inherits_down_to_the_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    ids = await two_sessions(client)
    pane = ids["pane_a"]
    window = window_of(backend, ref, pane)
    shown = await call(client, "show_option", option="remain-on-exit", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("off", "window", True)
    backend.set_option(ref, "remain-on-exit", "on", scope="window", target=window)
    shown = await call(client, "show_option", option="remain-on-exit", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("on", "window", True)
    backend.set_option(ref, "remain-on-exit", "failed", scope="pane", target=pane)
    shown = await call(client, "show_option", option="remain-on-exit", scope="pane", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("failed", "pane", False)
    by_name = await call(client, "show_option", option="history-limit", target="a")
    assert (by_name["scope"], by_name["inherited"]) == ("session", True)


# -- set_option --------------------------------------------------------------------------


async def test_set_option_on_a_session_leaves_the_others(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    ids = await two_sessions(client)
    done = await call(
        client, "set_option", option="history-limit", value="5000", scope="session", target="a"
    )
    assert done == {
        "option": "history-limit",
        "value": "5000",
        "status": "set",
        "scope": "session",
        "target": ids["a"],
    }
    assert backend.show_options(ref, scope="session", target=ids["a"]) == {"history-limit": "5000"}
    assert backend.show_options(ref, scope="session", target=ids["b"]) == {}
    assert backend.show_options(ref, scope="session", global_=True)["history-limit"] == "2000"
    shown = await call(client, "show_option", option="history-limit", target=ids["a"])
    assert (shown["value"], shown["inherited"]) == ("5000", False)


async def test_set_option_globally_and_on_window_and_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    ids = await two_sessions(client)
    pane = ids["pane_a"]
    window = window_of(backend, ref, pane)
    await call(client, "set_option", option="mouse", value="on", global_=True)
    assert backend.show_options(ref, scope="session", global_=True)["mouse"] == "on"
    done = await call(client, "set_option", option="mode-keys", value="vi", target=window)
    assert (done["scope"], done["target"]) == ("window", window)
    assert backend.show_options(ref, scope="window", target=window) == {"mode-keys": "vi"}
    done = await call(
        client, "set_option", option="remain-on-exit", value="on", scope="pane", target=pane
    )
    assert (done["scope"], done["target"]) == ("pane", pane)
    assert backend.show_options(ref, scope="pane", target=pane) == {"remain-on-exit": "on"}
    # a window option without a per-pane value lands on the pane's window, as tmux does it
    done = await call(
        client, "set_option", option="mode-keys", value="emacs", scope="pane", target=pane
    )
    assert (done["scope"], done["target"]) == ("window", window)
    assert backend.show_options(ref, scope="window", target=window) == {"mode-keys": "emacs"}
    assert backend.show_options(ref, scope="pane", target=pane) == {"remain-on-exit": "on"}
    # a pane scope without a target changes the global window table (no global pane table)
    done = await call(
        client, "set_option", option="remain-on-exit", value="failed", scope="pane", global_=True
    )
    assert (done["scope"], done["target"]) == ("window", None)
    assert backend.show_options(ref, scope="window", global_=True)["remain-on-exit"] == "failed"
    await call(client, "set_option", option="escape-time", value="10")
    assert backend.show_options(ref, scope="server")["escape-time"] == "10"


async def test_user_options_follow_the_scope_asked_for(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    ids = await two_sessions(client)
    pane = ids["pane_b"]
    await call(client, "set_option", option="@tag", value="builder", target=pane)
    assert backend.show_options(ref, scope="pane", target=pane) == {"@tag": "builder"}
    shown = await call(client, "show_option", option="@tag", target=pane)
    assert (shown["value"], shown["scope"], shown["inherited"]) == ("builder", "pane", False)
    await call(client, "set_option", option="@tag", value="all", scope="server")
    assert backend.show_options(ref, scope="server")["@tag"] == "all"
    text = await call_error(client, "show_option", option="@tag", target=ids["pane_a"])
    assert "'@tag' is not set here" in text
    assert "Hint:" in text


BAD_SET: list[tuple[dict[str, Any], str]] = [
    ({"option": "no-such-option", "value": "1", "global_": True}, "not an option gridmux sets"),
    ({"option": "history-limit", "value": "lots", "global_": True}, "value is invalid: lots"),
    ({"option": "mouse", "value": "maybe", "target": "a"}, "tmux refused to set 'mouse'"),
    ({"option": "history-limit", "value": "10"}, "say where to set session option"),
    ({"option": "history-limit", "value": "10", "scope": "window", "target": "@0"}, "is a session"),
    ({"option": "mode-keys", "value": "vi", "scope": "session", "target": "a"}, "window option"),
    ({"option": "escape-time", "value": "1", "scope": "server", "target": "a"}, "no target"),
    ({"option": "mouse", "value": "on", "scope": "window", "target": "a"}, "is not a window"),
    ({"option": "mouse", "value": "on", "scope": "pane", "target": "@0"}, "is not a pane"),
    ({"option": "mouse", "value": "on", "target": "a", "global_": True}, "exclude each other"),
    ({"option": "mouse", "value": "on", "target": "nosuch"}, "no session 'nosuch'"),
    ({"option": "mouse", "value": "on", "target": "$99"}, "no session $99"),
    ({"option": "mode-keys", "value": "vi", "target": "@99"}, "no window @99"),
    ({"option": "remain-on-exit", "value": "on", "target": "%99"}, "no pane %99"),
    ({"option": "remain-on-exit", "value": "on", "target": "%x"}, "not a tmux pane id"),
    ({"option": "mouse", "value": "on", "target": ""}, "empty or malformed"),
    ({"option": "Bad Name", "value": "1", "global_": True}, "not a tmux option name"),
    ({"option": "after-new-window", "value": "x", "global_": True}, "is a hook"),
    ({"option": "@tag", "value": "a\0b", "global_": True}, "NUL"),
]


@pytest.mark.parametrize(("args", "needle"), BAD_SET)
async def test_set_option_bad_input_is_clear_and_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    await two_sessions(client)
    before = all_options(backend, ref)
    text = await call_error(client, "set_option", **args)
    assert needle in text
    assert "Hint:" in text
    assert all_options(backend, ref) == before


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"option": "nope"}, "unknown tmux option 'nope'"),
        ({"option": "history-limit", "scope": "pane"}, "is a session option"),
        ({"option": "history-limit", "target": "%99"}, "no pane %99"),
        ({"option": "history-limit", "target": "a", "global_": True}, "exclude each other"),
        ({"option": "history-limit", "scope": "nowhere"}, "scope"),
    ],
)
async def test_show_option_bad_input(
    client: Client,  # type: ignore[type-arg]
    args: dict[str, Any],
    needle: str,
) -> None:
    await two_sessions(client)
    assert needle in await call_error(client, "show_option", **args)


# -- environment -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        ({"name": "", "value": "x"}, "not a valid environment variable name"),
        ({"name": "A=B", "value": "x"}, "not a valid environment variable name"),
        ({"name": "A\0B", "value": "x"}, "not a valid environment variable name"),
        ({"name": "OK", "value": "x\0y"}, "NUL"),
        ({"name": "OK", "value": "x", "session_name": "nosuch"}, "no session 'nosuch'"),
        ({"name": "OK", "value": "x", "session_id": "$42"}, "no session $42"),
        ({"name": "OK", "value": "x", "session_id": "42"}, "not a tmux session id"),
        ({"name": "OK", "value": "x", "session_id": "$0", "session_name": "b"}, "is named"),
    ],
)
async def test_set_environment_bad_input_changes_nothing(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    args: dict[str, Any],
    needle: str,
) -> None:
    await two_sessions(client)
    before = all_environments(backend, ref)
    text = await call_error(client, "set_environment", **args)
    assert needle in text
    assert "Hint:" in text
    assert all_environments(backend, ref) == before


async def test_show_environment_of_an_unknown_session_is_an_error(
    client: Client,  # type: ignore[type-arg]
) -> None:
    await two_sessions(client)
    assert "no session 'zz'" in await call_error(client, "show_environment", session_name="zz")
