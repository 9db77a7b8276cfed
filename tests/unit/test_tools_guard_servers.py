"""Which tmux server a call may reach (issue 16 items 2, 5, 10), on the
simulator: socket paths that are not sockets are refused before tmux runs,
socket spellings are compared by what they name, and a named socket confines
every call to its server."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import socket_directory
from gridmux.errors import InvalidArgument
from gridmux.tools._context import check_socket_file, same_socket
from tests.mcp_calls import call, call_error
from tmuxsim import SimBackend


@pytest.fixture
def listening(tmp_path: Path) -> Iterator[Path]:
    """A real UNIX socket in the test's directory."""
    path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        yield path


def test_a_regular_file_directory_or_dangling_link_is_not_a_socket_path(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    dangling = tmp_path / "dangling"
    dangling.symlink_to(tmp_path / "nothing")
    to_file = tmp_path / "to-file"
    to_file.symlink_to(precious)
    for path, why in [
        (precious, "is not a socket"),
        (tmp_path, "is not a socket"),
        (to_file, "is not a socket"),
        (dangling, "symlink to nothing"),
        (tmp_path / "missing" / "s", "does not exist"),
    ]:
        with pytest.raises(InvalidArgument, match=why):
            check_socket_file(str(path))
    assert precious.read_text() == "keep me"


def test_a_socket_or_a_free_name_is_a_socket_path(listening: Path, tmp_path: Path) -> None:
    assert check_socket_file(str(listening)) == str(listening)
    assert check_socket_file(str(tmp_path / "new.sock")) == str(tmp_path / "new.sock")


def test_same_socket_sees_through_spellings(listening: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(listening)
    folder = str(tmp_path)
    for spelling in [
        f"{folder}//s.sock",
        f"{folder}/./s.sock",
        f"{folder}/../{tmp_path.name}/s.sock",
        str(link),
    ]:
        assert same_socket(spelling, str(listening)), spelling
    assert not same_socket(str(tmp_path / "other.sock"), str(listening))


@pytest.fixture
async def confined(tmp_path: Path) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    settings = Settings(backend="sim", socket_name="agent", safety="destructive")
    backend = SimBackend()
    async with Client(create_server(backend, settings)) as client:
        yield client


async def test_create_session_refuses_a_file_and_leaves_it(tmp_path: Path) -> None:
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me")
    settings = Settings(backend="sim", safety="destructive")
    async with Client(create_server(SimBackend(), settings)) as client:
        error = await call_error(
            client, "create_session", session_name="x", socket_path=str(precious)
        )
    assert "exists and is not a socket" in error and "Hint:" in error
    assert precious.read_text() == "keep me"


@pytest.mark.parametrize(
    "other",
    [{"socket_name": "default"}, {"socket_name": "mine"}, {"socket_path": "/tmp/x/../y.sock"}],
)
async def test_a_named_socket_confines_every_call(
    confined: Client,  # type: ignore[type-arg]
    other: dict[str, str],
) -> None:
    for tool, args in [
        ("list_sessions", {}),
        ("create_session", {"session_name": "x"}),
        ("kill_server", {}),
    ]:
        error = await call_error(confined, tool, **args, **other)
        assert "confined to tmux server socket_name 'agent'" in error
        assert "--allow-other-servers on" in error
    assert await call(confined, "list_sessions", socket_name="agent") == {"result": []}


@pytest.mark.parametrize("directory", ["made", "absent"])
async def test_list_servers_under_confinement_refuses_another_servers_path(
    confined: Client,  # type: ignore[type-arg]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    directory: str,
) -> None:
    """Extra socket paths are not dropped without a word: another server's is
    refused; the confined server's own path is probed like any other, also
    before tmux made its socket directory."""
    monkeypatch.setenv("TMUX_TMPDIR", str(tmp_path / "tmpdir"))
    if directory == "made":
        (tmp_path / "tmpdir" / f"tmux-{os.getuid()}").mkdir(parents=True)
    other = str(tmp_path / "other.sock")
    error = await call_error(confined, "list_servers", extra_socket_paths=[other])
    assert "confined to tmux server socket_name 'agent'" in error
    assert "--allow-other-servers on" in error
    own = os.path.join(socket_directory(), "agent")
    assert await call(confined, "list_servers", extra_socket_paths=[own]) == await call(
        confined, "list_servers"
    )


async def test_allow_other_servers_lifts_the_confinement() -> None:
    settings = Settings(
        backend="sim", socket_name="agent", allow_other_servers=True, safety="destructive"
    )
    async with Client(create_server(SimBackend(), settings)) as client:
        made = await call(client, "create_session", session_name="x", socket_name="mine")
        assert made["session_name"] == "x"


def test_the_command_line_names_the_opt_in() -> None:
    assert Settings.from_command_line(["--socket-name", "a"]).allow_other_servers is False
    opted = Settings.from_command_line(["--socket-name", "a", "--allow-other-servers", "on"])
    assert opted.allow_other_servers is True
