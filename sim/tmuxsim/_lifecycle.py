"""How a pane's program ends and starts again: pty close, exit, dead panes,
``respawn-pane`` (``server-fn.c:server_destroy_pane``, ``window.c``,
``spawn.c``; docs/tmux-model.md §12, §13).

tmux sees two events when a program ends: its pty reads end of file (the
program, or every process holding the tty, closed it) and the child's exit
status is reaped. A program that exits does both at once; one that closes
its tty first (``PaneIO.close_tty``) and exits later shows the difference:

* up to 3.6b the pane is dead (``pane_dead`` 1, status empty, no message)
  once the pty closes; ``remain-on-exit off`` destroys it then;
* 3.7 keeps ``pane_dead`` 0 until the status is reaped too
  (``pane_dead_waits_for_status``), though ``off`` still destroys it at once;
* 3.8 does nothing until the status is reaped (``destroy_waits_for_status``),
  except that ``pane_pid`` is already empty.

Once the status is known, ``remain-on-exit`` decides: ``off`` destroys the
pane, ``failed`` destroys it after a zero exit status, ``on`` and ``key``
(3.7+) keep it and draw the dead-pane message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from gridmux.backend import TmuxFailure

from ._formats import ctime
from ._spawn import process_environment, start_program

if TYPE_CHECKING:
    from ._model import SimPane
    from ._server_state import ServerState


def tty_closed(server: ServerState, pane: SimPane) -> None:
    """The pty read end of file: tmux closes its side (``wp->fd = -1``)."""
    if pane.tty_closed or pane.destroyed or not server.alive:
        return
    pane.tty_closed = True
    _destroy_ready(server, pane)


def exited(server: ServerState, pane: SimPane, status: int, signal: int | None) -> None:
    """The program's exit status was reaped (``server_child_exited``); its tty
    is closed with it."""
    if pane.exited or pane.destroyed or not server.alive:
        return
    pane.program.stop()
    pane.exited = True
    pane.tty_closed = True
    if signal is None:
        pane.dead_status, pane.dead_signal = status, None
    else:
        pane.dead_status, pane.dead_signal = None, signal
    _destroy_ready(server, pane)


def _destroy_ready(server: ServerState, pane: SimPane) -> None:
    # window_pane_destroy_ready + server_destroy_pane, as far as they show.
    version = server.version
    remain = pane.option("remain-on-exit")
    if not pane.exited:
        if remain == "off" and not version.destroy_waits_for_status:
            server.destroy_pane(pane)
        return
    failed = pane.dead_signal is not None or pane.dead_status != 0
    if remain == "off" or (remain == "failed" and not failed):
        server.destroy_pane(pane)
        return
    if pane.dead_time is not None:
        return  # PANE_STATUSDRAWN
    pane.dead_time = int(server.clock.now())
    if version.dead_pane_message_is_format:
        text = server.expand_format(pane.option("remain-on-exit-format"), pane)
    else:
        # 3.2a: a fixed text (which the Terminal lets wrap). The signal form
        # follows the status form; it was not measured.
        what = (
            f"status {pane.dead_status}"
            if pane.dead_signal is None
            else f"signal {pane.dead_signal}"
        )
        text = f"Pane is dead ({what}, {ctime(str(pane.dead_time))})"
    pane.terminal.write_dead_message(text)


def respawn(
    server: ServerState,
    pane_id: str,
    *,
    kill: bool,
    command: str | None,
    start_directory: str | None,
    environment: Mapping[str, str] | None,
) -> SimPane:
    pane = server.pane(pane_id)
    if not pane.tty_closed and not kill:
        # spawn.c refuses while the pane's pty is open (wp->fd != -1).
        raise TmuxFailure(f"respawn pane failed: pane {pane_id} still active")
    with server.atomic():
        if not pane.exited:
            pane.program.stop()  # killed, so no exit handling and no message
        pane.mode = None
        # docs/tmux-model.md §12: history and hlimit are kept (not re-read before 3.7).
        pane.terminal.respawn_reset()
        pane.tty_closed = pane.exited = False
        pane.dead_status = pane.dead_signal = pane.dead_time = None
        if start_directory is not None:
            pane.current_path = start_directory
        pane.environment.clear()
        pane.environment.update(process_environment(server, pane, environment))
        start_program(server, pane, command if command is not None else pane.start_command)
    return pane
