"""docs/rules/splendor.md documents every rule id and option of the Splendor spec, and nothing that does not exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tally.core
from tally.core.engine import Table
from tally.core.games.splendor import LEVEL_CARDS, MANIFEST, SetupDealt
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
