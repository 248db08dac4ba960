"""What a seat names by tapping pieces rather than typing codes: the card picker's data, pure.

A game's box holds pieces a move may name (cards, half-cards, nobles, gems, map pieces, disks), each in the group
the game sorts it into (`Piece.group`: a suit, a level and a colour, coins or special cards), listed by the game's
`pieces(state)`. A `Naming` is one move that names pieces, with what may be named in each of its places (`Slot`):

- a **listed** naming stands for moves of the listing (`choices`: each listed move with the pieces it names, place
  by place), made here from the listing itself (`listed`): the moves of one kind and player that name pieces, so a
  long group of buttons (94 `draw X`) becomes a few taps on pictures, and only a listed move can be chosen;
- a **composed** naming is a move the listing cannot enumerate (a dealt hand of nine cards, a whole setup's
  reveals), made by the game's `naming(state)`: every piece each place may take, with how many copies may still be
  named, and its text made by `compose` (the move's head, then each place's words and pieces, space-separated).

Both are computed on the table as the caller knows it (the game's `conceal` for a seat), so what a picker offers
tells the caller nothing it may not know: the pieces it cannot locate are all offered, wherever they are.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from .model import Event

_ENVELOPE = frozenset({"type", "seq", "at", "prev", "unit", "salt", "player"})


class Piece(msgspec.Struct, frozen=True):
    """A piece of the game's box a move may name: its code, as the notation writes it, and the group the game sorts
    it into, outermost first (`["♥ hearts"]`, `["level 1", "white"]`)."""

    code: str
    group: list[str]


class Slot(msgspec.Struct, frozen=True):
    """One place of a move where pieces are named: what it holds in words, how many pieces it takes, which pieces may
    go there (code -> how many copies may still be named; a copy named in one place is gone from every other) and,
    for a composed naming, the words written before its pieces (`ben` before ben's hand in a deal)."""

    name: str
    least: int
    most: int
    pool: dict[str, int]
    before: str = ""


class Choice(msgspec.Struct, frozen=True):
    """A listed move and the pieces it names, place by place (in the order of its naming's slots)."""

    move: str
    picks: list[list[str]]


class Naming(msgspec.Struct, frozen=True):
    """A move that names pieces. `kind` is its first word (the group of buttons it belongs with), `player` whose move
    it is (None: the table's entry), `head` the text before its pieces, `words` what to name in words. A listed
    naming has `choices` (only those moves may be chosen); a composed one has none and `compose` writes its text.
    A composed naming that `takes_listed` enters at once what the listed moves of its kind and player enter one at
    a time (a whole setup's reveals, the one-card reveals): those are offered through it alone."""

    kind: str
    player: str | None
    head: str
    words: str
    slots: list[Slot]
    choices: list[Choice] | None = None
    takes_listed: bool = False


def compose(naming: Naming, picks: Sequence[Sequence[str]]) -> str:
    """A composed naming's move for the pieces picked in each slot: the head, then each slot's words (when it holds a
    piece) and pieces, space-separated. What the page writes for a choice, and what the tests check parses."""
    words = [naming.head]
    for slot, chosen in zip(naming.slots, picks):
        if chosen and slot.before:
            words.append(slot.before)
        words.extend(chosen)
    return " ".join(words)


def hand(player: str, cards: int, pool: dict[str, int], words: str = "dealt hand", head: str = "hand") -> Naming:
    """The naming of a seat's own hidden hand: `cards` pieces from `pool` (the copies the seat cannot locate)."""
    return Naming(
        "hand", player, f"{player}: {head}", f"{player}'s {words}: {cards} cards", [Slot(words, cards, cards, pool)]
    )


def counted(codes: Iterable[str]) -> dict[str, int]:
    """Copies of each code, in the order first named: a pool from a list of the cards a place may take."""
    return dict(Counter(codes))


# --------------------------------------------------------------------------- listed namings


def places(event: Event, pieces: frozenset[str]) -> tuple[tuple[str, ...], list[list[str]], tuple[str, ...]]:
    """The fields of `event` that name pieces of the box (a code, or a list of codes), the pieces each names, and the
    event's other fields that are set (the moves of one naming may differ in their values, a level, a target or a
    position, but not in which are set: a face-up reserve and a blind one are two namings)."""
    names: list[str] = []
    picks: list[list[str]] = []
    rest: list[str] = []
    for field, value in msgspec.to_builtins(event).items():
        if field in _ENVELOPE:
            continue
        if isinstance(value, str) and value in pieces:
            names.append(field)
            picks.append([value])
        elif isinstance(value, list) and value and all(isinstance(v, str) and v in pieces for v in value):
            names.append(field)
            picks.append(list(value))
        elif value not in (None, "", [], {}):
            rest.append(field)
    return tuple(names), picks, tuple(rest)


def kind_of(move: str) -> str:
    """A move's kind: its first word after the player (`ana: draw 7HR` -> `draw`), as the page groups buttons."""
    head, _, rest = move.partition(": ")
    bare = rest if rest and " " not in head else move
    return bare.split(" ", 1)[0]


def _common_head(moves: Sequence[str]) -> str:
    """The words every move begins with (`ana: reserve deck`), the first word at least."""
    split = [move.split(" ") for move in moves]
    common: list[str] = []
    for words in zip(*split):
        if any(word != words[0] for word in words):
            break
        common.append(words[0])
    return " ".join(common) or split[0][0]


def listed(format_move: Any, moves: Sequence[Event], pieces: Iterable[str]) -> list[Naming]:
    """The listed namings of a listing: its moves that name pieces of the box (`pieces`: their codes, less any a seat
    is called), by event kind, player, the fields naming them and the other fields set, each naming with two moves or
    more (a lone move stays a button); `format_move` is the game's `format`. The slots hold the pieces the moves name
    there, each with the most copies one move names."""
    box = frozenset(pieces)
    found: dict[tuple[type, str | None, tuple[str, ...], tuple[str, ...]], list[tuple[str, list[list[str]]]]] = {}
    for event in moves:
        names, picks, rest = places(event, box)
        if not names:
            continue
        key = (type(event), getattr(event, "player", None), names, rest)
        found.setdefault(key, []).append((format_move(event), picks))
    namings = []
    for (_, player, names, _), entries in found.items():
        if len(entries) < 2:
            continue
        texts = [text for text, _ in entries]
        slots = [_slot(name, [picks[i] for _, picks in entries]) for i, name in enumerate(names)]
        head = _common_head(texts)
        namings.append(
            Naming(kind_of(texts[0]), player, head, head, slots, [Choice(text, picks) for text, picks in entries])
        )
    return namings


def _slot(name: str, picks: list[list[str]]) -> Slot:
    pool: dict[str, int] = {}
    for chosen in picks:
        for code, copies in Counter(chosen).items():
            pool[code] = max(pool.get(code, 0), copies)
    sizes = [len(chosen) for chosen in picks]
    return Slot(name, min(sizes), max(sizes), pool)
