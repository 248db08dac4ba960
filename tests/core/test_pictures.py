"""Pictures of a board (`core/games/<game>/picture.py`): every bundled game drawn step by step.

Over every step of every bundled game, drawn for the referee, and every other step for one seat in turn (the
seats take turns, so every seat's view is drawn all through the game): the SVG parses, holds exactly the card
codes its view shows (read from the view here, independently of the drawing code), draws as many card backs as
the view hides, names no hidden card, is accessible and sized for a phone. One golden picture per game is kept
as an `.svg` snapshot (update with `pytest tests/core/test_pictures.py --snapshot-update` and look at the picture).
"""

from __future__ import annotations

import importlib
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import msgspec
import pytest

from support import ROOT
from support.bundled import SvgSnapshot
from support.views import SHOWN
from tally.core import registry, svg
from tally.core.registry import GAMES
from tally.store.recording import record

FIXTURES = sorted(p.stem for p in (ROOT / "fixtures" / "games").glob("*.jsonl"))
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def svg_snapshot(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(SvgSnapshot)


def picture(game: str) -> Any:
    """The game's picture, reached through the contract (`spec.picture` is `picture.draw`)."""
    return registry.get(game).picture


@cache
def frames(name: str) -> tuple[Any, list[Any]]:
    position, steps = record.replay(ROOT / "fixtures" / "games" / f"{name}.jsonl")
    return position.spec, steps


# --------------------------------------------------------------------------- what a picture draws, read from the SVG


def drawn(root: ET.Element) -> tuple[Counter[str], int]:
    codes = Counter(e.attrib["data-card"] for e in root.iter() if "data-card" in e.attrib)
    backs = sum(int(e.attrib["data-count"]) for e in root.iter(f"{NS}g") if e.attrib.get("class") == "card-back")
    return codes, backs


def titles(root: ET.Element) -> str:
    """What the cards' titles say (the document's own title repeats the view's `expected`, which is not ours)."""
    cards = [e for e in root.iter(f"{NS}g") if e.attrib.get("class") in ("card", "card-back")]
    return "\n".join(title.text or "" for e in cards for title in e.iter(f"{NS}title"))


def check_picture(game: str, view: Any, full: Any) -> str:
    document = picture(game)(view)
    root = ET.fromstring(document)
    assert root.tag == f"{NS}svg"
    assert root.attrib["role"] == "img" and root.attrib["aria-label"]
    assert root.attrib["width"] == str(svg.WIDTH) and root.attrib["viewBox"].startswith(f"0 0 {svg.WIDTH} ")
    height = float(root.attrib["height"])
    sizes = [float(e.attrib["font-size"]) for e in root.iter(f"{NS}text")]
    assert min(sizes) >= svg.SMALL, "text smaller than 11 px"
    for e in root.iter():
        if e.attrib.get("class") in ("card", "card-back"):
            assert e.find(f"{NS}title") is not None, f"a card without a title: {e.attrib}"
        for key in ("x", "y", "width", "height"):
            if key in e.attrib and e.tag != f"{NS}svg":
                value = float(e.attrib[key])
                limit = svg.WIDTH if key in ("x", "width") else height
                assert -0.01 <= value <= limit + 0.01, f"{e.tag} {key}={value} outside the picture"
    codes, backs = drawn(root)
    expected, hidden = SHOWN[game](view)
    assert codes == expected, (f"drawn but not shown: {codes - expected}", f"shown but not drawn: {expected - codes}")
    assert backs == hidden
    # a card the referee sees but this seat may not is named by no card's title (codes of one or two letters,
    # like a coin's value, are also plain words and numbers in other titles: the count above covers those)
    secret = {code for code in SHOWN[game](full)[0] if len(code) >= 3} - set(expected)
    said = titles(root)
    for code in secret:
        assert not re.search(rf"(?<![\w-]){re.escape(code)}(?![\w-])", said), (
            f"{code} hidden from {view.viewer} but named"
        )
    return document


@pytest.mark.parametrize("name", FIXTURES)
def test_every_step_is_drawn_as_its_view_shows_it(name: str) -> None:
    spec, steps = frames(name)
    seats = [player.name for player in spec.view(steps[0].state, None).players]
    for number, step in enumerate(steps):
        full = spec.view(step.state, None)
        check_picture(spec.name, full, full)
        if number % 2 == 0 or number == len(steps) - 1:  # every other step is enough to take each seat through the game
            check_picture(spec.name, spec.view(step.state, seats[number // 2 % len(seats)]), full)


@pytest.mark.parametrize("name", FIXTURES)
def test_a_picture_is_the_same_bytes_every_time(name: str) -> None:
    spec, steps = frames(name)
    seat = spec.view(steps[-1].state, None).players[-1].name
    for step in (steps[len(steps) // 2], steps[-1]):
        view = spec.view(step.state, seat)
        first = picture(spec.name)(view)
        assert picture(spec.name)(view) == first
        assert first.endswith("</svg>\n") and "\n" not in first[:-1]


def test_every_game_has_a_picture() -> None:
    assert sorted(GAMES) == sorted(SHOWN)
    for game in GAMES:
        assert picture(game) is importlib.import_module(f"tally.core.games.{game}.picture").draw


def test_text_is_escaped_and_numbers_are_stable() -> None:
    element = svg.element("text", {"x": 1.5, "y": 2.0, "data_card": "a\"<b>&'", "skip": None}, svg.escape("<&>"))
    assert element == '<text x="1.5" y="2" data-card="a&quot;&lt;b&gt;&amp;&#39;">&lt;&amp;&gt;</text>'
    assert svg.number(1 / 3) == "0.33" and svg.number(10.0) == "10" and svg.number(-2.5) == "-2.5"
    ET.fromstring(svg.document(100, 50, 'a "label" & <more>', [svg.text(1, 12, "R&D <ok>")]))


def test_a_hostile_name_stays_text() -> None:
    spec, steps = frames("splendor-2p")
    view = spec.view(steps[-1].state, None)
    hostile = msgspec.structs.replace(view.players[0], name='</text><script>alert("x")</script>&')
    view = msgspec.structs.replace(view, players=[hostile, *view.players[1:]])
    root = ET.fromstring(picture("splendor")(view))
    assert not list(root.iter(f"{NS}script"))
    assert any("<script>" in (e.text or "") for e in root.iter(f"{NS}text"))


def test_every_colour_carries_its_letter() -> None:
    spec, steps = frames("array-open-4p")
    view = spec.view(steps[-1].state, None)
    root = ET.fromstring(picture("array")(view))
    for card in root.iter(f"{NS}g"):
        code = card.attrib.get("data-card", "")
        if card.attrib.get("class") == "card" and code.isalpha() and code != "slam":
            letters = [t.text for t in card.iter(f"{NS}text")]
            assert letters == list(code), (code, letters)


GOLDEN = [
    ("splendor-table-3p", 75, "ben"),
    ("split-table-4p", 240, "ana"),
    ("array-table-3p", 175, None),
    ("splice-open-4p", 150, "cy"),
]


@pytest.mark.parametrize(("name", "step", "seat"), GOLDEN, ids=[g[0].split("-")[0] for g in GOLDEN])
def test_golden_picture(svg_snapshot, name: str, step: int, seat: str | None) -> None:
    spec, steps = frames(name)
    view = spec.view(steps[step].state, seat)
    document = check_picture(spec.name, view, spec.view(steps[step].state, None))
    assert document == svg_snapshot


# --------------------------------------------------------------------------- tally state --svg, tally replay --svg


def test_state_svg_writes_the_seats_picture(tally, tmp_path: Path) -> None:
    log = ROOT / "fixtures" / "games" / "split-table-4p.jsonl"
    spec, steps = frames("split-table-4p")
    out = tmp_path / "board.svg"
    result = tally("state", str(log), "--as", "ana", "--at", "120", "--svg", str(out))
    assert result.exit_code == 0, result.stderr
    assert result.stdout == f"{out}: the table after event 120, as ana sees it\n"
    step = next(s for s in steps if s.seq == 120)
    view = spec.view(step.state, "ana")
    document = out.read_text(encoding="utf-8")
    assert ET.fromstring(document).attrib["aria-label"].startswith("Split") and "as ana sees it" in document
    assert drawn(ET.fromstring(document)) == SHOWN["split"](view)
    # --json still prints the view, and writes the same picture
    again = tmp_path / "again.svg"
    shown = tally("state", str(log), "--as", "ana", "--at", "120", "--svg", str(again), "--json")
    assert shown.exit_code == 0 and json.loads(shown.stdout)["viewer"] == "ana"
    assert again.read_bytes() == out.read_bytes()


def test_replay_svg_writes_one_picture_per_event(tally, tmp_path: Path) -> None:
    log = ROOT / "fixtures" / "games" / "splendor-2p.jsonl"
    spec, steps = frames("splendor-2p")
    result = tally("replay", str(log), "--svg", str(tmp_path / "pictures"))
    assert result.exit_code == 0, result.stderr
    names = sorted(p.name for p in (tmp_path / "pictures").iterdir())
    assert names == [f"{step.seq:04d}.svg" for step in steps]
    assert (
        result.stdout == f"{tmp_path / 'pictures'}: {len(steps)} pictures, one per event ({names[0]} to {names[-1]})\n"
    )
    for step in (steps[0], steps[len(steps) // 2], steps[-1]):
        root = ET.fromstring((tmp_path / "pictures" / f"{step.seq:04d}.svg").read_text(encoding="utf-8"))
        assert drawn(root) == SHOWN["splendor"](spec.view(step.state, None))
    last = tmp_path / "last.svg"
    assert tally("state", str(log), "--svg", str(last)).exit_code == 0
    assert last.read_bytes() == (tmp_path / "pictures" / names[-1]).read_bytes()


def test_an_svg_that_cannot_be_written_is_one_line(tally, tmp_path: Path) -> None:
    log = ROOT / "fixtures" / "games" / "splendor-2p.jsonl"
    result = tally("state", str(log), "--svg", str(tmp_path / "missing" / "board.svg"))
    assert result.exit_code == 3 and result.stdout == ""
    assert result.stderr.startswith("tally: ") and result.stderr.count("\n") == 1 and "No such file" in result.stderr


@pytest.mark.parametrize("name", [f for f in FIXTURES if f.startswith("splendor")])
def test_a_finished_splendor_game_says_no_round_is_on(name: str) -> None:
    """The last round is announced while it is played, and no longer once the game is over."""
    spec, steps = frames(name)
    said = {
        index: " ".join(
            t.text or "" for t in ET.fromstring(picture("splendor")(spec.view(step.state, None))).iter(f"{NS}text")
        )
        for index, step in enumerate(steps)
    }
    over = [index for index, step in enumerate(steps) if spec.outcome(step.state) is not None]
    playing_last = [
        index for index, step in enumerate(steps) if step.state.end_triggered and spec.outcome(step.state) is None
    ]
    assert over and all("last round is on" not in said[index] for index in over)
    assert all("the last round is on" in said[index] for index in playing_last)
