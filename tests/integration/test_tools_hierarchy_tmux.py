"""Server, session and window tools through the MCP client, on real tmux.

Every test runs on the private server of ``conftest.py`` (libtmux's plugin
names it with ``-L`` in the test's private ``TMUX_TMPDIR``); tests that need
more servers (discovery by name or by path, kill_server) start their own and
kill them in a finalizer. Bad input is checked to change nothing by re-listing with raw
tmux.
"""

from __future__ import annotations

import os
import socket
import subprocess
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitUntil

pytestmark = pytest.mark.tmux

#: ``state()``: everything a refused call must leave as it was.
State = Callable[[], str]


@pytest.fixture
def state(tmux: RawTmux) -> State:
    def read() -> str:
        sessions = tmux("list-sessions", "-F", "#{session_id} #{session_name} #{session_windows}")
        windows = tmux(
            "list-windows",
            "-a",
            "-F",
            "#{window_id} #{session_id} #{window_index} #{window_name} #{window_active} "
            "#{window_width}x#{window_height} #{window_layout}",
        )
        panes = tmux("list-panes", "-a", "-F", "#{pane_id} #{window_id} #{pane_active}")
        return sessions + windows + panes

    return read


@pytest.fixture
def named_servers(tmux_bin: str, isolated_env: Path) -> Iterator[Callable[[str], str]]:
    """Start servers by name (``tmux -L``) in this test's TMUX_TMPDIR; their socket paths.

    A name that is an absolute path starts a server by path (``tmux -S``) there.
    """
    started: list[list[str]] = []
    config = isolated_env / "named.conf"
    config.write_text("")

    def start(name: str) -> str:
        where = ["-S", name] if name.startswith("/") else ["-L", name]
        result = subprocess.run(
            [tmux_bin, "-f", str(config), *where, "new-session", "-d", "-s", Path(name).name]
            + ["exec sleep 100000"],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert result.returncode == 0, result.stderr
        started.append(where)
        if name.startswith("/"):
            return name
        return str(isolated_env / "tmp" / f"tmux-{os.getuid()}" / name)

    yield start
    for where in started:
        subprocess.run(
            [tmux_bin, *where, "kill-server"],
            capture_output=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )


def connectable(path: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(path)
        except OSError:
            return False
    return True


# -- servers --------------------------------------------------------------------------


async def test_list_servers_finds_servers_by_name_and_by_extra_path(
    client: Client,  # type: ignore[type-arg]
    tmux_server: ServerRef,
    tmux: RawTmux,
    named_servers: Callable[[str], str],
    isolated_env: Path,
) -> None:
    tmux("new-session", "-d", "-s", "main")
    own = tmux_server.socket_path  # the fixture's server, named by libtmux's plugin
    assert own is not None
    alpha = named_servers("alpha")
    directory = Path(alpha).parent
    assert Path(own).parent == directory and Path(own).name > "alpha"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gone:
        gone.bind(str(directory / "stale"))  # a dead server's socket: skipped
    (directory / "notes").write_text("not a socket")
    version = tmux("display-message", "-p", "#{version}").strip()

    def named(path: str) -> dict[str, Any]:
        found_by_name = {"is_alive": True, "socket_name": Path(path).name, "socket_path": path}
        return found_by_name | {"session_count": 1, "version": version}

    found = (await call(client, "list_servers"))["result"]
    assert found == [named(alpha), named(own)]
    elsewhere = named_servers(str(isolated_env / "elsewhere"))
    extra = (
        await call(
            client,
            "list_servers",
            extra_socket_paths=[elsewhere, str(isolated_env / "nothing-here"), alpha],
        )
    )["result"]
    assert [(s["socket_name"], s["socket_path"]) for s in extra] == [
        ("alpha", alpha),
        (Path(own).name, own),
        (None, elsewhere),
    ]
    assert extra[2]["session_count"] == 1
    # What list_servers reports is what the other tools take.
    by_path = await call(client, "list_sessions", socket_path=elsewhere)
    assert [s["session_name"] for s in by_path["result"]] == ["elsewhere"]
    by_name = await call(client, "list_sessions", socket_name="alpha")
    assert [s["session_name"] for s in by_name["result"]] == ["alpha"]


async def test_get_server_info_and_kill_server_really_end_the_server(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    named_servers: Callable[[str], str],
) -> None:
    path = named_servers("doomed")
    info = await call(client, "get_server_info", socket_name="doomed")
    assert (info["is_alive"], info["socket_name"], info["socket_path"]) == (True, "doomed", path)
    assert info["session_count"] == 1 and info["version"]
    said = await call(client, "kill_server", socket_name="doomed")
    assert said["result"] == f"Server killed: {path}"
    assert not connectable(path)
    after = await call(client, "get_server_info", socket_name="doomed")
    assert (after["is_alive"], after["session_count"], after["version"]) == (False, 0, None)
    again = await call(client, "kill_server", socket_name="doomed")  # gone: success, said so
    assert again["result"] == f"No tmux server runs on {path}: it is already gone, nothing to kill."
    # The test's own server was not touched.
    tmux("list-sessions")


@pytest.fixture
async def caller_client(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux
) -> AsyncIterator[tuple[Client, dict[str, str]]]:  # type: ignore[type-arg]
    """A client whose MCP server claims to run in the 'home' session's first pane."""
    tmux("new-session", "-d", "-s", "home", "-n", "mine", "exec sleep 100000")
    tmux("new-window", "-d", "-t", "home:", "-n", "other", "exec sleep 100000")
    # Every window named outright: state() holds the names, and automatic-rename
    # would rename an unnamed one after its process on a timer of its own.
    tmux("new-session", "-d", "-s", "work", "-n", "work", "exec sleep 100000")
    ids = dict(
        line.split()
        for line in tmux(
            "list-windows", "-a", "-F", "#{session_name}:#{window_name} #{pane_id}"
        ).splitlines()
    )
    ids.update(
        dict(
            line.split()
            for line in tmux(
                "list-windows", "-a", "-F", "@#{window_name} #{window_id}"
            ).splitlines()
        )
    )
    settings = Settings(
        socket_path=tmux_server.socket_path,
        safety="destructive",
        caller_pane=ids["home:mine"],
        caller_socket=tmux_server.socket_path,
    )
    async with Client(create_server(backend, settings)) as c:
        yield c, ids


async def test_kill_tools_refuse_to_end_the_mcp_servers_own_pane(
    caller_client: tuple[Client, dict[str, str]],  # type: ignore[type-arg]
    state: State,
    tmux: RawTmux,
) -> None:
    client, ids = caller_client
    before = state()
    for tool, args in (
        ("kill_server", {}),
        ("kill_session", {"session_name": "home"}),
        ("kill_window", {"window_id": ids["@mine"]}),
    ):
        error = await call_error(client, tool, **args)
        assert "refusing to" in error and ids["home:mine"] in error, tool
    assert state() == before
    # What does not hold the caller's pane can go.
    await call(client, "kill_window", window_id=ids["@other"])
    await call(client, "kill_session", session_name="work")
    assert tmux("list-windows", "-a", "-F", "#{window_name}").split() == ["mine"]


async def test_kill_server_guard_holds_for_the_default_server_inside_tmux(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Inside tmux, the default server is the caller's own (TMUX), whatever its socket's name."""
    tmux("new-session", "-d", "-s", "home", "exec sleep 100000")
    pane = tmux("list-panes", "-a", "-F", "#{pane_id}").strip()
    socket_path = tmux_server.socket_path
    assert socket_path is not None and not socket_path.endswith("/default")
    monkeypatch.setenv("TMUX", f"{socket_path},1,$0")
    settings = Settings(
        safety="destructive", caller_pane=pane, caller_socket=socket_path
    )  # no socket configured: the default server
    async with Client(create_server(backend, settings)) as c:
        assert "refusing to kill the tmux server" in await call_error(c, "kill_server")
    assert tmux("list-sessions", "-F", "#{session_name}").split() == ["home"]


# -- sessions ---------------------------------------------------------------------------


# -- windows ----------------------------------------------------------------------------


def detached_session(tmux: RawTmux, *args: str) -> None:
    """``new-session -d`` sized by ``-x``/``-y`` on every release: tmux 3.2a ignores
    them for a detached session (80x23), so resize as gridmux's backend does."""
    tmux("new-session", "-d", *args)
    x, y = args[args.index("-x") + 1], args[args.index("-y") + 1]
    target = args[args.index("-s") + 1] + ":"
    tmux("resize-window", "-t", target, "-x", x, "-y", y)
    tmux("set-option", "-wu", "-t", target, "window-size")


@pytest.fixture
def dev(tmux: RawTmux) -> dict[str, str]:
    """Session 'dev' (80x24): windows 0 'editor' (current) and 1 'shell'; session 'ops'."""
    detached_session(tmux, "-s", "dev", "-n", "editor", "-x", "80", "-y", "24")
    tmux("new-window", "-d", "-t", "dev:1", "-n", "shell")
    detached_session(tmux, "-s", "ops", "-n", "logs", "-x", "80", "-y", "24")
    rows = tmux("list-windows", "-a", "-F", "#{window_name} #{window_id} #{session_id}")
    ids = {name: wid for name, wid, _ in (line.split() for line in rows.splitlines())}
    ids["dev"] = tmux("display-message", "-p", "-t", "dev", "#{session_id}").strip()
    return ids


def names(tmux: RawTmux, session: str) -> list[tuple[str, str]]:
    rows = tmux("list-windows", "-t", session, "-F", "#{window_index} #{window_name}")
    return [(index, name) for index, name in (line.split(" ", 1) for line in rows.splitlines())]


async def test_get_window_info_on_a_running_server_without_windows(
    client: Client,  # type: ignore[type-arg]
) -> None:
    assert "has no windows" in await call_error(client, "get_window_info")
    assert (await call(client, "list_windows"))["result"] == []


async def test_create_window_places_attaches_and_configures_the_window(
    client: Client,  # type: ignore[type-arg]
    dev: dict[str, str],
    tmux: RawTmux,
    tmp_path: Path,
    wait_until: WaitUntil,
    state: State,
) -> None:
    quiet = await call(client, "create_window", session_name="dev", window_name="build")
    assert (quiet["window_index"], quiet["window_active"]) == (2, False)
    after = await call(
        client, "create_window", session_name="dev", window_name="after", direction="after"
    )
    before_ = await call(
        client, "create_window", session_name="dev", window_name="before", direction="before"
    )
    assert (after["window_index"], before_["window_index"]) == (1, 0)
    assert names(tmux, "dev") == [
        ("0", "before"),
        ("1", "editor"),
        ("2", "after"),
        ("3", "shell"),
        ("4", "build"),
    ]
    made = await call(
        client,
        "create_window",
        session_name="ops",
        attach=True,
        start_directory=str(tmp_path),
        environment={"GMX_STAGE": "it"},
        suppress_persistent_history=True,
        window_name="env",
    )
    assert made["window_active"] is True
    pane = made["active_pane_id"]
    assert tmux("display-message", "-p", "-t", "ops", "#{window_id}").strip() == made["window_id"]
    tmux("send-keys", "-t", pane, 'echo "[$GMX_STAGE|$HISTFILE|$PWD]"', "Enter")
    wait_until(
        lambda: f"[it||{tmp_path}]" in tmux("capture-pane", "-p", "-J", "-t", pane),
        what="the window's environment echoed",
    )
    # Per process: the session environment is unchanged.
    assert "GMX_STAGE" not in tmux("show-environment", "-t", "ops")
    snapshot = state()
    for args, needle in (
        ({"session_name": "dev", "start_directory": str(tmp_path / "nope")}, "not an existing"),
        ({}, "2 sessions"),
        ({"session_name": "dev", "window_name": ""}, "must not be empty"),
    ):
        assert needle in await call_error(client, "create_window", **args)
    assert state() == snapshot


async def test_split_window_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    dev: dict[str, str],
    tmux: RawTmux,
    tmp_path: Path,
    wait_until: WaitUntil,
    state: State,
) -> None:
    first = tmux("display-message", "-p", "-t", dev["logs"], "#{pane_id}").strip()
    below = await call(client, "split_window", session_name="ops")
    assert below["window_id"] == dev["logs"] and below["pane_top"] == 13
    assert (below["pane_height"], below["pane_width"]) == (11, 80)
    assert tmux("display-message", "-p", "-t", dev["logs"], "#{pane_id}").strip() == first
    right = await call(
        client, "split_window", pane_id=first, direction="right", size="25%", shell="exec cat"
    )
    assert (right["pane_width"], right["pane_left"]) == (20, 60)
    wait_until(
        lambda: (
            tmux("display-message", "-p", "-t", right["pane_id"], "#{pane_current_command}").strip()
            == "cat"
        ),
        what="cat in the new pane",
    )
    left = await call(
        client,
        "split_window",
        window_id=dev["shell"],
        direction="left",
        size=10,
        start_directory=str(tmp_path),
        environment={"GMX_ROLE": "side"},
    )
    assert (left["pane_width"], left["pane_left"]) == (10, 0)
    tmux("send-keys", "-t", left["pane_id"], 'echo "<$GMX_ROLE:$PWD>"', "Enter")
    wait_until(
        lambda: f"<side:{tmp_path}>" in tmux("capture-pane", "-p", "-J", "-t", left["pane_id"]),
        what="the pane's environment echoed",
    )
    before = state()
    for args, needle in (
        ({"pane_id": first, "size": 12}, "1..10 cells"),
        ({"pane_id": first, "size": "100%"}, "between 1% and 99%"),
        ({"pane_id": first, "size": "big"}, "is not 'N%'"),
        ({"pane_id": "%999"}, "no pane %999"),
        ({}, "3 windows"),
    ):
        assert needle in await call_error(client, "split_window", **args)
    assert state() == before


async def test_split_window_too_small_is_refused_by_tmux_and_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    state: State,
) -> None:
    # named outright: state() holds the name, which automatic-rename would change
    detached_session(tmux, "-s", "tiny", "-n", "tiny", "-x", "80", "-y", "2")
    before = state()
    assert "no room to split" in await call_error(client, "split_window", size=1)
    error = await call_error(client, "split_window")  # tmux itself says no
    assert "space" in error
    assert state() == before


async def test_select_layout_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    dev: dict[str, str],
    tmux: RawTmux,
    state: State,
) -> None:
    single = (await call(client, "get_window_info", window_id=dev["editor"]))["window_layout"]
    for _ in range(2):
        tmux("split-window", "-d", "-t", dev["logs"])
    stacked = (await call(client, "get_window_info", window_id=dev["logs"]))["window_layout"]
    side = await call(client, "select_layout", layout="even-horizontal", window_id=dev["logs"])
    tops = tmux("list-panes", "-t", dev["logs"], "-F", "#{pane_top}").split()
    assert tops == ["0", "0", "0"] and side["window_layout"] != stacked
    restored = await call(client, "select_layout", layout=stacked, window_id=dev["logs"])
    assert restored["window_layout"] == stacked
    for name in ("even-vertical", "main-horizontal", "main-vertical", "tiled"):
        await call(client, "select_layout", layout=name, window_id=dev["logs"])
    before = state()
    for layout, needle in (
        ("nonsense", "neither a layout name"),
        ("main-horizontal-mirrored", "not supported"),
        ("0000,80x24,0,0,0", "wrong checksum"),  # checksummed form (3.8 prints JSON)
        (single, "has 3 panes; a layout string"),  # right checksum, wrong pane count
    ):
        assert needle in await call_error(
            client, "select_layout", layout=layout, window_id=dev["logs"]
        )
    assert state() == before


# -- the real backend's side of the additions ------------------------------------------------


def test_backend_lists_nothing_on_a_server_without_sessions(
    backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    assert backend.list_windows(tmux_server) == []
    assert backend.list_panes(tmux_server) == []


def test_backend_new_window_direction_and_last_flag(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
) -> None:
    session = backend.new_session(tmux_server, name="s", window_name="w0")
    sid = session.session_id
    tmux("new-window", "-d", "-t", "s:3", "-n", "w3")
    after = backend.new_window(tmux_server, sid, name="after", direction="after")
    before = backend.new_window(tmux_server, sid, name="before", direction="before", select=True)
    assert (after.window_index, before.window_index, before.active) == (1, 0, True)
    listed: list[Any] = [
        (w.window_index, w.window_name, w.active, w.last)
        for w in backend.list_windows(tmux_server, sid)
    ]
    assert listed == [
        (0, "before", True, False),
        (1, "w0", False, True),
        (2, "after", False, False),
        (3, "w3", False, False),
    ]
