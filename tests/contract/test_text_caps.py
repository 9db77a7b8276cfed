"""Typed and pasted text is capped at 4 MiB of UTF-8 (issue 26 item 9), as
load_buffer's content is: send_keys, each send_keys_batch operation and the
batch as a whole, and paste_text refuse more, say the limit and how to split
it, and change nothing."""

from __future__ import annotations

import pytest
from fastmcp import Client

from gridmux.backend import ServerRef, TmuxBackend
from gridmux.tools._targets import MAX_TEXT_BYTES
from tests.contract.pane_views import wait_for_prompt
from tests.mcp_calls import call, call_error

OVER = "x" * (MAX_TEXT_BYTES + 1)
#: Fewer characters than the limit, more bytes: the cap counts UTF-8 bytes.
OVER_IN_BYTES = "\u00e9" * (MAX_TEXT_BYTES // 2 + 1)
HALF = "y" * (MAX_TEXT_BYTES // 2 + 1)


async def fresh_pane(client: Client, backend: TmuxBackend, ref: ServerRef) -> str:  # type: ignore[type-arg]
    made = await call(client, "create_session", session_name="caps")
    pane = str(made["active_pane_id"])
    wait_for_prompt(backend, ref, pane)
    return pane


def untouched(backend: TmuxBackend, ref: ServerRef, pane: str) -> None:
    rows = [row.rstrip() for row in backend.snapshot(ref, pane).rows if row.strip()]
    assert rows == ["$"], rows
    assert backend.list_buffers(ref) == []


def says_the_limit(text: str, what: str, parts: str) -> None:
    assert f"{what} is " in text
    assert f"larger than {MAX_TEXT_BYTES} bytes (4 MiB)" in text
    assert f"split it into {parts}" in text
    assert "Hint:" in text and "load_buffer and paste_buffer have the same limit" in text


@pytest.mark.parametrize("keys", [OVER, OVER_IN_BYTES], ids=["ascii", "two-byte"])
async def test_send_keys_over_the_cap_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
    keys: str,
) -> None:
    pane = await fresh_pane(client, backend, ref)
    for literal in (False, True):
        error = await call_error(client, "send_keys", keys=keys, pane_id=pane, literal=literal)
        says_the_limit(error, "keys", "several send_keys calls")
    untouched(backend, ref, pane)


async def test_paste_text_over_the_cap_is_refused(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await fresh_pane(client, backend, ref)
    for text in (OVER, OVER_IN_BYTES):
        error = await call_error(client, "paste_text", text=text, pane_id=pane)
        says_the_limit(error, "text", "parts")
    untouched(backend, ref, pane)


async def test_load_buffer_says_the_same(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await fresh_pane(client, backend, ref)
    error = await call_error(client, "load_buffer", content=OVER_IN_BYTES)
    says_the_limit(error, "content", "several buffers")
    untouched(backend, ref, pane)


async def test_send_keys_batch_caps_each_operation_and_the_whole(
    ref: ServerRef,
    client: Client,  # type: ignore[type-arg]
    backend: TmuxBackend,
) -> None:
    pane = await fresh_pane(client, backend, ref)
    one = await call_error(
        client,
        "send_keys_batch",
        operations=[{"pane_id": pane, "keys": "echo a"}, {"pane_id": pane, "keys": OVER}],
    )
    assert "nothing was sent: operations[1]: keys is " in one
    assert f"larger than {MAX_TEXT_BYTES} bytes (4 MiB)" in one
    assert "split it into several operations" in one
    # each half fits; together they do not
    whole = await call_error(
        client,
        "send_keys_batch",
        operations=[{"pane_id": pane, "keys": HALF}, {"pane_id": pane, "keys": HALF}],
    )
    assert "operations[" not in whole
    assert f"the operations' keys together is {2 * len(HALF)} bytes of UTF-8" in whole
    assert "split it into several batches" in whole
    untouched(backend, ref, pane)
