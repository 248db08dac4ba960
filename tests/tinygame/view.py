"""What a seat sees of Ten (everything: nothing is hidden), who acts, and the end."""

from __future__ import annotations

from typing import Any

from tally.core.model import Outcome
from tally.core.views import view_envelope
from tally.core.views import waiting_on as _waiting_on

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


def waiting_on(state: State) -> tuple[str, ...]:
    return _waiting_on(to_act(state))


def pending(state: State) -> str | None:
    return None


def view(state: State, seat: str | None) -> dict[str, Any]:
    return view_envelope(
        "tinygame", state.mode, seat, state.phase, turn(state), to_act(state), [{"name": name} for name in state.seats],
        outcome(state), {"total": state.total, "target": state.target},
    )


def narrate(before: State, after: State) -> list[str]:
    return [f"{after.player_name} wins"] if after.phase == "over" and before.phase != "over" else []
