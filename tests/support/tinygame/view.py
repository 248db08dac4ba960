"""What a seat sees of Ten (everything: nothing is hidden), who acts, and the end (`waiting_on`, `pending` and
`narrate` are the kernel's defaults)."""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from tally.core.model import Outcome
from tally.core.views import common

from .state import State, turn


class TenPlayer(msgspec.Struct, frozen=True, kw_only=True):
    name: str


class TenView(msgspec.Struct, frozen=True, kw_only=True):
    """What every seat sees (`core.views.View`): the common keys, and the running total against the target."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    turn: int
    to_act: str
    expected: str
    total: int
    target: int
    players: list[TenPlayer]
    outcome: Outcome | None
    seq: int | UnsetType = UNSET
    fingerprint: str | None | UnsetType = UNSET


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    winner = state.player_name
    scores = {name: int(name == winner) for name in state.seats}
    return Outcome(scores, [winner], f"{winner} reached {state.target}", ended="target")


def to_act(state: State) -> tuple[str, str]:
    if state.phase == "over":
        return "nobody", "the game is over"
    return state.player_name, f"{state.player_name} says 1 or 2"


def view(state: State, seat: str | None) -> TenView:
    return TenView(
        **common("tinygame", state.mode, seat, state.phase, turn(state), to_act(state), outcome(state)),
        total=state.total,
        target=state.target,
        players=[TenPlayer(name=name) for name in state.seats],
    )
