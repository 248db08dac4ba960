"""Every game's rules document, `docs/rules/<game>.md`, against the game's spec: every rule id under its own
heading with its exact text, every option with its values and default, every event named, and no rule id
(of the game or the kernel) that does not exist. What is particular to one game's document (its notation
examples, manifest, view) is checked in `tests/games/<game>/test_<game>_docs.py`."""

from __future__ import annotations

import ast
import re

import pytest

from support import ROOT
from tally.core import registry

GAMES = registry.names()
# a rule id in running text: not part of a longer dotted name or path (tally.core.games..., core/...)
ID_TAIL = r"\.[a-z][a-z0-9-]*(?:\.[a-z0-9-]+)*"
CORE_ID = re.compile(rf"(?<![\w./-])core{ID_TAIL}")


def document(game: str) -> str:
    return (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")


def squash(text: str) -> str:
    return " ".join(text.split())


def section(doc: str, heading: str) -> str:
    """The text under a `## ` heading, up to the next one."""
    assert f"\n{heading}\n" in doc, f"no section {heading!r}"
    return doc.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def kernel_rule_ids() -> set[str]:
    found = set()
    for path in (ROOT / "core").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and CORE_ID.fullmatch(node.value):
                found.add(node.value)
    return found


@pytest.mark.parametrize("game", GAMES)
def test_every_rule_id_has_a_heading_and_its_text(game: str) -> None:
    spec, doc = registry.get(game), document(game)
    flat = squash(doc)
    assert spec.rules, "the spec lists no rules"
    for rule in spec.rules:
        assert f"#### `{rule.id}`" in doc, f"{rule.id} has no heading in docs/rules/{game}.md"
        assert squash(rule.text) in flat, f"the text of {rule.id} in docs/rules/{game}.md differs from the spec's"


@pytest.mark.parametrize("game", GAMES)
def test_every_option_is_documented_with_its_values_and_default(game: str) -> None:
    spec, doc = registry.get(game), document(game)
    for option in spec.options:
        heading = f"### `{option.key}`"
        assert heading in doc, f"option {option.key} has no heading"
        text = doc.split(heading, 1)[1].split("\n## ", 1)[0].split("\n### ", 1)[0]
        assert f"`{option.default}` (default)" in text or f"default `{option.default}`" in text, option.key
        for value in option.choices:
            assert f"`{value}`" in text, f"{option.key}={value} is not documented"
        if not option.choices:
            assert f"from {option.minimum} to {option.maximum}" in text, option.key


@pytest.mark.parametrize("game", GAMES)
def test_the_doc_names_no_rule_id_that_does_not_exist(game: str) -> None:
    spec, doc = registry.get(game), document(game)
    ids = {rule.id for rule in spec.rules}
    mentioned = set(re.findall(rf"(?<![\w./-]){re.escape(game)}{ID_TAIL}", doc))
    unknown = mentioned - ids
    assert unknown == set(), f"docs/rules/{game}.md names rule ids the spec does not have: {sorted(unknown)}"
    unknown = set(CORE_ID.findall(doc)) - kernel_rule_ids()
    assert unknown == set(), f"docs/rules/{game}.md names kernel rule ids the engine does not have: {sorted(unknown)}"


@pytest.mark.parametrize("game", GAMES)
def test_every_event_is_named_in_the_events_section(game: str) -> None:
    spec, doc = registry.get(game), document(game)
    events = section(doc, "## Events")
    for kind in spec.events:
        assert f"`{kind.__struct_config__.tag}`" in events, kind  # type: ignore[attr-defined]
