"""Where a tmux server's socket is: tmux's own rule, in one place.

A tmux client finds its server's socket this way (``main`` and
``make_label`` in tmux's ``tmux.c``, the same from 3.2a to 3.8):

1. ``-S path``: that path, as given.
2. Neither ``-S`` nor ``-L``: the server the client runs inside, ``$TMUX`` up
   to its first comma, when ``$TMUX`` is set, not empty and does not start
   with a comma.
3. Otherwise the label (``-L name``, else ``default``) in the directory
   ``tmux-UID`` inside the real path of ``$TMUX_TMPDIR`` when that is set
   and exists, else inside the real path of ``/tmp`` (a ``$TMUX_TMPDIR``
   naming nothing falls back to ``/tmp``, as measured on 3.2a, 3.3a and 3.8).

``environ`` is the environment the rule reads; the simulator passes its own
(a simulated machine has neither variable).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from ._types import ServerRef


def socket_directory(environ: Mapping[str, str] = os.environ) -> str:
    """The directory of this user's labelled sockets (``-L``), ``.../tmux-UID``."""
    for base in (environ.get("TMUX_TMPDIR", ""), "/tmp"):
        if base:
            try:
                real = os.path.realpath(base, strict=True)
            except OSError:
                continue
            return os.path.join(real, f"tmux-{os.getuid()}")
    return os.path.join("/tmp", f"tmux-{os.getuid()}")  # no /tmp: tmux itself fails


def default_socket_path(server: ServerRef, environ: Mapping[str, str] = os.environ) -> str:
    """The socket a tmux client addressing ``server`` connects to."""
    if server.socket_path is not None:
        return server.socket_path
    if server.socket_name is None:
        inside = environ.get("TMUX", "")
        if inside and not inside.startswith(","):
            return inside.split(",", 1)[0]
    return os.path.join(socket_directory(environ), server.socket_name or "default")
