"""Session, window and pane operations of the real backend: create, arrange, kill.

Creations answer with ``-P -F`` in our own format, so the new object's
description comes from the same invocation that made it. Names and titles are
format-expanded by tmux and therefore escaped (``format_literal``).
"""

from __future__ import annotations

import socket
import time
from collections.abc import Mapping

from gridmux.errors import InvalidArgument, NotFound

from . import _formats as formats
from ._arguments import (
    check_id,
    check_layout,
    check_name,
    command_args,
    first,
    size_args,
    spawn_args,
    split_args,
)
from ._commands import decode, format_literal, pane_condition
from ._formats import RecordFormat
from ._ids import is_json_layout
from ._release import tmux_release
from ._runner import UsesRunner
from ._types import (
    PaneDirection,
    PaneInfo,
    ServerRef,
    SessionInfo,
    SplitDirection,
    WindowDirection,
    WindowInfo,
)

_WINDOW_DIRECTION_FLAGS = {"before": "-b", "after": "-a"}
_PANE_DIRECTION_FLAGS = {"up": "-U", "down": "-D", "left": "-L", "right": "-R", "last": "-l"}


class ObjectOperations(UsesRunner):
    # -- sessions, windows, panes -------------------------------------------
    def new_session(
        self,
        server: ServerRef,
        *,
        name: str | None = None,
        window_name: str | None = None,
        start_directory: str | None = None,
        width: int | None = None,
        height: int | None = None,
        environment: Mapping[str, str] | None = None,
        command: str | None = None,
    ) -> SessionInfo:
        fmt = RecordFormat(formats.SESSION_FIELDS)
        args = ["new-session", "-d", "-P", "-F", fmt.template]
        if name is not None:
            args += ["-s", format_literal(check_name("session name", name))]
        if window_name is not None:
            args += ["-n", format_literal(check_name("window name", window_name))]
        args += size_args(width, height)
        args += spawn_args(start_directory, environment) + command_args(command)
        what = "create a session" + (f" named {name!r}" if name else "")
        out = self._run(server, [args], what)
        session = first(what, lambda: formats.parse_sessions(out, fmt))
        if width is not None or height is not None:
            self._size_detached_session(server, session.session_id, width, height)
        return session

    def _size_detached_session(
        self, server: ServerRef, session_id: str, width: int | None, height: int | None
    ) -> None:
        """tmux 3.2a makes a detached session's window ``default-size`` less its status
        line (80x23), whatever ``-x``/``-y`` say (3.3 honours them): size it as asked.

        ``resize-window`` leaves the window's ``window-size`` at ``manual``; unsetting it
        again lets the window follow its clients as on 3.3 and later.
        """
        what = f"size the new session {session_id}"
        target = check_id("session", session_id) + ":"
        version = decode(
            self._run(server, [["display-message", "-p", "-t", target, "#{version}"]], what)
        ).strip()
        if tmux_release(version) >= (3, 3):
            return
        resize = ["resize-window", "-t", target, *size_args(width, height)]
        self._run(server, [resize, ["set-option", "-wu", "-t", target, "window-size"]], what)

    def new_window(
        self,
        server: ServerRef,
        session_id: str,
        *,
        name: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
        select: bool = False,
        direction: WindowDirection | None = None,
    ) -> WindowInfo:
        # "$N:" = the next free index in that session; "$N" with -b/-a = next to
        # the session's current window.
        target = check_id("session", session_id)
        fmt = RecordFormat(formats.WINDOW_FIELDS)
        if direction is None:
            args = ["new-window", "-P", "-F", fmt.template, "-t", target + ":"]
        elif direction in _WINDOW_DIRECTION_FLAGS:
            flag = _WINDOW_DIRECTION_FLAGS[direction]
            args = ["new-window", flag, "-P", "-F", fmt.template, "-t", target]
        else:
            raise InvalidArgument(f"window direction {direction!r} is not 'before' or 'after'")
        if not select:
            args.append("-d")
        if name is not None:
            args += ["-n", format_literal(check_name("window name", name))]
        args += spawn_args(start_directory, environment) + command_args(command)
        what = f"create a window in session {session_id}"
        out = self._run(server, [args], what)
        return first(what, lambda: formats.parse_windows(out, fmt))

    def split_window(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        direction: SplitDirection = "below",
        size: str | None = None,
        start_directory: str | None = None,
        command: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> PaneInfo:
        # -d: the new pane does not take focus from whoever looks at the window.
        fmt = RecordFormat(formats.PANE_FIELDS)
        args = ["split-window", "-d", "-P", "-F", fmt.template, "-t", check_id("pane", pane_id)]
        args += split_args(direction, size)
        args += spawn_args(start_directory, environment) + command_args(command)
        what = f"split pane {pane_id}"
        out = self._run(server, [args], what)
        return first(what, lambda: formats.parse_panes(out, fmt))

    def rename_session(self, server: ServerRef, session_id: str, new_name: str) -> None:
        literal = format_literal(check_name("session name", new_name))
        command = ["rename-session", "-t", check_id("session", session_id), "--", literal]
        self._run(server, [command], f"rename session {session_id}")

    def rename_window(self, server: ServerRef, window_id: str, new_name: str) -> None:
        literal = format_literal(check_name("window name", new_name))
        command = ["rename-window", "-t", check_id("window", window_id), "--", literal]
        self._run(server, [command], f"rename window {window_id}")

    def select_window(self, server: ServerRef, window_id: str) -> None:
        command = ["select-window", "-t", check_id("window", window_id)]
        self._run(server, [command], f"select window {window_id}")

    def select_pane(
        self, server: ServerRef, pane_id: str, *, direction: PaneDirection | None = None
    ) -> None:
        command = ["select-pane", "-t", check_id("pane", pane_id)]
        if direction is not None:
            if direction not in _PANE_DIRECTION_FLAGS:
                raise InvalidArgument(
                    f"direction {direction!r} is not one of {list(_PANE_DIRECTION_FLAGS)}"
                )
            command.append(_PANE_DIRECTION_FLAGS[direction])
        what = {
            None: f"select pane {pane_id}",
            "last": f"select the last pane in the window of {pane_id}",
        }.get(direction, f"select the pane {direction} of {pane_id}")
        self._run(server, [command], what)

    def set_pane_title(self, server: ServerRef, pane_id: str, title: str) -> None:
        if not isinstance(title, str):
            raise InvalidArgument(f"title {title!r} must be a string")
        command = ["select-pane", "-t", check_id("pane", pane_id), "-T", format_literal(title)]
        self._run(server, [command], f"set the title of pane {pane_id}")

    def select_layout(self, server: ServerRef, window_id: str, layout: str) -> None:
        check_id("window", window_id)
        check_layout(layout)
        if is_json_layout(layout):
            # Older tmux reads any layout string as the checksummed form and
            # 3.3a's server crashes on one it cannot parse: only 3.8 gets JSON
            # (a tmux whose release is unknown counts as the oldest, _release).
            what = "read the tmux version"
            version = decode(self._run(server, [["display-message", "-p", "#{version}"]], what))
            version = version.strip()
            if tmux_release(version) < (3, 8):
                raise InvalidArgument(
                    f"tmux {version or '(unknown version)'} does not read JSON layouts",
                    hint="Pass a preset name or the layout string this tmux prints.",
                )
        command = ["select-layout", "-t", window_id, "--", layout]
        self._run(server, [command], f"apply layout {layout!r} to window {window_id}")

    def resize_pane(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
        zoom: bool | None = None,
    ) -> None:
        check_id("pane", pane_id)
        if zoom is not None and (width is not None or height is not None):
            raise InvalidArgument("resize_pane takes either a size or zoom, not both")
        if zoom is None and width is None and height is None:
            raise InvalidArgument("resize_pane needs a width, a height or zoom")
        what = f"resize pane {pane_id}"
        if zoom is None:
            self._run(server, [["resize-pane", "-t", pane_id, *size_args(width, height)]], what)
            return
        # resize-pane -Z toggles; if-shell -F tests the flag inside tmux, in this call.
        toggle = f"resize-pane -Z -t {pane_id}"
        # A missing pane must reach the branch with the toggle, which fails.
        if zoom:
            condition = pane_condition(pane_id, "#{window_zoomed_flag}", missing=False)
            branches = ["", toggle]
        else:
            condition = pane_condition(pane_id, "#{window_zoomed_flag}", missing=True)
            branches = [toggle, ""]
        command = ["if-shell", "-F", "-t", pane_id, condition, *branches]
        self._run(server, [command], what)

    def resize_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
    ) -> None:
        check_id("window", window_id)
        if width is None and height is None:
            raise InvalidArgument("resize_window needs a width or a height")
        command = ["resize-window", "-t", window_id, *size_args(width, height)]
        self._run(server, [command], f"resize window {window_id}")

    def move_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        destination_session_id: str | None = None,
        destination_index: int | None = None,
    ) -> None:
        check_id("window", window_id)
        if destination_session_id is None and destination_index is None:
            raise InvalidArgument("move_window needs a destination session or index")
        if destination_index is not None and (
            isinstance(destination_index, bool)
            or not isinstance(destination_index, int)
            or destination_index < 0
        ):
            raise InvalidArgument(f"window index {destination_index!r} must be an int >= 0")
        if destination_session_id is None:
            # The window's own session: a bare ":N" would mean tmux's "current" one.
            probe = ["display-message", "-p", "-t", window_id, "#{session_id}"]
            session = decode(self._run(server, [probe], f"find the session of {window_id}")).strip()
            if not session:
                raise NotFound(f"cannot move window {window_id}: it does not exist")
        else:
            session = check_id("session", destination_session_id)
        index = "" if destination_index is None else str(destination_index)
        command = ["move-window", "-s", window_id, "-t", f"{session}:{index}"]
        self._run(server, [command], f"move window {window_id} to {session}:{index}")

    def swap_pane(self, server: ServerRef, source_pane_id: str, target_pane_id: str) -> None:
        check_id("pane", source_pane_id)
        check_id("pane", target_pane_id)
        command = ["swap-pane", "-d", "-s", source_pane_id, "-t", target_pane_id]
        self._run(server, [command], f"swap panes {source_pane_id} and {target_pane_id}")

    def respawn_pane(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        kill: bool = True,
        command: str | None = None,
        start_directory: str | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        args = ["respawn-pane", "-t", check_id("pane", pane_id), *(["-k"] if kill else [])]
        args += spawn_args(start_directory, environment, here_by_default=False) + command_args(
            command
        )
        self._run(server, [args], f"respawn pane {pane_id}")

    def kill_pane(self, server: ServerRef, pane_id: str) -> None:
        command = ["kill-pane", "-t", check_id("pane", pane_id)]
        self._run(server, [command], f"kill pane {pane_id}")

    def kill_window(self, server: ServerRef, window_id: str) -> None:
        command = ["kill-window", "-t", check_id("window", window_id)]
        self._run(server, [command], f"kill window {window_id}")

    def kill_session(self, server: ServerRef, session_id: str) -> None:
        command = ["kill-session", "-t", check_id("session", session_id)]
        self._run(server, [command], f"kill session {session_id}")

    def kill_server(self, server: ServerRef) -> None:
        # kill-server returns before the server has gone; calls made right after
        # could still connect and meet a dying server ("server exited
        # unexpectedly"). So learn its socket in the same invocation and wait
        # until the socket refuses connections.
        commands = [["display-message", "-p", "#{socket_path}"], ["kill-server"]]
        socket_path = decode(self._run(server, commands, "kill the server")).rstrip("\n")
        if socket_path:
            wait_until_unreachable(socket_path, self._runner.command_timeout)


def wait_until_unreachable(socket_path: str, timeout: float) -> None:
    """Poll until nothing accepts connections on ``socket_path`` (or give up quietly)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            try:
                probe.connect(socket_path)
            except (ConnectionRefusedError, FileNotFoundError):
                return
            except OSError:  # cannot tell (path too long, permissions): stop waiting
                return
        time.sleep(0.002)
