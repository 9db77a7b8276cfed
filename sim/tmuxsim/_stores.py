"""Server-wide stores that are plain data: environments, paste buffers and
wait-for channels."""

from __future__ import annotations

from dataclasses import dataclass

from gridmux.backend import NotFound


class Environment:
    """A tmux environment table. ``None`` marks a variable to be removed
    (``set-environment -r``), which is how tmux keeps a global variable out of
    one session."""

    def __init__(self, initial: dict[str, str] | None = None) -> None:
        self._vars: dict[str, str | None] = dict(initial or {})

    def set(self, name: str, value: str) -> None:
        self._vars[name] = value

    def mark_removed(self, name: str) -> None:
        self._vars[name] = None

    def unset(self, name: str) -> None:
        self._vars.pop(name, None)

    def items(self) -> dict[str, str | None]:
        return dict(sorted(self._vars.items()))


def merged_environment(global_env: Environment, session_env: Environment) -> dict[str, str]:
    """What a new process in the session gets: global, then session, minus removals."""
    merged: dict[str, str | None] = {**global_env.items(), **session_env.items()}
    return {name: value for name, value in merged.items() if value is not None}


@dataclass(slots=True)
class PasteBuffer:
    name: str
    data: str
    created: int
    order: int
    automatic: bool


class Buffers:
    """Paste buffers (``paste.c``): named or automatic ``bufferNNNN``."""

    def __init__(self) -> None:
        self._buffers: dict[str, PasteBuffer] = {}
        self._next_index = 0
        self._next_order = 0

    def set(self, name: str | None, data: str, *, created: int, limit: int) -> PasteBuffer:
        automatic = name is None
        if name is None:
            name = f"buffer{self._next_index:04d}"
            self._next_index += 1
        buffer = PasteBuffer(name, data, created, self._next_order, automatic)
        self._next_order += 1
        self._buffers[name] = buffer
        if automatic:
            # buffer-limit caps automatic buffers only; the oldest go first.
            autos = sorted((b for b in self._buffers.values() if b.automatic), key=_by_order)
            for old in autos[: max(0, len(autos) - limit)]:
                del self._buffers[old.name]
        return buffer

    def get(self, name: str) -> PasteBuffer:
        try:
            return self._buffers[name]
        except KeyError:
            raise NotFound(f"no buffer {name}") from None

    def delete(self, name: str) -> None:
        self.get(name)
        del self._buffers[name]

    def newest_first(self) -> list[PasteBuffer]:
        return sorted(self._buffers.values(), key=_by_order, reverse=True)


def _by_order(buffer: PasteBuffer) -> int:
    return buffer.order


class Channels:
    """``wait-for`` channels (``cmd-wait-for.c``).

    A signal with nobody waiting is remembered (the channel is "woken") and
    satisfies the next wait at once; a signal with waiters wakes all of them.
    Waiters hold the generation they started in and are woken when it moves.
    """

    def __init__(self) -> None:
        self._woken: set[str] = set()
        self._waiters: dict[str, int] = {}
        self._generation: dict[str, int] = {}

    def signal(self, channel: str) -> None:
        if self._waiters.get(channel, 0) > 0:
            self._generation[channel] = self._generation.get(channel, 0) + 1
            self._waiters[channel] = 0
        else:
            self._woken.add(channel)

    def begin_wait(self, channel: str) -> int | None:
        """None if an earlier signal already satisfies the wait; else a token."""
        if channel in self._woken:
            self._woken.discard(channel)
            return None
        self._waiters[channel] = self._waiters.get(channel, 0) + 1
        return self._generation.get(channel, 0)

    def woken(self, channel: str, token: int) -> bool:
        return self._generation.get(channel, 0) != token

    def abandon(self, channel: str) -> None:
        """A waiter gave up (timeout)."""
        if self._waiters.get(channel, 0) > 0:
            self._waiters[channel] -= 1
