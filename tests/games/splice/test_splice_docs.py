"""What is Splice's own in docs/rules/splice.md: every manifest key and view key is documented, and its notation
examples parse. What every rules document holds is checked in tests/core/test_rules_documents.py."""

from __future__ import annotations

import re

import msgspec
import pytest

from support import ROOT
from support.splice_helpers import open_game
from tally.core.games.splice import DEFAULT, DEFAULT_BOX, EVENTS, SPLICE, CoinsPlayed, MapsBought, PiracyPlayed
from tally.core.games.splice.components import PRICE, read_set
from tally.core.model import NotationError

DOC = ROOT / "docs" / "rules" / "splice.md"


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
    view = msgspec.to_builtins(SPLICE.view(game.state, None))  # its keys, as --json prints them
    for key in view:
        assert f"`{key}`" in view_section, key
    for key in view["players"][0]:
        assert f"`{key}`" in view_section, key


def notation_examples(doc: str) -> list[str]:
    section = doc.split("## Move notation", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [example for row in rows for example in re.findall(r"`([^`]+)`", row.rsplit("|", 2)[1])]


def test_the_notation_examples_parse(doc: str) -> None:
    game = open_game(hands=[["5", "5", "2", "3", "4"], ["9", "9", "6", "7", "8"]])
    examples = notation_examples(doc)
    assert len(examples) >= 30, examples
    for example in examples:
        parsed = SPLICE.parse(game.state, example)
        assert not isinstance(parsed, NotationError), parsed.render()
        assert parsed, example


def test_the_notation_examples_name_possible_sets_and_payments(doc: str) -> None:
    # issue 17: `buy 2 pay 9-10-w11 10-10` named a run the box cannot make (there is no 11)
    game = open_game(hands=[["5", "5", "2", "3", "4"], ["9", "9", "6", "7", "8"]])
    values = DEFAULT_BOX.values
    payments = 0
    for example in notation_examples(doc):
        for event in SPLICE.parse(game.state, example):
            forms = list(getattr(event, "sets", None) or getattr(event, "paid", None) or [])
            if isinstance(event, PiracyPlayed) and event.plunder not in ("map", "double"):
                forms = [event.plunder]
            sets = [read_set(form, values) for form in forms]
            assert all(not isinstance(found, str) for found in sets), (example, sets)
            if isinstance(event, MapsBought):
                payments += 1
                worth = [found.value * (2 if event.doubles else 1) for found in sets]  # type: ignore[union-attr]
                assert sum(worth) >= PRICE * event.count, example
                assert all(sum(worth) - w < PRICE * event.count for w in worth), f"{example}: a set is not needed"
            if isinstance(event, CoinsPlayed):
                assert event.sets or event.doubles, example
    assert payments >= 3
