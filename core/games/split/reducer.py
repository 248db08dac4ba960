"""Split's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before the first deal from `game_started`; `apply` dispatches on the event type.
A round ends inside the reducer (the pile's last card drawn, the last card discarded, the last player
done laying after a first-turn out): the pad is marked, and the next round waits for its deal.
"""

from __future__ import annotations

import msgspec

from ...knowledge import Zone
from ...model import GameStarted, resolve_options
from ...referee import Reducers
from ...seated import with_seat
from .components import HAND, PERFECT, STRONG, WEAK, deck_for, pad_total
from .events import (
    EVENTS,
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    HandNamed,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
)
from .rules import OPTIONS
from .state import Match, RoundResult, Seat, State, find_match, find_others_match, find_own_match

replace = msgspec.structs.replace


def start(started: GameStarted) -> State:
    options = resolve_options(OPTIONS, started.options)
    deck = deck_for(started.manifest)
    n = len(started.seats)
    pad = (0,) * (len(deck.rows) + 1)
    return State(
        seats=tuple(started.seats),
        mode=started.mode,
        deck=deck,
        halves=options["halves"],
        upgrade_others=options["upgrade-others"],
        replaced=options["replaced-half"],
        upgrade_bonus=options["upgrade-bonus"],
        no_out_dealer=options["no-out-dealer"],
        tie=options["tie"],
        rounds=int(options["rounds"]),
        players=tuple(Seat(Zone(), (), pad) for _ in range(n)),
        dealer=n - 1,  # the oldest player sits last, so the first seat plays first (split.setup.dealer)
        had_turn=(False,) * n,
        penalties=(0,) * n,
        seated=tuple(started.seated),
    )


def _apply_deal(state: State, event: RoundDealt) -> State:
    n = len(state.seats)
    hands = event.hands
    players = tuple(
        Seat(Zone(tuple(hands[name]), 0) if name in hands else Zone((), HAND), (), seat.pad)
        for name, seat in zip(state.seats, state.players)
    )
    pile = tuple(event.pile)
    return replace(
        state,
        players=players,
        pile=pile,
        pile_size=len(pile) if pile else state.deck.size - HAND * n - 1,
        row=(event.row,),
        round=state.round + 1,
        current=(state.dealer + 1) % n,
        phase="draw",
        bonus=-1,
        must_play=None,
        had_turn=(False,) * n,
        laying=(),
        penalties=(0,) * n,
        owed=tuple(name for name in state.seated if name not in hands),
    )


def _apply_hand(state: State, event: HandNamed) -> State:
    i = state.seats.index(event.player)
    seat = msgspec.structs.replace(state.players[i], hand=Zone(tuple(event.cards), 0))
    return with_seat(state, i, seat, owed=tuple(name for name in state.owed if name != event.player))


# The reducers below run once per event of every fold, so each copies the state once (`replace`), rebuilds the
# tuple of seats through a list (cheaper than slicing it around the one replaced, as `seated.with_seat` does) and
# writes out `Zone.add`, `Zone.remove` and the components' `pair` and `grade` where a call would cost more than the
# work.


def _apply_draw(state: State, event: CardDrawn) -> State:
    i = state.current
    players = list(state.players)
    seat = players[i]
    hand = seat.hand
    card = event.card
    players[i] = Seat(
        Zone(hand.known + (card,), hand.unknown) if card is not None else Zone(hand.known, hand.unknown + 1),
        seat.matches,
        seat.pad,
    )
    size = state.pile_size - 1
    had = state.had_turn
    state = replace(
        state,
        players=tuple(players),
        pile=state.pile[1:],
        pile_size=size,
        phase="play",
        bonus=-1,
        had_turn=had if had[i] else had[:i] + (True,) + had[i + 1 :],  # the player's first turn of the round, if it is
    )
    if size == 0:  # the pile's last card: the round ends at once (split.draw.last-card)
        return _end_round(replace(state, turns=state.turns + 1), "pile")
    return state


def _apply_take(state: State, event: RowTaken) -> State:
    i = state.current
    players = list(state.players)
    seat = players[i]
    hand = seat.hand
    row = state.row
    card = event.card
    at = row.index(card)
    players[i] = Seat(Zone(hand.known + row[at:], hand.unknown), seat.matches, seat.pad)
    had = state.had_turn
    return replace(
        state,
        players=tuple(players),
        row=row[:at],
        phase="play",
        must_play=card,
        had_turn=had if had[i] else had[:i] + (True,) + had[i + 1 :],  # the player's first turn of the round, if it is
    )


def _apply_match(state: State, event: MatchPlayed) -> State:
    i = state.current
    players = list(state.players)
    seat = players[i]
    hand = seat.hand
    a, b = event.cards
    info = state.deck.info
    x, y = info[a], info[b]
    known = list(hand.known)
    unknown = hand.unknown
    for card in (a, b):  # hand.remove(a).remove(b)
        try:
            known.remove(card)
        except ValueError:
            unknown -= 1
    match = (a, b) if (x[2], x[1]) <= (y[2], y[1]) else (b, a)  # pair(deck, a, b)
    players[i] = Seat(Zone(tuple(known), unknown), seat.matches + (match,), seat.pad)
    must = state.must_play
    if must is not None and (must == a or must == b):
        must = None
    if state.phase == "laying":  # after a first-turn out: no bonus (split.round.first-turn-out)
        return replace(state, players=tuple(players), must_play=must)
    kind = PERFECT if x[1] == y[1] else (STRONG if x[3] == y[3] else WEAK)  # grade(deck, a, b)
    return replace(state, players=tuple(players), must_play=must, phase="bonus", bonus=kind)


def _apply_upgrade(state: State, event: MatchUpgraded) -> State:
    me = state.current
    card, over = event.card, event.over
    found = find_match(state, over)
    assert found is not None  # checked: the upgrade goes over a match on the table
    owner, index = found
    players = list(state.players)
    old = players[owner].matches[index]
    kept = old[1] if old[0] == over else old[0]
    info = state.deck.info
    x, y = info[kept], info[card]
    visible = (kept, card) if (x[2], x[1]) <= (y[2], y[1]) else (card, kept)  # pair(deck, kept, card)
    replaced = state.replaced
    match = visible + old[2:] + (over,) if replaced == "under" else visible + old[2:]
    seat = players[me]
    hand = seat.hand.remove(card)
    if replaced == "hand":
        hand = Zone(hand.known + (over,), hand.unknown)
    row = state.row + (over,) if replaced == "discard" else state.row
    if owner == me:
        players[me] = Seat(hand, _with_match(seat.matches, index, match), seat.pad)
    else:
        other = players[owner]
        if state.upgrade_others == "keep":
            players[owner] = Seat(other.hand, _with_match(other.matches, index, match), other.pad)
            players[me] = Seat(hand, seat.matches, seat.pad)
        else:  # upgrading another player's match takes it (split.upgrade.take)
            players[owner] = Seat(other.hand, other.matches[:index] + other.matches[index + 1 :], other.pad)
            players[me] = Seat(hand, seat.matches + (match,), seat.pad)
    must = state.must_play
    if must is not None and must == card:
        must = None
    if state.upgrade_bonus == "yes":
        kind = PERFECT if x[1] == y[1] else (STRONG if x[3] == y[3] else WEAK)  # grade(deck, kept, card)
        return replace(state, players=tuple(players), row=row, must_play=must, phase="bonus", bonus=kind)
    return replace(state, players=tuple(players), row=row, must_play=must)


def _with_match(matches: tuple[Match, ...], index: int, match: Match) -> tuple[Match, ...]:
    """`matches` with the one at `index` replaced by `match`, in its place."""
    return matches[:index] + (match,) + matches[index + 1 :]


def _apply_minus(state: State, event: MinusMarked) -> State:
    target = state.seats.index(event.target)
    players = list(state.players)
    seat = players[target]
    pad = seat.pad
    players[target] = Seat(seat.hand, seat.matches, pad[:-1] + (pad[-1] + 1,))
    penalties = list(state.penalties)
    penalties[target] += 1
    return replace(state, players=tuple(players), phase="play", bonus=-1, penalties=tuple(penalties))


def _apply_swap(state: State, event: MatchesSwapped) -> State:
    me = state.current
    players = list(state.players)
    mine = find_own_match(players[me], event.mine)
    found = find_others_match(state, event.theirs)
    assert mine is not None and found is not None  # checked: both matches are on the table
    owner, theirs = found
    a, b = players[me], players[owner]
    given, got = a.matches[mine], b.matches[theirs]
    players[me] = Seat(a.hand, _with_match(a.matches, mine, got), a.pad)
    players[owner] = Seat(b.hand, _with_match(b.matches, theirs, given), b.pad)
    return replace(state, players=tuple(players), phase="play", bonus=-1)


def _apply_decline(state: State, event: BonusDeclined) -> State:
    return replace(state, phase="play", bonus=-1)


def _apply_discard(state: State, event: CardDiscarded) -> State:
    i = state.current
    players = list(state.players)
    seat = players[i]
    hand = seat.hand
    card = event.card
    hand = hand.remove(card)
    players[i] = Seat(hand, seat.matches, seat.pad)
    row = state.row + (card,)
    n = len(players)
    if hand.known or hand.unknown:  # a discard is legal with no card to play first (must_play is None already)
        return replace(state, players=tuple(players), row=row, turns=state.turns + 1, current=(i + 1) % n, phase="draw")
    state = replace(state, players=tuple(players), row=row, turns=state.turns + 1)
    # out (split.round.out); those who have not had a turn may lay matches first (split.round.first-turn-out)
    late = tuple(s for s in ((i + k) % n for k in range(1, n)) if not state.had_turn[s])
    if late:
        return replace(state, phase="laying", current=late[0], laying=late, must_play=None)
    return _end_round(state, "out")


def _apply_laying_done(state: State, event: LayingDone) -> State:
    late = state.laying
    at = late.index(state.current)
    if at + 1 < len(late):
        return replace(state, current=late[at + 1])
    # the player who went out sits just before the first who had no turn
    return _end_round(replace(state, current=(late[0] - 1) % len(state.seats)), "out", late)


def _end_round(state: State, ended: str, late: tuple[int, ...] = ()) -> State:
    """Mark the pad (split.round.score), record the round, and set up the next deal or the end."""
    deck = state.deck
    info, row_of_rank, marks = deck.info, deck.row_of_rank, deck.marks
    n = len(state.seats)
    penalties = state.penalties
    perfect, strong, weak, left, minus = [], [], [], [], []
    players = []
    for s, seat in enumerate(state.players):
        pad = list(seat.pad)
        kinds = [0, 0, 0]
        for match in seat.matches:
            x, y = info[match[0]], info[match[1]]
            kind = PERFECT if x[1] == y[1] else (STRONG if x[3] == y[3] else WEAK)  # grade(deck, *match[:2])
            kinds[kind] += 1
            pad[row_of_rank[x[0]]] += marks[kind]
        hand = seat.hand
        size = len(hand.known) + hand.unknown
        pad[-1] += size
        perfect.append(kinds[PERFECT])
        strong.append(kinds[STRONG])
        weak.append(kinds[WEAK])
        left.append(size)
        minus.append(size + penalties[s])
        players.append(Seat(hand, seat.matches, tuple(pad)))
    after = tuple([pad_total(deck, seat.pad) for seat in players])
    blank = (0,) * (len(deck.rows) + 1)
    previous = state.results[-1].totals if state.results else (pad_total(deck, blank),) * n
    result = RoundResult(
        round=state.round,
        dealer=state.dealer,
        ended=ended,
        ender=state.current,
        late=late,
        perfect=tuple(perfect),
        strong=tuple(strong),
        weak=tuple(weak),
        left=tuple(left),
        minus=tuple(minus),
        pads=tuple([seat.pad for seat in players]),
        scores=tuple([a - b for a, b in zip(after, previous)]),
        totals=after,
    )
    if ended == "out" or state.no_out_dealer == "drawer":  # who went out, or who drew the pile's last card
        dealer = state.current
    elif state.no_out_dealer == "same":
        dealer = state.dealer
    else:
        dealer = (state.dealer + 1) % n
    return replace(
        state,
        players=tuple(players),
        results=state.results + (result,),
        phase="over" if state.round >= state.rounds else "deal",
        dealer=dealer,
        bonus=-1,
        must_play=None,
        laying=(),
    )


REDUCERS = Reducers[State]("split", EVENTS)
REDUCERS.on(RoundDealt, _apply_deal)
REDUCERS.on(HandNamed, _apply_hand)
REDUCERS.on(CardDrawn, _apply_draw)
REDUCERS.on(RowTaken, _apply_take)
REDUCERS.on(MatchPlayed, _apply_match)
REDUCERS.on(MatchUpgraded, _apply_upgrade)
REDUCERS.on(MinusMarked, _apply_minus)
REDUCERS.on(MatchesSwapped, _apply_swap)
REDUCERS.on(BonusDeclined, _apply_decline)
REDUCERS.on(CardDiscarded, _apply_discard)
REDUCERS.on(LayingDone, _apply_laying_done)
apply = REDUCERS.seal().apply
