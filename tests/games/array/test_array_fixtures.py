"""The bundled Array fixture games (`fixtures/games/array-*.jsonl`, recorded by `fixtures/record_array_games.py`
through the CLI).

Snapshots (one text file each under `__snapshots__/test_array_fixtures/`) pin what a person sees from `tally
replay`, `tally state` and `tally check` on each game; the key facts are also asserted outright, so a snapshot
update cannot quietly accept a wrong answer. The CLI runs as a real process from the project root with relative
paths. Re-recording the fixtures changes them (every later round is a new shuffle); then run
`pytest tests/games/array/test_array_fixtures.py --snapshot-update` and read the diff.
"""

from __future__ import annotations

import hashlib
from collections import Counter

import msgspec
import pytest

from support.bundled import ROOT, lines, rel, run, run_json

GAMES = ("array-open-4p", "array-table-3p")
TABLE = "array-table-3p"
SEATS = {"array-open-4p": ["ana", "ben", "cy", "dee"], "array-table-3p": ["ana", "ben", "cy"]}


@pytest.mark.parametrize("name", GAMES)
def test_replay(tally, text_snapshot, name: str) -> None:  # type: ignore[no-untyped-def]
    out = run(tally, "replay", rel(name))
    assert out == text_snapshot
    assert "game over:" in out and "winner:" in out and "round 2 is over" in out


@pytest.mark.parametrize("name", GAMES)
def test_state(tally, text_snapshot, name: str) -> None:  # type: ignore[no-untyped-def]
    out = run(tally, "state", rel(name))
    assert out == text_snapshot
    assert "game over:" in out


@pytest.mark.parametrize("name", GAMES)
def test_check(tally, text_snapshot, name: str) -> None:  # type: ignore[no-untyped-def]
    out = run(tally, "check", rel(name))
    assert out == text_snapshot
    last = (ROOT / rel(name)).read_bytes().splitlines()[-1]
    assert f"ok: {len(lines(name))} events, {verdict(out)}; " in out
    assert out.endswith(f"fingerprint {hashlib.sha256(last).hexdigest()}\n")


@pytest.mark.parametrize("name", GAMES)
def test_complete_multi_round_games(tally, name: str) -> None:  # type: ignore[no-untyped-def]
    events = lines(name)
    assert events[0]["game"] == "array" and events[0]["seats"] == SEATS[name]
    assert events[0]["mode"] == ("table" if name == TABLE else "open")
    report = run_json(tally, "check", rel(name))
    outcome = report["outcome"]
    assert report["ok"] and outcome["winners"] and outcome["details"]["rounds"] >= 3
    assert outcome["details"]["ended"] == "last-standing"
    assert len(outcome["details"]["eliminated"]) == len(SEATS[name]) - 1
    winner = outcome["winners"][0]
    assert outcome["scores"][winner] < 100 <= min(v for k, v in outcome["scores"].items() if k != winner)
    types = Counter(e["type"] for e in events)
    for kind in ("card_spliced", "sliced", "turn_ended", "action_given", "voided", "noted"):
        assert types[kind] >= 1, kind
    given = {e["card"] for e in events if e["type"] == "action_given"}
    assert "slam" in given and given - {"slam"}, "a Splatter and a SLAM are played"


def test_the_table_game_is_what_a_recorder_sees(tally) -> None:  # type: ignore[no-untyped-def]
    events = lines(TABLE)
    types = Counter(e["type"] for e in events)
    assert "round_dealt" not in types and types["starter_turned"] >= 4 and types["card_shown"] >= 3
    assert all("card" not in e for e in events if e["type"] == "card_drawn")
    assert all("drawn" not in e for e in events if e["type"] == "action_given")
    turned = [e["card"] for e in events if e["type"] == "starter_turned"]
    assert {"s1", "s2", "s3", "s4", "s5", "slam"} & set(turned), "an action card was turned over and went back"
    voided = [e for e in events if e["type"] == "voided"]
    target = next(e for e in events if e["seq"] == voided[0]["target"])
    assert target["type"] == "starter_turned" and "misread the starting card" in voided[0]["reason"]
    # what the log cannot know is unverifiable, and only that
    warnings = run_json(tally, "check", rel(TABLE))["warnings"]
    assert {w["rule"] for w in warnings} <= {"array.draw.only-if-stuck", "array.first.draw"}
    assert len(warnings) == types["card_drawn"] + types["turn_passed"]


def test_the_open_game_voids_a_splatter_to_the_wrong_player(tally) -> None:  # type: ignore[no-untyped-def]
    events = lines("array-open-4p")
    undo = next(e for e in events if e["type"] == "voided")
    wrong = next(e for e in events if e["seq"] == undo["target"])
    right = next(e for e in events if e["seq"] == undo["seq"] + 1)
    assert wrong["type"] == right["type"] == "action_given" and wrong["target"] != right["target"]
    assert wrong["drawn"] == right["drawn"] or wrong["card"] == "slam"  # the same top cards: the void restored the deck
    out = run(tally, "replay", rel("array-open-4p"))
    assert f"#{undo['seq']:<4} void #{undo['target']}: {undo['reason']}" in out


def test_state_as_a_player_hides_the_other_hands(tally) -> None:  # type: ignore[no-untyped-def]
    name = "array-open-4p"
    events = lines(name)
    at = next(e["seq"] for e in events if e["type"] == "card_spliced") + 3
    referee = run_json(tally, "state", rel(name), "--at", str(at))
    for viewer in SEATS[name]:
        view = run_json(tally, "state", rel(name), "--at", str(at), "--as", viewer)
        for player, full in zip(view["players"], referee["players"]):
            if player["name"] == viewer:
                assert player["hand"] == full["hand"] and "?" not in full["hand"]
            else:
                assert set(player["hand"]) <= {"?"} and len(player["hand"]) == len(full["hand"])


@pytest.mark.parametrize("name", GAMES)
def test_replay_to_stops_there(tally, name: str) -> None:  # type: ignore[no-untyped-def]
    total = len(lines(name))
    for to in (2, total // 2):
        doc = run_json(tally, "replay", rel(name), "--to", str(to))
        assert doc["seq"] == to and doc["outcome"] is None
        assert [s["seq"] for s in doc["steps"]] == list(range(1, to + 1))


def test_the_board_draws_the_arrays_as_trees(tally, text_snapshot) -> None:  # type: ignore[no-untyped-def]
    events = lines(TABLE)
    sliced = next(e["seq"] for e in events if e["type"] == "sliced")
    out = run(tally, "state", rel(TABLE), "--at", str(sliced))
    assert out == text_snapshot
    view = run_json(tally, "state", rel(TABLE), "--at", str(sliced))
    assert len(view["arrays"]) == 2 and "array 1 · " in out
    for array in view["arrays"]:
        assert f"array {array['root']} · {array['size']} card" in out
        for card in array["cards"]:
            assert f"#{card['n']}" in out
            if card["parent"]:
                assert f"─{card['via']}─ #{card['n']}" in out


def test_the_game_recorded_by_hand(tally) -> None:  # type: ignore[no-untyped-def]
    # a three-player table-mode game (threshold 50) typed move by move from docs/rules/array.md alone, while the
    # cards were dealt and played at a real table; the log keeps the events, which check and replay as recorded
    name = "array-table-by-hand-3p"
    events = lines(name)
    assert events[0]["mode"] == "table" and events[0]["options"]["threshold"] == "50"
    report = run_json(tally, "check", rel(name))
    assert report["ok"] and report["outcome"]["winners"] == ["ana"]
    assert report["outcome"]["details"]["rounds"] == 10 and report["outcome"]["details"]["eliminated"] == ["ben", "cy"]
    types = Counter(e["type"] for e in events)
    assert types["sliced"] >= 5 and types["card_shown"] >= 10 and types["action_given"] >= 10
    assert [e["card"] for e in events if e["type"] == "starter_turned"].count(
        "s3"
    ) == 2  # turned over twice, put back twice
    out = run(tally, "replay", rel(name))
    assert "game over: ana is the last player below 50 (36 points)" in out


def test_the_board_fits_80_columns_at_every_step() -> None:
    import io

    from rich.console import Console

    from tally.cli.boards.array import draw
    from tally.store.recording import record

    for name in GAMES + ("array-table-by-hand-3p",):
        pos, frames = record.replay(ROOT / rel(name))
        for frame in frames[1:]:
            view = msgspec.structs.replace(pos.spec.view(frame.state, None), seq=frame.seq)
            out = Console(file=io.StringIO(), width=80, color_system=None, markup=False, highlight=False)
            draw(view, out)
            text = out.file.getvalue()  # type: ignore[attr-defined]
            assert all(len(line) <= 80 for line in text.splitlines()), (name, frame.seq, text)


def verdict(checked: str) -> str:
    """What `tally check` says of a log that passed: all legal, or none illegal and how many events it could not
    judge (an unverifiable event is never called legal)."""
    doubtful = len({line.split()[0] for line in checked.splitlines() if " unverifiable: " in line})
    return "all legal" if not doubtful else f"none illegal, {doubtful} unverifiable"
