"""What an agent may set in tmux, and from which tier: options and
environment variables whose effects outlast a call (docs/safety.md,
"Options: an allow-list" and "The environment: the user's, not gridmux's").
"""

from __future__ import annotations

from collections.abc import Mapping

from gridmux.safety import Tier

# -- options a tier may set -------------------------------------------------------------

_STYLES = (
    "status-style status-left-style status-right-style message-style message-command-style "
    "mode-style pane-border-style pane-active-border-style window-style window-active-style "
    "window-status-style window-status-current-style window-status-last-style "
    "window-status-activity-style window-status-bell-style popup-style popup-border-style "
    "copy-mode-match-style copy-mode-current-match-style copy-mode-mark-style "
    "clock-mode-colour display-panes-colour display-panes-active-colour cursor-colour "
    "cursor-style"
)
_BEHAVIOUR = (
    "history-limit mouse remain-on-exit escape-time mode-keys status-keys base-index "
    "pane-base-index renumber-windows allow-rename automatic-rename aggressive-resize "
    "monitor-activity monitor-bell monitor-silence activity-action bell-action "
    "silence-action visual-activity visual-bell visual-silence synchronize-panes "
    "window-size main-pane-height main-pane-width other-pane-height other-pane-width "
    "wrap-search alternate-screen display-time display-panes-time repeat-time focus-events "
    "status status-position status-interval status-justify status-left-length "
    "status-right-length buffer-limit message-limit default-size clock-mode-style "
    "word-separators scroll-on-clear pane-border-status pane-border-lines "
    "pane-border-indicators set-titles extended-keys"
)
#: Options that end sessions or the server by themselves, later.
_ENDINGS = "exit-empty exit-unattached destroy-unattached detach-on-destroy"

#: The tmux options ``set_option`` may set, and the lowest tier that may set each
#: (user options, ``@name``, are mutating). Every other option is refused at every
#: tier: formats that can hold ``#(...)`` (``status-left``, ``*-format``,
#: ``set-titles-string``), commands and shells (``default-command``,
#: ``default-shell``, ``lock-command``, ``copy-command``, ``editor``),
#: ``command-alias``, files (``history-file``), what reaches the outer terminal
#: (``set-clipboard``, ``allow-passthrough``, ``terminal-*``), key tables and
#: prefixes, and hooks: they act after gridmux has gone, so they belong in the
#: user's tmux.conf.
SETTABLE_OPTIONS: Mapping[str, Tier] = {
    **dict.fromkeys((_STYLES + " " + _BEHAVIOUR).split(), Tier.MUTATING),
    **dict.fromkeys(_ENDINGS.split(), Tier.DESTRUCTIVE),
}

#: Sequences no option value may hold: a format re-expanding it would run or build a job.
_FORMAT_OPENERS = ("#(", "#{", "##")

#: Environment variables that make the shells and programs of later panes
#: run code or other files: shell start-up files and prompt hooks, which
#: programs and files a shell finds (``PATH``, ``HOME``), the dynamic loader,
#: and interpreters' start-up options. In a session's or the global tmux
#: environment they act in panes the user opens after gridmux has gone, as
#: ``default-command`` would, so only a destructive call may set them there.
CODE_VARIABLES = frozenset(
    [
        "BASH_ENV",
        "ENV",
        "ZDOTDIR",
        "FPATH",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "INPUTRC",
        "PATH",
        "HOME",
        "XDG_CONFIG_HOME",
        "PYTHONSTARTUP",
        "PYTHONPATH",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "NODE_OPTIONS",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
    ]
)
#: Prefixes of such variables: the loader's, and bash's exported functions.
CODE_PREFIXES = ("LD_", "DYLD_", "BASH_FUNC_")
#: Prompts a shell expands each time it draws them; a command substitution
#: (or a ``${…}`` expansion, which can hold one) in them runs code.
PROMPT_VARIABLES = frozenset(
    [
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT",
        "PROMPT2",
        "PROMPT3",
        "PROMPT4",
        "RPROMPT",
        "RPS1",
        "RPS2",
    ]
)
_SUBSTITUTIONS = ("$(", "`", "${")


def environment_refusal(name: str, value: str, tier: Tier) -> str | None:
    """Why a ``tier`` call may not put ``name=value`` into a session's or the
    global tmux environment (None: it may)."""
    runs = name in CODE_VARIABLES or name.startswith(CODE_PREFIXES)
    if name in PROMPT_VARIABLES:
        runs = any(opener in value for opener in _SUBSTITUTIONS)
    if not runs or tier >= Tier.DESTRUCTIVE:
        return None
    return (
        f"{name} makes the shells of panes opened later run code or other files, also "
        f"after gridmux has gone, so only a destructive call may set it in a tmux "
        f"environment (this one is {tier.tag})"
    )


def option_refusal(base: str, value: str, tier: Tier) -> str | None:
    """Why a ``tier`` call may not set option ``base`` to ``value`` (None: it may)."""
    opener = next((o for o in _FORMAT_OPENERS if o in value), None)
    if opener is not None:
        return (
            f"refusing a value holding {opener!r}: tmux may expand an option as a format, "
            "and a format can run shell commands"
        )
    needed = Tier.MUTATING if base.startswith("@") else SETTABLE_OPTIONS.get(base)
    if needed is None:
        return (
            f"{base!r} is not an option gridmux sets: it holds a format, a command, a "
            "file or a key table, or acts after gridmux has gone (see docs/safety.md)"
        )
    if needed > tier:
        return (
            f"{base!r} can end sessions or the server by itself, so only a "
            f"{needed.tag} call may set it (this one is {tier.tag})"
        )
    return None


__all__ = [
    "CODE_PREFIXES",
    "CODE_VARIABLES",
    "PROMPT_VARIABLES",
    "SETTABLE_OPTIONS",
    "environment_refusal",
    "option_refusal",
]
