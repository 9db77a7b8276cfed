"""Which names suggest a secret value: ONE judgement for the audit log's
redaction and for the environment of a tmux server gridmux starts.

A name is secret-looking when it holds one of the parts below anywhere
(``DB_PASSWORD``, ``GITHUB_TOKEN``, ``cookie_jar``), or one of the short words
as a word of its own (``API_KEY``, ``DB_PASS``, ``DB_PW``, ``SIGNING_SALT``: words split at
non-alphanumerics and at a lower-to-upper case change).
"""

from __future__ import annotations

import re

_SECRET_WORDS = frozenset({"key", "pass", "pwd", "pw", "auth", "pin", "otp", "creds", "salt"})
_SECRET_PARTS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "accesskey",
    "access_key",
    "privatekey",
    "private_key",
    "credential",
    "cookie",
)


#: One of these is in every name :func:`secret_name` flags, lower-cased (the audit
#: log's prefilter relies on it).
NAME_MARKS = (*sorted(_SECRET_WORDS), *_SECRET_PARTS)


def secret_name(name: str) -> bool:
    """Whether a key or variable name suggests its value is a secret."""
    lowered = name.lower()
    if any(part in lowered for part in _SECRET_PARTS):
        return True
    words = re.split(r"[^a-z0-9]+", re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower())
    return any(word in _SECRET_WORDS for word in words)


__all__ = ["NAME_MARKS", "secret_name"]
