"""tmux releases the simulator can imitate, and the behaviours that differ.

Every flag is a row of ``docs/tmux-model.md`` §19; everything not listed there is
identical from 3.2a to 3.8.
"""

from __future__ import annotations

from dataclasses import dataclass

from gridmux.backend import read_version

KNOWN_VERSIONS = ("3.2a", "3.3a", "3.4", "3.5a", "3.6b", "3.7c", "3.8")


@dataclass(frozen=True, slots=True, order=True)
class TmuxVersion:
    major: int
    minor: int
    patch: str = ""

    @classmethod
    def parse(cls, text: str) -> TmuxVersion:
        """The release to imitate for ``text`` (``3.5a``, or ``tmux -V``'s line).

        Read as the real backend reads it (``gridmux.backend.read_version``): a
        development build or release candidate is the release before it; a
        name without a release is refused (the simulator needs one).
        """
        named = read_version(text)
        if named is None:
            raise ValueError(f"not a tmux version: {text!r} (expected e.g. '3.5a')")
        if named.stage != "release":
            return cls(*named.release)
        return cls(named.major, named.minor, named.letter)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}{self.patch}"

    def _at_least(self, major: int, minor: int) -> bool:
        return (self.major, self.minor) >= (major, minor)

    # -- grid and capture ----------------------------------------------------
    @property
    def has_scroll_on_clear_option(self) -> bool:
        """3.3+: ED2/ED0-at-home/RIS scroll into history only if ``scroll-on-clear``."""
        return self._at_least(3, 3)

    @property
    def history_limit_applies_to_existing_panes(self) -> bool:
        """3.7+: ``set history-limit`` trims existing panes at once."""
        return self._at_least(3, 7)

    @property
    def capture_prints_tabs(self) -> bool:
        """3.6+: a TAB cell is stored and ``capture-pane`` prints ``\\t``."""
        return self._at_least(3, 6)

    @property
    def join_pads_to_cellsize(self) -> bool:
        """3.2a: ``capture-pane -J`` keeps trailing blanks up to the allocated size."""
        return not self._at_least(3, 3)

    @property
    def reflow_counts_padding(self) -> bool:
        """3.6+ (measured: 3.5a swallows, 3.6b, 3.7c and 3.8 keep it; the fidelity
        run on 3.6b placed it): reflow counts a wide character's padding cell
        as one column, so a character wider than the new width no longer
        swallows the one after it."""
        return self._at_least(3, 6)

    @property
    def rgb_background_padding_is_narrow(self) -> bool:
        """3.8 (measured on 3.7c and 3.8; found by the fidelity run): a wide
        character's padding cell carries its background; with an RGB
        background it becomes an extended cell, which 3.8's reflow counts as
        no column -- so for such a character the 3.7 change above
        (``reflow_counts_padding``) is undone and the character after it
        is lost again. An RGB foreground or a palette background does not."""
        return self._at_least(3, 8)

    @property
    def broken_wide_keeps_background(self) -> bool:
        """3.8 (measured on 3.7c and 3.8; found by the fidelity run): the cells
        of a wide character broken up by a write over part of it clear to
        blanks that keep the character's background (any colour), so
        ``capture-pane -e`` still shows it there; up to 3.7c they clear to
        default blanks."""
        return self._at_least(3, 8)

    @property
    def text_overwrite_reaches_column_zero(self) -> bool:
        """3.6+ (measured on 3.6b, 3.7c and 3.8; the fidelity run on 3.6b placed
        it): text written over the right half of a wide character in column 0
        blanks it; up to 3.5a the character stays and the text lands on its
        padding."""
        return self._at_least(3, 6)

    @property
    def bounds_are_formats(self) -> bool:
        """3.4+: ``-S``/``-E`` are format-expanded."""
        return self._at_least(3, 4)

    @property
    def no_trim_reads_cellsize(self) -> bool:
        """``capture-pane -N`` row length (§15, §19): 3.2a and 3.4+
        read each row to its allocated ``cellsize`` (so ``-N`` pads to a width
        that depends on write history); 3.3a reads to ``cellused``. From 3.4
        ``-T`` (see ``capture_has_trim_flag``) reads to ``cellused`` again."""
        return (self.major, self.minor) != (3, 3)

    @property
    def capture_has_trim_flag(self) -> bool:
        """3.4+: ``capture-pane -T`` (stop at the last used cell) exists (§19)."""
        return self._at_least(3, 4)

    @property
    def capture_has_mode_screen_flag(self) -> bool:
        """3.6+: ``capture-pane -M`` (the copy-mode screen) exists (§19)."""
        return self._at_least(3, 6)

    @property
    def capture_has_row_info_flags(self) -> bool:
        """3.7+: ``capture-pane -F`` (flags column), ``-L`` (row numbers) and
        ``-H`` (hyperlinks) exist (§15, §19)."""
        return self._at_least(3, 7)

    @property
    def capture_has_raw_flag(self) -> bool:
        """``capture-pane -R`` (raw grid dump, §19):
        measured here, the 3.8 release has it and 3.7c refuses it."""
        return self._at_least(3, 8)

    @property
    def capture_flags(self) -> str:
        """Every switch ``capture-pane`` accepts at this version (the others are
        ``unknown flag`` errors). ``-S``/``-E``/``-t``/``-b`` take values."""
        flags = "aCeJNpPq"
        if self.capture_has_trim_flag:
            flags += "T"
        if self.capture_has_mode_screen_flag:
            flags += "M"
        if self.capture_has_row_info_flags:
            flags += "FLH"
        if self.capture_has_raw_flag:
            flags += "R"
        return flags

    @property
    def sgr_style(self) -> str:
        """How ``capture-pane -e`` encodes attributes (§15, styles A/B/C):
        ``"A"`` (3.2a) restates both colours after every reset and
        walks rows to ``cellsize``; ``"B"`` (3.3a) restates them too but walks
        only to ``cellused``, so a row's style carries into the next; ``"C"``
        (3.4+) writes a reset alone when the colours are default and, walking
        to ``cellsize``, closes a row whose last used cell is styled.
        Measured on 3.3a (B) and 3.5a/3.7c/3.8 (C); A as §15 has it."""
        if self._at_least(3, 4):
            return "C"
        return "B" if self._at_least(3, 3) else "A"

    # -- panes -----------------------------------------------------------------
    @property
    def dead_pane_message_is_format(self) -> bool:
        """3.3+: ``remain-on-exit-format`` clipped to one row; 3.2a fixed text that wraps."""
        return self._at_least(3, 3)

    @property
    def dead_pane_pid_empty(self) -> bool:
        """3.8: ``pane_pid`` is empty for a dead pane (§13). Measured on
        3.8: it is empty as soon as the pty is closed, before the exit status
        is reaped."""
        return self._at_least(3, 8)

    @property
    def pane_dead_waits_for_status(self) -> bool:
        """3.7+: ``pane_dead`` is 1 only once the pty is closed **and** the exit
        status has been reaped; before 3.7 a closed pty is enough (§13, §19).
        Measured on 3.3a/3.5a (dead, status empty, no message while a program
        that closed its tty still runs) and 3.7c/3.8 (not dead until it exits)."""
        return self._at_least(3, 7)

    @property
    def destroy_waits_for_status(self) -> bool:
        """3.8: with ``remain-on-exit off`` a pane whose pty closed is destroyed
        only once its exit status is reaped; up to 3.7c it is destroyed when
        the pty closes. Measured on 3.3a, 3.5a, 3.7c and 3.8 (§13)."""
        return self._at_least(3, 8)

    @property
    def has_dead_signal_and_time(self) -> bool:
        """3.3+: the ``pane_dead_signal`` and ``pane_dead_time`` formats exist
        (§16, §19); 3.2a expands them to nothing."""
        return self._at_least(3, 3)

    @property
    def has_unseen_changes(self) -> bool:
        """3.4+: the ``pane_unseen_changes`` format exists (§16: ``''`` in
        3.2a/3.3a, ``0`` in 3.4+)."""
        return self._at_least(3, 4)

    @property
    def has_remain_on_exit_key(self) -> bool:
        """3.7+: ``remain-on-exit`` accepts ``key`` (§13); earlier versions
        refuse it with ``unknown value: key``. A pane kept this way stays
        dead whatever its status; ``send-keys`` does not close it (measured
        on 3.7c and 3.8)."""
        return self._at_least(3, 7)

    @property
    def has_display_literal(self) -> bool:
        """3.4+: ``display-message -l`` prints its message without expanding
        formats (§19); 3.3a refuses it (``unknown flag -l``)."""
        return self._at_least(3, 4)

    @property
    def layouts_are_json(self) -> bool:
        """3.8: ``#{window_layout}`` (and ``list-windows``) print layouts as JSON,
        ``{"V":2,"L":{...}}``, and ``select-layout`` accepts them (as well as
        the checksummed form). Measured on 3.8; 3.7c prints the checksummed
        form. A control-mode client attached without the ``new-layouts``
        flag is still shown the checksummed form on 3.8 (measured; §19)."""
        return self._at_least(3, 8)

    @property
    def honours_detached_size(self) -> bool:
        """3.3+: ``new-session -d -x -y`` is honoured (3.2a gave 80x23)."""
        return self._at_least(3, 3)

    @property
    def default_term(self) -> str:
        """§19: the default ``TERM`` in panes, ``screen`` in 3.2a."""
        return "tmux-256color" if self._at_least(3, 3) else "screen"


DEFAULT_VERSION = TmuxVersion.parse("3.3a")
