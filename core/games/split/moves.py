"""Split's legal moves now, in a deterministic order (also the deal the table must enter), and the chance
tally deals in open mode (`shuffles`, `deal`: every round's deal).

Order: in the draw step, the draw, then each card of the discard row that can be taken (top first); in
the play step, every match (pairs in the order of the hand), every upgrade, then every discard; a
pending bonus's actions, then `skip`. In table mode a hand the log cannot see may hold any card not yet
located, so those cards are listed too (bounded by how many unknown cards the hand holds). A seat that names
its own draws (`seated`) draws each card still unlocated, one move each; a deal naming its hand is not listed.
"""

from __future__ import annotations

from collections.abc import Callable

from ...model import Event, pick_listed
from .components import HAND, PERFECT, STRONG, grade, pair
from .events import (
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
)
from .state import Seat, State, Upgradable, cards_after_upgrade, partners_unseen, unlocated, upgradable, upgrades_with


def _candidates(state: State, seat: Seat) -> tuple[tuple[str, ...], list[str]]:
    """The cards a hand may play: the known ones, and (if it holds unknown cards) every unlocated card."""
    return seat.hand.known, (unlocated(state) if seat.hand.unknown else [])


def _pairs(state: State, seat: Seat, known: tuple[str, ...], unseen: list[str]) -> list[tuple[str, str]]:
    """Every match the hand may hold (`_candidates`), each once, in the order of the hand, written as tally
    writes a match."""
    cards = (*known, *unseen)
    hidden = len(known)  # cards from this index on are unlocated ones a hidden hand may hold
    unknown = seat.hand.unknown
    info = state.deck.info
    deck = state.deck
    any_side = state.halves == "any"
    later: dict[int, list[int]] = {}  # by rank, the indices of the cards of that rank: only they can pair
    for i, a in enumerate(cards):
        rank = info[a][0]
        group = later.get(rank)
        if group is None:
            later[rank] = [i]
        else:
            group.append(i)
    found: list[tuple[str, str]] = []
    for i, a in enumerate(cards):
        group = later[info[a][0]]
        del group[0]  # this card: the cards of its rank after it are left
        if not group:
            continue
        side = info[a][2]
        for j in group:
            b = cards[j]
            if info[b][2] == side and not any_side:
                continue
            if (i >= hidden) + (j >= hidden) > unknown:
                continue
            found.append(pair(deck, a, b))
    return found


# the matches one may upgrade on the last table asked about, with what decides them (`_upgradable`)
_LAST_UPGRADABLE: list[tuple[list[object], Upgradable]] = [([], {})]


def _upgradable(state: State) -> Upgradable:
    """`upgradable(state)`, remembered for the last table asked about: the matches change only when one is played,
    upgraded or swapped, and a playout asks in nearly every draw and play step (the callers only read it)."""
    key: list[object] = [seat.matches for seat in state.players]
    key.append(state.deck)
    key.append(state.current if state.upgrade_others == "own-only" else -1)
    last = _LAST_UPGRADABLE[0]  # read once: another thread may replace it, never change it
    if last[0] == key:
        return last[1]
    found = upgradable(state)
    _LAST_UPGRADABLE[0] = (key, found)
    return found


def _draws(state: State, who: str) -> list[Event]:
    """The draw from the pile: its known top card (open mode), one draw per card still unlocated for a seat that
    names its own draws, else the unseen draw."""
    if state.pile:
        return [CardDrawn(player=who, card=state.pile[0])]
    if who in state.seated and state.pile_size:
        return [CardDrawn(player=who, card=card) for card in unlocated(state)]
    return [CardDrawn(player=who)]


def _draw_moves(state: State) -> list[Event]:
    who = state.player_name
    seat = state.player
    hand = seat.hand
    moves = _draws(state, who)
    row = state.row
    if not row:
        return moves
    found: Upgradable | None = None  # the matches one may upgrade, found when a card is not played in a match
    info = state.deck.info
    any_side = state.halves == "any"
    back = state.replaced == "hand"  # `cards_after_upgrade`: the covered half comes back to the hand
    held: dict[tuple[int, int], int] = {}  # (rank, side) of the cards the log knows
    for c in hand.known:
        x = info[c]
        held[x[0], x[2]] = held.get((x[0], x[2]), 0) + 1
    unseen: list[str] | None = None  # the unlocated cards, found once if a hidden hand needs them
    for at in range(len(row) - 1, -1, -1):
        card = row[at]
        rank, _, side, _ = info[card]
        same = held[rank, side] = held.get((rank, side), 0) + 1  # taking this card takes every card above it too
        size = hand.size + len(row) - at
        playable = False
        if size - 2 >= 1:
            playable = held.get((rank, 1 - side), 0) + (same - 1 if any_side else 0) > 0
            if not playable and hand.unknown:
                unseen = unlocated(state) if unseen is None else unseen
                playable = bool(partners_unseen(state, card, unseen))
        if not playable and size - 1 + back >= 1:
            found = _upgradable(state) if found is None else found
            playable = rank in found and bool(upgrades_with(state, card, found))
        if playable:
            moves.append(RowTaken(player=who, card=card))
    return moves


def _play_moves(state: State) -> list[Event]:
    who = state.player_name
    seat = state.player
    must = state.must_play
    moves: list[Event] = []
    known, unseen = _candidates(state, seat)
    if seat.hand.size - 2 >= 1:
        pairs = _pairs(state, seat, known, unseen)
        moves.extend(MatchPlayed(player=who, cards=list(m)) for m in pairs if must is None or must in m)
    if cards_after_upgrade(state, seat.hand.size) >= 1:
        found = _upgradable(state)
        if found:
            for card in (must,) if must is not None else (*known, *unseen):
                moves.extend(
                    MatchUpgraded(player=who, card=card, over=over) for over in upgrades_with(state, card, found)
                )
    if must is None:
        moves.extend(CardDiscarded(player=who, card=card) for card in (*known, *unseen))
    return moves


def _bonus_moves(state: State) -> list[Event]:
    who = state.player_name
    moves: list[Event]
    if state.bonus == PERFECT:
        moves = [MinusMarked(player=who, target=name) for name in state.seats if name != who]
    elif state.bonus == STRONG:
        moves = _draws(state, who)
    else:
        moves = []
        deck = state.deck
        # the other seats' matches in seat order, each graded once (not once for each match of the player's)
        others = [
            (theirs, grade(deck, theirs[0], theirs[1]))
            for s, seat in enumerate(state.players)
            if s != state.current
            for theirs in seat.matches
        ]
        for mine in state.player.matches:
            kind = grade(deck, mine[0], mine[1])
            for theirs, graded in others:
                if graded == kind:
                    moves.append(MatchesSwapped(player=who, mine=list(mine[:2]), theirs=list(theirs[:2])))
    moves.append(BonusDeclined(player=who))
    return moves


def legal_moves(state: State) -> list[Event]:
    if state.owed:  # a hand of nine cards to name: too many to list (`to_act` says how to enter it)
        return []
    phase = state.phase
    if phase == "play":
        return _play_moves(state)
    if phase == "draw":
        return _draw_moves(state)
    if phase == "bonus":
        return _bonus_moves(state)
    if phase == "laying":
        who, seat = state.player_name, state.player
        pairs = _pairs(state, seat, *_candidates(state, seat))
        moves: list[Event] = [MatchPlayed(player=who, cards=list(m)) for m in pairs]
        moves.append(LayingDone(player=who))
        return moves
    if phase == "deal" and state.mode == "table" and not state.seated:
        # with a seat naming its own hand, a deal names nine of its cards too: too many deals to list
        return [RoundDealt(row=card) for card in state.deck.cards]
    return []


# --------------------------------------------------------------------------- chance (open mode)


def shuffles(state: State) -> dict[str, list[str]]:
    """The pile tally shuffles: every half-card, whenever a round is to be dealt in an open game."""
    if state.phase != "deal" or state.mode != "open":
        return {}
    return {"deck": list(state.deck.cards)}


def deal(state: State, shuffled: dict[str, list[str]]) -> list[Event]:
    """The deal for a shuffled deck: 9 cards to each player in seat order, the next card starts the
    discard row, the rest is the pile (top first)."""
    cards = shuffled["deck"]
    n = len(state.seats)
    hands = {name: cards[i * HAND : (i + 1) * HAND] for i, name in enumerate(state.seats)}
    return [RoundDealt(row=cards[HAND * n], hands=hands, pile=cards[HAND * n + 1 :])]


def pick_move(state: State, below: Callable[[int], int]) -> Event | None:
    """`legal_moves(state)[below(n)]` for the n legal moves (the contract's `pick_move`); None when none is legal.

    The play step, most of a playout's moves, counts its matches, upgrades and discards and builds only the one
    drawn."""
    if state.phase == "play" and not state.owed:
        return _pick_play(state, below)
    return pick_listed(legal_moves(state), below)


def _pick_play(state: State, below: Callable[[int], int]) -> Event | None:
    """`_play_moves` counted: the same moves in the same order."""
    who = state.player_name
    seat = state.player
    must = state.must_play
    known, unseen = _candidates(state, seat)
    matches: list[tuple[str, str]] = []
    if seat.hand.size - 2 >= 1:
        matches = _pairs(state, seat, known, unseen)
        if must is not None:
            matches = [m for m in matches if must in m]
    upgrades: list[tuple[str, list[str]]] = []  # (card played, the halves it may go over)
    if cards_after_upgrade(state, seat.hand.size) >= 1:
        found = _upgradable(state)
        if found:
            info = state.deck.info
            for card in (must,) if must is not None else (*known, *unseen):
                if info[card][0] in found:  # a match of its rank on the table: most cards have none
                    over = upgrades_with(state, card, found)
                    if over:
                        upgrades.append((card, over))
    discards = 0 if must is not None else len(known) + len(unseen)
    total = len(matches) + sum(len(over) for _, over in upgrades) + discards
    if not total:
        return None
    index = below(total)
    if index < len(matches):
        return MatchPlayed(player=who, cards=list(matches[index]))
    index -= len(matches)
    for card, over in upgrades:
        if index < len(over):
            return MatchUpgraded(player=who, card=card, over=over[index])
        index -= len(over)
    return CardDiscarded(player=who, card=(*known, *unseen)[index])
