"""Settings, read once at start-up from the command line and the environment."""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

#: Transports the server speaks: stdio (default) or streamable HTTP at ``/mcp``.
TRANSPORTS = ("stdio", "http")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765


@dataclass(frozen=True, slots=True)
class Settings:
    backend: str = "tmux"
    socket_name: str | None = None
    socket_path: str | None = None
    tmux_bin: str | None = None
    sim_version: str = "3.3a"
    caller_pane: str | None = None
    caller_socket: str | None = None
    safety: str = "mutating"
    transport: str = "stdio"
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    audit_log: str | None = None
    control_mode: bool = True
    direct_calls: bool = True

    @classmethod
    def from_sources(cls, argv: Sequence[str], env: Mapping[str, str]) -> Settings:
        parser = build_parser()
        args = parser.parse_args(list(argv))
        tmux_env = env.get("TMUX", "")
        transport = args.transport or env.get("GRIDMUX_TRANSPORT") or "stdio"
        if transport not in TRANSPORTS:
            parser.error(f"unknown transport {transport!r} (choose stdio or http)")
        host = args.host if args.host is not None else env.get("GRIDMUX_HOST") or DEFAULT_HOST
        if not is_loopback(host):
            parser.error(
                f"refusing to serve on {host!r}: gridmux listens on loopback only "
                "(127.0.0.1, ::1 or localhost), since anyone who reaches it can type into "
                "your terminals"
            )
        port = args.port if args.port is not None else _env_port(parser, env)
        return cls(
            backend=args.backend or env.get("GRIDMUX_BACKEND", "tmux"),
            socket_name=args.socket_name or env.get("GRIDMUX_SOCKET_NAME") or None,
            socket_path=args.socket_path or env.get("GRIDMUX_SOCKET_PATH") or None,
            tmux_bin=args.tmux_bin or env.get("GRIDMUX_TMUX_BIN") or None,
            sim_version=args.sim_version or env.get("GRIDMUX_SIM_VERSION", "3.3a"),
            safety=_safety(parser, args.safety or env.get("GRIDMUX_SAFETY") or "mutating"),
            audit_log=args.audit_log or env.get("GRIDMUX_AUDIT_LOG") or None,
            control_mode=on_off_setting(
                parser, "GRIDMUX_CONTROL_MODE", args.control_mode or env.get("GRIDMUX_CONTROL_MODE")
            ),
            direct_calls=on_off_setting(
                parser, "GRIDMUX_DIRECT_CALLS", args.direct_calls or env.get("GRIDMUX_DIRECT_CALLS")
            ),
            transport=transport,
            host=host,
            port=port,
            caller_pane=env.get("TMUX_PANE") or None,
            caller_socket=tmux_env.split(",", 1)[0] or None,
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gridmux",
        description="MCP server for tmux (speaks MCP over stdio, or streamable HTTP on loopback).",
    )
    parser.add_argument(
        "--backend",
        choices=("tmux", "sim"),
        default=None,
        help="tmux (default): real tmux; sim: the built-in tmux simulator (env GRIDMUX_BACKEND)",
    )
    parser.add_argument("--socket-name", help="default tmux socket name, like tmux -L")
    parser.add_argument("--socket-path", help="default tmux socket path, like tmux -S")
    parser.add_argument("--tmux-bin", help="tmux executable to run (default: tmux on PATH)")
    parser.add_argument("--sim-version", help="tmux version the simulator imitates (default 3.3a)")
    parser.add_argument(
        "--safety",
        choices=("readonly", "mutating", "destructive"),
        default=None,
        help=(
            "highest tool tier to expose: readonly, mutating (default) or destructive "
            "(env GRIDMUX_SAFETY)"
        ),
    )
    parser.add_argument(
        "--transport",
        choices=TRANSPORTS,
        default=None,
        help="stdio (default) or http: streamable HTTP at /mcp (env GRIDMUX_TRANSPORT)",
    )
    parser.add_argument(
        "--host",
        default=None,
        help=f"HTTP address, loopback only (default {DEFAULT_HOST}; env GRIDMUX_HOST)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=None,
        help=(
            f"HTTP port (default {DEFAULT_PORT}; 0 picks a free one and prints it; "
            "env GRIDMUX_PORT)"
        ),
    )
    parser.add_argument(
        "--audit-log",
        metavar="PATH",
        help=(
            "append one JSON line per tool call to PATH (env GRIDMUX_AUDIT_LOG; "
            "default: the gridmux.audit logger, on stderr)"
        ),
    )
    parser.add_argument(
        "--control-mode",
        choices=("on", "off"),
        default=None,
        help=(
            "on (default): send tmux commands over one persistent control-mode client per "
            "server; off: one tmux process per command (env GRIDMUX_CONTROL_MODE)"
        ),
    )
    parser.add_argument(
        "--direct-calls",
        choices=("on", "off"),
        default=None,
        help=(
            "on (default): over stdio, answer tools/call for plain tools on a short path "
            "of gridmux's own; off: every request goes through the MCP SDK and FastMCP "
            "(env GRIDMUX_DIRECT_CALLS)"
        ),
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser


def _safety(parser: argparse.ArgumentParser, text: str) -> str:
    """A valid tier name, else a start-up error (GRIDMUX_SAFETY is not checked by argparse)."""
    if text not in ("readonly", "mutating", "destructive"):
        parser.error(
            f"GRIDMUX_SAFETY: unknown safety tier {text!r} "
            "(choose readonly, mutating or destructive)"
        )
    return text


def on_off_setting(parser: argparse.ArgumentParser, name: str, text: str | None) -> bool:
    """``on`` (the default)/``off`` as a bool, else a start-up error naming the variable
    ``name`` (argparse checks the option, not the environment variable)."""
    if text is None or text == "":
        return True
    if text not in ("on", "off"):
        parser.error(f"{name}: expected 'on' or 'off', not {text!r}")
    return text == "on"


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only: ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"port {port} is out of range (0-65535)")
    return port


def _env_port(parser: argparse.ArgumentParser, env: Mapping[str, str]) -> int:
    text = env.get("GRIDMUX_PORT")
    if not text:
        return DEFAULT_PORT
    try:
        return _port(text)
    except argparse.ArgumentTypeError as exc:
        parser.error(f"GRIDMUX_PORT: {exc}")
