"""run_command's guard and claim, on both backends: a pane that is not a shell
at its prompt, or that another run_command (of any gridmux process) holds, is
refused and nothing is typed; a shell whose gridmux died is not wedged."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.tools._command_line import HOLD_LIMIT, typed_line
from gridmux.tools._shells import CLAIM_OPTION
from tests.contract.conftest import Eventually, Side
from tests.contract.pane_views import wait_for_prompt
from tests.contract.test_commands import new_pane, run
from tests.mcp_calls import call_error


def screen(backend: TmuxBackend, ref: ServerRef, pane: str) -> list[str]:
    return list(backend.snapshot(ref, pane, start="-").rows)


async def refused_untouched(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    ref: ServerRef,
    pane: str,
    **args: object,
) -> str:
    """run_command's error, after checking it typed nothing into the pane."""
    before = screen(backend, ref, pane)
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane, **args)
    assert "nothing was typed" in error or "full-screen" in error or "copy" in error
    assert screen(backend, ref, pane) == before
    assert CLAIM_OPTION not in backend.show_options(ref, scope="pane", target=pane)
    return error


async def test_a_program_in_the_foreground_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    pane = new_pane(backend, ref)
    backend.send_keys(ref, pane, "cat", enter=True)
    await eventually(
        lambda: backend.list_panes(ref)[0].current_command == "cat", what="cat running"
    )
    error = await refused_untouched(client, backend, ref, pane)
    assert "running 'cat' in the foreground" in error
    assert "C-c" in error


async def test_a_continuation_prompt_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    pane = new_pane(backend, ref)
    backend.send_keys(ref, pane, "echo 'open", enter=True)

    def at_ps2() -> bool:
        state = backend.pane_state(ref, pane)
        return screen(backend, ref, pane)[state.history_size + state.cursor_y] == ">"

    await eventually(at_ps2, what="the continuation prompt")
    error = await refused_untouched(client, backend, ref, pane)
    assert "continuation prompt" in error


async def test_the_alternate_screen_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    pane = new_pane(backend, ref)
    backend.send_keys(ref, pane, r"printf '\033[?1049h'; cat", enter=True)
    await eventually(lambda: backend.pane_state(ref, pane).alternate_on, what="alternate screen")
    error = await refused_untouched(client, backend, ref, pane)
    assert "full-screen program" in error


async def test_a_claim_of_another_live_process_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    # What a second gridmux process on this tmux server sees while the first
    # one's run_command is in progress: its claim, with its (live) pid.
    pane = new_pane(backend, ref)
    other = f"{os.getppid()}.feedfacecafe"
    backend.swap_pane_option(ref, pane, CLAIM_OPTION, "", other)
    before = screen(backend, ref, pane)
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane)
    assert "already running a command from run_command" in error
    assert screen(backend, ref, pane) == before
    assert backend.show_options(ref, scope="pane", target=pane)[CLAIM_OPTION] == other
    backend.swap_pane_option(ref, pane, CLAIM_OPTION, other, "")
    assert (await run(client, pane, "echo free"))["output"] == ["free"]


async def test_a_claim_left_by_a_dead_process_is_taken_over(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    pane = new_pane(backend, ref)
    backend.swap_pane_option(ref, pane, CLAIM_OPTION, "", f"{gone}.deadbeef")
    out = await run(client, pane, "echo mine")
    assert (out["exit_status"], out["output"]) == (0, ["mine"])
    assert CLAIM_OPTION not in backend.show_options(ref, scope="pane", target=pane)


async def test_swap_pane_option_is_a_compare_and_set(
    ref: ServerRef,
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    assert backend.swap_pane_option(ref, pane, "@lock", "", "a.1") == "a.1"
    assert backend.swap_pane_option(ref, pane, "@lock", "", "b.2") == "a.1"
    assert backend.swap_pane_option(ref, pane, "@lock", "b.2", "") == "a.1"
    assert backend.swap_pane_option(ref, pane, "@lock", "a.1", "") == ""
    assert "@lock" not in backend.show_options(ref, scope="pane", target=pane)


async def test_a_shell_held_by_a_gridmux_that_died_is_let_go(
    side: Side,
    ref: ServerRef,
    backend: TmuxBackend,
    eventually: Eventually,
    tmp_path: Path,
) -> None:
    # The line run_command types, typed as a gridmux that then died would have:
    # nobody waits for the command or acknowledges it. The shell must come back.
    pane = new_pane(backend, ref, width=200)
    script = tmp_path / "0123456789abcdef"
    line = typed_line(
        "echo ran",
        pane,
        "0123456789abcdef",
        suppress_history=True,
        script_path=str(script),
        cursor_x=2,
        width=200,
    )
    script.write_text(line.script)
    backend.send_keys(ref, pane, line.text, literal=True, enter=True)
    assert backend.wait_for(ref, line.done_channel, 10.0)  # the command is done
    options = backend.show_options(ref, scope="pane", target=pane)
    assert options.get(line.status_option) == "0"  # and the shell is held
    if side.sim:
        clock: Any = backend.clock  # type: ignore[attr-defined]
        clock.advance(HOLD_LIMIT)

    def let_go() -> bool:
        rows = [r for r in screen(backend, ref, pane) if r]
        held = line.status_option in backend.show_options(ref, scope="pane", target=pane)
        return not held and rows[-2:] == ["ran", "$"]

    await eventually(let_go, timeout=HOLD_LIMIT + 5.0, what="the shell back at its prompt")


async def test_a_pane_with_synchronize_panes_on_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    """tmux copies what a pane whose synchronize-panes is on (its own value, else its
    window's, else the global one) is sent into every other pane of its window that has
    it on: the line would reach whatever runs there (an editor, a password prompt)."""
    pane = new_pane(backend, ref)
    window = next(p.window_id for p in backend.list_panes(ref) if p.pane_id == pane)
    sibling = backend.split_window(ref, pane).pane_id
    wait_for_prompt(backend, ref, sibling)

    glob: dict[str, Any] = {"scope": "window", "global_": True}
    own: dict[str, Any] = {"scope": "window", "target": window}
    steps: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = [
        ("the global value", [("on", glob)]),
        ("the window's own value over the global one", [("off", glob), ("on", own)]),
        (
            "the pane's own value over its window's",
            [
                ("off", own),
                ("on", {"scope": "pane", "target": pane}),
                ("on", {"scope": "pane", "target": sibling}),
            ],
        ),
    ]
    for what, settings in steps:
        for value, where in settings:
            backend.set_option(ref, "synchronize-panes", value, **where)
        before = screen(backend, ref, sibling)
        error = await refused_untouched(client, backend, ref, pane)
        assert "synchronize-panes on" in error and "set_option" in error, what
        assert screen(backend, ref, sibling) == before, what
    # the pane's own off over its window's on: tmux copies nothing it is sent, even
    # to a sibling with synchronize-panes on, so the command runs there alone
    backend.set_option(ref, "synchronize-panes", "on", **own)
    backend.set_option(ref, "synchronize-panes", "off", scope="pane", target=pane)
    before = screen(backend, ref, sibling)
    assert (await run(client, pane, "echo fine"))["output"] == ["fine"]
    assert screen(backend, ref, sibling) == before


def cursor_row(backend: TmuxBackend, ref: ServerRef, pane: str) -> str:
    state = backend.pane_state(ref, pane)
    return screen(backend, ref, pane)[state.history_size + state.cursor_y]


async def test_a_partly_typed_line_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    """Text typed at the prompt without Enter (by a person, or send_keys): the
    typed line would be added to it and the shell would run something else."""
    pane = new_pane(backend, ref)
    assert (await run(client, pane, "echo first"))["output"] == ["first"]
    await eventually(lambda: cursor_row(backend, ref, pane) == "$", what="the prompt")
    backend.send_keys(ref, pane, "echo half", literal=True)
    await eventually(lambda: cursor_row(backend, ref, pane) == "$ echo half", what="the text")
    error = await refused_untouched(client, backend, ref, pane)
    assert "partly typed line" in error and "C-u" in error
    backend.send_keys(ref, pane, "C-u")
    await eventually(lambda: cursor_row(backend, ref, pane) == "$", what="a cleared line")
    assert (await run(client, pane, "echo whole"))["output"] == ["whole"]


async def test_an_unfamiliar_prompt_is_vouched_for_once(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    """A prompt that ends like none gridmux knows is refused until the caller
    vouches for it (prompt_only); a run proves it, and later runs need no vouching."""
    pane = new_pane(backend, ref)
    assert (await run(client, pane, "PS1='ready: '"))["exit_status"] == 0
    await eventually(lambda: cursor_row(backend, ref, pane) == "ready:", what="the new prompt")
    error = await refused_untouched(client, backend, ref, pane)
    assert "'ready:'" in error and "prompt_only=true" in error
    out = await run(client, pane, "echo vouched", prompt_only=True)
    assert (out["exit_status"], out["output"]) == (0, ["vouched"])
    for word in ("proven", "again"):
        assert (await run(client, pane, f"echo {word}"))["output"] == [word]
    await eventually(lambda: cursor_row(backend, ref, pane) == "ready:", what="the prompt")
    backend.send_keys(ref, pane, "ls", literal=True)  # typed after the proven prompt
    await eventually(lambda: cursor_row(backend, ref, pane) == "ready: ls", what="typed text")
    error = await refused_untouched(client, backend, ref, pane)
    assert "partly typed line" in error
