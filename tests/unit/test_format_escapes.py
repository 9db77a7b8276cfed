"""How each tmux release prints values back, and how the backend reads them.

The printed forms are the ones measured on real tmux (3.3a, 3.4, 3.5a) for
the stored value ``$ab\\$cd"`` and friends; each release's form must read
back as the value that was stored.
"""

from __future__ import annotations

import pytest

from gridmux.backend._formats import unescape
from gridmux.backend._show_output import parse_environment, parse_options

STORED = '$ab\\$cd"'


@pytest.mark.parametrize(
    ("release", "printed"),
    [
        ("3.3a", b'$ab\\$cd"\x1f'),  # raw
        ("3.4", b'\\$ab\\\\$cd"\\037'),  # control bytes octal, "$name" as "\$name"
        ("3.5a", b'$ab\\\\$cd"\\037'),  # control bytes octal, backslashes doubled
    ],
)
def test_format_output_reads_back_on_every_release(release: str, printed: bytes) -> None:
    decoded = printed if release == "3.3a" else unescape(printed)
    assert decoded == (STORED + "\x1f").encode()


def test_a_dollar_before_no_name_is_not_escaped_by_34_and_reads_back() -> None:
    assert unescape(b"$1 $- x$ \\037") == b"$1 $- x$ \x1f"


@pytest.mark.parametrize(
    "printed",
    [
        '@a "\\$ab\\\\\\$cd\\""',  # 3.3a, 3.5a: "$" and backslash escaped in double quotes
        '@a "\\\\$ab\\\\\\\\$cd\\""',  # 3.4: one more backslash before each "$name"
    ],
)
def test_show_options_values_read_back_on_every_release(printed: str) -> None:
    assert parse_options(printed + "\n") == {"@a": STORED}


@pytest.mark.parametrize(
    "printed",
    [
        'E="\\$ab\\\\\\$cd\\""; export E;\n',  # 3.3a, 3.5a
        'E="\\\\$ab\\\\\\\\$cd\\""; export E;\n',  # 3.4
    ],
)
def test_show_environment_values_read_back_on_every_release(printed: str) -> None:
    assert parse_environment(printed) == {"E": STORED}
