"""Version conformance: each row of docs/tmux-model.md §19 that the simulator models,
checked on real tmux and on a simulator set to the same version.

Every test does the same thing to both -- a real server of the session's
tmux (``tmux_bin``, ``GRIDMUX_TMUX_VERSION``) and a ``SimServer`` of the
version it reports -- and compares what they print, byte for byte (``-e``
output only ever against the same version). Which side of a version
boundary a run lands on depends on the tmux under test; the nox matrix runs
every release, and ``tests/unit/test_sim_versions.py`` pins both sides of
each boundary in the simulator alone. The rows that change the grid and
the dead-pane lifecycle are also in the differential test's scripts.
"""

from __future__ import annotations

import calendar
import json
import os
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gridmux.backend import GridmuxError, ServerRef, TmuxBackend
from gridmux.backend._command_backend import TmuxCommandBackend
from tests.integration.pane_driver import DriverListener, PaneDriver
from tmuxsim import IdleProgram, ManualClock, PaneIO, Program, SimPane, SimServer, TmuxVersion

pytestmark = pytest.mark.tmux

#: ``run(*args)``: a tmux command on the test server -> (exit status, stdout + stderr).
Run = Callable[..., tuple[int, str]]

DEAD = "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}|#{?#{!=:#{pane_dead_time},},1,0}"


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test server (started after this) writes times in UTC, like the simulator."""
    monkeypatch.setenv("TZ", "UTC")


@pytest.fixture(scope="module")
def version(tmux_bin: str) -> str:
    out = subprocess.run([tmux_bin, "-V"], capture_output=True, text=True, check=True).stdout
    return str(TmuxVersion.parse(out))


@pytest.fixture
def run(tmux_bin: str, tmux_server: ServerRef) -> Run:
    def call(*args: str) -> tuple[int, str]:
        assert tmux_server.socket_path is not None
        done = subprocess.run(
            [tmux_bin, "-u", "-S", tmux_server.socket_path, *args],
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        return done.returncode, done.stdout + done.stderr

    return call


@pytest.fixture
def listener(isolated_env: Path, tmux_server: ServerRef) -> Iterator[DriverListener]:
    found = DriverListener(isolated_env)
    yield found
    found.close()


def sim_server(version: str, clock: ManualClock | None = None) -> SimServer:
    """A simulated server configured as conftest's ``tmux_server`` is."""

    def factory(io: PaneIO, command: str | None) -> Program:
        return IdleProgram(io, name="python3")

    server = SimServer(version, program_factory=factory, clock=clock or ManualClock())
    server.server_options.set("exit-empty", "off")
    server.session_options.set("default-shell", "/bin/sh")
    server.session_options.set("default-size", "80x24")
    return server


def sim_tmux(pane: SimPane, *args: str) -> tuple[int, str]:
    client = pane.tmux(list(args))
    assert client.run()
    return client.status, client.output


def driven_pane(
    backend: TmuxBackend, server: ServerRef, listener: DriverListener, width: int, height: int
) -> tuple[str, PaneDriver]:
    session = backend.new_session(server, width=width, height=height, command=listener.command)
    assert session.active_pane_id is not None
    return session.active_pane_id, listener.accept(session.active_pane_id)


def wait_for(predicate: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)  # polling a condition, with the deadline above


# -- capture-pane: flags (-T 3.4, -M 3.6, -F -L -H 3.7, -R 3.8) ----------------------------


@pytest.mark.parametrize("flag", ["T", "M", "F", "L", "H", "R"])
def test_capture_flag_is_refused_exactly_where_tmux_refuses_it(
    flag: str, version: str, run: Run, backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    backend.new_session(tmux_server, command="exec sleep 100000")
    real = run("capture-pane", "-p", f"-{flag}", "-t", "%0")
    sim = sim_tmux(_first_pane(version), "capture-pane", "-p", f"-{flag}")
    assert refused(real, flag) is refused(sim, flag), (real, sim)
    if not refused(real, flag):
        assert real[0] == 0, real


def refused(result: tuple[int, str], flag: str) -> bool:
    """tmux's refusal of an unknown flag: 3.3 and later say ``command capture-pane:
    unknown flag -T``; 3.2a's client reports getopt's ``unknown option -- T``
    and the usage (the simulator says it the newer way on every release)."""
    code, text = result
    newer = text == f"command capture-pane: unknown flag -{flag}\n"
    older = text.startswith(f"tmux: unknown option -- {flag}\nusage: capture-pane ")
    return code == 1 and (newer or older)


def sized_session(server: SimServer, width: int | None, height: int | None) -> None:
    """A session as gridmux's backend makes one: the size asked for on every
    release (3.2a ignores a detached session's -x/-y; the backend resizes its
    window after), so the real side, made by the backend, has the same size."""
    session = server.new_session(width=width, height=height)
    if not server.version.honours_detached_size and (width or height):
        for window in session.windows.values():
            server.controls.resize_window(window.window_id, width=width, height=height)


def _first_pane(version: str, width: int | None = None, height: int | None = None) -> SimPane:
    server = sim_server(version)
    sized_session(server, width, height)
    return server.pane("%0")


# -- capture-pane: -N row length, -T, -J and the -e encodings ------------------------------

CONTENT = (
    b"abc\nxy   \n\x1b[31mred\x1b[0m\x1b[K\nq \x1b[1K\n"
    b"a\x1b[1mB\x1b[22mc\x1b[1;31mD\x1b[0mE\n\x1b[4;32;44mU\x1b[24mV\x1b[0m\n\x1b[7mrev\n"
    b"\x1b[0mx\x1b[91;101mbr\x1b[38;5;200mx\x1b[48;5;17my\x1b[38;2;1;2;3mz\x1b[39;49m "
    b"\x1b[2;3;5;8;9mA\x1b[m\n\x1b[32mgreen\nstill\x1b[39m ok\n\x1b[41m  \x1b[49m \n"
    b"end\x1b[1mX   \x1b[0m\n\x1b[32mab\x1b[0m\ta\x1b[1m\tz\x1b[0m\n"
) + "中\x1b[31m文\x1b[0m字 0123456789012345678901234567\n".encode()
CAPTURES = [
    (),
    ("-N",),
    ("-N", "-T"),
    ("-T",),
    ("-J",),
    ("-e",),
    ("-e", "-N"),
    ("-e", "-T"),
    ("-e", "-J"),
    ("-e", "-N", "-T"),
    ("-L",),  # 3.7+; the refusal before
    ("-M",),  # 3.6+ (outside copy mode: the base screen); the refusal before
    ("-S", "-3", "-E", "#{e|-:2,1}"),  # 3.4+ expands formats in -S/-E (§14)
    ("-S", "#{e|-:0,#{history_size}}"),
]


def test_capture_rows_and_sgr_encoding_match_tmux(
    version: str,
    run: Run,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    listener: DriverListener,
) -> None:
    pane_id, driver = driven_pane(backend, tmux_server, listener, 30, 20)
    try:
        driver.write(CONTENT)
        sim = _first_pane(version, 30, 20)
        sim.write(CONTENT)
        for flags in CAPTURES:
            args = ("capture-pane", "-p", *flags, *(() if "-S" in flags else ("-S", "-")))
            real, simulated = run(*args, "-t", pane_id), sim_tmux(sim, *args)
            unknown = next((f[1] for f in flags if refused(real, f[1:])), None)
            if unknown is not None:  # 3.2a's wording of a refusal (see refused)
                assert refused(simulated, unknown), (flags, simulated)
                continue
            assert simulated == real, flags
    finally:
        driver.close()


# -- ED2 and scroll-on-clear (3.3), default TERM (3.3), detached size (3.3) ----------------


def test_scroll_on_clear_and_defaults_match_tmux(
    version: str,
    run: Run,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    listener: DriverListener,
) -> None:
    pane_id, driver = driven_pane(backend, tmux_server, listener, 20, 4)
    try:
        server = sim_server(version)
        sized_session(server, 20, 4)
        sim = server.pane("%0")
        # 3.3+ has the option (3.2a always scrolls, and refuses the name).
        status, _ = run("set-option", "-g", "scroll-on-clear", "off")
        assert sim_tmux(sim, "set-option", "-g", "scroll-on-clear", "off")[0] == status
        for data in (b"one\ntwo\x1b[2J", b"x\x1b[H\x1b[J", b"y\x1bc"):
            driver.write(data)
            sim.write(data)
            fmt = "#{history_size}:#{cursor_x}:#{cursor_y}"
            assert (
                server.expand_format(fmt, sim) + "\n" == run("display", "-p", "-t", pane_id, fmt)[1]
            )
        option = ("show-options", "-gv", "default-terminal")
        assert f"{server.server_options.get('default-terminal')}\n" == run(*option)[1]
    finally:
        driver.close()
    # A detached session's -x/-y (3.2a gave 80x23).
    run("new-session", "-d", "-s", "sized", "-x", "100", "-y", "10", "exec sleep 9")
    sized = server.new_session(name="sized", width=100, height=10)
    real_size = run("display", "-p", "-t", "sized", "#{window_width}x#{window_height}")[1]
    assert f"{sized.size[0]}x{sized.size[1]}\n" == real_size


# -- formats: pane_dead_signal, pane_dead_time (3.3), pane_unseen_changes (3.4) -----------


@pytest.mark.parametrize(("status", "signal"), [(3, None), (0, 15)])
def test_dead_pane_formats_and_message_match_tmux(
    status: int,
    signal: int | None,
    version: str,
    run: Run,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    listener: DriverListener,
) -> None:
    run("set-option", "-g", "remain-on-exit", "on")
    pane_id, driver = driven_pane(backend, tmux_server, listener, 60, 4)
    driver.write(b"output\n")
    clock = ManualClock()
    server = sim_server(version, clock)
    server.window_options.set("remain-on-exit", "on")
    sized_session(server, 60, 4)
    sim = server.pane("%0")
    sim.write(b"output\n")
    live = "#{pane_unseen_changes}|" + DEAD
    assert server.expand_format(live, sim) == run("display", "-p", "-t", pane_id, live)[1][:-1]

    driver.exit(status, signal=signal)

    def reaped() -> bool:
        dead, code, sig, _ = run("display", "-p", "-t", pane_id, DEAD)[1][:-1].split("|")
        if dead == "1" and not (code or sig):
            run("run-shell", "true")  # tmux 3.3a can miss a SIGCHLD (see wait_dead)
        return dead == "1" and bool(code or sig or not server.version.has_dead_signal_and_time)

    wait_for(reaped, f"{pane_id} to die")
    when = run("display", "-p", "-t", pane_id, "#{pane_dead_time}")[1].strip()
    if not when:  # 3.2a has no pane_dead_time: the time its message prints (UTC)
        printed = run("capture-pane", "-p", "-J", "-t", pane_id)[1]
        found = re.search(r"Pane is dead \([^,]*, (.{24})\)", printed)
        assert found, printed
        when = str(calendar.timegm(time.strptime(found.group(1), "%a %b %d %H:%M:%S %Y")))
    clock.advance(int(when))
    sim.exit(status, signal=signal)
    assert server.expand_format(DEAD, sim) == run("display", "-p", "-t", pane_id, DEAD)[1][:-1]
    assert sim_tmux(sim, "capture-pane", "-p") == run("capture-pane", "-p", "-t", pane_id)


# -- pane_dead timing (3.7) and destruction at pty close (3.8) -----------------------------

CLOSER = (
    "trap '' HUP; read x < {dir}/start-{name}; exec >&- 2>&- <&-; : > {dir}/closed-{name};"
    " read x < {dir}/release-{name}; exit 4"
)
STATE = "#{session_name}:" + DEAD + "|#{?#{==:#{pane_pid},},nopid,pid}"


def test_pane_dead_waits_for_the_exit_status_as_tmux_does(
    version: str,
    run: Run,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    isolated_env: Path,
) -> None:
    """Two programs close their tty and block; ``on`` keeps pane A, ``off`` pane B."""
    for name in ("a", "b"):
        os.mkfifo(isolated_env / f"start-{name}")
        os.mkfifo(isolated_env / f"release-{name}")
    server = sim_server(version)
    for name, remain in (("a", "on"), ("b", "off")):
        command = CLOSER.format(dir=isolated_env, name=name)
        backend.new_session(tmux_server, name=name, command=f"exec sh -c {_quote(command)}")
        run("set-option", "-t", name, "-w", "remain-on-exit", remain)
        session = server.new_session(name=name)
        server.config.set_option(
            "remain-on-exit", remain, scope="window", target=session.session_id
        )
    for name in ("a", "b"):
        _release(isolated_env / f"start-{name}")
        wait_for((isolated_env / f"closed-{name}").exists, f"{name} to close its tty")
        server.pane(f"%{'ab'.index(name)}").close_tty()

    expected = _states(server)
    wait_for(lambda: _real_states(run) == expected, f"{expected}, tmux: {_real_states(run)}")

    for name in ("a", "b"):
        _release(isolated_env / f"release-{name}")
    for pane in list(server.all_panes()):
        pane.exit(4)
    expected = _states(server)

    def reaped() -> bool:
        if _real_states(run) == expected:
            return True
        run("run-shell", "true")  # tmux 3.3a can miss a SIGCHLD (see wait_dead)
        return False

    wait_for(reaped, f"{expected}, tmux: {_real_states(run)}")


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _states(server: SimServer) -> list[str]:
    return sorted(server.expand_format(STATE, pane) for pane in server.all_panes())


def _real_states(run: Run) -> list[str]:
    status, out = run("list-panes", "-a", "-F", STATE)
    return sorted(out.splitlines()) if status == 0 else [f"error: {out}"]


def _release(fifo: Path) -> None:
    """Let the programs blocked reading ``fifo`` go on: open it for writing once
    they read it, and close it (each sees a line or end of file)."""
    deadline = time.monotonic() + 10
    while True:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            assert time.monotonic() < deadline, "no program is reading the FIFO"
            time.sleep(0.01)  # polling a condition, with the deadline above
    os.write(fd, b"go\n")
    os.close(fd)


# -- remain-on-exit key (3.7), display-message -l (3.4) ------------------------------------


def test_remain_on_exit_key_is_refused_or_kept_as_tmux_does(
    version: str, run: Run, backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    backend.new_session(tmux_server, command="exec sleep 100000")
    server = sim_server(version)
    server.new_session()
    sim = server.pane("%0")
    real = run("set-option", "-g", "remain-on-exit", "key")
    status, output = sim_tmux(sim, "set-option", "-g", "remain-on-exit", "key")
    assert status == real[0], (real, output)
    if status:
        assert real[1] == "unknown value: key\n" and output.startswith("unknown value: key")
        return
    run("split-window", "-d", "-t", "%0", "sh -c 'exit 0'")
    server.split_window("%0", command="sh -c 'exit 0'")
    server.pane("%1").exit(0)
    wait_for(lambda: run("display", "-p", "-t", "%1", DEAD)[1] == "1|0||1\n", "%1 to die")
    assert server.expand_format(DEAD, server.pane("%1")) == "1|0||1"
    run("send-keys", "-t", "%1", "x")
    server.pane("%1").send_keys("x")
    assert run("display", "-p", "-t", "%1", DEAD)[1] == "1|0||1\n"
    assert server.pane("%1").dead


def test_display_message_literal_matches_tmux(
    version: str, run: Run, backend: TmuxCommandBackend, tmux_server: ServerRef
) -> None:
    backend.new_session(tmux_server, command="exec sleep 100000")
    sim = _first_pane(version)
    for args in (("-l", "-p", "a#{pane_id}\\tb"), ("-p", "a#{pane_id}")):
        real = run("display-message", "-t", "%0", *args)
        if real[1].startswith("tmux: unknown option -- l\nusage: display-message "):
            real = (real[0], "command display-message: unknown flag -l\n")  # 3.2a's wording
        assert sim_tmux(sim, "display-message", *args) == real


# -- window layouts: JSON from 3.8 --------------------------------------------------------


def test_window_layouts_print_and_apply_as_tmux_does(
    version: str, run: Run, backend: TmuxCommandBackend, tmux_server: ServerRef, tmux_bin: str
) -> None:
    backend.new_session(tmux_server, width=80, height=24, command="exec sleep 100000")
    run("split-window", "-d", "-t", "%0", "exec sleep 100000")
    run("split-window", "-d", "-h", "-t", "%1", "exec sleep 100000")
    run("select-pane", "-t", "%2")
    server = sim_server(version)
    sized_session(server, 80, 24)
    server.split_window("%0")
    server.split_window("%1", direction="right")
    server.controls.select_pane("%2")

    def layouts() -> tuple[str, str]:
        real = run("display", "-p", "-t", "%0", "#{window_layout}")[1][:-1]
        return real, server.expand_format("#{window_layout}", server.pane("%0"))

    real, sim = layouts()
    assert sim == real
    assert [w.layout for w in backend.list_windows(tmux_server)] == [real]
    # A control-mode client attached without new-layouts is shown 3.8's
    # layouts checksummed.
    seen = _control_client_layout(tmux_bin, tmux_server)
    assert server.expand_format("#{window_layout}", server.pane("%0"), control=True) == seen

    # The same panes rearranged, the active and last panes changed (JSON only).
    body = "80x24,0,0{40x24,0,0,0,39x24,41,0[39x12,41,0,1,39x11,41,13,2]}"
    checksummed = f"{_checksum(body):04x},{body}"
    if real.startswith("{"):
        document = json.loads(real)
        document["L"] = {
            "t": "h",
            "w": 80,
            "h": 24,
            "x": 0,
            "y": 0,
            "c": [
                {"t": "p", "w": 40, "h": 24, "x": 0, "y": 0, "a": True, "i": 0, "I": "%0"},
                {
                    "t": "v",
                    "w": 39,
                    "h": 24,
                    "x": 41,
                    "y": 0,
                    "c": [
                        {"t": "p", "w": 39, "h": 12, "x": 41, "y": 0, "l": 0, "i": 1, "I": "%1"},
                        {"t": "p", "w": 39, "h": 11, "x": 41, "y": 13, "i": 2, "I": "%2"},
                    ],
                },
            ],
        }
        candidates = [json.dumps(document), checksummed]
    else:
        # Before 3.8 JSON is no layout (and 3.3a's server crashes on one): the
        # simulator refuses it, as the real backend does without sending it.
        candidates = [checksummed]
        refused = '{"V":2,"L":{"t":"p","w":80,"h":24,"x":0,"y":0,"i":0}}'
        with pytest.raises(GridmuxError):
            backend.select_layout(tmux_server, "@0", refused)
        with pytest.raises(GridmuxError):
            server.controls.select_layout("@0", refused)
    for layout in candidates:
        status, output = run("select-layout", "-t", "@0", layout)
        try:
            server.controls.select_layout("@0", layout)
            sim_status = 0
        except GridmuxError:
            sim_status = 1
        assert sim_status == status, (layout, output)
        assert layouts()[1] == layouts()[0], layout


def _control_client_layout(tmux_bin: str, server: ServerRef) -> str:
    """``#{window_layout}`` as a plain ``tmux -C attach`` client is told it."""
    assert server.socket_path is not None
    done = subprocess.run(
        [tmux_bin, "-u", "-S", server.socket_path, "-C", "attach", "-f", "no-output"],
        input="display-message -p -t %0 '#{window_layout}'\n",
        capture_output=True,
        text=True,
        timeout=10,
        check=False,
    )
    lines = done.stdout.splitlines()
    begins = [i for i, line in enumerate(lines) if line.startswith("%begin")]
    return lines[begins[-1] + 1]


def _checksum(text: str) -> int:
    csum = 0
    for ch in text:
        csum = ((csum >> 1) + ((csum & 1) << 15) + ord(ch)) & 0xFFFF
    return csum
