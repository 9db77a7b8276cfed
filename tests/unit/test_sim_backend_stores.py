"""SimBackend through the TmuxBackend protocol: options, hooks, environment and buffers."""

from __future__ import annotations

import pytest

from gridmux.backend import InvalidArgument
from tests.unit.test_sim_backend import REF, started
from tmuxsim import ManualClock, SimBackend


def test_show_options_global_lists_defaults_and_local_lists_only_what_was_set() -> None:
    backend, pane = started()
    assert backend.show_options(REF, scope="session", global_=True)["history-limit"] == "2000"
    assert backend.show_options(REF, scope="server")["exit-empty"] == "on"
    assert backend.show_options(REF, scope="window", global_=True)["remain-on-exit"] == "off"
    assert backend.show_options(REF, scope="session", target="$0") == {}
    backend.set_option(REF, "history-limit", "50", scope="session", target="$0")
    backend.set_option(REF, "@mine", "x y", scope="pane", target=pane)
    backend.set_option(REF, "synchronize-panes", "yes", scope="pane", target=pane)
    assert backend.show_options(REF, scope="session", target="$0") == {"history-limit": "50"}
    assert backend.show_options(REF, scope="pane", target=pane) == {
        "@mine": "x y",
        "synchronize-panes": "on",
    }


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("no-such-option", "1", "unknown option: no-such-option"),
        ("history-limit", "lots", "value is invalid"),
        ("history-limit", "-1", "too small"),
        ("mouse", "maybe", "bad value"),
        ("mode-keys", "ed", "unknown value"),
        ("mouse[1]", "on", "not an array"),
    ],
)
def test_bad_options_are_invalid(name: str, value: str, message: str) -> None:
    backend, _ = started()
    with pytest.raises(InvalidArgument, match=message):
        backend.set_option(REF, name, value, scope="session", global_=True)


def test_hooks_set_through_set_option_and_listed_by_show_hooks() -> None:
    backend, _ = started()
    backend.set_option(REF, "after-new-window", "display x", scope="session", target="$0")
    backend.set_option(REF, "after-new-window[3]", "display y", scope="session", target="$0")
    hooks = backend.show_hooks(REF, scope="session", target="$0")
    assert [(h.hook_name, h.index, h.command) for h in hooks] == [
        ("after-new-window", 0, "display x"),
        ("after-new-window", 3, "display y"),
    ]
    everything = backend.show_hooks(REF, scope="session", global_=True)
    assert any(h.hook_name == "session-created" and h.index is None for h in everything)
    assert not any(h.hook_name == "pane-died" for h in everything)  # a pane hook
    sim = backend.server(REF)
    sim.config.set_hook("pane-died", "run true", scope="pane", target="%0")
    sim.config.set_hook("pane-died", "run false", scope="pane", target="%0", append=True)
    panes = backend.show_hooks(REF, scope="pane", target="%0")
    assert [(h.index, h.command) for h in panes] == [(0, "run true"), (1, "run false")]
    with pytest.raises(InvalidArgument, match="unknown hook"):
        sim.config.set_hook("after-nothing", "x")


def test_environment_global_session_and_removal_marks() -> None:
    backend, _ = started(environment={"FROM_NEW": "1"})
    backend.set_environment(REF, "GLOBAL", "g")
    backend.set_environment(REF, "LOCAL", "l", session_id="$0")
    backend.server(REF).config.unset_environment("HOME", session_id="$0", remove=True)
    assert backend.show_environment(REF)["GLOBAL"] == "g"
    assert backend.show_environment(REF, "$0") == {"FROM_NEW": "1", "HOME": None, "LOCAL": "l"}
    pane = backend.split_window(REF, "%0", command="cat").pane_id
    env = backend.server(REF).pane(pane).environment
    assert env["GLOBAL"] == "g" and env["LOCAL"] == "l" and "HOME" not in env
    with pytest.raises(InvalidArgument):
        backend.set_environment(REF, "A=B", "x")


def test_buffers_named_automatic_listed_newest_first() -> None:
    clock = ManualClock(10.0)
    backend = SimBackend(clock=clock)
    backend.new_session(REF, command="cat")
    backend.load_buffer(REF, "first", "héllo")
    clock.advance(5)
    backend.server(REF).controls.set_buffer("auto")
    listed = backend.list_buffers(REF)
    assert [(b.name, b.size, b.created) for b in listed] == [
        ("buffer0000", 4, 15),
        ("first", 6, 10),
    ]
    assert backend.show_buffer(REF, "first") == "héllo"
    backend.delete_buffer(REF, "first")
    assert [b.name for b in backend.list_buffers(REF)] == ["buffer0000"]
    with pytest.raises(InvalidArgument):
        backend.load_buffer(REF, "", "x")


def test_buffer_limit_drops_the_oldest_automatic_buffers() -> None:
    backend, _ = started()
    backend.set_option(REF, "buffer-limit", "2", scope="server")
    backend.load_buffer(REF, "named", "kept")
    for text in ("a", "b", "c"):
        backend.server(REF).controls.set_buffer(text)
    assert [b.name for b in backend.list_buffers(REF)] == ["buffer0002", "buffer0001", "named"]


def test_unknown_option_scope_target_mismatch_goes_where_tmux_puts_it() -> None:
    backend, pane = started()
    # A session option with a pane target lands on the pane's session (options.c).
    backend.set_option(REF, "history-limit", "77", scope="pane", target=pane)
    assert backend.show_options(REF, scope="session", target="$0") == {"history-limit": "77"}
