"""The tmux:// resources by name, the session and window details, and the socket query."""

from __future__ import annotations

from urllib.parse import quote

import pytest
from fastmcp import Client
from mcp_types import INVALID_PARAMS

from gridmux.backend import ServerRef
from tests.mcp_calls import call
from tests.unit.test_resources import read_error, read_json, two_sessions
from tmuxsim import SimBackend

REF = ServerRef()


async def test_a_session_by_name_id_or_number_is_the_same_session(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    session_id, _ = two_sessions(backend)
    forms = ["dev", session_id, quote(session_id, safe=""), session_id.removeprefix("$")]
    answers = [await read_json(client, f"tmux://sessions/{f}/windows") for f in forms]
    assert all(a == answers[0] for a in answers)
    assert answers[0] == (await call(client, "list_windows", session_name="dev"))["result"]


async def test_session_detail_is_the_session_and_its_windows(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    session_id, _ = two_sessions(backend)
    detail = await read_json(client, "tmux://sessions/dev")
    windows = detail.pop("windows")
    assert detail == await call(client, "get_session_info", session_id=session_id)
    assert windows == (await call(client, "list_windows", session_id=session_id))["result"]
    assert await read_json(client, f"tmux://sessions/{quote(session_id, safe='')}") == {
        **detail,
        "windows": windows,
    }


async def test_a_session_named_like_a_number_wins_over_the_id(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    first = backend.new_session(REF, name="a", width=40, height=5)
    named = backend.new_session(REF, name=first.session_id.removeprefix("$"), width=40, height=5)
    detail = await read_json(client, f"tmux://sessions/{named.session_name}")
    assert detail["session_id"] == named.session_id
    by_id = await read_json(client, f"tmux://sessions/{quote(first.session_id, safe='')}")
    assert by_id["session_id"] == first.session_id


async def test_window_detail_by_index_name_or_id(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    _, window_id = two_sessions(backend)
    info = await call(client, "get_window_info", window_id=window_id)
    panes = (await call(client, "list_panes", window_id=window_id, fields=["all"]))["result"]
    expected = {**info, "panes": panes}
    index = info["window_index"]
    for form in (str(index), "logs", window_id):
        assert await read_json(client, f"tmux://sessions/dev/windows/{form}") == expected
    assert len(panes) == 2


@pytest.mark.parametrize(
    ("uri", "needle"),
    [
        ("tmux://sessions/dev/windows/9", "session 'dev' has no window '9'"),
        ("tmux://sessions/dev/windows/nosuch", "has no window 'nosuch'"),
        ("tmux://sessions/ops/windows/@2", "has no window '@2'"),
        ("tmux://sessions/nosuch", "no session named 'nosuch'"),
        ("tmux://sessions?socket_name=a/b", "socket"),
    ],
)
async def test_a_missing_window_or_bad_socket_is_invalid_params_with_a_hint(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
    uri: str,
    needle: str,
) -> None:
    two_sessions(backend)
    error = await read_error(client, uri)
    assert error.error.code == INVALID_PARAMS
    assert needle in error.error.message and "Hint:" in error.error.message


async def test_the_socket_query_reads_another_server(
    client: Client,  # type: ignore[type-arg]
    backend: SimBackend,
) -> None:
    far = backend.new_session(ServerRef(socket_name="far"), name="far", width=40, height=5)
    backend.new_session(REF, name="near", width=40, height=5)
    assert [s["session_name"] for s in await read_json(client, "tmux://sessions")] == ["near"]
    listed = await read_json(client, "tmux://sessions?socket_name=far")
    assert [s["session_name"] for s in listed] == ["far"]
    detail = await read_json(client, "tmux://sessions/far?socket_name=far")
    assert detail["session_id"] == far.session_id
    pane = far.active_pane_id
    assert pane is not None
    info = await read_json(client, f"tmux://panes/{quote(pane, safe='')}?socket_name=far")
    assert info == await call(client, "get_pane_info", pane_id=pane, socket_name="far")
