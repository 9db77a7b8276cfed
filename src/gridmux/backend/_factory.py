"""Entry point for the real backend (``gridmux --backend tmux``)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import cast

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
        environment=_environment(settings),
    )


def _environment(settings: object) -> Callable[[], Mapping[str, str]] | None:
    """The environment tmux processes get (``Settings.tmux_environment``), made
    of gridmux's own at each start."""
    policy = getattr(settings, "tmux_environment", None)
    if not callable(policy):
        return None
    return lambda: cast("Mapping[str, str]", policy(os.environ))
