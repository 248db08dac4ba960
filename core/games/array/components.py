"""Array's components: the box (colours and how many copies of each card), read from a manifest, and
small facts about cards that every module asks.

A card is known by its code. A colour card's code is its colour letters in the box's colour order
(`bo` is blue-orange, `bgry` blue-gray-red-yellow): a colour card has each of its colours once, as one
segment. `s1`-`s5` are Splatter 1-5 and `slam` is SLAM. The same code names every copy of a card.

A manifest is the default's id (`array-assumed-1`, from `data.py`) or a whole manifest inline (read from
a file at `tally new --manifest`): `{"id": ..., "colours": {letter: name, ...}, "cards": {code: copies}}`.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...manifests import Resolver
from ...text import quote
from .data import CARDS as _CARD_TABLE
from .data import COLOURS as _COLOUR_TABLE
from .data import MANIFEST

DEAL = 7  # cards dealt to each player
SLAM_POINTS = 10
SPLATTERS = ("s1", "s2", "s3", "s4", "s5")
ACTIONS = SPLATTERS + ("slam",)
ACTION_CODES = frozenset(ACTIONS)
MAX_SEATS = 5
MIN_COLOUR_CARDS = DEAL * MAX_SEATS + 1  # a starting card must remain after the largest deal
MAX_COLOURS = 8
MAX_COPIES = 99
MAX_CARDS = 999
MANIFEST_FIELDS = ("id", "colours", "cards")


class Box(msgspec.Struct, frozen=True, array_like=True):
    """The components a game is played with: colour letters (in canonical order), their names, and the
    copies of each card (codes in canonical form)."""

    id: str
    colours: str
    names: tuple[str, ...]
    copies: tuple[tuple[str, int], ...]

    @property
    def total(self) -> int:
        return sum(n for _, n in self.copies)

    def count(self, code: str) -> int:
        for card, n in self.copies:
            if card == code:
                return n
        return 0

    def cards(self) -> list[str]:
        """Every card of the box, each copy once, in manifest order (what is shuffled for a deal)."""
        return [code for code, n in self.copies for _ in range(n)]

    def sorted_cards(self) -> list[str]:
        """Every card of the box, sorted: a deal holds exactly these."""
        key = (self.colours, self.copies)
        found = _SORTED.get(key)
        if found is None:
            found = _SORTED[key] = sorted(self.cards())
        return found

    def name(self, letter: str) -> str:
        index = self.colours.find(letter)
        return self.names[index] if index >= 0 and len(letter) == 1 else letter


_SORTED: dict[tuple[str, tuple[tuple[str, int], ...]], list[str]] = {}

# --------------------------------------------------------------------------- facts about a card code

_POINTS: dict[str, int] = {"slam": SLAM_POINTS, **{code: int(code[1]) for code in SPLATTERS}}


def is_action(code: str) -> bool:
    return code in _POINTS


_COLOUR_CARD: dict[tuple[str, str], bool] = {}  # a memo: (code, colour letters) -> is a colour card code
_MEMO_LIMIT = 65536


def is_colour_card(code: str, box: Box) -> bool:
    """A code of this box's colour cards (2-4 different colours of the box, in canonical order)."""
    key = (code, box.colours)
    try:
        return _COLOUR_CARD[key]
    except KeyError:
        pass
    found = 2 <= len(code) <= 4 and canonical(code, box) == code
    if len(_COLOUR_CARD) < _MEMO_LIMIT:
        _COLOUR_CARD[key] = found
    return found


def points(code: str) -> int:
    """What a card left in hand scores: a colour card 2, 3 or 4 by its colours, Splatter N scores N, SLAM 10."""
    return _POINTS.get(code, len(code))


class _Points(dict[str, int]):
    """code -> `points(code)`, filled as codes are met: `map(CARD_POINTS.__getitem__, cards)` scores a hand with no
    Python call per card."""

    def __missing__(self, code: str) -> int:
        found = points(code)
        if len(self) < _MEMO_LIMIT:
            self[code] = found
        return found


CARD_POINTS = _Points()


def splatter(code: str) -> int:
    """How many cards a Splatter makes its receiver pick up (0 for SLAM)."""
    return 0 if code == "slam" else _POINTS[code]


def canonical(letters: str, box: Box) -> str | None:
    """Colour letters in the box's order (`ob` -> `bo`), or None if one is not a colour or one repeats."""
    colours = box.colours
    if not letters or len(set(letters)) != len(letters) or any(len(c) != 1 or c not in colours for c in letters):
        return None
    return "".join(sorted(letters, key=colours.index))


def card_text(code: str, box: Box) -> str:
    """A card in words: `bo (blue-orange)`, `s3 (Splatter 3)`, `slam (SLAM)`."""
    if code == "slam":
        return "slam (SLAM)"
    if code in _POINTS:
        return f"{code} (Splatter {code[1]})"
    return f"{code} ({'-'.join(box.name(c) for c in code)})"


# --------------------------------------------------------------------------- manifests


def _read_table(colours: str, cards: str) -> dict[str, Any]:
    manifest: dict[str, Any] = {"id": MANIFEST, "colours": {}, "cards": {}}
    for line in colours.strip().splitlines():
        letter, name = line.split(None, 1)
        manifest["colours"][letter] = name.strip()
    for line in cards.strip().splitlines():
        code, copies = line.split()
        manifest["cards"][code] = int(copies)
    return manifest


DEFAULT_MANIFEST: dict[str, Any] = _read_table(_COLOUR_TABLE, _CARD_TABLE)


def _box_of(manifest: dict[str, Any]) -> Box:
    colours = "".join(manifest["colours"])
    names = tuple(manifest["colours"].values())
    partial = Box(str(manifest.get("id", "inline")), colours, names, ())
    copies = []
    for code, n in manifest["cards"].items():
        copies.append((code if code in _POINTS else canonical(code, partial) or code, n))
    return Box(partial.id, colours, names, tuple(copies))


DEFAULT_BOX = _box_of(DEFAULT_MANIFEST)


# the box of a manifest the game has accepted (`check_manifest` found no problem)
load_box = Resolver(lambda manifest: DEFAULT_BOX if isinstance(manifest, str) else _box_of(manifest))


def _is_printable(text: str) -> bool:
    return text.isprintable() and text == text.strip()


def check_manifest(manifest: str | dict[str, Any]) -> list[str]:
    """Problems with a manifest: an unknown id, or an inline manifest that does not describe a usable box."""
    if isinstance(manifest, str):
        if manifest == MANIFEST:
            return []
        return [f"manifest {quote(manifest)}: array knows {MANIFEST}; give another box as a manifest file"]
    if not isinstance(manifest, dict):
        return ["an array manifest is an object with colours and cards"]
    problems = [
        f"manifest field {quote(key)} is unknown (fields: {', '.join(MANIFEST_FIELDS)})"
        for key in manifest
        if key not in MANIFEST_FIELDS
    ]
    ident = manifest.get("id", "inline")
    if not isinstance(ident, str) or not 0 < len(ident) <= 40 or not _is_printable(ident):
        problems.append(f"manifest id {quote(ident)}: a name of 1-40 printable characters")
    colours = manifest.get("colours")
    if not isinstance(colours, dict) or not 2 <= len(colours) <= MAX_COLOURS:
        problems.append(f'manifest colours: an object of 2-{MAX_COLOURS} colours, letter = name (e.g. b = "blue")')
        return problems
    for letter, name in colours.items():
        if not (len(letter) == 1 and "a" <= letter <= "z" and letter != "s"):
            problems.append(
                f"colour letter {quote(letter)}: one lowercase letter a-z other than s (s names Splatter cards)"
            )
        if not isinstance(name, str) or not 0 < len(name) <= 20 or not _is_printable(name):
            problems.append(f"colour {quote(letter)}: its name must be 1-20 printable characters")
    if problems:
        return problems
    cards = manifest.get("cards")
    if not isinstance(cards, dict) or not cards or len(cards) > 400:
        problems.append("manifest cards: an object of card code = copies (e.g. bo = 3, s1 = 2, slam = 2)")
        return problems
    box = Box("check", "".join(colours), tuple(colours.values()), ())
    seen: dict[str, str] = {}
    colour_cards = total = 0
    for code, copies in cards.items():
        if isinstance(copies, bool) or not isinstance(copies, int) or not 1 <= copies <= MAX_COPIES:
            problems.append(f"card {quote(code)}: copies must be a whole number from 1 to {MAX_COPIES}")
            continue
        total += copies
        if code in _POINTS:
            normal = code
        else:
            normal = canonical(code, box) if isinstance(code, str) and 2 <= len(code) <= 4 else None
            if normal is None:
                problems.append(
                    f"card {quote(code)}: a colour card is 2-4 different colour letters of {box.colours}; "
                    f"action cards are {', '.join(ACTIONS)}"
                )
                continue
            colour_cards += copies
        if normal in seen:
            problems.append(f"cards {quote(seen[normal])} and {quote(code)} are the same card")
        seen[normal] = code
    if problems:
        return problems
    if colour_cards < MIN_COLOUR_CARDS:
        problems.append(
            f"manifest has {colour_cards} colour cards; at least {MIN_COLOUR_CARDS} are needed "
            f"(so that a starting card remains after dealing {DEAL} to {MAX_SEATS} players)"
        )
    if total > MAX_CARDS:
        problems.append(f"manifest has {total} cards; at most {MAX_CARDS}")
    return problems
