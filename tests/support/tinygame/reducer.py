"""Ten's reducer: the state before any move, and one reducer per event kind registered with the kernel."""

from __future__ import annotations

import msgspec

from tally.core.model import GameStarted, resolve_options
from tally.core.referee import Reducers

from .events import EVENTS, NumberSaid
from .rules import OPTIONS
from .state import State


def start(started: GameStarted) -> State:
    options = resolve_options(OPTIONS, started.options)
    return State(seats=tuple(started.seats), mode=started.mode, target=int(options["target"]))


def _apply_said(state: State, event: NumberSaid) -> State:
    total = state.total + event.amount
    if total >= state.target:  # the winner stays the player to act, so the view can name them
        return msgspec.structs.replace(state, total=total)
    return msgspec.structs.replace(
        state, total=total, current=(state.current + 1) % len(state.seats), turns=state.turns + 1
    )


REDUCERS = Reducers[State]("tinygame", EVENTS)
REDUCERS.on(NumberSaid, _apply_said)
apply = REDUCERS.seal().apply
