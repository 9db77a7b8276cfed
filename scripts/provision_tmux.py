"""Obtain tmux releases for the test matrix, cache them, and say which could not be had.

Usage::

    python scripts/provision_tmux.py 3.3a 3.5a 3.7c 3.8      # report, provision
    python scripts/provision_tmux.py --bin-dir 3.8            # print the dir to put first on PATH

Each provisioned version gets ``<cache>/<version>/bin/tmux`` (an executable
or a wrapper), so a session can put that directory first on ``PATH`` and
every ``tmux`` -- including one run inside a pane -- is that version.

Where a version comes from, first match wins:

1. a binary the user points at: ``$GRIDMUX_TMUX_BINARIES/tmux-<version>``;
2. the system tmux, when its ``tmux -V`` is that version;
3. a folder of plain builds, ``<folder>/<version>/tmux``: ``$GRIDMUX_TMUX_BUILDS``,
   else ``../shared/tmux-builds`` beside the project when it is there (CI);
4. the cache (``$GRIDMUX_TMUX_CACHE``, default ``.cache/tmux`` in the project);
5. a Debian binary package fetched with the ordinary apt client, using the
   mirror named in this machine's own apt sources and a private apt state
   (the system's apt configuration is not touched). A package built for this
   machine's C library runs natively, with missing libraries from a private
   root; a package from a newer suite runs from a private root holding its
   own C library and libraries, started through that root's loader;
6. an official release tarball, built from source (needs the network to
   reach the release downloads and a compiler; build dependencies come from
   apt).

Nothing here needs root except installing build dependencies for (6).

A binary is accepted when ``tmux -V`` names the version asked for, whatever
name it reports itself with: tmux 3.2a prints the name it was started as
(``tmux-3.2a 3.2a``), later releases print ``tmux``.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CACHE = ROOT / ".cache" / "tmux"
#: Plain builds of the releases the package mirrors lack, beside the project in CI.
SHARED_BUILDS = ROOT.parent / "shared" / "tmux-builds"
#: The releases of the test matrix (the simulator imitates the same ones).
KNOWN_VERSIONS = ("3.2a", "3.3a", "3.4", "3.5a", "3.6b", "3.7c", "3.8")
#: Newer Debian suites searched after the machine's own ``<codename>-backports``.
NEWER_SUITES = ("trixie", "forky", "sid")
RELEASES = "https://github.com/tmux/tmux/releases/download/{v}/tmux-{v}.tar.gz"
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"


class Unavailable(Exception):
    """This source cannot provide the version; the message says why."""


@dataclass(frozen=True)
class Provisioned:
    version: str
    bin_dir: Path
    source: str


def tmux_version(executable: Path | str) -> str | None:
    try:
        out = subprocess.run(
            [str(executable), "-V"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    # "tmux 3.8"; tmux 3.2a prints the name it was started as: "tmux-3.2a 3.2a".
    match = re.fullmatch(r"\S+ (\d\S*)\s*", out.stdout)
    return match.group(1) if out.returncode == 0 and match else None


def _install(bin_dir: Path, target: Path) -> None:
    """Make ``bin_dir/tmux`` run ``target`` (a symlink, so ``tmux -V`` is exact)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    link = bin_dir / "tmux"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(target)


def _write_wrapper(path: Path, loader: Path, library_path: list[Path], binary: Path) -> None:
    """A ``tmux`` that starts ``binary`` through ``loader`` with its own libraries.

    The library path is given to the loader, not through ``LD_LIBRARY_PATH``,
    so programs started in panes keep the system's libraries.
    """
    libs = ":".join(str(p) for p in library_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\nexec "{loader}" --library-path "{libs}" "{binary}" "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


# -- sources -------------------------------------------------------------------


def from_user(version: str, cache: Path) -> Provisioned:
    directory = os.environ.get("GRIDMUX_TMUX_BINARIES")
    if not directory:
        raise Unavailable("GRIDMUX_TMUX_BINARIES is not set")
    candidate = Path(directory) / f"tmux-{version}"
    if not candidate.is_file():
        raise Unavailable(f"no {candidate}")
    found = tmux_version(candidate)
    if found != version:
        raise Unavailable(f"{candidate} reports {found!r}, not {version}")
    bin_dir = cache / version / "user-bin"
    _install(bin_dir, candidate.resolve())
    return Provisioned(version, bin_dir, f"user binary {candidate}")


def from_system(version: str, cache: Path) -> Provisioned:
    system = shutil.which("tmux", path=os.environ.get("GRIDMUX_SYSTEM_PATH", os.defpath))
    if system is None:
        raise Unavailable("no system tmux")
    found = tmux_version(system)
    if found != version:
        raise Unavailable(f"the system tmux is {found}")
    bin_dir = cache / version / "system-bin"
    _install(bin_dir, Path(system).resolve())
    return Provisioned(version, bin_dir, f"system {system}")


def builds_folder() -> Path | None:
    """``$GRIDMUX_TMUX_BUILDS``, else ``../shared/tmux-builds`` when it is there."""
    named = os.environ.get("GRIDMUX_TMUX_BUILDS")
    if named:
        return Path(named)
    return SHARED_BUILDS if SHARED_BUILDS.is_dir() else None


def from_builds(version: str, cache: Path) -> Provisioned:
    folder = builds_folder()
    if folder is None:
        raise Unavailable(f"GRIDMUX_TMUX_BUILDS is not set and there is no {SHARED_BUILDS}")
    candidate = folder / version / "tmux"
    if not candidate.is_file():
        raise Unavailable(f"no {candidate}")
    found = tmux_version(candidate)
    if found != version:
        raise Unavailable(f"{candidate} reports {found!r}, not {version}")
    bin_dir = cache / version / "builds-bin"
    _install(bin_dir, candidate.resolve())
    return Provisioned(version, bin_dir, f"build {candidate}")


def from_cache(version: str, cache: Path) -> Provisioned:
    bin_dir = cache / version / "bin"
    if tmux_version(bin_dir / "tmux") != version:
        raise Unavailable("not cached")
    origin = (cache / version / "ORIGIN").read_text().strip()
    return Provisioned(version, bin_dir, f"cache ({origin})")


# -- Debian packages ---------------------------------------------------------


def _mirror() -> tuple[str, str]:
    """The Debian mirror URI and this machine's codename, read from its apt sources."""
    uris: list[str] = []
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for path in sources:
        if not path.is_file() or path.suffix not in {"", ".list", ".sources"}:
            continue
        text = path.read_text(errors="replace")
        uris += re.findall(r"^URIs:\s*(\S+/debian)/?\s*$", text, flags=re.M)
        uris += re.findall(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+/debian)/?\s", text, flags=re.M)
    if not uris:
        raise Unavailable("no Debian mirror in this machine's apt sources")
    codename = ""
    os_release = Path("/etc/os-release")
    if os_release.is_file():
        found = re.search(r"^VERSION_CODENAME=(\S+)", os_release.read_text(), flags=re.M)
        codename = found.group(1) if found else ""
    if not codename:
        raise Unavailable("cannot tell this machine's Debian codename")
    return uris[0], codename


class PrivateApt:
    """apt-get and apt-cache over a private sources list and state directory."""

    def __init__(self, state: Path) -> None:
        if shutil.which("apt-get") is None:
            raise Unavailable("apt-get is not available")
        mirror, codename = _mirror()
        self.codename = codename
        self.suites = (f"{codename}-backports", *[s for s in NEWER_SUITES if s != codename])
        self.state = state
        (state / "lists" / "partial").mkdir(parents=True, exist_ok=True)
        (state / "archives" / "partial").mkdir(parents=True, exist_ok=True)
        signed = f"[signed-by={KEYRING}] " if Path(KEYRING).is_file() else ""
        lines = [f"deb {signed}{mirror} {suite} main" for suite in (codename, *self.suites)]
        (state / "sources.list").write_text("\n".join(lines) + "\n")
        self.options = [
            f"-o=Dir::Etc::sourcelist={state / 'sources.list'}",
            "-o=Dir::Etc::sourceparts=/nonexistent",
            f"-o=Dir::State::lists={state / 'lists'}",
            f"-o=Dir::Cache={state}",
            f"-o=Dir::Cache::archives={state / 'archives'}",
            "-o=Debug::NoLocking=1",
            "-o=APT::Get::List-Cleanup=0",
        ]
        self._updated = False

    def run(self, tool: str, *args: str, cwd: Path | None = None) -> str:
        if not self._updated:
            self._updated = True
            self.run("apt-get", "update", "-qq")
        out = subprocess.run(
            [tool, *self.options, *args], capture_output=True, text=True, cwd=cwd, check=False
        )
        if out.returncode != 0:
            raise Unavailable(f"{tool} {' '.join(args)} failed: {out.stderr.strip()[-400:]}")
        return out.stdout

    def find(self, version: str) -> tuple[str, str]:
        """The suite and package version of tmux ``version`` (e.g. 3.7c -> forky, 3.7c-1).

        Suites are preferred in order: this machine's backports (native), then
        newer suites, oldest first.
        """
        found: dict[str, str] = {}
        for line in self.run("apt-cache", "madison", "tmux").splitlines():
            parts = [p.strip() for p in line.split("|")]
            if len(parts) < 3 or len(parts[2].split()) < 2:
                continue
            package_version, origin = parts[1], parts[2]
            upstream = re.sub(r"^\d+:", "", package_version).split("-")[0]
            if upstream == version:
                found.setdefault(origin.split()[1].split("/")[0], package_version)
        for suite in self.suites:
            if suite in found:
                return suite, found[suite]
        raise Unavailable(f"no Debian package of tmux {version} in {', '.join(self.suites)}")

    def library_closure(self, suite: str, package_version: str) -> list[str]:
        """The library packages ``tmux=<version>`` needs in a private root of ``suite``."""
        out = self.run(
            "apt-cache",
            f"-o=APT::Default-Release={suite}",
            "depends",
            "--recurse",
            "--no-recommends",
            "--no-suggests",
            "--no-conflicts",
            "--no-breaks",
            "--no-replaces",
            "--no-enhances",
            f"tmux={package_version}",
        )
        return sorted(
            {
                line.strip()
                for line in out.splitlines()
                if not line.startswith(" ") and re.match(r"^lib[\w.+-]+$", line.strip())
            }
        )

    def missing_libraries(self, package_version: str) -> list[str]:
        """Direct library dependencies of ``tmux=<version>`` this machine lacks."""
        show = self.run("apt-cache", "show", f"tmux={package_version}")
        depends = re.search(r"^Depends: (.*)$", show, flags=re.M)
        names = [
            alternative.split("|")[0].split("(")[0].strip()
            for alternative in (depends.group(1).split(",") if depends else [])
        ]
        return [n for n in names if n.startswith("lib") and not _installed(n)]


def _installed(package: str) -> bool:
    out = subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True, check=False
    )
    return out.returncode == 0 and "install ok installed" in out.stdout


def _glibc() -> tuple[int, ...]:
    name, text = platform.libc_ver()
    return tuple(int(p) for p in text.split(".")) if name == "glibc" and text else (0,)


def _needs_libc(apt: PrivateApt, package_version: str) -> tuple[int, ...]:
    show = apt.run("apt-cache", "show", f"tmux={package_version}")
    match = re.search(r"libc6 \(>= ([\d.]+)\)", show)
    return tuple(int(p) for p in match.group(1).split(".")) if match else (0,)


_APT: dict[Path, PrivateApt] = {}


def from_debian(version: str, cache: Path) -> Provisioned:
    apt = _APT.get(cache) or _APT.setdefault(cache, PrivateApt(cache / "apt"))
    suite, package_version = apt.find(version)
    native = _needs_libc(apt, package_version) <= _glibc()
    root = cache / version / "root"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    packages = [f"tmux/{suite}"]
    if native:  # the system's libraries serve; fetch the missing ones from its own suite
        packages += [f"{n}/{apt.codename}" for n in apt.missing_libraries(package_version)]
    else:
        packages += [f"{n}/{suite}" for n in apt.library_closure(suite, package_version)]
    with tempfile.TemporaryDirectory() as tmp:
        try:
            apt.run("apt-get", "download", "-q", *packages, cwd=Path(tmp))
        except Unavailable:
            # One library missing from the chosen suite: take it from any suite.
            for package in packages:
                try:
                    apt.run("apt-get", "download", "-q", package, cwd=Path(tmp))
                except Unavailable:
                    apt.run("apt-get", "download", "-q", package.split("/")[0], cwd=Path(tmp))
        for deb in sorted(Path(tmp).glob("*.deb")):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    binary = root / "usr" / "bin" / "tmux"
    if not binary.is_file():
        raise Unavailable(f"the tmux package of {suite} holds no usr/bin/tmux")
    arch_dirs = [d for d in (root / "lib", root / "usr" / "lib") for d in d.glob("*-linux-gnu*")]
    lib_dirs = [*arch_dirs, root / "lib", root / "usr" / "lib"]
    if native:
        loader = Path("/lib64/ld-linux-x86-64.so.2")
        if not loader.exists():
            loader = next(Path("/lib").glob("ld-linux*.so*"))
        system_dirs = [Path(p) for p in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu")]
        library_path = [*lib_dirs, *system_dirs]
        how = "native"
    else:
        loaders = sorted(root.glob("usr/lib*/**/ld-linux*.so*")) + sorted(root.glob("lib*/ld-*"))
        if not loaders:
            raise Unavailable(f"the private root for {version} has no loader")
        loader = loaders[0]
        library_path = lib_dirs
        how = "private root with its own C library"
    bin_dir = cache / version / "bin"
    _write_wrapper(bin_dir / "tmux", loader, library_path, binary)
    found = tmux_version(bin_dir / "tmux")
    if found != version:
        raise Unavailable(f"the Debian {package_version} build reports {found!r}")
    origin = f"Debian {suite} {package_version}, {how}"
    (cache / version / "ORIGIN").write_text(origin + "\n")
    return Provisioned(version, bin_dir, origin)


# -- release tarballs ---------------------------------------------------------


def from_source(version: str, cache: Path) -> Provisioned:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        raise Unavailable("no C compiler")
    work = cache / version / "src"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    tarball = work / f"tmux-{version}.tar.gz"
    try:
        with urllib.request.urlopen(RELEASES.format(v=version), timeout=20) as response:
            tarball.write_bytes(response.read())
    except OSError as exc:
        raise Unavailable(f"cannot download the release tarball ({exc})") from exc
    with tarfile.open(tarball) as archive:
        archive.extractall(work, filter="data")
    source = work / f"tmux-{version}"
    prefix = cache / version / "prefix"
    steps = [
        ["./configure", f"--prefix={prefix}"],
        ["make", f"-j{os.cpu_count() or 2}"],
        ["make", "install"],
    ]
    for step in steps:
        done = subprocess.run(step, cwd=source, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            hint = " (needs libevent-dev, libncurses-dev, bison, pkg-config)"
            raise Unavailable(f"{' '.join(step)} failed{hint}: {done.stderr.strip()[-300:]}")
    bin_dir = cache / version / "bin"
    _install(bin_dir, prefix / "bin" / "tmux")
    (cache / version / "ORIGIN").write_text(f"built from the {version} release tarball\n")
    return Provisioned(version, bin_dir, f"built from the {version} release tarball")


SOURCES = (from_user, from_system, from_builds, from_cache, from_debian, from_source)


def provision(version: str, cache: Path) -> Provisioned:
    """The first source that can provide ``version``; Unavailable lists every reason."""
    reasons = []
    for source in SOURCES:
        try:
            return source(version, cache)
        except Unavailable as exc:
            reasons.append(f"{source.__name__.removeprefix('from_')}: {exc}")
    raise Unavailable("; ".join(reasons))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("versions", nargs="+", help="tmux versions, e.g. 3.3a 3.8")
    parser.add_argument("--bin-dir", action="store_true", help="print only the bin directory")
    parser.add_argument("--cache", type=Path, default=None, help="cache directory")
    args = parser.parse_args(argv)
    cache = (args.cache or Path(os.environ.get("GRIDMUX_TMUX_CACHE", DEFAULT_CACHE))).resolve()
    failed = 0
    for version in args.versions:
        try:
            found = provision(version, cache)
        except Unavailable as exc:
            failed += 1
            print(f"tmux {version}: NOT AVAILABLE -- {exc}", file=sys.stderr)
            continue
        if args.bin_dir:
            print(found.bin_dir)
        else:
            print(f"tmux {version}: {found.bin_dir} ({found.source})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
