"""run_command's prompt check on the row at the cursor (``_command_line.check_at_prompt``):
a continuation prompt of any POSIX shell is refused, a primary prompt is not."""

from __future__ import annotations

import dataclasses

import pytest

from gridmux.backend import PaneInfo, ServerRef
from gridmux.errors import InvalidArgument
from gridmux.tools._command_line import check_at_prompt
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
