"""display_message never runs a shell job on real tmux (issue 16 item 1): every
escape variant, directly and through call_readonly_tools_batch, leaves the
marker file unwritten; variables holding '#(...)' come back as text."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from tests.mcp_calls import call, call_error

from .conftest import RawTmux

pytestmark = pytest.mark.tmux

#: Ways to build or reach '#(...)' through tmux's format expander; {m} is the marker.
ESCAPES = [
    "#(touch {m})",
    "#{{s/#}}//;E:#{{s/#}}//;E:#{{l:##}}(touch {m})}}}}",  # the reproduction
    "#{{E:@evil}}",
    "#{{T:@evil}}",
    "#{{E:pane_title}}",
    "#{{S:#{{E:@evil}}}}",
    "#{{P:#{{T:pane_title}}}}",
    "#{{E:#{{l:##}}(touch {m})}}",
    "#{{s/^/#(/:@tail}}",
    "#{{?pane_active,#(touch {m}),no}}",
    "##(touch {m})",
]


@pytest.fixture
def evil(tmux: RawTmux, quiet_pane: str, tmp_path: Path) -> Path:
    """An option and the pane's title both hold a shell job writing the marker."""
    marker = tmp_path / "ran"
    job = f"#(touch {marker})"
    tmux("set-option", "-g", "@evil", job)
    tmux("set-option", "-g", "@tail", f"touch {marker})")
    tmux("select-pane", "-t", quiet_pane, "-T", "#" + job)  # -T expands a format once
    assert not marker.exists()
    return marker


@pytest.mark.parametrize("fmt", ESCAPES)
async def test_display_message_escape_variants_never_run(
    client: Client,  # type: ignore[type-arg]
    quiet_pane: str,
    evil: Path,
    fmt: str,
) -> None:
    format_string = fmt.format(m=evil)
    error = await call_error(
        client, "display_message", format_string=format_string, pane_id=quiet_pane
    )
    assert "never runs shell commands" in error and "#{name}" in error
    batch = await call(
        client,
        "call_readonly_tools_batch",
        operations=[
            {
                "tool": "display_message",
                "arguments": {"format_string": format_string, "pane_id": quiet_pane},
            }
        ],
    )
    assert batch["results"][0]["success"] is False
    assert "never runs shell commands" in batch["results"][0]["error"]
    assert not evil.exists()


async def test_display_message_reads_jobs_in_variables_as_text(
    client: Client,  # type: ignore[type-arg]
    quiet_pane: str,
    evil: Path,
) -> None:
    out = await call(
        client,
        "display_message",
        format_string="#{@evil}|#{pane_title}|#{?pane_active,a#,b,c}|##|50%",
        pane_id=quiet_pane,
    )
    job = f"#(touch {evil})"
    assert out == {"result": f"{job}|{job}|a,b|#|50%"}
    assert not evil.exists()


@pytest.mark.parametrize("tool", ["set_option", "show_option"])
async def test_an_option_name_holding_a_job_never_runs(
    client: Client,  # type: ignore[type-arg]
    tmux: RawTmux,
    quiet_pane: str,
    tmp_path: Path,
    tool: str,
) -> None:
    """tmux expands set-option's name argument as a format: a user option named
    '@x#(...)' ran the job in the server (a review of issue 16's work)."""
    marker = tmp_path / "ran"
    name = "@x#(touch${IFS}" + str(marker) + ")"
    extra = {"value": "1"} if tool == "set_option" else {}
    before = tmux("show-options", "-g")
    error = await call_error(client, tool, option=name, global_=True, **extra)
    assert "is not a tmux option name" in error and "letters, digits" in error
    assert not marker.exists()
    assert tmux("show-options", "-g") == before
