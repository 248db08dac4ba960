"""What is Split's own in docs/rules/split.md: its notation examples parse, its log lines fold legally, every
view key and manifest field is documented, its manifest example is usable, and the default pad it describes is
the one in the data. What every rules document holds is checked in tests/core/test_rules_documents.py."""

from __future__ import annotations

import json
import random
import re
import tomllib
from typing import Union

import msgspec
import pytest

from support import ROOT
from tally.core.engine import Table
from tally.core.games.split import EVENTS, MANIFEST, SPLIT, components, data
from tally.core.model import GameStarted, NotationError
from tally.store.recording.record import dealt, start_event

DOC = ROOT / "docs" / "rules" / "split.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def squash(text: str) -> str:
    return " ".join(text.split())


def section(doc: str, heading: str) -> str:
    return doc.split(heading, 1)[1].split("\n## ", 1)[0]


def dealt_state():
    spec, started = start_event("split", ["ann", "ben", "cy"], {}, "open")
    return dealt(spec, spec.start(started), random.Random(1))[1]


def test_the_notation_examples_parse(doc):
    state = dealt_state()
    rows = [line for line in section(doc, "## Move notation").splitlines() if line.startswith("| `")]
    examples = [
        e.replace("\\|", "|") for row in rows for e in re.findall(r"`([^`]+)`", row.rstrip(" |").split(" | ")[-1])
    ]
    assert len(examples) >= 14, examples
    for example in examples:
        parsed = SPLIT.parse(state, example)
        assert not isinstance(parsed, NotationError), parsed.render()
        assert len(parsed) == 1, example
    # every verb of the notation has its row
    for usage in ("draw", "take", "match", "upgrade", "minus", "swap", "skip", "discard", "done", "deal"):
        assert any(row.startswith(f"| `{usage}") for row in rows), usage


def test_the_log_lines_fold_legally(doc):
    block = section(doc, "## Events").split("```\n", 2)[1]
    lines = [line for line in block.splitlines() if line.strip()]
    assert len(lines) >= 15
    decoder = msgspec.json.Decoder(Union[tuple(EVENTS)])  # type: ignore[valid-type]
    started = GameStarted(
        seq=1,
        game="split",
        rules="1",
        seats=["ann", "ben", "cy"],
        mode="table",
        options=SPLIT.resolved_options({}),
        manifest=MANIFEST,
    )
    table = Table(SPLIT, started)
    kinds = set()
    for seq, line in enumerate(lines, 2):
        event = msgspec.structs.replace(decoder.decode(line), seq=seq)
        kinds.add(type(event))
        rulings = table.check(event)
        assert all(r.verdict != "illegal" for r in rulings), (line, [r.render() for r in rulings])
        table.apply(event)
    assert len(kinds) >= 8
    events = section(doc, "## Events")
    for kind in EVENTS:
        assert f"`{kind.__struct_config__.tag}`" in events, kind


def test_every_view_key_is_documented(doc):
    view = msgspec.to_builtins(SPLIT.view(dealt_state(), None))  # its keys, as --json prints them
    text = section(doc, "## The view (`tally state --json`)")
    documented = set(re.findall(r"^\| `([a-z_]+)` \|", text, flags=re.M))
    assert set(view) - {"game", "mode", "viewer", "turn", "to_act", "expected", "players", "outcome"} <= documented
    assert set(view["players"][0]) <= documented


def test_the_manifest_fields_and_the_default_pad_are_the_datas(doc):
    text = section(doc, "## Components")
    for key in components.MANIFEST_KEYS:
        assert f"| `{key}` |" in text or f"| `{key}." in text, key
    for key in components.PAD_KEYS:
        assert f"| `pad.{key}` |" in text, key
    assert f"the boxes `{data.RANK_BOXES}`" in squash(text)
    assert f"`{MANIFEST}`" in doc
    example = tomllib.loads(text.split("```toml\n", 1)[1].split("```", 1)[0])
    assert SPLIT.check_manifest(json.loads(json.dumps(example))) == []
    deck = components.deck_for(example)
    assert deck.marks == (1, 2, 3) and deck.size == 104 and deck.minus[3] == 30
