"""The bundled fixture games (`fixtures/games/*.jsonl`, recorded by `fixtures/record_games.py` through the CLI).

Snapshots (one text file each under `__snapshots__/test_splendor_fixtures/`) pin what a person sees from
`tally replay`, `tally state` and `tally check` on each game; the key facts are also asserted outright so a
snapshot update cannot quietly accept a wrong answer. The CLI runs as a real process from the project
root with relative paths, so the output never holds a path of this machine.

The fixtures are committed: their fingerprints are stable. Re-recording them (`python
fixtures/record_games.py`) changes the `at` times and so every fingerprint; then run
`pytest tests/games/splendor/test_splendor_fixtures.py --snapshot-update` and read the diff.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from support.bundled import ROOT, lines, rel, run, run_json

GAMES = ("splendor-2p", "splendor-3p", "splendor-4p", "splendor-table-3p")
TABLE = "splendor-table-3p"
# events per log (game_started included): a re-recording that changes a game shows up here too
EVENTS = {"splendor-2p": 61, "splendor-3p": 89, "splendor-4p": 115, "splendor-table-3p": 149}
SEATS = {
    "splendor-2p": ["ana", "ben"],
    "splendor-3p": ["ana", "ben", "cy"],
    "splendor-4p": ["ana", "ben", "cy", "dee"],
    "splendor-table-3p": ["ana", "ben", "cy"],
}


def blind_reserves(name: str) -> list[dict[str, Any]]:
    """Blind reserves the log never saw, each with the buy that later named its card (or None)."""
    events = lines(name)
    revealed = {e["card"] for e in events if e["type"] == "card_revealed"}
    voided = {e["target"] for e in events if e["type"] == "voided"}
    found = []
    for e in events:
        if e["type"] == "card_reserved" and e.get("level") and "card" not in e and e["seq"] not in voided:
            found.append({"seq": e["seq"], "player": e["player"], "level": e["level"], "bought": None, "card": None})
    for e in events:
        # a bought card that was never turned face up can only have been a blind reserve
        if e["type"] == "card_bought" and e["card"] not in revealed and e["seq"] not in voided:
            match = next(
                b
                for b in found
                if b["player"] == e["player"]
                and b["level"] == int(e["card"][0])
                and b["bought"] is None
                and b["seq"] < e["seq"]
            )
            match["bought"], match["card"] = e["seq"], e["card"]
    return found


# --------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize("name", GAMES)
def test_replay(tally, text_snapshot, name: str) -> None:
    out = run(tally, "replay", rel(name))
    assert out == text_snapshot
    assert "game over:" in out and "winner:" in out


@pytest.mark.parametrize("name", GAMES)
def test_state(tally, text_snapshot, name: str) -> None:
    out = run(tally, "state", rel(name))
    assert out == text_snapshot
    assert "game over:" in out


@pytest.mark.parametrize("name", GAMES)
def test_check(tally, text_snapshot, name: str) -> None:
    out = run(tally, "check", rel(name))
    assert out == text_snapshot
    last = (ROOT / rel(name)).read_bytes().splitlines()[-1]
    assert f"ok: {EVENTS[name]} events, {verdict(out)}; " in out
    assert out.endswith(f"fingerprint {hashlib.sha256(last).hexdigest()}\n")


def test_table_state_while_a_blind_reserve_is_unknown(tally, text_snapshot) -> None:
    first = blind_reserves(TABLE)[0]
    assert first["bought"] is not None
    at = first["bought"] - 1  # the reserve is still in hand, unseen by the log
    owner = first["player"]
    other = next(p for p in SEATS[TABLE] if p != owner)
    as_other = run(tally, "state", rel(TABLE), "--at", str(at), "--as", other)
    as_owner = run(tally, "state", rel(TABLE), "--at", str(at), "--as", owner)
    assert as_other == text_snapshot(name="as-other")
    assert as_owner == text_snapshot(name="as-owner")
    assert f"as seen by {other}" in as_other and f"as seen by {owner}" in as_owner
    assert f"?{first['level']} (hidden)" in as_other
    assert first["card"] not in as_other + as_owner


# --------------------------------------------------------------------------- facts


@pytest.mark.parametrize("name", GAMES)
def test_check_json(tally, name: str) -> None:
    report = run_json(tally, "check", rel(name))
    raw = (ROOT / rel(name)).read_bytes()
    assert report["ok"] is True
    assert report["game"] == "splendor"
    assert report["events"] == EVENTS[name] == len(raw.splitlines())
    assert report["fingerprint"] == hashlib.sha256(raw.splitlines()[-1]).hexdigest()
    assert report["outcome"]["winners"], report["outcome"]
    assert set(report["outcome"]["scores"]) == set(SEATS[name])
    assert max(report["outcome"]["scores"].values()) >= 15


@pytest.mark.parametrize("name", GAMES)
def test_games_show_what_they_are_for(name: str) -> None:
    events = lines(name)
    started = events[0]
    assert started["type"] == "game_started" and started["seats"] == SEATS[name]
    assert started.get("mode", "open") == ("table" if name == TABLE else "open")  # open is the default, omitted
    types = [e["type"] for e in events]
    assert types.count("tokens_returned") >= 1  # a 10-token return in every game
    if name == "splendor-2p":
        assert types.count("voided") == 1 and types.count("noted") == 1
        undo = next(e for e in events if e["type"] == "voided")
        assert undo["target"] == undo["seq"] - 1 and undo["reason"]
    if name == TABLE:
        assert types[1:5] == ["noble_revealed"] * 4 and types[5:17] == ["card_revealed"] * 12
        assert "setup_dealt" not in types


@pytest.mark.parametrize("name", GAMES)
def test_nobles_visit(tally, name: str) -> None:
    view = run_json(tally, "state", rel(name))
    assert view["phase"] == "over"
    assert sum(len(p["nobles"]) for p in view["players"]) >= 1


def test_table_game_buys_unknown_blind_reserves_later(tally) -> None:
    blind = blind_reserves(TABLE)
    bought = [b for b in blind if b["bought"] is not None]
    assert len(blind) >= 3 and len(bought) >= 2
    seats = {b["player"] for b in blind}
    assert len(seats) >= 2  # more than one player reserved blind
    for b in bought:
        assert b["bought"] - b["seq"] >= 12, b  # unknown for at least a few rounds
    # each such buy is the one thing the log cannot verify
    warnings = run_json(tally, "check", rel(TABLE))["warnings"]
    assert [(w["seq"], w["rule"]) for w in warnings] == [
        (b["bought"], "splendor.buy.blind-reserve") for b in sorted(bought, key=lambda b: b["bought"])
    ]
    # the blind reserve left in hand at the end is still unknown to the log
    final = run_json(tally, "state", rel(TABLE))
    for b in blind:
        if b["bought"] is None:
            owner = next(p for p in final["players"] if p["name"] == b["player"])
            assert f"?{b['level']}" in owner["reserved"]


def test_table_view_never_shows_a_blind_reserve(tally) -> None:
    for b in blind_reserves(TABLE):
        if b["bought"] is None:
            continue
        for at in sorted({b["seq"], (b["seq"] + b["bought"]) // 2, b["bought"] - 1}):
            for viewer in SEATS[TABLE]:
                text = run(tally, "state", rel(TABLE), "--at", str(at), "--as", viewer, "--json")
                view = json.loads(text)
                assert b["card"] not in text, (b, at, viewer)
                owner = next(p for p in view["players"] if p["name"] == b["player"])
                assert f"?{b['level']}" in owner["reserved"]
        after = run_json(tally, "state", rel(TABLE), "--at", str(b["bought"]), "--as", b["player"])
        assert b["card"] in next(p for p in after["players"] if p["name"] == b["player"])["cards"]


@pytest.mark.parametrize("name", ["splendor-3p", "splendor-4p"])
def test_open_view_hides_others_blind_reserves(tally, name: str) -> None:
    # in open mode the log knows a blind reserve's card; only its owner may see it
    blind = [e for e in lines(name) if e["type"] == "card_reserved" and e.get("level")]
    assert blind
    for e in blind:
        for viewer in SEATS[name]:
            text = run(tally, "state", rel(name), "--at", str(e["seq"]), "--as", viewer, "--json")
            assert (e["card"] in text) == (viewer == e["player"]), (e, viewer)
        referee = run(tally, "state", rel(name), "--at", str(e["seq"]), "--json")
        assert e["card"] in referee


@pytest.mark.parametrize("name", GAMES)
def test_replay_to_stops_there(tally, name: str) -> None:
    for to in (1, 17, EVENTS[name] // 2):
        doc = run_json(tally, "replay", rel(name), "--to", str(to))
        assert doc["seq"] == to
        assert [s["seq"] for s in doc["steps"]] == list(range(1, to + 1))
        assert doc["outcome"] is None
        text = run(tally, "replay", rel(name), "--to", str(to))
        assert f"#{to:<4} " in text and f"#{to + 1:<4} " not in text
        assert f"after #{to} {doc['state']['fingerprint'][:8]}," in text
    beyond = tally("replay", rel(name), "--to", str(EVENTS[name] + 1), cwd=ROOT)
    assert beyond.exit_code == 2 and beyond.stdout == ""
    assert f"the log has events 1..{EVENTS[name]}" in beyond.stderr


def test_replay_marks_the_voided_event(tally) -> None:
    undo = next(e for e in lines("splendor-2p") if e["type"] == "voided")
    out = run(tally, "replay", rel("splendor-2p"))
    voided_line = next(line for line in out.splitlines() if line.startswith(f"#{undo['target']:<4} "))
    assert voided_line.endswith("(voided)")
    assert f"#{undo['seq']:<4} void #{undo['target']}: {undo['reason']}" in out


def verdict(checked: str) -> str:
    """What `tally check` says of a log that passed: all legal, or none illegal and how many events it could not
    judge (an unverifiable event is never called legal)."""
    doubtful = len({line.split()[0] for line in checked.splitlines() if " unverifiable: " in line})
    return "all legal" if not doubtful else f"none illegal, {doubtful} unverifiable"
