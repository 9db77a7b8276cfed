"""Run a command list on the best transport; the one place of fallback and of errors.

Every tmux call the real backend makes goes through :class:`TmuxRunner`. It
holds the transports in order of preference (with control mode, the
control-mode transport, then the subprocess transport; without, the
subprocess transport alone), hands a list to the first that carries it
(``NotCarried`` moves on to the next), and turns what comes back into
stdout or the classes of ``gridmux.errors`` (``_failures``). Waits
(``wait-for``) skip the control client: each is a plain tmux process
(``Waits``), which attaches to nothing. No transport imports this module.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from ._commands import Command
from ._control_transport import ControlTransport
from ._failures import checked, transport_failure
from ._subprocess_transport import SubprocessTransport
from ._transport import NotCarried, TmuxProgram, Transport, TransportError, Waits
from ._types import ServerRef

_T = TypeVar("_T")


class TmuxRunner:
    """The transports of one backend, tried in order, with error translation.

    ``tmux_bin``: the executable (looked up on ``PATH`` at first use when
    None). ``command_timeout``: seconds any list may take. ``control_mode``:
    try a persistent control-mode client per server before a subprocess.
    ``transports``: other transports to try, in this order, instead of those.
    ``waits``: what carries ``wait-for`` instead of the subprocess transport.
    """

    def __init__(
        self,
        tmux_bin: str | None = None,
        *,
        command_timeout: float = 10.0,
        control_mode: bool = False,
        transports: Sequence[Transport] = (),
        environment: Callable[[], Mapping[str, str]] | None = None,
        waits: Waits | None = None,
    ) -> None:
        if command_timeout <= 0:
            raise ValueError("command_timeout must be positive")
        self.command_timeout = command_timeout
        program = self.program = TmuxProgram(tmux_bin, environment)
        self.subprocess = SubprocessTransport(program, timeout=command_timeout)
        self._waits: Waits = self.subprocess if waits is None else waits
        if not transports:
            control = (
                [ControlTransport(program, timeout=command_timeout, lister=self.subprocess)]
                if control_mode
                else []
            )
            transports = [*control, self.subprocess]
        self._transports = tuple(transports)
        self.control = next(
            (found for found in self._transports if isinstance(found, ControlTransport)), None
        )

    @property
    def control_mode(self) -> bool:
        """Whether lists go over control-mode clients where they can."""
        return self.control is not None

    def close(self) -> None:
        """Stop the control-mode clients (the runner stays usable)."""
        for transport in self._transports:
            transport.close()

    def shutdown(self) -> None:
        """For the end of gridmux: start no tmux process or client again, and kill
        the running ones, so every pending call ends now (with an error)."""
        self.subprocess.shutdown()  # first: a control request cut short falls back to it
        if self.control is not None:
            self.control.shutdown()

    def _first_carrying(self, server: ServerRef, what: str, call: Callable[[Transport], _T]) -> _T:
        """``call`` on each transport until one carries it: the one fallback."""
        try:
            for transport in self._transports[:-1]:
                try:
                    return call(transport)
                except NotCarried:
                    continue
            return call(self._transports[-1])
        except TransportError as exc:
            raise transport_failure(server, what, exc, self.command_timeout) from None

    def run(
        self,
        server: ServerRef,
        commands: Sequence[Command],
        *,
        what: str,
        stdin: bytes | None = None,
    ) -> bytes:
        """Run ``commands`` as one list; stdout on success, else raise.

        ``what`` names the operation and its target ("capture pane %3"); every
        error message starts with it. After ``command_timeout`` the list is
        abandoned (its process killed and reaped) and ``TmuxTimeout`` raised.
        """
        answer = self._first_carrying(
            server, what, lambda transport: transport.run(server, commands, stdin=stdin)
        )
        return checked(server, what, answer)

    def wait_channel(self, server: ServerRef, channel: str, timeout: float, *, what: str) -> bool:
        """``wait-for channel``: True once signalled, False when ``timeout`` passes first.

        The wait is a tmux process of its own, never the control client; its
        release at the deadline (a ``wait-for -S``) goes the usual way.
        """

        def release() -> None:
            self.run(server, [["wait-for", "-S", channel]], what=f"release the {what}")

        try:
            answer = self._waits.wait_for(server, channel, timeout, release)
        except TransportError as exc:
            raise transport_failure(server, what, exc, self.command_timeout) from None
        if answer is None:
            return False
        checked(server, what, answer)
        return True


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
