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

from gridmux import Settings, create_server, main, redaction
from gridmux.audit import LOGGER_NAME, FileSink
from gridmux.redaction import REDACTED, redact, scrub_text
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
        for pattern, replacement in redaction._TEXT_RULES:
            changed = pattern.sub(replacement, changed)
        if changed != text:
            assert any(mark in text.lower() for mark in redaction._MARKS), text


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

    rules = [(Recording(), "")] + list(redaction._TEXT_RULES)
    monkeypatch.setattr(redaction, "_TEXT_RULES", rules)
    huge = "export DB_PASS=hunter2 " + "pass" + "@" * 4_000_000
    logged = redaction.scrub_text(huge)
    assert seen == [redaction.MAX_STRING + redaction.SCRUB_MARGIN]
    assert "hunter2" not in logged and "DB_PASS=[redacted]" in logged
    shown, more = logged.split("…[")
    assert len(shown) == redaction.MAX_STRING
    # what was cut is counted from the redacted text: the secret's 7 characters
    # became '[redacted]' (10)
    assert more == f"{len(huge) + 3 - redaction.MAX_STRING} more characters]"


def test_a_symlinked_log_is_refused_and_its_target_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "someone-elses.txt"
    target.write_text("theirs\n")
    target.chmod(0o644)
    link = tmp_path / "audit.jsonl"
    link.symlink_to(target)
    with pytest.raises(ValueError, match=r"is a symbolic link.*name the file itself"):
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


# issue 26 item 9: passwords given by a command's own flag, headers, user-only
# URLs, short secret words, and spellings that hide a name from a plain match
NEW_FORMS = [
    f"redis-cli -h db -a {SECRET} ping",
    f"redis-cli -a{SECRET}",
    f"mongo -u admin -p {SECRET} db",
    f"mongosh mongodb://h/db -u me -p {SECRET}",
    f"mongodump -p{SECRET} --out d",
    f"zip -P {SECRET} out.zip a.txt",
    f"unzip -P {SECRET} in.zip",
    f"7z a -p{SECRET} out.7z dir",
    f"7za x -p{SECRET} in.7z",
    f"ldapsearch -x -D cn=admin,dc=x -w {SECRET} -b dc=x",
    f"ldapmodify -D cn=admin -w{SECRET} -f change.ldif",
    f"ldapadd -x -w {SECRET} -f add.ldif",
    f"sqlcmd -S host -U sa -P {SECRET} -Q 'select 1'",
    f"smbclient //host/share -U alice%{SECRET}",
    f"smbclient -U alice%{SECRET} -L host",
    f"rpcclient --user=alice%{SECRET} host",
    f"echo {SECRET} | sudo -S apt update",
    f"echo '{SECRET}' | sudo -kS ls",
    f"sudo -S id <<< {SECRET}",
    f"ssh-keygen -t ed25519 -N {SECRET} -f key",
    f"ssh-keygen -p -P {SECRET} -N {SECRET} -f key",
    f"openssl enc -aes-256-cbc -k {SECRET} -in a -out b",
    f"curl -H 'Cookie: session={SECRET}; theme=dark' https://example.invalid",
    f'curl -H "Set-Cookie: id={SECRET}; Path=/" x',
    f"Cookie: sid={SECRET}",
    f"psql postgres://{SECRET}@db.example.invalid/app",
    f"git clone https://{SECRET}@github.com/org/repo",
    f"git clone ssh://ghp{SECRET}0123456789abcd@example.invalid/repo",
    f"export DB_PW={SECRET}",
    f"MY_CREDS={SECRET} ./run",
    f"app --signing-salt {SECRET}",
    f"SIGNING_SALT={SECRET}",
    f"tmux set -g @db-pw {SECRET}",
    f"pass\u200bword={SECRET}",
    f"\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24={SECRET}",  # fullwidth PASSWORD
    f"tool --pass\u200d {SECRET}",
    f"export DB_P\u00adW={SECRET}",  # a soft hyphen
    f"\uff24\uff22\uff3f\uff30\uff37\uff1d{SECRET}",  # fullwidth DB_PW and equals sign
]


@pytest.mark.parametrize("text", NEW_FORMS)
def test_more_secret_forms_are_scrubbed(text: str) -> None:
    scrubbed = scrub_text(text)
    assert SECRET not in scrubbed
    assert REDACTED in scrubbed


@pytest.mark.parametrize(
    "text",
    [
        "ssh git@github.com",
        "git clone ssh://git@github.com/org/repo",
        "git clone git+ssh://alice@example.invalid/repo",
        "https://example.invalid/path?mail=a@b.invalid",
        "zip -r out.zip dir",
        "unzip -l in.zip",
        "7z x file.7z",
        "7z a -p out.7z dir",  # -p alone: 7z asks
        "redis-cli ping",
        "redis-cli -h db -p 6379 info",
        "mongosh --port 27017",
        "ldapsearch -x -W -b dc=x",
        "sqlcmd -S host -E",
        "smbclient -L host -U alice",
        "sudo -S id",
        "echo hi | sudo tee /etc/x",
        "echo done | sudo -s",
        "ssh-keygen -t ed25519 -f key",
        "openssl enc -aes-256-cbc -kfile k.txt -in a",
        "grep -i cookie src",
        "pwd",
        "cd salty_dir && make",
        "echo \u00e9t\u00e9 caf\u00e9 \u4e2d\u6587",
        "\uff28\uff45\uff4c\uff4c\uff4f",  # fullwidth Hello, nothing to redact: kept as typed
    ],
)
def test_look_alikes_are_kept(text: str) -> None:
    assert scrub_text(text) == text


def test_a_secret_name_key_in_another_spelling_is_redacted() -> None:
    fullwidth_password = "\uff30\uff21\uff33\uff33\uff37\uff2f\uff32\uff24"
    assert redact({fullwidth_password: SECRET}) == {fullwidth_password: REDACTED}
    assert redact({"name": "\uff24\uff22\uff3fP\u200bW", "value": SECRET})["value"] == REDACTED


@settings(max_examples=300)
@given(st.text(max_size=30), st.sampled_from(NEW_FORMS), st.text(max_size=30))
def test_every_new_form_is_behind_the_prefilter(before: str, form: str, after: str) -> None:
    for text in (before + form + after, (before + form).swapcase()):
        plain = redaction._plain(text)
        changed = plain
        for pattern, replacement in redaction._TEXT_RULES:
            changed = pattern.sub(replacement, changed)
        if changed != plain:
            assert any(mark in plain.lower() for mark in redaction._MARKS), plain
            assert redaction._TRIGGER.search(plain) is not None, plain
