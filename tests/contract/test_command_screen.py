"""What run_command leaves in the pane (issue 14): the prompt, the command as a
person would have typed it and its output -- nothing of gridmux's own line,
on the screen or in the history, also after a run that timed out."""

from __future__ import annotations

import os
from typing import Any

from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.tools._run_script import SCRIPTS
from tests.contract.conftest import PROMPT, Eventually
from tests.contract.pane_views import written_rows
from tests.contract.test_commands import new_pane, run

WIDTH = 40
#: Text of gridmux's own line, none of which may stay in the pane.
GRIDMUX_TEXT = ("gridmux", "wait-for", "set-option", "eval", ". '/")


def wrapped(text: str) -> list[str]:
    """The rows ``text`` takes in the pane."""
    return [text[i : i + WIDTH] for i in range(0, len(text), WIDTH)] or [""]


async def capture(client: Client, pane: str) -> list[str]:  # type: ignore[type-arg]
    """capture_pane of every retained row (history included)."""
    result: Any = await client.call_tool(
        "capture_pane", {"pane_id": pane, "start": -1000, "max_lines": 2000}
    )
    return str(result.content[0].text).splitlines()


async def test_twenty_runs_leave_only_prompts_commands_and_output(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    eventually: Eventually,
) -> None:
    pane = new_pane(backend, ref, width=WIDTH, height=10)
    runs: list[tuple[str, int, list[str]]] = [
        ("echo one", 0, ["one"]),
        ("true", 0, []),  # no output
        ("false", 1, []),  # fails
        ("seq 1 12", 0, [str(i) for i in range(1, 13)]),  # scrolls the screen
        ("echo " + "x" * 70, 0, ["x" * 70]),  # typed over two rows, output over two
        ("printf 'a\\nb\\n'", 0, ["a", "b"]),
        ("cd /; X=kept", 0, []),
        ("echo $X; pwd", 0, ["kept", "/"]),
    ]
    runs += [(f"echo run {i}", 0, [f"run {i}"]) for i in range(len(runs) + 1, 20)]
    assert len(runs) == 19  # and one more that times out
    expected: list[str] = []
    for number, (command, status, output) in enumerate(runs, start=1):
        if number == 10:
            # Held until the test lets it go (not for a while: a loaded machine
            # may take that long to print "slow"). Spelt so that no row shows
            # 'wait-for', which would be gridmux's own line.
            slow = 'echo slow; tmux wait"-for" gmx-late; echo late'
            out = await run(client, pane, slow, timeout=10.0)
            assert (out["timed_out"], out["output"]) == (True, ["slow"])
            backend.signal_channel(ref, "gmx-late")
            expected += [*wrapped(PROMPT + slow), "slow", "late"]
            await eventually(
                lambda: written_rows(backend, ref, pane)[-2:] == ["late", PROMPT.rstrip()],
                what="the timed-out command finished and its prompt drawn",
            )
        out = await run(client, pane, command)
        assert (out["exit_status"], out["output"], out["lines_missed"]) == (status, output, False)
        expected += wrapped(PROMPT + command)
        for line in output:
            expected += wrapped(line)
    expected.append(PROMPT.rstrip())
    await eventually(
        lambda: written_rows(backend, ref, pane)[-1:] == [PROMPT.rstrip()], what="the last prompt"
    )
    rows = await capture(client, pane)
    private = os.path.dirname(SCRIPTS.path_for("0"))
    for row in rows:
        assert not any(text in row for text in (*GRIDMUX_TEXT, private)), row
    assert rows == expected
