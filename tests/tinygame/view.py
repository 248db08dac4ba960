"""What a seat sees of Ten (everything: nothing is hidden), who acts, and the end (`waiting_on`, `pending` and
`narrate` are the kernel's defaults)."""

from __future__ import annotations

from typing import Any

from tally.core.model import Outcome
from tally.core.views import view_envelope

from .state import State, turn


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


def view(state: State, seat: str | None) -> dict[str, Any]:
    return view_envelope(
        "tinygame", state.mode, seat, state.phase, turn(state), to_act(state), [{"name": name} for name in state.seats],
        outcome(state), {"total": state.total, "target": state.target},
    )
