"""Oracle: options and environment as gridmux reports them, held against libtmux.

Options are set with libtmux at every scope (server, global session and
window tables, a session, a window, a pane) and read back through
gridmux's ``show_option``; the expected answer comes from libtmux on the
same object: the value from ``show_option`` with ``include_inherited``
(tmux's ``show-options -A``), and the table the value comes from (the
first of the target's own, its window's, the global table whose
``show_options`` lists it), which also says whether it is inherited.
libtmux converts values to Python types (``on`` to True, numbers to int,
arrays to dicts by index); the oracle turns them back into tmux's text,
which is what gridmux answers.

The environment is set with libtmux's ``set_environment`` and
``remove_environment`` and compared whole with its ``show_environment``
(where ``-NAME`` marks a removed variable, gridmux's ``null``).
"""

from __future__ import annotations

from typing import Any

import libtmux
import pytest
from fastmcp import Client
from libtmux.constants import PaneDirection

from tests.mcp_calls import call

pytestmark = pytest.mark.tmux

Target = libtmux.Server | libtmux.Session | libtmux.Window | libtmux.Pane


def as_tmux_text(value: Any) -> Any:
    """A value as tmux prints it, from libtmux's conversion of it."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return {str(index): as_tmux_text(item) for index, item in value.items()}
    assert isinstance(value, str), value
    return value


def expected_option(target: Target, option: str, global_table: str) -> dict[str, Any]:
    """What show_option must answer for ``option`` at ``target``, read with libtmux."""
    value = target.show_option(option, include_inherited=True)
    assert value is not None, f"libtmux sees no {option} at {target}"
    if isinstance(target, libtmux.Server):
        return {
            "option": option,
            "value": as_tmux_text(value),
            "scope": "server",
            "inherited": False,
        }
    chain: list[tuple[str, Target]] = [(type(target).__name__.lower(), target)]
    if isinstance(target, libtmux.Pane):
        chain.append(("window", target.window))
    # The object's own table (``show-options`` without a name lists only what it
    # sets; asked by name, tmux answers a pane with its window's value).
    setter = next((i for i, (_, t) in enumerate(chain) if option in t.show_options()), None)
    return {
        "option": option,
        "value": as_tmux_text(value),
        "scope": global_table if setter is None else chain[setter][0],
        "inherited": setter != 0,
    }


@pytest.fixture
def configured(server: libtmux.Server, session: libtmux.Session) -> dict[str, Target]:
    """Options at every scope, some set at one level and read from another."""
    other = server.new_session("ötherś ✓", window_command="exec sleep 100000")
    window = session.active_window
    first = window.active_pane
    assert first is not None
    second = first.split(direction=PaneDirection.Right, shell="exec sleep 100000")

    server.set_option("escape-time", 42)
    session.set_option("history-limit", 1234)
    session.set_option("status-left", "[#{session_name}] ✓ wide 日本")
    session.set_option("@greeting", "héllo wörld, with spaces")
    session.set_option("mode-keys", "vi", global_=True)
    session.set_option("@everywhere", "global user option", global_=True)
    server.cmd("set-option", "-t", session.session_id or "", "status-format[1]", "ünï #{host}")
    window.set_option("main-pane-width", 33)
    window.set_option("remain-on-exit", "off")
    window.set_option("@window-note", "note on the window")
    first.set_option("remain-on-exit", "on")
    first.set_option("@pane-note", "on the first pane")
    return {
        "server": server,
        "session": session,
        "other": other,
        "window": window,
        "first": first,
        "second": second,
    }


#: (object, option, its global table): what each read checks.
READS = [
    ("server", "escape-time", "server"),
    ("server", "buffer-limit", "server"),
    ("session", "history-limit", "session"),
    ("other", "history-limit", "session"),
    ("session", "status-left", "session"),
    ("session", "@greeting", "session"),
    ("session", "@everywhere", "session"),
    ("other", "@everywhere", "session"),
    ("session", "status-format", "session"),
    ("other", "status-format", "session"),
    ("session", "mouse", "session"),
    ("window", "main-pane-width", "window"),
    ("window", "mode-keys", "window"),
    ("window", "@window-note", "window"),
    ("first", "remain-on-exit", "window"),
    ("second", "remain-on-exit", "window"),
    ("first", "@pane-note", "window"),
    ("second", "main-pane-width", "window"),
    ("second", "mode-keys", "window"),
]


@pytest.mark.parametrize(("name", "option", "global_table"), READS)
async def test_option_at_a_target_matches_libtmux(
    client: Client,  # type: ignore[type-arg]
    configured: dict[str, Target],
    name: str,
    option: str,
    global_table: str,
) -> None:
    target = configured[name]
    want = expected_option(target, option, global_table)
    if isinstance(target, libtmux.Server):
        got = await call(client, "show_option", option=option)
    else:
        ident = {
            libtmux.Session: "session_id",
            libtmux.Window: "window_id",
            libtmux.Pane: "pane_id",
        }[type(target)]
        got = await call(client, "show_option", option=option, target=getattr(target, ident))
    assert got == want


@pytest.mark.parametrize(
    ("option", "table"),
    [("history-limit", "session"), ("mode-keys", "window"), ("@everywhere", "session")],
)
async def test_global_option_matches_libtmux(
    client: Client,  # type: ignore[type-arg]
    configured: dict[str, Target],
    option: str,
    table: str,
) -> None:
    holder = configured["session" if table == "session" else "window"]
    value = holder.show_option(option, global_=True)
    got = await call(client, "show_option", option=option)
    assert got == {
        "option": option,
        "value": as_tmux_text(value),
        "scope": table,
        "inherited": False,
    }


def _as_gridmux(environment: dict[str, bool | str]) -> dict[str, str | None]:
    """libtmux's show_environment (``-NAME: True`` for a removed one) as gridmux answers it."""
    shown: dict[str, str | None] = {}
    for name, value in environment.items():
        if name.startswith("-"):
            assert value is True, (name, value)
            shown[name[1:]] = None
        else:
            assert isinstance(value, str), (name, value)
            shown[name] = value
    return shown


async def test_environment_matches_libtmux(
    client: Client,  # type: ignore[type-arg]
    server: libtmux.Server,
    session: libtmux.Session,
) -> None:
    session.set_environment("SPACED", "bar baz ✓ 日本")
    session.set_environment("EQUALS", "a=b=c")
    session.remove_environment("REMOVED")
    server.set_environment("GRIDMUX_GLOBAL", "global value")
    server.remove_environment("GLOBAL_REMOVED")

    mine = _as_gridmux(session.show_environment())
    assert {"SPACED": "bar baz ✓ 日本", "EQUALS": "a=b=c", "REMOVED": None}.items() <= mine.items()
    got = await call(client, "show_environment", session_id=session.session_id)
    assert got == {"variables": mine}

    everywhere = _as_gridmux(server.show_environment())  # the test process's, and these:
    assert everywhere["GRIDMUX_GLOBAL"] == "global value"
    assert everywhere["GLOBAL_REMOVED"] is None
    assert await call(client, "show_environment") == {"variables": everywhere}
