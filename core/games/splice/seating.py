"""Splice's seated seats (`game_started`'s `seated`): what each enters by name, and the guards of those entries.

A seated seat names its own gemstone disk (`disks ana r`, and again after a Hurricane: `reshuffle ana g`, or each
seat from its own device: `ana: hand disk g`), its dealt hand (`deal | ana 5 7 9 wild 10`), every card it draws
from the Draw Pile or blind from a hand, the card a blind draw takes from it, the map pieces it buys, takes or
loses to Piracy, and what it discards or returns. The log then knows every hidden component it holds, so its moves
are judged in full; every other seat's stay unseen and are judged as in any table-mode log. What another seat may know of them is `state.conceal`.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations_with_replacement
from math import comb

from ...knowledge import can_reveal
from ...model import Event, Ruling, illegal
from ...text import plural, quote
from .events import (
    BlindDrawn,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    DisksChosen,
    DisksRedrawn,
    HandNamed,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    TradePlayed,
)
from .guards import draw_problem
from .state import State, located_cards, located_disks, located_pieces

LISTED = 200  # a seat's draws of several cards are listed only while there are no more ways than this


def unnamed(state: State, event: Event) -> tuple[str, str] | None:
    """The hidden component a seated seat left unnamed, as (seat, what to name), or None (`core.seat.unnamed`). The
    setup (`disks`, `deal`) and a Hurricane's `reshuffle` may leave a seat's disk (and the deal its hand) out: the
    seat then names them itself (`hand_named`, `core.seat.hand-owed`)."""
    seated = state.seated
    player = getattr(event, "player", "")
    if isinstance(event, CardsDrawn):
        if player in seated and None in event.cards:
            return player, "every card drawn (draw CARD ...)"
    elif isinstance(event, BlindDrawn):
        if event.card is None and (player in seated or event.source in seated):
            who = player if player in seated else event.source
            return who, f"the card drawn blind from {event.source} (draw from {event.source} as CARD)"
    elif isinstance(event, PiracyPlayed):
        if event.plunder == "map" and event.piece is None and (player in seated or event.target in seated):
            who = player if player in seated else event.target
            return who, f"the map piece taken from {event.target} (piracy {event.target} map as PIECE)"
    elif isinstance(event, TradePlayed):
        partner = event.partner
        if partner in seated and event.given is None and state.players[state.seats.index(player)].disk is None:
            return (
                partner,
                f"the disk {partner} received from {player} (trade {event.colour} with {partner} giving COLOUR)",
            )
    elif isinstance(event, MapsBought):
        if player in seated and None in event.pieces:
            return player, "every map piece bought (buy N pay SETS as PIECES)"
    elif isinstance(event, CardsDiscarded):
        if player in seated and None in event.cards:
            return player, "every card discarded (discard CARD ...)"
    elif isinstance(event, MapsReturned):
        if player in seated and None in event.pieces:
            return player, "every map piece returned (return PIECE ...)"
    return None


# --------------------------------------------------------------------------- the guards of the named setup


def check_named_disks(state: State, event: DisksChosen | DisksRedrawn) -> Ruling | None:
    """The disks named are those of seated seats, each a colour of the box, no colour twice."""
    rule = "splice.setup.disks-first" if isinstance(event, DisksChosen) else "splice.hurricane.reshuffle"
    box = state.box
    for name, colour in event.disks.items():
        if name not in state.seated:
            return illegal(
                rule,
                f"only a seat that enters its own cards names its disk ({', '.join(state.seated) or 'none here'}), "
                f"not {quote(name)}",
                player=name,
            )
        if colour not in box.colours:
            return illegal(rule, f"there is no {quote(colour)} disk (colours: {', '.join(box.colours)})", colour=colour)
    colours = list(event.disks.values())
    if len(set(colours)) != len(colours):
        return illegal(rule, "each gemstone disk is drawn by one player: a colour is named twice", disks=colours)
    return None


def check_named_hands(state: State, event: CardsDealt) -> Ruling | None:
    """Each seated seat's hand: as many cards as it was dealt less its Hurricanes, each with a copy in the deck."""
    size = state.hand_size
    for name, cards in event.hands.items():
        if name not in state.seated:
            return illegal(
                "splice.setup.deal",
                f"only a seat that enters its own cards names its hand "
                f"({', '.join(state.seated) or 'none here'}), not {quote(name)}",
                player=name,
            )
        want = size - event.hurricanes.count(name)
        if len(cards) != want:
            dealt = f"{size} cards" + (f", {plural(size - want, 'Hurricane')} among them" if want < size else "")
            return illegal(
                "splice.setup.deal", f"{name} was dealt {dealt}: the hand names {want}, not {len(cards)}", player=name
            )
    named = Counter(card for cards in event.hands.values() for card in cards)
    for card, count in named.items():
        copies = state.copies.get(card, 0)
        if card == "hurricane" or count > copies:
            what = (
                "a Hurricane dealt is named with `hurricane PLAYER`"
                if card == "hurricane"
                else f"the deck holds {plural(copies, 'copy', 'copies')} of {card}, the hands name {count}"
            )
            return illegal("splice.setup.deal", what, card=card)
    return None


def check_hand_named(state: State, event: HandNamed) -> Ruling | None:
    """What the setup or a reshuffle left to a seated seat (it owes it: `hands_owed`), no more: its hand as dealt (the
    Hurricanes left out), each card with a copy the log has not located; its disk, a colour no one else is known to
    hold."""
    name = event.player
    seat = state.players[state.seats.index(name)]
    want = seat.hand.unknown
    if not want and event.cards:
        which = (
            "only the disk drawn again after the Hurricane is owed"
            if state.redrawn
            else f"the deal named {name}'s hand already"
        )
        return illegal("splice.setup.deal", f"{which}: name only the disk (hand disk COLOUR)", player=name)
    if len(event.cards) != want:
        return illegal(
            "splice.setup.deal",
            f"{name} was dealt {plural(want, 'card')} besides any Hurricane: the hand names "
            f"{want}, not {len(event.cards)}",
            player=name,
        )
    placed = located_cards(state)
    for card, count in Counter(event.cards).items():
        left = state.copies.get(card, 0) - placed[card]
        if card == "hurricane" or count > left:
            what = (
                "a Hurricane dealt is named with `deal hurricane PLAYER`"
                if card == "hurricane"
                else f"the deck holds {plural(state.copies.get(card, 0), 'copy', 'copies')} of {card} and {placed[card]} are "
                f"located elsewhere: {name}'s hand names {count}"
            )
            return illegal("splice.setup.deal", what, card=card)
    disk, box = event.disk, state.box
    rule = "splice.hurricane.reshuffle" if state.redrawn else "splice.setup.disks-first"
    if (seat.disk is None) != (disk is not None):
        what = (
            f"{name} names the disk drawn too (hand CARD ... disk COLOUR)"
            if disk is None
            else f"the {'reshuffle' if state.redrawn else 'disks'} named {name}'s already"
        )
        return illegal(rule, what, player=name)
    if disk is not None:
        if disk not in box.colours:
            return illegal(rule, f"there is no {quote(disk)} disk (colours: {', '.join(box.colours)})", colour=disk)
        if located_disks(state)[disk]:
            return illegal(
                rule, f"{name} cannot have drawn the {box.colour_name(disk)} disk: another player holds it", colour=disk
            )
    return None


def check_given(state: State, event: TradePlayed) -> Ruling | None:
    """The disk named as handed to a seated partner: the player's own, as far as the log knows it."""
    given = event.given
    if given is None:
        return None
    box = state.box
    if event.partner not in state.seated:
        return illegal(
            "splice.trade.swap", "the disk handed over is named only to a seat that enters its own cards", given=given
        )
    if given not in box.colours:
        return illegal(
            "splice.trade.swap", f"there is no {quote(given)} disk (colours: {', '.join(box.colours)})", given=given
        )
    mine = state.player.disk
    if (mine is not None and mine != given) or given == event.colour or (mine is None and located_disks(state)[given]):
        return illegal(
            "splice.trade.swap",
            f"{event.player} cannot have handed over the {box.colour_name(given)} disk: "
            "the log has placed it elsewhere",
            given=given,
        )
    return None


# --------------------------------------------------------------------------- what a seat may name


def drawable(state: State) -> list[str]:
    """The cards the next card of the Draw Pile may be, as the log knows it (a Hurricane last)."""
    cards = sorted((c for c in state.copies if c != "hurricane"), key=lambda c: (not c.isdigit(), c.zfill(3)))
    return [c for c in cards + ["hurricane"] if c in state.copies and draw_problem(state, [c]) is None]


def draws(state: State, count: int) -> list[list[str | None]]:
    """A seated seat's draws of `count` cards, each card named; a Hurricane ends a draw. Several cards are listed
    only while the ways are few (the seat names them when entering)."""
    kinds = [c for c in drawable(state) if c != "hurricane"]
    found: list[list[str | None]] = []
    if count == 1:
        return [[c] for c in drawable(state)]
    if comb(len(kinds) + count - 1, count) > LISTED:  # counted before they are built: a refill of 5 has 42,504
        return []
    ways = [list(combo) for combo in combinations_with_replacement(kinds, count)]
    for combo in ways:
        cards: list[str | None] = list(combo)
        if draw_problem(state, cards) is None:
            found.append(cards)
    return found


def held_cards(state: State, index: int) -> list[str]:
    """The cards seat `index`'s hand may hold one of: its known cards, and any unlocated card if some are unseen."""
    hand = state.players[index].hand
    cards = set(hand.known)
    if hand.unknown:
        placed = located_cards(state)
        cards.update(c for c in state.copies if c != "hurricane" and can_reveal(c, state.copies, placed))
    return sorted(cards, key=lambda c: (not c.isdigit(), c.zfill(3)))


def held_pieces(state: State, index: int) -> list[str]:
    """The map pieces seat `index` may hold one of: its known pieces, and any unlocated piece if some are unseen."""
    maps = state.players[index].maps
    pieces = set(maps.known)
    if maps.unknown:
        placed = located_pieces(state)
        pieces.update(p for p in state.box.pieces if can_reveal(p, state.box.piece_copies, placed))
    return sorted(pieces)


def pile_pieces(state: State) -> list[str]:
    """The map pieces the top of the Map Pile may be."""
    if not state.map_pile:
        return []
    top = state.map_pile[0]
    pieces = set(top.known)
    if top.unknown:
        placed = located_pieces(state)
        pieces.update(p for p in state.box.pieces if can_reveal(p, state.box.piece_copies, placed))
    return sorted(pieces)
