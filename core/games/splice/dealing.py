"""Splice's reducers of the setup and of a Hurricane's reshuffle of the gemstone disks: the state after each, trusting
that it was checked (`rules.check`); `reducer` registers them and walks the game on from them (`advance`)."""

from __future__ import annotations

import msgspec

from ...knowledge import Zone
from ...seated import with_seat
from .events import CardsDealt, DisksChosen, DisksDealt, DisksRedrawn, HandNamed, SetupDealt
from .state import Owed, State, put_bottom

replace = msgspec.structs.replace


# --------------------------------------------------------------------------- setup


def _dealt(state: State, hands: list[Zone], pile: tuple[Zone, ...], hurricanes: list[int]) -> State:
    """Hands dealt: each Hurricane dealt is dropped in the centre and owes its holder a replacement."""
    owed = []
    for index in range(len(state.seats)):
        count = hurricanes.count(index)
        if count:
            owed.append(Owed(index, count, "deal"))
    players = tuple(
        replace(seat, hand=hand, forfeit=0 in hurricanes and i == 0)
        for i, (seat, hand) in enumerate(zip(state.players, hands))
    )
    return replace(
        state,
        players=players,
        pile=pile,
        owed=tuple(owed),
        centre=len(hurricanes),
        storm="deal" if hurricanes else "",
        storm_seat=hurricanes[0] if hurricanes else -1,
        stage="deal",
    )


def apply_setup(state: State, event: SetupDealt) -> State:
    size = state.hand_size
    deck = event.deck
    hands: list[Zone] = []
    hurricanes: list[int] = []
    for index in range(len(state.seats)):
        cards = deck[index * size : (index + 1) * size]
        hurricanes.extend(index for card in cards if card == "hurricane")
        hands.append(Zone(tuple(card for card in cards if card != "hurricane")))
    rest = tuple(deck[len(state.seats) * size :])
    players = tuple(replace(seat, disk=disk) for seat, disk in zip(state.players, event.disks))
    state = replace(
        state,
        players=players,
        unused=Zone(tuple(event.unused)),
        map_pile=(Zone(tuple(event.maps)),) if event.maps else (),
    )
    return _dealt(state, hands, (Zone(rest),) if rest else (), hurricanes)


def apply_disks_chosen(state: State, event: DisksChosen) -> State:
    unused = Zone((), len(state.box.colours) - len(state.seats))
    if event.disks:  # the disks the seated seats drew, named
        players = tuple(replace(seat, disk=event.disks.get(name)) for name, seat in zip(state.seats, state.players))
        state = replace(state, players=players)
    return replace(state, unused=unused, stage="dealing")


def apply_cards_dealt(state: State, event: CardsDealt) -> State:
    size = state.hand_size
    deck = sum(state.copies.values())
    dealt = min(deck, size * len(state.seats))
    hurricanes = [state.seats.index(name) for name in event.hurricanes]
    hands = []
    for index in range(len(state.seats)):
        got = max(0, min(size, dealt - index * size))
        named = event.hands.get(state.seats[index])
        hands.append(Zone(tuple(named)) if named is not None else Zone((), got - hurricanes.count(index)))
    rest = deck - dealt
    # a seated seat whose hand or disk the table left out names it itself (`hand_named`) before anything else
    owed = tuple(
        name
        for name, seat in zip(state.seats, state.players)
        if name in state.seated and (name not in event.hands or seat.disk is None)
    )
    state = replace(state, map_pile=(Zone((), len(state.box.pieces)),), hands_owed=owed)
    return _dealt(state, hands, (Zone((), rest),) if rest else (), hurricanes)


def apply_hand_named(state: State, event: HandNamed) -> State:
    index = state.seats.index(event.player)
    seat = state.players[index]
    hand = Zone(tuple(event.cards)) if seat.hand.unknown else seat.hand
    disk = seat.disk if event.disk is None else event.disk
    owed = tuple(name for name in state.hands_owed if name != event.player)
    return with_seat(
        state, index, replace(seat, hand=hand, disk=disk), hands_owed=owed, redrawn=state.redrawn and bool(owed)
    )


# --------------------------------------------------------------------------- Hurricanes


def _reshuffled(state: State, disks: list[str | None], unused: Zone) -> State:
    """The disks shuffled and drawn again; the Hurricanes in the centre go to the bottom of the Draw Pile."""
    players = tuple(replace(seat, disk=disk) for seat, disk in zip(state.players, disks))
    pile = put_bottom(state.pile, ("hurricane",) * state.centre)
    return replace(state, players=players, unused=unused, pile=pile, centre=0, storm="", storm_seat=-1)


def apply_disks_dealt(state: State, event: DisksDealt) -> State:
    return _reshuffled(state, list(event.disks), Zone(tuple(event.unused)))


def apply_disks_redrawn(state: State, event: DisksRedrawn) -> State:
    # a seated seat whose new disk the table left out names it itself (`hand_named`) before anything else
    owed = tuple(name for name in state.seats if name in state.seated and name not in event.disks)
    state = replace(state, hands_owed=owed, redrawn=bool(owed))
    return _reshuffled(state, [event.disks.get(name) for name in state.seats], Zone((), state.unused.size))
