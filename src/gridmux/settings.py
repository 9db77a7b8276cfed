"""Settings: typed values, read once at start-up from the command line and the environment.

:class:`Settings` is a pydantic-settings model. Built directly
(``Settings(safety="readonly")``) it holds what it is given and the defaults,
nothing else: a server built in a test never depends on the shell that runs
it. :meth:`Settings.from_command_line` is the ``gridmux`` command's way in:
each option on the command line wins over its ``GRIDMUX_*`` environment
variable, which wins over the default. A bad value ends the command with
exit status 2 and a message naming the option (or variable) and what it
accepts.
"""

from __future__ import annotations

import argparse
import ipaddress
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NoReturn

from pydantic import (
    BeforeValidator,
    Field,
    PlainSerializer,
    SecretStr,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from gridmux.backend import VARIABLE_NAME
from gridmux.safety import Tier
from gridmux.selection import GROUPS, offered_tools, select_tools
from gridmux.server_environment import tmux_environment

ENV_PREFIX = "GRIDMUX_"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: Transports the server speaks: stdio (default) or streamable HTTP at ``/mcp``.
Transport = Literal["stdio", "http"]
TRANSPORTS: tuple[Transport, ...] = ("stdio", "http")


def _tier(value: object) -> object:
    """A tier's name (``readonly``, ...) as its :class:`Tier`; a Tier as it is."""
    if not isinstance(value, str):
        return value
    names = [tier.tag for tier in Tier]
    if value not in names:
        choices = f"{', '.join(names[:-1])} or {names[-1]}"
        raise ValueError(f"unknown safety tier {value!r} (choose {choices})")
    return Tier.parse(value)


def _on_off(value: object) -> object:
    """``on``/``off`` as a bool (a bool as it is); anything else is refused."""
    if isinstance(value, str):
        if value not in ("on", "off"):
            raise ValueError(f"expected 'on' or 'off', not {value!r}")
        return value == "on"
    return value


#: A safety tier, written as its name (``readonly``, ``mutating``, ``destructive``).
SafetyTier = Annotated[Tier, BeforeValidator(_tier), PlainSerializer(lambda t: t.tag)]
#: A switch written ``on`` or ``off``.
OnOff = Annotated[bool, BeforeValidator(_on_off)]


class Settings(BaseSettings):
    """Everything the server is configured with (field ``x`` is ``--x`` / ``GRIDMUX_X``)."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_ignore_empty=True,  # GRIDMUX_X= (empty) means unset, as before
        frozen=True,
        extra="forbid",
        validate_by_name=True,
    )

    backend: str = "tmux"
    socket_name: str | None = None
    socket_path: str | None = None
    tmux_bin: str | None = None
    sim_version: str = "3.3a"
    safety: SafetyTier = Tier.MUTATING
    transport: Transport = "stdio"
    host: str = DEFAULT_HOST
    port: int = Field(default=DEFAULT_PORT, ge=0, le=65535)
    audit_log: str | None = None
    control_mode: OnOff = True
    #: With socket_name or socket_path set, whether calls may name other tmux servers.
    allow_other_servers: OnOff = False
    #: Tools and groups (``gridmux.selection.GROUPS``) to offer, comma-separated;
    #: None offers every tool of the tier. ``exclude_tools`` takes some away.
    tools: str | None = None
    exclude_tools: str | None = None
    #: Variables whose names look secret that tmux processes (and a tmux
    #: server gridmux starts) still get, comma-separated (server_environment).
    pass_env: str | None = None
    #: run_command's ``suppress_history`` when a call leaves it out (on: the
    #: typed line starts with a space; off: the command is added to history).
    suppress_history: OnOff = True
    #: Whether tools/list carries each tool's output schema (results always carry
    #: structuredContent; the schemas are for clients that validate it).
    output_schemas: OnOff = False
    #: The longest timeout a tool that waits accepts, in seconds (at most an hour).
    wait_max_seconds: float = Field(default=3600.0, gt=0, le=3600.0)
    #: Seconds an HTTP connection may take to send a whole request head
    #: (request line and headers) before it is closed.
    http_header_timeout: float = Field(default=10.0, gt=0, le=300.0)
    #: HTTP bearer token: a private file holding it, or (environment only) the token.
    http_token_file: str | None = None
    http_token: SecretStr | None = None
    #: The pane and tmux server the MCP process runs in (tmux sets ``TMUX_PANE``
    #: and ``TMUX``), so that no tool kills them.
    caller_pane: str | None = Field(default=None, validation_alias="TMUX_PANE")
    caller_socket: str | None = Field(default=None, validation_alias="TMUX")

    @field_validator("host")
    @classmethod
    def _loopback_only(cls, host: str) -> str:
        if not is_loopback(host):
            raise ValueError(
                "refusing to serve on a non-loopback address: gridmux listens on loopback only "
                "(127.0.0.1, ::1 or localhost), since anyone who reaches it can type into "
                "your terminals"
            )
        return host

    @field_validator("tools", "exclude_tools")
    @classmethod
    def _known_tools(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is not None:  # an unknown name, or a selection of nothing, is refused
            select_tools(value, None) if info.field_name == "tools" else select_tools(None, value)
        return value

    @field_validator("pass_env")
    @classmethod
    def _variable_names(cls, value: str | None) -> str | None:
        if value is not None:
            bad = [name for name in value.split(",") if not VARIABLE_NAME.fullmatch(name.strip())]
            if bad:
                raise ValueError(f"{', '.join(map(repr, bad))} are not variable names")
        return value

    def tmux_environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """The environment of the tmux processes gridmux starts (``server_environment``)."""
        names = {name.strip() for name in (self.pass_env or "").split(",") if name.strip()}
        return tmux_environment(environ, names)

    @model_validator(mode="after")
    def _some_tool(self) -> Settings:
        selected = self.selected_tools()  # --tools and --exclude-tools leave at least one
        if selected is not None and not offered_tools(self.safety, selected):
            raise ValueError(
                f"--tools/--exclude-tools: the selection leaves no tool at the "
                f"{self.safety.tag} tier (--safety)"
            )
        return self

    def selected_tools(self) -> frozenset[str] | None:
        """The tools this server offers (before its tier applies); None: all of them."""
        if self.tools is None and self.exclude_tools is None:
            return None
        return select_tools(self.tools, self.exclude_tools)

    @field_validator("caller_socket")
    @classmethod
    def _socket_of_tmux_variable(cls, value: str | None) -> str | None:
        """``TMUX`` is ``socket,pid,session``: keep the socket."""
        return value.split(",", 1)[0] or None if value else None

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the values given: the environment is read by :meth:`from_command_line`."""
        return (init_settings,)

    @classmethod
    def from_command_line(cls, argv: Sequence[str]) -> Settings:
        """The command line over the environment over the defaults; exit 2 on a bad value."""
        parser = build_parser()
        given = {k: v for k, v in vars(parser.parse_args(list(argv))).items() if k != "version"}
        environment: dict[str, Any] = EnvSettingsSource(cls)()
        try:
            return cls(**{**environment, **given})
        except ValidationError as exc:
            _refuse(parser, exc, given)

    @classmethod
    def option(cls, field: str) -> str:
        """``--socket-name`` for ``socket_name``."""
        return "--" + field.replace("_", "-")

    @classmethod
    def variable(cls, field: str) -> str:
        """``GRIDMUX_SOCKET_NAME`` for ``socket_name`` (``TMUX_PANE`` for ``caller_pane``)."""
        info = cls.model_fields.get(field)
        alias = info.validation_alias if info is not None else None
        return alias if isinstance(alias, str) else ENV_PREFIX + field.upper()


def _refuse(
    parser: argparse.ArgumentParser, exc: ValidationError, given: Mapping[str, Any]
) -> NoReturn:
    """``parser.error`` (exit status 2) naming each bad option or variable and its value."""
    problems = []
    for error in exc.errors(include_url=False):
        cause = error.get("ctx", {}).get("error")
        reason = str(cause) if isinstance(cause, ValueError) else error["msg"]
        if not error["loc"]:  # several options together (the reason names them)
            problems.append(reason)
            continue
        field = str(error["loc"][0])
        where = Settings.option(field) if field in given else Settings.variable(field)
        problems.append(f"{where}={error['input']!r}: {reason}")
    parser.error("; ".join(problems))


def build_parser() -> argparse.ArgumentParser:
    """The ``gridmux`` options; an option not given is absent from the namespace."""
    parser = argparse.ArgumentParser(
        prog="gridmux",
        description=(
            "MCP server for tmux (speaks MCP over stdio, or streamable HTTP on loopback). "
            "Every option has an environment variable, GRIDMUX_ and its name in capitals "
            "(GRIDMUX_SOCKET_NAME, ...); the option wins over the variable."
        ),
        argument_default=argparse.SUPPRESS,
        allow_abbrev=False,  # an option is spelled out: no prefix stands for it
    )
    add = parser.add_argument
    add(
        "--backend",
        metavar="NAME",
        help="tmux (default): real tmux; sim: the built-in tmux simulator",
    )
    add(
        "--socket-name",
        metavar="NAME",
        help="the tmux server to use, like tmux -L (calls are confined to it)",
    )
    add(
        "--socket-path",
        metavar="PATH",
        help="the tmux server to use, like tmux -S (calls are confined to it)",
    )
    add("--tmux-bin", metavar="PATH", help="tmux executable to run (default: tmux on PATH)")
    add(
        "--sim-version",
        metavar="VERSION",
        help="tmux version the simulator imitates (default 3.3a)",
    )
    add(
        "--safety",
        choices=[tier.tag for tier in Tier],
        help="highest tool tier to expose (default mutating: everything but the kill tools)",
    )
    add(
        "--transport",
        choices=TRANSPORTS,
        help="stdio (default) or http: streamable HTTP at /mcp",
    )
    add("--host", help=f"HTTP address, loopback only (default {DEFAULT_HOST})")
    add(
        "--port",
        help=f"HTTP port (default {DEFAULT_PORT}; 0 picks a free one and prints it)",
    )
    add(
        "--http-token-file",
        metavar="PATH",
        help=(
            "HTTP bearer token: the first line of PATH, a file only you can read (default: "
            "GRIDMUX_HTTP_TOKEN, else a random token printed on stderr at start-up)"
        ),
    )
    add(
        "--http-header-timeout",
        metavar="SECONDS",
        help=(
            "HTTP: close a connection that has not sent a whole request head (request line "
            "and headers) within SECONDS (default 10, at most 300)"
        ),
    )
    add(
        "--audit-log",
        metavar="PATH",
        help=(
            "append one JSON line per tool call to PATH (default: the gridmux.audit logger, "
            "on stderr)"
        ),
    )
    add(
        "--control-mode",
        choices=("on", "off"),
        help=(
            "on (default): send tmux commands over one persistent control-mode client per "
            "server; off: one tmux process per command"
        ),
    )
    add(
        "--allow-other-servers",
        choices=("on", "off"),
        help=(
            "off (default): with --socket-name or --socket-path, every call stays on that "
            "server; on: a call's socket_name/socket_path may reach the user's other servers"
        ),
    )
    add(
        "--tools",
        metavar="LIST",
        help=(
            "offer only these tools, comma-separated tool names and groups: "
            f"{', '.join(GROUPS)} (default: every tool of the safety tier)"
        ),
    )
    add(
        "--exclude-tools",
        metavar="LIST",
        help="offer none of these tools and groups (comma-separated), e.g. batch,teardown",
    )
    add(
        "--pass-env",
        metavar="LIST",
        help=(
            "variables whose names look secret (*_TOKEN, *_KEY, SSH_AUTH_SOCK ...) that tmux, "
            "and a tmux server gridmux starts, still get from gridmux's environment, "
            "comma-separated (default: none; GRIDMUX_* never)"
        ),
    )
    add(
        "--suppress-history",
        choices=("on", "off"),
        help=(
            "on (default): run_command keeps the command out of shell history (its typed "
            "line starts with a space, which HISTCONTROL=ignorespace skips); off: it adds "
            "the command to bash's, zsh's or ksh's history; unless a call says otherwise"
        ),
    )
    add(
        "--wait-max-seconds",
        metavar="SECONDS",
        help="ceiling on every wait's timeout (default 3600; a longer one is refused)",
    )
    add(
        "--output-schemas",
        choices=("on", "off"),
        help=(
            "off (default): tools/list leaves out each tool's output schema (results still "
            "carry structuredContent; docs/tools.md lists their fields); on: list them, for "
            "clients that validate structured results"
        ),
    )
    add("--version", action="store_true", help="print the version and exit")
    return parser


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only: ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "TRANSPORTS",
    "OnOff",
    "SafetyTier",
    "Settings",
    "Transport",
    "build_parser",
    "is_loopback",
]
