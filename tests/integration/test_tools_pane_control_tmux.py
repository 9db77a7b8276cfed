"""The pane control and lifecycle tools on real tmux, through the MCP client; and
the backend capabilities they added (directional select_pane, clear_pane,
paste_buffer guarded against dead panes, format escaping of '#[')."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import PaneDead, ServerRef, TmuxFailure
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitDead, WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux


def new_pane(tmux: RawTmux, target: str, *flags: str, command: str = "exec cat") -> str:
    """Split ``target`` (keeping the active pane) and return the new pane's id."""
    out = tmux("split-window", "-d", *flags, "-t", target, "-P", "-F", "#{pane_id}", command)
    return out.strip()


def grid(tmux: RawTmux, first: str) -> dict[str, str]:
    """Make ``first``'s window a 2x2 grid: corner -> pane id (``first`` is top-left)."""
    top_right = new_pane(tmux, first, "-h")
    return {
        "top-left": first,
        "top-right": top_right,
        "bottom-left": new_pane(tmux, first, "-v"),
        "bottom-right": new_pane(tmux, top_right, "-v"),
    }


def panes(tmux: RawTmux) -> list[str]:
    """Every pane as tmux lists it: id, place, size, activity, title, pid, mode."""
    fmt = "#{pane_id} #{pane_left},#{pane_top} #{pane_width}x#{pane_height} #{pane_active}"
    fmt += " #{pane_pid} #{pane_in_mode} #{pane_dead} #{window_zoomed_flag} #{pane_title}"
    return tmux("list-panes", "-a", "-F", fmt).splitlines()


def world(tmux: RawTmux) -> tuple[list[str], str, list[str]]:
    """What a refused call must leave alone: panes, buffers and sessions."""
    buffers = tmux("list-buffers", "-F", "#{buffer_name}")
    return panes(tmux), buffers, tmux("list-sessions", "-F", "#{session_name}").splitlines()


def active(tmux: RawTmux, window: str = "@0") -> str:
    return tmux("display-message", "-p", "-t", window, "#{pane_id}").strip()


def dead_pane(tmux: RawTmux, beside: str, wait_dead: WaitDead) -> str:
    """A pane whose program exited with status 3, kept by remain-on-exit."""
    tmux("set-option", "-g", "remain-on-exit", "on")
    pane = new_pane(tmux, beside, command="exit 3")
    wait_dead(pane, 3)
    return pane


def running(tmux: RawTmux, pane: str, command: str, wait_until: WaitUntil) -> None:
    """Wait until ``command`` runs in ``pane`` (after an ``exec``: the setup before it is done)."""
    wait_until(
        lambda: (
            tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip() == command
        ),
        what=f"{command} to run",
    )


def rows(backend: TmuxCommandBackend, server: ServerRef, pane: str) -> list[str]:
    return [r for r in backend.snapshot(server, pane, start="-").rows if r]


@pytest.fixture
async def guarded(
    backend: TmuxCommandBackend, tmux_server: ServerRef, quiet_pane: str
) -> AsyncIterator[Client]:  # type: ignore[type-arg]
    """A client whose server believes it runs in ``quiet_pane`` of the test server."""
    settings = Settings(
        socket_path=tmux_server.socket_path,
        caller_pane=quiet_pane,
        caller_socket=tmux_server.socket_path,
        safety="destructive",
    )
    async with Client(create_server(backend, settings)) as client:
        yield client


# -- display_message and find_pane_by_position ---------------------------------------


async def test_display_message_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    wait_dead: WaitDead,
) -> None:
    out = await call(client, "display_message", format_string="#{pane_id} #{pane_width}")
    assert out == {"result": f"{quiet_pane} 80"}
    dead = dead_pane(tmux, quiet_pane, wait_dead)
    status = await call(
        client, "display_message", format_string="#{pane_dead}:#{pane_dead_status}", pane_id=dead
    )
    assert status == {"result": "1:3"}


@pytest.mark.parametrize("fmt", ["#(touch {marker})", "#{{E:@evil}}", "#{{T:@evil}}"])
async def test_display_message_never_runs_a_shell_job(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    fmt: str,
) -> None:
    marker = tmp_path / "ran"
    tmux("set-option", "-g", "@evil", f"#(touch {marker})")
    error = await call_error(
        client, "display_message", format_string=fmt.format(marker=marker), pane_id=quiet_pane
    )
    assert "never runs shell commands" in error
    assert not marker.exists()


# -- titles, clearing, sizes ----------------------------------------------------------------


@pytest.mark.parametrize("title", ["plain", "#[fg=red] 100% ## #{pane_id} #(id)", "a##[b"])
async def test_set_pane_title_is_literal_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    title: str,
) -> None:
    info = await call(client, "set_pane_title", title=title, pane_id=quiet_pane)
    assert info["pane_title"] == title
    assert tmux("display-message", "-p", "-t", quiet_pane, "#{pane_title}").rstrip("\n") == title


async def test_clear_pane_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, "".join(f"L{i}\n" for i in range(1, 61)).encode() + b"tail")

    def written() -> bool:
        # The whole write, "tail" too: a clear before "tail" arrived would leave it behind.
        state = backend.pane_state(tmux_server, quiet_pane)
        return (state.anchor, state.cursor_x) == (60, 4)

    wait_until(written, what="output")
    backend.copy_mode(tmux_server, quiet_pane, enter=True, scroll_up=3)
    result = await call(client, "clear_pane", pane_id=quiet_pane)
    assert result == {"result": f"Pane cleared: {quiet_pane}"}
    state = backend.pane_state(tmux_server, quiet_pane)
    assert (state.history_size, state.cursor_x, state.cursor_y, state.in_mode) == (0, 0, 0, False)
    assert rows(backend, tmux_server, quiet_pane) == []


async def test_clear_pane_unknown_pane_changes_nothing(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, b"keep me\n")
    wait_until(lambda: rows(backend, tmux_server, quiet_pane) == ["keep me"], what="output")
    assert "no pane %55" in await call_error(client, "clear_pane", pane_id="%55")
    assert rows(backend, tmux_server, quiet_pane) == ["keep me"]


# -- selection and swaps ---------------------------------------------------------------------


# -- paste_text ---------------------------------------------------------------------------


async def test_paste_text_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    wait_until: WaitUntil,
) -> None:
    # A program that asks for bracketed paste and shows what arrives (ESC as ^[).
    # READY comes after the mode and stty: tmux parses in order, so once READY
    # shows, tmux has the mode (the program running says nothing of that).
    command = "printf '\\033[?2004h'; stty -echo; echo READY; exec cat -v"
    shown = new_pane(tmux, quiet_pane, command=command)
    running(tmux, shown, "cat", wait_until)
    wait_until(lambda: rows(backend, tmux_server, shown) == ["READY"], what="the program")
    tmux("set-buffer", "-b", "mine", "keep")
    await call(client, "paste_text", text="one\ntwo\n", pane_id=shown)
    wait_until(lambda: len(rows(backend, tmux_server, shown)) == 3, what="the bracketed paste")
    assert rows(backend, tmux_server, shown) == ["READY", "^[[200~one", "two"]
    await call(client, "paste_text", text="three\n", pane_id=shown, bracket=False)
    # cat -v prints the closing marker with the next line: "^[[201~three".
    wait_until(lambda: rows(backend, tmux_server, shown)[3:] == ["^[[201~three"], what="paste")
    assert tmux("list-buffers", "-F", "#{buffer_name}").split() == ["mine"]


async def test_paste_text_into_a_dead_pane_is_refused_and_tmux_survives(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    wait_dead: WaitDead,
) -> None:
    dead = dead_pane(tmux, quiet_pane, wait_dead)
    before = world(tmux)
    error = await call_error(client, "paste_text", text="hello", pane_id=dead)
    assert "has exited" in error
    assert world(tmux) == before  # the server is alive, no buffer left behind


# -- respawn_pane and kill_pane --------------------------------------------------------------


async def test_respawn_pane_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    tmp_path: Path,
    wait_until: WaitUntil,
) -> None:
    pane = new_pane(tmux, quiet_pane)
    old_pid = tmux("display-message", "-p", "-t", pane, "#{pane_pid}").strip()
    error = await call_error(client, "respawn_pane", pane_id=pane, kill=False)
    assert "kill=true" in error
    assert tmux("display-message", "-p", "-t", pane, "#{pane_pid}").strip() == old_pid
    info = await call(
        client,
        "respawn_pane",
        pane_id=pane,
        shell='echo "$GREETING in $PWD"; exec cat',
        start_directory=str(tmp_path),
        environment={"GREETING": "hello"},
    )
    assert info["pane_id"] == pane
    assert str(info["pane_pid"]) != old_pid
    # joined: the line is longer than the pane is wide when tmp_path is long
    wait_until(
        lambda: (
            f"hello in {tmp_path}"
            in backend.snapshot(tmux_server, pane, start="-", join_wrapped=True).rows
        ),
        what="echo",
    )


async def test_respawn_pane_revives_a_dead_pane_without_kill(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    wait_dead: WaitDead,
) -> None:
    dead = dead_pane(tmux, quiet_pane, wait_dead)
    info = await call(client, "respawn_pane", pane_id=dead, kill=False, shell="exec cat")
    assert info["pane_dead"] is False
    assert tmux("display-message", "-p", "-t", dead, "#{pane_dead}").strip() == "0"


async def test_kill_pane_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
) -> None:
    other = new_pane(tmux, quiet_pane)
    assert await call(client, "kill_pane", pane_id=other) == {"result": f"Pane killed: {other}"}
    assert tmux("list-panes", "-a", "-F", "#{pane_id}").split() == [quiet_pane]
    before = world(tmux)
    assert "no pane %9" in await call_error(client, "kill_pane", pane_id="%9")
    assert "not a tmux pane id" in await call_error(client, "kill_pane", pane_id="9")
    assert world(tmux) == before


async def test_kill_and_respawn_refuse_the_callers_own_pane(
    guarded: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
) -> None:
    other = new_pane(tmux, quiet_pane)
    before = world(tmux)
    for tool in ("kill_pane", "respawn_pane"):
        error = await call_error(guarded, tool, pane_id=quiet_pane)
        assert "where this MCP server itself runs" in error
    assert world(tmux) == before
    await call(guarded, "kill_pane", pane_id=other)
    assert tmux("list-panes", "-a", "-F", "#{pane_id}").split() == [quiet_pane]


# -- copy mode ------------------------------------------------------------------------------


async def test_copy_mode_on_real_tmux(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, "".join(f"L{i}\n" for i in range(1, 41)).encode())
    wait_until(lambda: backend.pane_state(tmux_server, quiet_pane).anchor == 40, what="output")
    await call(client, "enter_copy_mode", pane_id=quiet_pane, scroll_up=4)
    mode = "#{pane_in_mode} #{pane_mode} #{scroll_position}"
    assert tmux("display-message", "-p", "-t", quiet_pane, mode).split() == ["1", "copy-mode", "4"]
    # A huge count is cut to the history (tmux would otherwise loop 2**31 times).
    await call(client, "enter_copy_mode", pane_id=quiet_pane, scroll_up=2**31 - 1)
    assert tmux("display-message", "-p", "-t", quiet_pane, "#{scroll_position}").strip() == "17"
    await call(client, "exit_copy_mode", pane_id=quiet_pane)
    assert tmux("display-message", "-p", "-t", quiet_pane, "#{pane_in_mode}").strip() == "0"
    before = world(tmux)
    assert "scroll_up" in await call_error(client, "enter_copy_mode", scroll_up=-1)
    assert "no pane %3" in await call_error(client, "exit_copy_mode", pane_id="%3")
    assert world(tmux) == before


# -- pipe_pane ------------------------------------------------------------------------------


async def test_pipe_pane_writes_to_an_awkward_path_and_stops(
    client: Client,  # type: ignore[type-arg]
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
    tmp_path: Path,
) -> None:
    log = tmp_path / "it's #[a] ## 100%s $(x) log"
    log.write_bytes(b"old\n")

    def reaches(path: Path, data: bytes, expected: bytes) -> bool:
        """Write ``data`` to the pane (again); has ``expected`` reached ``path``?"""
        write_to_pane(quiet_pane, data)
        return expected in path.read_bytes()

    await call(client, "pipe_pane", pane_id=quiet_pane, output_path=str(log))
    wait_until(lambda: reaches(log, b"new\n", b"new"), what="output in the log")
    assert log.read_bytes().startswith(b"old\nnew\r\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == [log.name]
    await call(client, "pipe_pane", pane_id=quiet_pane)
    write_to_pane(quiet_pane, b"after\n")
    fresh = tmp_path / "fresh.log"
    fresh.write_bytes(b"old\n")
    await call(client, "pipe_pane", pane_id=quiet_pane, output_path=str(fresh), append=False)
    wait_until(lambda: reaches(fresh, b"x\n", b"x"), what="output in the truncated log")
    assert fresh.read_bytes().startswith(b"x")  # truncated: "old" is gone
    # tmux read "after" before "x": had the first pipe still been open, it got it.
    assert b"after" not in log.read_bytes()


@pytest.mark.parametrize(
    "path",
    ["relative.log", "{tmp}", "{tmp}/missing/x.log", "{tmp}/two\nlines", ""],
)
async def test_pipe_pane_bad_paths_change_nothing(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    path: str,
) -> None:
    before = world(tmux), tmux("display-message", "-p", "-t", quiet_pane, "#{pane_pipe}")
    await call_error(
        client, "pipe_pane", pane_id=quiet_pane, output_path=path.replace("{tmp}", str(tmp_path))
    )
    after = world(tmux), tmux("display-message", "-p", "-t", quiet_pane, "#{pane_pipe}")
    assert after == before
    assert list(tmp_path.iterdir()) == []


async def test_pipe_pane_on_a_dead_pane_is_refused(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    wait_dead: WaitDead,
) -> None:
    dead = dead_pane(tmux, quiet_pane, wait_dead)
    error = await call_error(client, "pipe_pane", pane_id=dead, output_path=str(tmp_path / "x"))
    assert "has exited" in error
    assert list(tmp_path.iterdir()) == []


# -- the backend capabilities behind these tools -----------------------------------------


def test_backend_select_pane_directions(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux, quiet_pane: str
) -> None:
    corners = grid(tmux, quiet_pane)
    backend.select_pane(tmux_server, quiet_pane, direction="right")
    assert active(tmux) == corners["top-right"]
    backend.select_pane(tmux_server, corners["top-right"], direction="up")  # wraps
    assert active(tmux) == corners["bottom-right"]
    backend.select_pane(tmux_server, corners["bottom-right"], direction="last")
    assert active(tmux) == corners["top-right"]
    alone = tmux("new-window", "-P", "-F", "#{pane_id}").strip()
    with pytest.raises(TmuxFailure, match="no last pane"):
        backend.select_pane(tmux_server, alone, direction="last")


def test_backend_clear_pane(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, "".join(f"L{i}\n" for i in range(1, 41)).encode())
    wait_until(lambda: backend.pane_state(tmux_server, quiet_pane).anchor == 40, what="output")
    backend.clear_pane(tmux_server, quiet_pane)
    state = backend.pane_state(tmux_server, quiet_pane)
    assert (state.history_size, state.cursor_x, state.cursor_y) == (0, 0, 0)
    assert rows(backend, tmux_server, quiet_pane) == []


def test_backend_paste_buffer_guards_dead_panes_and_quotes_names(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    quiet_pane: str,
    wait_until: WaitUntil,
    wait_dead: WaitDead,
) -> None:
    dead = dead_pane(tmux, quiet_pane, wait_dead)
    name = 'it\'s "odd" $HOME ~ #{x} ;'
    backend.load_buffer(tmux_server, name, "text\n")
    with pytest.raises(PaneDead):
        backend.paste_buffer(tmux_server, name, dead, delete=True)
    assert backend.server_info(tmux_server).is_alive  # tmux 3.3a would have crashed
    assert [b.name for b in backend.list_buffers(tmux_server)] == [name]
    live = new_pane(tmux, quiet_pane, command="stty -echo; exec cat")
    running(tmux, live, "cat", wait_until)
    backend.paste_buffer(tmux_server, name, live, bracket=False, delete=True)
    wait_until(lambda: rows(backend, tmux_server, live) == ["text"], what="the paste")
    assert backend.list_buffers(tmux_server) == []


def test_backend_names_with_hash_bracket_arrive_verbatim(
    backend: TmuxCommandBackend, tmux_server: ServerRef, quiet_pane: str, tmux: RawTmux
) -> None:
    for name in ("a#[b", "a##[b", "x#{y}##"):
        backend.rename_session(tmux_server, "$0", name)
        assert tmux("display-message", "-p", "-t", "$0", "#{session_name}").rstrip("\n") == name
