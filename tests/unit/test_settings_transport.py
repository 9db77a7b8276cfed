"""--transport/--host/--port and their environment variables; loopback only."""

from __future__ import annotations

import socket

import pytest

from gridmux.settings import DEFAULT_HOST, DEFAULT_PORT, Settings, is_loopback
from gridmux.transport import bind_loopback


def test_defaults_are_stdio_on_loopback() -> None:
    settings = Settings.from_sources([], {})
    assert (settings.transport, settings.host, settings.port) == ("stdio", DEFAULT_HOST, 8765)
    assert DEFAULT_PORT == 8765


def test_environment_then_command_line() -> None:
    env = {"GRIDMUX_TRANSPORT": "http", "GRIDMUX_HOST": "::1", "GRIDMUX_PORT": "9001"}
    from_env = Settings.from_sources([], env)
    assert (from_env.transport, from_env.host, from_env.port) == ("http", "::1", 9001)
    args = ["--transport", "stdio", "--host", "localhost", "--port", "0"]
    from_args = Settings.from_sources(args, env)
    assert (from_args.transport, from_args.host, from_args.port) == ("stdio", "localhost", 0)


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert is_loopback(host)
    assert Settings.from_sources(["--host", host], {}).host == host


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "localhost.evil", ""]
)
@pytest.mark.parametrize("source", ["argv", "env"])
def test_other_hosts_are_refused_with_a_clear_message(
    host: str, source: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, env = (["--host", host], {}) if source == "argv" else ([], {"GRIDMUX_HOST": host})
    if not host and source == "env":
        assert Settings.from_sources(argv, env).host == DEFAULT_HOST  # empty: unset
        return
    with pytest.raises(SystemExit) as exited:
        Settings.from_sources(argv, env)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert f"refusing to serve on {host!r}" in err
    assert "loopback only" in err


@pytest.mark.parametrize(
    ("argv", "env", "needle"),
    [
        (["--port", "70000"], {}, "out of range"),
        (["--port", "-1"], {}, "out of range"),
        (["--port", "http"], {}, "not a port number"),
        ([], {"GRIDMUX_PORT": "x"}, "GRIDMUX_PORT: 'x' is not a port number"),
        ([], {"GRIDMUX_PORT": "65536"}, "GRIDMUX_PORT: port 65536 is out of range"),
        (["--transport", "sse"], {}, "invalid choice: 'sse'"),
        ([], {"GRIDMUX_TRANSPORT": "sse"}, "unknown transport 'sse'"),
    ],
)
def test_bad_transport_settings_are_refused(
    argv: list[str], env: dict[str, str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        Settings.from_sources(argv, env)
    assert exited.value.code == 2
    assert needle in capsys.readouterr().err


@pytest.mark.parametrize(
    ("host", "family"), [("127.0.0.1", socket.AF_INET), ("localhost", socket.AF_INET)]
)
def test_port_zero_binds_a_free_loopback_port(host: str, family: int) -> None:
    sock = bind_loopback(host, 0)
    try:
        address, port = sock.getsockname()[:2]
        assert sock.family == family
        assert address == "127.0.0.1"
        assert 0 < port < 65536
        with socket.create_connection((address, port), timeout=5):
            pass  # listening already: the connection waits in the backlog
    finally:
        sock.close()


def test_bind_refuses_a_non_loopback_host() -> None:
    with pytest.raises(ValueError, match="non-loopback"):
        bind_loopback("0.0.0.0", 0)


def test_a_port_in_use_is_a_clean_exit() -> None:
    taken = bind_loopback("127.0.0.1", 0)
    try:
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit, match=f"cannot listen on 127.0.0.1:{port}"):
            bind_loopback("127.0.0.1", port)
    finally:
        taken.close()


@pytest.mark.parametrize(
    ("option", "variable", "field"),
    [
        ("--control-mode", "GRIDMUX_CONTROL_MODE", "control_mode"),
        ("--direct-calls", "GRIDMUX_DIRECT_CALLS", "direct_calls"),
    ],
)
def test_on_off_switches(
    option: str, variable: str, field: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert getattr(Settings.from_sources([], {}), field) is True
    assert getattr(Settings.from_sources([], {variable: "off"}), field) is False
    assert getattr(Settings.from_sources([option, "on"], {variable: "off"}), field) is True
    assert getattr(Settings.from_sources([option, "off"], {}), field) is False
    with pytest.raises(SystemExit):
        Settings.from_sources([], {variable: "maybe"})
    assert f"{variable}: expected 'on' or 'off', not 'maybe'" in capsys.readouterr().err
