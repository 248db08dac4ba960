"""The bundled Split games (`fixtures/games/split-*.jsonl`, recorded by `fixtures/record_split_games.py`
through the CLI): snapshots of what a person sees from `tally replay`, `tally state` and `tally check`, with
the key facts also asserted outright so a snapshot update cannot quietly accept a wrong answer.

Re-recording the games changes their `at` times and so every fingerprint; then run
`pytest tests/games/split/test_split_fixtures.py --snapshot-update` and read the diff.
"""

from __future__ import annotations

import hashlib

import pytest

from support.bundled import ROOT, lines, rel, run, run_json
from tally.core.games.split import unlocated
from tally.store.logs import log as logfile
from tally.store.recording import record

GAMES = ("split-3p", "split-table-4p")
TABLE = "split-table-4p"
RECORDER = "ana"
EVENTS = {"split-3p": 267, "split-table-4p": 483}
SEATS = {"split-3p": ["ana", "ben", "cy"], "split-table-4p": ["ana", "ben", "cy", "dee"]}


# --------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize("name", GAMES)
def test_replay(tally, text_snapshot, name: str) -> None:
    out = run(tally, "replay", rel(name))
    assert out == text_snapshot
    assert out.count(" ends: ") == 3 and "game over:" in out
    outcome = run_json(tally, "check", rel(name))["outcome"]
    winners = outcome["winners"]
    assert (
        f"{'winners' if len(winners) > 1 else 'winner'}: {', '.join(winners)}" in out
    )  # a shared victory in the plural


@pytest.mark.parametrize("name", GAMES)
def test_state(tally, text_snapshot, name: str) -> None:
    out = run(tally, "state", rel(name))
    assert out == text_snapshot
    assert "score pads" in out and "game over:" in out


@pytest.mark.parametrize("name", GAMES)
def test_check(tally, text_snapshot, name: str) -> None:
    out = run(tally, "check", rel(name))
    assert out == text_snapshot
    last = (ROOT / rel(name)).read_bytes().splitlines()[-1]
    assert f"ok: {EVENTS[name]} events, {verdict(out)}" in out
    assert out.endswith(f"fingerprint {hashlib.sha256(last).hexdigest()}\n")


def test_table_state_mid_round_as_the_recorder_and_as_another(tally, text_snapshot) -> None:
    at = 120
    as_ana = run(tally, "state", rel(TABLE), "--at", str(at), "--as", "ana")
    as_ben = run(tally, "state", rel(TABLE), "--at", str(at), "--as", "ben")
    assert as_ana == text_snapshot(name="as-ana") and as_ben == text_snapshot(name="as-ben")
    assert "hidden" in as_ana and "hidden" in as_ben


# --------------------------------------------------------------------------- facts


@pytest.mark.parametrize("name", GAMES)
def test_check_json_and_the_rounds(tally, name: str) -> None:
    report = run_json(tally, "check", rel(name))
    raw = (ROOT / rel(name)).read_bytes()
    assert report["ok"] is True and report["game"] == "split"
    assert report["events"] == EVENTS[name] == len(raw.splitlines())
    outcome = report["outcome"]
    assert set(outcome["scores"]) == set(SEATS[name]) and outcome["winners"]
    assert len(outcome["details"]["rounds"]) == 3
    # the final scores are the sums of the rounds' scores
    assert {p: sum(r[p] for r in outcome["details"]["rounds"]) for p in SEATS[name]} == outcome["scores"]
    view = run_json(tally, "state", rel(name))
    assert [r["round"] for r in view["results"]] == [1, 2, 3]
    assert {r["ended"] for r in view["results"]} <= {"out", "pile"}


@pytest.mark.parametrize("name", GAMES)
def test_games_show_what_they_are_for(name: str) -> None:
    events = lines(name)
    started = events[0]
    assert started["seats"] == SEATS[name] and started["mode"] == ("table" if name == TABLE else "open")
    types = [e["type"] for e in events]
    for kind in ("row_taken", "match_played", "match_upgraded", "minus_marked", "matches_swapped", "bonus_declined"):
        assert types.count(kind) >= 2, kind
    assert types.count("round_dealt") == 3
    if name == "split-3p":
        assert types.count("voided") == 1 and types.count("noted") == 1
        undo = next(e for e in events if e["type"] == "voided")
        assert undo["target"] == undo["seq"] - 1 and undo["reason"]


def test_the_table_game_keeps_the_others_hands_unknown(tally) -> None:
    events = lines(TABLE)
    deals = [e for e in events if e["type"] == "round_dealt"]
    assert all(set(d.get("hands", {})) == {RECORDER} and "pile" not in d for d in deals)
    draws = [e for e in events if e["type"] == "card_drawn"]
    assert all(("card" in e) == (e["player"] == RECORDER) for e in draws)
    assert sum(1 for e in draws if "card" not in e) >= 50
    # every fold state: the unknown cards are exactly the cards not yet located; the recorder's hand is known
    log = logfile.read(ROOT / rel(TABLE))
    _, frames = record.replay(ROOT / rel(TABLE))
    most_hidden = 0
    for frame in frames[1:]:
        state = frame.state
        if not state.round:
            continue
        hidden = sum(p.hand.unknown for p in state.players) + state.pile_size
        assert hidden == len(unlocated(state))
        assert state.players[0].hand.unknown == 0
        most_hidden = max(most_hidden, max(p.hand.unknown for p in state.players[1:]))
    assert most_hidden >= 9 and log.started.mode == "table"
    # what hangs on a hidden hand is unverifiable, never illegal
    warnings = run_json(tally, "check", rel(TABLE))["warnings"]
    assert warnings and {w["rule"] for w in warnings} == {"split.row.playable"}


def test_views_of_the_table_game_show_only_counts_for_the_others(tally) -> None:
    for at in (60, 200, 400):
        for viewer in SEATS[TABLE]:
            view = run_json(tally, "state", rel(TABLE), "--at", str(at), "--as", viewer)
            for entry in view["players"]:
                if entry["name"] != viewer:
                    assert entry["hand"] == [] and entry["hidden"] == entry["hand_size"]
        full = run_json(tally, "state", rel(TABLE), "--at", str(at))
        ana = next(p for p in full["players"] if p["name"] == RECORDER)
        assert ana["hidden"] == 0 and len(ana["hand"]) == ana["hand_size"]


def test_the_open_game_hides_each_hand_from_the_others(tally) -> None:
    at = 40
    full = run_json(tally, "state", rel("split-3p"), "--at", str(at))
    owed = {full["must_play"]}  # a card taken from the row is public until it is played
    hands = {p["name"]: set(p["hand"]) - owed for p in full["players"]}
    for viewer in SEATS["split-3p"]:
        text = run(tally, "state", rel("split-3p"), "--at", str(at), "--as", viewer, "--json")
        for owner, cards in hands.items():
            shown = {c for c in cards if f'"{c}"' in text}
            assert shown == (cards if owner == viewer else set()), (viewer, owner)


def verdict(checked: str) -> str:
    """What `tally check` says of a log that passed: all legal, or none illegal and how many events it could not
    judge (an unverifiable event is never called legal)."""
    doubtful = len({line.split()[0] for line in checked.splitlines() if " unverifiable: " in line})
    return "all legal" if not doubtful else f"none illegal, {doubtful} unverifiable"
