"""The environment of the tmux processes gridmux starts, and so of a tmux
server one of them starts (``create_session`` on a socket with no server):
tmux makes a new server's global environment of its first client's, and
every pane inherits it, where ``show_environment`` can read it.

gridmux runs with its MCP client's environment, which often holds API keys
and gridmux's own settings. So a tmux process gets that environment less:

* gridmux's own settings (``GRIDMUX_*``), the HTTP token among them;
* every variable whose name suggests a secret (``gridmux.secret_names``:
  ``*_TOKEN``, ``*_PASSWORD``, ``API_KEY``, ``SSH_AUTH_SOCK`` …), unless the
  user passes it on by name (``--pass-env NAME,NAME``);

and everything else is kept as it is: ``PATH``, ``HOME``, ``SHELL``,
``TERM``, ``LANG``/``LC_*``, ``TMUX``/``TMUX_TMPDIR`` (which name the
server). When no locale variable is set at all (a client that starts its
servers with an empty environment), ``LANG=C.UTF-8`` is added, so that the
shells of a server gridmux starts read and write UTF-8.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from gridmux.secret_names import secret_name

#: Variables that are gridmux's own settings.
OWN_PREFIX = "GRIDMUX_"
_LOCALE = ("LC_ALL", "LC_CTYPE", "LANG")
#: The locale added when none is set.
DEFAULT_LOCALE = "C.UTF-8"


def tmux_environment(environ: Mapping[str, str], pass_on: Collection[str] = ()) -> dict[str, str]:
    """``environ`` as a tmux process gridmux starts gets it (see the module)."""
    kept = {
        name: value
        for name, value in environ.items()
        if not name.startswith(OWN_PREFIX) and (name in pass_on or not secret_name(name))
    }
    if not any(kept.get(name) for name in _LOCALE):
        kept["LANG"] = DEFAULT_LOCALE
    return kept


__all__ = ["DEFAULT_LOCALE", "OWN_PREFIX", "tmux_environment"]
