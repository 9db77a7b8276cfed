"""tmux's rule for where a server's socket is (``backend/_sockets.py``), and that
nothing else in ``src/`` or ``sim/`` spells the rule out again."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gridmux.backend import ServerRef, default_socket_path, socket_directory
from tmuxsim import SimServer

ROOT = Path(__file__).resolve().parents[2]
UID = os.getuid()
TMP = os.path.realpath("/tmp")


def test_tmux_tmpdir_is_taken_by_its_real_path(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    real = os.path.realpath(tmp_path / "real")
    assert socket_directory({"TMUX_TMPDIR": str(tmp_path / "real")}) == f"{real}/tmux-{UID}"
    assert socket_directory({"TMUX_TMPDIR": str(tmp_path / "link")}) == f"{real}/tmux-{UID}"
    named = default_socket_path(ServerRef("work"), {"TMUX_TMPDIR": str(tmp_path / "link")})
    assert named == f"{real}/tmux-{UID}/work"


@pytest.mark.parametrize("tmpdir", [None, "", "/nonexistent-gridmux-dir"])
def test_without_a_usable_tmux_tmpdir_the_folder_is_in_tmp(tmpdir: str | None) -> None:
    environ = {} if tmpdir is None else {"TMUX_TMPDIR": tmpdir}
    assert socket_directory(environ) == f"{TMP}/tmux-{UID}"
    assert default_socket_path(ServerRef(), environ) == f"{TMP}/tmux-{UID}/default"


def test_the_default_server_inside_tmux_is_the_one_tmux_env_names(tmp_path: Path) -> None:
    environ = {"TMUX": "/run/user/s/work,4242,3", "TMUX_TMPDIR": str(tmp_path)}
    assert default_socket_path(ServerRef(), environ) == "/run/user/s/work"
    # -L and -S are never overridden by $TMUX
    expected = f"{os.path.realpath(tmp_path)}/tmux-{UID}/default"
    assert default_socket_path(ServerRef("default"), environ) == expected
    assert default_socket_path(ServerRef(socket_path="/s/x"), environ) == "/s/x"


@pytest.mark.parametrize("value", ["", ",4242,3"])
def test_an_empty_tmux_socket_in_tmux_env_is_ignored(value: str) -> None:
    assert default_socket_path(ServerRef(), {"TMUX": value}) == f"{TMP}/tmux-{UID}/default"


def test_the_simulated_machine_has_neither_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX", "/elsewhere/sock,1,0")
    monkeypatch.setenv("TMUX_TMPDIR", "/")
    assert SimServer().socket_path == f"{TMP}/tmux-{UID}/default"
    assert SimServer(socket_name="x").socket_path == f"{TMP}/tmux-{UID}/x"


def test_no_other_module_spells_the_socket_folder() -> None:
    own = ROOT / "src/gridmux/backend/_sockets.py"
    found = [
        str(path.relative_to(ROOT))
        for folder in ("src", "sim")
        for path in (ROOT / folder).rglob("*.py")
        if path != own and ('f"tmux-{' in (text := path.read_text()) or '"TMUX_TMPDIR"' in text)
    ]
    assert found == []
