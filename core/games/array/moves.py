"""Array's legal moves now, in a deterministic order, and the chance of an open game's deal.

A move is recorded step by step (docs/rules/array.md): Splice 1 is one `card_spliced`, each Splice 2 card
another, and `done` ends the move; a slice is one `sliced` (the cut and the two cards laid against it).
So the legal moves are the next steps: in a turn, every Splice 1 (hand cards in hand order, then the open
segments by card number and colour), every slice (joins by card number, then ordered pairs of hand cards),
every action card to every other player, and the draw (or the pass) only when nothing else is possible;
during a move, every Splice 2 onto the cards just laid, then `done`.

In table mode the hands are unknown: moves that name a card from a hand the log has not seen are not
listed (the recorder names the card that was played); the draw or pass is listed unless the box's copy
counts prove it wrong (rules.can_stop), and so is every card the table may turn over or show.
"""

from __future__ import annotations

from collections.abc import Callable

from ...model import Event, pick_listed
from .components import ACTIONS, DEAL, Box, is_action
from .events import (
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    TurnEnded,
    TurnPassed,
)
from .rules import can_stop
from .state import (
    State,
    cards_picked_up,
    join_colour,
    joins,
    open_colours,
    open_segments,
    possible_cards,
    unentered,
)

_ACTION_CARDS = frozenset(ACTIONS)  # `is_action` as a set: a turn asks it of every card in hand


def _codes(cards: tuple[str, ...]) -> list[str]:
    return list(dict.fromkeys(cards))


def _splice_moves(state: State, who: str, colour_cards: list[str]) -> list[Event]:
    moves: list[Event] = []
    if not colour_cards:
        return moves
    segments = list(open_segments(state))
    append = moves.append
    for card in colour_cards:
        for number, colour in segments:
            if colour in card:
                append(CardSpliced(player=who, card=card, to=number, colour=colour))
    return moves


def _slice_moves(state: State, who: str, colour_cards: list[str], hand: tuple[str, ...]) -> list[Event]:
    """Each join (by its lower card number), with each ordered pair of hand cards of its colour."""
    moves: list[Event] = []
    doubles = {card for card in colour_cards if hand.count(card) >= 2}
    if len(colour_cards) < 2 and not doubles:
        return moves
    holders: dict[str, list[str]] = {}
    for card in colour_cards:
        for colour in card:
            holders.setdefault(colour, []).append(card)
    append = moves.append
    for a, b, colour in joins(state):
        group = holders.get(colour)
        if not group or (len(group) == 1 and group[0] not in doubles):
            continue
        cut = [a, b]  # shared by the moves of this join: events are never changed
        for x in group:
            for y in group:
                if x != y or x in doubles:
                    append(Sliced(player=who, cut=cut, cards=[x, y]))
    return moves


def _give_moves(state: State, who: str, actions: list[str]) -> list[Event]:
    moves: list[Event] = []
    targets = [state.seats[s] for s in state.playing if s != state.current]
    for card in actions:
        drawn = cards_picked_up(state, card)  # a seated receiver names its own next (`picked_up`): none here
        moves.extend(ActionGiven(player=who, card=card, target=target, drawn=drawn) for target in targets)
    return moves


def _turn_moves(state: State) -> list[Event]:
    who = state.player_name
    hand = state.hand
    codes = _codes(hand.known)
    colour_cards = [c for c in codes if not is_action(c)]
    moves = _splice_moves(state, who, colour_cards)
    if state.first_done:
        moves.extend(_slice_moves(state, who, colour_cards, hand.known))
        moves.extend(_give_moves(state, who, [c for c in codes if is_action(c)]))
    if (not moves or hand.unknown) and can_stop(state):  # never a draw or pass the guard refuses
        if state.deck_size and not state.deck and who in state.seated:  # the seat names the card it draws
            moves.extend(CardDrawn(player=who, card=card) for card in possible_cards(state))
        elif state.deck_size:
            moves.append(CardDrawn(player=who, card=state.deck[0] if state.deck else None))
        else:
            moves.append(TurnPassed(player=who))
    return moves


def _continue_moves(state: State) -> list[Event]:
    """Splice 2 onto the cards just laid, then the end of the move."""
    who = state.player_name
    colour_cards = [c for c in _codes(state.hand.known) if not is_action(c)]
    moves: list[Event] = []
    for anchor in state.anchors:
        for colour in open_colours(state, anchor):
            moves.extend(
                CardSpliced(player=who, card=card, to=anchor, colour=colour) for card in colour_cards if colour in card
            )
    moves.append(TurnEnded(player=who))
    return moves


def legal_moves(state: State) -> list[Event]:
    phase = state.phase
    moves: list[Event]
    if state.picking:  # the cards a seated seat picked up come first, and their sets are too many to list
        return []
    if phase == "play":
        moves = _turn_moves(state)
    elif phase == "splice":
        moves = _continue_moves(state)
    elif phase == "starter":
        # a seated seat's hand comes first, and its sets of seven cards are too many to list
        moves = [] if unentered(state) else [StarterTurned(card=card) for card in possible_cards(state)]
    elif phase == "show":  # every seat with cards left shows them, in any order: each seat's, in seat order
        moves = []
        possible = possible_cards(state)
        for seat in state.owing:
            name, hand = state.seats[seat], state.hands[seat]
            cards = _codes(hand.known) + ([c for c in possible if c not in hand.known] if hand.unknown else [])
            moves.extend(CardShown(player=name, card=card) for card in cards)
    else:
        return []
    if state.end == "time" and not state.time_called:
        moves.append(TimeCalled())
    return moves


# --------------------------------------------------------------------------- chance (open mode)


def shuffles(state: State) -> dict[str, list[str]]:
    """The pile tally shuffles: the whole deck, at the start of each round of an open game."""
    if state.phase != "deal" or state.mode != "open":
        return {}
    box = state.box
    cards = _BOX_CARDS.get(box)
    if cards is None:  # every round deals the same box: its cards listed once
        cards = tuple(box.cards())
        if len(_BOX_CARDS) < 64:  # a handful of manifests in use: a bound, not a cache to manage
            _BOX_CARDS[box] = cards
    return {"deck": list(cards)}


_BOX_CARDS: dict[Box, tuple[str, ...]] = {}  # `Box.cards()` of each box dealt


def deal(state: State, shuffled: dict[str, list[str]]) -> list[Event]:
    """The deal for a shuffled deck: 7 cards to each player in turn from the dealer's left, then cards turned
    over until a colour card comes up; the action cards turned over go back under the pickup deck."""
    deck = list(shuffled["deck"])
    order = [s for s in range(len(state.seats)) if s in state.playing]
    first = order.index(state.current)
    order = order[first:] + order[:first]
    hands: dict[str, list[str]] = {state.seats[s]: [] for s in order}
    for i in range(DEAL * len(order)):
        hands[state.seats[order[i % len(order)]]].append(deck[i])
    rest = deck[DEAL * len(order) :]
    turned: list[str] = []
    for _ in range(len(rest)):  # the manifest guarantees a colour card among them
        card = rest.pop(0)
        turned.append(card)
        if not is_action(card):
            break
        rest.append(card)
    return [RoundDealt(hands=hands, turned=turned, deck=rest)]


def pick_move(state: State, below: Callable[[int], int]) -> Event | None:
    """`legal_moves(state)[below(n)]` for the n legal moves (the contract's `pick_move`); None when none is legal.

    In a turn and during a move the splices and slices are counted and only the one drawn is built: they are
    most of the moves listed, and a playout uses one."""
    phase = state.phase
    if state.picking:
        return None
    if phase == "play":
        return _pick_turn(state, below)
    if phase == "splice":
        return _pick_continue(state, below)
    return pick_listed(legal_moves(state), below)


class Segments:
    """The table as a turn's count needs it: for each colour, the cards whose segment of that colour is open (by card
    number), and how many joins it has. Built from a state by one walk of the table (`of`); a playout keeps one and
    changes it as each card is laid (`array.playout`), so that a turn does not walk the whole table again."""

    __slots__ = ("open", "joins", "placed")

    def __init__(self, open_: dict[str, list[int]], joins_: dict[str, int], placed: tuple[str, ...]):
        self.open = open_  # a list for every colour of the box, so a card's colours are looked up without a default
        self.joins = joins_
        self.placed = placed  # the cards the index describes: `of` builds it anew when the state's differ

    @classmethod
    def of(cls, state: State) -> Segments:
        open_: dict[str, list[int]] = {colour: [] for colour in state.box.colours}
        joins_: dict[str, int] = {}
        for a, (code, joined) in enumerate(zip(state.placed, state.links), 1):
            for colour, b in zip(code, joined):
                if not b:
                    open_[colour].append(a)
                elif b > a:
                    joins_[colour] = joins_.get(colour, 0) + 1
        return cls(open_, joins_, state.placed)

    def follow(self, before: State, move: Event, after: State) -> Segments:
        """The index of `after`, the state `move` leads to from `before` (the state this index describes): changed in
        place for a card laid, the same for a move that lays none, built anew when the table is another (a round
        ended or dealt)."""
        laid = len(after.placed) - len(before.placed)
        if laid == 1 and isinstance(move, CardSpliced):
            self.spliced(move.card, move.to, move.colour, after.placed)
        elif laid == 2 and isinstance(move, Sliced):
            colour = join_colour(before, *move.cut)
            assert colour is not None  # a slice cuts a join
            self.sliced(move.cards, colour, after.placed)
        return self if after.placed is self.placed else Segments.of(after)

    def spliced(self, card: str, to: int, colour: str, placed: tuple[str, ...]) -> None:
        """`card` laid against card #`to`'s `colour` segment, as the next card (`placed` the cards after it)."""
        self.open[colour].remove(to)
        self.joins[colour] = self.joins.get(colour, 0) + 1
        self._opened(card, colour, len(placed))
        self.placed = placed

    def sliced(self, cards: list[str], colour: str, placed: tuple[str, ...]) -> None:
        """A join of `colour` cut and the two `cards` laid against its two ends, as the next two cards: the ends are
        closed again, and the join is two joins."""
        self.joins[colour] += 1
        self._opened(cards[0], colour, len(placed) - 1)
        self._opened(cards[1], colour, len(placed))
        self.placed = placed

    def _opened(self, card: str, joined: str, number: int) -> None:
        open_ = self.open
        for colour in card:
            if colour != joined:
                open_[colour].append(number)


def _pick_turn(state: State, below: Callable[[int], int], table: Segments | None = None) -> Event | None:
    """`_turn_moves` (and the time call after them) counted, building only the move drawn; `table` the state's table
    (`Segments`), walked here when not given."""
    who = state.player_name
    hand = state.hand
    known = hand.known
    codes = _codes(known)
    colour_cards = [c for c in codes if c not in _ACTION_CARDS]
    doubles: set[str] = set()
    holders: dict[str, list[str]] = {}
    pairs: dict[str, int] = {}  # by colour, the slices of a join of that colour (`_slice_moves`' ordered pairs)
    if state.first_done:
        if len(codes) < len(known):  # some card twice in hand
            doubles = {card for card in colour_cards if known.count(card) >= 2}
        if len(colour_cards) >= 2 or doubles:
            for card in colour_cards:
                for colour in card:
                    group = holders.get(colour)
                    if group is None:
                        holders[colour] = [card]
                    else:
                        group.append(card)
            for colour, group in holders.items():
                count = len(group) * (len(group) - 1)
                if doubles:
                    count += sum(1 for x in group if x in doubles)
                if count:
                    pairs[colour] = count
    splices: list[int] = []
    sliced = 0
    if colour_cards:
        if table is None:
            table = Segments.of(state)
        open_, joined = table.open, table.joins
        splices = [sum(map(len, map(open_.__getitem__, card))) for card in colour_cards]
        sliced = sum(joined.get(colour, 0) * count for colour, count in pairs.items())
    rest: list[Event] = []  # the gives, the draw or pass and the time call: few, built as listed
    if len(colour_cards) < len(codes) and len(state.placed) > 1:
        rest.extend(_give_moves(state, who, [c for c in codes if c in _ACTION_CARDS]))
    counted = sum(splices) + sliced
    if (not (counted or rest) or hand.unknown) and can_stop(state):
        if state.deck_size and not state.deck and who in state.seated:
            rest.extend(CardDrawn(player=who, card=card) for card in possible_cards(state))
        elif state.deck_size:
            rest.append(CardDrawn(player=who, card=state.deck[0] if state.deck else None))
        else:
            rest.append(TurnPassed(player=who))
    if state.end == "time" and not state.time_called:
        rest.append(TimeCalled())
    total = counted + len(rest)
    if not total:
        return None
    index = below(total)
    for card, count in zip(colour_cards, splices):
        if index < count:
            assert table is not None  # counted: the table was looked at
            # the open segments of the card's colours in `open_segments`' order: by card number, then as its code
            placed, open_ = state.placed, table.open
            found = sorted(
                (number, placed[number - 1].index(colour), colour) for colour in card for number in open_[colour]
            )
            number, _, colour = found[index]
            return CardSpliced(player=who, card=card, to=number, colour=colour)
        index -= count
    if index < sliced:
        for a, b, colour in joins(state):
            count = pairs.get(colour, 0)
            if index < count:
                group = holders[colour]
                x, y = [(x, y) for x in group for y in group if x != y or x in doubles][index]
                return Sliced(player=who, cut=[a, b], cards=[x, y])
            index -= count
    return rest[index - sliced]


def _pick_continue(state: State, below: Callable[[int], int]) -> Event | None:
    """`_continue_moves` (and the time call after them) counted, building only the move drawn."""
    who = state.player_name
    colour_cards = [c for c in _codes(state.hand.known) if c not in _ACTION_CARDS]
    holding: dict[str, int] = {}  # by colour, the hand's colour cards of that colour
    for card in colour_cards:
        for colour in card:
            holding[colour] = holding.get(colour, 0) + 1
    sockets: list[tuple[int, str, int]] = []  # (anchor, open colour, cards of that colour)
    placed, links = state.placed, state.links
    for anchor in state.anchors:
        for colour, other in zip(placed[anchor - 1], links[anchor - 1]):  # `open_colours`, inline
            if not other:
                count = holding.get(colour)
                if count:
                    sockets.append((anchor, colour, count))
    timed = state.end == "time" and not state.time_called
    index = below(sum(socket[2] for socket in sockets) + 1 + timed)
    for anchor, colour, count in sockets:
        if index < count:
            card = [card for card in colour_cards if colour in card][index]
            return CardSpliced(player=who, card=card, to=anchor, colour=colour)
        index -= count
    return TurnEnded(player=who) if index == 0 else TimeCalled()
