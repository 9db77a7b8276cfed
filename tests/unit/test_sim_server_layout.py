"""SimServer geometry: splits, kills, resizes, layouts, zoom, swap and move."""

from __future__ import annotations

import pytest

from gridmux.backend import InvalidArgument, TmuxFailure
from tmuxsim import IdleProgram, PaneIO, Program, SimServer


def quiet() -> SimServer:
    def factory(io: PaneIO, command: str | None) -> Program:
        return IdleProgram(io, name=command or "sh")

    server = SimServer("3.3a", program_factory=factory)
    server.new_session(width=80, height=24)
    return server


def geometry(server: SimServer, pane_id: str) -> tuple[int, int, int, int]:
    return server.pane(pane_id).geometry()


def test_split_below_gives_the_new_pane_the_smaller_half() -> None:
    server = quiet()
    new = server.split_window("%0", direction="below")
    # layout_split_pane: new = (24 + 1) / 2 - 1 = 11 rows, old = 24 - 1 - 11 = 12.
    assert geometry(server, "%0") == (0, 0, 80, 12)
    assert geometry(server, "%1") == (0, 13, 80, 11)
    assert (new.terminal.width, new.terminal.height) == (80, 11)
    assert server.pane("%0").terminal.height == 12


def test_split_right_and_left() -> None:
    server = quiet()
    server.split_window("%0", direction="right")
    assert geometry(server, "%0") == (0, 0, 40, 24)
    assert geometry(server, "%1") == (41, 0, 39, 24)
    server.split_window("%0", direction="left")
    # -b: the new pane comes first and takes the bigger part of %0's 40 columns.
    assert geometry(server, "%2") == (0, 0, 20, 24)
    assert geometry(server, "%0") == (21, 0, 19, 24)
    assert [p.pane_id for p in server.window("@0").panes] == ["%2", "%0", "%1"]


def test_split_keeps_the_active_pane_and_indexes_follow_list_order() -> None:
    server = quiet()
    server.split_window("%0", direction="above")
    window = server.window("@0")
    assert window.active is server.pane("%0")  # split-window -d, as the real backend
    assert [(p.pane_id, p.index) for p in window.panes] == [("%1", 0), ("%0", 1)]


@pytest.mark.parametrize(("size", "rows"), [("5", 5), ("25%", 6), ("0", 1), ("40", 22)])
def test_split_size_in_cells_or_percent_is_clamped(size: str, rows: int) -> None:
    server = quiet()
    new = server.split_window("%0", size=size)
    assert new.geometry()[3] == rows


@pytest.mark.parametrize("size", ["abc", "-3", "120%", ""])
def test_bad_split_size_is_invalid(size: str) -> None:
    with pytest.raises(InvalidArgument, match="invalid size"):
        quiet().split_window("%0", size=size)


def test_split_fails_when_there_is_no_room() -> None:
    server = quiet()
    server.controls.resize_window("@0", height=2)
    with pytest.raises(TmuxFailure, match="pane too small"):
        server.split_window("%0")
    assert len(server.window("@0").panes) == 1
    assert server.split_window("%0", direction="right").pane_id == "%1"  # no id was used up


def test_pane_edges_and_at_flags() -> None:
    server = quiet()
    server.split_window("%0", direction="right")
    server.split_window("%1", direction="below")
    left, top, width, height = geometry(server, "%2")
    assert (left, top, left + width - 1, top + height - 1) == (41, 13, 79, 23)
    assert (
        server.window("@0")
        .layout.dump()
        .endswith("80x24,0,0{40x24,0,0,0,39x24,41,0[39x12,41,0,1,39x11,41,13,2]}")
    )


def test_layout_string_checksum_matches_tmux() -> None:
    # The example from tmux(1) for select-layout.
    server = quiet()
    server.split_window("%0", direction="right")
    server.controls.resize_window("@0", width=159, height=48)
    server.controls.select_layout("@0", "bb62,159x48,0,0{79x48,0,0,79x48,80,0}")
    assert geometry(server, "%0") == (0, 0, 79, 48)
    assert geometry(server, "%1") == (80, 0, 79, 48)
    assert server.window("@0").layout.dump() == "d463,159x48,0,0{79x48,0,0,0,79x48,80,0,1}"


@pytest.mark.parametrize(
    "layout", ["nonsense", "0000,80x24,0,0,0", "bb62,159x48,0,0{79x48,0,0,79x48,80,0}"]
)
def test_bad_layouts_are_invalid(layout: str) -> None:
    server = quiet()  # one pane: the last layout has two cells
    with pytest.raises(InvalidArgument):
        server.controls.select_layout("@0", layout)


def test_named_layouts_spread_the_panes() -> None:
    server = quiet()
    server.split_window("%0")
    server.split_window("%1")
    server.controls.select_layout("@0", "even-horizontal")
    widths = [geometry(server, f"%{n}")[2] for n in range(3)]
    assert widths == [26, 26, 26]
    server.controls.select_layout("@0", "even-vertical")
    assert [geometry(server, f"%{n}")[3] for n in range(3)] == [7, 7, 8]
    server.controls.select_layout("@0", "main-vertical")
    assert geometry(server, "%0")[2] == 78  # main-pane-width 80, leaving one column
    server.controls.select_layout("@0", "tiled")
    # Two columns of 39 (the last takes the spare column), the lone last row spans.
    assert geometry(server, "%0") == (0, 0, 39, 11)
    assert geometry(server, "%1") == (40, 0, 40, 11)
    assert geometry(server, "%2") == (0, 12, 80, 12)
    server.controls.select_layout("@0", "main-horizontal")
    assert geometry(server, "%0") == (0, 0, 80, 22)


def test_killing_a_pane_gives_its_space_to_a_neighbour() -> None:
    server = quiet()
    server.split_window("%0")
    server.split_window("%1")
    assert geometry(server, "%1") == (0, 13, 80, 5)
    server.controls.kill_pane("%1")
    # layout_destroy_cell: the previous sibling (the next one for a first cell) grows.
    assert geometry(server, "%0") == (0, 0, 80, 18)
    assert geometry(server, "%2") == (0, 19, 80, 5)
    server.controls.kill_pane("%0")
    assert geometry(server, "%2") == (0, 0, 80, 24)
    assert server.pane("%2").terminal.height == 24


def test_killing_the_active_pane_activates_the_last_active_one() -> None:
    server = quiet()
    server.split_window("%0")
    server.split_window("%1")
    server.controls.select_pane("%0")
    server.controls.select_pane("%2")
    server.controls.kill_pane("%2")
    assert server.window("@0").active is server.pane("%0")


def test_resize_window_resizes_every_pane() -> None:
    server = quiet()
    server.split_window("%0", direction="right")
    server.controls.resize_window("@0", width=100, height=30)
    assert geometry(server, "%0")[2] + geometry(server, "%1")[2] + 1 == 100
    assert server.pane("%1").terminal.height == 30


def test_resize_pane_moves_the_border_with_its_neighbour() -> None:
    server = quiet()
    server.split_window("%0", direction="right")
    server.controls.resize_pane("%0", width=60)
    assert geometry(server, "%0")[2] == 60
    assert geometry(server, "%1") == (61, 0, 19, 24)
    server.controls.resize_pane("%1", width=30)
    assert geometry(server, "%1")[2] == 30
    assert server.pane("%0").terminal.width == 49


def test_resize_of_a_lone_pane_changes_nothing() -> None:
    server = quiet()
    server.controls.resize_pane("%0", width=10, height=5)
    assert geometry(server, "%0") == (0, 0, 80, 24)


@pytest.mark.parametrize(("width", "height"), [(0, None), (None, -2), (70000, None)])
def test_bad_resize_values_are_invalid(width: int | None, height: int | None) -> None:
    server = quiet()
    with pytest.raises(InvalidArgument):
        server.controls.resize_pane("%0", width=width, height=height)
    with pytest.raises(InvalidArgument):
        server.controls.resize_window("@0", width=width, height=height)


def test_zoom_covers_the_window_and_splitting_unzooms() -> None:
    server = quiet()
    server.split_window("%0")
    server.controls.resize_pane("%0", zoom=True)
    window = server.window("@0")
    assert window.zoomed is server.pane("%0") and window.active is server.pane("%0")
    assert server.pane("%0").terminal.height == 24
    server.split_window("%1")
    assert server.window("@0").zoomed is None
    assert server.pane("%0").terminal.height == 12


def test_zooming_a_lone_pane_does_nothing() -> None:
    server = quiet()
    server.controls.resize_pane("%0", zoom=True)
    assert server.window("@0").zoomed is None


def test_swap_pane_in_one_window_exchanges_places_and_sizes() -> None:
    server = quiet()
    server.split_window("%0")
    server.controls.swap_pane("%0", "%1")
    window = server.window("@0")
    assert [p.pane_id for p in window.panes] == ["%1", "%0"]
    assert geometry(server, "%1") == (0, 0, 80, 12)
    assert server.pane("%0").terminal.height == 11
    assert window.active is server.pane("%1")


def test_swap_pane_across_windows_moves_options_and_activity() -> None:
    server = quiet()
    other = server.new_window("$0")
    server.config.set_option("remain-on-exit", "on", scope="window", target="@0")
    server.controls.swap_pane("%0", "%1")
    assert server.pane("%1").window is server.window("@0")
    assert other.panes == [server.pane("%0")]
    assert server.pane("%1").option("remain-on-exit") == "on"
    assert server.pane("%0").option("remain-on-exit") == "off"


def test_move_window_to_another_session_and_index() -> None:
    server = quiet()
    server.new_window("$0")
    target = server.new_session(name="dest")
    server.controls.move_window("@1", destination_session_id=target.session_id)
    assert sorted(target.windows) == [0, 1]
    assert target.current is server.window("@1")
    server.controls.move_window("@1", destination_index=5)
    assert sorted(target.windows) == [0, 5]


def test_move_window_refuses_an_index_in_use_and_closes_an_emptied_session() -> None:
    server = quiet()
    target = server.new_session(name="dest")
    with pytest.raises(TmuxFailure, match="index in use: 0"):
        server.controls.move_window("@0", destination_session_id="$1", destination_index=0)
    server.controls.move_window("@0", destination_session_id="$1")
    assert "$0" not in {s.session_id for s in server.ordered_sessions()}
    assert len(target.windows) == 2


def test_killing_the_current_window_selects_the_last_one() -> None:
    server = quiet()
    server.new_window("$0", select=True)
    server.new_window("$0", select=True)
    session = server.session("$0")
    server.controls.select_window("@0")
    server.controls.kill_window("@0")
    assert session.current is server.window("@2")


def test_renumber_windows_closes_gaps() -> None:
    server = quiet()
    server.new_window("$0")
    server.new_window("$0")
    server.config.set_option("renumber-windows", "on", scope="session", target="$0")
    server.controls.kill_window("@1")
    assert [w.index for w in server.session("$0").ordered_windows()] == [0, 1]
