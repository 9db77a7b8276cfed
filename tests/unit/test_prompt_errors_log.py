"""A prompt rendered with bad arguments logs one line on stderr (issue 16, item 13),
not FastMCP's 60-line traceback; the caller still gets the error."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import pytest
from fastmcp import Client
from fastmcp.exceptions import PromptError

from gridmux import Settings, create_server
from gridmux.app import PROMPT_ERROR_LOGGER, quiet_prompt_errors
from tmuxsim import SimBackend


@pytest.fixture
def quiet() -> Iterator[logging.Logger]:
    quiet_prompt_errors()
    quiet_prompt_errors()  # idempotent: one filter, however often called
    logger = logging.getLogger(PROMPT_ERROR_LOGGER)
    assert len(logger.filters) == 1
    yield logger
    logger.filters.clear()


@pytest.mark.usefixtures("quiet")
async def test_bad_prompt_arguments_log_one_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG, logger="fastmcp")
    server = create_server(SimBackend(version="3.3a"), Settings(backend="sim"))
    async with Client(server) as client:
        with pytest.raises(Exception, match="not a tmux pane id"):
            await client.get_prompt("run_and_wait", {"command": "ls", "pane_id": "bad"})
        with pytest.raises(Exception, match="pane_id"):
            await client.get_prompt("tail_log", {})
    records = [r for r in caplog.records if r.getMessage().startswith("Error rendering prompt")]
    assert len(records) == 2
    for record in records:
        assert record.exc_info is None and record.exc_text is None
        assert "\n" not in record.getMessage()
    assert "PromptError: pane_id 'bad' is not a tmux pane id" in records[0].getMessage()
    assert "Traceback" not in caplog.text


def test_other_records_are_untouched(quiet: logging.Logger) -> None:
    try:
        raise PromptError("boom\nsecond line")
    except PromptError:
        record = quiet.makeRecord(
            quiet.name, logging.ERROR, __file__, 1, "something else", (), sys.exc_info()
        )
    assert quiet.filter(record)
    assert record.exc_info is not None
