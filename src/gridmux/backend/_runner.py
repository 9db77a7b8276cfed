"""Run tmux as a subprocess: argv building, timeouts and error translation.

Every tmux call the real backend makes goes through :class:`TmuxRunner.run`,
so this is the one place where subprocess failures and tmux's error messages
become the classes of ``gridmux.errors``:

* the binary is missing or cannot be executed -> ``TmuxUnavailable``;
* the subprocess outlives ``command_timeout`` -> ``TmuxTimeout``;
* tmux exits non-zero with "can't find …", "no such …", "no server running",
  "error connecting to … (No such file or directory)", "no buffer …" and the
  like -> ``NotFound`` (``ServerNotRunning``, a private subclass, when the
  whole server is missing);
* any other non-zero exit -> ``TmuxFailure`` carrying tmux's own message.

Commands are argument lists, never shell strings. A list of commands is joined
with ``;`` as a separate argv element, which tmux parses as one command list
and runs back-to-back (the atomic snapshot relies on it). Because tmux also
treats an argv element that merely *ends* in ``;`` as a separator, such
arguments are escaped here (``x;`` is sent as ``x\\;``), so no caller value can
split a command.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gridmux.errors import NotFound, TmuxFailure, TmuxTimeout, TmuxUnavailable

from ._types import ServerRef

if TYPE_CHECKING:
    from ._channels import ChannelPool

#: One tmux command: its name followed by its arguments.
Command = Sequence[str]

# Substrings of tmux's stderr that mean "the target does not exist", matched
# case-insensitively (wording checked against tmux 3.3a; 3.2a's delete-buffer
# says only "no buffer").
_NOT_FOUND_MARKERS = (
    "can't find ",
    "no such ",
    "not found",
    "no buffer",
    "unknown buffer",
    "no current session",
    "no current window",
    "no current pane",
)
# ... and these that the whole server is missing.
_NO_SERVER_MARKERS = ("no server running", "server exited unexpectedly", "lost server")
_NO_SOCKET_REASONS = ("no such file or directory", "connection refused")
# A run of "#" not followed by another "#" or by "[" (format_literal).
_HASH_RUN = re.compile(r"#+(?![#\[])")


class ServerNotRunning(NotFound):
    """No tmux server listens on the socket (a ``NotFound`` for callers)."""

    default_hint = "Start the server first, e.g. by creating a session."


def escape_argument(arg: str) -> str:
    """Keep tmux from reading a trailing ``;`` as a command separator."""
    if arg.endswith(";"):
        return arg[:-1] + "\\;"
    return arg


def format_literal(text: str) -> str:
    """Make ``text`` survive tmux's format expansion unchanged (``#`` -> ``##``).

    A run of ``#`` followed by ``[`` is left alone: tmux keeps such a run
    verbatim (a style for format_draw), so doubling it would add ``#``s.
    """
    return _HASH_RUN.sub(lambda run: run.group(0) * 2, text)


def command_quote(text: str) -> str:
    """``text`` as one literal argument in a tmux command string (if-shell's commands)."""
    return "'" + text.replace("'", "'\\''") + "'"


def pane_condition(pane_id: str, flag: str, *, missing: bool) -> str:
    """An ``if-shell -F -t pane_id`` condition: ``flag`` of that pane, ``missing`` if none.

    When the target pane does not exist, if-shell expands its condition for
    the client's current pane instead: nothing for a one-off tmux process,
    but a real pane for a control client. Comparing ``#{pane_id}`` sends a
    missing pane to the branch chosen here (the one whose command fails).
    """
    if missing:
        return f"#{{||:#{{!=:#{{pane_id}},{pane_id}}},{flag}}}"
    return f"#{{&&:#{{==:#{{pane_id}},{pane_id}}},{flag}}}"


def describe_server(server: ServerRef) -> str:
    if server.socket_path is not None:
        return f"tmux server at socket {server.socket_path}"
    if server.socket_name is not None:
        return f"tmux server {server.socket_name!r}"
    return "the default tmux server"


def default_socket_path(server: ServerRef) -> str:
    """The socket tmux itself would use for ``server`` (tmux.c:expand_paths)."""
    if server.socket_path is not None:
        return server.socket_path
    if server.socket_name is None and os.environ.get("TMUX"):
        return os.environ["TMUX"].split(",", 1)[0]
    tmpdir = os.environ.get("TMUX_TMPDIR") or "/tmp"
    name = server.socket_name or "default"
    return os.path.join(tmpdir, f"tmux-{os.getuid()}", name)


class TmuxRunner:
    """Builds argv for one tmux server and runs it with a deadline.

    With ``control_mode`` the commands go over one persistent control-mode
    client per server (``_control``) when they can; the rest, and everything
    when no client can attach, run as one subprocess each.
    """

    def __init__(
        self,
        tmux_bin: str | None = None,
        *,
        command_timeout: float = 10.0,
        control_mode: bool = False,
    ) -> None:
        if command_timeout <= 0:
            raise ValueError("command_timeout must be positive")
        self._configured_bin = tmux_bin
        self._resolved_bin: str | None = None
        self.command_timeout = command_timeout
        self.channels: ChannelPool | None = None
        if control_mode:
            from ._channels import ChannelPool  # noqa: PLC0415 - it imports this module

            self.channels = ChannelPool(self)

    def close(self) -> None:
        """Stop the control-mode clients (the runner stays usable)."""
        if self.channels is not None:
            self.channels.close()

    @property
    def tmux_bin(self) -> str:
        """The tmux executable, looked up on ``PATH`` at first use."""
        if self._resolved_bin is None:
            if self._configured_bin is not None:
                self._resolved_bin = self._configured_bin
            else:
                found = shutil.which("tmux")
                if found is None:
                    raise TmuxUnavailable("no tmux binary on PATH: install tmux 3.2a or newer")
                self._resolved_bin = found
        return self._resolved_bin

    def client_argv(self, server: ServerRef) -> list[str]:
        """``tmux -u [-S path | -L name]``: a client of ``server``."""
        argv = [self.tmux_bin, "-u"]
        if server.socket_path is not None:
            argv += ["-S", server.socket_path]
        elif server.socket_name is not None:
            argv += ["-L", server.socket_name]
        return argv

    def argv(self, server: ServerRef, commands: Sequence[Command]) -> list[str]:
        """``tmux -u [-S path | -L name] cmd1 ; cmd2 …`` as a list."""
        if not commands:
            raise ValueError("at least one tmux command is required")
        argv = self.client_argv(server)
        for index, command in enumerate(commands):
            if not command:
                raise ValueError("empty tmux command")
            if index:
                argv.append(";")
            argv.append(command[0])
            argv.extend(escape_argument(arg) for arg in command[1:])
        return argv

    def run(
        self,
        server: ServerRef,
        commands: Sequence[Command],
        *,
        what: str,
        stdin: bytes | None = None,
    ) -> bytes:
        """Run ``commands`` as one invocation; stdout on success, else raise.

        ``what`` names the operation and its target ("capture pane %3"); every
        error message starts with it. After ``command_timeout`` the child is
        killed and reaped and ``TmuxTimeout`` raised.
        """
        if self.channels is not None and stdin is None:
            stdout = self.channels.run(server, commands, what)
            if stdout is not None:
                return stdout
        proc = self.start(server, commands, what, with_stdin=stdin is not None)
        try:
            stdout, stderr = proc.communicate(stdin, timeout=self.command_timeout)
        except subprocess.TimeoutExpired:
            reap(proc)
            raise TmuxTimeout(
                f"tmux did not answer within {self.command_timeout:g}s while trying to "
                f"{what} on {describe_server(server)}"
            ) from None
        except BaseException:
            reap(proc)
            raise
        out = checked(server, what, proc.returncode, stdout, stderr)
        if self.channels is not None and any(command[0] == "new-session" for command in commands):
            self.channels.session_created(server)
        return out

    def wait_channel(self, server: ServerRef, channel: str, timeout: float, *, what: str) -> bool:
        """``wait-for channel``: True once signalled, False when ``timeout`` passes first.

        tmux keeps a waiter whose client has gone away (``cmd-wait-for.c``) and
        that dead waiter absorbs the next signal, which would then be neither
        held nor delivered. So a timed-out wait is not killed: its still-live
        client is woken with a signal of our own, then reaped. Caveat: that
        signal also wakes any other client waiting on the same channel.
        """
        if self.channels is not None:
            signalled = self.channels.wait(server, channel, timeout, what)
            if signalled is not None:
                return signalled
        proc = self.start(server, [["wait-for", channel]], what, with_stdin=False)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            return self._release_wait(server, channel, proc, what)
        except BaseException:
            reap(proc)
            raise
        checked(server, what, proc.returncode, stdout, stderr)
        return True

    def _release_wait(
        self, server: ServerRef, channel: str, proc: subprocess.Popen[bytes], what: str
    ) -> bool:
        if proc.poll() is not None:  # signalled just as the deadline passed
            stdout, stderr = proc.communicate()
            checked(server, what, proc.returncode, stdout, stderr)
            return True
        # Normally one signal wakes our client at once. A second one is only for
        # a client that had not even registered its wait when the first came.
        try:
            for grace in (min(1.0, self.command_timeout), self.command_timeout):
                self.run(server, [["wait-for", "-S", channel]], what=f"release the {what}")
                try:
                    proc.communicate(timeout=grace)
                except subprocess.TimeoutExpired:
                    continue
                return False
        finally:
            if proc.poll() is None:
                reap(proc)
        return False

    def start(
        self, server: ServerRef, commands: Sequence[Command], what: str, *, with_stdin: bool
    ) -> subprocess.Popen[bytes]:
        argv = self.argv(server, commands)
        try:
            return subprocess.Popen(
                argv,
                stdin=subprocess.PIPE if with_stdin else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise TmuxUnavailable(
                f"cannot run tmux to {what}: {argv[0]!r} failed to start ({exc.strerror or exc})"
            ) from exc


def reap(proc: subprocess.Popen[bytes]) -> None:
    """Kill a child and collect it, so no tmux client outlives its call."""
    proc.kill()
    proc.communicate()


def checked(server: ServerRef, what: str, returncode: int, stdout: bytes, stderr: bytes) -> bytes:
    if returncode != 0:
        message = stderr.decode("utf-8", errors="replace").strip()
        raise translate_failure(server, what, returncode, message)
    return stdout


def translate_failure(
    server: ServerRef, what: str, returncode: int, stderr: str
) -> TmuxFailure | NotFound:
    """The gridmux error for a failed tmux invocation (the one mapping table)."""
    message = stderr or f"tmux exited with status {returncode}"
    lowered = message.lower()
    where = describe_server(server)
    if any(marker in lowered for marker in _NO_SERVER_MARKERS) or (
        "error connecting to" in lowered and any(reason in lowered for reason in _NO_SOCKET_REASONS)
    ):
        return ServerNotRunning(f"cannot {what}: no {where} is running ({message})")
    if any(marker in lowered for marker in _NOT_FOUND_MARKERS):
        return NotFound(f"cannot {what} on {where}: {message}")
    return TmuxFailure(f"tmux failed to {what} on {where}: {message}")


def decode(data: bytes) -> str:
    """tmux output as text (tmux -u writes UTF-8; stray bytes become U+FFFD)."""
    return data.decode("utf-8", errors="replace")


def split_lines(text: str) -> list[str]:
    """Lines of tmux output: split on ``\\n`` only, one final newline dropped.

    ``str.splitlines`` would also split on ``\\x1c``-``\\x1e``, ``\\x85``,
    U+2028 …, which can all appear in pane text.
    """
    if not text:
        return []
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


class UsesRunner:
    """Base of the backend's operation groups: every call goes through ``_runner``."""

    _runner: TmuxRunner

    def _run(
        self,
        server: ServerRef,
        commands: Sequence[Command],
        what: str,
        *,
        stdin: bytes | None = None,
    ) -> bytes:
        return self._runner.run(server, commands, what=what, stdin=stdin)
