"""Redaction for the audit log: what of a tool call's arguments is safe to record.

* values under secret-looking names (:func:`gridmux.secret_names.secret_name`)
  become ``[redacted]``, and so does the ``value`` a secret-looking ``name``,
  ``option`` or ``variable`` sets;
* secret-looking parts of any text (``--password x``, ``TOKEN=x``, a password
  given to a command by its flag, URL credentials, header values, private-key
  blocks, well-known token formats) are replaced by ``[redacted]``;
* strings are cut to :data:`MAX_STRING` characters and lists to
  :data:`MAX_ITEMS` items.

Text that is not plain ASCII is also matched in its NFKC form with format
characters (zero-width spaces and joiners, soft hyphens ...) dropped, so
``pass\u200bword=x`` or ``PASSWORD=x`` in fullwidth letters is found too; such a
text is logged in that form when a rule finds something in it.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Mapping
from typing import Any

from gridmux.secret_names import NAME_MARKS, secret_name

MAX_STRING = 200
#: Characters after the logged ones the redaction rules still see (``scrub_text``).
SCRUB_MARGIN = 1024
MAX_ITEMS = 100
MAX_DEPTH = 8
REDACTED = "[redacted]"

_NAME = (
    r"[A-Za-z0-9_.-]*(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key"
    r"|private[_-]?key|credentials?)[A-Za-z0-9_.-]*"
)
_VALUE = r"(?:\"[^\"]*\"|'[^']*'|[^\s\"',;&|]+)"
#: A word that may name a secret (judged by :func:`secret_name`).
_WORD = r"[A-Za-z_@][A-Za-z0-9_.@-]*"


def _if_secret(name_group: int, keep_group: int) -> Callable[[re.Match[str]], str]:
    """A replacement: the match up to ``keep_group``, then ``[redacted]``, when the
    name in ``name_group`` is secret-looking; the match unchanged otherwise."""

    def replace(match: re.Match[str]) -> str:
        if not secret_name(match.group(name_group).lstrip("@-")):
            return match.group(0)
        return match.group(0)[: match.end(keep_group) - match.start(0)] + REDACTED

    return replace


#: Commands, and the flag that gives each a password (``-p`` alone is a prompt;
#: the flag is a regex, with the space it allows before the value). One rule
#: each; a command given the flag twice has every value redacted.
_COMMAND_FLAGS = (
    (r"mysql\w*|mariadb\w*|7z[ar]?", r"-p"),  # mysql -pX, 7z -pX: glued only
    (r"sshpass|login|mongo\w*", r"-p\s*"),  # docker login -p X, mongosh -p X
    (r"(?:un)?zip|zipcloak|sqlcmd|bcp|osql", r"-P\s*"),
    (r"redis-cli", r"-a\s*"),
    (r"ldap\w+", r"-w\s*"),  # ldapsearch, ldapmodify, ldapadd ... -w X
    (r"ldappasswd", r"-[as]\s*"),  # the old and the new password
    (r"ssh-keygen", r"-[NP]\s*"),  # the new and the old pass phrase
    (r"openssl", r"-k\s+"),  # openssl enc -k X (-kfile names a file)
)
#: sudo reading its password from standard input.
_SUDO_STDIN = r"\bsudo\b[^\n;|&]*?\s(?:-[A-Za-z]*S[A-Za-z]*\b|--stdin\b)"


def _flag_values(flag: str) -> Callable[[re.Match[str]], str]:
    """A replacement: the command line matched, every value after ``flag`` redacted."""
    value = re.compile(rf"(\s{flag})(?=[^\s-]){_VALUE}")

    def replace(match: re.Match[str]) -> str:
        return value.sub(rf"\1{REDACTED}", match.group(0))

    return replace


#: Schemes whose user part names an account (``ssh://git@host``), not a secret.
_ACCOUNT_SCHEMES = frozenset(
    {"ssh", "git", "git+ssh", "ssh+git", "svn+ssh", "sftp", "scp", "rsync"}
)


def _url_user(match: re.Match[str]) -> str:
    """A URL's user part with no password is redacted (``https://TOKEN@github.com``,
    ``postgres://TOKEN@host/db``), except for an ssh-like scheme whose user does not
    look like a token (20 characters or more, letters and digits)."""
    scheme, user = match.group(1).lower(), match.group(2)
    token_like = len(user) >= 20 and re.search(r"[A-Za-z]", user) and re.search(r"\d", user)
    if scheme in _ACCOUNT_SCHEMES and not token_like:
        return match.group(0)
    return f"{match.group(1)}://{REDACTED}@"


_Replacement = str | Callable[[re.Match[str]], str]
_TEXT_RULES: tuple[tuple[re.Pattern[str], _Replacement], ...] = (
    (
        re.compile(
            r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\Z)",
            re.S,
        ),
        "[redacted private key]",
    ),
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@"), rf"\1{REDACTED}@"),
    # a URL's user part without a password: see _url_user
    (re.compile(r"(?i)\b([a-z][a-z0-9+.-]*)://([^\s:/@\"']+)@"), _url_user),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}"),
    # an Authorization header of any scheme (token, Digest ...) or none
    (
        re.compile(r"(?i)\b((?:proxy-)?authorization\s*[:=]\s*(?:[A-Za-z][\w-]*\s+)?)" + _VALUE),
        rf"\1{REDACTED}",
    ),
    # a Cookie or Set-Cookie header: in quotes all of it up to the closing quote
    (re.compile(r"(?i)([\"'])((?:set-)?cookie\s*:\s*)[^\n\"']*"), rf"\1\2{REDACTED}"),
    (re.compile(r"(?i)\b((?:set-)?cookie\s*:\s*)(?=\S)" + _VALUE), rf"\1{REDACTED}"),
    # openssl's pass phrase argument: -passin pass:X, -passout pass:X, -k pass:X
    (re.compile(r"(?i)(?<![\w-])(pass:)(?=\S)" + _VALUE), rf"\1{REDACTED}"),
    (re.compile(rf"(?i)(--?{_NAME})(\s+|=){_VALUE}"), rf"\1\2{REDACTED}"),
    (re.compile(rf"(?i)\b({_NAME})([\"']?\s*[=:]\s*){_VALUE}"), rf"\1\2{REDACTED}"),
    # NAME=x, --name x, for any name secret_name() flags (DB_PASS, --pass, PGPIN ...)
    (re.compile(rf"(?<![A-Za-z0-9_.-])({_WORD})(\s*=\s*)(?=\S){_VALUE}"), _if_secret(1, 2)),
    (re.compile(rf"(?<!\S)(--?({_WORD}))(\s+|=)(?=[^\s-]){_VALUE}"), _if_secret(2, 3)),
    # set NAME VALUE: aws configure set, git config, tmux set-option @api_token ...
    (
        re.compile(
            rf"(?i)\b(?:set[a-z_-]*|config|setenv)\s+(?:-[A-Za-z]+\s+)*({_WORD})(\s+){_VALUE}"
        ),
        _if_secret(1, 2),
    ),
    # a password given to a command by its flag (see _COMMAND_FLAGS)
    *(
        (re.compile(rf"\b(?:{commands})\b[^\n;|&]*"), _flag_values(flag))
        for commands, flag in _COMMAND_FLAGS
    ),
    # echo PASSWORD | sudo -S, sudo -S <<< PASSWORD
    (
        re.compile(rf"\b(echo\s+(?:-[neE]+\s+)*)(?=[^\s|-]){_VALUE}(\s*\|\s*{_SUDO_STDIN})"),
        rf"\1{REDACTED}\2",
    ),
    (re.compile(rf"({_SUDO_STDIN}[^\n;|&]*?<<<\s*)(?=\S){_VALUE}"), rf"\1{REDACTED}"),
    # user:password after -u/--user (curl, wget), user%password after -U (smbclient,
    # rpcclient ...), and htpasswd -b FILE USER PASSWORD
    (
        re.compile(
            r"(?<!\S)(-u\s*|-U\s*|--(?:proxy-)?user(?:name)?(?:\s+|=))"
            r"([^\s:%\"']+(?::(?!//)|%))(?=\S)" + _VALUE
        ),
        rf"\1\2{REDACTED}",
    ),
    (
        re.compile(
            r"\b(htpasswd\s+(?:-[A-Za-z]+\s+)*-[A-Za-z]*b[A-Za-z]*\s+(?:-[A-Za-z]+\s+)*"
            r"(?:-n\s+)?(?:\S+\s+){1,2})(?=[^\s-])" + _VALUE
        ),
        rf"\1{REDACTED}",
    ),
    (
        # well-known token formats, also glued to a word (TOKENghp_...)
        re.compile(
            r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}"
            r"|glpat-[A-Za-z0-9_-]{20,}|xox[abposr]-[A-Za-z0-9-]{10,}|npm_[A-Za-z0-9]{20,}"
            r"|pypi-[A-Za-z0-9_-]{40,}|hf_[A-Za-z0-9]{30,}|[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"
            r"|AKIA[0-9A-Z]{16})"
            r"|\b(?:sk-[A-Za-z0-9_-]{20,}"
            r"|eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
        ),
        REDACTED,
    ),
)
#: What the command rules above need in their match (lower case).
_COMMAND_MARKS = (
    "mysql",
    "mariadb",
    "7z",
    "sshpass",
    "login",
    "mongo",
    "zip",
    "sqlcmd",
    "bcp",
    "osql",
    "redis-cli",
    "ldap",
    "ssh-keygen",
    "openssl",
    "sudo",
    "-u",
    "--user",
    "htpasswd",
)
#: Something every rule above needs in its match; text without any is left as
#: it is in one pass instead of many (tool arguments are mostly ids and cursors).
#: Every name :func:`secret_name` flags holds one of ``NAME_MARKS``.
_TRIGGER = re.compile(
    r"-----BEGIN|://|(?i:\b(?:bearer|basic)\s)"
    rf"|(?i:{'|'.join(map(re.escape, (*NAME_MARKS, 'private', 'credential')))})"
    rf"|(?i:{'|'.join(map(re.escape, _COMMAND_MARKS))})"
    r"|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|npm_|pypi-|hf_|[sr]k_|sk-|AKIA"
    r"|eyJ[A-Za-z0-9_-]{8,}\."
)
#: Arguments that carry an environment (object, or the same as a JSON string).
_ENVIRONMENT_KEYS = frozenset({"environment"})


def _shortest(marks: tuple[str, ...]) -> tuple[str, ...]:
    """``marks`` without those that hold another (``password`` holds ``pass``)."""
    unique = dict.fromkeys(marks)
    return tuple(m for m in unique if not any(o != m and o in m for o in unique))


#: Lower-case literals, one of which is in every text ``_TRIGGER`` matches: a
#: few substring tests (fast, in C) spare most texts the regex, which tries
#: its alternatives at every position (55 µs for a capture_since cursor).
_MARKS = _shortest(
    (
        "-----begin",
        "://",
        "bearer",
        "basic",
        *NAME_MARKS,
        "private",
        "credential",
        *_COMMAND_MARKS,
        "gh",
        "github_pat_",
        "glpat-",
        "xox",
        "npm_",
        "pypi-",
        "hf_",
        "k_",
        "sk-",
        "akia",
        "eyj",
    )
)


#: A UTF-16 surrogate in a ``str``: not text UTF-8 can carry (a refused call's
#: argument may hold one); logged as U+FFFD.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _plain(text: str) -> str:
    """``text`` as the rules match it: NFKC (fullwidth letters become ASCII), and
    without invisible format characters (zero-width space, joiners, soft hyphen ...)."""
    if text.isascii():
        return text
    return "".join(
        c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf"
    )


def _apply_rules(text: str) -> str:
    lowered = text.lower()
    if any(mark in lowered for mark in _MARKS) and _TRIGGER.search(text) is not None:
        for pattern, replacement in _TEXT_RULES:
            text = pattern.sub(replacement, text)
    return text


def scrub_text(text: str) -> str:
    """``text`` with secret-looking parts replaced, cut to :data:`MAX_STRING` characters,
    lone surrogates shown as U+FFFD.

    The rules see only the first ``MAX_STRING + SCRUB_MARGIN`` characters: what is
    logged, and enough after it to finish a secret that starts there. Some rules
    take time quadratic in their input, and a tool's argument may be megabytes
    (4 MiB through load_buffer): the whole of it froze every call for minutes.
    """
    rest = max(0, len(text) - (MAX_STRING + SCRUB_MARGIN))
    text = _LONE_SURROGATE.sub("\ufffd", text[: MAX_STRING + SCRUB_MARGIN])
    if not text.isascii():  # O(1): str knows; pass\u200bword, fullwidth letters ...
        plain = _plain(text)
        if plain != text and _apply_rules(plain) != plain:
            text = plain
    text = _apply_rules(text)
    if len(text) + rest > MAX_STRING:
        text = f"{text[:MAX_STRING]}…[{len(text) + rest - MAX_STRING} more characters]"
    return text


def redact(value: Any, depth: int = 0) -> Any:
    """A JSON-ready copy of ``value`` (tool arguments) that is safe to log."""
    if depth > MAX_DEPTH:
        return "[nested too deep]"
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return scrub_text(value)
    if isinstance(value, Mapping):
        return _redact_mapping(value, depth)
    if isinstance(value, list | tuple):
        items = [redact(v, depth + 1) for v in value[:MAX_ITEMS]]
        if len(value) > MAX_ITEMS:
            items.append(f"[{len(value) - MAX_ITEMS} more items]")
        return items
    return scrub_text(repr(value))


def _redact_mapping(mapping: Mapping[Any, Any], depth: int) -> dict[str, Any]:
    # set_environment(name=..., value=...), set_option(option="@api_token", value=...):
    # the value is as secret as its name says.
    secret_value = any(
        isinstance(named, str) and secret_name(_plain(named).lstrip("@"))
        for named in (mapping.get("name"), mapping.get("option"), mapping.get("variable"))
    )
    out: dict[str, Any] = {}
    for i, (raw_key, item) in enumerate(mapping.items()):
        if i >= MAX_ITEMS:
            out["…"] = f"[{len(mapping) - MAX_ITEMS} more keys]"
            break
        key = scrub_text(str(raw_key))
        if secret_name(_plain(key)) or (secret_value and key in ("value", "values")):
            out[key] = REDACTED
        elif key in _ENVIRONMENT_KEYS and isinstance(item, str):
            out[key] = _redact_environment_text(item, depth)
        else:
            out[key] = redact(item, depth + 1)
    return out


def _redact_environment_text(text: str, depth: int) -> Any:
    try:
        loaded = json.loads(text)
    except ValueError:
        return scrub_text(text)
    return redact(loaded, depth + 1) if isinstance(loaded, dict) else scrub_text(text)
