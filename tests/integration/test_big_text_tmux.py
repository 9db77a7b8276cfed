"""1 MiB of text through send_keys, paste_text and load_buffer on real tmux.

A tmux client passes only about 16 KiB of arguments to its server and the OS
refuses one argument over 128 KiB, so large text must travel on standard
input. Each test checks the exact bytes that arrived (in a file a raw-mode
``cat`` writes, or in the buffer) and that no private buffer is left behind.
The suite runs with control mode on and off (``GRIDMUX_CONTROL_MODE``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef
from gridmux.backend._command_backend import INLINE_KEYS_BYTES, TmuxCommandBackend
from gridmux.errors import InvalidArgument
from tests.mcp_calls import call, call_error

from .conftest import RawTmux, WaitDead, WaitUntil, control_mode

pytestmark = pytest.mark.tmux

MIB = 1 << 20


def big_text(size: int = MIB) -> str:
    """``size`` bytes of UTF-8 with tabs, newlines and multi-byte characters, no final newline."""
    unit = "line\twith tab ü € 🙂 and some words;\n"
    text = unit * (size // len(unit.encode()) + 1)
    encoded = text.encode()[:size]
    return encoded.decode("utf-8", errors="ignore").rstrip("\n") + "end"


def catcher(tmux: RawTmux, beside: str, out: Path, wait_until: WaitUntil) -> str:
    """A pane whose raw-mode ``cat`` writes every byte it is given to ``out``."""
    pane = tmux(
        "split-window", "-d", "-t", beside, "-P", "-F", "#{pane_id}",
        f"stty raw -echo && exec cat > '{out}'",
    ).strip()  # fmt: skip
    wait_until(
        lambda: (
            tmux("display-message", "-p", "-t", pane, "#{pane_current_command}").strip() == "cat"
        ),
        what="cat to run",
    )
    return pane


def received(out: Path, expected: bytes, wait_until: WaitUntil) -> bytes:
    """What the pane's ``cat`` wrote, once it is as long as ``expected`` (or at the deadline)."""
    wait_until(lambda: out.stat().st_size >= len(expected), timeout=20, what="all the bytes")
    return out.read_bytes()


def buffers(tmux: RawTmux) -> list[str]:
    return tmux("list-buffers", "-F", "#{buffer_name}").split()


@pytest.mark.parametrize("enter", [False, True])
async def test_send_keys_types_one_mib_exactly(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    wait_until: WaitUntil,
    enter: bool,
) -> None:
    out = tmp_path / "out"
    pane = catcher(tmux, quiet_pane, out, wait_until)
    text = big_text()
    await call(client, "send_keys", keys=text, pane_id=pane, literal=True, enter=enter)
    expected = text.encode() + (b"\r" if enter else b"")
    assert received(out, expected, wait_until) == expected
    assert buffers(tmux) == []


async def test_send_keys_just_over_the_inline_size_without_literal(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    wait_until: WaitUntil,
) -> None:
    out = tmp_path / "out"
    pane = catcher(tmux, quiet_pane, out, wait_until)
    text = big_text(INLINE_KEYS_BYTES + 1)
    await call(client, "send_keys", keys=text, pane_id=pane, enter=False)
    assert received(out, text.encode(), wait_until) == text.encode()
    assert buffers(tmux) == []


async def test_paste_text_pastes_one_mib(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    wait_until: WaitUntil,
) -> None:
    out = tmp_path / "out"
    pane = catcher(tmux, quiet_pane, out, wait_until)
    text = big_text()
    await call(client, "paste_text", text=text, pane_id=pane, bracket=False)
    expected = text.replace("\n", "\r").encode()  # paste_text: newlines arrive as Enter
    assert received(out, expected, wait_until) == expected
    assert buffers(tmux) == []


async def test_load_buffer_holds_one_mib_exactly(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    tmp_path: Path,
) -> None:
    text = big_text()
    ref = await call(client, "load_buffer", content=text, logical_name="big")
    name = ref["buffer_name"]
    saved = tmp_path / "saved"
    tmux("save-buffer", "-b", name, str(saved))
    assert saved.read_bytes() == text.encode()
    await call(client, "delete_buffer", buffer_name=name)
    assert buffers(tmux) == []


async def test_big_send_keys_into_a_dead_pane_is_refused_and_leaves_no_buffer(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    wait_dead: WaitDead,
) -> None:
    tmux("set-option", "-g", "remain-on-exit", "on")
    dead = tmux("split-window", "-d", "-t", quiet_pane, "-P", "-F", "#{pane_id}", "exit 3")
    wait_dead(dead.strip(), 3)
    error = await call_error(client, "send_keys", keys=big_text(64 * 1024), pane_id=dead.strip())
    assert "has exited" in error
    assert buffers(tmux) == []


def test_an_argument_too_long_for_tmux_is_an_honest_error(
    backend: TmuxCommandBackend, tmux_server: ServerRef, tmux: RawTmux, quiet_pane: str
) -> None:
    # set-environment has no stdin path: its value must fit one tmux command.
    # 64 KiB: over a tmux client's "command too long", within a control-mode
    # line (256 KiB); 1 MiB: too long for both, and for the OS (E2BIG).
    session = tmux("display-message", "-p", "-t", quiet_pane, "#{session_id}").strip()
    if control_mode():
        backend.set_environment(tmux_server, "MID", "x" * 64 * 1024, session_id=session)
        assert tmux("show-environment", "-t", session, "MID") == f"MID={'x' * 64 * 1024}\n"
    sizes = (MIB,) if control_mode() else (64 * 1024, MIB)
    for size in sizes:
        with pytest.raises(InvalidArgument) as raised:
            backend.set_environment(tmux_server, "BIG", "x" * size, session_id=session)
        message = f"{raised.value} {raised.value.hint}"
        assert "too long" in message
        assert "paste_text" in message
        assert "Install tmux" not in message
    assert "BIG=" not in tmux("show-environment", "-t", session)
