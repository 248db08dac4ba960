"""Ten's state: the seats, the running total, whose turn it is (Ten hides nothing: `conceal` is the kernel's default)."""

from __future__ import annotations

import msgspec


class State(msgspec.Struct, frozen=True):
    seats: tuple[str, ...]
    mode: str
    target: int
    total: int = 0
    current: int = 0
    turns: int = 0

    @property
    def player_name(self) -> str:
        return self.seats[self.current]

    @property
    def phase(self) -> str:
        return "over" if self.total >= self.target else "play"


def turn(state: State) -> int:
    return state.turns + 1
