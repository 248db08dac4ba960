"""What is Splendor's own in docs/rules/splendor.md: its notation examples parse, and its list of every card and
noble is the data's. What every rules document holds is checked in tests/test_rules_documents.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tally.core.engine import Table
from tally.core.games.splendor import CARDS, GEMS, LEVEL_CARDS, MANIFEST, NOBLE_NAMES, NOBLES, SetupDealt
from tally.core.model import GameStarted, NotationError
from tally.core.registry import get

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules" / "splendor.md"
SPEC = get("splendor")


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_notation_examples_parse(doc):
    table = Table(
        SPEC, GameStarted(seq=1, game="splendor", rules="1", seats=["ann", "ben"], mode="open", options={}, manifest=MANIFEST)
    )
    table.apply(SetupDealt(seq=2, nobles=["w4b4", "b4g4", "g4r4"], decks=[list(cards) for cards in LEVEL_CARDS]))
    section = doc.split("## Move notation", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    examples = [example for row in rows for example in re.findall(r"`([^`]+)`", row.rsplit("|", 2)[1])]
    assert len(examples) >= 15, examples
    for example in examples:
        parsed = SPEC.parse(table.state, example)
        assert not isinstance(parsed, NotationError), parsed.render()
        assert parsed, example


# --------------------------------------------------------------------------- every card and noble, from the data

CARD_LIST = "## Every card and noble"
COLOUR_NAME = dict(zip(GEMS, ("white", "blue", "green", "red", "black")))


def card_list() -> str:
    """The section of the rules document that lists every card and noble with its code, from the card data.

    Regenerate it with `python tests/test_splendor_docs.py --write` after the data changes."""
    lines = [
        CARD_LIST,
        "",
        "Every card and noble of the base game with the code tally knows it by (generated from",
        "`core/games/splendor/data.py`; a test keeps this list and the data in step). Find a card by its level,",
        "its bonus colour and its points, then its cost. The code is what moves and reveals name; a unique",
        "start of it is enough where only a few cards are possible (`buy 1k0-w1` when one face-up card starts so).",
    ]
    for level, cards in enumerate(LEVEL_CARDS, 1):
        lines += ["", f"### Level {level} ({len(cards)} cards)", "", "| code | bonus | points | cost |", "|---|---|---|---|"]
        for code in sorted(cards, key=lambda c: (GEMS.index(c[1]), c[2], c)):
            card = CARDS[code]
            cost = ", ".join(f"{n} {COLOUR_NAME[GEMS[i]]}" for i, n in enumerate(card.cost) if n)
            lines.append(f"| `{code}` | {COLOUR_NAME[GEMS[card.bonus]]} | {card.points} | {cost} |")
    lines += ["", f"### Nobles ({len(NOBLES)}, 3 points each)", "", "| code | requires bonuses | name on the tile |",
              "|---|---|---|"]
    for code, need in NOBLES.items():
        requires = ", ".join(f"{n} {COLOUR_NAME[GEMS[i]]}" for i, n in enumerate(need) if n)
        lines.append(f"| `{code}` | {requires} | {NOBLE_NAMES[code]} |")
    return "\n".join(lines) + "\n"


def test_the_doc_lists_every_card_and_noble_from_the_data(doc):
    assert CARD_LIST in doc, f"{DOC.name} lacks its card list; run python tests/test_splendor_docs.py --write"
    assert doc[doc.index(CARD_LIST):] == card_list(), f"the card list in {DOC.name} is stale; run python tests/test_splendor_docs.py --write"
    assert len(re.findall(r"^\| `[123]", card_list(), re.M)) == 90


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        text = DOC.read_text(encoding="utf-8")
        kept = text.split(CARD_LIST, 1)[0].rstrip("\n") + "\n\n"
        DOC.write_text(kept + card_list(), encoding="utf-8")
