"""Splice in the history library: its tables are filled from the fold of real logs (simulated games and the
bundled fixtures), agree with the events they come from, and `tally stats` reports on them; `tally simulate
splice` writes logs that `tally check` accepts, for 2 to 4 players, in both modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from support import ROOT
from tally.core.games.splice import SPLICE
from tally.store import library
from tally.store.recording import record
from tally.store.recording.simulate import simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("splice-*.jsonl"))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("splice-sim")
    simulate("splice", 6, 7, folder, options={"hurricanes": "2"})
    simulate("splice", 3, 8, folder / "table", mode="table", options={"no-map": "most-matching", "stall-rounds": "3"})
    path = tmp_path_factory.mktemp("splice-lib") / "lib.duckdb"
    summary = library.ingest(path, [folder, *FIXTURES])
    assert summary.rejected == [] and summary.games_added == 6 + 3 + len(FIXTURES)
    return path


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_projections_agree_with_the_events(db: Path) -> None:
    def events(kind: str) -> int:
        return rows(db, f"SELECT count(*) FROM events WHERE type = '{kind}' AND NOT voided")[0][0]

    assert rows(db, "SELECT count(*) FROM splice_purchases")[0][0] == events("maps_bought") > 0
    assert rows(db, "SELECT count(*) FROM splice_piracy")[0][0] == events("piracy_played") > 0
    assert rows(db, "SELECT count(*) FROM splice_maps_laid")[0][0] == events("map_laid") > 0
    drawn = rows(
        db,
        """SELECT count(*) FROM events WHERE type = 'cards_drawn' AND NOT voided
                        AND json_extract_string(payload, '$.cards[#-1]') = 'hurricane'""",
    )[0][0]
    dealt = rows(db, "SELECT count(*) FROM splice_hurricanes WHERE drawn_in = 'deal' AND turn = 0")[0][0]
    assert rows(db, "SELECT count(*) FROM splice_hurricanes")[0][0] == drawn + dealt
    cases = {case for (case,) in rows(db, "SELECT DISTINCT drawn_in FROM splice_hurricanes")}
    assert {"start", "refill"} <= cases
    assert rows(db, "SELECT count(*) FROM splice_hurricanes WHERE drawn_in = 'start' AND NOT turn_lost")[0][0] == 0
    # every game's turns are numbered 1..n, and each purchase paid its price
    for game_id, turns, count, top in rows(
        db,
        """SELECT t.game_id, g.turns, count(*), max(t.turn) FROM splice_turns t
                                                  JOIN games g USING (game_id) GROUP BY ALL""",
    ):
        assert turns == count == top, game_id
    assert rows(db, "SELECT count(*) FROM splice_purchases WHERE paid < 20 * pieces OR overpaid < 0")[0][0] == 0


def test_results_and_seats(db: Path) -> None:
    for game_id, winners, result in rows(
        db, "SELECT game_id, winners, result FROM games WHERE game = 'splice' AND finished"
    ):
        laid = rows(db, f"SELECT player FROM splice_maps_laid WHERE game_id = '{game_id}'")
        if laid:
            assert winners == [laid[0][0]] and "laid down a completed" in result
        else:
            assert "map" in result
    assert rows(db, "SELECT count(*) FROM games WHERE game = 'splice' AND NOT finished")[0][0] == 0


def test_stats_report_splice(db: Path, tally: Any) -> None:
    report = library.stats(db, "splice", simulated=True)
    assert report["games"] == 6 + 3 + len(FIXTURES)
    assert (
        report["splice_hurricanes"]["splice"]
        and report["splice_piracy"]["splice"]
        and report["splice_purchases"]["splice"]
    )
    assert report["progression"] == {} or "splice" not in report["progression"]
    text = tally("stats", "--simulated", "--db", str(db), "--game", "splice")
    assert text.exit_code == 0, text
    for heading in ("Hurricanes by when they were drawn", "Piracy by plunder", "map pieces bought per purchase"):
        assert heading in text.stdout
    as_json = json.loads(tally("stats", "--simulated", "--db", str(db), "--json").stdout)
    assert as_json["splice_hurricanes"]["splice"]


def test_splice_logs_export_byte_identical(db: Path, tmp_path: Path) -> None:
    from tally.store.library.folding import game_id_of

    out = tmp_path / "out"
    library.export(db, out, "jsonl")
    for log in FIXTURES:
        first = log.read_bytes().split(b"\n", 1)[0]
        exported = out / f"{game_id_of(first)}.jsonl"
        assert exported.read_bytes() == log.read_bytes(), log.name


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_games_pass_check(tmp_path: Path, players: int) -> None:
    summary = simulate("splice", 2, 30 + players, tmp_path, players=players)
    assert summary.finished == 2
    for path in summary.files:
        report = record.check(path)
        assert report.ok and report.outcome is not None and report.warnings == [], report


def test_simulate_table_mode_through_the_cli(tmp_path: Path, tally: Any) -> None:
    result = tally(
        "simulate",
        "splice",
        "--games",
        "3",
        "--seed",
        "9",
        "--out",
        str(tmp_path),
        "--mode",
        "table",
        "--option",
        "no-map=most-matching",
        "--json",
    )
    assert result.exit_code == 0, result
    summary = json.loads(result.stdout)
    assert summary["games"] == summary["finished"] == 3
    for path in sorted(tmp_path.glob("splice-*.jsonl")):
        checked = tally("check", str(path), "--json")
        report = json.loads(checked.stdout)
        assert checked.exit_code == 0 and report["ok"], report
        assert {w["rule"] for w in report["warnings"]} <= {"splice.map.next-turn"}
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert first["mode"] == "table"


def test_too_many_players_for_the_disks_are_refused(tmp_path: Path, tally: Any) -> None:
    box = tmp_path / "two.json"
    box.write_text(json.dumps({"colours": {"r": "red", "b": "blue"}}), encoding="utf-8")
    result = tally("new", "splice", str(tmp_path / "g.jsonl"), "-p", "a", "-p", "b", "-p", "c", "--manifest", str(box))
    assert result.exit_code == 2 and "3 players need 3 gemstone disks; the manifest has 2" in result.stderr
    assert not (tmp_path / "g.jsonl").exists()
    assert SPLICE.min_seats == 2 and SPLICE.max_seats == 4
