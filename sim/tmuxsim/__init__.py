"""tmuxsim: a pure-Python model of tmux — server, sessions, windows, panes and
their scrollback grids — with ``SimBackend`` implementing gridmux's
``TmuxBackend`` protocol on top of it.
"""

from ._backend import SimBackend
from ._clock import Clock, ManualClock
from ._model import SimPane, SimSession, SimWindow
from ._processes import ProcessTable
from ._programs import IdleProgram, PaneIO, Program, ProgramFactory
from ._server import SimServer
from ._shell import SimShell
from ._terminal import Terminal
from ._versions import KNOWN_VERSIONS, TmuxVersion

__all__ = [
    "KNOWN_VERSIONS",
    "Clock",
    "IdleProgram",
    "ManualClock",
    "PaneIO",
    "ProcessTable",
    "Program",
    "ProgramFactory",
    "SimBackend",
    "SimPane",
    "SimServer",
    "SimSession",
    "SimShell",
    "SimWindow",
    "Terminal",
    "TmuxVersion",
]
