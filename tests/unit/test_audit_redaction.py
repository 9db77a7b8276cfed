"""Audit redaction of the common forms issue 16 (item 11) found missing, and the
log file's mode when it already exists."""

from __future__ import annotations

import errno
import logging
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridmux import Settings, create_server, main
from gridmux import audit as audit_module
from gridmux.audit import LOGGER_NAME, REDACTED, FileSink, redact, scrub_text

from tmuxsim import SimBackend

SECRET = "Sup3rS3cr3t"


@pytest.mark.parametrize(
    "text",
    [
        f"export DB_PASS={SECRET}",
        f"export MY_PWD={SECRET}; make",
        f"mysql -u root -p{SECRET} prod",
        f"mariadb -p{SECRET}",
        f"sshpass -p {SECRET} ssh host",
        f"sshpass -p{SECRET} ssh host",
        f"curl -u admin:{SECRET} https://example.invalid",
        f"curl --user admin:{SECRET} https://example.invalid",
        f"wget --proxy-user=me:{SECRET} x",
        f"aws configure set aws_secret_access_key {SECRET}",
        f"htpasswd -b users.htpasswd alice {SECRET}",
        f"htpasswd -bc users.htpasswd alice {SECRET}",
        f"docker login -u me -p {SECRET} registry.invalid",
        f"podman login --username me -p{SECRET} r",
        f"tmux set-option -g @api_token {SECRET}",
        f"openssl enc -pass pass:{SECRET}",
        f"openssl rsa -passin pass:{SECRET} -in k.pem",
        f"openssl req -passout pass:{SECRET}",
        f"curl -H 'Authorization: token {SECRET}' https://example.invalid",
        f'curl -H "Authorization: {SECRET}" https://example.invalid',
        f"curl -H 'Proxy-Authorization: Digest {SECRET}' x",
        f"TOKENghp_{SECRET}{'a' * 30}",
        f"x=npm_{SECRET}{'b' * 30}",
        f"pypi-{SECRET}{'c' * 50}",
    ],
)
def test_common_secret_forms_are_scrubbed(text: str) -> None:
    scrubbed = scrub_text(text)
    assert SECRET not in scrubbed
    assert REDACTED in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "ls -la /tmp",
        "ssh -p 22 host",
        "psql -p 5432 -U me db",
        "set -o pipefail",
        "curl -u https://example.invalid",
        "ping -c 1 host",
        "cd $PWD && make",
        "mysql -u root -p",
        "git log --oneline -5",
        "echo test pass: 5 fail: 0",
        "grep -rn Authorization src",
    ],
)
def test_ordinary_commands_are_kept(text: str) -> None:
    assert scrub_text(text) == text


def test_set_option_of_a_secret_looking_user_option_is_redacted() -> None:
    assert redact({"option": "@api_token", "value": SECRET})["value"] == REDACTED
    assert redact({"option": "@db_password", "value": SECRET, "global_": True}) == {
        "option": "@db_password",
        "value": REDACTED,
        "global_": True,
    }
    assert redact({"option": "status-left", "value": "#S"})["value"] == "#S"


@settings(max_examples=200)
@given(st.text(max_size=40), st.text(max_size=40))
def test_every_rule_is_behind_the_prefilter(before: str, after: str) -> None:
    """A text the rules change always passes the literal prefilter."""
    for text in (before + f"DB_PASS={SECRET}" + after, before + after):
        changed = text
        for pattern, replacement in audit_module._TEXT_RULES:
            changed = pattern.sub(replacement, changed)
        if changed != text:
            assert any(mark in text.lower() for mark in audit_module._MARKS), text


def test_an_existing_world_readable_log_is_made_private(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text('{"earlier": 1}\n')
    path.chmod(0o644)
    create_server(SimBackend(version="3.3a"), Settings(backend="sim", audit_log=str(path)))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() == '{"earlier": 1}\n'  # appended to, never truncated


def test_a_log_that_cannot_be_made_private_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "audit.jsonl"
    path.write_text("")
    path.chmod(0o644)

    def not_owner(fd: int, mode: int) -> None:
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr("gridmux.audit.os.fchmod", not_owner)
    with pytest.raises(ValueError, match=r"readable by others \(mode 0644\)"):
        FileSink(str(path))
    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_the_rules_see_only_what_is_logged_and_a_margin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Some rules are quadratic in their input and a tool argument may be 4 MiB: over
    the whole of it, one call froze every other (a review measured 6 s at 32 KB)."""
    seen: list[int] = []

    class Recording:
        def sub(self, replacement: object, text: str) -> str:
            seen.append(len(text))
            return text

    rules = [(Recording(), "")] + list(audit_module._TEXT_RULES)
    monkeypatch.setattr(audit_module, "_TEXT_RULES", rules)
    huge = "export DB_PASS=hunter2 " + "pass" + "@" * 4_000_000
    logged = audit_module.scrub_text(huge)
    assert seen == [audit_module.MAX_STRING + audit_module.SCRUB_MARGIN]
    assert "hunter2" not in logged and "DB_PASS=[redacted]" in logged
    shown, more = logged.split("…[")
    assert len(shown) == audit_module.MAX_STRING
    # what was cut is counted from the redacted text: the secret's 7 characters
    # became '[redacted]' (10)
    assert more == f"{len(huge) + 3 - audit_module.MAX_STRING} more characters]"


def test_a_symlinked_log_is_refused_and_its_target_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "someone-elses.txt"
    target.write_text("theirs\n")
    target.chmod(0o644)
    link = tmp_path / "audit.jsonl"
    link.symlink_to(target)
    with pytest.raises(ValueError, match="is a symbolic link.*name the file itself"):
        create_server(SimBackend(version="3.3a"), Settings(backend="sim", audit_log=str(link)))
    with pytest.raises(SystemExit) as exited:
        main(["--backend", "sim", "--audit-log", str(link)])
    assert "gridmux: the audit log" in str(exited.value.code)
    assert "symbolic link" in str(exited.value.code)
    assert capsys.readouterr().out == ""
    assert stat.S_IMODE(target.stat().st_mode) == 0o644
    assert target.read_text() == "theirs\n"


def test_a_log_replaced_by_a_symlink_later_is_not_written_through(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "audit.jsonl"
    sink = FileSink(str(path))
    target = tmp_path / "target.txt"
    target.write_text("")
    path.unlink()
    path.symlink_to(target)
    caplog.set_level(logging.WARNING, logger=LOGGER_NAME)
    sink.write({"tool": "x"})
    assert target.read_text() == ""
    assert "could not append to the audit log" in caplog.text
