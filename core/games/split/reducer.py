"""Split's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before the first deal from `game_started`; `apply` dispatches on the event type.
A round ends inside the reducer (the pile's last card drawn, the last card discarded, the last player
done laying after a first-turn out): the pad is marked, and the next round waits for its deal.
"""

from __future__ import annotations

import msgspec

from ...knowledge import Zone
from ...model import Event, GameStarted, resolve_options
from ...referee import Reducers
from ...seated import seats_with, with_seat, with_seats
from .components import HAND, PERFECT, STRONG, WEAK, deck_for, grade, pad_total, pair
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


def _started_turn(state: State) -> tuple[bool, ...]:
    had = state.had_turn
    i = state.current
    return had if had[i] else had[:i] + (True,) + had[i + 1 :]


def _apply_draw(state: State, event: CardDrawn) -> State:
    i = state.current
    seat = state.players[i]
    card = event.card
    hand = seat.hand.add((card,)) if card is not None else seat.hand.add(unknown=1)
    size = state.pile_size - 1
    state = replace(
        state,
        players=seats_with(state, i, Seat(hand, seat.matches, seat.pad)),
        pile=state.pile[1:],
        pile_size=size,
        phase="play",
        bonus=-1,
        had_turn=_started_turn(state),
    )
    if size == 0:  # the pile's last card: the round ends at once (split.draw.last-card)
        return _end_round(replace(state, turns=state.turns + 1), "pile")
    return state


def _apply_take(state: State, event: RowTaken) -> State:
    seat = state.player
    at = state.row.index(event.card)
    taken = state.row[at:]
    return with_seat(
        state,
        state.current,
        Seat(seat.hand.add(taken), seat.matches, seat.pad),
        row=state.row[:at],
        phase="play",
        must_play=event.card,
        had_turn=_started_turn(state),
    )


def _apply_match(state: State, event: MatchPlayed) -> State:
    i = state.current
    seat = state.players[i]
    a, b = event.cards
    hand = seat.hand.remove(a).remove(b)
    deck = state.deck
    played = Seat(hand, seat.matches + (pair(deck, a, b),), seat.pad)
    must = None if state.must_play in (a, b) else state.must_play
    if state.phase == "laying":  # after a first-turn out: no bonus (split.round.first-turn-out)
        return with_seat(state, i, played, must_play=must)
    return with_seat(state, i, played, must_play=must, phase="bonus", bonus=grade(deck, a, b))


def _apply_upgrade(state: State, event: MatchUpgraded) -> State:
    me = state.current
    found = find_match(state, event.over)
    assert found is not None  # checked: the upgrade goes over a match on the table
    owner, index = found
    old = state.players[owner].matches[index]
    kept = old[1] if old[0] == event.over else old[0]
    visible = pair(state.deck, kept, event.card)
    covered = old[2:] + ((event.over,) if state.replaced == "under" else ())
    match = visible + covered
    seat = state.players[me]
    hand = seat.hand.remove(event.card)
    if state.replaced == "hand":
        hand = hand.add((event.over,))
    row = state.row + ((event.over,) if state.replaced == "discard" else ())
    if owner == me:
        changed = {me: Seat(hand, _with_match(seat.matches, index, match), seat.pad)}
    else:
        other = state.players[owner]
        if state.upgrade_others == "keep":
            changed = {owner: Seat(other.hand, _with_match(other.matches, index, match), other.pad),
                       me: Seat(hand, seat.matches, seat.pad)}
        else:  # upgrading another player's match takes it (split.upgrade.take)
            changed = {owner: Seat(other.hand, other.matches[:index] + other.matches[index + 1 :], other.pad),
                       me: Seat(hand, seat.matches + (match,), seat.pad)}
    must = None if state.must_play == event.card else state.must_play
    state = with_seats(state, changed, row=row, must_play=must)
    if state.upgrade_bonus == "yes":
        return replace(state, phase="bonus", bonus=grade(state.deck, visible[0], visible[1]))
    return state


def _with_match(matches: tuple[Match, ...], index: int, match: Match) -> tuple[Match, ...]:
    """`matches` with the one at `index` replaced by `match`, in its place."""
    return matches[:index] + (match,) + matches[index + 1 :]


def _apply_minus(state: State, event: MinusMarked) -> State:
    target = state.seats.index(event.target)
    seat = state.players[target]
    pad = seat.pad[:-1] + (seat.pad[-1] + 1,)
    penalties = list(state.penalties)
    penalties[target] += 1
    return with_seats(state, {target: Seat(seat.hand, seat.matches, pad)}, phase="play", bonus=-1, penalties=tuple(penalties))


def _apply_swap(state: State, event: MatchesSwapped) -> State:
    me = state.current
    mine = find_own_match(state.players[me], event.mine)
    found = find_others_match(state, event.theirs)
    assert mine is not None and found is not None  # checked: both matches are on the table
    owner, theirs = found
    a, b = state.players[me], state.players[owner]
    given, got = a.matches[mine], b.matches[theirs]
    return with_seats(
        state,
        {
            me: Seat(a.hand, _with_match(a.matches, mine, got), a.pad),
            owner: Seat(b.hand, _with_match(b.matches, theirs, given), b.pad),
        },
        phase="play",
        bonus=-1,
    )


def _apply_decline(state: State, event: BonusDeclined) -> State:
    return replace(state, phase="play", bonus=-1)


def _apply_discard(state: State, event: CardDiscarded) -> State:
    i = state.current
    seat = state.players[i]
    hand = seat.hand.remove(event.card)
    kept = Seat(hand, seat.matches, seat.pad)
    row = state.row + (event.card,)
    n = len(state.seats)
    if hand.known or hand.unknown:
        return replace(state, players=seats_with(state, i, kept), row=row, turns=state.turns + 1, current=(i + 1) % n,
                       phase="draw", must_play=None)
    state = with_seat(state, i, kept, row=row, turns=state.turns + 1)
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
    n = len(state.seats)
    counts: list[list[int]] = [[], [], []]
    players = []
    minus = []
    for s, seat in enumerate(state.players):
        pad = list(seat.pad)
        kinds = [0, 0, 0]
        for match in seat.matches:
            kind = grade(deck, match[0], match[1])
            kinds[kind] += 1
            row = deck.row_of_rank[deck.info[match[0]][0]]
            pad[row] += deck.marks[kind]
        left = seat.hand.size
        pad[-1] += left
        for k in (WEAK, STRONG, PERFECT):
            counts[k].append(kinds[k])
        minus.append(left + state.penalties[s])
        players.append(Seat(seat.hand, seat.matches, tuple(pad)))
    after = tuple(pad_total(deck, seat.pad) for seat in players)
    blank = (0,) * (len(deck.rows) + 1)
    previous = state.results[-1].totals if state.results else (pad_total(deck, blank),) * n
    result = RoundResult(
        round=state.round,
        dealer=state.dealer,
        ended=ended,
        ender=state.current,
        late=late,
        perfect=tuple(counts[PERFECT]),
        strong=tuple(counts[STRONG]),
        weak=tuple(counts[WEAK]),
        left=tuple(seat.hand.size for seat in players),
        minus=tuple(minus),
        pads=tuple(seat.pad for seat in players),
        scores=tuple(a - b for a, b in zip(after, previous)),
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
