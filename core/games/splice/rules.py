"""Splice's rules: the guards of every event kind in their fixed order, `check`, `permit` and `is_voidable`.

The rule texts and options are in `texts`, who must act and the turn guard in `turn`, the guards themselves in
`guards`; this module binds them together (`RULES`, `OPTIONS` and `actor` are read from here, too).
"""

from __future__ import annotations

from ...model import Event, Ruling, legal
from ...referee import Guards, Supposing
from ...text import plural
from .buying import check_buy
from .components import MAP_LIMIT
from .events import (
    CHANCE,
    EVENTS,
    BlackSpotPlayed,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    DisksChosen,
    DisksDealt,
    DisksRedrawn,
    HandNamed,
    HoldingsRevealed,
    MapLaid,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .guards import (
    check_blind,
    check_cards_dealt,
    check_coins,
    check_discard,
    check_disks,
    check_drawn,
    check_lay,
    check_pass,
    check_picked,
    check_piracy,
    check_return,
    check_reveal,
    check_setup,
    check_skull,
    check_spot,
    check_trade,
    draw_problem,
)
from .notation import format_event
from .seating import check_given, check_hand_named, check_named_disks, check_named_hands
from .state import State, payment_value
from .texts import OPTIONS, RULE_IDS, RULES
from .turn import TURN, actor

__all__ = [
    "OPTIONS",
    "RULES",
    "RULE_IDS",
    "TURN",
    "actor",
    "check",
    "draw_problem",
    "is_revealed_as_made",
    "is_voidable",
    "permit",
]


# --------------------------------------------------------------------------- the guards in order, and the permit


GUARDS = Guards[State](
    "splice",
    EVENTS,
    turn=TURN,
    over_facts=lambda state: {"ended": state.ended},
    # a refused blind draw or play is also judged by its own rules, as if it were that player's turn at that step
    # with nothing owed, no Hurricane waiting and no play made yet (not a draw from the pile: it may be a draw owed,
    # which a start of turn would misjudge)
    supposing=Supposing(
        {
            BlindDrawn: "start",
            CoinsPlayed: "play",
            PiracyPlayed: "play",
            SkullPlayed: "play",
            TradePlayed: "play",
            BlackSpotPlayed: "play",
            MapsBought: "play",
            MapLaid: "play",
            CardsDiscarded: "play",
            TurnPassed: "play",
        },
        cleared={"owed": (), "acted": "", "played": "", "pick": "", "centre": 0, "storm": ""},
        not_in=("setup", "over"),
    ),
)
GUARDS.on(SetupDealt, check_setup)
GUARDS.on(DisksChosen, check_named_disks)  # when the table may enter it is the turn guard's
GUARDS.on(CardsDealt, check_cards_dealt, check_named_hands)
GUARDS.on(DisksDealt, check_disks)
GUARDS.on(DisksRedrawn, check_named_disks)  # likewise
GUARDS.on(CardPicked, check_picked)
GUARDS.on(CardsDrawn, check_drawn)
GUARDS.on(BlindDrawn, check_blind)
GUARDS.on(CoinsPlayed, check_coins)
GUARDS.on(PiracyPlayed, check_piracy)
GUARDS.on(SkullPlayed, check_skull)
GUARDS.on(TradePlayed, check_trade, check_given)
GUARDS.on(BlackSpotPlayed, check_spot)
GUARDS.on(MapsBought, check_buy)
GUARDS.on(MapLaid, check_lay)
GUARDS.on(CardsDiscarded, check_discard)
GUARDS.on(TurnPassed, check_pass)
GUARDS.on(MapsReturned, check_return)
GUARDS.on(HoldingsRevealed, check_reveal)
GUARDS.on(HandNamed, check_hand_named)
check = GUARDS.seal().check


_DRAW_RULE = {
    "refill": "splice.hand.refill",
    "skull": "splice.skull.redraw",
    "deal": "splice.hurricane.deal",
    "replace": "splice.draw.replace",
}
_STORM_RULE = {
    "start": "splice.hurricane.start",
    "refill": "splice.hurricane.refill",
    "skull": "splice.hurricane.skull",
    "deal": "splice.hurricane.deal",
    "replace": "splice.hurricane.replacement",
}


def permit(state: State, event: Event) -> Ruling:
    """The rule that allows a legal event, for the ruling read out at the table (never naming a hidden card)."""
    if isinstance(event, CardsDrawn):
        cards, who = event.cards, event.player
        if cards and cards[-1] == "hurricane":
            case = "start" if state.phase == "start" else state.owed[0].case
            return legal(
                _STORM_RULE[case], f"{who} draws the Hurricane: it is played at once and the disks are shuffled"
            )
        if state.phase == "start":
            return legal("splice.draw.first", f"{who} draws the top card of the Draw Pile")
        rule = _DRAW_RULE[state.owed[0].case]
        return legal(rule, f"{who} draws {plural(len(cards), 'card')} from the Draw Pile")
    if isinstance(event, BlindDrawn):
        return legal("splice.draw.blind", f"{event.player} draws a card blind from {event.source}'s hand")
    if isinstance(event, CoinsPlayed):
        what = format_event(event).split(": play ", 1)[-1]
        return legal(
            "splice.coins.double" if not event.sets else "splice.coins.sets", f"{event.player} may lay down {what}"
        )
    if isinstance(event, PiracyPlayed):
        return legal(
            "splice.piracy.plunder",
            f"{event.player} may take {'a map piece blind' if event.plunder == 'map' else event.plunder} from {event.target}",
        )
    if isinstance(event, SkullPlayed):
        return legal(
            "splice.skull.redraw",
            f"{event.target} puts the hand at the bottom of the Draw Pile and draws {state.hand_size} new cards",
        )
    if isinstance(event, TradePlayed):
        return legal(
            "splice.trade.swap",
            f"{event.player} calls out {state.box.colour_name(event.colour)} and trades disks with {event.partner}",
        )
    if isinstance(event, BlackSpotPlayed):
        return legal("splice.spot.skip", f"{event.target} loses their next turn")
    if isinstance(event, MapsBought):
        return legal(
            "splice.buy.price",
            f"{event.player} may buy {plural(event.count, 'map piece')} for {payment_value(state, event.paid, event.doubles)} gold",
        )
    if isinstance(event, MapLaid):
        return legal("splice.map.win", f"{event.player} lays down a completed map and wins")
    if isinstance(event, CardsDiscarded):
        rule = "splice.turn.discard" if state.phase == "play" else "splice.hand.discard"
        return legal(rule, f"{event.player} discards to the bottom of the Draw Pile")
    if isinstance(event, TurnPassed):
        return legal("splice.turn.pass", f"{event.player} makes no play and has nothing to discard")
    if isinstance(event, MapsReturned):
        return legal(
            "splice.maps.limit", f"{event.player} returns map pieces to the bottom of the Map Pile, keeping {MAP_LIMIT}"
        )
    if isinstance(event, HoldingsRevealed):
        return legal("splice.end.reveal", f"{event.player} shows disk and map pieces")
    if isinstance(event, (DisksDealt, DisksRedrawn)):
        return legal("splice.hurricane.reshuffle", "the gemstone disks are shuffled and drawn again")
    if isinstance(event, CardPicked):
        return legal("splice.draw.blind", "tally picks a card at random")
    if isinstance(event, DisksChosen):
        return legal("splice.setup.disks-first", "every player draws a gemstone disk")
    if isinstance(event, CardsDealt):
        return legal("splice.setup.deal", "the Map Pile is laid out and the hands dealt")
    if isinstance(event, HandNamed):
        what = "disk drawn again after the Hurricane" if state.redrawn else "dealt hand"
        return legal("core.seat.hand-owed", f"{event.player} names their own {what}")
    return legal("splice.setup.deal", "the deal is recorded")


def is_voidable(event: Event) -> bool:
    """Chance that tally dealt itself (open mode) is not a recorder's mistake: it cannot be undone."""
    return type(event) not in CHANCE


def is_revealed_as_made(event: Event) -> bool:
    """A trade calls out a colour and whoever holds that disk hands it over: in an open game a seat, which sees no
    other seat's disk, trades by colour alone (`trade red`), and the trade itself shows the table who held it."""
    return isinstance(event, TradePlayed)
