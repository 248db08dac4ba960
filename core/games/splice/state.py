"""Splice's state (frozen) and the questions rules, reducer, moves and view ask of it.

Hidden information uses the kernel's `Zone` (known cards plus a count of unknown ones):

- a hand, a player's face-down map pieces and the unused disks are zones;
- the Draw Pile and the Map Pile are tuples of zones, top first: each *segment* is one batch of cards put at
  the bottom together. In `open` mode every card is known and a segment's cards are in draw order. In
  `table` mode a segment's order is unknown, so a card drawn unseen from a segment holding known cards of
  more than one kind makes that segment unknown (the log forgets rather than guesses). A segment of one
  known kind (a Hurricane put at the bottom alone, say) stays known, and so does the card drawn from it.
- a disk is a colour letter, or None when the log does not know it.

What the log knows is never more than the table saw, so a card it has not located may still turn up: the
copies in play minus the cards the log has located bound what may be revealed (`core.knowledge`).
"""

from collections import Counter
from itertools import islice
from typing import Iterable, Sequence

import msgspec

from ...knowledge import Zone, can_reveal, located
from .components import Box, coin_set, multiplier


class Seat(msgspec.Struct, frozen=True, array_like=True, gc=False):
    hand: Zone = Zone()
    maps: Zone = Zone()  # face-down map pieces
    sets: tuple[str, ...] = ()  # coin sets in play, in normal form
    doubles: int = 0  # Double Your Gold cards in play
    disk: str | None = None  # colour letter; None: the log does not know it
    spots: int = 0  # Black Spot cards lying in front: turns to lose
    forfeit: bool = False  # loses the next turn for a Hurricane (a blind-draw replacement, or the first deal)
    revealed: bool = False  # showed disk and pieces at a game's end without a map (table mode)


class Owed(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """Cards `seat` must draw from the Draw Pile now, and why: refill, skull, deal, replace."""

    seat: int
    count: int
    case: str


class State(msgspec.Struct, frozen=True, gc=False):
    seats: tuple[str, ...]
    mode: str
    box: Box
    copies: dict[str, int]  # deck cards in play (the box's, with option `hurricanes` applied)
    hand_size: int
    stack: bool  # double-stack
    stall_rounds: int
    all_bought: str
    no_map: str
    players: tuple[Seat, ...]
    pile: tuple[Zone, ...] = ()  # the Draw Pile, top segment first
    map_pile: tuple[Zone, ...] = ()
    unused: Zone = Zone()  # unused disks
    # what is asked now: setup | start | play | draw | storm | pick | discard | maps | reveal | over
    phase: str = "setup"
    # where the turn stands when no obligation is open: setup | deal | start | play | upkeep | replace | end
    stage: str = "setup"
    current: int = 0
    owed: tuple[Owed, ...] = ()  # forced draws, the first is being drawn
    centre: int = 0  # Hurricanes face up in the centre, waiting for the disks to be shuffled
    storm: str = ""  # why they were drawn: start | refill | skull | deal | replace
    storm_seat: int = -1  # who drew them
    played: str = ""  # a special card still resolving: skull (the redraw), piracy (the pick)
    pick: str = ""  # open mode, chance due: hand (a blind draw) | map (a piece taken by Piracy)
    pick_from: int = -1
    robbed: int = -1  # the seat whose card was drawn blind this turn
    fresh: str | None = None  # the card drawn at the start of this turn ("?" when unseen)
    acted: str = ""  # this turn's play: coins special buy lay discard pass lost
    turns: int = 0
    quiet: int = 0  # turns since a map piece was bought or taken
    end_seat: int = -1  # all-bought=end: the game ends when the turn comes back to this seat
    winner: int = -1
    laid: tuple[str, ...] = ()  # the completed map laid down (the game is won)
    ended: str = ""  # map | all-bought | stalled
    seated: tuple[
        str, ...
    ] = ()  # the seats that name their own disk, hand, draws and pieces (`game_started`'s `seated`)
    hands_owed: tuple[
        str, ...
    ] = ()  # seated seats whose hand or disk the setup (or disk a reshuffle) left to them, not named yet (`hand_named`)
    redrawn: bool = False  # the disks owed were left out by a Hurricane's reshuffle, not by the setup

    @property
    def player(self) -> Seat:
        return self.players[self.current]

    @property
    def player_name(self) -> str:
        return self.seats[self.current]


def disk_holder(state: State, colour: str) -> str | None:
    """The player the log knows to hold the `colour` disk, or None."""
    return next((name for name, seat in zip(state.seats, state.players) if seat.disk == colour), None)


# --------------------------------------------------------------------------- piles


def pile_size(pile: tuple[Zone, ...]) -> int:
    size = 0
    for segment in pile:
        size += len(segment.known) + segment.unknown
    return size


def size_up_to(pile: tuple[Zone, ...], most: int) -> int:
    """`min(pile_size(pile), most)`, reading only the segments it takes (a pile grows a segment per batch put under)."""
    size = 0
    for segment in pile:
        size += len(segment.known) + segment.unknown
        if size >= most:
            return most
    return size


def known_top(pile: tuple[Zone, ...], count: int) -> list[str]:
    """Open mode: the top `count` cards of a pile (every card known, each segment in draw order)."""
    if pile and len(pile[0].known) >= count:  # the top segment alone holds them (a draw, a purchase): no walk
        return list(pile[0].known[:count])
    return list(islice((card for segment in pile for card in segment.known), count))


def open_draw(pile: tuple[Zone, ...], count: int) -> list[str]:
    """Open mode: the cards a draw of `count` takes from the top of the Draw Pile; a draw stops at a Hurricane."""
    top = known_top(pile, count)
    if "hurricane" in top:
        return top[: top.index("hurricane") + 1]
    return top


def put_bottom(pile: tuple[Zone, ...], cards: Iterable[str] = (), unknown: int = 0) -> tuple[Zone, ...]:
    """The pile with one batch put at the bottom (nothing when the batch is empty)."""
    known = tuple(cards)
    if not known and not unknown:
        return pile
    return pile + (Zone(known, unknown),)


def take_unnamed(zone: Zone) -> tuple[Zone, str | None]:
    """Take a card nobody named from a zone whose order the log does not know: the zone after, and the card
    if the log can still tell what it was (the zone held only known cards of one kind), else None."""
    if not zone.known:
        return Zone((), zone.unknown - 1), None
    first = zone.known[0]
    if not zone.unknown and zone.known.count(first) == len(zone.known):
        return Zone(zone.known[1:], 0), first
    return Zone((), zone.size - 1), None


def take_top(
    pile: tuple[Zone, ...], entries: Iterable[str | None], ordered: bool
) -> tuple[tuple[Zone, ...], list[str | None]]:
    """Draw from the top: the pile after and each card as the log now knows it (None: unknown).

    `ordered` (open mode): each segment's cards are in draw order and every entry is the top card."""
    segments = list(pile)
    got: list[str | None] = []
    for entry in entries:
        segment = segments[0]
        card: str | None
        if ordered:
            card = segment.known[0]
            segment = Zone(segment.known[1:], 0)
        elif entry is None:
            segment, card = take_unnamed(segment)
        else:
            card = entry
            segment = segment.remove(entry)
        if segment.known or segment.unknown:
            segments[0] = segment
        else:
            del segments[0]
        got.append(card)
    return tuple(segments), got


def hand_add(zone: Zone, cards: Sequence[str | None]) -> Zone:
    """A zone with cards added: the known ones named, the rest unknown."""
    unknown = cards.count(None)
    return zone.add([c for c in cards if c is not None], unknown)


def zone_remove(zone: Zone, cards: Sequence[str | None]) -> tuple[Zone, list[str | None]]:
    """Named cards and unnamed ones (None) leave a zone; returns the zone and the cards as the log knows them."""
    if None not in cards:  # every card named (open mode, a play): each known copy leaves, else an unknown card
        known = list(zone.known)
        unknown = zone.unknown
        for card in cards:
            if card in known:
                known.remove(card)
            else:
                unknown -= 1
        return Zone(tuple(known), unknown), list(cards)
    gone: list[str | None] = []
    for card in cards:
        if card is None:
            zone, seen = take_unnamed(zone)
            gone.append(seen)
        else:
            zone = zone.remove(card)
            gone.append(card)
    return zone, gone


# --------------------------------------------------------------------------- knowledge


def located_cards(state: State) -> Counter[str]:
    """Deck cards the log has placed: known cards of hands and the Draw Pile, and everything face up."""
    counts = located([seat.hand for seat in state.players] + list(state.pile))
    values = state.box.values
    for seat in state.players:
        for form in seat.sets:
            counts.update(coin_set(form, values).cards)
        if seat.doubles:
            counts["double"] += seat.doubles
        if seat.spots:
            counts["spot"] += seat.spots
    if state.centre:
        counts["hurricane"] += state.centre
    if state.played:
        counts[state.played] += 1
    return counts


def located_pieces(state: State) -> Counter[str]:
    return located([seat.maps for seat in state.players] + list(state.map_pile))


def located_disks(state: State) -> Counter[str]:
    return located([state.unused], [seat.disk for seat in state.players if seat.disk is not None])


def missing(zone: Zone, cards: Iterable[str], copies: dict[str, int], placed: Counter[str]) -> str | None:
    """The first of `cards` that cannot leave `zone` (it is not there, and no unknown card of it may be one),
    or None. `placed` (what the log has located) is updated as unknown cards are revealed."""
    for card in cards:
        if card in zone.known:
            zone = zone.remove(card)
        elif zone.unknown and can_reveal(card, copies, placed):
            zone = zone.remove(card)  # one unknown card turns out to be it
            placed[card] += 1
        else:
            return card
    return None


def first_lacking(known: tuple[str, ...], cards: Iterable[str]) -> str | None:
    """The first of `cards` not among `known` (each copy counted once), or None: the check when nothing is unknown."""
    left = list(known)
    for card in cards:
        if card not in left:
            return card
        left.remove(card)
    return None


# --------------------------------------------------------------------------- gold


def form_cards(form: str) -> Counter[str] | None:
    """The cards a coin set as typed is made of (`9-w10` -> 9, wild), whether or not it is a set; None if unreadable."""
    cards: Counter[str] = Counter()
    for part in form.split("-"):
        wild = part[:1] in ("w", "*")
        digits = part[1:] if wild else part
        if not digits.isascii() or not digits.isdigit() or len(digits) > 4:  # no coin value is longer
            return None
        cards["wild" if wild else str(int(digits))] += 1
    return cards


def set_values(state: State, forms: Iterable[str]) -> int:
    values = state.box.values
    return sum(coin_set(form, values).value for form in forms)


_SETS_HELD: dict[tuple[tuple[str, ...], tuple[int, ...]], int] = {}


def gold(state: State, seat: Seat) -> int:
    """A player's gold in play: the coin sets' values, doubled by Double Your Gold cards in play. The values of a
    hand of sets are remembered by the sets held: the library reads every seat's gold after every turn of every
    game it ingests, and few hands of sets recur."""
    sets = seat.sets
    if not sets:
        return 0
    key = (sets, state.box.values)
    value = _SETS_HELD.get(key)
    if value is None:
        value = set_values(state, sets)
        if len(_SETS_HELD) < 8192:
            _SETS_HELD[key] = value
    return value * multiplier(seat.doubles, state.stack)


def payment_value(state: State, forms: Iterable[str], doubles: int) -> int:
    return set_values(state, forms) * multiplier(doubles, state.stack)


# --------------------------------------------------------------------------- turn order


def next_seat(state: State, index: int) -> int:
    return (index + 1) % len(state.seats)


def can_draw_at_start(state: State) -> bool:
    if state.pile:
        return True
    me = state.current
    return any(seat.hand.size for i, seat in enumerate(state.players) if i != me)


def turn(state: State) -> int:
    """The number of the turn being played, 1 for the first: what a view shows and `tally undo --turn` walks back."""
    return state.turns + 1


def conceal(state: State, seat: str | None) -> State:
    """The state as `seat` knows it: every other seat's hand and face-down map pieces only their sizes, its disk
    unknown until shown (or a map of its colour laid), the card it drew this turn unseen; in open mode, or when a seat enters its own cards (its
    discards, a hand a Skull sent down and its returned pieces are then known to the log), the piles and the
    unused disks only their sizes, but for the Hurricanes a table-mode game put back in sight of all. None: the state
    as the log knows it."""
    if seat is None:
        return state
    players = tuple(
        p
        if name == seat
        else msgspec.structs.replace(
            p,
            hand=p.hand.concealed(),
            maps=p.maps if p.revealed else p.maps.concealed(),
            disk=p.disk if p.revealed or index == state.winner else None,
        )  # a laid map shows it
        for index, (name, p) in enumerate(zip(state.seats, state.players))
    )
    fresh = state.fresh if state.fresh is None or state.player_name == seat else "?"
    if state.mode != "open" and not state.seated:
        return msgspec.structs.replace(state, players=players, fresh=fresh)
    return msgspec.structs.replace(
        state,
        players=players,
        fresh=fresh,
        pile=tuple(_face_down(zone) if state.mode == "table" else zone.concealed() for zone in state.pile),
        map_pile=tuple(zone.concealed() for zone in state.map_pile),
        unused=state.unused.concealed(),
    )


def _face_down(zone: Zone) -> Zone:
    """A segment of the Draw Pile of a table-mode game as a seat knows it: its size, and the Hurricanes the table saw
    put there (a Hurricane resolved goes to the bottom in sight of all: it is nobody's secret). In open mode the pile
    is tally's deal, where a Hurricane lies is chance no seat has seen, and every card is concealed."""
    storms = zone.known.count("hurricane")
    return zone.concealed() if not storms else Zone(("hurricane",) * storms, zone.size - storms)
