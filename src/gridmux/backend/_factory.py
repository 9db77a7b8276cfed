"""Entry point for the real backend (``gridmux --backend tmux``)."""

from __future__ import annotations

from ._command_backend import TmuxCommandBackend
from ._protocol import TmuxBackend
from ._types import ServerRef


def tmux_backend(settings: object) -> TmuxBackend:
    return TmuxCommandBackend(
        getattr(settings, "tmux_bin", None),
        default_server=ServerRef(
            socket_name=getattr(settings, "socket_name", None),
            socket_path=getattr(settings, "socket_path", None),
        ),
        control_mode=getattr(settings, "control_mode", True),
    )
