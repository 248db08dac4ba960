"""Split's state (frozen) and the questions rules, reducer, moves and view ask of it.

Where every card is: in a hand (a `Zone`: the cards the log knows plus a count of unknown ones), in the
pile (open mode: the known order, top first; table mode: only its size), in the discard row (always face
up, bottom first), in a match on the table (two visible halves, then the halves covered by upgrades), or
among the reference cards set aside. Every half-card the log has not located is one of the unknown cards
of a hand or the pile, so the unlocated cards bound what a hidden hand may reveal.
"""

import msgspec

from ...knowledge import Zone
from ...model import Event
from .components import PERFECT, STRONG, WEAK, Deck, grade, pad_total
from .events import CardDrawn

Match = tuple[str, ...]  # (visible half, visible half, *covered halves), the visible pair in `pair` order


class Seat(msgspec.Struct, frozen=True, array_like=True, gc=False):
    hand: Zone
    matches: tuple[Match, ...] = ()
    pad: tuple[int, ...] = ()  # boxes marked in each upper row of the pad, then the minus boxes


class RoundResult(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """A finished round, per seat where a tuple: how it ended and what was marked on the pad."""

    round: int
    dealer: int
    ended: str  # out | pile
    ender: int  # who went out, or drew the pile's last card
    late: tuple[int, ...]  # seats who laid matches after a first-turn out
    perfect: tuple[int, ...]
    strong: tuple[int, ...]
    weak: tuple[int, ...]
    left: tuple[int, ...]  # cards in hand at the end
    minus: tuple[int, ...]  # minus boxes marked this round (cards left, perfect-match bonuses)
    pads: tuple[tuple[int, ...], ...]  # the pads after the round
    scores: tuple[int, ...]  # points this round: pad total after it minus before it
    totals: tuple[int, ...]


class State(msgspec.Struct, frozen=True, gc=False):
    seats: tuple[str, ...]
    mode: str
    deck: Deck
    halves: str
    upgrade_others: str
    replaced: str
    upgrade_bonus: str
    no_out_dealer: str
    tie: str
    rounds: int
    players: tuple[Seat, ...]
    dealer: int
    pile: tuple[str, ...] = ()  # open mode: the pile, top first; table mode: empty (unknown)
    pile_size: int = 0
    row: tuple[str, ...] = ()  # the discard row, bottom first: the last card is the top
    round: int = 0  # the round being played (0 before the first deal)
    current: int = 0
    phase: str = "deal"  # deal | draw | play | bonus | laying | over
    bonus: int = -1  # while phase is bonus: the type of the match whose bonus is pending
    must_play: str | None = None  # a card taken from the row, to be played in the next match or upgrade
    had_turn: tuple[bool, ...] = ()
    laying: tuple[int, ...] = ()  # after a first-turn out: the seats who had no turn, in turn order (current lays)
    penalties: tuple[int, ...] = ()  # minus boxes marked by perfect-match bonuses this round
    turns: int = 0
    results: tuple[RoundResult, ...] = ()
    seated: tuple[str, ...] = ()  # the seats that name their own hand and draws (`game_started`'s `seated`)
    owed: tuple[str, ...] = ()  # seated seats whose hand the deal left to them, not named yet (`hand_named`)

    @property
    def player(self) -> Seat:
        return self.players[self.current]

    @property
    def player_name(self) -> str:
        return self.seats[self.current]


# --------------------------------------------------------------------------- where cards are


def located(state: State) -> set[str]:
    """Every half-card the log has placed: known hand cards, the known pile, the row, the matches."""
    seen = set(state.row)
    seen.update(state.pile)
    for seat in state.players:
        seen.update(seat.hand.known)
        for match in seat.matches:
            seen.update(match)
    return seen


def unlocated(state: State) -> list[str]:
    """The half-cards the log has not located, in deck order: each is an unknown card of a hand or the pile."""
    seen = located(state)
    return [card for card in state.deck.cards if card not in seen]


def where_is(state: State, card: str) -> str:
    """Where the log knows `card` to be, in words (for a ruling that refuses a move naming it)."""
    if card in state.row:
        return "in the discard row"
    if card in state.pile:
        return "in the pile"
    for name, seat in zip(state.seats, state.players):
        if card in seat.hand.known:
            return f"in {name}'s hand"
        for match in seat.matches:
            if card in match[:2]:
                return f"in {name}'s match {'+'.join(match[:2])}"
            if card in match:
                return f"under {name}'s match {'+'.join(match[:2])}"
    return "nowhere the log knows"


def can_hold(state: State, seat: Seat, cards: list[str] | tuple[str, ...], unseen: set[str] | None = None) -> bool:
    """Whether `seat`'s hand may hold all of `cards` (distinct): the known ones, the rest among its unknown
    cards, each still unlocated (`unseen`, computed when needed)."""
    hand = seat.hand
    missing = [card for card in cards if card not in hand.known]
    if not missing:
        return True
    if len(missing) > hand.unknown:
        return False
    if unseen is None:
        unseen = set(unlocated(state))
    return all(card in unseen for card in missing)


def find_match(state: State, half: str) -> tuple[int, int] | None:
    """(seat, index) of the match on the table that shows `half`, or None."""
    for s, seat in enumerate(state.players):
        for i, match in enumerate(seat.matches):
            if match[0] == half or match[1] == half:
                return s, i
    return None


def find_own_match(seat: Seat, visible: list[str] | tuple[str, ...]) -> int | None:
    """Index of the seat's match showing exactly the halves `visible` (either order), or None."""
    if len(visible) != 2:
        return None
    a, b = visible
    for i, match in enumerate(seat.matches):
        x, y = match[0], match[1]
        if (x == a and y == b) or (x == b and y == a):
            return i
    return None


def find_others_match(state: State, visible: list[str] | tuple[str, ...]) -> tuple[int, int] | None:
    """(seat, index) of the first match of another player than the current one (in seat order) showing
    exactly the halves `visible`, or None."""
    for s, seat in enumerate(state.players):
        if s != state.current:
            index = find_own_match(seat, visible)
            if index is not None:
                return s, index
    return None


# --------------------------------------------------------------------------- playing cards


def is_pairable(state: State, a: str, b: str) -> bool:
    """Two different halves of one rank that may form a match (one left and one right unless `halves=any`)."""
    info = state.deck.info
    x, y = info[a], info[b]
    return a != b and x[0] == y[0] and (state.halves == "any" or x[2] != y[2])


def upgraded(state: State, match: Match, card: str, over: str) -> int | None:
    """The type of `match` with `card` played over its half `over`, if that is a legal upgrade, else None."""
    info = state.deck.info
    x, o = info[card], info[over]
    if card == over or x[0] != o[0] or (state.halves != "any" and x[2] != o[2]):
        return None
    kept = match[1] if match[0] == over else match[0]
    new = grade(state.deck, kept, card)
    return new if new > grade(state.deck, match[0], match[1]) else None


def cards_after_upgrade(state: State, size: int) -> int:
    """The size of a hand of `size` cards after one upgrade: one card played, and the covered half back in
    hand under `replaced=hand`."""
    return size - 1 + (state.replaced == "hand")


Upgradable = dict[int, list[tuple[str, str, int]]]  # rank index -> (visible half, visible half, type)


def upgradable(state: State) -> Upgradable:
    """The matches on the table the current player may upgrade (those not perfect yet), by rank."""
    info = state.deck.info
    found: Upgradable = {}
    mine_only = state.upgrade_others == "own-only"
    for s, seat in enumerate(state.players):
        if mine_only and s != state.current:
            continue
        for match in seat.matches:
            a, b = match[0], match[1]
            x, y = info[a], info[b]
            kind = PERFECT if x[1] == y[1] else (STRONG if x[3] == y[3] else WEAK)
            if kind != PERFECT:
                found.setdefault(x[0], []).append((a, b, kind))
    return found


def upgrades_with(state: State, card: str, found: Upgradable) -> list[str]:
    """The visible halves `card` may be played over, making their match stronger."""
    info = state.deck.info
    c = info[card]
    any_side = state.halves == "any"
    halves = []
    for a, b, kind in found.get(c[0], ()):
        for over, kept in ((a, b), (b, a)):
            if not any_side and info[over][2] != c[2]:
                continue
            k = info[kept]
            if (PERFECT if k[1] == c[1] else (STRONG if k[3] == c[3] else WEAK)) > kind:
                halves.append(over)
    return halves


def plays_with(state: State, card: str, hand: tuple[str, ...], size: int, found: Upgradable | None = None) -> bool:
    """Whether `card` can be played now from a hand of `size` cards holding the known `hand` (`card` among
    them): in a match with another card of `hand`, or over a half of a match on the table, keeping a card
    in hand for the discard."""
    # `is_pairable(state, card, other)` written out: a row taken is judged over every card of a hand, and with the
    # plain call Split's fold is 5% slower on open logs (1% on table logs, whose hands are mostly unknown;
    # bench/bench_fold.py)
    if size - 2 >= 1:
        info = state.deck.info
        rank, _, side, _ = info[card]
        any_side = state.halves == "any"
        for other in hand:
            o = info[other]
            if o[0] == rank and other != card and (any_side or o[2] != side):
                return True
    if cards_after_upgrade(state, size) < 1:
        return False
    return bool(upgrades_with(state, card, upgradable(state) if found is None else found))


def partners_unseen(state: State, card: str, unseen: list[str] | None = None) -> list[str]:
    """Unlocated halves (`unseen`, computed when not given) that would make a match with `card`: what an
    unknown hand card might be."""
    if unseen is None:
        unseen = unlocated(state)
    return [other for other in unseen if is_pairable(state, card, other)]


# --------------------------------------------------------------------------- seats that report their own cards


def unnamed(state: State, event: Event) -> tuple[str, str] | None:
    """The hidden card a seated seat left unnamed, as (seat, what to name), or None (`core.seat.unnamed`): the card
    it drew from the pile. A hand the deal leaves unnamed the seat names itself (`hand_named`, `core.seat.hand-owed`)."""
    if isinstance(event, CardDrawn):
        if event.card is None and event.player in state.seated:
            return event.player, "name the card drawn (draw CARD)"
        return None
    return None


def conceal(state: State, seat: str | None) -> State:
    """The state as `seat` knows it: every other hand only its size, and the pile tally dealt (open mode) only its
    size; None: the state as the log knows it."""
    if seat is None:
        return state
    players = tuple(
        p if name == seat or not p.hand.known else msgspec.structs.replace(p, hand=p.hand.concealed())
        for name, p in zip(state.seats, state.players)
    )
    return msgspec.structs.replace(state, players=players, pile=())


# --------------------------------------------------------------------------- the pad


def scores(state: State) -> dict[str, int]:
    """Every pad's total so far, by player (the final scores once the game is over)."""
    return {name: pad_total(state.deck, seat.pad) for name, seat in zip(state.seats, state.players)}


def turn(state: State) -> int:
    """The number of the turn being played, 1 for the first: what a view shows and `tally undo --turn` walks back."""
    return state.turns + 1
