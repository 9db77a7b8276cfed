"""The runner over the Transport interface, without tmux: fallback and error translation."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest

from gridmux.backend._commands import Command
from gridmux.backend._control_transport import attach_target
from gridmux.backend._failures import ServerNotRunning
from gridmux.backend._runner import TmuxRunner
from gridmux.backend._subprocess_transport import SubprocessTransport
from gridmux.backend._transport import (
    CannotStart,
    CommandTooLong,
    Completed,
    NotCarried,
    TmuxProgram,
    Transport,
    TransportBroken,
    TransportError,
    TransportTimeout,
)
from gridmux.backend._types import ServerRef
from gridmux.errors import InvalidArgument, NotFound, TmuxFailure, TmuxTimeout, TmuxUnavailable

SERVER = ServerRef(socket_name="t")


@dataclass
class Scripted:
    """A transport answering every list with ``outcome`` (an answer or an error to raise)."""

    outcome: Completed | TransportError
    #: what a wait answers (None: it timed out, after calling ``release``)
    waited: Completed | TransportError | None = None
    runs: list[list[list[str]]] = field(default_factory=list)
    waits: list[str] = field(default_factory=list)

    def run(
        self, server: ServerRef, commands: Sequence[Command], *, stdin: bytes | None = None
    ) -> Completed:
        self.runs.append([list(command) for command in commands])
        if isinstance(self.outcome, TransportError):
            raise self.outcome
        return self.outcome

    def wait_for(
        self, server: ServerRef, channel: str, timeout: float, release: Callable[[], None]
    ) -> Completed | None:
        self.waits.append(channel)
        if isinstance(self.waited, TransportError):
            raise self.waited
        if self.waited is None:
            release()
        return self.waited

    def close(self) -> None:
        pass


def runner(*transports: Transport) -> TmuxRunner:
    return TmuxRunner("tmux", command_timeout=2.5, transports=transports)


def test_not_carried_falls_back_to_the_next_transport_only() -> None:
    declines, answers = Scripted(NotCarried("no")), Scripted(Completed(b"out\n"))
    assert runner(declines, answers).run(SERVER, [["ls"]], what="list") == b"out\n"
    assert declines.runs == [[["ls"]]]
    assert answers.runs == [[["ls"]]]
    first, second = Scripted(Completed(b"first\n")), Scripted(Completed(b"second\n"))
    assert runner(first, second).run(SERVER, [["ls"]], what="list") == b"first\n"
    assert second.runs == []


@pytest.mark.parametrize(
    ("message", "error"),
    [
        ("can't find pane: %9", NotFound),
        ("no server running on /tmp/tmux-1/t", ServerNotRunning),
        ("error connecting to /tmp/x (No such file or directory)", ServerNotRunning),
        ("pane %1 still active", TmuxFailure),
    ],
)
def test_a_refusal_becomes_the_error_it_means(message: str, error: type[Exception]) -> None:
    refused = Scripted(Completed(b"", stderr=message, status=1))
    with pytest.raises(error) as raised:
        runner(refused).run(SERVER, [["kill-pane", "-t", "%9"]], what="kill pane %9")
    assert type(raised.value) is error
    assert "kill pane %9" in str(raised.value)
    assert message in str(raised.value)


def test_a_silent_refusal_names_its_status() -> None:
    refused = Scripted(Completed(b"", status=3))
    with pytest.raises(TmuxFailure, match="tmux exited with status 3"):
        runner(refused).run(SERVER, [["ls"]], what="list")


@pytest.mark.parametrize(
    ("failure", "error", "text"),
    [
        (TransportTimeout("late"), TmuxTimeout, "did not answer within 2.5s while trying to list"),
        (TransportBroken("cut"), TmuxFailure, "tmux failed to list on tmux server 't': cut"),
        (CannotStart("/no/tmux", "No such file"), TmuxUnavailable, "'/no/tmux' failed to start"),
        (NotCarried("nobody"), TmuxFailure, "tmux failed to list"),
    ],
)
def test_transport_failures_become_the_error_tree(
    failure: TransportError, error: type[Exception], text: str
) -> None:
    with pytest.raises(error, match=text) as raised:
        runner(Scripted(NotCarried("no")), Scripted(failure)).run(SERVER, [["ls"]], what="list")
    assert type(raised.value) is error


def test_a_failure_of_the_first_transport_is_not_retried_elsewhere() -> None:
    # The list may have run: running it again on the subprocess would repeat it.
    later = Scripted(Completed(b""))
    with pytest.raises(TmuxTimeout):
        runner(Scripted(TransportTimeout("late")), later).run(SERVER, [["ls"]], what="list")
    assert later.runs == []


def waiting(transports: Sequence[Transport], waits: Scripted) -> TmuxRunner:
    return TmuxRunner("tmux", command_timeout=2.5, transports=transports, waits=waits)


def test_wait_channel_signalled_timed_out_and_released() -> None:
    control, signalled = Scripted(Completed(b"")), Scripted(NotCarried("no"), Completed(b""))
    assert waiting([control], signalled).wait_channel(SERVER, "c", 1.0, what="wait") is True
    # the wait goes to the waits' carrier alone, never to a transport of lists
    assert (signalled.waits, signalled.runs, control.waits, control.runs) == (["c"], [], [], [])
    declines = Scripted(NotCarried("no"))
    commands, timed_out = Scripted(Completed(b"")), Scripted(NotCarried("no"), waited=None)
    released = waiting([declines, commands], timed_out).wait_channel(SERVER, "c", 1.0, what="w")
    assert released is False
    assert timed_out.waits == ["c"]
    # released by a signal of our own, on the first transport that carries it
    assert declines.runs == commands.runs == [[["wait-for", "-S", "c"]]]
    assert (timed_out.runs, declines.waits, commands.waits) == ([], [], [])
    refused = Scripted(Completed(b""), waited=Completed(b"", stderr="no server running", status=1))
    with pytest.raises(ServerNotRunning, match="wait"):
        waiting([Scripted(Completed(b""))], refused).wait_channel(SERVER, "c", 1.0, what="wait")
    late = waiting([Scripted(Completed(b""))], Scripted(NotCarried("no"), TransportTimeout("x")))
    with pytest.raises(TmuxTimeout, match="wait"):
        late.wait_channel(SERVER, "c", 1.0, what="wait")


def test_the_default_transports_follow_control_mode() -> None:
    plain = TmuxRunner("tmux")
    assert (plain.control_mode, plain.control) == (False, None)
    control = TmuxRunner("tmux", control_mode=True)
    assert control.control_mode
    assert control.control is not None


def test_subprocess_argv_is_one_list_with_escaped_separators() -> None:
    transport = SubprocessTransport(TmuxProgram("/bin/tmux"), timeout=1.0)
    argv = transport.argv(SERVER, [["display-message", "-p", "a;"], ["ls"]])
    assert argv == ["/bin/tmux", "-u", "-L", "t", "display-message", "-p", "a\\;", ";", "ls"]


def test_subprocess_transport_that_cannot_start() -> None:
    transport = SubprocessTransport(TmuxProgram("/nonexistent/tmux"), timeout=1.0)
    with pytest.raises(CannotStart) as raised:
        transport.run(SERVER, [["ls"]])
    assert raised.value.program == "/nonexistent/tmux"


def test_a_command_too_long_is_an_argument_error_not_a_missing_tmux() -> None:
    # The OS refuses the argv (E2BIG) ...
    with pytest.raises(InvalidArgument) as raised:
        runner(Scripted(CommandTooLong(300_000))).run(SERVER, [["ls"]], what="send keys")
    error = raised.value
    assert type(error) is InvalidArgument
    assert "cannot send keys: the tmux command is 300000 bytes" in str(error)
    assert "E2BIG" in str(error)
    assert "Install tmux" not in error.hint and "paste_text" in error.hint
    # ... or tmux's client refuses to pass it to its server.
    refused = Scripted(Completed(b"", stderr="command too long", status=1))
    with pytest.raises(InvalidArgument, match="at most about 16 KiB") as raised:
        runner(refused).run(SERVER, [["ls"]], what="send keys")
    assert "paste_text" in raised.value.hint


def test_subprocess_transport_reports_e2big_as_command_too_long() -> None:
    transport = SubprocessTransport(TmuxProgram("/bin/sh"), timeout=1.0)
    huge = "x" * (2 << 20)  # over the limit of one argument (Linux: 128 KiB) or all (macOS)
    with pytest.raises(CommandTooLong) as raised:
        transport.run(SERVER, [["display-message", "-p", huge]])
    assert raised.value.size > len(huge)


@pytest.mark.parametrize(
    ("listing", "chosen"),
    [
        (b"$0 1 1\n$1 0 0\n$2 off 2\n", "$2"),  # attached already, destroy-unattached off
        (b"$0 on 1\n$1 keep-last 0\n$2 1 0\n", None),  # each would be kept alive by it
        (b"$4 0 0\n$1 keep-group 0\n", "$4"),
        (b"", None),
    ],
)
def test_the_control_client_attaches_where_it_keeps_no_session_alive(
    listing: bytes, chosen: str | None
) -> None:
    assert attach_target(listing) == chosen
