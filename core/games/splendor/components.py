"""Splendor's components: colours, the fixed quantities of the rules, cards and nobles read from `data.py`.

Colours are indexed in the order w b g r k (white, blue, green, red, black) and y (gold) is 5.
A card is known by its face: `1k0-w1b1g1r1` is a level-1 black card worth 0 points costing
one white, blue, green and red. A noble is known by its requirement: `w4b4`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...text import quote
from .data import CARDS as _CARD_TABLE
from .data import MANIFEST
from .data import NOBLES as _NOBLE_TABLE

COLOURS = "wbgrky"
GEMS = "wbgrk"
GOLD = 5
COLOUR_NAMES = ("white", "blue", "green", "red", "black", "gold")
INDEX = {c: i for i, c in enumerate(COLOURS)}
TOKEN_LIMIT = 10
RESERVE_LIMIT = 3
FACE_UP = 4
NOBLE_POINTS = 3
GEMS_PER_PLAYERS = {2: 4, 3: 5, 4: 7}
GOLD_TOKENS = 5


class Card(msgspec.Struct, frozen=True):
    id: str
    level: int
    bonus: int
    points: int
    cost: tuple[int, int, int, int, int]


def cost_code(cost: tuple[int, ...]) -> str:
    return "".join(f"{GEMS[i]}{n}" for i, n in enumerate(cost) if n)


def _read_cards(table: str) -> dict[str, Card]:
    cards = {}
    for line in table.strip().splitlines():
        level, bonus, points, *cost = line.split()
        w, b, g, r, k = (int(n) for n in cost)
        costs = (w, b, g, r, k)
        card_id = f"{level}{bonus}{points}-{cost_code(costs)}"
        cards[card_id] = Card(card_id, int(level), INDEX[bonus], int(points), costs)
    return cards


def _read_nobles(table: str) -> tuple[dict[str, tuple[int, ...]], dict[str, str]]:
    """Each noble's requirement (w b g r k) and its name, both keyed by the requirement's code."""
    nobles: dict[str, tuple[int, ...]] = {}
    names: dict[str, str] = {}
    for line in table.strip().splitlines():
        fields = line.split()
        costs = tuple(int(n) for n in fields[1:6])
        code = cost_code(costs)
        nobles[code] = costs
        names[code] = " ".join(fields[6:])
    return nobles, names


CARDS: dict[str, Card] = _read_cards(_CARD_TABLE)
NOBLES, NOBLE_NAMES = _read_nobles(_NOBLE_TABLE)
LEVEL_CARDS: tuple[tuple[str, ...], ...] = tuple(
    tuple(c for c, card in CARDS.items() if card.level == level) for level in (1, 2, 3)
)


def check_manifest(manifest: str | dict[str, Any]) -> list[str]:
    """Splendor's components are the printed base game: its manifest id is the only one."""
    if manifest == MANIFEST:
        return []
    return [f"manifest {quote(manifest)}: splendor knows only its base game's components ({MANIFEST})"]


# --------------------------------------------------------------------------- tokens

_TOKEN_LETTERS = frozenset(COLOURS)
_COUNTED: dict[tuple[str, ...], tuple[int, ...] | None] = {}  # a memo: the same few token lists recur
_COUNTED_LIMIT = 4096


def token_counts(tokens: list[str]) -> tuple[int, ...] | None:
    """Token letters as counts per colour (w b g r k y), or None if one is not a token."""
    key = tuple(tokens)
    try:
        return _COUNTED[key]
    except KeyError:
        pass
    counts = None
    if _TOKEN_LETTERS.issuperset(key):
        count = key.count
        counts = (count("w"), count("b"), count("g"), count("r"), count("k"), count("y"))
    if len(_COUNTED) < _COUNTED_LIMIT:
        _COUNTED[key] = counts
    return counts


def spell(counts: tuple[int, ...] | list[int]) -> list[str]:
    return [COLOURS[i] for i, n in enumerate(counts) for _ in range(n)]


def describe_tokens(counts: tuple[int, ...] | list[int]) -> str:
    parts = [f"{n} {COLOUR_NAMES[i]}" for i, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"
