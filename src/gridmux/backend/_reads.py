"""Read operations of the real backend: discovery, pane state, snapshots, settings.

Listings are ONE ``list-*`` call each with our own ``-F`` format (``_formats``);
no per-object follow-ups. A server that is not running lists nothing and
describes itself as not alive; every other missing target is ``NotFound``.
"""

from __future__ import annotations

import contextlib
import secrets
import time
from collections.abc import Sequence

from gridmux.errors import InvalidArgument, NotFound, TmuxFailure

from . import _formats as formats
from ._arguments import (
    check_id,
    check_name,
    check_target,
    first,
    parsed,
    scope_args,
    socket_name,
)
from ._commands import Command, command_text, decode, quote_word, split_lines
from ._failures import ServerNotRunning
from ._formats import STATE_FORMAT, RecordFormat
from ._procfs import command_line, read_stat
from ._runner import UsesRunner
from ._show_output import parse_environment, parse_hooks, parse_options
from ._snapshot import (
    capture_command,
    parse_snapshot,
    parse_state_line,
    snapshot_commands,
    state_command,
)
from ._sockets import default_socket_path
from ._types import (
    BufferInfo,
    HookEntry,
    OptionScope,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    RowBound,
    ServerInfo,
    ServerRef,
    SessionInfo,
    WindowInfo,
)


def _literal(text: str) -> str:
    """``text`` as one quoted word that a format loop's expansion leaves alone."""
    return "#{l:" + quote_word(text) + "}"


def split_record(what: str, out: bytes, fmt: RecordFormat) -> tuple[PaneInfo, bytes]:
    """A pane's record at the start of ``out``, and what follows it."""
    # The record ends at its last delimiter (printed raw, or escaped by 3.5a).
    marker = fmt.delimiter.encode()
    if marker not in out:
        marker = formats.escape(fmt.delimiter).encode()
    cut = -1
    for _ in fmt.fields:
        cut = out.find(marker, cut + 1)
        if cut < 0:
            raise TmuxFailure(f"cannot {what}: the pane record is incomplete")
    cut += len(marker) + 1
    return first(what, lambda: formats.parse_panes(out[:cut], fmt)), out[cut:]


#: What ``list-windows -a``/``list-panes -a`` say on a server without sessions
#: (tmux 3.3a resolves a current target even with -a): nothing to list.
_NO_CURRENT_TARGET = "no current target"


class ReadOperations(UsesRunner):
    # -- discovery -----------------------------------------------------------
    def server_info(self, server: ServerRef) -> ServerInfo:
        what = "describe the server"
        fmt = RecordFormat(formats.SERVER_FIELDS)
        commands = [
            ["display-message", "-p", fmt.template],
            ["list-sessions", "-F", "#{session_id}"],
        ]
        try:
            out = self._run(server, commands, what)
        except ServerNotRunning:
            path = default_socket_path(server)
            return ServerInfo(
                socket_name=socket_name(server, path),
                socket_path=path,
                is_alive=False,
                pid=None,
                version=None,
                session_count=0,
            )
        head, _, sessions = out.partition(b"\n")
        records = parsed(what, lambda: fmt.parse(head + b"\n"))
        record = records[0]
        path = record["socket_path"] or default_socket_path(server)
        return ServerInfo(
            socket_name=socket_name(server, path),
            socket_path=path,
            is_alive=True,
            pid=int(record["pid"]) if record["pid"].isdigit() else None,
            version=record["version"] or None,
            session_count=len(split_lines(decode(sessions))),
        )

    def list_sessions(self, server: ServerRef) -> list[SessionInfo]:
        what, fmt = "list sessions", RecordFormat(formats.SESSION_FIELDS)
        # The clients come along, in the same list, only to leave gridmux's
        # control clients out of the attached counts.
        commands = [
            ["list-clients", "-F", formats.CLIENT_SESSION_FORMAT],
            ["list-sessions", "-F", fmt.template],
        ]
        try:
            out = self._run(server, commands, what)
        except ServerNotRunning:
            return []
        except TmuxFailure as exc:
            if _NO_CURRENT_TARGET not in str(exc):  # list-clients, in a server without sessions
                raise
            return []
        return parsed(what, lambda: formats.parse_sessions(out, fmt))

    def list_windows(self, server: ServerRef, session_id: str | None = None) -> list[WindowInfo]:
        fmt = RecordFormat(formats.WINDOW_FIELDS)
        if session_id is None:
            command, what = ["list-windows", "-a"], "list windows"
        else:
            command = ["list-windows", "-t", check_id("session", session_id)]
            what = f"list windows of session {session_id}"
        try:
            out = self._run(server, [[*command, "-F", fmt.template]], what)
        except ServerNotRunning:
            if session_id is not None:
                raise
            return []
        except TmuxFailure as exc:
            if session_id is not None or _NO_CURRENT_TARGET not in str(exc):
                raise
            return []
        return parsed(what, lambda: formats.parse_windows(out, fmt))

    def list_panes(
        self,
        server: ServerRef,
        *,
        session_id: str | None = None,
        window_id: str | None = None,
        pane_id: str | None = None,
    ) -> list[PaneInfo]:
        fmt = RecordFormat(formats.PANE_FIELDS)
        if window_id is not None:
            check_id("window", window_id)
        # tmux expands the 32 fields only for the rows the filter keeps (-f: tmux 3.2)
        only = (
            [] if pane_id is None else ["-f", f"#{{==:#{{pane_id}},{check_id('pane', pane_id)}}}"]
        )
        if session_id is not None:
            # -s -t: every pane of the session, seen from that session (a window
            # linked into several sessions is listed in this one's context).
            command = ["list-panes", "-s", "-t", check_id("session", session_id)]
            what = f"list panes of session {session_id}"
        elif window_id is not None:
            command, what = ["list-panes", "-t", window_id], f"list panes of window {window_id}"
        else:
            command, what = ["list-panes", "-a"], "list panes"
        try:
            out = self._run(server, [[*command, *only, "-F", fmt.template]], what)
        except ServerNotRunning:
            if session_id is not None or window_id is not None:
                raise
            return []
        except TmuxFailure as exc:
            if session_id is not None or window_id is not None:
                raise
            if _NO_CURRENT_TARGET not in str(exc):
                raise
            return []
        panes = parsed(what, lambda: formats.parse_panes(out, fmt))
        if session_id is not None and window_id is not None:
            panes = [pane for pane in panes if pane.window_id == window_id]
        return panes

    # -- reads ---------------------------------------------------------------
    def pane_state(self, server: ServerRef, pane_id: str) -> PaneState:
        what = f"read the state of pane {check_id('pane', pane_id)}"
        out = self._run(server, [state_command(pane_id)], what)
        return parse_state_line(what, pane_id, out.partition(b"\n")[0])

    def foreground_process_group(self, server: ServerRef, pane_id: str) -> int | None:
        what = f"read the foreground process of pane {check_id('pane', pane_id)}"
        out = self._run(
            server, [["display-message", "-p", "-t", pane_id, "#{pane_pid} #{pid}"]], what
        )
        pane_pid, _, server_pid = out.decode("ascii", "replace").strip().partition(" ")
        if not (pane_pid.isdigit() and server_pid.isdigit()):
            return None
        # tmux's own pid names this process's view: another pid namespace (a
        # container) or a remote server has other processes under those numbers.
        if read_stat(int(server_pid)) is None:
            return None
        pane = read_stat(int(pane_pid))
        if pane is None or pane.tpgid <= 0:  # the tty's foreground process group
            return None
        tpgid = pane.tpgid
        # A pane given a command runs it as ``default-shell -c COMMAND``; a shell
        # that does not exec its last command (dash) keeps waiting as the pane's
        # process, and the command is the pane's own program.
        leader = read_stat(tpgid)
        if leader is not None and leader.ppid == int(pane_pid):
            argv = command_line(int(pane_pid)) or []
            if len(argv) >= 3 and argv[1] == b"-c":  # SHELL -c COMMAND
                return int(pane_pid)
        return tpgid

    def exit_state(self, server: ServerRef, pane_id: str, grace: float = 1.0) -> PaneState:
        state = self.pane_state(server, pane_id)
        deadline = time.monotonic() + grace
        while state.dead and state.dead_status is None and time.monotonic() < deadline:
            # A child of the server that exits at once: on its SIGCHLD tmux reaps
            # every exited child, the pane's shell among them.
            self._run(server, [["run-shell", "true"]], f"make tmux reap pane {pane_id}'s shell")
            state = self.pane_state(server, pane_id)
        return state

    def snapshot(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
        untrimmed_start: int | None = None,
        samples: Sequence[int] = (),
    ) -> PaneSnapshot:
        what = f"snapshot pane {check_id('pane', pane_id)}"
        commands = snapshot_commands(pane_id, start, end, join_wrapped, untrimmed_start, samples)
        out = self._run(server, commands, what)
        return parse_snapshot(
            what, pane_id, out, start, end, join_wrapped, untrimmed_start, samples
        )

    def pane_snapshot(
        self, server: ServerRef, pane_id: str, *, start: RowBound = None, end: RowBound = None
    ) -> tuple[PaneInfo, PaneSnapshot]:
        """``display-message`` of the pane's record, then ``state ; capture``: one list."""
        what = f"read pane {check_id('pane', pane_id)}"
        fmt = RecordFormat(formats.PANE_FIELDS)
        record = ["display-message", "-p", "-t", pane_id, fmt.template]
        commands = [record, state_command(pane_id), capture_command(pane_id, start, end, False)]
        out = self._run(server, commands, what)
        pane, rest = split_record(what, out, fmt)
        if pane.pane_id != pane_id:
            raise NotFound(f"cannot {what}: pane {pane_id} does not exist")
        return pane, parse_snapshot(what, pane_id, rest, start, end, False)

    def scan_panes(
        self,
        server: ServerRef,
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> list[tuple[PaneInfo, PaneSnapshot]]:
        """Every pane with its record and snapshot, as ``list_panes`` lists them: ONE list.

        ``run-shell -C`` (tmux 3.2+) runs, as tmux commands, the expansion of a
        ``#{S:#{W:#{P:…}}}`` loop: per pane a record, a state line, a capture
        and a token line. Only ids are expanded into that text; the record and
        state formats go through ``#{l:…}`` untouched, so pane titles, paths
        or names can never become command text. The record's target names
        session, window and pane, so a window linked into several sessions is
        described from each, as ``list-panes -a`` does. A tmux that cannot run
        it (or prints what does not parse) is asked the two-step way, and so is
        a control-mode client: there a list costs no process, and replies of
        thousands of blocks would only slow the parser down.
        """
        if self._runner.control_mode:
            return self._listed_then_read(server, start, end, join_wrapped)
        what = "read every pane"
        fmt = RecordFormat(formats.PANE_FIELDS)
        token = "gridmux-" + secrets.token_hex(12)
        where = "#{session_id}:#{window_id}.#{pane_id}"
        per_pane = [
            f"display-message -p -t {where} {_literal(fmt.template)}",
            f"display-message -p -t #{{pane_id}} {_literal(STATE_FORMAT)}",
            command_text(capture_command("#{pane_id}", start, end, join_wrapped)),
            f"display-message -p {token}",
        ]
        loop = "#{S:#{W:#{P:" + " ; ".join(per_pane) + " ; }}}"
        try:
            out = self._run(server, [["run-shell", "-C", loop]], what)
            parts = out.split(token.encode() + b"\n")
            if parts[-1] or any(part and not part.endswith(b"\n") for part in parts[:-1]):
                raise TmuxFailure(f"cannot {what}: tmux printed an incomplete pane")
            found: list[tuple[PaneInfo, PaneSnapshot]] = []
            for part in parts[:-1]:
                pane, rest = split_record(what, part, fmt)
                snap = parse_snapshot(what, pane.pane_id, rest, start, end, join_wrapped)
                found.append((pane, snap))
            return found
        except ServerNotRunning:
            return []
        except TmuxFailure:
            return self._listed_then_read(server, start, end, join_wrapped)

    def _listed_then_read(
        self, server: ServerRef, start: RowBound, end: RowBound, join_wrapped: bool
    ) -> list[tuple[PaneInfo, PaneSnapshot]]:
        """``scan_panes`` as two lists: the listing, then every pane's snapshot."""
        panes = self.list_panes(server)
        snaps = self.snapshots(
            server,
            list(dict.fromkeys(p.pane_id for p in panes)),
            start=start,
            end=end,
            join_wrapped=join_wrapped,
        )
        return [(pane, snaps[pane.pane_id]) for pane in panes if pane.pane_id in snaps]

    def snapshots(
        self,
        server: ServerRef,
        pane_ids: Sequence[str],
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> dict[str, PaneSnapshot]:
        """Every pane's ``state ; capture`` in one command list, split by a random token.

        A pane closed since it was listed fails the list; then each pane is
        read on its own and the missing ones left out.
        """
        ids = [check_id("pane", pane_id) for pane_id in pane_ids]
        if not ids:
            return {}
        token = "gridmux-" + secrets.token_hex(12)
        commands: list[Command] = []
        for pane_id in ids:
            commands += [state_command(pane_id), capture_command(pane_id, start, end, join_wrapped)]
            commands.append(["display-message", "-p", token])
        what = f"snapshot {len(ids)} panes"
        try:
            out = self._run(server, commands, what)
        except NotFound:
            return self._each(server, ids, start, end, join_wrapped)
        parts = out.split(b"\n" + token.encode() + b"\n")
        if len(parts) != len(ids) + 1 or parts[-1]:
            raise TmuxFailure(f"cannot {what}: tmux printed {len(parts) - 1} of {len(ids)} panes")
        return {
            pane_id: parse_snapshot(
                f"snapshot pane {pane_id}", pane_id, part + b"\n", start, end, join_wrapped
            )
            for pane_id, part in zip(ids, parts, strict=False)
        }

    def _each(
        self,
        server: ServerRef,
        ids: list[str],
        start: RowBound,
        end: RowBound,
        join_wrapped: bool,
    ) -> dict[str, PaneSnapshot]:
        found: dict[str, PaneSnapshot] = {}
        for pane_id in ids:
            with contextlib.suppress(NotFound):
                found[pane_id] = self.snapshot(
                    server, pane_id, start=start, end=end, join_wrapped=join_wrapped
                )
        return found

    def display_message(self, server: ServerRef, target: str, fmt: str) -> str:
        what = f"expand a format for {check_target(target)}"
        command = ["display-message", "-p", "-t", target, formats.TARGET_PROBE + fmt]
        raw = formats.unescaped(self._run(server, [command], what), formats.SEPARATOR)
        probe, _, text = decode(raw).partition(formats.SEPARATOR)
        if not probe:
            raise NotFound(f"cannot {what}: {target} does not exist")
        return text[:-1] if text.endswith("\n") else text

    def show_options(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> dict[str, str]:
        command = ["show-options", *scope_args(scope, target, global_)]
        what = f"show {scope} options" + (f" of {target}" if target else "")
        return parse_options(decode(self._run(server, [command], what)))

    def show_environment(
        self, server: ServerRef, session_id: str | None = None
    ) -> dict[str, str | None]:
        # -s (shell form) quotes every value, so values holding newlines parse.
        if session_id is None:
            command, what = ["show-environment", "-s", "-g"], "show the global environment"
        else:
            command = ["show-environment", "-s", "-t", check_id("session", session_id)]
            what = f"show the environment of session {session_id}"
        out = self._run(server, [command], what)
        return parsed(what, lambda: parse_environment(decode(out)))

    def list_buffers(self, server: ServerRef) -> list[BufferInfo]:
        what, fmt = "list buffers", RecordFormat(formats.BUFFER_FIELDS)
        try:
            out = self._run(server, [["list-buffers", "-F", fmt.template]], what)
        except ServerNotRunning:
            return []
        return parsed(what, lambda: formats.parse_buffers(out, fmt))

    def show_buffer(self, server: ServerRef, name: str) -> str:
        # save-buffer to stdout ("-") writes the stored bytes untouched.
        command = ["save-buffer", "-b", check_name("buffer name", name), "-"]
        return decode(self._run(server, [command], f"show buffer {name!r}"))

    def show_hooks(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> list[HookEntry]:
        what = f"show {scope} hooks" + (f" of {target}" if target else "")
        commands: list[Command]
        if scope == "server":
            # Hooks live in the session and window option trees; the server's
            # hooks are the global ones of both.
            if target is not None:
                raise InvalidArgument("server hooks take no target")
            commands = [["show-hooks", "-g"], ["show-hooks", "-g", "-w"]]
        else:
            commands = [["show-hooks", *scope_args(scope, target, global_)]]
        return parse_hooks(decode(self._run(server, commands, what)))
