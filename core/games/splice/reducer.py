"""Splice's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before any move from `game_started`; `apply` dispatches on the event type and
then `advance` walks the turn forward until something must be decided or entered: a draw, a Hurricane's
disk reshuffle, a blind pick, a discard, a return of map pieces, the next player's draw. Whatever follows
by itself (a Skull put at the bottom once the redraw is done, a lost turn, a Black Spot's turn) happens
inside `advance`, so the state always says who must act next and why (`phase`).
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...knowledge import Zone
from ...model import Event, GameStarted, resolve_options
from ...referee import Reducers
from ...seated import seat_index, seats_with, with_seat
from .components import MAP_LIMIT, box_for, deck_copies, coin_set
from .events import (
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
from .texts import OPTIONS
from .state import (
    Owed,
    Seat,
    State,
    can_draw_at_start,
    hand_add,
    next_seat,
    put_bottom,
    take_top,
    zone_remove,
)

replace = msgspec.structs.replace


def start(started: GameStarted) -> State:
    options = resolve_options(OPTIONS, started.options)
    box = box_for(started.manifest)
    return State(
        seats=tuple(started.seats),
        mode=started.mode,
        box=box,
        copies=deck_copies(box, int(options["hurricanes"])),
        hand_size=int(options["hand-size"]),
        stack=options["double-stack"] == "yes",
        stall_rounds=int(options["stall-rounds"]),
        all_bought=options["all-bought"],
        no_map=options["no-map"],
        players=tuple(Seat() for _ in started.seats),
        seated=tuple(started.seated),
    )


# --------------------------------------------------------------------------- setup


def _dealt(state: State, hands: list[Zone], pile: tuple[Zone, ...], hurricanes: list[int]) -> State:
    """Hands dealt: each Hurricane dealt is dropped in the centre and owes its holder a replacement."""
    owed = []
    for index in range(len(state.seats)):
        count = hurricanes.count(index)
        if count:
            owed.append(Owed(index, count, "deal"))
    players = tuple(replace(seat, hand=hand, forfeit=0 in hurricanes and i == 0) for i, (seat, hand) in enumerate(zip(state.players, hands)))
    return replace(
        state, players=players, pile=pile, owed=tuple(owed), centre=len(hurricanes), storm="deal" if hurricanes else "",
        storm_seat=hurricanes[0] if hurricanes else -1, stage="deal",
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
        state, players=players, unused=Zone(tuple(event.unused)), map_pile=(Zone(tuple(event.maps)),) if event.maps else ()
    )
    return _dealt(state, hands, (Zone(rest),) if rest else (), hurricanes)


def _apply_disks_chosen(state: State, event: DisksChosen) -> State:
    unused = Zone((), len(state.box.colours) - len(state.seats))
    if event.disks:  # the disks the seated seats drew, named
        players = tuple(replace(seat, disk=event.disks.get(name)) for name, seat in zip(state.seats, state.players))
        state = replace(state, players=players)
    return replace(state, unused=unused, stage="dealing")


def _apply_cards_dealt(state: State, event: CardsDealt) -> State:
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
    owed = tuple(name for name, seat in zip(state.seats, state.players)
                 if name in state.seated and (name not in event.hands or seat.disk is None))
    state = replace(state, map_pile=(Zone((), len(state.box.pieces)),), hands_owed=owed)
    return _dealt(state, hands, (Zone((), rest),) if rest else (), hurricanes)


def _apply_hand_named(state: State, event: HandNamed) -> State:
    index = state.seats.index(event.player)
    seat = state.players[index]
    hand = Zone(tuple(event.cards)) if seat.hand.unknown else seat.hand
    disk = seat.disk if event.disk is None else event.disk
    owed = tuple(name for name in state.hands_owed if name != event.player)
    return with_seat(state, index, replace(seat, hand=hand, disk=disk), hands_owed=owed, redrawn=state.redrawn and bool(owed))


# --------------------------------------------------------------------------- Hurricanes


def _reshuffled(state: State, disks: list[str | None], unused: Zone) -> State:
    """The disks shuffled and drawn again; the Hurricanes in the centre go to the bottom of the Draw Pile."""
    players = tuple(replace(seat, disk=disk) for seat, disk in zip(state.players, disks))
    pile = put_bottom(state.pile, ("hurricane",) * state.centre)
    return replace(state, players=players, unused=unused, pile=pile, centre=0, storm="", storm_seat=-1)


def _apply_disks_dealt(state: State, event: DisksDealt) -> State:
    return _reshuffled(state, list(event.disks), Zone(tuple(event.unused)))


def _apply_disks_redrawn(state: State, event: DisksRedrawn) -> State:
    # a seated seat whose new disk the table left out names it itself (`hand_named`) before anything else
    owed = tuple(name for name in state.seats if name in state.seated and name not in event.disks)
    state = replace(state, hands_owed=owed, redrawn=bool(owed))
    return _reshuffled(state, [event.disks.get(name) for name in state.seats], Zone((), state.unused.size))


# --------------------------------------------------------------------------- draws


def _apply_drawn(state: State, event: CardsDrawn) -> State:
    who = seat_index(state.seats, event.player)
    pile, got = take_top(state.pile, event.cards, state.mode == "open")
    storm = got[-1] == "hurricane"
    kept = got[:-1] if storm else got
    seat = state.players[who]
    seat = replace(seat, hand=hand_add(seat.hand, kept))
    if state.phase == "start":  # the draw that starts a turn
        if storm:  # the turn is lost
            return with_seat(state, who, seat, pile=pile, centre=state.centre + 1, storm="start", storm_seat=who,
                             stage="end", acted="lost")
        card = got[0]
        return replace(state, players=seats_with(state, who, seat), pile=pile, stage="play", phase="play",
                       fresh="?" if card is None else card)
    head = state.owed[0]
    left = head.count - len(got)
    if storm:
        left += 1  # a card to replace the Hurricane
        if head.case == "replace" and who == next_seat(state, state.current):
            seat = replace(seat, forfeit=True)  # they were next to play: that turn is forfeit
    if left == 0 and not storm and head.case != "skull":
        # the draw owed is complete: `advance` would drop it at once (nothing else being due), so drop it here
        return replace(state, players=seats_with(state, who, seat), pile=pile, owed=state.owed[1:])
    owed = (replace(head, count=left),) + state.owed[1:]
    if storm:
        return with_seat(state, who, seat, pile=pile, owed=owed, centre=state.centre + 1, storm=head.case, storm_seat=who)
    return replace(state, players=seats_with(state, who, seat), pile=pile, owed=owed)


def _apply_blind(state: State, event: BlindDrawn) -> State:
    me = state.current
    source = seat_index(state.seats, event.source)
    if state.mode == "open":  # tally picks the card: `advance` asks for it at once (the phase set here, in one copy)
        if state.centre:
            return replace(state, stage="play", robbed=source, pick="hand", pick_from=source)
        return replace(state, stage="play", robbed=source, pick="hand", pick_from=source, phase="pick")
    players, fresh = _hand_card_moved(state, source, me, event.card)
    return replace(state, players=players, fresh=fresh, stage="play", robbed=source)


# a move between two seats builds the state once: the seats and the card drawn (`fresh`) are made here, and the
# caller copies the state with them and its own fields in one call (a fold makes one state per event, and each
# copy of the state, with any keywords passed on, is a good part of an event's cost)
def _hand_card_moved(state: State, source: int, me: int, card: str | None) -> tuple[tuple[Seat, ...], str]:
    players = list(state.players)
    hand, gone = zone_remove(players[source].hand, [card])
    players[source] = replace(players[source], hand=hand)
    seat = players[me]
    players[me] = replace(seat, hand=hand_add(seat.hand, gone))
    return tuple(players), "?" if gone[0] is None else gone[0]


def _move_piece(state: State, source: int, me: int, piece: str | None, **changes: Any) -> State:
    players = list(state.players)
    maps, gone = zone_remove(players[source].maps, [piece])
    players[source] = replace(players[source], maps=maps)
    seat = players[me]
    players[me] = replace(seat, maps=hand_add(seat.maps, gone))
    return replace(state, players=tuple(players), pile=put_bottom(state.pile, ("piracy",)), played="", **changes)


def _apply_picked(state: State, event: CardPicked) -> State:
    kind, source = state.pick, state.pick_from
    if kind == "hand":
        players, fresh = _hand_card_moved(state, source, state.current, event.card)
        if not state.centre and not state.owed and state.stage == "play":  # `advance` goes on to the play: set here
            return replace(state, players=players, fresh=fresh, pick="", pick_from=-1, phase="play")
        return replace(state, players=players, fresh=fresh, pick="", pick_from=-1)
    return _move_piece(state, source, state.current, event.card, pick="", pick_from=-1)


# --------------------------------------------------------------------------- plays


def _spend(state: State, who: int, cards: list[str]) -> State:
    """Cards leave a player's hand (the checks made sure each is there, or may be one of the unknown)."""
    seat = state.players[who]
    hand, _ = zone_remove(seat.hand, cards)
    return replace(state, players=seats_with(state, who, replace(seat, hand=hand)))


def _played(state: State, acted: str) -> State:
    return replace(state, acted=acted, stage="upkeep")


def _apply_coins(state: State, event: CoinsPlayed) -> State:
    me = state.current
    values = state.box.values
    sets = [coin_set(form, values) for form in event.sets]
    cards = [card for s in sets for card in s.cards] + ["double"] * event.doubles
    seat = state.players[me]
    hand, _ = zone_remove(seat.hand, cards)  # `_spend`, the sets laid and `_played` in one copy of the state
    seat = replace(seat, hand=hand, sets=seat.sets + tuple(s.form for s in sets), doubles=seat.doubles + event.doubles)
    return replace(state, players=seats_with(state, me, seat), acted="coins", stage="upkeep")


def _apply_piracy(state: State, event: PiracyPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    state = _spend(state, me, ["piracy"])
    if event.plunder == "map":
        state = _played(state, "piracy-map")
        if state.mode == "open":
            return replace(state, pick="map", pick_from=target, played="piracy")
        return _move_piece(state, target, me, event.piece)
    victim, mine = state.players[target], state.players[me]
    if event.plunder == "double":
        victim = replace(victim, doubles=victim.doubles - 1)
        mine = replace(mine, doubles=mine.doubles + 1)
    else:
        form = coin_set(event.plunder, state.box.values).form
        sets = list(victim.sets)
        sets.remove(form)
        victim = replace(victim, sets=tuple(sets))
        mine = replace(mine, sets=mine.sets + (form,))
    state = with_seat(with_seat(state, target, victim), me, mine)
    return _played(replace(state, pile=put_bottom(state.pile, ("piracy",))), "piracy")


def _apply_skull(state: State, event: SkullPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    state = _spend(state, me, ["skull"])
    victim = state.players[target]
    pile = put_bottom(state.pile, victim.hand.known, victim.hand.unknown)
    state = with_seat(state, target, replace(victim, hand=Zone()), pile=pile, played="skull")
    return _played(replace(state, owed=(Owed(target, state.hand_size, "skull"),)), "skull")


def _finish_special(state: State) -> State:
    """A special card whose effect is over goes to the bottom of the Draw Pile."""
    return replace(state, pile=put_bottom(state.pile, (state.played,)), played="")


def _apply_trade(state: State, event: TradePlayed) -> State:
    me = state.current
    state = _spend(state, me, ["trade"])
    mine = state.players[me]
    old = mine.disk
    if event.partner == "unused":
        unused = state.unused.remove(event.colour)
        unused = unused.add((old,)) if old is not None else unused.add(unknown=1)
        state = with_seat(state, me, replace(mine, disk=event.colour), unused=unused)
    else:
        partner = seat_index(state.seats, event.partner)
        state = with_seat(state, partner, replace(state.players[partner], disk=old if event.given is None else event.given))
        state = with_seat(state, me, replace(state.players[me], disk=event.colour))
    return _played(replace(state, pile=put_bottom(state.pile, ("trade",))), "trade")


def _apply_spot(state: State, event: BlackSpotPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    state = _spend(state, me, ["spot"])
    victim = state.players[target]
    return _played(with_seat(state, target, replace(victim, spots=victim.spots + 1)), "spot")


def _apply_buy(state: State, event: MapsBought) -> State:
    me = state.current
    seat = state.players[me]
    values = state.box.values
    sets = list(seat.sets)
    spent: list[str] = []
    for form in event.paid:
        paid = coin_set(form, values)
        sets.remove(paid.form)
        spent.extend(paid.cards)
    spent.extend(["double"] * event.doubles)
    map_pile, got = take_top(state.map_pile, event.pieces, state.mode == "open")
    seat = replace(seat, sets=tuple(sets), doubles=seat.doubles - event.doubles, maps=hand_add(seat.maps, got))
    state = with_seat(state, me, seat, pile=put_bottom(state.pile, spent), map_pile=map_pile)
    return _played(state, "buy")


def _apply_lay(state: State, event: MapLaid) -> State:
    me = state.current
    seat = state.players[me]
    regular = [p for p in event.pieces if p[0] != "x"]
    wild = [p for p in event.pieces if p[0] == "x"]
    colour = regular[0][0]
    maps, _ = zone_remove(seat.maps, regular)
    hand, _ = zone_remove(seat.hand, wild)
    seat = replace(seat, maps=maps, hand=hand, disk=colour)
    state = with_seat(state, me, seat, acted="lay", winner=me, turns=state.turns + 1, laid=tuple(event.pieces))
    return replace(state, phase="over", stage="over", ended="map")


def _apply_discard(state: State, event: CardsDiscarded) -> State:
    who = seat_index(state.seats, event.player)
    seat = state.players[who]
    hand, gone = zone_remove(seat.hand, event.cards)
    known = [c for c in gone if c is not None]
    pile = put_bottom(state.pile, known, len(gone) - len(known))
    if state.stage == "play":  # with `_played`, in one copy
        return replace(state, players=seats_with(state, who, replace(seat, hand=hand)), pile=pile, acted="discard",
                       stage="upkeep")
    return replace(state, players=seats_with(state, who, replace(seat, hand=hand)), pile=pile)


def _apply_pass(state: State, event: TurnPassed) -> State:
    return _played(state, "pass")


def _apply_return(state: State, event: MapsReturned) -> State:
    who = seat_index(state.seats, event.player)
    seat = state.players[who]
    maps, gone = zone_remove(seat.maps, event.pieces)
    known = [c for c in gone if c is not None]
    return with_seat(state, who, replace(seat, maps=maps), map_pile=put_bottom(state.map_pile, known, len(gone) - len(known)))


def _apply_reveal(state: State, event: HoldingsRevealed) -> State:
    who = seat_index(state.seats, event.player)
    seat = replace(state.players[who], disk=event.disk, maps=Zone(tuple(event.pieces)), revealed=True)
    state = with_seat(state, who, seat)
    if all(p.revealed for p in state.players):
        return replace(state, phase="over", stage="over")
    return state


# --------------------------------------------------------------------------- the turn moves on


def _finish(state: State, why: str) -> State:
    """The game ends without a map laid; under no-map=most-matching a table-mode game first has everyone reveal."""
    state = replace(state, ended=why)
    if state.no_map == "most-matching" and state.mode == "table":
        return replace(state, stage="reveal", phase="reveal")
    return replace(state, stage="over", phase="over")


def _seat_to_play(state: State, index: int, turns: int, quiet: int) -> State:
    """The turn goes to `index`, or past it while players lose turns (a Hurricane forfeit, then Black Spots)."""
    n = len(state.seats)
    while True:
        if state.end_seat >= 0 and index == state.end_seat and turns:
            return _finish(replace(state, turns=turns, quiet=quiet), "all-bought")
        if state.stall_rounds and quiet >= state.stall_rounds * n:
            return _finish(replace(state, turns=turns, quiet=quiet), "stalled")
        seat = state.players[index]
        if seat.forfeit:
            state = with_seat(state, index, replace(seat, forfeit=False))
        elif seat.spots:
            state = with_seat(state, index, replace(seat, spots=seat.spots - 1), pile=put_bottom(state.pile, ("spot",)))
        elif state.pile or any(seat.hand.size for i, seat in enumerate(state.players) if i != index):
            # `can_draw_at_start` of the state below (its pile and hands are these), asked first: one copy
            return replace(state, current=index, stage="start", fresh=None, acted="", robbed=-1, turns=turns, quiet=quiet,
                           phase="start")
        else:
            return replace(state, current=index, stage="start", fresh=None, acted="", robbed=-1, turns=turns, quiet=quiet)
        turns += 1
        quiet += 1
        index = (index + 1) % n


def _end_turn(state: State) -> State:
    progress = state.acted in ("buy", "piracy-map")
    quiet = 0 if progress else state.quiet + 1
    if state.end_seat < 0 and state.all_bought == "end" and not state.map_pile:
        state = replace(state, end_seat=state.current)
    return _seat_to_play(state, next_seat(state, state.current), state.turns + 1, quiet)


def _phase(state: State, phase: str) -> State:
    return state if state.phase == phase else replace(state, phase=phase)


def advance(state: State) -> State:
    """Walk the game forward to the next thing someone must decide or enter."""
    size = state.hand_size
    while True:
        if state.centre:
            return _phase(state, "storm")
        if state.pick:
            return _phase(state, "pick")
        if state.owed:
            head = state.owed[0]
            if head.count > 0 and state.pile:
                return _phase(state, "draw")
            state = replace(state, owed=state.owed[1:])
            if head.case == "skull":
                state = _finish_special(state)
            continue
        stage = state.stage
        if stage == "play":  # the most common (`_phase` written out)
            return state if state.phase == "play" else replace(state, phase="play")
        if stage == "start":
            if can_draw_at_start(state):
                return state if state.phase == "start" else replace(state, phase="start")
            state = replace(state, stage="play", fresh=None)
            continue
        if stage == "upkeep":
            seat = state.player
            if seat.maps.size > MAP_LIMIT:
                return _phase(state, "maps")
            hand = seat.hand.size
            if hand > size:
                return _phase(state, "discard")
            if hand < size and state.pile:
                return replace(state, stage="replace", owed=(Owed(state.current, size - hand, "refill"),), phase="draw")
            stage = "replace"  # nothing to draw: straight on
        if stage == "replace":
            robbed = state.robbed
            if robbed >= 0 and state.players[robbed].hand.size < size and state.pile:
                return replace(state, stage="end", robbed=-1, owed=(Owed(robbed, 1, "replace"),), phase="draw")
            stage = "end"
        if stage == "end":
            state = _end_turn(state)
            if state.stage in ("over", "reveal"):
                return state
            continue
        if stage == "deal":  # the setup is complete: the first seat plays (unless a dealt Hurricane cost the turn)
            state = _seat_to_play(state, 0, 0, 0)
            continue
        return state  # setup, dealing, reveal, over: waiting for the table


REDUCERS = Reducers[State]("splice", EVENTS)
REDUCERS.on(SetupDealt, apply_setup)
REDUCERS.on(DisksChosen, _apply_disks_chosen)
REDUCERS.on(CardsDealt, _apply_cards_dealt)
REDUCERS.on(HandNamed, _apply_hand_named)
REDUCERS.on(DisksDealt, _apply_disks_dealt)
REDUCERS.on(DisksRedrawn, _apply_disks_redrawn)
REDUCERS.on(CardPicked, _apply_picked)
REDUCERS.on(CardsDrawn, _apply_drawn)
REDUCERS.on(BlindDrawn, _apply_blind)
REDUCERS.on(CoinsPlayed, _apply_coins)
REDUCERS.on(PiracyPlayed, _apply_piracy)
REDUCERS.on(SkullPlayed, _apply_skull)
REDUCERS.on(TradePlayed, _apply_trade)
REDUCERS.on(BlackSpotPlayed, _apply_spot)
REDUCERS.on(MapsBought, _apply_buy)
REDUCERS.on(MapLaid, _apply_lay)
REDUCERS.on(CardsDiscarded, _apply_discard)
REDUCERS.on(TurnPassed, _apply_pass)
REDUCERS.on(MapsReturned, _apply_return)
REDUCERS.on(HoldingsRevealed, _apply_reveal)
_REDUCE = REDUCERS.seal().by_kind()


def apply(state: State, event: Event) -> State:
    """The state after a checked event, then whatever follows by itself (the end of a turn, the next draw)."""
    state = _REDUCE[type(event)](state, event)
    if state.stage in ("over", "reveal", "setup", "dealing"):
        return state
    return advance(state)


__all__ = ["advance", "apply", "apply_setup", "start"]
