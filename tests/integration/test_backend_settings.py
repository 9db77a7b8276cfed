"""Options, environment and hooks on real tmux: exact round trips through tmux's quoting."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from gridmux.backend import HookEntry, InvalidArgument, NotFound, ServerRef, TmuxFailure
from gridmux.backend._command_backend import TmuxCommandBackend

pytestmark = pytest.mark.tmux

RawTmux = Callable[..., str]

# Each value exercises one branch of tmux's args_escape (quotes, vis escapes).
AWKWARD_VALUES = [
    "plain",
    "has space",
    'dq"x',
    "sq'x \"y",
    "#{pane_id} $HOME ;",
    "nl\nx\ttab\x1bend\r",
    "中文 é",
    "back\\slash",
    "~tilde",
    "",
    '"',
    "\\",
    "it's",
    "$",
    "`cmd`",
    "-dash",
    ";",
    "a;",
    "x\\;",
    "  lead and trail  ",
    "\\033 literal",
]


@pytest.mark.parametrize("value", AWKWARD_VALUES)
def test_option_values_round_trip(
    backend: TmuxCommandBackend, tmux_server: ServerRef, value: str
) -> None:
    backend.set_option(tmux_server, "@gmx", value, scope="session", global_=True)
    options = backend.show_options(tmux_server, scope="session", global_=True)
    assert options["@gmx"] == value


def test_options_at_every_scope(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str
) -> None:
    (window,) = backend.list_windows(tmux_server)
    backend.set_option(tmux_server, "escape-time", "17", scope="server")
    backend.set_option(tmux_server, "@s", "session", scope="session", target=window.session_id)
    backend.set_option(tmux_server, "mode-keys", "vi", scope="window", target=window.window_id)
    backend.set_option(tmux_server, "@p", "pane value", scope="pane", target=pane)
    assert backend.show_options(tmux_server, scope="server")["escape-time"] == "17"
    session = backend.show_options(tmux_server, scope="session", target=window.session_id)
    assert session["@s"] == "session"
    assert "mode-keys" not in session and "escape-time" not in session  # only this scope
    window_options = backend.show_options(tmux_server, scope="window", target=window.window_id)
    assert window_options["mode-keys"] == "vi"
    assert backend.show_options(tmux_server, scope="pane", target=pane) == {"@p": "pane value"}
    global_window = backend.show_options(tmux_server, scope="window", global_=True)
    assert global_window["mode-keys"] == "emacs"
    global_session = backend.show_options(tmux_server, scope="session", global_=True)
    assert global_session["status-format[0]"].startswith("#[align=left")  # arrays by index


def test_option_errors(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    with pytest.raises(TmuxFailure, match="no-such-option"):
        backend.set_option(tmux_server, "no-such-option", "1", scope="session", global_=True)
    with pytest.raises(NotFound):
        backend.show_options(tmux_server, scope="pane", target="%99")
    with pytest.raises(NotFound):
        backend.set_option(tmux_server, "@x", "1", scope="window", target="@99")
    with pytest.raises(InvalidArgument):
        backend.show_options(tmux_server, scope="pane", target="main")
    with pytest.raises(InvalidArgument):
        backend.set_option(tmux_server, "@x", "1", scope="pane", target=pane, global_=True)
    with pytest.raises(InvalidArgument):
        backend.show_options(tmux_server, scope="galaxy")  # type: ignore[arg-type]


ENV_VALUES = ["plain", "multi\nline", 'q"uote $x `b` \\ 中', "", "trailing;", "a=b=c"]


@pytest.mark.parametrize("value", ENV_VALUES)
def test_environment_round_trip(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, value: str
) -> None:
    (session,) = backend.list_sessions(tmux_server)
    backend.set_environment(tmux_server, "GMX_GLOBAL", value)
    backend.set_environment(tmux_server, "GMX_SESSION", value, session_id=session.session_id)
    assert backend.show_environment(tmux_server)["GMX_GLOBAL"] == value
    in_session = backend.show_environment(tmux_server, session.session_id)
    assert in_session["GMX_SESSION"] == value
    assert "GMX_GLOBAL" not in in_session


def test_environment_removal_markers(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, tmux: RawTmux
) -> None:
    (session,) = backend.list_sessions(tmux_server)
    backend.set_environment(tmux_server, "GMX_GONE", "x")
    backend.set_environment(tmux_server, "GMX_REMOVED", "x", session_id=session.session_id)
    tmux("set-environment", "-g", "-u", "GMX_GONE")  # unset: no entry at all
    tmux("set-environment", "-t", session.session_id, "-r", "GMX_REMOVED")  # "-NAME"
    assert "GMX_GONE" not in backend.show_environment(tmux_server)
    assert backend.show_environment(tmux_server, session.session_id)["GMX_REMOVED"] is None
    # The server inherited the isolated test environment.
    assert backend.show_environment(tmux_server)["HOME"] == os.environ["HOME"]


def test_environment_errors(backend: TmuxCommandBackend, tmux_server: ServerRef) -> None:
    with pytest.raises(NotFound):
        backend.show_environment(tmux_server, "$99")
    with pytest.raises(NotFound):
        backend.set_environment(tmux_server, "A", "b", session_id="$99")
    for name in ("", "A=B"):
        with pytest.raises(InvalidArgument):
            backend.set_environment(tmux_server, name, "x")


def test_hooks_at_each_scope(
    backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str, tmux: RawTmux
) -> None:
    (window,) = backend.list_windows(tmux_server)
    tmux("set-hook", "-g", "after-new-window", 'run-shell "echo hi"')
    tmux("set-hook", "-g", "-a", "after-new-window", 'display-message "x y"')
    tmux("set-hook", "-g", "-w", "window-renamed", "set-option -g @renamed 1")
    tmux("set-hook", "-t", window.session_id, "session-renamed", "set-option -g @s 1")
    tmux("set-hook", "-w", "-t", window.window_id, "window-renamed", "set-option -g @w 1")
    tmux("set-hook", "-p", "-t", pane, "pane-exited", "set-option -g @p 1")
    assert backend.show_hooks(tmux_server, scope="server") == [
        HookEntry("after-new-window", 0, 'run-shell "echo hi"'),
        HookEntry("after-new-window", 1, 'display-message "x y"'),
        HookEntry("window-renamed", 0, "set-option -g @renamed 1"),
    ]
    assert backend.show_hooks(tmux_server, scope="session", target=window.session_id) == [
        HookEntry("session-renamed", 0, "set-option -g @s 1")
    ]
    assert backend.show_hooks(tmux_server, scope="window", target=window.window_id) == [
        HookEntry("window-renamed", 0, "set-option -g @w 1")
    ]
    assert backend.show_hooks(tmux_server, scope="pane", target=pane) == [
        HookEntry("pane-exited", 0, "set-option -g @p 1")
    ]
    session_global = backend.show_hooks(tmux_server, scope="session", global_=True)
    assert [h.hook_name for h in session_global] == ["after-new-window", "after-new-window"]


def test_hook_errors(backend: TmuxCommandBackend, tmux_server: ServerRef, pane: str) -> None:
    assert backend.show_hooks(tmux_server, scope="pane", target=pane) == []
    with pytest.raises(NotFound):
        backend.show_hooks(tmux_server, scope="pane", target="%99")
    with pytest.raises(InvalidArgument):
        backend.show_hooks(tmux_server, scope="server", target=pane)
