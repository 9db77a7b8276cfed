"""Settings from the command line and the environment; --transport/--host/--port, loopback only."""

from __future__ import annotations

import os
import socket
from typing import Any

import pytest
from pydantic import ValidationError

from gridmux.app import load_backend
from gridmux.safety import Tier
from gridmux.settings import DEFAULT_HOST, DEFAULT_PORT, Settings, build_parser, is_loopback
from gridmux.transport import bind_loopback

#: Every option: (field, option value, what the field holds then).
EVERY_OPTION: list[tuple[str, str, Any]] = [
    ("backend", "sim", "sim"),
    ("socket_name", "work", "work"),
    ("socket_path", "/tmp/tmux-9/agent", "/tmp/tmux-9/agent"),
    ("tmux_bin", "/opt/tmux/bin/tmux", "/opt/tmux/bin/tmux"),
    ("sim_version", "3.5a", "3.5a"),
    ("safety", "readonly", Tier.READONLY),
    ("transport", "http", "http"),
    ("host", "::1", "::1"),
    ("port", "9001", 9001),
    ("audit_log", "/tmp/audit.jsonl", "/tmp/audit.jsonl"),
    ("control_mode", "off", False),
    ("allow_other_servers", "on", True),
    ("tools", "inspect,read,send_keys", "inspect,read,send_keys"),
    ("exclude_tools", "batch", "batch"),
    ("pass_env", "SSH_AUTH_SOCK,GH_TOKEN", "SSH_AUTH_SOCK,GH_TOKEN"),
    ("suppress_history", "off", False),
    ("output_schemas", "on", True),
    ("wait_max_seconds", "30", 30.0),
    ("http_header_timeout", "2.5", 2.5),
    ("http_token_file", "/tmp/token", "/tmp/token"),
]
#: Another valid value of each field, for precedence (option over variable).
OTHER_VALUE = {
    "backend": "tmux",
    "socket_name": "other",
    "socket_path": "/tmp/other",
    "tmux_bin": "/usr/bin/tmux",
    "sim_version": "3.8",
    "safety": "destructive",
    "transport": "stdio",
    "host": "localhost",
    "port": "0",
    "audit_log": "/tmp/other.jsonl",
    "control_mode": "on",
    "allow_other_servers": "off",
    "tools": "inspect",
    "exclude_tools": "teardown",
    "pass_env": "SSH_AUTH_SOCK",
    "suppress_history": "on",
    "output_schemas": "off",
    "wait_max_seconds": "60",
    "http_header_timeout": "20",
    "http_token_file": "/tmp/other-token",
}


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No GRIDMUX_* or tmux variable of the shell running the tests reaches them."""
    for name in list(os.environ):
        if name.startswith("GRIDMUX_") or name in ("TMUX", "TMUX_PANE"):
            monkeypatch.delenv(name)


def load(argv: list[str], monkeypatch: pytest.MonkeyPatch, **env: str) -> Settings:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return Settings.from_command_line(argv)


def refusal(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], **env: str
) -> str:
    """The error text of a command line (and environment) the command refuses, exit status 2."""
    with pytest.raises(SystemExit) as exited:
        load(argv, monkeypatch, **env)
    assert exited.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # stdout carries MCP: errors never go there
    return captured.err


def test_the_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load([], monkeypatch)
    assert settings.model_dump() == {
        "backend": "tmux",
        "socket_name": None,
        "socket_path": None,
        "tmux_bin": None,
        "sim_version": "3.3a",
        "safety": "mutating",
        "transport": "stdio",
        "host": DEFAULT_HOST,
        "port": DEFAULT_PORT,
        "audit_log": None,
        "control_mode": True,
        "allow_other_servers": False,
        "tools": None,
        "exclude_tools": None,
        "pass_env": None,
        "suppress_history": True,
        "output_schemas": False,
        "wait_max_seconds": 3600.0,
        "http_header_timeout": 10.0,
        "http_token_file": None,
        "http_token": None,
        "caller_pane": None,
        "caller_socket": None,
    }
    assert settings.safety is Tier.MUTATING
    assert (DEFAULT_HOST, DEFAULT_PORT) == ("127.0.0.1", 8765)


def test_the_table_covers_every_settable_field() -> None:
    settable = set(Settings.model_fields) - {"caller_pane", "caller_socket", "http_token"}
    assert settable == {field for field, _, _ in EVERY_OPTION} == set(OTHER_VALUE)


def test_the_http_token_comes_from_the_environment_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A command line is visible to every user (ps): the token itself has no option."""
    settings = load([], monkeypatch, GRIDMUX_HTTP_TOKEN="t" * 32)
    assert settings.http_token is not None
    assert settings.http_token.get_secret_value() == "t" * 32
    assert "t" * 32 not in repr(settings)
    with pytest.raises(SystemExit):
        load(["--http-token", "t" * 32], monkeypatch)


@pytest.mark.parametrize(("field", "text", "expected"), EVERY_OPTION)
def test_each_option_on_the_command_line(
    field: str, text: str, expected: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = load([Settings.option(field), text], monkeypatch)
    assert getattr(settings, field) == expected
    assert getattr(Settings(), field) != expected  # the option changed it


@pytest.mark.parametrize(("field", "text", "expected"), EVERY_OPTION)
def test_each_option_from_its_environment_variable(
    field: str, text: str, expected: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    variable = Settings.variable(field)
    assert variable == "GRIDMUX_" + field.upper()
    assert getattr(load([], monkeypatch, **{variable: text}), field) == expected


@pytest.mark.parametrize(("field", "text", "expected"), EVERY_OPTION)
def test_the_option_wins_over_the_variable(
    field: str, text: str, expected: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {Settings.variable(field): OTHER_VALUE[field]}
    settings = load([Settings.option(field), text], monkeypatch, **env)
    assert getattr(settings, field) == expected
    assert getattr(load([], monkeypatch), field) != expected  # the variable alone differs


@pytest.mark.parametrize("field", ["socket_name", "audit_log", "host", "control_mode", "port"])
def test_an_empty_variable_is_unset(field: str, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load([], monkeypatch, **{Settings.variable(field): ""})
    assert getattr(settings, field) == getattr(Settings(), field)


def test_built_directly_settings_never_read_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GRIDMUX_SAFETY", "readonly")
    monkeypatch.setenv("GRIDMUX_CONTROL_MODE", "off")
    monkeypatch.setenv("TMUX_PANE", "%3")
    assert Settings() == Settings(safety="mutating", control_mode=True, caller_pane=None)
    assert Settings.from_command_line([]).safety is Tier.READONLY


def test_the_caller_pane_and_socket_come_from_tmux(monkeypatch: pytest.MonkeyPatch) -> None:
    settings = load([], monkeypatch, TMUX="/tmp/tmux-1000/default,4242,0", TMUX_PANE="%7")
    assert (settings.caller_pane, settings.caller_socket) == ("%7", "/tmp/tmux-1000/default")
    assert Settings(caller_socket="/tmp/s").caller_socket == "/tmp/s"


def test_settings_are_frozen() -> None:
    with pytest.raises(ValidationError):
        Settings().safety = Tier.DESTRUCTIVE  # type: ignore[misc]


@pytest.mark.parametrize(
    ("argv", "env", "needles"),
    [
        (["--safety", "root"], {}, ["--safety", "root", "readonly", "destructive"]),
        (
            [],
            {"GRIDMUX_SAFETY": "Readonly"},
            ["GRIDMUX_SAFETY='Readonly'", "choose readonly, mutating or destructive"],
        ),
        (["--control-mode", "maybe"], {}, ["--control-mode", "maybe", "on", "off"]),
        (
            [],
            {"GRIDMUX_CONTROL_MODE": "maybe"},
            ["GRIDMUX_CONTROL_MODE='maybe': expected 'on' or 'off', not 'maybe'"],
        ),
        (["--transport", "sse"], {}, ["--transport", "sse", "stdio", "http"]),
        ([], {"GRIDMUX_TRANSPORT": "sse"}, ["GRIDMUX_TRANSPORT='sse'", "'stdio' or 'http'"]),
        (["--port", "70000"], {}, ["--port='70000'", "less than or equal to 65535"]),
        (["--port", "-1"], {}, ["--port='-1'", "greater than or equal to 0"]),
        (["--port", "http"], {}, ["--port='http'", "valid integer"]),
        ([], {"GRIDMUX_PORT": "x"}, ["GRIDMUX_PORT='x'", "valid integer"]),
        ([], {"GRIDMUX_PORT": "65536"}, ["GRIDMUX_PORT='65536'", "less than or equal to 65535"]),
        (["--tools", "inspekt"], {}, ["--tools='inspekt'", "did you mean 'inspect'?", "teardown"]),
        ([], {"GRIDMUX_EXCLUDE_TOOLS": "kill_pain"}, ["GRIDMUX_EXCLUDE_TOOLS", "'kill_pane'"]),
        (["--tools", ","], {}, ["--tools=','", "names no tool"]),
        (["--tools", "batch", "--exclude-tools", "batch"], {}, ["leaves no tool"]),
        (
            ["--safety", "readonly", "--tools", "teardown"],
            {},
            ["leaves no tool at the readonly tier"],
        ),
        (["--suppress-history", "yes"], {}, ["--suppress-history", "on", "off"]),
        (["--wait-max-seconds", "0"], {}, ["--wait-max-seconds='0'", "greater than 0"]),
        ([], {"GRIDMUX_WAIT_MAX_SECONDS": "7200"}, ["less than or equal to 3600"]),
        (["--direct-calls", "on"], {}, ["unrecognized arguments: --direct-calls on"]),
        (["--socket"], {}, ["unrecognized arguments: --socket"]),
    ],
)
def test_bad_values_name_the_option_and_what_it_accepts(
    argv: list[str],
    env: dict[str, str],
    needles: list[str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    err = refusal(argv, monkeypatch, capsys, **env)
    for needle in needles:
        assert needle in err


def test_every_bad_value_is_reported_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    err = refusal(["--port", "x"], monkeypatch, capsys, GRIDMUX_SAFETY="all")
    assert "--port='x'" in err and "GRIDMUX_SAFETY='all'" in err


def test_an_unknown_backend_is_refused_naming_the_installed_ones(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        load_backend(Settings(backend="libtmux"))
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "--backend/GRIDMUX_BACKEND='libtmux': unknown backend" in err
    assert "sim, tmux" in err
    assert type(load_backend(Settings(backend="sim"))).__name__ == "SimBackend"


def test_help_lists_every_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for field in set(Settings.model_fields) - {"caller_pane", "caller_socket"}:
        assert Settings.option(field) in out
    assert "GRIDMUX_" in out
    assert "direct" not in out


# -- transport: loopback only ---------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"])
def test_loopback_hosts_are_accepted(host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert is_loopback(host)
    assert load(["--host", host], monkeypatch).host == host


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.10", "10.0.0.1", "example.com", "localhost.evil", ""]
)
@pytest.mark.parametrize("source", ["argv", "env"])
def test_other_hosts_are_refused_with_a_clear_message(
    host: str, source: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv, env = (["--host", host], {}) if source == "argv" else ([], {"GRIDMUX_HOST": host})
    if not host and source == "env":
        assert load(argv, monkeypatch, **env).host == DEFAULT_HOST  # empty: unset
        return
    err = refusal(argv, monkeypatch, capsys, **env)
    where = "--host" if source == "argv" else "GRIDMUX_HOST"
    assert f"{where}={host!r}: refusing to serve on a non-loopback address" in err
    assert "loopback only" in err


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


def test_tmux_processes_get_the_environment_less_gridmux_and_secrets(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = load(["--pass-env", "GH_TOKEN, SSH_AUTH_SOCK"], monkeypatch)
    environ = {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "TERM": "xterm",
        "GRIDMUX_HTTP_TOKEN": "t",
        "GRIDMUX_SAFETY": "readonly",
        "OPENAI_API_KEY": "k",
        "DB_PW": "p",
        "GH_TOKEN": "g",
        "SSH_AUTH_SOCK": "/run/agent",
        "AWS_SECRET_ACCESS_KEY": "s",
    }
    assert settings.tmux_environment(environ) == {
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "TERM": "xterm",
        "GH_TOKEN": "g",
        "SSH_AUTH_SOCK": "/run/agent",
        "LANG": "C.UTF-8",  # no locale variable was set
    }
    plain = load([], monkeypatch).tmux_environment({"LC_ALL": "de_DE.UTF-8", "SSH_AUTH_SOCK": "x"})
    assert plain == {"LC_ALL": "de_DE.UTF-8"}


def test_pass_env_takes_variable_names_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    error = refusal(["--pass-env", "GOOD,BAD-NAME"], monkeypatch, capsys)
    assert "--pass-env" in error and "'BAD-NAME'" in error
