"""The benchmark's private tmux server, its isolated environment and its panes.

Everything lives under one temporary directory: ``HOME``, ``TMUX_TMPDIR``,
the spawn-counting wrappers, the FIFOs of the writer panes and the servers'
logs. The tmux server runs on a private socket (``-L gridmux-bench-<pid>``)
with no configuration file and is killed at the end. The harness's own tmux
calls (setup, settling, the "was it still retained?" captures) run the real
tmux directly, so they never reach a spawn counter.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

WRITER = Path(__file__).resolve().parent / "writer.py"
NUMBER = re.compile(r"L(\d{7})")
GRID_PANES = 20
#: The latency case that lists them (its answer's bytes a pane have a budget).
LIST_PANES_CASE = f"list_panes ({GRID_PANES} panes)"


class BenchError(RuntimeError):
    """The benchmark could not run (missing tool, tmux failure, a server error)."""


def find_tmux(configured: str | None) -> str:
    """Absolute path of the tmux to benchmark against (``--tmux-bin`` or PATH)."""
    found = configured or shutil.which("tmux")
    if found is None:
        raise BenchError("no tmux on PATH (install tmux, or pass --tmux-bin)")
    if os.sep not in found:
        found = shutil.which(found) or found
    return os.path.abspath(found)


@dataclass
class TmuxEnv:
    """A private tmux server plus the isolated environment every process shares."""

    tmux: str
    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="gmbench-")))
    socket: str = field(default_factory=lambda: f"gridmux-bench-{os.getpid()}")

    def __post_init__(self) -> None:
        for sub in ("home", "tmp", "fifo", "logs", "text", "bin"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        # Every ``tmux`` found on PATH -- the servers', and the one a pane's shell
        # runs for run_command -- is the benchmarked one.
        (self.root / "bin" / "tmux").symlink_to(self.tmux)

    # -- environment -----------------------------------------------------------

    def base_env(self, path_first: Path | None = None) -> dict[str, str]:
        """Environment for the tmux server and the MCP servers (no TMUX/TMUX_PANE)."""
        path = f"{self.root / 'bin'}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}"
        if path_first is not None:
            path = f"{path_first}{os.pathsep}{path}"
        return {
            "HOME": str(self.root / "home"),
            "TMUX_TMPDIR": str(self.root / "tmp"),
            "PATH": path,
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TERM": os.environ.get("TERM", "xterm-256color"),
            # The predecessor's FastMCP banner would ask the package index for
            # a newer release at every start; network noise, not the server.
            "FASTMCP_CHECK_FOR_UPDATES": "off",
        }

    def counting_dir(self, label: str) -> tuple[Path, Path]:
        """A directory holding a ``tmux`` that logs each run, and the log file."""
        directory = self.root / f"count-{label}"
        directory.mkdir(exist_ok=True)
        counter = self.root / f"count-{label}.log"
        counter.touch()
        wrapper = directory / "tmux"
        # One line per run, written by one printf: ``>>`` opens with O_APPEND, so
        # concurrent runs never interleave. Arguments holding a newline (typed
        # text) are abridged so that a line is a run.
        wrapper.write_text(
            "#!/bin/sh\n"
            "line=x\n"
            'for arg in "$@"; do\n'
            '  case $arg in *"\n"*) arg="<text>" ;; esac\n'
            '  line="$line $arg"\n'
            "done\n"
            f"printf '%s\\n' \"$line\" >> {shlex.quote(str(counter))}\n"
            f'exec {shlex.quote(self.tmux)} "$@"\n'
        )
        wrapper.chmod(0o755)
        return directory, counter

    @staticmethod
    def spawned(counter: Path, offset: int = 0) -> list[str]:
        """The tmux runs logged in ``counter`` after byte ``offset``, one line each."""
        with counter.open("rb") as log:
            log.seek(offset)
            text = log.read().decode("utf-8", "replace")
        return [line for line in text.split("\n") if line.startswith("x")]

    # -- tmux ------------------------------------------------------------------

    def run(self, *args: str, check: bool = True) -> str:
        argv = [self.tmux, "-L", self.socket, "-f", os.devnull, *args]
        proc = subprocess.run(
            argv, capture_output=True, text=True, env=self.base_env(), timeout=30, check=False
        )
        if check and proc.returncode != 0:
            raise BenchError(f"{shlex.join(argv[3:])}: {proc.stderr.strip()}")
        return proc.stdout

    def version(self) -> str:
        out = subprocess.run([self.tmux, "-V"], capture_output=True, text=True, check=False)
        return out.stdout.strip() or "unknown"

    def kill(self) -> None:
        self.run("kill-server", check=False)

    def new_session(self, name: str, command: str, width: int, height: int) -> str:
        """Start a detached session; the id of its first pane."""
        size = ["-x", str(width), "-y", str(height)]
        out = self.run("new-session", "-d", "-s", name, *size, "-P", "-F", "#{pane_id}", command)
        return out.strip()

    def new_window(self, session: str, name: str, command: str) -> str:
        return self.run(
            "new-window", "-d", "-t", f"{session}:", "-n", name, "-P", "-F", "#{pane_id}", command
        ).strip()

    def capture(self, pane: str, *, everything: bool = False) -> list[str]:
        args = ["-S", "-", "-E", "-"] if everything else []
        return self.run("capture-pane", "-p", "-t", pane, *args).split("\n")[:-1]

    def retained_numbers(self, pane: str) -> set[int]:
        """Numbers of the numbered lines tmux still holds (history and screen)."""
        found: set[int] = set()
        for row in self.capture(pane, everything=True):
            match = NUMBER.fullmatch(row)
            if match:
                found.add(int(match.group(1)))
        return found

    def wait_for_last_line(self, pane: str, text: str, timeout: float = 5.0) -> None:
        """Wait until the last non-blank row of the screen is ``text`` ('' = blank)."""
        deadline = time.monotonic() + timeout
        while True:
            rows = [row for row in self.capture(pane) if row.strip()]
            if (rows[-1] if rows else "") == text:
                return
            if time.monotonic() > deadline:
                raise BenchError(f"pane {pane} did not show {text!r} (last rows {rows[-3:]})")
            time.sleep(0.005)

    # -- layout -----------------------------------------------------------------

    def start(self) -> Layout:
        """Start the server with the latency layout: a 20-pane grid and a work session."""
        work_static = self.new_session("work", self.text_command(_static_text(400)), 120, 40)
        grid = [self.new_session("grid", self.text_command(_grid_text(0)), 240, 80)]
        for index in range(1, GRID_PANES):
            command = self.text_command(_grid_text(index))
            out = self.run("split-window", "-d", "-t", "grid:0", "-P", "-F", "#{pane_id}", command)
            grid.append(out.strip())
            self.run("select-layout", "-t", "grid:0", "tiled")
        self.wait_for_last_line(work_static, "static 400 end")
        return Layout(static=work_static, grid=grid)

    def text_command(self, lines: Sequence[str]) -> str:
        """A pane command that prints ``lines`` (kept in a file) and then idles."""
        path = self.root / "text" / f"{len(list((self.root / 'text').iterdir()))}.txt"
        path.write_text("\n".join(lines) + "\n")
        return f"cat {shlex.quote(str(path))}; exec sleep 1000000"

    def shell_pane(self, name: str) -> str:
        """A window in the work session running a plain POSIX shell at a prompt."""
        pane = self.new_window("work", name, "env PS1='$ ' /bin/sh")
        self.wait_for_last_line(pane, "$")
        return pane


@dataclass(frozen=True)
class Layout:
    static: str
    grid: list[str]


def _static_text(count: int) -> list[str]:
    lines = [f"static {n:>4} lorem ipsum dolor sit amet, consectetur" for n in range(1, count)]
    return [*lines, f"static {count} end"]


def _grid_text(index: int) -> list[str]:
    lines = [f"grid pane {index:>2} row {n:>3} status ok" for n in range(1, 61)]
    if index % 2 == 0:  # on screen, where search_panes looks by default
        lines.insert(-2, f"grid pane {index:>2} needle found here")
    return lines


def writer_command(commands: Path, acks: Path) -> str:
    """The pane command running the numbered-line writer."""
    argv = [sys.executable, "-u", str(WRITER), "--commands", str(commands), "--acks", str(acks)]
    return shlex.join(argv)


def tmux_commands(logged: str) -> str:
    """The tmux commands of one logged run, e.g. ``capture-pane+display-message`` for
    ``x -u -L s capture-pane -p ; display-message -p …`` (for diagnostics)."""
    words = logged.split()[1:]
    index = 0
    while index < len(words) and words[index].startswith("-"):
        index += 2 if words[index] in ("-L", "-S", "-f", "-T") else 1
    names = words[index : index + 1]
    names += [words[i + 1] for i, word in enumerate(words[:-1]) if i > index and word == ";"]
    return _abridged(names) or "(no command)"


def _abridged(names: list[str]) -> str:
    """``a+b+c+a+b+c`` as ``(a+b+c)x2``: a command list repeating one pattern."""
    for size in range(1, len(names) // 2 + 1):
        if len(names) % size == 0 and names == names[:size] * (len(names) // size):
            return f"({'+'.join(names[:size])})x{len(names) // size}"
    return "+".join(names)
