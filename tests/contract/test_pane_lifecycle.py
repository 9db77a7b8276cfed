"""respawn_pane, kill_pane, enter_copy_mode, exit_copy_mode and pipe_pane through
the MCP client, on both backends."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.errors import TmuxFailure, TmuxTimeout
from gridmux.safety import effective_hints
from tests.mcp_calls import call, call_error

TOOLS = {
    # name: (tier tag, readOnly, destructive, idempotent, openWorld, title)
    "respawn_pane": ("mutating", False, True, False, False, "Respawn tmux Pane"),
    "kill_pane": ("destructive", False, True, True, False, "Kill tmux Pane"),
    "enter_copy_mode": ("mutating", False, False, False, False, "Enter tmux Copy Mode"),
    "exit_copy_mode": ("mutating", False, False, True, False, "Exit tmux Copy Mode"),
    "pipe_pane": ("mutating", False, True, False, True, "Pipe tmux Pane Output"),
}


def session(
    backend: TmuxBackend, ref: ServerRef, name: str = "main", command: str | None = "cat"
) -> str:
    made = backend.new_session(ref, name=name, width=80, height=24, command=command)
    assert made.active_pane_id is not None
    return made.active_pane_id


def pane_info(backend: TmuxBackend, ref: ServerRef, pane_id: str) -> Any:
    return next(p for p in backend.list_panes(ref) if p.pane_id == pane_id)


@contextlib.asynccontextmanager
async def client_for(
    backend: TmuxBackend,
    ref: ServerRef,
    safety: str = "destructive",
    caller_pane: str | None = None,
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A client whose server believes it runs in ``caller_pane`` of this server."""
    socket = backend.server_info(ref).socket_path if caller_pane else None
    settings = Settings(
        socket_path=ref.socket_path,
        caller_pane=caller_pane,
        caller_socket=socket,
        safety=safety,
        allow_other_servers=True,
    )
    async with Client(create_server(backend, settings)) as client:
        yield client


# -- registration -------------------------------------------------------------------


async def test_tools_are_registered_with_their_tier_title_and_hints(
    client: Client,  # type: ignore[type-arg]
) -> None:
    listed = {t.name: t for t in await client.list_tools()}
    wires = {name: tool.model_dump(by_alias=True) for name, tool in listed.items()}
    for name, (tier, read_only, destructive, idempotent, open_world, title) in TOOLS.items():
        wire = wires[name]
        hints = effective_hints(listed[name].annotations)
        assert wire["title"] == title
        assert wire["_meta"]["fastmcp"]["tags"] == [tier], name
        assert (
            hints["readOnlyHint"],
            hints["destructiveHint"],
            hints["idempotentHint"],
            hints["openWorldHint"],
        ) == (read_only, destructive, idempotent, open_world), name
        assert list(wire["inputSchema"]["properties"])[-1] == "socket_path", name
    assert wires["kill_pane"]["inputSchema"]["required"] == ["pane_id"]
    assert wires["respawn_pane"]["inputSchema"]["required"] == ["pane_id"]
    assert "session_name" not in wires["respawn_pane"]["inputSchema"]["properties"]


async def test_kill_pane_is_only_offered_at_the_destructive_tier(
    ref: ServerRef, backend: TmuxBackend
) -> None:
    session(backend, ref)
    async with client_for(backend, ref, safety="mutating") as mutating:
        names = {t.name for t in await mutating.list_tools()}
    assert "kill_pane" not in names
    assert {"respawn_pane", "enter_copy_mode", "exit_copy_mode", "pipe_pane"} <= names


# -- respawn_pane ---------------------------------------------------------------------------


@pytest.mark.parametrize("own", [None, "failed"])
async def test_a_failed_respawn_leaves_remain_on_exit_as_it_was(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    monkeypatch: pytest.MonkeyPatch,
    own: str | None,
) -> None:
    """respawn_pane turns the pane's remain-on-exit on before it respawns; a respawn
    tmux refuses leaves the pane's own value as it was, or none."""
    pane = session(backend, ref)
    if own is not None:
        backend.set_option(ref, "remain-on-exit", own, scope="pane", target=pane)
    before = (backend.show_options(ref, scope="pane", target=pane), pane_info(backend, ref, pane))

    def refused(server: ServerRef, pane_id: str, **_: Any) -> None:
        raise TmuxFailure(f"tmux failed to respawn pane {pane_id}: injected")

    monkeypatch.setattr(backend, "respawn_pane", refused)
    assert "injected" in await call_error(client, "respawn_pane", pane_id=pane)
    after = (backend.show_options(ref, scope="pane", target=pane), pane_info(backend, ref, pane))
    assert after == before


async def test_a_respawn_whose_answer_was_lost_keeps_remain_on_exit_on(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The pane runs a new process after all: its exit must still keep the pane."""
    pane = session(backend, ref)
    pid = pane_info(backend, ref, pane).pid
    respawn = backend.respawn_pane

    def lost(server: ServerRef, pane_id: str, **args: Any) -> None:
        respawn(server, pane_id, **args)
        raise TmuxTimeout("tmux did not answer: injected")

    monkeypatch.setattr(backend, "respawn_pane", lost)
    assert "injected" in await call_error(client, "respawn_pane", pane_id=pane)
    assert pane_info(backend, ref, pane).pid != pid
    assert backend.show_options(ref, scope="pane", target=pane) == {"remain-on-exit": "on"}


def test_unset_option_removes_an_own_value_and_restores_a_global_default(
    ref: ServerRef, backend: TmuxBackend
) -> None:
    pane = session(backend, ref)
    window = pane_info(backend, ref, pane).window_id
    backend.set_option(ref, "remain-on-exit", "failed", scope="pane", target=pane)
    backend.set_option(ref, "mode-keys", "vi", scope="window", target=window)
    backend.set_option(ref, "remain-on-exit", "on", scope="window", global_=True)
    for _ in range(2):  # an option without an own value: nothing to do, no error
        backend.unset_option(ref, "remain-on-exit", scope="pane", target=pane)
    backend.unset_option(ref, "mode-keys", scope="window", target=window)
    backend.unset_option(ref, "remain-on-exit", scope="window", global_=True)
    assert backend.show_options(ref, scope="pane", target=pane) == {}
    assert "mode-keys" not in backend.show_options(ref, scope="window", target=window)
    assert backend.show_options(ref, scope="window", global_=True)["remain-on-exit"] == "off"


# -- kill_pane ----------------------------------------------------------------------------


async def test_kill_pane_removes_only_that_pane(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = session(backend, ref)
    other = backend.split_window(ref, pane).pane_id
    assert await call(client, "kill_pane", pane_id=other) == {"result": f"Pane killed: {other}"}
    assert [p.pane_id for p in backend.list_panes(ref)] == [pane]
    assert pane_info(backend, ref, pane).height == 24  # the neighbour took the space


async def test_kill_pane_of_a_sessions_last_pane_ends_the_session(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    session(backend, ref)
    lone = session(backend, ref, name="lone")
    await call(client, "kill_pane", pane_id=lone)
    assert [s.session_name for s in backend.list_sessions(ref)] == ["main"]


async def test_kill_pane_of_the_same_id_on_another_server_is_allowed(
    ref: ServerRef, backend: TmuxBackend
) -> None:
    elsewhere = ServerRef(socket_name="elsewhere")
    backend.new_session(elsewhere, name="x", command="cat")
    backend.split_window(elsewhere, "%0")
    caller = session(backend, ref)
    async with client_for(backend, ref, caller_pane=caller) as guarded:
        await call(guarded, "kill_pane", pane_id="%0", socket_name="elsewhere")
    assert [p.pane_id for p in backend.list_panes(elsewhere)] == ["%1"]
    assert [p.pane_id for p in backend.list_panes(ref)] == [caller]
