"""run_command's private script files.

Each run writes the script its shell sources (``run_command``, step 2) into one
directory per gridmux process: made by ``tempfile.mkdtemp`` (mode 0700, so no
other user can read or plant a script there), each file created 0600 with
``O_EXCL`` and ``O_NOFOLLOW``. A file is deleted when its run is over (a
timed-out run's when the pane's shell is next proven back at its prompt), and
the directory with whatever is left at exit.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import tempfile
import threading


class ScriptDir:
    """The process's private directory of run scripts, made on first use."""

    def __init__(self) -> None:
        self._path: str | None = None
        self._lock = threading.Lock()

    def _directory(self) -> str:
        with self._lock:
            if self._path is None or not os.path.isdir(self._path):
                self._path = tempfile.mkdtemp(prefix="gridmux-")
                atexit.register(shutil.rmtree, self._path, ignore_errors=True)
            return self._path

    def path_for(self, token: str) -> str:
        """Where run ``token``'s script goes (``token`` is hex: a plain name)."""
        if not token.isalnum():
            raise ValueError(f"not a run token: {token!r}")
        return os.path.join(self._directory(), token)

    def write(self, path: str, text: str) -> None:
        """Create ``path`` (it must not exist) 0600 with ``text``."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            file.write(text)

    @staticmethod
    def discard(path: str) -> None:
        """Delete a script if it is still there."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


#: This process's scripts.
SCRIPTS = ScriptDir()


__all__ = ["SCRIPTS", "ScriptDir"]
