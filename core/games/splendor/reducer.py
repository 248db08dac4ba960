"""Splendor's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before any move from `game_started`; `apply` dispatches on the event type.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Callable

import msgspec

from ...model import GameStarted, resolve_options
from ...referee import Reducers
from ...seated import with_seat
from .components import (
    CARDS,
    FACE_UP,
    GEMS_PER_PLAYERS,
    GOLD,
    GOLD_TOKENS,
    LEVEL_CARDS,
    NOBLE_POINTS,
    TOKEN_LIMIT,
    token_counts,
)
from .events import (
    EVENTS,
    CardBought,
    CardReserved,
    CardRevealed,
    GemsTaken,
    NobleChosen,
    NobleRevealed,
    SetupDealt,
    TokensReturned,
    TurnPassed,
)
from .rules import OPTIONS
from .state import (
    NOBLE_MINIMUM,
    Seat,
    State,
    can_act,
    is_setup_complete,
    nobles_met,
    qualifying_nobles,
    reserve_entry_for,
)

_replace = msgspec.structs.replace
_NOTHING = (0,) * 6  # no tokens: what a payment naming none counts


def start(started: GameStarted) -> State:
    n = len(started.seats)
    gems = GEMS_PER_PLAYERS[n]
    options = resolve_options(OPTIONS, started.options)
    return State(
        seats=tuple(started.seats),
        mode=started.mode,
        take_fewer=options["take-fewer"],
        stuck=options["stuck"],
        target=int(options["target"]),
        players=(Seat((0,) * 6, (0,) * 5),) * n,  # one empty record for every seat (frozen: shared safely)
        bank=(gems,) * 5 + (GOLD_TOKENS,),
        board=((None,) * FACE_UP,) * 3,
        decks=((), (), ()),
        deck_size=_DECK_SIZES,
        nobles=(),
        nobles_wanted=n + 1,
        seated=tuple(started.seated),
    )


_DECK_SIZES = tuple(map(len, LEVEL_CARDS))
_TURNED_UP, _LEFT = itemgetter(slice(None, FACE_UP)), itemgetter(slice(FACE_UP, None))  # a deck's first cards, the rest


def _apply_setup(state: State, event: SetupDealt) -> State:
    # each deck's first cards face up, the rest the deck (mapped in C: no generator per deal, once per log read)
    board = tuple(map(tuple, map(_TURNED_UP, event.decks)))
    decks = tuple(map(tuple, map(_LEFT, event.decks)))
    return msgspec.structs.replace(
        state,
        board=board,
        decks=decks,
        deck_size=tuple(map(len, decks)),
        nobles=tuple(event.nobles),
        phase="action",
    )


def _apply_reveal(state: State, event: CardRevealed) -> State:
    setup = state.phase == "setup"
    if setup:  # the first empty slot of the card's level
        lvl = CARDS[event.card].level - 1
        slot = state.board[lvl].index(None)
    else:  # filling the gap left by this turn's action
        assert state.gap is not None
        lvl, slot = state.gap
    state = msgspec.structs.replace(
        state, board=_set_slot(state.board, lvl, slot, event.card), deck_size=_one_fewer(state.deck_size, lvl), gap=None
    )
    return _setup_revealed(state) if setup else _end_of_turn(state)


def _apply_noble_reveal(state: State, event: NobleRevealed) -> State:
    return _setup_revealed(msgspec.structs.replace(state, nobles=state.nobles + (event.noble,)))


def _setup_revealed(state: State) -> State:
    """Play starts once the last of the setup is turned up."""
    return msgspec.structs.replace(state, phase="action") if is_setup_complete(state) else state


def _one_fewer(sizes: tuple[int, ...], lvl: int) -> tuple[int, ...]:
    a, b, c = sizes  # one size per level: built whole, cheaper than slicing around `lvl`
    return (a - 1, b, c) if lvl == 0 else (a, b - 1, c) if lvl == 1 else (a, b, c - 1)


def _drawn(state: State, lvl: int) -> dict[str, Any]:
    """The decks once the top card of level index `lvl` has left: gone from the deck the log knows (open mode),
    and one card fewer in any mode."""
    decks = state.decks
    if decks[lvl]:
        decks = decks[:lvl] + (decks[lvl][1:],) + decks[lvl + 1 :]
    return {"decks": decks, "deck_size": _one_fewer(state.deck_size, lvl)}


def _set_slot(board: tuple, lvl: int, slot: int, card: str | None) -> tuple:
    # the board's 3 rows of 4 slots built whole, cheaper than slicing around the slot and the row
    s0, s1, s2, s3 = board[lvl]
    row = (
        (card, s1, s2, s3)
        if slot == 0
        else (s0, card, s2, s3)
        if slot == 1
        else (s0, s1, card, s3)
        if slot == 2
        else (s0, s1, s2, card)
    )
    r0, r1, r2 = board
    return (row, r1, r2) if lvl == 0 else (r0, row, r2) if lvl == 1 else (r0, r1, row)


def _board_taken(state: State, lvl: int, slot: int) -> dict[str, Any]:
    """The fields that change when a face-up card leaves and its slot is refilled: from the known deck (open) or by
    a pending reveal (table)."""
    decks = state.decks
    deck = decks[lvl]
    if deck:  # open mode: the top of the deck the log knows turns up at once
        return {
            "board": _set_slot(state.board, lvl, slot, deck[0]),
            "decks": decks[:lvl] + (deck[1:],) + decks[lvl + 1 :],
            "deck_size": _one_fewer(state.deck_size, lvl),
        }
    board = _set_slot(state.board, lvl, slot, None)
    if state.deck_size[lvl]:
        return {"board": board, "gap": (lvl, slot), "phase": "reveal"}
    return {"board": board}


def _next_seat(state: State, seat: Seat, held: int) -> int | None:
    """The next seat when the turn ends plainly, the current seat's record being `seat` holding `held` tokens:
    nothing to return, no noble, stuck=end not played, not the end of the game (as most turns end); else None.

    Written out in `_apply_take` and `_apply_return` (most events of a fold): whoever changes it changes them."""
    if held > TOKEN_LIMIT or state.stuck == "end":
        return None
    if state.nobles and len(seat.cards) >= NOBLE_MINIMUM and not nobles_met(seat.bonus).isdisjoint(state.nobles):
        return None
    following = state.current + 1
    if following == len(state.seats):
        if state.end_triggered or seat.points >= state.target:
            return None
        return 0
    return following


def _seated(players: tuple[Seat, ...], current: int, seat: Seat) -> tuple[Seat, ...]:
    """`players` with the current seat's record replaced (as `seated.with_seat` does): through a list, cheaper than slicing
    around it."""
    changed = list(players)
    changed[current] = seat
    return tuple(changed)


def _seat_done(state: State, seat: Seat, changes: dict[str, Any], then: Callable[[State], State]) -> State:
    """`then(with_seat(state, current, seat, **changes))` (the end of the turn: `_end_of_turn` or `_nobles_then_next`)
    built in one copy of the state when the turn ends plainly (`_next_seat`; no gap to fill), as most turns do."""
    current = state.current
    if "gap" not in changes and state.gap is None:
        following = _next_seat(state, seat, sum(seat.tokens))
        if following is not None:
            return _replace(
                state,
                players=_seated(state.players, current, seat),
                current=following,
                phase="action",
                end_triggered=state.end_triggered or seat.points >= state.target,
                turns=state.turns + 1,
                **changes,
            )
    state = with_seat(state, current, seat, **changes)
    return state if state.gap else then(state)


def _apply_take(state: State, event: GemsTaken) -> State:
    current = state.current
    players = state.players
    seat = players[current]
    taken = token_counts(event.gems)
    assert taken is not None  # checked: only gems that exist
    w, b, g, r, k, y = taken
    tw, tb, tg, tr, tk, ty = seat.tokens
    bw, bb, bg, br, bk, by = state.bank
    seat = _replace(seat, tokens=(tw + w, tb + b, tg + g, tr + r, tk + k, ty + y))
    bank = (bw - w, bb - b, bg - g, br - r, bk - k, by - y)
    # `_seat_done(state, seat, {"bank": bank, "passes": 0}, _end_of_turn)` and its `_next_seat` written out, a take
    # changing no bonus and no points: the usual take ends the turn plainly in one copy of the state. It pays:
    # with the plain `_seat_done` Splendor's fold is 9% slower on open logs, 4-5% on table logs (bench/bench_fold.py)
    held = tw + tb + tg + tr + tk + ty + w + b + g + r + k + y
    if held > TOKEN_LIMIT:  # `_end_of_turn`'s first answer: tokens to return, in the same copy of the state
        return _replace(state, players=_seated(players, current, seat), bank=bank, passes=0, phase="return")
    if state.stuck != "end":
        nobles = state.nobles
        if not nobles or len(seat.cards) < NOBLE_MINIMUM or nobles_met(seat.bonus).isdisjoint(nobles):
            following = current + 1
            if following == len(players):
                following = -1 if state.end_triggered or seat.points >= state.target else 0
            if following >= 0:
                seats = list(players)  # `_seated(players, current, seat)` without its call
                seats[current] = seat
                return _replace(
                    state,
                    players=tuple(seats),
                    bank=bank,
                    passes=0,
                    current=following,
                    phase="action",
                    end_triggered=state.end_triggered or seat.points >= state.target,
                    turns=state.turns + 1,
                )
    return _end_of_turn(with_seat(state, current, seat, bank=bank, passes=0))


def _apply_reserve(state: State, event: CardReserved) -> State:
    current = state.current
    players = state.players
    seat = players[current]
    bank = state.bank
    tokens = seat.tokens
    if bank[GOLD]:  # one gold from the bank to the seat, the six built whole rather than sliced
        bw, bb, bg, br, bk, by = bank
        bank = (bw, bb, bg, br, bk, by - 1)
        tw, tb, tg, tr, tk, ty = tokens
        tokens = (tw, tb, tg, tr, tk, ty + 1)
    card = event.card
    if event.level is None:
        assert card is not None
        seat = Seat(tokens, seat.bonus, seat.cards, seat.reserved + (card,), seat.nobles, seat.points)
        lvl = CARDS[card].level - 1
        board = state.board
        row = board[lvl]
        slot = row.index(card)  # checked: the card lies face up
        done = _refilled_at_once(state, seat, lvl, slot, bank, sum(tokens))
        if done is not None:
            return done
        changes = _board_taken(state, lvl, slot)
    else:
        seat = Seat(
            tokens,
            seat.bonus,
            seat.cards,
            seat.reserved + (f"~{card}" if card else f"?{event.level}",),
            seat.nobles,
            seat.points,
        )
        changes = _drawn(state, event.level - 1)
    changes["bank"] = bank
    changes["passes"] = 0
    return _seat_done(state, seat, changes, _end_of_turn)


def _refilled_at_once(state: State, seat: Seat, lvl: int, slot: int, bank: tuple[int, ...], held: int) -> State | None:
    """A card taken from face-up slot `slot` of level `lvl + 1` by the current seat (now `seat`), ending its turn
    plainly in an open game whose deck the log knows: the slot refilled from it and the turn passed in one copy of
    the state. None when the turn does not end so (a gap to reveal, an empty deck, tokens to return, a noble).
    `held`: the tokens `seat` holds (the caller has them in hand)."""
    decks = state.decks
    deck = decks[lvl]
    if not deck or state.gap is not None:
        return None
    following = _next_seat(state, seat, held)
    if following is None:
        return None
    current, players = state.current, state.players
    ending = state.end_triggered or seat.points >= state.target
    # the board, the decks and their sizes (one entry per level) built whole, cheaper than slicing around `lvl`
    d0, d1, d2 = decks
    z0, z1, z2 = state.deck_size
    if lvl == 0:
        decks, sizes = (deck[1:], d1, d2), (z0 - 1, z1, z2)
    elif lvl == 1:
        decks, sizes = (d0, deck[1:], d2), (z0, z1 - 1, z2)
    else:
        decks, sizes = (d0, d1, deck[1:]), (z0, z1, z2 - 1)
    return _replace(
        state,
        players=_seated(players, current, seat),
        board=_set_slot(state.board, lvl, slot, deck[0]),
        decks=decks,
        deck_size=sizes,
        bank=bank,
        passes=0,
        current=following,
        phase="action",
        end_triggered=ending,
        turns=state.turns + 1,
    )


def _apply_buy(state: State, event: CardBought) -> State:
    name = event.card
    card = CARDS[name]
    current = state.current
    players = state.players
    seat = players[current]
    w, b, g, r, k, y = token_counts(event.paid) or _NOTHING
    tw, tb, tg, tr, tk, ty = seat.tokens
    bw, bb, bg, br, bk, by = state.bank
    bank = (bw + w, bb + b, bg + g, br + r, bk + k, by + y)
    colour = card.bonus
    bonus = seat.bonus
    lvl = card.level - 1
    row = state.board[lvl]
    reserved = seat.reserved
    face_up = name in row  # a scan in C
    if not face_up:
        i = reserve_entry_for(seat, name)
        assert i is not None
        reserved = reserved[:i] + reserved[i + 1 :]
    tw, tb, tg, tr, tk, ty = tw - w, tb - b, tg - g, tr - r, tk - k, ty - y
    ow, ob, og, orr, ok = bonus  # one more of the card's colour, the five built whole rather than sliced around it
    bonus = (
        (ow + 1, ob, og, orr, ok)
        if colour == 0
        else (ow, ob + 1, og, orr, ok)
        if colour == 1
        else (ow, ob, og + 1, orr, ok)
        if colour == 2
        else (ow, ob, og, orr + 1, ok)
        if colour == 3
        else (ow, ob, og, orr, ok + 1)
    )
    seat = Seat((tw, tb, tg, tr, tk, ty), bonus, seat.cards + (name,), reserved, seat.nobles, seat.points + card.points)
    if face_up:
        slot = row.index(name)
        done = _refilled_at_once(state, seat, lvl, slot, bank, tw + tb + tg + tr + tk + ty)
        if done is not None:
            return done
        changes = _board_taken(state, lvl, slot)
    else:
        changes = {}
    changes["bank"] = bank
    changes["passes"] = 0
    return _seat_done(state, seat, changes, _end_of_turn)


def _apply_return(state: State, event: TokensReturned) -> State:
    current = state.current
    players = state.players
    seat = players[current]
    w, b, g, r, k, y = token_counts(event.tokens) or _NOTHING
    tw, tb, tg, tr, tk, ty = seat.tokens
    bw, bb, bg, br, bk, by = state.bank
    tw, tb, tg, tr, tk, ty = tw - w, tb - b, tg - g, tr - r, tk - k, ty - y
    seat = _replace(seat, tokens=(tw, tb, tg, tr, tk, ty))
    bank = (bw + w, bb + b, bg + g, br + r, bk + k, by + y)
    # `_seat_done(state, seat, {"bank": bank}, _nobles_then_next)` written out, without its dict of changes: with the
    # plain call Splendor's fold is 3-7% slower on open logs, 0-3% on table logs (bench/bench_fold.py, four runs)
    if state.gap is None:
        following = _next_seat(state, seat, tw + tb + tg + tr + tk + ty)
        if following is not None:
            return _replace(
                state,
                players=_seated(players, current, seat),
                bank=bank,
                current=following,
                phase="action",
                end_triggered=state.end_triggered or seat.points >= state.target,
                turns=state.turns + 1,
            )
    state = with_seat(state, current, seat, bank=bank)
    return state if state.gap else _nobles_then_next(state)


def _visit(state: State, noble: str) -> State:
    seat = state.player
    seat = msgspec.structs.replace(seat, nobles=seat.nobles + (noble,), points=seat.points + NOBLE_POINTS)
    nobles = tuple(n for n in state.nobles if n != noble)
    return with_seat(state, state.current, seat, nobles=nobles)


def _apply_noble(state: State, event: NobleChosen) -> State:
    return _next_turn(_visit(state, event.noble))


def _apply_pass(state: State, event: TurnPassed) -> State:
    state = msgspec.structs.replace(state, passes=state.passes + 1)
    if state.passes >= len(state.seats):
        return msgspec.structs.replace(state, phase="over", ended="stalled", turns=state.turns + 1)
    return _next_turn(state)


def _end_of_turn(state: State) -> State:
    if sum(state.players[state.current].tokens) > TOKEN_LIMIT:
        return msgspec.structs.replace(state, phase="return")
    return _nobles_then_next(state)


def _nobles_then_next(state: State) -> State:
    qualifying = qualifying_nobles(state, state.players[state.current]) if state.nobles else ()
    if len(qualifying) == 1:
        state = _visit(state, qualifying[0])
    elif qualifying:
        return msgspec.structs.replace(state, phase="noble")
    return _next_turn(state)


def _next_turn(state: State) -> State:
    end = state.end_triggered or state.players[state.current].points >= state.target
    following = (state.current + 1) % len(state.seats)
    turns = state.turns + 1
    if end and following == 0:
        return msgspec.structs.replace(state, phase="over", end_triggered=True, turns=turns, ended="target")
    state = msgspec.structs.replace(state, current=following, phase="action", end_triggered=end, turns=turns)
    if state.stuck == "end" and not can_act(state):
        return msgspec.structs.replace(state, phase="over", ended="stuck")
    return state


REDUCERS = Reducers[State]("splendor", EVENTS)
REDUCERS.on(SetupDealt, _apply_setup)
REDUCERS.on(CardRevealed, _apply_reveal)
REDUCERS.on(NobleRevealed, _apply_noble_reveal)
REDUCERS.on(GemsTaken, _apply_take)
REDUCERS.on(CardReserved, _apply_reserve)
REDUCERS.on(CardBought, _apply_buy)
REDUCERS.on(TokensReturned, _apply_return)
REDUCERS.on(NobleChosen, _apply_noble)
REDUCERS.on(TurnPassed, _apply_pass)
apply = REDUCERS.seal().apply
