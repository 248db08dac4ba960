"""The card picker's data (issue 34): what a caller may name by tapping pieces (`GET /api/games/{id}/names`,
`store/recording/picking.py`) and the pieces of each game's box (`GET .../pieces`).

Over a table where every seat names its own hidden cards, every move each seat made is one it could have entered
without typing: a button of its listing, a listed naming's choice, or a composed naming whose places hold the
move's pieces and whose text is the move. What a picker offers at a few positions of each game is snapshotted
(review every `--snapshot-update` diff); the routes answer the host, a seat and a watcher; what a seat is offered
is a function of its knowledge alone (tests/test_secrets.py serves the routes to twin games)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from support.serve_helpers import AUTH, bearer, client, run, seated, write_log
from tally.core import registry
from tally.core.engine import Table
from tally.core.model import Event, GameStarted
from tally.core.naming import Naming, compose, kind_of, listed, places
from tally.store.recording.picking import names, pieces
from tally.store.recording.service import seat_moves

GAMES = registry.names()


@pytest.fixture
def snapshot_json(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(JSONSnapshotExtension)


def positions(events: list[Event]) -> list[tuple[Any, Event]]:
    """Each event after the start with the state before it."""
    spec = registry.get(events[0].game)  # type: ignore[attr-defined]
    table = Table(spec, events[0])  # type: ignore[arg-type]
    found = []
    for event in events[1:]:
        found.append((table.state, event))
        table.apply(event)
    return found


def picks_for(naming: Naming, move: str) -> list[list[str]] | None:
    """The pieces a composed naming's move names in each place (read back from its text), or None when the move is
    no text of that naming."""
    if not move.startswith(naming.head + " "):
        return None
    words = move[len(naming.head) + 1 :].split(" ")
    picks: list[list[str]] = []
    for index, slot in enumerate(naming.slots):
        marker = slot.before.split(" ") if slot.before else []
        chosen: list[str] = []
        if marker and words[: len(marker)] == marker:
            words = words[len(marker) :]
        elif marker:
            picks.append(chosen)
            continue
        later = [s.before.split(" ")[0] for s in naming.slots[index + 1 :] if s.before]
        while words and len(chosen) < slot.most and words[0] not in later:
            chosen.append(words.pop(0))
        picks.append(chosen)
    return None if words else picks


def fits(naming: Naming, picks: list[list[str]]) -> bool:
    """Whether the picks are what the naming's places may take: their counts, and copies a place's pool still has
    (one copy named anywhere is gone from every place)."""
    used = Counter(code for chosen in picks for code in chosen)
    for slot, chosen in zip(naming.slots, picks):
        if not slot.least <= len(chosen) <= slot.most or any(code not in slot.pool for code in chosen):
            return False
        if any(used[code] > slot.pool[code] for code in chosen):
            return False
    return True


def same_picks(one: list[list[str]], other: list[list[str]]) -> bool:
    return len(one) == len(other) and all(Counter(a) == Counter(b) for a, b in zip(one, other))


def offered(spec: Any, state: Any, viewer: str | None, event: Event) -> str | None:
    """How `viewer`'s page offers `event`: `button`, `listed` (a choice of a listed naming: its move, or one naming
    the same pieces in another order, `draw 3 piracy` for `draw piracy 3`), `composed`, or None."""
    move = spec.format(event)
    report = names(spec, state, 0, viewer)
    fields, picks, _ = places(event, frozenset(piece.code for piece in spec.pieces(state)))
    for naming in report.namings:
        if naming.choices is None or naming.player != (getattr(event, "player", None) or None):
            continue
        if any(choice.move == move for choice in naming.choices):
            return "listed"
        if (
            naming.kind == kind_of(move)
            and [slot.name for slot in naming.slots] == list(fields)
            and any(same_picks(choice.picks, picks) for choice in naming.choices)
        ):
            return "listed"
    for naming in report.namings:
        if naming.choices is None:
            picks = picks_for(naming, move)
            if picks is not None and fits(naming, picks) and compose(naming, picks) == move:
                return "composed"
    if move in [spec.format(m) for m in seat_moves(spec, state, viewer)]:
        return "button"
    return None


@pytest.mark.parametrize("game", GAMES)
def test_every_move_of_a_seated_table_is_offered_to_the_seat_that_made_it(game: str) -> None:
    """Each seat's moves on its own page, each table entry on the host's (which enters what no seat may name): as a
    button, a listed choice or a composed naming; a hand, a draw and a reveal were among them."""
    spec = registry.get(game)
    ways: Counter[str] = Counter()
    kinds: dict[str, set[str]] = {}
    for seed in (1, 2):
        for state, event in positions(seated(game, seed)):
            move = spec.format(event)
            viewer = getattr(event, "player", None) or None
            way = offered(spec, state, viewer, event)
            assert way is not None, (
                f"{game} seed {seed} #{event.seq}: {move!r} is offered to {viewer or 'the host'} in no way"
            )
            ways[way] += 1
            kinds.setdefault(way, set()).add(kind_of(move))
    assert ways["listed"] and ways["composed"], ways
    assert {"hand"} <= kinds["composed"] or game == "splendor", kinds
    assert "reveal" in kinds["composed"] or game != "splendor", kinds


@pytest.mark.parametrize("game", GAMES)
def test_a_listed_naming_stands_for_listed_moves_and_names_their_pieces(game: str) -> None:
    """Every choice is a move of the caller's listing; its picks are pieces of the box named by the move; a naming
    has two choices or more, and a place's pool is every piece its choices name there."""
    spec = registry.get(game)
    for state, _ in positions(seated(game))[::7]:
        for viewer in (None, *state.seats):
            listing = {spec.format(m) for m in seat_moves(spec, state, viewer)}
            box = {piece.code for piece in spec.pieces(state)}
            for naming in names(spec, state, 0, viewer).namings:
                if naming.choices is None:
                    continue
                assert len(naming.choices) >= 2
                for choice in naming.choices:
                    assert choice.move in listing and choice.move.startswith(naming.head)
                    assert all(set(chosen) <= box for chosen in choice.picks)
                    assert all(code in choice.move for chosen in choice.picks for code in chosen)
                for i, slot in enumerate(naming.slots):
                    assert set(slot.pool) == {code for choice in naming.choices for code in choice.picks[i]}


def test_listed_namings_split_by_kind_player_and_the_fields_set() -> None:
    """A face-up reserve and a blind one are two namings; a lone move is no naming; a seat is no piece."""
    spec = registry.get("splendor")
    for state, event in positions(seated("splendor")):
        seat = getattr(event, "player", "")
        moves = spec.legal_moves(spec.conceal(state, seat)) if seat else []
        found = listed(spec.format, moves, [p.code for p in spec.pieces(state)])
        heads = [naming.head.split(": ")[-1] for naming in found if naming.kind == "reserve"]
        if "reserve" in heads and "reserve deck" in heads:
            break
    else:
        raise AssertionError("no face-up and blind reserves to choose from")
    assert listed(spec.format, moves[:1], [p.code for p in spec.pieces(state)]) == []
    splice = registry.get("splice")  # its seats are p1, p2, p3, and its box has purple map pieces p1 to p4
    for state, event in positions(seated("splice")):
        seat = getattr(event, "player", "")
        aimed = (
            [m for m in seat_moves(splice, state, seat) if kind_of(splice.format(m)) in ("spot", "skull")]
            if seat
            else []
        )
        if len(aimed) >= 2:
            break
    else:
        raise AssertionError("no Black Spot or Skull aimed at two seats")
    assert {"p1", "p2", "p3"} <= {piece.code for piece in splice.pieces(state)}
    assert not [n for n in names(splice, state, 0, seat).namings if n.kind in ("spot", "skull")]


def test_a_composed_naming_writes_its_head_then_each_places_words_and_pieces() -> None:
    spec = registry.get("split")
    events = seated("split")
    state = Table(spec, events[0]).state  # type: ignore[arg-type]
    (deal,) = spec.naming(state)
    assert deal.kind == "deal" and deal.player is None and [s.least for s in deal.slots] == [1]
    unseated = msgspec.structs.replace(state, seated=state.seats[:1])
    (deal,) = spec.naming(unseated)
    picks = [["5SR"], [], list(spec.naming(unseated)[0].slots[2].pool)[:9]]
    text = compose(deal, picks)
    assert text == f"deal 5SR | {state.seats[2]} " + " ".join(picks[2])
    parsed = spec.parse(unseated, text)
    assert isinstance(parsed, list) and parsed[0].row == "5SR" and parsed[0].hands == {state.seats[2]: picks[2]}


# --------------------------------------------------------------------------- what a picker offers, snapshotted


def first(game: str, kind: str, composed: bool) -> tuple[Any, str]:
    """The first position of a seated game where a seat is offered a naming of `kind`: its state and that seat."""
    spec = registry.get(game)
    for state, event in positions(seated(game)):
        viewer = getattr(event, "player", None) or state.seats[0]
        for naming in names(spec, state, 0, viewer).namings:
            if naming.kind == kind and (naming.choices is None) == composed:
                return state, viewer
    raise AssertionError(f"no {kind} naming in a seated {game}")


SNAPSHOTS = [
    ("split", "hand", True),
    ("split", "deal", True),
    ("split", "draw", False),
    ("array", "hand", True),
    ("array", "start", False),
    ("splendor", "reveal", True),
    ("splendor", "take", False),
    ("splice", "hand", True),
    ("splice", "draw", True),
    ("splice", "draw", False),
]


@pytest.mark.parametrize(
    ("game", "kind", "composed"), SNAPSHOTS, ids=[f"{g}-{k}-{'composed' if c else 'listed'}" for g, k, c in SNAPSHOTS]
)
def test_what_a_seat_may_name(snapshot_json, game: str, kind: str, composed: bool) -> None:  # type: ignore[no-untyped-def]
    spec = registry.get(game)
    state, viewer = first(game, kind, composed)
    report = names(spec, state, 0, viewer)
    assert msgspec.to_builtins(report) == snapshot_json


@pytest.mark.parametrize("game", GAMES)
def test_the_boxs_pieces_in_the_games_groups(snapshot_json, game: str) -> None:  # type: ignore[no-untyped-def]
    """Each piece once, in its groups, drawn as an SVG document that names it."""
    spec = registry.get(game)
    started = seated(game)[0]
    report = pieces(spec, Table(spec, started).state)  # type: ignore[arg-type]
    codes = [piece.code for piece in report.pieces]
    assert len(codes) == len(set(codes))
    for piece in report.pieces:
        root = ET.fromstring(piece.svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and piece.code in (root.attrib["aria-label"] + piece.svg)
        assert piece.group and all(piece.group)
    assert [[piece.code, piece.group] for piece in report.pieces] == snapshot_json


# --------------------------------------------------------------------------- the routes


def test_the_routes_answer_each_caller_its_own(tmp_path: Path) -> None:
    """The host is offered every seat's hand; a seat only its own; a watcher none; the pieces are everyone's."""
    events = seated("split")
    write_log(tmp_path / "g.jsonl", events[:3])  # the deal: every seat owes its hand

    async def scenario() -> None:
        async with client(tmp_path) as http:
            host = (await http.get("/api/games/g/names", headers=AUTH)).json()
            seat = events[0].seats[1]  # type: ignore[attr-defined]
            token = (await http.post("/api/games/g/join", json={"seat": seat}, headers=AUTH)).json()["token"]
            mine = (await http.get("/api/games/g/names", headers=bearer(token))).json()
            watcher = (await http.get("/api/games/g/names")).json()
            assert host["seq"] == mine["seq"] == 3
            owing = [n["player"] for n in host["namings"] if n["kind"] == "hand"]
            assert len(owing) >= 2 and seat in owing
            assert [n["player"] for n in mine["namings"]] == [seat]
            assert watcher["namings"] == []
            drawn = [(await http.get("/api/games/g/pieces", headers=h)).json() for h in (AUTH, bearer(token), {})]
            assert drawn[0] == drawn[1] == drawn[2] and len(drawn[0]["pieces"]) == 104

    run(scenario())
    assert isinstance(events[0], GameStarted)
