"""Array's state (frozen) and the questions rules, reducer, moves and view ask of it.

The table of a round is a graph of cards. `placed[i]` is the code of card #i+1 (#1 is the starting
card). `links[i]` holds, for each colour of that card (in the order of its code), the number of the card
whose segment of that colour touches it, or 0 while the segment is open. Every card is laid against
exactly one segment of a card already there, so each array (a connected group of cards) is a tree, and
cutting one join (a slice) leaves exactly two arrays.
"""

from collections import Counter
from typing import Any, Iterator, NamedTuple

import msgspec

from ...knowledge import Zone, can_reveal, unlocated
from ...knowledge import located as _located
from ...model import Event
from .components import Box, is_action, splatter
from .events import ActionGiven, CardDrawn


class Result(msgspec.Struct, frozen=True, array_like=True, gc=False):
    """One finished round. Per-seat tuples are indexed by seat (a seat not playing the round has 0 / ())."""

    round: int
    dealer: int
    playing: tuple[int, ...]
    winners: tuple[int, ...]  # who went out; in a blocked round, the lowest hands
    ended: str  # out | blocked
    left: tuple[tuple[str, ...], ...]  # cards left in each hand
    points: tuple[int, ...]  # points scored this round (cards left, SLAMs received)
    slams: tuple[int, ...]  # SLAM points received this round
    totals: tuple[int, ...]  # running totals after the round
    eliminated: tuple[int, ...]  # seats that reached the threshold at this round's end
    sudden: bool  # a sudden-death round
    turns: int  # turns played in the round
    then: str  # continue | sudden-death | over


class State(msgspec.Struct, frozen=True, gc=False):
    seats: tuple[str, ...]
    mode: str
    box: Box
    threshold: int
    end: str  # elimination | hands | time
    hands_limit: int
    blocked: str  # lowest-free | all-score
    round: int
    dealer: int
    playing: tuple[int, ...]  # seats playing this round, in seat order
    totals: tuple[int, ...]
    hands: tuple[Zone, ...]
    phase: str  # deal | starter | play | splice | show | over
    current: int = 0
    deck: tuple[str, ...] = ()  # open mode: the pickup deck, top first
    deck_size: int = 0
    placed: tuple[str, ...] = ()
    links: tuple[tuple[int, ...], ...] = ()
    played: tuple[str, ...] = ()  # action cards given this round
    returned: tuple[str, ...] = ()  # action cards turned over for the starting card and put back
    slams: tuple[int, ...] = ()  # SLAM points received this round, per seat
    anchors: tuple[int, ...] = ()  # phase splice: the cards laid in Splice 1 / by the slice this turn
    passes: int = 0  # passes in a row
    turns: int = 0  # turns completed in the game
    round_turns: int = 0
    sudden: bool = False
    time_called: bool = False
    went_out: int = -1  # the seat that emptied its hand this round (-1: none yet, or blocked)
    left: tuple[tuple[str, ...], ...] = ()  # phase show: cards shown so far, per seat
    out: tuple[int, ...] = ()  # seats eliminated, in the order they went out
    results: tuple[Result, ...] = ()
    winner: int = -1
    ended: str = ""  # last-standing | all-crossed | sudden-death | hands | time
    seated: tuple[str, ...] = ()  # the seats that name their own hand, draws and pick-ups (`game_started`'s `seated`)
    # table mode, phase starter: the seated seats of the round whose dealt hand is not named yet, in seat order; each
    # names it (`deal ana: CARD ...`, or `ana: hand CARD ...` from its own device) before the starting card is turned
    owed: tuple[str, ...] = ()
    # table mode: the seated seat a Splatter made pick up cards it has not named yet (`picked_up`), and how many; the
    # cards lie in its hand as unknown until it names them, before anything else is played
    picking: str = ""
    picks: int = 0

    @property
    def player_name(self) -> str:
        return self.seats[self.current]

    @property
    def hand(self) -> Zone:
        return self.hands[self.current]

    @property
    def first_done(self) -> bool:
        """The round's first move (the first splice) has been made: a card lies beside the starting card."""
        return len(self.placed) > 1

    @property
    def owing(self) -> tuple[int, ...]:
        """Phase show: the seats of the round that still hold cards to show, in seat order."""
        if self.phase != "show":
            return ()
        return tuple(seat for seat in self.playing if self.hands[seat].size)


def replace(state: State, **changes: Any) -> State:
    return msgspec.structs.replace(state, **changes)


def after(state: State, seat: int, playing: tuple[int, ...] | None = None) -> int:
    """The first seat to the left of `seat` (next in turn order) that plays: the same seat if it plays alone."""
    group = state.playing if playing is None else playing
    n = len(state.seats)
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if candidate in group:
            return candidate
    return seat


# --------------------------------------------------------------------------- the table


class _Segments(dict[str, dict[str, tuple[int, tuple[int, ...], tuple[int, ...]]]]):
    """code -> colour -> (the index of that colour's segment in the code, the zeros before it, the zeros after it):
    where a card is joined, and its links when it is laid against card #N (`before + (N,) + after`), without a
    `str.index` call (a slow method call) or a list of zeros per card laid. Filled as codes are met: a box has at
    most a few hundred."""

    def __missing__(self, code: str) -> dict[str, tuple[int, tuple[int, ...], tuple[int, ...]]]:
        found = {colour: (index, (0,) * index, (0,) * (len(code) - index - 1)) for index, colour in enumerate(code)}
        if len(self) < _MEMO_LIMIT:
            self[code] = found
        return found


_MEMO_LIMIT = 4096
SEGMENTS = _Segments()


def open_segments(state: State) -> Iterator[tuple[int, str]]:
    """(card number, colour) of every open segment, by card number then colour order."""
    for number, (code, joined) in enumerate(zip(state.placed, state.links), 1):
        for colour, partner in zip(code, joined):
            if not partner:
                yield number, colour


def joins(state: State) -> Iterator[tuple[int, int, str]]:
    """(a, b, colour) of every join, each once with a < b, by a then colour order."""
    for a, (code, joined) in enumerate(zip(state.placed, state.links), 1):
        for colour, b in zip(code, joined):
            if b > a:
                yield a, b, colour


def partner(state: State, number: int, colour: str) -> int | None:
    """The card touching #`number` at its `colour` segment (0: open), or None if it has no such segment."""
    code = state.placed[number - 1]
    index = code.find(colour)
    if index < 0 or len(colour) != 1:
        return None
    return state.links[number - 1][index]


def join_colour(state: State, a: int, b: int) -> str | None:
    """The colour of the join between cards #`a` and #`b` (both on the table), or None if they do not touch."""
    return next((c for c, other in zip(state.placed[a - 1], state.links[a - 1]) if other == b), None)


def open_colours(state: State, number: int) -> str:
    """The colours of card #`number` whose segments are open."""
    return "".join(c for c, p in zip(state.placed[number - 1], state.links[number - 1]) if not p)


def arrays(state: State) -> list[list[int]]:
    """The arrays: connected groups of cards, each as its card numbers in the order of a walk from its lowest
    card (a parent before its children), arrays ordered by their lowest card."""
    seen = [False] * (len(state.placed) + 1)
    found = []
    for root in range(1, len(state.placed) + 1):
        if seen[root]:
            continue
        seen[root] = True
        group = [root]
        for number in group:  # grows while walked: breadth first
            for other in state.links[number - 1]:
                if other and not seen[other]:
                    seen[other] = True
                    group.append(other)
        found.append(group)
    return found


def array_tree(state: State, group: list[int]) -> list[tuple[int, int, str]]:
    """(card, parent, colour of the join to the parent) for each card of an array, depth first from its
    lowest card (parent 0 for that card), children in colour order."""
    root = min(group)
    rows: list[tuple[int, int, str]] = []
    stack = [(root, 0, "")]
    while stack:
        number, parent, colour = stack.pop()
        rows.append((number, parent, colour))
        children = [
            (other, number, c)
            for c, other in zip(state.placed[number - 1], state.links[number - 1])
            if other and other != parent
        ]
        stack.extend(reversed(children))
    return rows


# --------------------------------------------------------------------------- what a player can do


def colours_on_table(state: State) -> tuple[set[str], set[str]]:
    """The colours with an open segment somewhere, and the colours of the joins."""
    open_: set[str] = set()
    joined: set[str] = set()
    for code, links in zip(state.placed, state.links):
        for colour, other in zip(code, links):
            (joined if other else open_).add(colour)
    return open_, joined


def can_splice(cards: tuple[str, ...], open_: set[str]) -> bool:
    """Some colour card of `cards` has a colour with an open segment on the table (`open_`)."""
    return any(not is_action(code) and not open_.isdisjoint(code) for code in cards)


def can_slice(cards: tuple[str, ...], joined: set[str]) -> bool:
    """Some join's colour (of `joined`) is on at least two colour cards of `cards` (one for each side of the cut)."""
    return any(sum(1 for code in cards if not is_action(code) and colour in code) >= 2 for colour in joined)


def can_give(state: State, cards: tuple[str, ...]) -> bool:
    return state.first_done and any(is_action(code) for code in cards)


def options_left(state: State, cards: tuple[str, ...]) -> list[str]:
    """What a player holding `cards` could do instead of drawing (empty: nothing, the draw is right)."""
    found = []
    open_, joined = colours_on_table(state)
    if state.first_done and can_slice(cards, joined):
        found.append("slice and splice")
    if can_splice(cards, open_):
        found.append("splice")
    if can_give(state, cards):
        found.append("give an action card")
    return found


class Unseen(NamedTuple):
    """What the box says of the cards of a hand the log has not seen, each a different copy of `pool` (the copies
    the log has not located), beside the hand's known cards (which give no move): how many of those copies give a
    move on their own, and how many of the others a hand without a move can hold at once."""

    moving: int  # copies that give a move with the known cards, whatever else the hand holds
    idle: int  # copies that give none on their own
    unjoined: int  # the idle copies without a colour of a join: a hand without a move may hold every one of them
    packed: int  # the most of the other idle copies such a hand holds: two sharing a joined colour would slice
    joined: str  # the colours of the joins that idle copies carry, in the box's order

    @property
    def most(self) -> int:
        """The most cards the log has not seen in a hand without a move."""
        return self.unjoined + self.packed

    def all_stuck(self, unseen: int) -> bool:
        """Whether every hand of `unseen` such copies is without a move: no copy gives one alone, and no two that
        could be held together share a joined colour (or the hand holds one card the log has not seen)."""
        return not self.moving and (unseen <= 1 or self.most == self.idle)


def unseen_cards(state: State, known: tuple[str, ...], pool: dict[str, int]) -> Unseen:
    """`Unseen` for the player to act, holding `known` (without a move) and unseen copies of `pool`.

    A hand has a move when one card fits an open segment, an action card may be given, or two colour cards share
    the colour of a join (a slice). So a hand without a move holds only copies that give none alone and, of those
    with a joined colour, at most one per joined colour: the most it holds is the idle copies without a joined
    colour and a largest set of the others that pairwise share none (`packing`)."""
    open_, joined = colours_on_table(state)
    moving = idle = 0
    if not state.first_done:  # no join and no action card yet: a copy fits the starting card or gives nothing
        for card, copies in pool.items():
            if is_action(card) or open_.isdisjoint(card):
                idle += copies
            else:
                moving += copies
        return Unseen(moving, idle, idle, 0, "")
    # a known colour card with a joined colour slices with any copy of that colour (the known cards hold at most
    # one card of each: they give no move)
    held = {colour for card in known if not is_action(card) for colour in card if colour in joined}
    free = [colour for colour in state.box.colours if colour in joined and colour not in held and colour not in open_]
    bits = {colour: 1 << i for i, colour in enumerate(free)}
    unjoined = 0
    masks: dict[int, int] = {}  # the joined colours of idle copies (as bits of `bits`): copies of them
    for card, copies in pool.items():
        if is_action(card) or not open_.isdisjoint(card) or not held.isdisjoint(card):
            moving += copies
            continue
        idle += copies
        mask = 0
        for colour in card:
            mask |= bits.get(colour, 0)
        if mask:
            masks[mask] = masks.get(mask, 0) + copies
        else:
            unjoined += copies
    if not masks:
        return Unseen(moving, idle, unjoined, 0, "")
    union = 0
    for mask in masks:
        union |= mask
    carried = "".join(colour for colour in state.box.colours if bits.get(colour, 0) & union)
    return Unseen(moving, idle, unjoined, packing(masks), carried)


def packing(masks: dict[int, int]) -> int:
    """The most cards that pairwise share no joined colour, from copies whose joined colours are the bit sets of
    `masks` (each with its copies): a largest set packing, searched over the colours (a box has at most 8), each
    colour either on no card chosen or on exactly one."""
    chosen = list(masks)
    union = 0
    for mask in chosen:
        union |= mask
    if all(copies == 1 for copies in masks.values()) and sum(mask.bit_count() for mask in chosen) == union.bit_count():
        return len(chosen)  # no two share a colour: every one of them
    best: dict[int, int] = {0: 0}

    def most(free: int) -> int:
        found = best.get(free)
        if found is None:
            low = free & -free
            found = most(free & ~low)  # no card chosen holds this colour
            for mask in chosen:
                if mask & low and mask & free == mask:
                    found = max(found, 1 + most(free & ~mask))
            best[free] = found
        return found

    return most(union)


def picked_up(state: State, card: str) -> int:
    """How many cards an action card makes its receiver pick up: Splatter N's N, or all that are left; SLAM none."""
    return min(splatter(card), state.deck_size)


def cards_picked_up(state: State, card: str) -> list[str]:
    """The cards an action card makes its receiver pick up, as the log records them: the top of the pickup deck
    in open mode, none in table mode (the others do not see them)."""
    return list(state.deck[: picked_up(state, card)]) if state.mode == "open" else []


# --------------------------------------------------------------------------- knowledge


def located(state: State) -> Counter[str]:
    """Copies the log has placed this round: on the table, given, known in a hand, shown, in the deck (open mode)."""
    return _located(state.hands, state.placed, state.played, state.deck, *state.left)


def is_possible(state: State, card: str) -> bool:
    """Whether a card the log has not seen (an unknown card of a hand, the deck's top) may be `card`."""
    return can_reveal(card, dict(state.box.copies), located(state))


def unlocated_copies(state: State) -> dict[str, int]:
    """Copies of each code the log has not located: what the unseen cards of a hand may be."""
    return unlocated(dict(state.box.copies), located(state))


def possible_cards(state: State) -> list[str]:
    """Codes with a copy the log has not located, in manifest order."""
    return list(unlocated(dict(state.box.copies), located(state)))


def turn(state: State) -> int:
    """The number of the turn being played, 1 for the first: what a view shows and `tally undo --turn` walks back."""
    return state.turns + 1


def unentered(state: State) -> str | None:
    """A seated seat playing this round whose dealt hand the log has not been given yet, or None."""
    owed = state.owed
    return owed[0] if owed else None


def unnamed(state: State, event: Event) -> tuple[str, str] | None:
    """The hidden card a seated seat left unnamed, as (seat, what to name), or None (`core.seat.unnamed`): the card
    it drew. Its hand dealt this round it names before the starting card is turned (`State.owed`,
    `core.seat.hand-owed`), the cards a Splatter made it pick up right after the Splatter (`State.picking`,
    `array.pickup.owed`)."""
    if isinstance(event, CardDrawn) and event.card is None and event.player in state.seated:
        return event.player, "name the card drawn (draw CARD)"
    return None


def picks_owed(state: State, event: ActionGiven) -> int:
    """How many cards a Splatter given in table mode leaves its seated receiver to name (`picked_up`), 0 when none:
    the giver named them (`drawn`), the receiver names its own cards only if seated, or the deck had none left."""
    if state.mode != "table" or event.drawn or event.target not in state.seated:
        return 0
    return picked_up(state, event.card)


def conceal(state: State, seat: str | None) -> State:
    """The state as `seat` knows it: every other hand only its size, and the pickup deck tally dealt (open mode)
    only its size; None: the state as the log knows it."""
    if seat is None:
        return state
    hands = tuple(zone if name == seat else zone.concealed() for name, zone in zip(state.seats, state.hands))
    return msgspec.structs.replace(state, hands=hands, deck=())
