"""run_command's prompt checks on the row at the cursor: a continuation prompt of any
POSIX shell is refused, a primary prompt is not (``_run_guard.check_at_prompt``);
text typed without Enter is refused (``_run_guard.check_line_empty``)."""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneInfo, ServerRef
from gridmux.errors import InvalidArgument
from gridmux.tools._prompt_line import PromptRow, split_row
from gridmux.tools._run_guard import PartlyTyped, check_at_prompt, check_line_empty
from tmuxsim import SimBackend


def pane_at(row: str, shell: str) -> tuple[PaneInfo, str]:
    backend = SimBackend(version="3.8")
    backend.new_session(ServerRef(), name="s", width=40, height=5)
    (pane,) = backend.list_panes(ServerRef())
    return dataclasses.replace(pane, cursor_x=len(row), current_command=shell), row


@pytest.mark.parametrize(
    ("row", "shell"),
    [
        ("> ", "sh"),
        ("> ", "bash"),
        ("dquote> ", "zsh"),  # zsh's PS2 is '%_> ': the constructs left open
        ("quote> ", "zsh"),
        ("heredoc> ", "zsh"),
        ("cmdsubst dquote> ", "zsh"),
    ],
)
def test_a_continuation_prompt_is_refused(row: str, shell: str) -> None:
    pane, row = pane_at(row, shell)
    with pytest.raises(InvalidArgument, match="continuation prompt"):
        check_at_prompt(pane, row, nested_shell=False, foreground=None)


@pytest.mark.parametrize(
    ("row", "shell"),
    [("$ ", "sh"), ("user@host:~$ ", "bash"), ("% ", "zsh"), ("host% ", "zsh"), ("# ", "sh")],
)
def test_a_primary_prompt_is_not(row: str, shell: str) -> None:
    pane, row = pane_at(row, shell)
    check_at_prompt(pane, row, nested_shell=False, foreground=None)


# -- the command line is empty (``_run_guard``) --------------------------------


def line_at(row: str, cursor_x: int, shell: str = "bash", pid: int = 7) -> PaneInfo:
    pane, _ = pane_at(row, shell)
    return dataclasses.replace(pane, cursor_x=cursor_x, pid=pid)


@pytest.mark.parametrize(
    "row",
    ["$ ", "user@host:~/src$ ", "# ", "host% ", "(venv) ~ \u276f ", "dir \u279c ", "\u03bb "],
)
def test_a_prompt_with_nothing_typed_is_an_empty_line(row: str) -> None:
    pane = line_at(row.rstrip(), len(row))
    seen = check_line_empty(pane, row.rstrip(), None, width=40)
    assert seen == PromptRow(7, row, "")


@pytest.mark.parametrize(
    ("row", "cursor_x", "named"),
    [
        ("$ ls -l", 7, "'$ ls -l'"),  # typed, cursor at its end
        ("$ make ", 7, "'$ make'"),  # a trailing space typed too
        ("user@host:~$ git st", 19, "'user@host:~$ git st'"),
        ("$ echo hello", 4, "'ho hello'"),  # the cursor moved back into the text
        ("$ echo hello", 2, "'echo hello'"),  # ... to its start: right of the cursor
        ("wrapped typed text", 18, "'wrapped typed text'"),  # a row of a wrapped line
    ],
)
def test_text_typed_without_enter_is_refused(row: str, cursor_x: int, named: str) -> None:
    pane = line_at(row, cursor_x)
    with pytest.raises(PartlyTyped, match="partly typed line") as refused:
        check_line_empty(pane, row, None, width=40)
    assert named in str(refused.value)
    assert "C-u" in str(refused.value.hint)


def test_an_unfamiliar_prompt_needs_proof_then_is_known() -> None:
    """'ready: ' ends like no prompt: refused (the hint names prompt_only) until a
    run proved it; then it is known, and text typed after it is still refused."""
    pane = line_at("ready:", 7)
    with pytest.raises(PartlyTyped) as refused:
        check_line_empty(pane, "ready:", None, width=40)
    assert "prompt_only=true" in str(refused.value.hint)
    proven = PromptRow(7, "ready: ", "")
    assert check_line_empty(pane, "ready:", proven, width=40) == proven
    typed = line_at("ready: ls", 9)
    with pytest.raises(PartlyTyped):
        check_line_empty(typed, "ready: ls", proven, width=40)
    # the proof was another shell process's: it proves nothing for this one
    with pytest.raises(PartlyTyped):
        check_line_empty(line_at("ready:", 7, pid=8), "ready:", proven, width=40)


def test_text_after_a_proven_prompt_is_refused_though_it_ends_like_one() -> None:
    proven = PromptRow(7, "$ ", "")
    pane = line_at("$ echo $", 9)
    with pytest.raises(PartlyTyped):
        check_line_empty(pane, "$ echo $", proven, width=40)
    # another prompt (cd changed it) is judged by its shape again
    moved = line_at("/tmp $", 7)
    assert check_line_empty(moved, "/tmp $", proven, width=40).left == "/tmp $ "


def test_a_zsh_right_prompt_is_not_typed_text() -> None:
    row = "% " + " " * 31 + "[main]"  # ends one cell from the 40-cell edge
    zsh = line_at(row, 2, shell="zsh")
    assert check_line_empty(zsh, row, None, width=40).right == " " * 31 + "[main]"
    # bash has no right prompt: the same row is text right of the cursor
    with pytest.raises(PartlyTyped, match="right of the cursor"):
        check_line_empty(line_at(row, 2, shell="bash"), row, None, width=40)
    # a right prompt that came after the proof (RPROMPT set by the proven run)
    proven = PromptRow(7, "% ", "")
    assert check_line_empty(zsh, row, proven, width=40).left == "% "
    # a proven prompt of an unfamiliar shape whose right prompt changed (a clock)
    clock = "ready: " + " " * 26 + "[10:01]"
    vouched = PromptRow(7, "ready: ", " " * 26 + "[10:00]")
    seen = check_line_empty(line_at(clock, 7, shell="zsh"), clock, vouched, width=40)
    assert seen.left == "ready: "
    # text that stops short of the edge is typed text, in zsh too
    short = "% ls  -l"
    with pytest.raises(PartlyTyped, match="right of the cursor"):
        check_line_empty(line_at(short, 4, shell="zsh"), short, None, width=40)


def test_no_prompt_yet_is_refused_and_an_empty_proven_one_is_not() -> None:
    pane = line_at("", 0)
    with pytest.raises(PartlyTyped, match="no prompt"):
        check_line_empty(pane, "", None, width=40)
    assert check_line_empty(pane, "", PromptRow(7, "", ""), width=40) == PromptRow(7, "", "")


def test_wide_characters_take_two_cells() -> None:
    row = "\u65e5\u672c$ ls"  # two wide characters: the prompt is 6 cells, 4 characters
    assert split_row(line_at(row, 6), row) == PromptRow(7, "\u65e5\u672c$ ", "ls")
    assert split_row(line_at(row, 8), row) == PromptRow(7, row, "")
    with pytest.raises(PartlyTyped, match="right of the cursor"):
        check_line_empty(line_at(row, 6), row, None, width=40)
