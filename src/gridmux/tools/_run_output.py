"""run_command's full output: what tmux piped from the pane, as lines.

Before typing, run_command pipes the pane's output (``pipe-pane``, in an
``if-shell -F '#{?pane_pipe,,1}'``, in the same list that reads whether it
did) into a file next to the run's script (``_run_script``: 0600 in the
private 0700 directory), only when the pane has no pipe yet: a user's pipe
is never taken over or closed (the run then reads the screen as before,
with an honest ``lines_missed``). After the run, the pipe is closed. The script prints an OSC
start marker after redrawing the command and an end marker after it; tmux
ignores both on screen (an OSC whose number is not a number), the pipe gets
them. The bytes between them are the command's output exactly, however
much scrolled past ``history-limit``; ``terminal_lines`` turns them into
lines (escape sequences dropped, a carriage return overwriting its line,
tabs to columns of 8, trailing blanks trimmed).

The pipe is read only when the screen could not hold the output
(``_run_screen``: ``Output.whole`` false): tmux writes the pipe
asynchronously, so the run then waits for the end marker (up to
``_PIPE_LAG`` seconds). When the screen read holds every line, those lines
are the answer and the full output, and the pipe is closed once its start
marker is in the file (there already, in practice: the script printed it
before the command ran), so that the pipe's ``cat`` cannot create the file
again after the run deleted it. The last
``KEEP_RUNS`` runs' lines (at most ``KEEP_BYTES``) stay readable as the
resource ``tmux://runs/{run_id}/output``; older ones are deleted, and all of
them at exit with the directory. A timed-out run, or one whose end never
came through, answers from the screen (no ``full_output``).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.errors import GridmuxError

from ._command_line import markers
from ._run_screen import Output

#: Runs whose full output stays readable, and their bytes at most.
KEEP_RUNS = 16
KEEP_BYTES = 64 << 20
#: How long the piped bytes may lag behind the shell's signal.
_PIPE_LAG = 3.0
_PIPE_POLL = 0.002

_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC .. BEL or ST
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC, SOS .. ST
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[ -/]*[0-~]"  # two-byte and charset escapes
    r"|\x1b"
)
_CONTROLS = re.compile(r"[\x00-\x07\x0b-\x1f\x7f]")
_TAB = 8


def terminal_lines(data: bytes) -> list[str]:
    """Lines of terminal output: escape sequences dropped, a carriage return
    overwriting the line from its start, backspace moving back, tabs to the
    next multiple of 8, other control characters dropped, trailing blanks
    trimmed (as tmux trims a row). A last line without a newline counts."""
    text = _ESCAPES.sub("", data.decode("utf-8", "replace")).replace("\r\n", "\n")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [_line(line) for line in lines]


def as_piped(lines: Sequence[str]) -> list[str]:
    """Rows read from the screen as ``terminal_lines`` makes the pipe's lines:
    a tab to the next multiple of 8 (tmux 3.8 captures a tab it kept as a tab
    character, 3.3a as the blanks it skipped), other controls dropped."""
    return [_line(line) for line in lines]


def _line(text: str) -> str:
    if "\r" not in text and "\b" not in text and "\t" not in text:
        return _CONTROLS.sub("", text).rstrip()
    cells: list[str] = []
    column = 0
    for char in text:
        if char == "\r":
            column = 0
        elif char == "\b":
            column = max(0, column - 1)
        elif char == "\t":
            column = (column // _TAB + 1) * _TAB
        elif _CONTROLS.match(char):
            continue
        else:
            cells.extend(" " * (column - len(cells)))
            if column < len(cells):
                cells[column] = char
            else:
                cells.append(char)
            column += 1
    return "".join(cells).rstrip()


def piped_output(path: str, token: str, *, lag: float = _PIPE_LAG) -> bytes | None:
    """The bytes between run ``token``'s markers in ``path``, waiting up to
    ``lag`` seconds for the end marker to arrive; None if it does not."""
    start, end = (marker.encode() for marker in markers(token))
    data = _piped_until(path, end, lag)
    if data is None:
        return None
    first, last = data.find(start), data.rfind(end)
    return data[first + len(start) : last] if 0 <= first < last else None


def pipe_started(path: str, token: str, *, lag: float = _PIPE_LAG) -> bool:
    """Whether run ``token``'s start marker reached ``path`` (waiting up to
    ``lag`` seconds): the pipe's ``cat`` has the file open, so deleting it
    now cannot leave a new one behind."""
    return _piped_until(path, markers(token)[0].encode(), lag) is not None


def _piped_until(path: str, marker: bytes, lag: float) -> bytes | None:
    """What ``path`` holds once ``marker`` is in it, or None after ``lag`` seconds."""
    deadline = time.monotonic() + lag
    while True:
        with open(path, "rb") as file:
            data = file.read()
        if marker in data:
            return data
        if time.monotonic() >= deadline:
            return None
        time.sleep(_PIPE_POLL)  # in a worker thread: tmux writes the pipe meanwhile


@dataclass(frozen=True, slots=True)
class _Kept:
    path: str
    size: int


class Outputs:
    """The last runs' full outputs, by run id (the run's token)."""

    def __init__(self, runs: int = KEEP_RUNS, size: int = KEEP_BYTES) -> None:
        self._runs, self._size = runs, size
        self._kept: OrderedDict[str, _Kept] = OrderedDict()
        self._lock = threading.Lock()

    def keep(self, run_id: str, path: str, lines: Sequence[str]) -> None:
        """Keep ``lines`` (written to ``path``, 0600) as run ``run_id``'s output;
        evict the oldest runs beyond the bounds."""
        output = "".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass")
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW
        with os.fdopen(os.open(path, flags, 0o600), "wb") as file:
            file.write(output)
        with self._lock:
            self._kept[run_id] = _Kept(path, len(output))
            total = sum(kept.size for kept in self._kept.values())
            while len(self._kept) > self._runs or (total > self._size and len(self._kept) > 1):
                _, old = self._kept.popitem(last=False)
                total -= old.size
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(old.path)

    def lines(self, run_id: str) -> list[str] | None:
        """Run ``run_id``'s whole output, or None when it is not kept (any more)."""
        with self._lock:
            kept = self._kept.get(run_id)
        if kept is None:
            return None
        try:
            with open(kept.path, "rb") as file:
                return file.read().decode("utf-8", "surrogatepass").split("\n")[:-1]
        except FileNotFoundError:
            return None


#: This process's kept outputs.
OUTPUTS = Outputs()


def output_uri(run_id: str) -> str:
    return f"tmux://runs/{run_id}/output"


class Pipe:
    """Run ``token``'s ``pipe-pane`` into its private file ``path``, when it
    ``opened`` one (the pane had no pipe of its user's); its whole output is
    kept at ``kept``."""

    def __init__(
        self,
        backend: TmuxBackend,
        server: ServerRef,
        pane_id: str,
        token: str,
        *,
        path: str,
        kept: str,
    ) -> None:
        self.backend, self.server, self.pane_id = backend, server, pane_id
        self.token, self.path, self.kept = token, path, kept
        self.opened = False

    def open(self, command: str) -> None:
        """Pipe the pane's output to ``command``, unless the pane has a pipe."""
        self.opened = self.backend.open_pipe(self.server, self.pane_id, command)

    def close(self) -> None:
        """Stop piping, if this run's pipe is open (never a user's)."""
        if self.opened:
            self.opened = False
            with contextlib.suppress(GridmuxError):
                self.backend.pipe_pane(self.server, self.pane_id, None)

    def output(self, screen: Output, status: int | None) -> Output:
        """The command's whole output, kept for the resource, if it finished and
        this run piped it: the screen's lines when they are whole, else the
        pipe's once its end came through; else ``screen``."""
        if not self.opened or status is None:
            return screen
        if screen.whole:
            pipe_started(self.path, self.token)  # so its file is not made again
            self.close()
            lines = as_piped(screen.lines)
        else:
            data = piped_output(self.path, self.token)
            self.close()
            if data is None:
                return screen
            lines = terminal_lines(data)
        OUTPUTS.keep(self.token, self.kept, lines)
        return Output(lines, False, screen.held, output_uri(self.token), whole=True)


__all__ = [
    "KEEP_BYTES",
    "KEEP_RUNS",
    "OUTPUTS",
    "Outputs",
    "Pipe",
    "as_piped",
    "output_uri",
    "pipe_started",
    "piped_output",
    "terminal_lines",
]
