"""The bundled Splice games (`fixtures/games/splice-*.jsonl`, recorded by `fixtures/record_splice_games.py`
through the CLI): snapshots of what a person sees from `tally replay`, `tally state` and `tally check`, and
the facts each game is there to show, asserted outright.

Re-recording the fixtures plays new games (tally deals the chance of an open game); then run
`pytest tests/games/splice/test_splice_fixtures.py --snapshot-update` and read the diff.
"""

from __future__ import annotations

import hashlib

import pytest

from support.bundled import ROOT, lines, rel, run, run_json

GAMES = ("splice-open-2p", "splice-open-4p", "splice-table-3p")
TABLE = "splice-table-3p"
SEATS = {
    "splice-open-2p": ["ana", "ben"],
    "splice-open-4p": ["ana", "ben", "cy", "dee"],
    "splice-table-3p": ["ana", "ben", "cy"],
}


@pytest.mark.parametrize("name", GAMES)
def test_replay(tally, text_snapshot, name: str) -> None:
    out = run(tally, "replay", rel(name))
    assert out == text_snapshot
    assert "game over:" in out and "winner:" in out and "Hurricane!" in out


@pytest.mark.parametrize("name", GAMES)
def test_state_and_check(tally, text_snapshot, name: str) -> None:
    state = run(tally, "state", rel(name))
    check = run(tally, "check", rel(name))
    assert state + check == text_snapshot
    last = (ROOT / rel(name)).read_bytes().splitlines()[-1]
    assert check.endswith(f"fingerprint {hashlib.sha256(last).hexdigest()}\n")
    assert f"ok: {len(lines(name))} events, {verdict(check)}" in check


@pytest.mark.parametrize("name", GAMES)
def test_each_game_is_won_with_a_map_and_shows_the_interrupts(tally, name: str) -> None:
    events = lines(name)
    assert events[0]["seats"] == SEATS[name] and events[0]["mode"] == ("table" if name == TABLE else "open")
    report = run_json(tally, "check", rel(name))
    assert report["ok"] and report["outcome"]["winners"] and report["outcome"]["details"]["ended"] == "map"
    types = [e["type"] for e in events]
    assert types.count("map_laid") == 1 and types[-1] == "map_laid"
    assert "piracy_played" in types and "blind_drawn" in types
    hurricanes = [e for e in events if e["type"] == "cards_drawn" and e["cards"][-1] == "hurricane"]
    assert hurricanes and ("disks_redrawn" if name == TABLE else "disks_dealt") in types
    view = run_json(tally, "state", rel(name))
    assert view["phase"] == "over" and len(view["map_laid"]) == 4
    if name == "splice-open-2p":
        undo = next(e for e in events if e["type"] == "voided")
        assert undo["target"] == undo["seq"] - 1 and types.count("noted") == 1


def test_the_table_game_is_what_a_recorder_saw(tally) -> None:
    events = lines(TABLE)
    types = [e["type"] for e in events]
    assert types[1:3] == ["disks_chosen", "cards_dealt"] and "setup_dealt" not in types and "card_picked" not in types
    assert all(c is None or c == "hurricane" for e in events if e["type"] == "cards_drawn" for c in e["cards"])
    assert all(e.get("card") is None for e in events if e["type"] == "blind_drawn")
    storms = {e["seq"] for e in events if e["type"] == "cards_drawn" and e["cards"][-1] == "hurricane"}
    assert len(storms) >= 3 and types.count("disks_redrawn") == len(storms)
    # after each Hurricane the very next event is the reshuffle: nothing else was legal
    for seq in storms:
        assert events[seq]["type"] == "disks_redrawn"
        view = run_json(tally, "state", rel(TABLE), "--at", str(seq))
        assert view["phase"] == "storm" and view["to_act"] == "table" and view["pending"]["by"] == "table"
        assert view["pending"]["why"].startswith("Hurricane: ")
    # the recorder never saw a hand: every hand is unknown to the log, disks too until shown
    middle = run_json(tally, "state", rel(TABLE), "--at", str(len(events) // 2))
    assert all(p["hand"] == ["?"] * 5 and set(p["map_pieces"]) <= {"?"} and p["disk"] == "?" for p in middle["players"])
    assert middle["unused_disks"] == ["?", "?"]
    # a card the log followed to the bottom of the Draw Pile alone is known again when it is drawn
    final = run_json(tally, "state", rel(TABLE))
    winner = next(p for p in final["players"] if p["name"] == final["outcome"]["winners"][0])
    assert winner["disk"] == final["map_laid"][0][0] and "piracy" in winner["hand"]


@pytest.mark.parametrize("name", ["splice-open-2p", "splice-open-4p"])
def test_a_players_view_shows_only_their_own_cards(tally, name: str) -> None:
    events = lines(name)
    at = len(events) // 2
    referee = run_json(tally, "state", rel(name), "--at", str(at))
    for viewer in SEATS[name]:
        view = run_json(tally, "state", rel(name), "--at", str(at), "--as", viewer)
        for mine, seen in zip(referee["players"], view["players"]):
            if mine["name"] == viewer:
                assert (
                    seen["hand"] == mine["hand"]
                    and seen["disk"] == mine["disk"]
                    and seen["map_pieces"] == mine["map_pieces"]
                )
            else:
                assert set(seen["hand"]) <= {"?"} and len(seen["hand"]) == len(mine["hand"])
                assert seen["disk"] == "?" and set(seen["map_pieces"]) <= {"?"}
                assert seen["sets"] == mine["sets"] and seen["gold"] == mine["gold"]
        assert set(view["unused_disks"]) <= {"?"}


def verdict(checked: str) -> str:
    """What `tally check` says of a log that passed: all legal, or none illegal and how many events it could not
    judge (an unverifiable event is never called legal)."""
    doubtful = len({line.split()[0] for line in checked.splitlines() if " unverifiable: " in line})
    return "all legal" if not doubtful else f"none illegal, {doubtful} unverifiable"
