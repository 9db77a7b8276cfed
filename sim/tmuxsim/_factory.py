"""Entry point for the simulator backend (``gridmux --backend sim``)."""

from __future__ import annotations

from gridmux.backend import TmuxBackend

from ._backend import SimBackend


def sim_backend(settings: object) -> TmuxBackend:
    return SimBackend(version=str(getattr(settings, "sim_version", "3.3a")))
