"""Splice's components: the box read from a manifest (`data.py`'s default, or one a log carries inline),
card ids and kinds, and coin sets.

Card ids: a coin card is its value (`5`); `wild` is a wild coin card; `double` (Double Your Gold),
`piracy`, `skull`, `trade` (Trade Certificate), `spot` (Black Spot), `hurricane`; a wild map piece is `x`
and its position (`x3`). A regular map piece is a colour letter and its position (`r3`): those are never in
the deck, only in the Map Pile and in front of players. A gemstone disk is a colour letter.

A coin set is written with its values joined by `-`, a wild card as `w` and the value it stands for:
`5-5` (a pair), `4-5-6` (a run), `5-w5`, `w4-5-6`. Its normal form lists the values in order, a natural
card before a wild one of the same value.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...manifests import Manifest, Resolver
from ...notation import read_count
from ...text import quote
from .data import DEFAULT, MANIFEST

POSITIONS = 4  # pieces of one treasure map
PRICE = 20  # gold per map piece
MAX_WILD_PIECES = 2  # in one completed map
MAP_LIMIT = 5  # map pieces a player may hold
SINGLES = (
    "wild",
    "double",
    "piracy",
    "skull",
    "trade",
    "spot",
    "hurricane",
)  # ids of cards that are not coins or pieces
_MANIFEST_KEYS = {
    "wild": "wild",
    "double": "double",
    "piracy": "piracy",
    "skull": "skull",
    "trade": "trade",
    "black_spot": "spot",
    "hurricane": "hurricane",
}
CARD_NAMES = {
    "wild": "wild card",
    "double": "Double Your Gold",
    "piracy": "Piracy",
    "skull": "Skull",
    "trade": "Trade Certificate",
    "spot": "Black Spot",
    "hurricane": "Hurricane",
}
MAX_VALUE = 99
MAX_COPIES = 40


class Box(msgspec.Struct, frozen=True, gc=False):
    """The components of one box: gem colours (one disk and one map each), and the deck's cards with their copies."""

    id: str
    colours: tuple[str, ...]
    names: tuple[str, ...]
    values: tuple[int, ...]  # coin values with at least one card, ascending
    copies: dict[str, int]  # deck card id -> copies in the box (every Hurricane of the box included)

    def colour_name(self, letter: str) -> str:
        return self.names[self.colours.index(letter)] if letter in self.colours else letter

    @property
    def pieces(self) -> tuple[str, ...]:
        """Every regular map piece, colour by colour."""
        return tuple(f"{c}{p}" for c in self.colours for p in range(1, POSITIONS + 1))

    @property
    def piece_copies(self) -> dict[str, int]:
        """Copies of each regular map piece: one, which bounds what a face-down piece may turn out to be."""
        return dict.fromkeys(self.pieces, 1)


def card_name(card: str, box: Box | None = None) -> str:
    """A card id in words: `5` -> `coin 5`, `x2` -> `wild map piece 2`, `r3` -> `red map piece 3`."""
    if card.isdigit():
        return f"coin {card}"
    if card in CARD_NAMES:
        return CARD_NAMES[card]
    if len(card) == 2 and card[1].isdigit():
        if card[0] == "x":
            return f"wild map piece {card[1]}"
        colour = box.colour_name(card[0]) if box else card[0]
        return f"{colour} map piece {card[1]}"
    return card


# --------------------------------------------------------------------------- manifests


def _problems(manifest: dict[str, Any]) -> list[str]:
    problems = []
    known = set(DEFAULT)
    for key in manifest:
        if key not in known:
            problems.append(f"manifest key {quote(key)} is not a Splice component (known: {', '.join(sorted(known))})")
    colours = manifest.get("colours", DEFAULT["colours"])
    if not isinstance(colours, dict) or not 2 <= len(colours) <= 8:
        problems.append("manifest `colours` must map 2 to 8 colour letters to names")
    else:
        for letter, name in colours.items():
            if not (isinstance(letter, str) and len(letter) == 1 and "a" <= letter <= "z" and letter not in "wx"):
                problems.append(f"colour letter {quote(letter)}: one lowercase letter a-z, not w or x")
            if not (isinstance(name, str) and 0 < len(name) <= 20 and name.isprintable()):
                problems.append(f"colour {quote(letter)}: a name of 1 to 20 printable characters")
    coins = manifest.get("coins", DEFAULT["coins"])
    if not isinstance(coins, dict) or not coins:
        problems.append("manifest `coins` must map coin values to copies")
    else:
        for value, copies in coins.items():
            number = read_count(str(value), MAX_VALUE)
            if number in (None, 0) or str(number) != str(value):
                problems.append(f"coin value {quote(value)}: an integer from 1 to {MAX_VALUE}, without leading zeros")
            if type(copies) is not int or not 0 <= copies <= MAX_COPIES:
                problems.append(f"coin {quote(value)}: copies must be an integer from 0 to {MAX_COPIES}")
    wild_pieces = manifest.get("wild_pieces", DEFAULT["wild_pieces"])
    if not isinstance(wild_pieces, dict):
        problems.append("manifest `wild_pieces` must map positions 1-4 to copies")
    else:
        for position, copies in wild_pieces.items():
            if str(position) not in ("1", "2", "3", "4"):
                problems.append(f"wild map piece position {quote(position)}: one of 1, 2, 3, 4")
            if type(copies) is not int or not 0 <= copies <= MAX_COPIES:
                problems.append(f"wild map piece {quote(position)}: copies must be an integer from 0 to {MAX_COPIES}")
    for key in _MANIFEST_KEYS:
        copies = manifest.get(key, DEFAULT[key])
        if type(copies) is not int or not 0 <= copies <= MAX_COPIES:
            problems.append(f"manifest `{key}`: copies must be an integer from 0 to {MAX_COPIES}")
    if not problems and sum(coins.values()) < 10:
        problems.append("the manifest holds fewer than 10 coin cards: no one could ever buy a map piece")
    return problems


def check_manifest(manifest: str | dict[str, Any]) -> list[str]:
    """The default manifest's id, or an inline manifest (a file's keys, each overriding the default's)."""
    if isinstance(manifest, str):
        if manifest == MANIFEST:
            return []
        return [f"manifest {quote(manifest)}: splice knows {MANIFEST}; a different box is given as a manifest file"]
    if not isinstance(manifest, dict):
        return ["a manifest is an id or an object"]
    return _problems(manifest)


def _resolve_box(manifest: Manifest) -> Box:
    given = {} if isinstance(manifest, str) else manifest
    merged = {**DEFAULT, **given}
    colours = tuple(merged["colours"])
    copies: dict[str, int] = {}
    for value, n in sorted(merged["coins"].items(), key=lambda item: int(item[0])):
        if n:
            copies[str(int(value))] = n
    for field, card in _MANIFEST_KEYS.items():
        if merged[field]:
            copies[card] = merged[field]
    for position, n in sorted(merged["wild_pieces"].items()):
        if n:
            copies[f"x{position}"] = n
    return Box(
        id=manifest if isinstance(manifest, str) else "inline",
        colours=colours,
        names=tuple(merged["colours"][c] for c in colours),
        values=tuple(sorted(int(c) for c in copies if c.isdigit())),
        copies=copies,
    )


# the box a checked manifest describes: every state of a game shares one
box_for = Resolver(_resolve_box)


DEFAULT_BOX = box_for(MANIFEST)


def deck_copies(box: Box, hurricanes: int) -> dict[str, int]:
    """Copies of each card shuffled into the deck: the box's cards, with at most `hurricanes` Hurricanes."""
    copies = dict(box.copies)
    if "hurricane" in copies:
        copies["hurricane"] = min(copies["hurricane"], hurricanes)
        if not copies["hurricane"]:
            del copies["hurricane"]
    return copies


def deck_cards(copies: dict[str, int]) -> list[str]:
    """The deck as a list of card ids, in the manifest's order (before any shuffle)."""
    return [card for card, n in copies.items() for _ in range(n)]


# --------------------------------------------------------------------------- coin sets


class CoinSet(msgspec.Struct, frozen=True):
    form: str  # normal form: `5-w5`, `4-5-6`
    cards: tuple[str, ...]  # the card ids it is made of (`5`, `wild`)
    value: int
    kind: str  # pair | run


_SETS: dict[tuple[str, tuple[int, ...]], CoinSet | str] = {}


def read_set(text: str, values: tuple[int, ...]) -> CoinSet | str:
    """A coin set in notation, or what is wrong with it (as a message). Memoised: few forms recur."""
    key = (text, values)
    found = _SETS.get(key)
    if found is not None:
        return found
    result = _read_set(text, values)
    if len(_SETS) < 8192:
        _SETS[key] = result
    return result


def coin_set(text: str, values: tuple[int, ...]) -> CoinSet:
    """A set known to be one: in play, or a payment the rules have judged (anything else is broken machinery)."""
    found = read_set(text, values)
    if isinstance(found, str):
        raise ValueError(f"not a coin set in play: {found}")
    return found


def _read_set(text: str, values: tuple[int, ...]) -> CoinSet | str:
    if len(text) > 24:
        return f"{quote(text)} is not a coin set"
    entries = []
    for part in text.split("-"):
        wild = part[:1] in ("w", "*")
        number = read_count(part[1:] if wild else part, MAX_VALUE)
        if number is None:
            return f"{quote(part)} in {quote(text)} is not a coin value (write `5`, or `w5` for a wild card as 5)"
        if number not in values:
            return f"there is no coin card worth {number} (values: {', '.join(map(str, values))})"
        entries.append((number, wild))
    entries.sort()
    numbers = [n for n, _ in entries]
    if all(wild for _, wild in entries):
        return f"{quote(text)} is all wild cards: a set holds at least one coin card"
    if len(entries) == 2 and numbers[0] == numbers[1]:
        kind_ = "pair"
    elif len(entries) == 3 and numbers[1] == numbers[0] + 1 and numbers[2] == numbers[0] + 2:
        kind_ = "run"
    else:
        return f"{quote(text)} is neither a pair (two of a value) nor a 3-card run of consecutive values"
    form = "-".join(f"w{n}" if wild else str(n) for n, wild in entries)
    cards = tuple("wild" if wild else str(n) for n, wild in entries)
    return CoinSet(form, cards, sum(numbers), kind_)


def multiplier(doubles: int, stack: bool) -> int:
    """What Double Your Gold cards in play multiply a player's sets by: once, or once each (double-stack)."""
    if not doubles:
        return 1
    return 2 ** min(doubles, 16) if stack else 2
