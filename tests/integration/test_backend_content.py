"""Keys, copy mode, pipe-pane, history and buffers on real tmux."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridmux.backend import InvalidArgument, NotFound, ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend

from .conftest import WaitUntil, WriteToPane

pytestmark = pytest.mark.tmux


def _rows(backend: TmuxCommandBackend, server: ServerRef, pane_id: str) -> tuple[str, ...]:
    return backend.snapshot(server, pane_id).rows


def _shows(
    backend: TmuxCommandBackend, server: ServerRef, pane_id: str, wait_until: WaitUntil, *rows: str
) -> None:
    """Wait until the pane's screen, from the top, reads ``rows``."""
    wait_until(
        lambda: _rows(backend, server, pane_id)[: len(rows)] == rows,
        what=f"pane {pane_id} to show {rows}",
    )


# -- send_keys -----------------------------------------------------------------


def test_send_keys_literal_with_enter(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, wait_until: WaitUntil
) -> None:
    # A trailing ';' would end tmux's command; '-x' would be an option without "--".
    backend.send_keys(tmux_server, pane, "printf '%s|%s\\n' 中文é -x;", literal=True, enter=True)
    _shows(backend, tmux_server, pane, wait_until, "$ printf '%s|%s\\n' 中文é -x;", "中文é|-x", "$")


def test_send_keys_by_key_name(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, wait_until: WaitUntil
) -> None:
    backend.send_keys(tmux_server, pane, "echo abX", literal=True)
    backend.send_keys(tmux_server, pane, "BSpace")  # a key name, not the text "BSpace"
    backend.send_keys(tmux_server, pane, "c", literal=True, enter=True)
    _shows(backend, tmux_server, pane, wait_until, "$ echo abc", "abc", "$")


def test_send_keys_literal_key_name_is_text(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, wait_until: WaitUntil
) -> None:
    backend.send_keys(tmux_server, pane, "echo Enter", literal=True)
    backend.send_keys(tmux_server, pane, "", enter=True)  # just Enter
    _shows(backend, tmux_server, pane, wait_until, "$ echo Enter", "Enter", "$")


def test_send_keys_bad_targets(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    with pytest.raises(NotFound, match="send keys to pane %99"):
        backend.send_keys(tmux_server, "%99", "x")
    with pytest.raises(InvalidArgument):
        backend.send_keys(tmux_server, "main", "x")


# -- history, copy mode, pipe-pane ----------------------------------------------


def test_clear_history(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, b"".join(b"%d\n" % i for i in range(60)))
    wait_until(
        lambda: backend.pane_state(tmux_server, quiet_pane).history_size == 37,
        what="37 history rows",
    )
    backend.clear_history(tmux_server, quiet_pane)
    state = backend.pane_state(tmux_server, quiet_pane)
    assert (state.history_size, state.cursor_y) == (0, 23)
    assert _rows(backend, tmux_server, quiet_pane)[-2:] == ("59", "")
    with pytest.raises(NotFound):
        backend.clear_history(tmux_server, "%99")


def test_copy_mode_enter_scroll_and_exit(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    write_to_pane(quiet_pane, b"".join(b"%d\n" % i for i in range(60)))
    wait_until(
        lambda: backend.pane_state(tmux_server, quiet_pane).history_size == 37,
        what="37 history rows",
    )
    backend.copy_mode(tmux_server, quiet_pane, enter=True, scroll_up=5)
    assert backend.pane_state(tmux_server, quiet_pane).in_mode
    assert backend.display_message(tmux_server, quiet_pane, "#{pane_mode}") == "copy-mode"
    assert backend.display_message(tmux_server, quiet_pane, "#{scroll_position}") == "5"
    # A snapshot still reads the live grid, not the scrolled view.
    assert backend.snapshot(tmux_server, quiet_pane).rows[-2:] == ("59", "")
    backend.copy_mode(tmux_server, quiet_pane, enter=False)
    assert not backend.pane_state(tmux_server, quiet_pane).in_mode
    backend.copy_mode(tmux_server, quiet_pane, enter=False)  # leaving twice is fine
    backend.copy_mode(tmux_server, quiet_pane, enter=True, scroll_up=0)
    assert backend.display_message(tmux_server, quiet_pane, "#{scroll_position}") == "0"
    with pytest.raises(InvalidArgument):
        backend.copy_mode(tmux_server, quiet_pane, enter=False, scroll_up=3)
    with pytest.raises(InvalidArgument):
        backend.copy_mode(tmux_server, quiet_pane, enter=True, scroll_up=-1)
    with pytest.raises(NotFound):
        backend.copy_mode(tmux_server, "%99", enter=True)


def test_pipe_pane_writes_a_file_and_stops(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    quiet_pane: str,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
    isolated_env: Path,
) -> None:
    # '#' and '%' are format and strftime escapes for pipe-pane; they must survive.
    target = isolated_env / "out #{pane_id} %Y.log"
    backend.pipe_pane(tmux_server, quiet_pane, f"cat >> '{target}'")
    write_to_pane(quiet_pane, "first 中\n".encode())
    wait_until(lambda: target.exists() and b"first" in target.read_bytes(), what="piped output")
    backend.pipe_pane(tmux_server, quiet_pane, None)
    write_to_pane(quiet_pane, b"second\n")
    wait_until(
        lambda: backend.snapshot(tmux_server, quiet_pane).rows[1] == "second",
        what="the second line on screen",
    )
    assert target.read_bytes() == "first 中\r\n".encode()  # ONLCR: the pane saw \r\n
    with pytest.raises(NotFound):
        backend.pipe_pane(tmux_server, "%99", "cat > /dev/null")
    with pytest.raises(InvalidArgument):
        backend.pipe_pane(tmux_server, quiet_pane, "")


# -- buffers -------------------------------------------------------------------

CONTENT = "line one\n\tindented 中文 é\n\n\x1b[1mbold\x1b[0m; trailing\n\n"


def test_buffer_round_trip(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    assert backend.list_buffers(tmux_server) == []
    backend.load_buffer(tmux_server, "my buffer 中", CONTENT)
    backend.load_buffer(tmux_server, "second", "x")
    assert backend.show_buffer(tmux_server, "my buffer 中") == CONTENT
    listed = {b.name: b for b in backend.list_buffers(tmux_server)}
    assert set(listed) == {"my buffer 中", "second"}
    assert listed["my buffer 中"].size == len(CONTENT.encode())
    assert listed["second"].created > 0
    backend.load_buffer(tmux_server, "second", "replaced")
    assert backend.show_buffer(tmux_server, "second") == "replaced"
    backend.delete_buffer(tmux_server, "second")
    assert [b.name for b in backend.list_buffers(tmux_server)] == ["my buffer 中"]


def test_buffer_errors(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    with pytest.raises(NotFound, match="nope"):
        backend.show_buffer(tmux_server, "nope")
    with pytest.raises(NotFound, match="nope"):
        backend.delete_buffer(tmux_server, "nope")
    with pytest.raises(NotFound, match="nope"):
        backend.paste_buffer(tmux_server, "nope", pane)
    with pytest.raises(InvalidArgument):
        backend.load_buffer(tmux_server, "empty", "")
    with pytest.raises(InvalidArgument):
        backend.load_buffer(tmux_server, "", "x")
    backend.load_buffer(tmux_server, "b", "x")
    with pytest.raises(NotFound):
        backend.paste_buffer(tmux_server, "b", "%99")


def test_paste_buffer_plain_and_delete(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, wait_until: WaitUntil
) -> None:
    backend.load_buffer(tmux_server, "cmd", "echo pasted 中")
    backend.paste_buffer(tmux_server, "cmd", pane, bracket=False)
    backend.send_keys(tmux_server, pane, "", enter=True)
    _shows(backend, tmux_server, pane, wait_until, "$ echo pasted 中", "pasted 中", "$")
    assert [b.name for b in backend.list_buffers(tmux_server)] == ["cmd"]
    backend.paste_buffer(tmux_server, "cmd", pane, bracket=False, delete=True)
    assert backend.list_buffers(tmux_server) == []


def test_paste_buffer_brackets_when_the_program_asks(
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    write_to_pane: WriteToPane,
    wait_until: WaitUntil,
) -> None:
    session = backend.new_session(tmux_server, command="exec cat -v")
    pane_id = session.active_pane_id
    assert pane_id is not None
    # The program enables bracketed paste. tmux reads the pane's output when it
    # gets to it, so wait for a line written after the mode: tmux has applied it.
    write_to_pane(pane_id, b"\x1b[?2004hREADY\n")
    _shows(backend, tmux_server, pane_id, wait_until, "READY")
    backend.load_buffer(tmux_server, "b", "hi")
    backend.paste_buffer(tmux_server, "b", pane_id, bracket=False)
    backend.paste_buffer(tmux_server, "b", pane_id, bracket=True)
    backend.send_keys(tmux_server, pane_id, "", enter=True)
    # The tty echoes the input line, then cat -v prints it with ESC as ^[.
    expected = "hi^[[200~hi^[[201~"
    wait_until(
        lambda: expected in _rows(backend, tmux_server, pane_id),
        what="the bracketed paste to reach the program",
    )
