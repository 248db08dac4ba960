"""Ten's rules: the rule texts, the option, one guard per rule id, and their registration with the kernel."""

from __future__ import annotations

from tally.core.model import Event, Option, RuleDoc, Ruling, illegal, legal
from tally.core.referee import Guards, OutOfTurn

from .components import AMOUNTS
from .events import EVENTS, NumberSaid
from .state import State

RULES: tuple[RuleDoc, ...] = (
    RuleDoc("tinygame.turn.order", "Players say a number in seat order, starting with the first seat."),
    RuleDoc("tinygame.turn.out-of-turn", "Only the player whose turn it is may say a number."),
    RuleDoc("tinygame.turn.game-over", "Once the total reaches the target no one says anything more."),
    RuleDoc("tinygame.say.one-or-two", "A player says 1 or 2, which is added to the total."),
    RuleDoc("tinygame.say.past-target", "The total may not go past the target."),
    RuleDoc("tinygame.end.target", "Whoever brings the total to exactly the target wins."),
)
OPTIONS: tuple[Option, ...] = (Option("target", "10", (), 3, 99, help="the total that wins"),)


def check_amount(state: State, event: NumberSaid) -> Ruling | None:
    if event.amount not in AMOUNTS:
        return illegal("tinygame.say.one-or-two", f"{event.player} may say 1 or 2, not {event.amount}")
    return None


def check_past_target(state: State, event: NumberSaid) -> Ruling | None:
    if state.total + event.amount > state.target:
        return illegal(
            "tinygame.say.past-target", f"the total is {state.total}: {event.amount} more passes {state.target}"
        )
    return None


# the kernel refuses a number said out of turn (tinygame.turn.out-of-turn); Ten gives only the words
GUARDS = Guards[State](
    "tinygame", EVENTS, turn=[OutOfTurn(lambda state, player: f"it is {state.player_name}'s turn, not {player}'s")]
)
GUARDS.on(NumberSaid, check_amount, check_past_target)
check = GUARDS.seal().check


def permit(state: State, event: Event) -> Ruling:
    if isinstance(event, NumberSaid) and state.total + event.amount == state.target:
        return legal("tinygame.end.target", f"{event.player} says {event.amount} and reaches {state.target}")
    return legal("tinygame.say.one-or-two", f"{getattr(event, 'player', '')} may say {getattr(event, 'amount', '')}")
