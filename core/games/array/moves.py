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
from ...engine import play_drawn as play_drawn  # a playout is the kernel's loop: no faster way of its own
from ...model import Event, pick_listed
from .components import DEAL, is_action
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
from .state import State, cards_picked_up, joins, open_colours, open_segments, picked_up, possible_cards, unentered


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
        drawn = cards_picked_up(state, card)
        # a seated seat names the cards it picks up: too many sets of them to list, so such a give is not listed
        unnamed = state.mode == "table" and picked_up(state, card) > 0
        moves.extend(ActionGiven(player=who, card=card, target=target, drawn=drawn) for target in targets
                     if not (unnamed and target in state.seated))
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
            moves.extend(CardSpliced(player=who, card=card, to=anchor, colour=colour)
                         for card in colour_cards if colour in card)
    moves.append(TurnEnded(player=who))
    return moves


def legal_moves(state: State) -> list[Event]:
    phase = state.phase
    moves: list[Event]
    if phase == "play":
        moves = _turn_moves(state)
    elif phase == "splice":
        moves = _continue_moves(state)
    elif phase == "starter":
        # a seated seat's hand comes first, and its sets of seven cards are too many to list
        moves = [] if unentered(state) else [StarterTurned(card=card) for card in possible_cards(state)]
    elif phase == "show":
        seat = state.owing[0]
        name, hand = state.seats[seat], state.hands[seat]
        cards = _codes(hand.known) + ([c for c in possible_cards(state) if c not in hand.known] if hand.unknown else [])
        moves = [CardShown(player=name, card=card) for card in cards]
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
    return {"deck": state.box.cards()}


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
    rest = deck[DEAL * len(order):]
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
    if phase == "play":
        return _pick_turn(state, below)
    if phase == "splice":
        return _pick_continue(state, below)
    return pick_listed(legal_moves(state), below)


def _pick_turn(state: State, below: Callable[[int], int]) -> Event | None:
    """`_turn_moves` (and the time call after them) counted, building only the move drawn."""
    who = state.player_name
    hand = state.hand
    codes = _codes(hand.known)
    colour_cards = [c for c in codes if not is_action(c)]
    doubles: set[str] = set()
    holders: dict[str, list[str]] = {}
    pairs: dict[str, int] = {}  # by colour, the slices of a join of that colour (`_slice_moves`' ordered pairs)
    if state.first_done:
        doubles = {card for card in colour_cards if hand.known.count(card) >= 2}
        if len(colour_cards) >= 2 or doubles:
            for card in colour_cards:
                for colour in card:
                    holders.setdefault(colour, []).append(card)
            for colour, group in holders.items():
                count = len(group) * (len(group) - 1) + sum(1 for x in group if x in doubles)
                if count:
                    pairs[colour] = count
    open_by_colour: dict[str, int] = {}
    slices: list[tuple[int, int, str, int]] = []  # (a, b, colour, how many) of each join with a slice
    if colour_cards:
        # the table walked once, inline (not by `open_segments` and `joins`): this runs on every turn of a playout
        for a, (code, joined) in enumerate(zip(state.placed, state.links), 1):
            for colour, b in zip(code, joined):
                if not b:
                    open_by_colour[colour] = open_by_colour.get(colour, 0) + 1
                elif b > a and colour in pairs:
                    slices.append((a, b, colour, pairs[colour]))
    splices = [sum(open_by_colour.get(c, 0) for c in set(card)) for card in colour_cards]
    rest: list[Event] = []  # the gives, the draw or pass and the time call: few, built as listed
    if state.first_done:
        rest.extend(_give_moves(state, who, [c for c in codes if is_action(c)]))
    counted = sum(splices) + sum(join[3] for join in slices)
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
            number, colour = [(n, c) for n, c in open_segments(state) if c in card][index]
            return CardSpliced(player=who, card=card, to=number, colour=colour)
        index -= count
    for a, b, colour, count in slices:
        if index < count:
            group = holders[colour]
            x, y = [(x, y) for x in group for y in group if x != y or x in doubles][index]
            return Sliced(player=who, cut=[a, b], cards=[x, y])
        index -= count
    return rest[index]


def _pick_continue(state: State, below: Callable[[int], int]) -> Event | None:
    """`_continue_moves` (and the time call after them) counted, building only the move drawn."""
    who = state.player_name
    colour_cards = [c for c in _codes(state.hand.known) if not is_action(c)]
    holding: dict[str, int] = {}
    sockets: list[tuple[int, str, int]] = []  # (anchor, open colour, cards of that colour)
    for anchor in state.anchors:
        for colour in open_colours(state, anchor):
            count = holding.get(colour)
            if count is None:
                count = holding[colour] = sum(1 for card in colour_cards if colour in card)
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
