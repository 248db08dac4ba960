"""The seated state every game shares: a tuple of per-seat records beside the seats' names.

A state is a frozen msgspec Struct with `players` (one record per seat, in seat order); a move changes
one seat, sometimes two, and these helpers build the new tuple without copying it through a list.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence, TypeVar

import msgspec

StateT = TypeVar("StateT", bound=msgspec.Struct)  # a game's state, with a `players` tuple


def with_seat(state: StateT, index: int, seat: Any, **changes: Any) -> StateT:
    """The state with seat `index`'s record replaced by `seat` (and any other fields changed)."""
    players: tuple[Any, ...] = getattr(state, "players")
    return msgspec.structs.replace(state, players=players[:index] + (seat,) + players[index + 1 :], **changes)


def with_seats(state: StateT, changed: Mapping[int, Any], **changes: Any) -> StateT:
    """The state with several seats' records replaced (`changed`: index -> record)."""
    players = list(getattr(state, "players"))
    for index, seat in changed.items():
        players[index] = seat
    return msgspec.structs.replace(state, players=tuple(players), **changes)


def seat_index(seats: Sequence[str], name: str) -> int:
    """The index of the seat called `name`, or -1 when no one of that name is at the table."""
    try:
        return seats.index(name)
    except ValueError:
        return -1
