"""Splice's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before any move from `game_started`; `apply` dispatches on the event type and
then `advance` walks the turn forward until something must be decided or entered: a draw, a Hurricane's
disk reshuffle, a blind pick, a discard, a return of map pieces, the next player's draw. Whatever follows
by itself (a Skull put at the bottom once the redraw is done, a lost turn, a Black Spot's turn) happens
inside `advance`, so the state always says who must act next and why (`phase`).

Each reducer walks on itself (`apply` is the kernel's `Reducers.apply`, so a fold calls the reducer of each kind
directly): where the walk's answer is plain from the event (a draw that starts a turn goes on to the play, a play goes
on to the turn's upkeep) the reducer builds that state at once, in one copy of the state (`_turn_on`); anything else
goes through `advance`. A fold keeps every state it makes, so each copy saved is a state neither made nor freed.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import msgspec

from ...knowledge import Zone
from ...model import Event, GameStarted, resolve_options
from ...referee import Reducers
from ...seated import seat_index, with_seat
from .components import MAP_LIMIT, box_for, coin_set, deck_copies
from .dealing import (
    apply_cards_dealt,
    apply_disks_chosen,
    apply_disks_dealt,
    apply_disks_redrawn,
    apply_hand_named,
    apply_setup,
)
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
from .texts import OPTIONS

replace = msgspec.structs.replace
E = TypeVar("E", bound=Event)


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


# --------------------------------------------------------------------------- draws


def _apply_drawn(state: State, event: CardsDrawn) -> State:
    cards = event.cards
    count = len(cards)
    pile = state.pile  # a draw is asked for only while the pile holds a card
    starts = state.phase == "start"
    who = state.current if starts else state.owed[0].seat  # the seat the draw is asked of (`actor`): its player drew
    players = state.players
    seat = players[who]
    hand = seat.hand
    top = pile[0].known
    first: str | None
    if (
        state.mode == "open" and len(top) >= count
    ):  # `take_top` when the top batch alone holds the draw: its first cards
        drawn = top[:count]
        pile = (Zone(top[count:]),) + pile[1:] if len(top) > count else pile[1:]
        storm = drawn[-1] == "hurricane"
        hand = Zone(hand.known + (drawn[:-1] if storm else drawn), hand.unknown)  # `hand_add`: every card known
        first = drawn[0]
    else:
        pile, got = take_top(pile, cards, state.mode == "open")
        storm = got[-1] == "hurricane"
        hand = hand_add(hand, got[:-1] if storm else got)
        first = got[0]
    seat = replace(seat, hand=hand)
    # nothing is pending while a draw is asked for (`advance` asks for one only then): the walk goes on from the stage
    if starts:  # the draw that starts a turn
        players = players[:who] + (seat,) + players[who + 1 :]
        if storm:  # the turn is lost, and the Hurricane is resolved at once
            return replace(
                state,
                players=players,
                pile=pile,
                centre=state.centre + 1,
                storm="start",
                storm_seat=who,
                stage="end",
                acted="lost",
                phase="storm",
            )
        return replace(
            state, players=players, pile=pile, stage="play", phase="play", fresh="?" if first is None else first
        )
    head = state.owed[0]
    left = head.count - count  # a card for each entry
    if storm:
        left += 1  # a card to replace the Hurricane
        if head.case == "replace" and who == next_seat(state, state.current):
            seat = replace(seat, forfeit=True)  # they were next to play: that turn is forfeit
        players = players[:who] + (seat,) + players[who + 1 :]
        owed = (replace(head, count=left),) + state.owed[1:]
        return replace(
            state,
            players=players,
            pile=pile,
            owed=owed,
            centre=state.centre + 1,
            storm=head.case,
            storm_seat=who,
            phase="storm",
        )
    players = players[:who] + (seat,) + players[who + 1 :]
    if left == 0 and head.case != "skull":
        if len(state.owed) == 1 and state.stage in ("replace", "end"):  # the draw owed was the last: the turn goes on
            return _turn_on(state, state.stage, players, pile, state.acted)
        return advance(replace(state, players=players, pile=pile, owed=state.owed[1:]))
    owed = (replace(head, count=left),) + state.owed[1:]
    if left > 0 and pile:  # still owed, and the pile holds more: the draw goes on (the phase is already `draw`)
        return replace(state, players=players, pile=pile, owed=owed)
    return advance(replace(state, players=players, pile=pile, owed=owed))


def _apply_blind(state: State, event: BlindDrawn) -> State:
    me = state.current
    source = state.seats.index(event.source)  # a seat (`check_blind`)
    if state.mode == "open":  # tally picks the card: asked for at once (a blind draw starts a turn: nothing is pending)
        return replace(state, stage="play", robbed=source, pick="hand", pick_from=source, phase="pick")
    players, fresh = _hand_card_moved(state, source, me, event.card)
    return replace(state, players=players, fresh=fresh, stage="play", robbed=source, phase="play")


# a move between two seats builds the state once: the seats and the card drawn (`fresh`) are made here, and the
# caller copies the state with them and its own fields in one call
def _hand_card_moved(state: State, source: int, me: int, card: str | None) -> tuple[tuple[Seat, ...], str]:
    players = list(state.players)
    giver = players[source]
    hand, gone = zone_remove(giver.hand, [card])
    players[source] = replace(giver, hand=hand)
    seen = gone[0]
    seat = players[me]
    mine = seat.hand
    players[me] = replace(
        seat, hand=Zone(mine.known + (seen,), mine.unknown) if seen is not None else Zone(mine.known, mine.unknown + 1)
    )
    return tuple(players), "?" if seen is None else seen


def _piece_moved(seats: tuple[Seat, ...], source: int, me: int, piece: str | None) -> tuple[Seat, ...]:
    """The seats after a map piece went from `source` to `me` (Piracy)."""
    players = list(seats)
    maps, gone = zone_remove(players[source].maps, [piece])
    players[source] = replace(players[source], maps=maps)
    seat = players[me]
    players[me] = replace(seat, maps=hand_add(seat.maps, gone))
    return tuple(players)


def _apply_picked(state: State, event: CardPicked) -> State:
    kind, source = state.pick, state.pick_from
    if kind == "hand":  # the card tally picked is known to be in that hand (`check_picked`)
        players, card = _hand_card_moved(state, source, state.current, event.card)
        if not state.centre and not state.owed and state.stage == "play":  # the walk goes on to the play
            return replace(state, players=players, fresh=card, pick="", pick_from=-1, phase="play")
        return advance(replace(state, players=players, fresh=card, pick="", pick_from=-1))
    players = _piece_moved(state.players, source, state.current, event.card)
    pile = put_bottom(state.pile, ("piracy",))
    if (
        state.stage == "upkeep" and not state.centre and not state.owed
    ):  # the piece a Piracy took: on to the turn's upkeep
        return _turn_on(replace(state, played="", pick="", pick_from=-1), "upkeep", players, pile, state.acted)
    return advance(replace(state, players=players, pile=pile, played="", pick="", pick_from=-1))


# --------------------------------------------------------------------------- plays
# A play is made in the `play` phase, where nothing is pending: each goes on to the turn's upkeep (`_turn_on`).


def _spent(players: tuple[Seat, ...], who: int, cards: list[str]) -> tuple[Seat, ...]:
    """The seats after cards left a player's hand (the checks made sure each is there, or may be one of the unknown)."""
    seat = players[who]
    hand, _ = zone_remove(seat.hand, cards)
    return players[:who] + (replace(seat, hand=hand),) + players[who + 1 :]


def _apply_coins(state: State, event: CoinsPlayed) -> State:
    me = state.current
    values = state.box.values
    sets = [coin_set(form, values) for form in event.sets]
    cards = [card for s in sets for card in s.cards] + ["double"] * event.doubles
    players = state.players
    seat = players[me]
    hand, _ = zone_remove(seat.hand, cards)
    seat = replace(seat, hand=hand, sets=seat.sets + tuple(s.form for s in sets), doubles=seat.doubles + event.doubles)
    return _turn_on(state, "upkeep", players[:me] + (seat,) + players[me + 1 :], state.pile, "coins")


def _apply_piracy(state: State, event: PiracyPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    players = _spent(state.players, me, ["piracy"])
    if event.plunder == "map":
        if state.mode == "open":  # tally picks the piece: asked for at once
            return replace(
                state,
                players=players,
                acted="piracy-map",
                stage="upkeep",
                pick="map",
                pick_from=target,
                played="piracy",
                phase="pick",
            )
        players = _piece_moved(players, target, me, event.piece)
        return _turn_on(replace(state, played=""), "upkeep", players, put_bottom(state.pile, ("piracy",)), "piracy-map")
    victim, mine = players[target], players[me]
    if event.plunder == "double":
        victim = replace(victim, doubles=victim.doubles - 1)
        mine = replace(mine, doubles=mine.doubles + 1)
    else:
        form = coin_set(event.plunder, state.box.values).form
        sets = list(victim.sets)
        sets.remove(form)
        victim = replace(victim, sets=tuple(sets))
        mine = replace(mine, sets=mine.sets + (form,))
    changed = list(players)
    changed[target], changed[me] = victim, mine
    return _turn_on(state, "upkeep", tuple(changed), put_bottom(state.pile, ("piracy",)), "piracy")


def _apply_skull(state: State, event: SkullPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    players = _spent(state.players, me, ["skull"])
    victim = players[target]
    pile = put_bottom(state.pile, victim.hand.known, victim.hand.unknown)
    players = players[:target] + (replace(victim, hand=Zone()),) + players[target + 1 :]
    state = replace(
        state,
        players=players,
        pile=pile,
        played="skull",
        owed=(Owed(target, state.hand_size, "skull"),),
        acted="skull",
        stage="upkeep",
        phase="draw",
    )
    return (
        state if pile and state.hand_size else advance(state)
    )  # the redraw is asked for at once, unless the pile is empty


def _finish_special(state: State) -> State:
    """A special card whose effect is over goes to the bottom of the Draw Pile."""
    return replace(state, pile=put_bottom(state.pile, (state.played,)), played="")


def _apply_trade(state: State, event: TradePlayed) -> State:
    me = state.current
    players = list(_spent(state.players, me, ["trade"]))
    mine = players[me]
    old = mine.disk
    unused = state.unused
    if event.partner == "unused":
        unused = unused.remove(event.colour)
        unused = unused.add((old,)) if old is not None else unused.add(unknown=1)
    else:
        partner = seat_index(state.seats, event.partner)
        players[partner] = replace(players[partner], disk=old if event.given is None else event.given)
    players[me] = replace(players[me], disk=event.colour)
    return _turn_on(
        replace(state, unused=unused), "upkeep", tuple(players), put_bottom(state.pile, ("trade",)), "trade"
    )


def _apply_spot(state: State, event: BlackSpotPlayed) -> State:
    me = state.current
    target = seat_index(state.seats, event.target)
    players = _spent(state.players, me, ["spot"])
    victim = players[target]
    players = players[:target] + (replace(victim, spots=victim.spots + 1),) + players[target + 1 :]
    return _turn_on(state, "upkeep", players, state.pile, "spot")


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
    players = state.players[:me] + (seat,) + state.players[me + 1 :]
    return _turn_on(replace(state, map_pile=map_pile), "upkeep", players, put_bottom(state.pile, spent), "buy")


def _apply_lay(state: State, event: MapLaid) -> State:
    me = state.current
    seat = state.players[me]
    regular = [p for p in event.pieces if p[0] != "x"]
    wild = [p for p in event.pieces if p[0] == "x"]
    colour = regular[0][0]
    maps, _ = zone_remove(seat.maps, regular)
    hand, _ = zone_remove(seat.hand, wild)
    seat = replace(seat, maps=maps, hand=hand, disk=colour)
    return replace(
        state,
        players=state.players[:me] + (seat,) + state.players[me + 1 :],
        acted="lay",
        winner=me,
        turns=state.turns + 1,
        laid=tuple(event.pieces),
        phase="over",
        stage="over",
        ended="map",
    )


def _apply_discard(state: State, event: CardsDiscarded) -> State:
    who = state.current  # a discard is asked of the current player (`actor`)
    players = state.players
    seat = players[who]
    zone = seat.hand
    cards = event.cards
    hand, gone = zone_remove(zone, cards)
    known = [c for c in gone if c is not None]
    pile = put_bottom(state.pile, known, len(gone) - len(known))
    players = players[:who] + (replace(seat, hand=hand),) + players[who + 1 :]
    stage = state.stage
    if stage == "play":  # the turn's discard instead of a play
        return _turn_on(state, "upkeep", players, pile, "discard")
    if stage == "upkeep":  # down to the hand size
        return _turn_on(state, "upkeep", players, pile, state.acted)
    return advance(replace(state, players=players, pile=pile))


def _apply_pass(state: State, event: TurnPassed) -> State:
    return _turn_on(state, "upkeep", state.players, state.pile, "pass")


def _apply_return(state: State, event: MapsReturned) -> State:
    seats = state.seats
    who = seat_index(seats, event.player)
    seat = state.players[who]
    maps, gone = zone_remove(seat.maps, event.pieces)
    known = [c for c in gone if c is not None]
    players = state.players[:who] + (replace(seat, maps=maps),) + state.players[who + 1 :]
    map_pile = put_bottom(state.map_pile, known, len(gone) - len(known))
    if state.stage == "upkeep":  # asked in the upkeep, where nothing else is pending
        return _turn_on(replace(state, map_pile=map_pile), "upkeep", players, state.pile, state.acted)
    return advance(replace(state, players=players, map_pile=map_pile))


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
    if state.no_map == "most-matching" and state.mode == "table":
        return replace(state, ended=why, stage="reveal", phase="reveal")
    return replace(state, ended=why, stage="over", phase="over")


def _seat_to_play(state: State, index: int, turns: int, quiet: int) -> State:
    """The turn goes to `index`, or past it while players lose turns (a Hurricane forfeit, then Black Spots)."""
    return _next_turn(state, index, turns, quiet, state.players, state.pile, state.end_seat, state.acted)


# The two functions below make the state the walk ends at in one copy. Every field they change is passed to
# `replace` by name, never through `**`: a call that builds a dict of keywords costs about as much as the copy.


def _next_turn(
    state: State,
    index: int,
    turns: int,
    quiet: int,
    players: tuple[Seat, ...],
    pile: tuple[Zone, ...],
    end_seat: int,
    acted: str,
) -> State:
    """`_seat_to_play` on the state with `players`, `pile`, `end_seat`, `acted` and no draw owed; where nobody can
    draw to start the turn, the walk goes on to the play (`advance`'s `start` stage)."""
    n = len(state.seats)
    stall = state.stall_rounds * n
    while True:
        if (end_seat >= 0 and index == end_seat and turns) or (stall and quiet >= stall):  # the game ends (rare)
            why = "all-bought" if end_seat >= 0 and index == end_seat and turns else "stalled"
            return _finish(
                replace(
                    state, players=players, pile=pile, end_seat=end_seat, acted=acted, owed=(), turns=turns, quiet=quiet
                ),
                why,
            )
        seat = players[index]
        if seat.forfeit:
            players = players[:index] + (replace(seat, forfeit=False),) + players[index + 1 :]
        elif seat.spots:
            players = players[:index] + (replace(seat, spots=seat.spots - 1),) + players[index + 1 :]
            pile = put_bottom(pile, ("spot",))
        elif pile or any(
            p.hand.known or p.hand.unknown for i, p in enumerate(players) if i != index
        ):  # `can_draw_at_start`
            return replace(
                state,
                players=players,
                pile=pile,
                end_seat=end_seat,
                current=index,
                stage="start",
                fresh=None,
                acted="",
                owed=(),
                robbed=-1,
                turns=turns,
                quiet=quiet,
                phase="start",
            )
        else:
            return replace(
                state,
                players=players,
                pile=pile,
                end_seat=end_seat,
                current=index,
                stage="play",
                fresh=None,
                acted="",
                owed=(),
                robbed=-1,
                turns=turns,
                quiet=quiet,
                phase="play",
            )
        turns += 1
        quiet += 1
        index = (index + 1) % n


def _turn_on(state: State, stage: str, players: tuple[Seat, ...], pile: tuple[Zone, ...], acted: str) -> State:
    """`advance` from `stage` (`upkeep`, `replace` or `end`) with nothing pending, on the state with `players`, `pile`,
    `acted` and no draw owed."""
    size = state.hand_size
    me = state.current
    if stage == "upkeep":
        seat = players[me]
        maps = seat.maps
        if len(maps.known) + maps.unknown > MAP_LIMIT:
            return replace(state, players=players, pile=pile, acted=acted, owed=(), stage="upkeep", phase="maps")
        hand = len(seat.hand.known) + seat.hand.unknown
        if hand > size:
            return replace(state, players=players, pile=pile, acted=acted, owed=(), stage="upkeep", phase="discard")
        if hand < size and pile:
            return replace(
                state,
                players=players,
                pile=pile,
                acted=acted,
                owed=(Owed(me, size - hand, "refill"),),
                stage="replace",
                phase="draw",
            )
        stage = "replace"  # nothing to draw: straight on
    if stage == "replace":
        robbed = state.robbed
        if robbed >= 0 and pile:
            zone = players[robbed].hand
            if len(zone.known) + zone.unknown < size:
                return replace(
                    state,
                    players=players,
                    pile=pile,
                    acted=acted,
                    owed=(Owed(robbed, 1, "replace"),),
                    stage="end",
                    robbed=-1,
                    phase="draw",
                )
    # the end of the turn
    end_seat = state.end_seat
    if end_seat < 0 and state.all_bought == "end" and not state.map_pile:
        end_seat = me
    quiet = 0 if acted in ("buy", "piracy-map") else state.quiet + 1
    index = (me + 1) % len(state.seats)
    seat = players[index]
    if (
        pile
        and index != end_seat
        and not seat.forfeit
        and not seat.spots
        and not (state.stall_rounds and quiet >= state.stall_rounds * len(state.seats))
    ):
        # `_next_turn`'s usual first step, without its call: the next seat plays, starting with a draw
        return replace(
            state,
            players=players,
            pile=pile,
            end_seat=end_seat,
            current=index,
            stage="start",
            fresh=None,
            acted="",
            owed=(),
            robbed=-1,
            turns=state.turns + 1,
            quiet=quiet,
            phase="start",
        )
    return _next_turn(state, index, state.turns + 1, quiet, players, pile, end_seat, acted)


def _phase(state: State, phase: str) -> State:
    return state if state.phase == phase else replace(state, phase=phase)


def advance(state: State) -> State:
    """Walk the game forward to the next thing someone must decide or enter."""
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
        if stage == "play":
            return _phase(state, "play")
        if stage == "start":
            if can_draw_at_start(state):
                return _phase(state, "start")
            state = replace(state, stage="play", fresh=None)
            continue
        if stage in ("upkeep", "replace", "end"):
            return _turn_on(state, stage, state.players, state.pile, state.acted)
        if stage == "deal":  # the setup is complete: the first seat plays (unless a dealt Hurricane cost the turn)
            state = _seat_to_play(state, 0, 0, 0)
            continue
        return state  # setup, dealing, reveal, over: waiting for the table


def _walked(reduce: Callable[[State, E], State]) -> Callable[[State, E], State]:
    """A reducer of the setup or a reshuffle, then the walk (`advance`) unless the table is still to enter something."""

    def walked(state: State, event: E) -> State:
        state = reduce(state, event)
        return state if state.stage in ("over", "reveal", "setup", "dealing") else advance(state)

    return walked


REDUCERS = Reducers[State]("splice", EVENTS)
REDUCERS.on(SetupDealt, _walked(apply_setup))
REDUCERS.on(DisksChosen, _walked(apply_disks_chosen))
REDUCERS.on(CardsDealt, _walked(apply_cards_dealt))
REDUCERS.on(HandNamed, _walked(apply_hand_named))
REDUCERS.on(DisksDealt, _walked(apply_disks_dealt))
REDUCERS.on(DisksRedrawn, _walked(apply_disks_redrawn))
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
# the state after a checked event, then whatever follows by itself (the end of a turn, the next draw): each reducer
# walks on itself, so a fold calls it with no dispatch of its own (`dispatch.reducers_of`)
apply = REDUCERS.seal().apply


__all__ = ["advance", "apply", "apply_setup", "start"]
