"""The tmux provisioning script: its matrix and the sources it tries, without network."""

from __future__ import annotations

import importlib.util
import stat
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tmuxsim import KNOWN_VERSIONS

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "provision_tmux.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("provision_tmux", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["provision_tmux"] = module
    spec.loader.exec_module(module)
    return module


provision_tmux = _load()


def fake_tmux(path: Path, version: str, name: str = "tmux") -> Path:
    path.write_text(f"#!/bin/sh\necho '{name} {version}'\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_the_matrix_is_the_simulators() -> None:
    assert provision_tmux.KNOWN_VERSIONS == KNOWN_VERSIONS


def test_a_users_binary_wins_and_is_linked_as_tmux(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binaries = tmp_path / "mine"
    binaries.mkdir()
    fake_tmux(binaries / "tmux-3.6b", "3.6b")
    monkeypatch.setenv("GRIDMUX_TMUX_BINARIES", str(binaries))
    found = provision_tmux.provision("3.6b", tmp_path / "cache")
    assert found.source.startswith("user")
    assert provision_tmux.tmux_version(found.bin_dir / "tmux") == "3.6b"


def test_a_users_binary_of_another_version_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binaries = tmp_path / "mine"
    binaries.mkdir()
    fake_tmux(binaries / "tmux-3.6b", "3.4")
    monkeypatch.setenv("GRIDMUX_TMUX_BINARIES", str(binaries))
    with pytest.raises(provision_tmux.Unavailable, match=r"reports .3\.4."):
        provision_tmux.from_user("3.6b", tmp_path / "cache")


@pytest.mark.parametrize(
    ("printed", "version"),
    [
        ("tmux 3.8", "3.8"),
        ("tmux-3.2a 3.2a", "3.2a"),  # 3.2a prints the name it was started as
        ("/opt/bin/tmux-next 3.4", "3.4"),
        ("tmux next-3.9", None),
        ("tmux", None),
        ("Usage: tmux [-V]", None),
    ],
)
def test_the_version_is_read_whatever_name_tmux_reports(
    tmp_path: Path, printed: str, version: str | None
) -> None:
    binary = tmp_path / "tmux-x"
    binary.write_text(f"#!/bin/sh\necho '{printed}'\n")
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    assert provision_tmux.tmux_version(binary) == version


def test_a_users_32a_binary_is_found_by_its_file_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    binaries = tmp_path / "mine"
    binaries.mkdir()
    fake_tmux(binaries / "tmux-3.2a", "3.2a", name="tmux-3.2a")
    monkeypatch.setenv("GRIDMUX_TMUX_BINARIES", str(binaries))
    found = provision_tmux.from_user("3.2a", tmp_path / "cache")
    assert provision_tmux.tmux_version(found.bin_dir / "tmux") == "3.2a"


def test_a_builds_folder_serves_its_releases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds = tmp_path / "tmux-builds"
    (builds / "3.4").mkdir(parents=True)
    fake_tmux(builds / "3.4" / "tmux", "3.4")
    monkeypatch.setenv("GRIDMUX_TMUX_BUILDS", str(builds))
    found = provision_tmux.from_builds("3.4", tmp_path / "cache")
    assert found.source == f"build {builds / '3.4' / 'tmux'}"
    assert provision_tmux.tmux_version(found.bin_dir / "tmux") == "3.4"
    with pytest.raises(provision_tmux.Unavailable, match=r"no .*3\.6b"):
        provision_tmux.from_builds("3.6b", tmp_path / "cache")


def test_without_a_builds_folder_the_source_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GRIDMUX_TMUX_BUILDS", raising=False)
    monkeypatch.setattr(provision_tmux, "SHARED_BUILDS", tmp_path / "absent")
    assert provision_tmux.builds_folder() is None
    with pytest.raises(provision_tmux.Unavailable, match="GRIDMUX_TMUX_BUILDS is not set"):
        provision_tmux.from_builds("3.2a", tmp_path / "cache")


def test_the_system_tmux_is_used_only_for_its_own_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake_tmux(bin_dir / "tmux", "3.3a")
    monkeypatch.setenv("GRIDMUX_SYSTEM_PATH", str(bin_dir))
    found = provision_tmux.from_system("3.3a", tmp_path / "cache")
    assert provision_tmux.tmux_version(found.bin_dir / "tmux") == "3.3a"
    with pytest.raises(provision_tmux.Unavailable, match=r"the system tmux is 3\.3a"):
        provision_tmux.from_system("3.8", tmp_path / "cache")


def test_unavailable_names_every_source_and_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refusing(name: str) -> object:
        def refuse(version: str, cache: Path) -> None:
            raise provision_tmux.Unavailable(f"no {name} here")

        refuse.__name__ = f"from_{name}"
        return refuse

    monkeypatch.delenv("GRIDMUX_TMUX_BINARIES", raising=False)
    monkeypatch.setenv("GRIDMUX_TMUX_BUILDS", str(tmp_path / "builds"))
    monkeypatch.setattr(
        provision_tmux,
        "SOURCES",
        (
            provision_tmux.from_user,
            provision_tmux.from_system,
            provision_tmux.from_builds,
            provision_tmux.from_cache,
            refusing("debian"),
            refusing("source"),
        ),
    )
    with pytest.raises(provision_tmux.Unavailable) as caught:
        provision_tmux.provision("9.9z", tmp_path / "cache")
    text = str(caught.value)
    for part in (
        "user: GRIDMUX_TMUX_BINARIES is not set",
        "system:",
        "builds: no ",
        "cache: not cached",
    ):
        assert part in text
    assert "debian: no debian here" in text and "source: no source here" in text
