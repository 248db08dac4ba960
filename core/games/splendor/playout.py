"""Splendor's random playouts folded in place, for `tally simulate`: one game's state kept in lists changed in place
(`_Table`) instead of a new frozen state per event, its affordable cards counted with bit masks over the box. The
same draws give the same events and final state as the kernel's loop over `moves.pick_move` and `reducer.apply`
(`tests/core/test_simulate_moves.py` holds the two together): whoever changes Splendor's reducer changes `_Table` too.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from operator import or_
from typing import Any

import msgspec

from ...engine import dealt
from ...engine import play_drawn as kernel_play_drawn
from ...model import Event, GameSpec, GameStarted
from .components import CARDS, COLOURS, GOLD, INDEX, NOBLE_POINTS, NOBLES, RESERVE_LIMIT, TOKEN_LIMIT
from .events import CardBought, CardReserved, GemsTaken, TokensReturned
from .moves import _RETURNS, _returns_of, _takes, pick_move
from .state import NOBLE_MINIMUM, Seat, State


def play_drawn(
    spec: GameSpec[State, Any],
    started: GameStarted,
    below: Callable[[int], int],
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], State]:
    """`core.engine.play_drawn` for Splendor: the same events and final state for the same draws, each move drawn
    as `pick_move` draws it and folded into one mutable table (`_Table`) instead of a new frozen state per event.

    An open game with no seated seat and `stuck` = `pass` plays its takes, reserves, buys, returns and single noble
    visits here; anything rarer (a choice of nobles, a pass, the end) is drawn and applied on the frozen state, the
    kernel's way, and play goes on from the state it leaves. Any other table (table mode, a seated seat, `stuck` =
    `end`) is the kernel's loop."""
    state = spec.start(started)
    if started.mode != "open" or started.seated or state.stuck != "pass":
        return kernel_play_drawn(spec, started, below, shuffle, limit)
    chance, state = dealt(spec, state, shuffle)
    events: list[Event] = [started, *chance]
    apply, append = spec.apply, events.append
    table = _Table(state)
    while len(events) < limit:
        phase = table.phase
        move = table.act(below) if phase == "action" else table.give_back(below) if phase == "return" else None
        if move is not None:
            append(move)
            continue
        state = table.frozen()  # the rare turn: drawn and applied as the kernel does
        move = pick_move(state, below)
        if move is None:
            return events, state
        append(move)
        table = _Table(apply(state, move))
    return events, table.frozen()


class _Table:
    """A Splendor state being played out, as lists changed in place: what `reducer.apply` would build anew for
    each event. Decks are kept bottom first, so the top card is popped off the end; the cards face up and each
    seat's reserve are also kept as bit masks over the box (`_bits`), so a turn counts its affordable cards with
    a few operations on integers instead of a loop over every card."""

    __slots__ = (
        "state",
        "bits",
        "n",
        "bank",
        "board",
        "decks",
        "face",
        "nobles",
        "tokens",
        "bonus",
        "cards",
        "reserved",
        "held",
        "visits",
        "points",
        "current",
        "phase",
        "passes",
        "end_triggered",
        "turns",
        "ended",
    )

    def __init__(self, state: State):
        self.bits = _bits()
        bit = self.bits.bit
        self.state = state  # what play does not change: seats, options, mode
        self.n = len(state.seats)
        self.bank = list(state.bank)
        self.board = [list(row) for row in state.board]
        self.decks = [list(reversed(deck)) for deck in state.decks]
        self.face = sum(bit[c] for row in state.board for c in row if c)
        self.nobles = list(state.nobles)
        seats = state.players
        self.tokens = [list(seat.tokens) for seat in seats]
        self.bonus = [list(seat.bonus) for seat in seats]
        self.cards = [list(seat.cards) for seat in seats]
        self.reserved = [list(seat.reserved) for seat in seats]
        self.held = [sum(bit[entry.lstrip("~")] for entry in seat.reserved) for seat in seats]
        self.visits = [list(seat.nobles) for seat in seats]
        self.points = [seat.points for seat in seats]
        self.current, self.phase, self.passes = state.current, state.phase, state.passes
        self.end_triggered, self.turns, self.ended = state.end_triggered, state.turns, state.ended

    def frozen(self) -> State:
        """The state as the reducer would have built it."""
        seats = tuple(
            Seat(tuple(tokens), tuple(bonus), tuple(cards), tuple(reserved), tuple(visits), points)
            for tokens, bonus, cards, reserved, visits, points in zip(
                self.tokens, self.bonus, self.cards, self.reserved, self.visits, self.points
            )
        )
        decks = tuple(tuple(reversed(deck)) for deck in self.decks)
        return msgspec.structs.replace(
            self.state,
            players=seats,
            bank=tuple(self.bank),
            board=tuple(tuple(row) for row in self.board),
            decks=decks,
            deck_size=tuple(map(len, decks)),
            nobles=tuple(self.nobles),
            current=self.current,
            phase=self.phase,
            gap=None,
            passes=self.passes,
            end_triggered=self.end_triggered,
            turns=self.turns,
            ended=self.ended,
        )

    def act(self, below: Callable[[int], int]) -> Event | None:
        """An action drawn as `_pick_action` draws it, then the reducer's take, reserve or buy; None (nothing drawn)
        when no action is left (a pass, or what the box proves: the kernel's turn)."""
        current = self.current
        bank = self.bank
        tokens = self.tokens[current]
        bonus = self.bonus[current]
        reserved = self.reserved[current]
        takes = _takes(tuple(bank), self.state.take_fewer)
        decks = self.decks
        face = self.face
        if len(reserved) < RESERVE_LIMIT:
            reserves = face.bit_count() + (1 if decks[0] else 0) + (1 if decks[1] else 0) + (1 if decks[2] else 0)
        else:
            reserves = 0
        bits = self.bits
        within = bits.within
        gold = tokens[GOLD]
        reach_w, reach_b, reach_g, reach_r, reach_k = (
            bonus[0] + tokens[0],
            bonus[1] + tokens[1],
            bonus[2] + tokens[2],
            bonus[3] + tokens[3],
            bonus[4] + tokens[4],
        )
        shown = face | self.held[current]
        # the cards whose every colour is within reach without gold: affordable for sure
        buys = (
            within[0][reach_w]
            & within[1][reach_b]
            & within[2][reach_g]
            & within[3][reach_r]
            & within[4][reach_k]
            & shown
        )
        if gold:  # within reach once gold makes up each colour alone: affordable if the shortfalls add up to no more
            maybe = (
                within[0][reach_w + gold]
                & within[1][reach_b + gold]
                & within[2][reach_g + gold]
                & within[3][reach_r + gold]
                & within[4][reach_k + gold]
                & shown
                & ~buys
            )
            while maybe:
                low = maybe & -maybe
                maybe ^= low
                w, b, g, r, k = bits.cost[low]
                if (
                    (w - reach_w if w > reach_w else 0)
                    + (b - reach_b if b > reach_b else 0)
                    + (g - reach_g if g > reach_g else 0)
                    + (r - reach_r if r > reach_r else 0)
                    + (k - reach_k if k > reach_k else 0)
                ) <= gold:
                    buys |= low
        count = len(takes) + reserves + buys.bit_count()
        if not count:
            return None  # a pass (or what the box proves): the kernel's turn
        index = below(count)
        who = self.state.seats[current]
        self.passes = 0
        if index < len(takes):
            gems = list(takes[index])
            for letter in gems:
                colour = INDEX[letter]
                tokens[colour] += 1
                bank[colour] -= 1
            self._end_of_turn()
            return GemsTaken(player=who, gems=gems)
        index -= len(takes)
        board = self.board
        shown_cards = [c for row in board for c in row if c]  # face up, level by level and slot by slot
        if index < reserves:
            if bank[GOLD]:
                bank[GOLD] -= 1
                tokens[GOLD] += 1
            if index < len(shown_cards):
                card = shown_cards[index]
                self._take_from_board(card)
                reserved.append(card)
                move = CardReserved(player=who, card=card)
            else:
                lvl = [lvl for lvl in range(3) if decks[lvl]][index - len(shown_cards)]
                card = decks[lvl].pop()
                reserved.append(f"~{card}")
                move = CardReserved(player=who, card=card, level=lvl + 1)
            self.held[current] |= bits.bit[card]
            self._end_of_turn()
            return move
        index -= reserves
        bit = bits.bit
        card = next(
            c
            for c in shown_cards + [entry.lstrip("~") for entry in reserved]
            if bit[c] & buys and (index := index - 1) < 0
        )
        bought = CARDS[card]
        cost = bought.cost
        paid: list[str] = []
        short = 0
        for colour in range(5):  # `default_payment`: gems first, gold for the shortfall
            need = cost[colour] - bonus[colour]
            if need > 0:
                have = tokens[colour]
                if need > have:
                    short += need - have
                    need = have
                paid += COLOURS[colour] * need  # `spell`: a letter per token
                tokens[colour] -= need
                bank[colour] += need
        if short:
            paid += "y" * short
            tokens[GOLD] -= short
            bank[GOLD] += short
        bonus[bought.bonus] += 1
        if not self._take_from_board(card):
            at = reserved.index(card) if card in reserved else reserved.index(f"~{card}")
            del reserved[at]
            self.held[current] ^= bit[card]
        self.cards[current].append(card)
        self.points[current] += bought.points
        self._end_of_turn()
        return CardBought(player=who, card=card, paid=paid)

    def _take_from_board(self, card: str) -> bool:
        """The face-up card gone and its slot refilled from the deck (or left empty): whether it lay face up."""
        lvl = CARDS[card].level - 1
        row = self.board[lvl]
        if card not in row:
            return False
        deck = self.decks[lvl]
        bit = self.bits.bit
        self.face ^= bit[card]
        if deck:
            top = row[row.index(card)] = deck.pop()
            self.face |= bit[top]
        else:
            row[row.index(card)] = None
        return True

    def give_back(self, below: Callable[[int], int]) -> Event | None:
        """A return drawn as `_pick_return` draws it, then the reducer's return."""
        current = self.current
        tokens = self.tokens[current]
        held = tuple(tokens)
        returns = _RETURNS.get(held) or _returns_of(held)
        if not returns:
            return None
        letters = list(returns[below(len(returns))])
        bank = self.bank
        for letter in letters:
            colour = INDEX[letter]
            tokens[colour] -= 1
            bank[colour] += 1
        self._end_of_turn(returned=True)
        return TokensReturned(player=self.state.seats[current], tokens=letters)

    def _end_of_turn(self, returned: bool = False) -> None:
        """The reducer's end of a turn: tokens to return, then a noble's visit (a choice: the kernel's turn), then
        the next seat or the end. `returned`: the return is made."""
        current = self.current
        if not returned and sum(self.tokens[current]) > TOKEN_LIMIT:
            self.phase = "return"
            return
        nobles = self.nobles
        if nobles and len(self.cards[current]) >= NOBLE_MINIMUM:
            w, b, g, r, k = self.bonus[current]
            qualifying = [
                n
                for n in nobles
                if (need := NOBLES[n])[0] <= w and need[1] <= b and need[2] <= g and need[3] <= r and need[4] <= k
            ]
            if len(qualifying) > 1:
                self.phase = "noble"  # a choice: the kernel's turn
                return
            if qualifying:
                nobles.remove(qualifying[0])
                self.visits[current].append(qualifying[0])
                self.points[current] += NOBLE_POINTS
        end = self.end_triggered or self.points[current] >= self.state.target
        following = (current + 1) % self.n
        self.turns += 1
        if end and following == 0:
            self.phase, self.end_triggered, self.ended = "over", True, "target"
            return
        self.current, self.phase, self.end_triggered = following, "action", end


class _Bits(msgspec.Struct, frozen=True):
    """The box as bit masks: a bit per card (`bit`), the cost behind each bit (`cost`), and per colour and amount
    the cards that cost no more than that amount of the colour (`within[colour][amount]`)."""

    bit: dict[str, int]
    cost: dict[int, tuple[int, ...]]
    within: tuple[tuple[int, ...], ...]


_BITS: list[_Bits] = []
_REACH = 64  # more than any seat can hold of a colour, gold included (bonuses and tokens)


def _bits() -> _Bits:
    """The box's bit masks, made on the first playout (recording a move never needs them)."""
    if not _BITS:
        bit = {card: 1 << i for i, card in enumerate(CARDS)}
        masks = []
        for colour in range(5):
            costing = [0] * _REACH  # the cards that cost exactly this amount of the colour
            for c, card in CARDS.items():
                costing[card.cost[colour]] |= bit[c]
            masks.append(tuple(accumulate(costing, or_)))
        within = tuple(masks)
        _BITS.append(_Bits(bit, {bit[c]: card.cost for c, card in CARDS.items()}, within))
    return _BITS[0]
