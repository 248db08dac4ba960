"""Split's components: half-cards, the reference cards and the score pad, read from a component manifest.

A half-card is known by its rank, suit and side: `7HL` is the left half of the seven of hearts, `10SR` the
right half of the ten of spades. Every half-card exists once (a cut deck). The default manifest is
`data.py`'s; a manifest file (`tally new --manifest`) may replace any part of it (docs/rules/split.md,
"Components"), and `check_manifest` says what is wrong with one. A `Deck` is a manifest read and resolved,
with the lookups rules and reducer need; it travels in the state, so a log is judged by its own components.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...manifests import Resolver
from ...text import quote
from .data import MANIFEST, MARKS, MINUS_BOXES, RANK_BOXES, RANKS, REFERENCE_CARDS, SUITS

HAND = 9  # cards dealt to each player
SIDES = "LR"
GRADES = ("weak", "strong", "perfect")  # index = strength
WEAK, STRONG, PERFECT = 0, 1, 2


class PadRow(msgspec.Struct, frozen=True, array_like=True):
    """A row of the upper half of the pad: its name, the ranks whose matches mark it, its box values."""

    name: str
    ranks: tuple[str, ...]
    boxes: tuple[int, ...]


class Deck(msgspec.Struct, frozen=True):
    """The components of one game, resolved from its manifest."""

    id: str
    ranks: tuple[str, ...]
    suits: tuple[str, ...]
    colours: tuple[str, ...]  # per suit
    suit_names: tuple[str, ...]
    reference: int
    rows: tuple[PadRow, ...]
    minus: tuple[int, ...]
    marks: tuple[int, int, int]  # boxes a weak, strong, perfect match marks
    cards: tuple[str, ...]  # every half-card, rank by rank, suit by suit, left before right
    # card -> (rank index, suit index, side 0 left / 1 right, colour index)
    info: dict[str, tuple[int, int, int, int]]
    row_of_rank: tuple[int, ...]  # rank index -> pad row index

    @property
    def size(self) -> int:
        return len(self.cards)


def code(rank: str, suit: str, side: str) -> str:
    return f"{rank}{suit}{side}"


# --------------------------------------------------------------------------- the default manifest


def _default() -> dict[str, Any]:
    suits = [line.split() for line in SUITS.strip().splitlines()]
    ranks = RANKS.split()
    boxes = [int(v) for v in RANK_BOXES.split()]
    return {
        "ranks": ranks,
        "suits": [{"code": s, "colour": colour, "name": name} for s, colour, name in suits],
        "reference": REFERENCE_CARDS,
        "pad": {
            "rows": [{"name": rank, "ranks": [rank], "boxes": boxes} for rank in ranks],
            "minus": [int(v) for v in MINUS_BOXES.split()],
            "marks": {name: int(n) for name, n in (line.split() for line in MARKS.strip().splitlines())},
        },
    }


DEFAULT: dict[str, Any] = _default()
MANIFEST_KEYS = ("name", "ranks", "suits", "reference", "pad")
PAD_KEYS = ("rows", "minus", "marks")

# bounds: a manifest describes one box of cards, so anything much larger is a mistake
MAX_RANKS, MAX_SUITS, MAX_REFERENCE, MAX_BOXES, MAX_VALUE, MAX_MARKS, MAX_NAME = 26, 8, 20, 200, 100_000, 10, 40


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _code_ok(value: Any, longest: int) -> bool:
    return (
        isinstance(value, str)
        and 0 < len(value) <= longest
        and value.isascii()
        and value.isalnum()
        and value == value.upper()
    )


def _boxes_problem(where: str, boxes: Any) -> str | None:
    if not isinstance(boxes, list) or not 0 < len(boxes) <= MAX_BOXES:
        return f"{where}: a list of 1 to {MAX_BOXES} box values"
    if not all(_is_int(v) and abs(v) <= MAX_VALUE for v in boxes):
        return f"{where}: box values are integers from -{MAX_VALUE} to {MAX_VALUE}"
    return None


def _manifest_problems(manifest: dict[str, Any]) -> list[str]:
    problems = [
        f"unknown key {quote(key)} (known: {', '.join(MANIFEST_KEYS)})" for key in manifest if key not in MANIFEST_KEYS
    ]
    name = manifest.get("name", "")
    if not isinstance(name, str) or len(name) > MAX_NAME:
        problems.append(f"name: a text of at most {MAX_NAME} characters")
    ranks = manifest.get("ranks", DEFAULT["ranks"])
    if not isinstance(ranks, list) or not 0 < len(ranks) <= MAX_RANKS or not all(_code_ok(r, 3) for r in ranks):
        problems.append(f"ranks: a list of 1 to {MAX_RANKS} codes of 1-3 capital letters or digits")
        ranks = []
    elif len(set(ranks)) != len(ranks):
        problems.append("ranks: each rank once")
    suits = manifest.get("suits", DEFAULT["suits"])
    if not isinstance(suits, list) or not 0 < len(suits) <= MAX_SUITS:
        problems.append(f"suits: a list of 1 to {MAX_SUITS} suits")
        suits = []
    for i, suit in enumerate(suits):
        if not isinstance(suit, dict) or set(suit) - {"code", "colour", "name"} or not {"code", "colour"} <= set(suit):
            problems.append(f"suits[{i}]: an object with `code`, `colour` and an optional `name`")
            continue
        if not (_code_ok(suit["code"], 1) and suit["code"].isalpha()) or suit["code"] in SIDES:
            problems.append(f"suits[{i}].code: one capital letter other than L and R")
        for key in ("colour", "name"):
            if key in suit and (not isinstance(suit[key], str) or not 0 < len(suit[key]) <= MAX_NAME):
                problems.append(f"suits[{i}].{key}: a text of 1 to {MAX_NAME} characters")
    codes = [s.get("code") for s in suits if isinstance(s, dict)]
    if len(set(map(str, codes))) != len(codes):
        problems.append("suits: each suit code once")
    reference = manifest.get("reference", DEFAULT["reference"])
    if not _is_int(reference) or not 0 <= reference <= MAX_REFERENCE:
        problems.append(f"reference: an integer from 0 to {MAX_REFERENCE}")
    pad = manifest.get("pad", {})
    if not isinstance(pad, dict):
        return problems + ["pad: an object with `rows`, `minus` and `marks` (each optional)"]
    problems.extend(
        f"pad: unknown key {quote(key)} (known: {', '.join(PAD_KEYS)})" for key in pad if key not in PAD_KEYS
    )
    if "rows" in pad:
        rows = pad["rows"]
        if not isinstance(rows, list) or not 0 < len(rows) <= MAX_RANKS:
            problems.append(f"pad.rows: a list of 1 to {MAX_RANKS} rows")
            rows = []
        covered: list[Any] = []
        for i, row in enumerate(rows):
            if not isinstance(row, dict) or set(row) != {"name", "ranks", "boxes"}:
                problems.append(f"pad.rows[{i}]: an object with `name`, `ranks` and `boxes`")
                continue
            if not isinstance(row["name"], str) or not 0 < len(row["name"]) <= MAX_NAME:
                problems.append(f"pad.rows[{i}].name: a text of 1 to {MAX_NAME} characters")
            if not isinstance(row["ranks"], list) or not row["ranks"]:
                problems.append(f"pad.rows[{i}].ranks: a list of ranks")
            else:
                covered.extend(row["ranks"])
            problem = _boxes_problem(f"pad.rows[{i}].boxes", row["boxes"])
            if problem:
                problems.append(problem)
        if rows and ranks and sorted(map(str, covered)) != sorted(map(str, ranks)):
            problems.append("pad.rows: every rank must be in exactly one row")
    if "minus" in pad:
        problem = _boxes_problem("pad.minus", pad["minus"])
        if problem:
            problems.append(problem)
    if "marks" in pad:
        marks = pad["marks"]
        if (
            not isinstance(marks, dict)
            or set(marks) != set(GRADES)
            or not all(_is_int(v) and 0 <= v <= MAX_MARKS for v in marks.values())
        ):
            problems.append(
                f"pad.marks: boxes per match type, `perfect`, `strong` and `weak`, each from 0 to {MAX_MARKS}"
            )
    return problems


def check_manifest(manifest: str | dict[str, Any]) -> list[str]:
    """Problems with a component manifest: the default's id, or an inline manifest in the documented shape."""
    if isinstance(manifest, str):
        if manifest == MANIFEST:
            return []
        return [f"manifest {quote(manifest)}: split knows {MANIFEST}; a manifest file describes any other box"]
    if not isinstance(manifest, dict):
        return ["a manifest is an id or an object"]
    problems = _manifest_problems(manifest)
    return [f"manifest: {problem}" for problem in problems]


# --------------------------------------------------------------------------- a manifest resolved

# the resolved components of a usable manifest (`check_manifest` found nothing wrong)
deck_for = Resolver(
    lambda manifest: _resolve(
        MANIFEST if isinstance(manifest, str) else manifest.get("name") or "inline",
        DEFAULT if isinstance(manifest, str) else manifest,
    )
)


def _resolve(ident: str, manifest: dict[str, Any]) -> Deck:
    ranks = tuple(manifest.get("ranks", DEFAULT["ranks"]))
    suits = manifest.get("suits", DEFAULT["suits"])
    codes = tuple(s["code"] for s in suits)
    colour_names = list(dict.fromkeys(s["colour"] for s in suits))
    pad = {**DEFAULT["pad"], **manifest.get("pad", {})}
    if "rows" not in manifest.get("pad", {}):  # one row per rank of this deck, with the default boxes
        boxes = DEFAULT["pad"]["rows"][0]["boxes"]
        pad["rows"] = [{"name": r, "ranks": [r], "boxes": boxes} for r in ranks]
    rows = tuple(PadRow(row["name"], tuple(row["ranks"]), tuple(row["boxes"])) for row in pad["rows"])
    row_of = {rank: i for i, row in enumerate(rows) for rank in row.ranks}
    info: dict[str, tuple[int, int, int, int]] = {}
    cards = []
    for r, rank in enumerate(ranks):
        for s, suit in enumerate(suits):
            for side, letter in enumerate(SIDES):
                card = code(rank, suit["code"], letter)
                cards.append(card)
                info[card] = (r, s, side, colour_names.index(suit["colour"]))
    marks = pad["marks"]
    return Deck(
        id=ident,
        ranks=ranks,
        suits=codes,
        colours=tuple(s["colour"] for s in suits),
        suit_names=tuple(s.get("name", s["code"]) for s in suits),
        reference=manifest.get("reference", DEFAULT["reference"]),
        rows=rows,
        minus=tuple(pad["minus"]),
        marks=(marks["weak"], marks["strong"], marks["perfect"]),
        cards=tuple(cards),
        info=info,
        row_of_rank=tuple(row_of[rank] for rank in ranks),
    )


DEFAULT_DECK = deck_for(MANIFEST)


# --------------------------------------------------------------------------- card questions


def grade(deck: Deck, a: str, b: str) -> int:
    """The type of the match of two halves of one rank: perfect (one suit), strong (one colour), else weak."""
    info = deck.info
    x, y = info[a], info[b]
    if x[1] == y[1]:
        return PERFECT
    return STRONG if x[3] == y[3] else WEAK


def pair(deck: Deck, a: str, b: str) -> tuple[str, str]:
    """Two halves in the order tally writes them: the left half first, else in deck order."""
    info = deck.info
    x, y = info[a], info[b]
    return (a, b) if (x[2], x[1]) <= (y[2], y[1]) else (b, a)


def box_value(boxes: tuple[int, ...], marked: int) -> int:
    """The value of a row's first open box; a full row (no open box) keeps its last box's value."""
    return boxes[marked] if marked < len(boxes) else boxes[-1]


def pad_total(deck: Deck, marks: tuple[int, ...]) -> int:
    """A pad's score: the first open box of every upper row, minus the first open box of the lower half."""
    upper = 0
    for row, marked in zip(deck.rows, marks):  # the upper rows (the minus boxes come last in `marks`)
        upper += box_value(row.boxes, marked)
    return upper - box_value(deck.minus, marks[-1])
