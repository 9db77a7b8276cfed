"""The one interface every gridmux tool is written against.

Two implementations satisfy it structurally: the real backend
(``gridmux.backend._command_backend.TmuxCommandBackend``: tmux's command
language over a control-mode client or a process per list) and
the simulator (``tmuxsim.SimBackend``). Methods take and return plain values
from ``_types``; failures raise the classes in ``gridmux.errors``.

Conventions shared by every method:

* ``server`` selects the tmux server (socket name or path).
* Targets are tmux ids (``$n`` sessions, ``@n`` windows, ``%n`` panes); name
  and index resolution happens in the MCP layer, on top of the listings.
* A missing target raises ``NotFound``; a malformed value ``InvalidArgument``;
  anything tmux refuses ``TmuxFailure``.
* Calls are synchronous; the MCP layer runs them off the event loop.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ._types import (
    BufferInfo,
    HookEntry,
    OptionScope,
    PaneDirection,
    PaneInfo,
    PaneSnapshot,
    PaneState,
    RowBound,
    ServerInfo,
    ServerRef,
    SessionInfo,
    SplitDirection,
    WindowDirection,
    WindowInfo,
)


class TmuxBackend(Protocol):
    # -- discovery -----------------------------------------------------------
    def server_info(self, server: ServerRef) -> ServerInfo:
        """Describe the server; ``is_alive`` is False (no error) when none runs."""
        ...

    def list_sessions(self, server: ServerRef) -> list[SessionInfo]:
        """All sessions, in tmux's order. No server running: an empty list."""
        ...

    def list_windows(self, server: ServerRef, session_id: str | None = None) -> list[WindowInfo]:
        """Windows of one session, or of every session when ``session_id`` is None."""
        ...

    def list_panes(
        self,
        server: ServerRef,
        *,
        session_id: str | None = None,
        window_id: str | None = None,
        pane_id: str | None = None,
    ) -> list[PaneInfo]:
        """Panes of one window, one session, or the whole server; with ``pane_id``
        only that pane's rows among them (one per session its window is linked
        into, in the listing's order): the same rows as filtering the listing,
        without tmux describing every other pane."""
        ...

    # -- reads ---------------------------------------------------------------
    def pane_state(self, server: ServerRef, pane_id: str) -> PaneState:
        """The pane's grid state. A pane that no longer exists raises NotFound."""
        ...

    def exit_state(self, server: ServerRef, pane_id: str, grace: float = 1.0) -> PaneState:
        """The state of a pane whose program exited, once tmux knows the exit status.

        tmux marks a pane dead when its terminal closes and records the status
        when it reaps the child; 3.3a sometimes misses the SIGCHLD until another
        child of the server exits. Waits up to ``grace`` seconds for the status
        (making tmux reap meanwhile), then returns the state as it is.
        """
        ...

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
        """State plus rows ``start..end`` (``capture-pane -S/-E``) at ONE instant.

        On real tmux this is one command list (``display-message -p`` chained
        with ``capture-pane -p``) so no pane output is processed in between.
        With ``untrimmed_start`` the same list also captures rows from there
        (an ``-S`` value) to the bottom of the screen with ``-N``, into
        ``PaneSnapshot.untrimmed``.
        Each of ``samples`` (an ``-S`` value) is one more row of that instant,
        into ``PaneSnapshot.samples``.
        """
        ...

    def foreground_process_group(self, server: ServerRef, pane_id: str) -> int | None:
        """The process group in the foreground of the pane's terminal, where this
        process can see it (the tmux server's processes in its own pid namespace,
        with procfs); None when it cannot be known. The pane's own program is in
        the foreground when this equals the pane's pid; for a pane started with a
        command (``default-shell -c COMMAND``) that command counts as the pane's
        program, so its process group is answered as the pane's pid."""
        ...

    def pane_snapshot(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        start: RowBound = None,
        end: RowBound = None,
    ) -> tuple[PaneInfo, PaneSnapshot]:
        """The pane's listing record and a ``snapshot`` of it, in one command list."""
        ...

    def snapshots(
        self,
        server: ServerRef,
        pane_ids: Sequence[str],
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> dict[str, PaneSnapshot]:
        """``snapshot`` of several panes, each atomic, in one command list on real tmux.

        Panes that no longer exist are left out of the answer.
        """
        ...

    def scan_panes(
        self,
        server: ServerRef,
        *,
        start: RowBound = None,
        end: RowBound = None,
        join_wrapped: bool = False,
    ) -> list[tuple[PaneInfo, PaneSnapshot]]:
        """Every pane as ``list_panes`` lists it (a window linked into several
        sessions once per session; no server, as ``list_panes`` says it), each
        with its ``snapshot``: one command list on real tmux."""
        ...

    def display_message(self, server: ServerRef, target: str, fmt: str) -> str:
        """Expand a tmux format string against a target (``display-message -p``)."""
        ...

    def show_options(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> dict[str, str]:
        """Options set at one scope (``show-options``), values as tmux prints them."""
        ...

    def show_environment(
        self, server: ServerRef, session_id: str | None = None
    ) -> dict[str, str | None]:
        """Global or session environment; ``None`` marks a variable set to be removed."""
        ...

    def list_buffers(self, server: ServerRef) -> list[BufferInfo]: ...

    def show_buffer(self, server: ServerRef, name: str) -> str: ...

    def show_hooks(
        self,
        server: ServerRef,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> list[HookEntry]: ...

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
        """Create a detached session (starting the server if needed)."""
        ...

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
        """A new window; without ``select`` the session's active window stays.

        Without ``direction`` it takes the session's next free index; with
        ``"before"``/``"after"`` it is inserted just before/after the session's
        current window, later windows shifting up one index as far as the next
        free one (``new-window -b``/``-a``).
        """
        ...

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
        """A new pane beside ``pane_id``; the window's active pane stays."""
        ...

    def rename_session(self, server: ServerRef, session_id: str, new_name: str) -> None: ...

    def rename_window(self, server: ServerRef, window_id: str, new_name: str) -> None: ...

    def select_window(self, server: ServerRef, window_id: str) -> None: ...

    def select_pane(
        self, server: ServerRef, pane_id: str, *, direction: PaneDirection | None = None
    ) -> None:
        """Make ``pane_id`` its window's active pane; with ``direction``, the pane
        that lies that way from ``pane_id`` (wrapping round the window, the most
        recently active one on ties; none: no change), or the window's last pane
        (none: TmuxFailure) -- ``select-pane -U/-D/-L/-R/-l``."""
        ...

    def set_pane_title(self, server: ServerRef, pane_id: str, title: str) -> None: ...

    def select_layout(self, server: ServerRef, window_id: str, layout: str) -> None: ...

    def resize_pane(
        self,
        server: ServerRef,
        pane_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
        zoom: bool | None = None,
    ) -> None:
        """Resize, or set (not toggle) zoom; a size with zoom, or nothing, is InvalidArgument."""
        ...

    def resize_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        width: int | None = None,
        height: int | None = None,
    ) -> None: ...

    def move_window(
        self,
        server: ServerRef,
        window_id: str,
        *,
        destination_session_id: str | None = None,
        destination_index: int | None = None,
    ) -> None: ...

    def swap_pane(self, server: ServerRef, source_pane_id: str, target_pane_id: str) -> None: ...

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
        """Restart the pane's program; history is kept, the screen blanked."""
        ...

    def kill_pane(self, server: ServerRef, pane_id: str) -> None: ...

    def kill_window(self, server: ServerRef, window_id: str) -> None: ...

    def kill_session(self, server: ServerRef, session_id: str) -> None: ...

    def kill_server(self, server: ServerRef) -> None: ...

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
        """Type ``keys`` (literally with ``literal``), then Enter, in one tmux call."""
        ...

    def clear_history(self, server: ServerRef, pane_id: str) -> None: ...

    def clear_pane(self, server: ServerRef, pane_id: str) -> None:
        """Blank the pane in one tmux command list: reset its terminal (``send-keys
        -R``, which pushes the screen into history) then ``clear-history`` (which
        also leaves any mode). The cursor ends at 0,0 with no history."""
        ...

    def copy_mode(
        self, server: ServerRef, pane_id: str, *, enter: bool, scroll_up: int | None = None
    ) -> None: ...

    def pipe_pane(
        self, server: ServerRef, pane_id: str, command: str | None, *, append: bool = True
    ) -> None:
        """Pipe pane output to a shell command; ``None`` stops piping.

        ``append`` is advisory: the command itself decides where output goes.
        """
        ...

    def open_pipe(self, server: ServerRef, pane_id: str, command: str) -> bool:
        """Pipe the pane's output to ``command`` unless it has a pipe already
        (a user's is never replaced or closed), in one step; whether this
        opened it."""
        ...

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
    ) -> None: ...

    def unset_option(
        self,
        server: ServerRef,
        name: str,
        *,
        scope: OptionScope,
        target: str | None = None,
        global_: bool = False,
    ) -> None:
        """``set-option -u``: the target's own value is removed (it inherits again);
        a global option returns to its default. An option without its own value
        is left as it is."""
        ...

    def swap_pane_option(
        self, server: ServerRef, pane_id: str, name: str, expected: str, new: str
    ) -> str:
        """Compare-and-set of the pane user option ``name`` (``@...``), atomically
        on the tmux server: when it holds ``expected`` (``""``: unset or empty),
        set it to ``new`` (``""``: unset it). Returns what it holds afterwards,
        so the caller knows whether the swap was its own. Names and values are
        letters, digits, ``.``, ``-`` and ``_``. Every gridmux process on the
        server sees the same option, so this is a lock they all share.
        """
        ...

    def set_environment(
        self, server: ServerRef, name: str, value: str, *, session_id: str | None = None
    ) -> None: ...

    def load_buffer(self, server: ServerRef, name: str, content: str) -> None: ...

    def paste_buffer(
        self,
        server: ServerRef,
        name: str,
        pane_id: str,
        *,
        bracket: bool = True,
        delete: bool = False,
    ) -> None:
        """Paste buffer ``name`` into the pane (``-d``: then delete it).

        A dead pane raises PaneDead and keeps the buffer: tmux 3.3a's server
        crashes on ``paste-buffer`` into a dead pane, so the real backend tests
        ``pane_dead`` inside the same command.
        """
        ...

    def delete_buffer(self, server: ServerRef, name: str) -> None: ...

    def wait_for(self, server: ServerRef, channel: str, timeout: float) -> bool:
        """Block until ``channel`` is signalled; False when ``timeout`` passes first.

        On real tmux a timed-out waiter is woken by a signal of its own (a
        killed ``wait-for`` client would otherwise swallow the next signal), so
        other waiters on the channel wake too.
        """
        ...

    def signal_channel(self, server: ServerRef, channel: str) -> None: ...
