"""docs/rules/splendor.md documents every rule id and option of the Splendor spec, and nothing that does not exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tally.core
from tally.core.engine import Table
from tally.core.games.splendor import CARDS, GEMS, LEVEL_CARDS, MANIFEST, NOBLE_NAMES, NOBLES, SetupDealt
from tally.core.model import GameStarted, NotationError
from tally.core.registry import get

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules" / "splendor.md"
SPEC = get("splendor")

# a rule id in running text: not part of a longer dotted name or path (tally.core.games..., core/...)
SPLENDOR_ID = re.compile(r"(?<![\w./-])splendor\.[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*")
CORE_ID = re.compile(r"(?<![\w./-])core\.[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*")


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def squash(text: str) -> str:
    return " ".join(text.split())


def test_every_rule_id_has_a_heading_and_its_text(doc):
    assert SPEC.rules, "the spec lists no rules"
    flat = squash(doc)
    for rule in SPEC.rules:
        assert f"#### `{rule.id}`" in doc, f"{rule.id} has no heading in {DOC.name}"
        assert squash(rule.text) in flat, f"the text of {rule.id} in {DOC.name} differs from the spec's"


def test_every_option_is_documented_with_its_values_and_default(doc):
    assert {option.key for option in SPEC.options} == {"take-fewer", "stuck", "target"}
    for option in SPEC.options:
        heading = f"### `{option.key}`"
        assert heading in doc, f"option {option.key} has no heading"
        section = doc.split(heading, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        assert f"`{option.default}` (default)" in section or f"default `{option.default}`" in section, option.key
        for value in option.choices:
            assert f"`{value}`" in section, f"{option.key}={value} is not documented"
        if not option.choices:
            assert f"from {option.minimum} to {option.maximum}" in section, option.key


def test_the_doc_names_no_rule_id_that_does_not_exist(doc):
    mentioned = set(SPLENDOR_ID.findall(doc))
    assert {rule.id for rule in SPEC.rules} <= mentioned
    unknown = mentioned - {rule.id for rule in SPEC.rules}
    assert unknown == set(), f"{DOC.name} names rule ids the spec does not have: {sorted(unknown)}"

    core_ids = set()
    for path in Path(tally.core.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CORE_ID.fullmatch(node.value):
                core_ids.add(node.value)
    unknown = set(CORE_ID.findall(doc)) - core_ids
    assert unknown == set(), f"{DOC.name} names shared rule ids the engine does not have: {sorted(unknown)}"


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

    Regenerate it with `python tests/test_docs_rules.py --write` after the data changes."""
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
    assert CARD_LIST in doc, f"{DOC.name} lacks its card list; run python tests/test_docs_rules.py --write"
    assert doc[doc.index(CARD_LIST):] == card_list(), f"the card list in {DOC.name} is stale; run python tests/test_docs_rules.py --write"
    assert len(re.findall(r"^\| `[123]", card_list(), re.M)) == 90


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--write"]:
        text = DOC.read_text(encoding="utf-8")
        kept = text.split(CARD_LIST, 1)[0].rstrip("\n") + "\n\n"
        DOC.write_text(kept + card_list(), encoding="utf-8")
