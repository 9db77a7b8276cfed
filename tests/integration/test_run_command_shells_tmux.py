"""run_command on a real tmux server: concurrent callers from two gridmux
servers (each with its own backend, as two processes would be), nested
shells and the shells run_command supports."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import libtmux
import pytest
from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef
from gridmux.backend._command_backend import TmuxCommandBackend
from gridmux.tools._shells import CLAIM_OPTION
from tests.contract.pane_views import written_rows
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitUntil, control_mode

pytestmark = pytest.mark.tmux


async def test_a_second_gridmux_is_refused_while_the_first_runs(
    tmux_bin: str,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    tmux: RawTmux,
    pane: str,
) -> None:
    # Issue 16.7: the busy check was per process (and racy), so a second caller
    # typed into the pane and both got each other's output.
    other = TmuxCommandBackend(tmux_bin, control_mode=control_mode())
    settings = Settings(socket_path=tmux_server.socket_path, safety="destructive")
    first: dict[str, Any] = {}
    # The first command runs until the test lets it go, not for a while: the
    # second call is refused however long it takes to get there.
    command = "echo started; tmux wait-for gmx-first; echo first"
    try:
        async with Client(create_server(other, settings)) as second:

            async def run_first() -> None:
                first.update(await call(client, "run_command", command=command, pane_id=pane))

            async with anyio.create_task_group() as group:
                group.start_soon(run_first)
                with anyio.fail_after(15):  # the first command runs
                    while "started" not in written_rows(backend, tmux_server, pane):
                        await anyio.sleep(0.01)
                error = await call_error(second, "run_command", command="echo second", pane_id=pane)
                tmux("wait-for", "-S", "gmx-first")
            assert "already running a command from run_command" in error
            assert (first["exit_status"], first["output"]) == (0, ["started", "first"])
            after = await call(second, "run_command", command="echo second", pane_id=pane)
            assert after["output"] == ["second"]
    finally:
        other.close()
    assert CLAIM_OPTION not in backend.show_options(tmux_server, scope="pane", target=pane)


async def test_concurrent_calls_on_one_pane_never_mix_output(
    client: Client,  # type: ignore[type-arg]
    pane: str,
) -> None:
    # Six at once from one client: each either runs alone (its own line, exactly)
    # or is refused as busy; none returns another's output.
    outputs: dict[int, list[str]] = {}
    refusals: dict[int, str] = {}

    async def one(i: int) -> None:
        answer = await client.call_tool(
            "run_command", {"command": f"echo out-{i}", "pane_id": pane}, raise_on_error=False
        )
        if answer.is_error:
            refusals[i] = str(answer.content[0])
        else:
            assert answer.structured_content is not None
            outputs[i] = answer.structured_content["output"]

    async with anyio.create_task_group() as group:
        for i in range(6):
            group.start_soon(one, i)
    assert outputs, refusals
    assert all(lines == [f"out-{i}"] for i, lines in outputs.items()), outputs
    assert all("already running a command" in text for text in refusals.values()), refusals


async def test_a_nested_shell_needs_nested_shell(
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
    pane: str,
) -> None:
    backend.send_keys(tmux_server, pane, "PS1='nested$ ' sh", enter=True)
    wait_until(
        lambda: backend.snapshot(tmux_server, pane).rows[1] == "nested$",
        what="the nested shell's prompt",
    )
    error = await call_error(client, "run_command", command="echo x", pane_id=pane)
    assert "started from the pane's own shell" in error and "nested_shell" in error
    out = await call(
        client, "run_command", command="echo in-nested", pane_id=pane, nested_shell=True
    )
    assert (out["exit_status"], out["output"]) == (0, ["in-nested"])


def start_shell(shell: str, server: libtmux.Server, home: Path) -> str:
    """A pane running ``shell`` interactively with no system startup files,
    prompting ``$ `` (zsh takes its prompt from a private ``.zshrc``)."""
    path = shutil.which(shell)
    assert path is not None, f"{shell} is part of the test machine's setup (./run installs it)"
    (home / ".zshrc").write_text("PS1='$ '\nunsetopt PROMPT_SP\nsetopt HIST_IGNORE_SPACE\n")
    command = {
        "bash": f"{path} --norc --noprofile -i",
        "zsh": f"{path} -d -i",
        "fish": f"{path} --no-config -i",
    }.get(shell, f"{path} -i")
    session = server.new_session(
        shell,
        x=80,
        y=24,
        environment={
            "PS1": "$ ",
            "HISTFILE": "/dev/null",
            "HISTCONTROL": "ignorespace",
            "ZDOTDIR": str(home),
        },
        window_command=command,
    )
    pane = session.active_pane
    assert pane is not None and pane.pane_id is not None
    return pane.pane_id


def foreground(backend: TmuxCommandBackend, ref: ServerRef, pane_id: str) -> str:
    return next(p.current_command for p in backend.list_panes(ref) if p.pane_id == pane_id)


POSIX = ["bash", "dash", "zsh"]


@pytest.fixture
def shell(
    request: pytest.FixtureRequest,
    server: libtmux.Server,
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
    tmp_path: Path,
) -> tuple[str, str]:
    """The shell named by the test's parameter, at its first prompt: (name, pane id)."""
    name = str(request.param)
    pane_id = start_shell(name, server, tmp_path)
    wait_until(
        lambda: written_rows(backend, tmux_server, pane_id) == ["$"], what=f"{name}'s prompt"
    )
    return name, pane_id


@pytest.mark.parametrize("shell", POSIX, indirect=True)
async def test_supported_shells(
    shell: tuple[str, str],
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    name, pane_id = shell
    ok = await call(client, "run_command", command="cd /; echo a; echo b", pane_id=pane_id)
    assert (ok["exit_status"], ok["output"]) == (0, ["a", "b"])
    failed = await call(client, "run_command", command="pwd; (exit 3)", pane_id=pane_id)
    assert (failed["exit_status"], failed["output"]) == (3, ["/"])
    quiet = await call(client, "run_command", command="true", pane_id=pane_id)
    assert (quiet["exit_status"], quiet["output"]) == (0, [])
    # The pane shows what a person would have typed, and the output: no gridmux line.
    expected = ["$ cd /; echo a; echo b", "a", "b", "$ pwd; (exit 3)", "/", "$ true", "$"]
    wait_until(
        lambda: [r for r in backend.snapshot(tmux_server, pane_id).rows if r] == expected,
        what=f"only the commands and their output in {name}'s pane",
    )


@pytest.mark.parametrize("shell", ["bash", "zsh"], indirect=True)
async def test_history_holds_the_command_never_gridmux_line(
    shell: tuple[str, str],
    client: Client,  # type: ignore[type-arg]
) -> None:
    _, pane_id = shell
    await call(client, "run_command", command="echo kept", pane_id=pane_id, suppress_history=False)
    await call(client, "run_command", command="echo skipped", pane_id=pane_id)
    listed = await call(client, "run_command", command="fc -l -10", pane_id=pane_id)
    entries = [line.split(None, 1)[1].strip() for line in listed["output"]]
    assert entries == ["echo kept"]


@pytest.mark.parametrize("shell", POSIX, indirect=True)
async def test_refusals_in_each_shell_type_nothing(
    shell: tuple[str, str],
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    name, pane_id = shell

    def screen() -> list[str]:
        return written_rows(backend, tmux_server, pane_id)

    cases: list[tuple[str, bool, Callable[[], bool], str]] = [
        (
            "cat",
            True,
            lambda: foreground(backend, tmux_server, pane_id) == "cat",
            "running 'cat' in the foreground",
        ),
        # an open quote: PS2 ('> ', zsh's 'quote> ')
        ("echo 'open", True, lambda: screen()[-1].endswith(">"), "continuation prompt"),
        # a password prompt, as sudo shows one (echo off, a program in the foreground)
        (
            f"{sys.executable} -c \"import getpass; getpass.getpass('[sudo] password: ')\"",
            True,
            lambda: screen()[-1] == "[sudo] password:",
            "in the foreground",
        ),
        # text typed at the prompt without Enter
        ("echo half", False, lambda: screen()[-1] == "$ echo half", "partly typed line"),
    ]
    for typed, enter, ready, message in cases:
        backend.send_keys(tmux_server, pane_id, typed, literal=True, enter=enter)
        wait_until(ready, what=f"{typed!r} pending in {name}")
        before = screen()
        error = await call_error(client, "run_command", command="echo typed", pane_id=pane_id)
        assert message in error and "nothing was typed" in error
        assert screen() == before
        backend.send_keys(tmux_server, pane_id, "C-c")
        wait_until(
            lambda: screen()[-1] == "$" and foreground(backend, tmux_server, pane_id) == name,
            what=f"{name} back at its prompt",
        )
    # copy mode: typed keys would drive the mode, not the shell
    backend.copy_mode(tmux_server, pane_id, enter=True)
    before = screen()
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane_id)
    assert "copy-mode" in error and "exit_copy_mode" in error
    backend.copy_mode(tmux_server, pane_id, enter=False)
    assert screen() == before
    out = await call(client, "run_command", command="echo fine", pane_id=pane_id)
    assert (out["exit_status"], out["output"]) == (0, ["fine"])
    # a full-screen program: the alternate screen, as vim or less show one
    backend.send_keys(tmux_server, pane_id, "printf '\\033[?1049h'; cat", literal=True, enter=True)
    wait_until(
        lambda: (
            backend.pane_state(tmux_server, pane_id).alternate_on
            and foreground(backend, tmux_server, pane_id) == "cat"
        ),
        what=f"a full-screen program in {name}",
    )
    before = screen()
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane_id)
    assert "full-screen program" in error
    assert screen() == before


def cursor_x(backend: TmuxCommandBackend, ref: ServerRef, pane_id: str) -> int:
    return backend.pane_state(ref, pane_id).cursor_x


@pytest.mark.parametrize("shell", ["bash", "zsh"], indirect=True)
async def test_text_right_of_the_cursor_is_refused(
    shell: tuple[str, str],
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    """The cursor moved back to the start of a typed line (C-a): text right of it."""
    name, pane_id = shell
    backend.send_keys(tmux_server, pane_id, "echo half", literal=True)
    backend.send_keys(tmux_server, pane_id, "C-a")
    # The prompt's own cursor column is 2 too: wait for the echo as well.
    wait_until(
        lambda: (
            written_rows(backend, tmux_server, pane_id) == ["$ echo half"]
            and cursor_x(backend, tmux_server, pane_id) == 2
        ),
        what="the typed text, the cursor moved back",
    )
    before = written_rows(backend, tmux_server, pane_id)
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane_id)
    assert "right of the cursor" in error and "'echo half'" in error
    assert written_rows(backend, tmux_server, pane_id) == before
    backend.send_keys(tmux_server, pane_id, "C-k")
    wait_until(
        lambda: written_rows(backend, tmux_server, pane_id) == ["$"], what=f"{name}'s empty line"
    )
    out = await call(client, "run_command", command="echo fine", pane_id=pane_id)
    assert (out["exit_status"], out["output"]) == (0, ["fine"])


@pytest.mark.parametrize("shell", ["zsh"], indirect=True)
async def test_a_zsh_right_prompt_is_a_prompt(
    shell: tuple[str, str],
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
) -> None:
    _, pane_id = shell
    await call(client, "run_command", command="RPROMPT='[right]'", pane_id=pane_id)
    wait_until(
        lambda: written_rows(backend, tmux_server, pane_id)[-1].endswith("[right]"),
        what="the right prompt",
    )
    out = await call(client, "run_command", command="echo beside", pane_id=pane_id)
    assert (out["exit_status"], out["output"]) == (0, ["beside"])
    wait_until(
        lambda: written_rows(backend, tmux_server, pane_id)[-1].endswith("[right]"),
        what="the right prompt again",
    )
    backend.send_keys(tmux_server, pane_id, "echo half", literal=True)
    wait_until(
        lambda: written_rows(backend, tmux_server, pane_id)[-1].startswith("$ echo half "),
        what="typed text beside the right prompt",
    )
    error = await call_error(client, "run_command", command="echo typed", pane_id=pane_id)
    assert "partly typed line" in error


@pytest.mark.parametrize("nested", [False, True])
async def test_fish_is_refused_and_nothing_typed(
    nested: bool,
    server: libtmux.Server,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxCommandBackend,
    tmux_server: ServerRef,
    wait_until: WaitUntil,
    tmp_path: Path,
) -> None:
    # fish is not a POSIX shell: run_command refuses it, as the pane's own
    # shell and as a shell started in another one (nested_shell does not help).
    pane_id = start_shell("fish", server, tmp_path)
    wait_until(
        lambda: (
            foreground(backend, tmux_server, pane_id) == "fish"
            and any(backend.snapshot(tmux_server, pane_id).rows)
        ),
        what="fish at its prompt",
    )
    before = backend.snapshot(tmux_server, pane_id, start="-").rows
    error = await call_error(
        client, "run_command", command="echo x", pane_id=pane_id, nested_shell=nested
    )
    assert "runs fish, which run_command does not support" in error
    assert "send_keys" in error  # what to do instead
    assert backend.snapshot(tmux_server, pane_id, start="-").rows == before
    assert CLAIM_OPTION not in backend.show_options(tmux_server, scope="pane", target=pane_id)
