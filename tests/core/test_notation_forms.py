"""Every game's notation is data (`NOTATION` in its `notation.py`, the contract's `notation`): every example of it
parses with the game's own reader, and the notation table of `docs/rules/<game>.md` says exactly what the data says
(form, meaning, examples), so `tally rules GAME --notation` and the document never disagree."""

from __future__ import annotations

import random
import re
from typing import Any, Callable

import pytest

from support import ROOT, tinygame
from support.array_helpers import documented_position
from support.splice_helpers import open_game
from tally.core import registry
from tally.core.engine import Table
from tally.core.games.splendor import LEVEL_CARDS, MANIFEST, SetupDealt
from tally.core.model import GameStarted, NotationError, NotationForm


def splendor_position() -> Any:
    spec = registry.get("splendor")
    table = Table(
        spec,
        GameStarted(
            seq=1, game="splendor", rules="1", seats=["ann", "ben"], mode="open", options={}, manifest=MANIFEST
        ),
    )
    table.apply(SetupDealt(seq=2, nobles=["w4b4", "b4g4", "g4r4"], decks=[list(cards) for cards in LEVEL_CARDS]))
    return table.state


def split_position() -> Any:
    from tally.store.recording.record import dealt, start_event

    spec, started = start_event("split", ["ann", "ben", "cy"], {}, "open")
    return dealt(spec, spec.start(started), random.Random(1))[1]


def tinygame_position() -> Any:
    spec = tinygame.SPEC
    return spec.start(
        GameStarted(
            seq=1,
            game="tinygame",
            rules="1",
            seats=["ann", "ben"],
            mode="open",
            options=spec.resolved_options({}),
            manifest=spec.manifest,
        )
    )


# the position each game's examples are read in (the one its rules document's notation section refers to)
POSITIONS: dict[str, Callable[[], Any]] = {
    "splendor": splendor_position,
    "split": split_position,
    "array": lambda: documented_position().state,
    "splice": lambda: open_game(hands=[["5", "5", "2", "3", "4"], ["9", "9", "6", "7", "8"]]).state,
}


def test_every_registered_game_has_a_position_to_read_its_examples_in() -> None:
    assert sorted(POSITIONS) == registry.names()


@pytest.mark.parametrize("game", registry.names())
def test_every_example_of_the_notation_parses(game: str) -> None:
    spec = registry.get(game)
    assert spec.notation and all(isinstance(form, NotationForm) for form in spec.notation)
    state = POSITIONS[game]()
    examples = [example for form in spec.notation for example in form.examples]
    assert len(examples) >= len(spec.notation), "every form has an example"
    for example in examples:
        parsed = spec.parse(state, example)
        assert not isinstance(parsed, NotationError), f"{example!r}: {parsed.render()}"
        assert parsed, example


def test_the_test_games_notation_parses_too() -> None:
    state = tinygame_position()
    for form in tinygame.SPEC.notation:
        for example in form.examples:
            assert not isinstance(tinygame.SPEC.parse(state, example), NotationError), example


def documented_forms(game: str) -> list[NotationForm]:
    """The notation table of `docs/rules/<game>.md` (`| form | meaning | example |`) read as forms: the form
    without its backticks, the meaning as written, the examples each in backticks (`\\|` is a `|`)."""
    doc = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    section = doc.split("## Move notation", 1)[1].split("\n## ", 1)[0]
    forms = []
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        assert len(cells) == 3, row
        forms.append(NotationForm(cells[0].replace("`", ""), cells[1], tuple(re.findall(r"`([^`]+)`", cells[2]))))
    return forms


@pytest.mark.parametrize("game", registry.names())
def test_the_rules_document_lists_the_notation_the_data_holds(game: str) -> None:
    assert documented_forms(game) == list(registry.get(game).notation)
