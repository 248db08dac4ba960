"""What is Array's own in docs/rules/array.md: its notation examples parse in the documented position, every
event field and view key is documented, and its SQL examples run on a library of simulated Array games. What
every rules document holds is checked in tests/core/test_rules_documents.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import msgspec
import pytest

from support import ROOT
from support.array_helpers import documented_position
from tally.core.games.array import ARRAY, EVENTS
from tally.core.model import NotationError

DOC = ROOT / "docs" / "rules" / "array.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def section(doc: str, heading: str) -> str:
    return doc.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_notation_examples_parse_in_the_documented_position(doc: str) -> None:
    game = documented_position()
    notation = section(doc, "## Move notation")
    rows = [line for line in notation.splitlines() if line.startswith("| `")]
    examples = [example for row in rows for example in re.findall(r"`([^`]+)`", row.rsplit("|", 2)[1])]
    assert len(examples) >= 20, examples
    for example in examples:
        parsed = ARRAY.parse(game.state, example)
        assert not isinstance(parsed, NotationError), parsed.render()
        assert parsed, example
    # the documented table is the position the examples refer to
    drawing = doc.split("(The examples of the notation below refer to this table.)")[0].rsplit("```", 2)[-2]
    for card in ("#1 br", "#2 bor", "#3 oy  open y", "#4 ry  open y", "#5 gr  open g"):
        assert card in drawing
    assert [c for c in game.state.placed] == ["br", "bor", "oy", "ry", "gr"]


def test_every_event_is_documented_with_its_fields(doc: str) -> None:
    events = section(doc, "## Events")
    for event in EVENTS:
        tag = event.__struct_config__.tag  # type: ignore[attr-defined]
        row = next((line for line in events.splitlines() if line.startswith(f"| `{tag}`")), None)
        assert row is not None, tag
        for field in event.__struct_fields__:
            if field not in ("seq", "at", "prev", "unit", "salt", "by"):  # the envelope (docs/format.md)
                assert f"`{field}`" in row, (tag, field)


def test_every_view_key_is_documented(doc: str) -> None:
    shown = section(doc, "## What `tally state` shows")
    keys = set(re.findall(r"^\| `([a-z_]+)` \|", shown, re.M))
    view = msgspec.to_builtins(ARRAY.view(documented_position().state, None))  # its keys, as --json prints them
    common = {"game", "mode", "viewer", "to_act", "expected", "players", "outcome"}
    assert set(view) - common <= keys, set(view) - common - keys
    assert keys <= set(view), keys - set(view)
    players = shown.split("| `players` |", 1)[1].split("\n", 1)[0]
    for key in view["players"][0]:
        assert key in players, key


def test_the_manifest_example_has_the_documented_fields(doc: str) -> None:
    example = section(doc, "### A manifest file for your box").split("```toml", 1)[1].split("```", 1)[0]
    manifest = tomllib.loads(example)
    assert set(manifest) == {"id", "colours", "cards"}
    # the example leaves out most colour cards ("# ... every other colour card ..."): only that is missing
    assert [p for p in ARRAY.check_manifest(manifest) if "colour cards; at least 36" not in p] == []


def test_the_sql_examples_run_on_simulated_games(doc: str, tmp_path: Path) -> None:
    from tally.store import library
    from tally.store.recording.simulate import simulate

    simulate("array", 6, 3, tmp_path / "games")
    db = tmp_path / "lib.duckdb"
    library.ingest(db, [tmp_path / "games"])
    examples = re.findall(r"```sql\n(.*?)```", doc, flags=re.S)
    assert len(examples) >= 4
    for example in examples:
        assert list(library.query(db, example).rows()), example


def test_the_example_log_lines_are_lines_of_the_fixture(doc: str) -> None:
    fixture = (DOC.parents[2] / "fixtures" / "games" / "array-table-by-hand-3p.jsonl").read_text(encoding="utf-8")
    examples = re.findall(r"```json\n(.*?)```", section(doc, "## Events"), flags=re.S)
    lines = [line for block in examples for line in block.splitlines() if line.strip()]
    assert len(lines) >= 2
    for line in lines:
        assert line + "\n" in fixture, line
