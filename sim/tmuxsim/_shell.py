"""``SimShell``: a small, deterministic stand-in for ``/bin/sh`` in a pane.

Interactive (no command): prints ``$PS1`` (default ``$ ``), echoes what is
typed, and runs a line on Enter. With a command it behaves like
``sh -c COMMAND``: runs it and exits with its status, which is how tmux
starts a pane given a command.

Commands: ``echo`` (-n -e -E), ``printf``, ``seq``, ``clear`` (-x), ``exit [n]``,
``true``, ``false``, ``:``, ``cat`` (no files: copies typed lines until C-d),
``sleep N``, ``eval``, ``.`` (reads the file), ``history`` (a shell named
bash: ``-s`` and listing; typed lines are not recorded), ``tmux`` (a
client of the pane's server, see ``_pane_client``: ``wait-for``, ``set-option``, ``set-buffer``,
``capture-pane -p``, ``display-message -p``), ``cd``,
``pwd``, ``export``, ``unset`` and ``NAME=value``. Anything else prints
dash's ``sh: 1: NAME: not found`` and sets ``$?`` to 127.

A line left open by a quote (or ending in ``&&``/``||``) is continued: the
shell prints ``$PS2`` (default ``> ``) and runs the whole text, newlines
included, once it is complete.

``sleep`` does not block: it is a running job until the pane's clock passes
its deadline, and the server's ``tick`` finishes it; ``tmux wait-for``
likewise runs until its channel is signalled. While a job runs the tty
is in cooked mode: keys are echoed and kept as type-ahead, which the shell
reads (and echoes again, as readline redraws it) after its next prompt.
C-c ends the job, prints ``^C``, drops the rest of the line and the
type-ahead (SIGINT flushes the tty's input queue).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ._programs import PaneIO, TmuxClient
from ._shell_syntax import ShellSyntaxError, Step, expand, parse
from ._shell_text import echo, printf, seq

_CTRL_C, _CTRL_D, _CTRL_U = "\x03", "\x04", "\x15"
_ERASE = ("\x7f", "\b")
_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(.*)", re.DOTALL)
_SLEEP_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_TEXT_COMMANDS: dict[str, Callable[[list[str]], tuple[str, int]]] = {
    "echo": echo,
    "printf": printf,
    "seq": seq,
}


class _Job:
    """A foreground command that outlives the line that started it."""

    def __init__(
        self, name: str, deadline: float | None = None, client: TmuxClient | None = None
    ) -> None:
        self.name = name
        self.deadline = deadline
        self.client = client  # tmux: a client blocked in wait-for
        self.line = ""  # cat: the line being typed


class SimShell:
    def __init__(
        self,
        io: PaneIO,
        command: str | None = None,
        *,
        prompt: str = "$ ",
        name: str = "sh",
    ) -> None:
        self._io = io
        self._command = command
        self._default_prompt = prompt
        self._name = name
        self._line = ""
        self._pending = ""  # lines of an unfinished command (an open quote)
        self._escape = ""  # an escape sequence being skipped (arrow keys)
        self._queue: list[Step] = []
        self._job: _Job | None = None
        self._typeahead: list[str] = []
        self._exited = False
        self.history: list[str] = []  # bash's, as ``history -s`` stores it
        self.variables: dict[str, str] = dict(io.environment)
        self.variables.update({"?": "0", "$": str(io.pid), "#": "0", "0": name})

    # -- Program ---------------------------------------------------------------
    @property
    def command_name(self) -> str:
        return self._job.name if self._job is not None else self._name

    @property
    def status(self) -> int:
        """``$?``: the exit status of the last command."""
        return int(self.variables["?"])

    def start(self) -> None:
        if self._command is None:
            self._prompt()
        else:
            self._run_line(self._command)

    def receive(self, data: bytes) -> None:
        for char in data.decode("utf-8", "replace"):
            if self._exited:
                return
            if self._job is not None:
                self._job_key(char)
            else:
                self._edit_key(char)

    def tick(self) -> None:
        job = self._job
        if job is not None and job.client is not None:
            if job.client.run():
                self._job = None
                self._write(job.client.output)
                self._set_status(job.client.status)
                self._continue()
        elif job is not None and job.deadline is not None and self._io.now() >= job.deadline:
            self._job = None
            self._set_status(0)
            self._continue()

    def next_deadline(self) -> float | None:
        return self._job.deadline if self._job is not None else None

    def stop(self) -> None:
        self._exited = True
        self._job = None
        self._queue.clear()

    # -- line editing (shell idle at its prompt) -------------------------------
    def _prompt(self) -> None:
        self._io.write(self.variables.get("PS1", self._default_prompt).encode())

    def _edit_key(self, char: str) -> None:
        if self._escape:
            # Skip ESC [ ... final byte (cursor keys): no history or line motion.
            self._escape += char
            introducer_done = len(self._escape) == 2 and char not in "[O"
            final_byte = len(self._escape) > 2 and "\x40" <= char <= "\x7e"
            if introducer_done or final_byte:
                self._escape = ""
            return
        if char == "\x1b":
            self._escape = char
        elif char in "\r\n":
            line, self._line = self._pending + self._line, ""
            self._io.write(b"\n")
            if _unfinished(line):
                self._pending = line + "\n"
                self._io.write(self.variables.get("PS2", "> ").encode())
                return
            self._pending = ""
            self._run_line(line)
        elif char == _CTRL_C:
            self._line = ""
            self._pending = ""
            self._io.write(b"^C\n")
            self._set_status(130)
            self._prompt()
        elif char == _CTRL_D:
            if not self._line:
                self._exit(self.status)
        elif char in _ERASE:
            if self._line:
                self._line = self._line[:-1]
                self._io.write(b"\b \b")
        elif char == _CTRL_U:
            self._io.write(b"\b \b" * len(self._line))
            self._line = ""
        elif char >= " ":
            self._line += char
            self._io.write(char.encode())

    # -- a running job (tty in cooked mode) ------------------------------------
    def _job_key(self, char: str) -> None:
        job = self._job
        assert job is not None
        if char == _CTRL_C:
            self._io.write(b"^C\n")
            self._job = None
            self._queue.clear()
            self._typeahead.clear()
            self._set_status(130)
            self._continue()
            return
        if job.name != "cat":
            if char >= " " or char in "\r\n":
                self._io.write(b"\n" if char in "\r\n" else char.encode())
            self._typeahead.append(char)
            return
        if char in "\r\n":
            self._io.write(b"\n" + job.line.encode() + b"\n")
            job.line = ""
        elif char == _CTRL_D:
            if job.line:  # EOF mid-line hands over the partial line
                self._io.write(job.line.encode())
                job.line = ""
            else:
                self._job = None
                self._set_status(0)
                self._continue()
        elif char in _ERASE:
            if job.line:
                job.line = job.line[:-1]
                self._io.write(b"\b \b")
        elif char >= " ":
            job.line += char
            self._io.write(char.encode())

    # -- running command lines ---------------------------------------------------
    def _run_line(self, line: str) -> None:
        try:
            self._queue = parse(line)
        except ShellSyntaxError as error:
            self._io.write(f"{self._name}: 1: {error}\n".encode())
            self._set_status(2)
            self._queue = []
        self._continue()

    def _continue(self) -> None:
        while self._queue and self._job is None and not self._exited:
            step = self._queue.pop(0)
            if (step.connector == "&&" and self.status != 0) or (
                step.connector == "||" and self.status == 0
            ):
                continue
            argv = expand(step.words, self.variables)
            if argv:
                self._run(argv)
        if self._job is not None or self._exited:
            return
        if self._command is not None:
            self._exit(self.status)
            return
        self._prompt()
        typeahead, self._typeahead = "".join(self._typeahead), []
        if typeahead:
            self.receive(typeahead.encode())

    def _set_status(self, status: int) -> None:
        self.variables["?"] = str(status)

    def _write(self, text: str) -> None:
        self._io.write(text.encode())

    def _exit(self, status: int) -> None:
        self._exited = True
        self._queue.clear()
        self._io.exit(status)

    def _run(self, argv: list[str]) -> None:
        name, args = argv[0], argv[1:]
        assignment = _ASSIGNMENT.fullmatch(name)
        if assignment is not None and not args:
            self.variables[assignment.group(1)] = assignment.group(2)
            self._set_status(0)
            return
        status = 0
        if name in _TEXT_COMMANDS:
            text, status = _TEXT_COMMANDS[name](args)
            self._write(text)
        elif name in ("true", ":"):
            status = 0
        elif name == "false":
            status = 1
        elif name == "exit":
            self._builtin_exit(args)
            return
        elif name == "clear":
            self._clear(args)
        elif name == "sleep":
            status = self._sleep(args)
        elif name == "cat":
            if args:
                self._write(f"cat: {args[0]}: No such file or directory\n")
                status = 1
            else:
                self._job = _Job("cat")
        elif name == "tmux":
            client = self._io.tmux(args)
            if not client.run():
                self._job = _Job("tmux", client=client)
                return
            self._write(client.output)
            status = client.status
        elif name == "eval":
            status = self._eval(args)
        elif name == ".":
            status = self._source(args)
        elif name == "history" and self._name == "bash":
            status = self._history(args)
        elif name == "cd":
            status = self._cd(args)
        elif name == "pwd":
            self._write(self._io.current_path + "\n")
        elif name == "export":
            for arg in args:
                match = _ASSIGNMENT.fullmatch(arg)
                if match is not None:
                    self.variables[match.group(1)] = match.group(2)
        elif name == "unset":
            for arg in args:
                self.variables.pop(arg, None)
        else:
            self._write(f"{self._name}: 1: {name}: not found\n")
            status = 127
        self._set_status(status)

    def _builtin_exit(self, args: list[str]) -> None:
        status = self.status
        if args:
            if not re.fullmatch(r"-?\d+", args[0]):
                self._write(f"{self._name}: 1: exit: Illegal number: {args[0]}\n")
                self._set_status(2)
                return
            status = int(args[0]) & 0xFF
        self._exit(status)

    def _clear(self, args: list[str]) -> None:
        # docs/tmux-model.md §8: ncurses sends ESC[H ESC[J, plus ESC[3J (E3) when the
        # terminal description has it: tmux-256color does (3.3+ default TERM),
        # screen (3.2a) does not; `clear -x` never clears the scrollback.
        data = "\x1b[H\x1b[J"
        if "-x" not in args and self.variables.get("TERM", "").startswith("tmux"):
            data += "\x1b[3J"
        self._write(data)

    def _sleep(self, args: list[str]) -> int:
        if not args:
            self._write("sleep: missing operand\n")
            return 1
        total = 0.0
        for arg in args:
            match = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", arg)
            if match is None:
                self._write(f"sleep: invalid time interval '{arg}'\n")
                return 1
            total += float(match.group(1)) * _SLEEP_UNITS[match.group(2)]
        if total > 0:
            self._job = _Job("sleep", self._io.now() + total)
        return 0

    def _eval(self, args: list[str]) -> int:
        """``eval``: the arguments joined by spaces run as a list in this shell,
        ahead of the rest of the line; its status is the last command's."""
        return self._run_here("eval", " ".join(args))

    def _history(self, args: list[str]) -> int:
        """bash's ``history -s [--] WORDS`` (stores them as one entry) and
        ``history`` (lists the entries). Typed lines are not recorded here."""
        if args[:1] == ["-s"]:
            words = args[2:] if args[1:2] == ["--"] else args[1:]
            self.history.append(" ".join(words))
            return 0
        for number, entry in enumerate(self.history, start=1):
            self._write(f"{number:5d}  {entry}\n")
        return 0

    def _source(self, args: list[str]) -> int:
        """``. FILE``: the file's lines run in this shell, ahead of the rest of
        the line, as dash does. The file is read from the real file system,
        where a real shell in a pane would read it."""
        if not args:
            self._write(f"{self._name}: 1: .: .: Not enough arguments\n")
            return 2
        try:
            with open(args[0], encoding="utf-8") as file:
                text = file.read()
        except OSError:
            self._write(f"{self._name}: 1: .: cannot open {args[0]}: No such file\n")
            return 2
        return self._run_here(".", text)

    def _run_here(self, builtin: str, text: str) -> int:
        try:
            steps = parse(text)
        except ShellSyntaxError as error:
            self._write(f"{self._name}: 1: {builtin}: {error}\n")
            return 2
        if steps:
            steps[0] = Step(";", steps[0].words)
        self._queue[:0] = steps
        return 0

    def _cd(self, args: list[str]) -> int:
        target = args[0] if args else self.variables.get("HOME", "/")
        self._io.current_path = posixpath.normpath(posixpath.join(self._io.current_path, target))
        self.variables["PWD"] = self._io.current_path
        return 0


def _unfinished(line: str) -> bool:
    """Whether an interactive shell would ask for more (``$PS2``) after ``line``."""
    try:
        parse(line)
    except ShellSyntaxError as error:
        text = str(error)
        return "Unterminated quoted string" in text or "end of file unexpected" in text
    return False
