"""run_command and send_keys_batch through the MCP client, on both backends."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from fastmcp import Client

from gridmux import Settings, create_server
from gridmux.backend import ServerRef, TmuxBackend
from gridmux.safety import effective_hints
from gridmux.tools._run_script import SCRIPTS
from tests.contract.pane_views import wait_for_prompt
from tests.mcp_calls import call, call_error


def new_pane(
    backend: TmuxBackend,
    ref: ServerRef,
    name: str = "work",
    *,
    width: int = 40,
    height: int = 10,
) -> str:
    """A shell's pane, at its first prompt."""
    session = backend.new_session(ref, name=name, width=width, height=height)
    assert session.active_pane_id is not None
    wait_for_prompt(backend, ref, session.active_pane_id)
    return session.active_pane_id


async def run(client: Client, pane_id: str, command: str, **args: Any) -> dict[str, Any]:  # type: ignore[type-arg]
    result: dict[str, Any] = await call(
        client, "run_command", command=command, pane_id=pane_id, **args
    )
    return result


# -- run_command: completion, status and output -------------------------------------------


async def test_exit_status_zero_and_the_commands_own_output(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out = await run(client, pane, "echo hello; echo world")
    assert out["exit_status"] == 0
    assert out["output"] == ["hello", "world"]
    assert (out["timed_out"], out["still_running"], out["lines_missed"]) == (False, False, False)
    assert out["pane_id"] == pane
    assert out["effective_timeout"] == 30.0
    # Answered from the screen, which held every line: the same lines are the full
    # output, and the run's script and pipe file are gone (the pipe's cat had
    # opened its file before it was deleted, so nothing makes it again).
    whole = await client.read_resource(out["full_output"])
    assert whole[0].text.splitlines() == ["hello", "world"]  # type: ignore[union-attr]
    token = out["full_output"].split("/")[3]
    folder = os.path.dirname(SCRIPTS.path_for(token))
    assert sorted(name for name in os.listdir(folder) if name.startswith(token)) == [f"{token}.out"]


async def test_output_longer_than_the_screen_is_returned_exactly(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref, height=10)
    await run(client, pane, "seq 1 20")  # the cursor is no longer young
    out = await run(client, pane, "seq 1 500", max_lines=None, max_bytes=None)
    assert out["output"] == [str(i) for i in range(1, 501)]
    assert out["lines_missed"] is False
    assert out["output_truncated"] is False


async def test_output_beyond_the_history_limit_comes_whole_through_the_pipe(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    backend.new_session(ref, name="scratch")
    backend.set_option(ref, "history-limit", "50", scope="session", global_=True)
    pane = new_pane(backend, ref, height=10)
    out = await run(client, pane, "seq 1 500")
    assert (out["exit_status"], out["lines_missed"]) == (0, False)
    # The default bound keeps the newest 200 lines; the resource has them all.
    assert out["output"] == [str(i) for i in range(301, 501)]
    assert (out["output_truncated"], out["output_truncated_lines"]) == (True, 300)
    assert out["output_truncated_bytes"] == len("".join(f"{i}\n" for i in range(1, 301)))
    whole = await client.read_resource(out["full_output"])
    assert whole[0].text.splitlines() == [str(i) for i in range(1, 501)]  # type: ignore[union-attr]
    assert "pipe" not in backend.display_message(ref, pane, "#{?pane_pipe,pipe,}")


async def test_a_pane_with_its_users_pipe_is_read_from_the_screen(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    tmp_path: Path,
) -> None:
    backend.new_session(ref, name="scratch")
    backend.set_option(ref, "history-limit", "50", scope="session", global_=True)
    pane = new_pane(backend, ref, height=10)
    theirs = tmp_path / "theirs.log"
    backend.pipe_pane(ref, pane, f"cat >> {theirs}")
    out = await run(client, pane, "seq 1 500", max_lines=None)
    assert out["exit_status"] == 0
    assert out["full_output"] is None  # their pipe is never taken over
    assert backend.display_message(ref, pane, "#{pane_pipe}") == "1"
    assert out["lines_missed"] is True  # the echoed line and the first rows were trimmed
    kept = out["output"]
    assert kept == [str(i) for i in range(501 - len(kept), 501)]  # every row still retained
    assert 10 < len(kept) < 70


async def test_first_command_in_a_fresh_pane_is_exact(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    # At its first prompt. Typed before the shell prompts, run_command on tmux
    # reports the prompt glued to the output ("$ 1"): a known bug, not yet fixed.
    pane = new_pane(backend, ref, height=5)
    out = await run(client, pane, "seq 1 50")
    assert out["output"] == [str(i) for i in range(1, 51)]
    assert out["lines_missed"] is False


async def test_output_without_a_final_newline_and_a_prompt_after_it(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    first = await run(client, pane, "printf abc")
    assert first["output"] == ["abc"]
    second = await run(client, pane, "echo next")  # typed after 'abc$ '
    assert second["output"] == ["next"]


async def test_quotes_and_comments_in_the_command(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref, width=80)
    out = await run(client, pane, 'echo "it\'s" \'a "b"\' # not the rest; false')
    assert out["output"] == ['it\'s a "b"']
    assert out["exit_status"] == 0


async def test_max_lines_keeps_the_newest_lines(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out = await run(client, pane, "seq 1 30", max_lines=5)
    assert out["output"] == ["26", "27", "28", "29", "30"]
    assert (out["output_truncated"], out["output_truncated_lines"]) == (True, 25)


async def test_command_finishing_within_the_timeout_while_the_clock_runs(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    out = await run(client, pane, "sleep 3; echo slept", timeout=10)
    assert (out["exit_status"], out["output"], out["timed_out"]) == (0, ["slept"], False)


async def test_a_shell_that_exits_is_an_error(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = new_pane(backend, ref)
    backend.set_option(ref, "remain-on-exit", "on", scope="window", target=pane)
    error = await call_error(client, "run_command", command="exit 3", pane_id=pane)
    assert "exited while running the command (status 3)" in error
    assert "respawn_pane" in error


# -- the echo finder ---------------------------------------------------------------------------


# -- registration ------------------------------------------------------------------------------


async def test_tiers_annotations_and_schemas(client: Client) -> None:  # type: ignore[type-arg]
    tools = {t.name: t for t in await client.list_tools()}
    for name in ("run_command", "send_keys_batch"):
        hints = effective_hints(tools[name].annotations)
        assert (hints["readOnlyHint"], hints["destructiveHint"], hints["openWorldHint"]) == (
            False,
            True,
            True,
        )
    props = tools["run_command"].input_schema["properties"]
    assert list(props)[-2:] == ["socket_name", "socket_path"]
    assert "context" not in props
    assert props["suppress_history"]["default"] is True
    assert props["timeout"]["default"] == 30.0
    assert list(tools["send_keys_batch"].input_schema["properties"]) == [
        "operations",
        "on_error",
        "timeout",
        "socket_name",
        "socket_path",
    ]


async def test_hidden_from_a_readonly_server(ref: ServerRef, backend: TmuxBackend) -> None:
    server = create_server(backend, Settings(socket_path=ref.socket_path, safety="readonly"))
    async with Client(server) as readonly:
        names = {t.name for t in await readonly.list_tools()}
    assert "run_command" not in names
    assert "send_keys_batch" not in names
