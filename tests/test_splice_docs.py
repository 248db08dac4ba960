"""What is Splice's own in docs/rules/splice.md: every manifest key and view key is documented, and its notation
examples parse. What every rules document holds is checked in tests/test_rules_documents.py."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tally.core.games.splice import DEFAULT, EVENTS, SPLICE
from tally.core.model import NotationError

from splice_helpers import open_game

DOC = Path(__file__).resolve().parents[1] / "docs" / "rules" / "splice.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def test_every_manifest_key_event_and_view_key_is_documented(doc: str) -> None:
    components = doc.split("## Components", 1)[1].split("\n## ", 1)[0]
    for key in DEFAULT:
        assert f"| `{key}` |" in components, key
    events = doc.split("## Events", 1)[1].split("\n## ", 1)[0]
    for event in EVENTS:
        assert f"`{event.__struct_config__.tag}`" in events, event  # type: ignore[attr-defined]
    view_section = doc.split("## The view", 1)[1].split("\n## ", 1)[0]
    game = open_game()
    view = SPLICE.view(game.state, None)
    for key in view:
        assert f"`{key}`" in view_section, key
    for key in view["players"][0]:
        assert f"`{key}`" in view_section, key


def test_the_notation_examples_parse(doc: str) -> None:
    game = open_game(hands=[["5", "5", "2", "3", "4"], ["9", "9", "6", "7", "8"]])
    section = doc.split("## Move notation", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    examples = [example for row in rows for example in re.findall(r"`([^`]+)`", row.rsplit("|", 2)[1])]
    assert len(examples) >= 30, examples
    for example in examples:
        parsed = SPLICE.parse(game.state, example)
        assert not isinstance(parsed, NotationError), parsed.render()
        assert parsed, example
