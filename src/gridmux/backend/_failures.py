"""tmux's answers and the transports' failures as the classes of ``gridmux.errors``.

The one mapping table of the real backend, applied by ``_runner.TmuxRunner``
to whatever transport carried a list:

* the binary is missing or cannot be executed -> ``TmuxUnavailable``;
* a command too long to pass at all (the OS refuses the argv, E2BIG, or the
  tmux client's "command too long": one message to its server holds about
  16 KiB) -> ``InvalidArgument`` saying so and how to send large text;
* no answer within the command timeout -> ``TmuxTimeout``;
* tmux refuses with "can't find …", "no such …", "no server running",
  "error connecting to … (No such file or directory)", "no buffer …" and the
  like -> ``NotFound`` (``ServerNotRunning``, a private subclass, when the
  whole server is missing);
* any other refusal, or a connection lost mid-answer -> ``TmuxFailure``
  carrying tmux's own message.
"""

from __future__ import annotations

from gridmux.errors import (
    GridmuxError,
    InvalidArgument,
    NotFound,
    TmuxFailure,
    TmuxTimeout,
    TmuxUnavailable,
)

from ._transport import CannotStart, CommandTooLong, Completed, TransportError, TransportTimeout
from ._types import ServerRef

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


#: tmux's client refuses a command that does not fit one message to its server.
_TOO_LONG_MARKER = "command too long"
_TOO_LONG_HINT = (
    "Send less per call: split the text into parts of a few KiB, or pass large text "
    "through paste_text or load_buffer (they hand it to tmux on standard input, up to "
    "their documented size)."
)


class ServerNotRunning(NotFound):
    """No tmux server listens on the socket (a ``NotFound`` for callers)."""

    default_hint = "Start the server first, e.g. by creating a session."


def describe_server(server: ServerRef) -> str:
    if server.socket_path is not None:
        return f"tmux server at socket {server.socket_path}"
    if server.socket_name is not None:
        return f"tmux server {server.socket_name!r}"
    return "the default tmux server"


def checked(server: ServerRef, what: str, answer: Completed) -> bytes:
    """``answer``'s stdout when tmux ran the list; else the error it means."""
    if answer.status != 0:
        raise tmux_refusal(server, what, answer.status, answer.stderr)
    return answer.stdout


def tmux_refusal(server: ServerRef, what: str, status: int, stderr: str) -> GridmuxError:
    """The gridmux error for a list tmux refused (``stderr``: its message)."""
    message = stderr or f"tmux exited with status {status}"
    lowered = message.lower()
    where = describe_server(server)
    if _TOO_LONG_MARKER in lowered:
        return InvalidArgument(
            f"cannot {what}: the tmux command is too long for tmux's client, which passes "
            f"at most about 16 KiB of arguments to its server ({message})",
            hint=_TOO_LONG_HINT,
        )
    if any(marker in lowered for marker in _NO_SERVER_MARKERS) or (
        "error connecting to" in lowered and any(reason in lowered for reason in _NO_SOCKET_REASONS)
    ):
        return ServerNotRunning(f"cannot {what}: no {where} is running ({message})")
    if any(marker in lowered for marker in _NOT_FOUND_MARKERS):
        return NotFound(f"cannot {what} on {where}: {message}")
    return TmuxFailure(f"tmux failed to {what} on {where}: {message}")


def transport_failure(
    server: ServerRef, what: str, exc: TransportError, timeout: float
) -> GridmuxError:
    """The gridmux error for a list no transport got an answer to."""
    where = describe_server(server)
    if isinstance(exc, TransportTimeout):
        return TmuxTimeout(
            f"tmux did not answer within {timeout:g}s while trying to {what} on {where}"
        )
    if isinstance(exc, CommandTooLong):
        return InvalidArgument(
            f"cannot {what}: the tmux command is {exc.size} bytes, more than the operating "
            "system lets one program's arguments hold (E2BIG, argument list too long); "
            "tmux itself is installed",
            hint=_TOO_LONG_HINT,
        )
    if isinstance(exc, CannotStart):
        return TmuxUnavailable(
            f"cannot run tmux to {what}: {exc.program!r} failed to start ({exc.reason})"
        )
    return TmuxFailure(f"tmux failed to {what} on {where}: {exc}")
