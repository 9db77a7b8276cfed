"""Settings, read once at start-up from the command line and the environment."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


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

    @classmethod
    def from_sources(cls, argv: Sequence[str], env: Mapping[str, str]) -> Settings:
        parser = build_parser()
        args = parser.parse_args(list(argv))
        tmux_env = env.get("TMUX", "")
        return cls(
            backend=args.backend or env.get("GRIDMUX_BACKEND", "tmux"),
            socket_name=args.socket_name or env.get("GRIDMUX_SOCKET_NAME") or None,
            socket_path=args.socket_path or env.get("GRIDMUX_SOCKET_PATH") or None,
            tmux_bin=args.tmux_bin or env.get("GRIDMUX_TMUX_BIN") or None,
            sim_version=args.sim_version or env.get("GRIDMUX_SIM_VERSION", "3.3a"),
            safety=args.safety or env.get("GRIDMUX_SAFETY") or "mutating",
            caller_pane=env.get("TMUX_PANE") or None,
            caller_socket=tmux_env.split(",", 1)[0] or None,
        )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gridmux",
        description="MCP server for tmux (speaks MCP over stdio).",
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
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    return parser
