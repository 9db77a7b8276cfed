"""Arguments of every tool that starts a process: its environment (and the
history suppression that rides on it) and its start directory."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

from gridmux.backend import VARIABLE_NAME
from gridmux.errors import InvalidArgument
from gridmux.safety import Tier
from gridmux.settable import environment_refusal

from ._targets import check_name

_HISTORY_OFF = {"HISTFILE": "", "fish_history": "", "fish_private_mode": "1"}


def parse_environment(
    environment: dict[str, str] | str | None, *, suppress_history: bool
) -> dict[str, str]:
    """Validate an ``environment`` argument (object or JSON string)."""
    if isinstance(environment, str):
        try:
            loaded: Any = json.loads(environment) if environment.strip() else {}
        except ValueError as exc:
            raise InvalidArgument(f"environment is not valid JSON: {exc}") from exc
    else:
        loaded = environment or {}
    if not isinstance(loaded, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in loaded.items()
    ):
        raise InvalidArgument(
            "environment must map names to string values",
            hint='Pass e.g. {"RUST_LOG": "debug"}.',
        )
    for name in loaded:
        if not VARIABLE_NAME.fullmatch(name):
            raise InvalidArgument(f"{name!r} is not a valid environment variable name")
    env = dict(loaded)
    if suppress_history:
        for name, value in _HISTORY_OFF.items():
            if name in env and env[name] != value:
                raise InvalidArgument(
                    f"environment sets {name} but suppress_persistent_history needs it {value!r}"
                )
            env[name] = value
        control = env.get("HISTCONTROL", "")
        if "ignorespace" not in control.split(":"):
            env["HISTCONTROL"] = f"{control}:ignorespace" if control else "ignorespace"
    return env


def check_lasting_environment(env: Mapping[str, str], tier: Tier) -> None:
    """Refuse variables that would make later panes run code
    (``settable.environment_refusal``) in a session's or the global environment."""
    for name, value in env.items():
        refused = environment_refusal(name, value, tier)
        if refused is not None:
            raise InvalidArgument(
                f"not setting {name}: {refused}",
                hint="Nothing was changed. For one pane pass it in create_window's or "
                "split_window's environment, for one command type 'NAME=value command'.",
            )


def check_start_directory(start_directory: str | None) -> str | None:
    """An existing directory, ``~`` expanded; None stays None.

    tmux starts a process whose directory does not exist in ``$HOME`` without
    a word, so a typo would silently run commands in the wrong place.
    """
    if start_directory is None:
        return None
    check_name("start_directory", start_directory)  # a directory may have a line break
    path = os.path.expanduser(start_directory)
    if not os.path.isabs(path) or not os.path.isdir(path):
        raise InvalidArgument(
            f"start_directory {start_directory!r} is not an existing directory",
            hint="Pass an absolute path to a directory that exists (or omit it).",
        )
    return path


__all__ = ["check_start_directory", "parse_environment"]
