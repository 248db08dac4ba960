"""Splendor's legal moves worked out the fast way are the moves of the plain definitions, in the same order:
returns as the bounded multisets `combinations_with_replacement` filtered gave, buys as `default_payment` allows."""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

from tally.core.games.splendor import CARDS, COLOURS, default_payment
from tally.core.games.splendor.moves import _returns
from tally.core.games.splendor.state import Seat


def test_returns_are_the_filtered_multisets_in_their_order():
    rng = random.Random(15)
    for _ in range(5_000):
        tokens = tuple(rng.randint(0, 5) for _ in range(6))
        held = [i for i in range(6) if tokens[i]]
        size = rng.randint(0, 5)
        plain = [
            "".join(COLOURS[i] for i in combo)
            for combo in combinations_with_replacement(held, size)
            if all(combo.count(i) <= tokens[i] for i in set(combo))
        ]
        assert _returns(held, tokens, size) == plain


def test_default_payment_is_gems_first_then_gold():
    rng = random.Random(21)
    for _ in range(5_000):
        card = CARDS[rng.choice(sorted(CARDS))]
        tokens = tuple(rng.randint(0, 4) for _ in range(6))
        bonus = tuple(rng.randint(0, 4) for _ in range(5))
        seat = Seat(tokens=tokens, bonus=bonus)
        need = [max(0, c - b) for c, b in zip(card.cost, bonus)]
        gems = [min(n, t) for n, t in zip(need, tokens)]
        short = sum(need) - sum(gems)
        assert default_payment(card, seat) == (None if short > tokens[5] else gems + [short])
