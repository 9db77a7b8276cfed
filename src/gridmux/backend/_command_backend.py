"""The real backend: tmux's own command language, one command list per operation.

Every call is one tmux command list, built here and run by
``_runner.TmuxRunner`` (argv lists, ``-u``, ``-L``/``-S``, a deadline, error
translation in one place) over one of two transports: a persistent
control-mode client per server (``_control_transport``) or one tmux process
per list (``_subprocess_transport``), with our own formats from ``_formats``.
The operations are grouped by concern: ``_reads.ReadOperations`` (discovery,
state, snapshots, settings), ``_objects.ObjectOperations`` (sessions,
windows, panes) and, here, input, content, options, environment, buffers and
wait-for channels.

libtmux's command layer is deliberately not in the path: it has no timeout,
does not pass ``-u``, drops trailing empty output lines, and answers each
creation with several follow-up listings, where ``new-session -P -F`` gives
the same facts in one call. libtmux serves the tests instead (fixtures and
an independent oracle).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Mapping

from gridmux.errors import GridmuxError, InvalidArgument, NotFound, PaneDead

from ._arguments import (
    check_env_name,
    check_given,
    check_id,
    check_name,
    check_swap_words,
    scope_args,
)
from ._commands import (
    Command,
    command_quote,
    command_text,
    decode,
    format_literal,
    pane_condition,
)
from ._objects import ObjectOperations
from ._reads import ReadOperations
from ._runner import TmuxRunner
from ._types import OptionScope, ServerRef

#: What ``paste_buffer``'s guard prints for a dead pane.
_DEAD_MARK = "gridmux:pane-dead"
#: Text longer than this (UTF-8 bytes) is typed through a private buffer: a
#: tmux client passes only about 16 KiB of arguments to its server ("command
#: too long"), and the OS refuses one argument over 128 KiB (E2BIG).
INLINE_KEYS_BYTES = 8192


def _pipe_literal(command: str) -> str:
    """``command`` as pipe-pane runs it: it expands a format, then strftime(3)."""
    return format_literal(command).replace("%", "%%")


def _pipe_unless_piped(pane_id: str, command: str) -> Command:
    """Pipe the pane's output to ``command`` unless it has a pipe already.

    Not ``pipe-pane -o``: that closes an open pipe (it toggles)."""
    pipe = ["pipe-pane", "-t", pane_id, "--", _pipe_literal(command)]
    return ["if-shell", "-F", "-t", pane_id, "#{?pane_pipe,,1}", command_text(pipe)]


class TmuxCommandBackend(ReadOperations, ObjectOperations):
    """``TmuxBackend`` on a real tmux binary (3.2a or newer).

    ``tmux_bin``: the executable; looked up on ``PATH`` at first use when None
    (``TmuxUnavailable`` if there is none). ``default_server``: the server the
    wiring layer should address when the user names none. ``command_timeout``:
    seconds any tmux command may take (``TmuxTimeout`` after), except
    ``wait_for``, which runs as long as its own ``timeout``. ``control_mode``:
    carry commands over one persistent control-mode client per server
    (``_control_transport``) where they can, instead of a subprocess each;
    ``close()`` stops them.
    """

    def __init__(
        self,
        tmux_bin: str | None = None,
        *,
        default_server: ServerRef = ServerRef(),  # noqa: B008 - a frozen value
        command_timeout: float = 10.0,
        control_mode: bool = True,
        environment: Callable[[], Mapping[str, str]] | None = None,
    ) -> None:
        self.default_server = default_server
        self._runner = TmuxRunner(
            tmux_bin,
            command_timeout=command_timeout,
            control_mode=control_mode,
            environment=environment,
        )

    def close(self) -> None:
        """Stop the control-mode clients; later calls start them again."""
        self._runner.close()

    def shutdown(self) -> None:
        """End every pending call now and refuse later ones (gridmux is exiting)."""
        self._runner.shutdown()

    @property
    def control_mode(self) -> bool:
        return self._runner.control_mode

    @property
    def command_timeout(self) -> float:
        return self._runner.command_timeout

    # -- input and content -----------------------------------------------------
    def send_keys(
        self,
        server: ServerRef,
        pane_id: str,
        keys: str,
        *,
        literal: bool = False,
        enter: bool = False,
    ) -> None:
        first = ["send-keys", *(["-l"] if literal else []), "-t", check_id("pane", pane_id)]
        encoded = keys.encode("utf-8")
        if len(encoded) > INLINE_KEYS_BYTES:
            # No key name is this long, so tmux would type it literally anyway.
            self._type_through_buffer(server, pane_id, encoded, enter=enter)
            return
        if keys:
            first += ["--", keys]
        commands: list[Command] = [first]
        if enter:
            commands.append(["send-keys", "-t", pane_id, "Enter"])
        self._run(server, commands, f"send keys to pane {pane_id}")

    def _type_through_buffer(
        self, server: ServerRef, pane_id: str, text: bytes, *, enter: bool
    ) -> None:
        """Type ``text`` exactly (``paste-buffer -r``: newlines stay LF) via a private buffer.

        One list: ``load-buffer`` reads the text on standard input, then the
        pane-alive guard of ``paste_buffer`` pastes and deletes it (``-d``),
        without bracketed-paste markers, as ``send-keys -l`` would type it. A
        buffer the list left behind (refusal, dead pane, timeout) is deleted.
        """
        buffer = f"gridmux-keys-{uuid.uuid4().hex}"
        paste = ["paste-buffer", "-r", "-d", "-b", command_quote(buffer), "-t", pane_id]
        dead = f"display-message -p {_DEAD_MARK}"
        condition = pane_condition(pane_id, "#{pane_dead}", missing=False)
        commands: list[Command] = [
            ["load-buffer", "-b", buffer, "-"],
            ["if-shell", "-F", "-t", pane_id, condition, dead, " ".join(paste)],
        ]
        if enter:
            commands.append(["send-keys", "-t", pane_id, "Enter"])
        what = f"send keys to pane {pane_id}"
        try:
            output = self._run(server, commands, what, stdin=text)
        except BaseException:
            self._discard_buffer(server, buffer)
            raise
        if _DEAD_MARK in decode(output):
            self._discard_buffer(server, buffer)
            raise PaneDead(f"cannot {what}: the pane's program has exited")

    def _discard_buffer(self, server: ServerRef, buffer: str) -> None:
        """Delete a private buffer if it still exists (pasting with ``-d`` deletes it)."""
        with contextlib.suppress(GridmuxError):
            self.delete_buffer(server, buffer)

    def clear_history(self, server: ServerRef, pane_id: str) -> None:
        command = ["clear-history", "-t", check_id("pane", pane_id)]
        self._run(server, [command], f"clear the history of pane {pane_id}")

    def clear_pane(self, server: ServerRef, pane_id: str) -> None:
        # -R resets the terminal, whose clear pushes the screen into history;
        # clear-history then drops it, in the same command list.
        commands = [["send-keys", "-R", "-t", check_id("pane", pane_id)]]
        commands.append(["clear-history", "-t", pane_id])
        self._run(server, commands, f"clear pane {pane_id}")

    def copy_mode(
        self, server: ServerRef, pane_id: str, *, enter: bool, scroll_up: int | None = None
    ) -> None:
        check_id("pane", pane_id)
        if not enter:
            if scroll_up is not None:
                raise InvalidArgument("scroll_up only applies when entering copy mode")
            # -q leaves every mode and is a no-op outside one (3.2a+).
            command = ["copy-mode", "-q", "-t", pane_id]
            self._run(server, [command], f"leave copy mode in pane {pane_id}")
            return
        commands: list[Command] = [["copy-mode", "-t", pane_id]]
        if scroll_up is not None:
            if isinstance(scroll_up, bool) or not isinstance(scroll_up, int) or scroll_up < 0:
                raise InvalidArgument(f"scroll_up {scroll_up!r} must be an int >= 0")
            if scroll_up:
                scroll = ["send-keys", "-X", "-N", str(scroll_up), "-t", pane_id, "scroll-up"]
                commands.append(scroll)
        self._run(server, commands, f"enter copy mode in pane {pane_id}")

    def pipe_pane(
        self, server: ServerRef, pane_id: str, command: str | None, *, append: bool = True
    ) -> None:
        # ``append`` has no tmux counterpart once the caller hands over a whole
        # shell command (the command picks ">>" or ">"); it is accepted, unused.
        args = ["pipe-pane", "-t", check_id("pane", pane_id)]
        if command is not None:
            # pipe-pane runs its command through format expansion and strftime(3).
            args += ["--", _pipe_literal(check_given("pipe command", command))]
        action = "stop piping" if command is None else "start piping"
        self._run(server, [args], f"{action} pane {pane_id}")

    def open_pipe(self, server: ServerRef, pane_id: str, command: str) -> bool:
        commands: list[Command] = [
            ["display-message", "-p", "-t", check_id("pane", pane_id), "#{pane_pipe}"],
            _pipe_unless_piped(pane_id, check_given("pipe command", command)),
        ]
        out = self._run(server, commands, f"start piping pane {pane_id}")
        return decode(out).strip() == "0"

    # -- options, environment, buffers, channels -----------------------------
    def set_option(
        self,
        server: ServerRef,
        name: str,
        value: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        self._set_option(server, name, [value], scope=scope, target=target, global_=global_)

    def unset_option(
        self,
        server: ServerRef,
        name: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        self._set_option(server, name, None, scope=scope, target=target, global_=global_)

    def _set_option(
        self,
        server: ServerRef,
        name: str,
        value: list[str] | None,
        *,
        scope: OptionScope,
        target: str | None,
        global_: bool,
    ) -> None:
        """``set-option`` to ``[value]``, or with ``-u`` (unset) for None."""
        # set-option expands its name as a format: '#' stays a literal '#'
        literal = format_literal(check_name("option name", name))
        flags = ["-u"] if value is None else []
        command = ["set-option", *flags, *scope_args(scope, target, global_), "--", literal]
        where = f" of {target}" if target else (" (global)" if global_ else "")
        what = "unset" if value is None else "set"
        self._run(server, [command + (value or [])], f"{what} {scope} option {name!r}{where}")

    def swap_pane_option(
        self, server: ServerRef, pane_id: str, name: str, expected: str, new: str
    ) -> str:
        check_id("pane", pane_id)
        check_swap_words(name, expected, new)
        # One list, and tmux runs a client's list back to back: no other client's
        # command (another gridmux's swap) can come between the test and the set.
        # if-shell -F (without -b) runs its command at once, before the next one.
        current = f"#{{{name}}}"
        condition = pane_condition(pane_id, f"#{{==:{current},{expected}}}", missing=False)
        change = ["set-option", "-p", "-t", pane_id]
        change += [name, new] if new else ["-u", name]
        commands: list[Command] = [
            ["if-shell", "-F", "-t", pane_id, condition, command_text(change)],
            ["display-message", "-p", "-t", pane_id, f"#{{pane_id}} {current}"],
        ]
        what = f"claim pane {pane_id} (option {name})"
        found, _, value = decode(self._run(server, commands, what)).rstrip("\n").partition(" ")
        if found != pane_id:  # a control client's display falls back to its own pane
            raise NotFound(f"cannot {what}: no pane {pane_id}")
        return value

    def set_environment(
        self, server: ServerRef, name: str, value: str, *, session_id: str | None = None
    ) -> None:
        check_env_name(name)
        where = ["-g"] if session_id is None else ["-t", check_id("session", session_id)]
        command = ["set-environment", *where, "--", name, value]
        self._run(server, [command], f"set environment variable {name!r}")

    def load_buffer(self, server: ServerRef, name: str, content: str) -> None:
        check_name("buffer name", name)
        if not content:
            # tmux accepts it and stores nothing; say so instead.
            raise InvalidArgument("a tmux buffer cannot be empty; content must not be ''")
        command = ["load-buffer", "-b", name, "-"]
        self._run(server, [command], f"load buffer {name!r}", stdin=content.encode("utf-8"))

    def paste_buffer(
        self,
        server: ServerRef,
        name: str,
        pane_id: str,
        *,
        bracket: bool = True,
        delete: bool = False,
    ) -> None:
        paste = ["paste-buffer", "-b", command_quote(check_name("buffer name", name))]
        paste += ["-t", check_id("pane", pane_id)]
        paste += (["-p"] if bracket else []) + (["-d"] if delete else [])
        # tmux 3.3a's server crashes on paste-buffer into a dead pane, so the
        # pane is tested inside the same command and the paste skipped.
        dead = f"display-message -p {_DEAD_MARK}"
        condition = pane_condition(pane_id, "#{pane_dead}", missing=False)
        command = ["if-shell", "-F", "-t", pane_id, condition, dead, " ".join(paste)]
        what = f"paste buffer {name!r} into pane {pane_id}"
        if _DEAD_MARK in decode(self._run(server, [command], what)):
            raise PaneDead(f"cannot {what}: the pane's program has exited")

    def delete_buffer(self, server: ServerRef, name: str) -> None:
        # tmux 3.2a takes a name it does not hold as the newest buffer, which may be
        # the user's: only a name tmux lists is deleted.
        command = ["delete-buffer", "-b", check_name("buffer name", name)]
        if name not in {buffer.name for buffer in self.list_buffers(server)}:
            raise NotFound(f"cannot delete buffer {name!r}: there is no such buffer")
        self._run(server, [command], f"delete buffer {name!r}")

    def wait_for(self, server: ServerRef, channel: str, timeout: float) -> bool:
        check_name("channel", channel)
        if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
            raise InvalidArgument(f"timeout {timeout!r} must be a number of seconds >= 0")
        what = f"wait for channel {channel!r}"
        if not self._runner.wait_channel(server, channel, timeout, what=what):
            return False
        # tmux wait-for also exits 0 when the server goes away mid-wait.
        probe = ["display-message", "-p", "#{pid}"]
        self._run(server, [probe], f"{what} (the server stopped while waiting)")
        return True

    def signal_channel(self, server: ServerRef, channel: str) -> None:
        command = ["wait-for", "-S", check_name("channel", channel)]
        self._run(server, [command], f"signal channel {channel!r}")
