"""Splendor in the history library: its tables are filled from the fold of real logs (simulated games in both modes
and the bundled fixtures), agree with the events they come from, and `tally stats` reports on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from support import ROOT
from tally.core.games.splendor import CARDS
from tally.store import library
from tally.store.recording.simulate import simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("splendor-*.jsonl"))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("splendor-sim")
    simulate("splendor", 5, 3, folder)
    simulate("splendor", 3, 4, folder / "table", mode="table")
    path = tmp_path_factory.mktemp("splendor-lib") / "lib.duckdb"
    summary = library.ingest(path, [folder, *FIXTURES])
    assert summary.rejected == [] and summary.games_added == 5 + 3 + len(FIXTURES)
    return path


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def events(db: Path, kind: str) -> int:  # the library holds Splendor games only
    return rows(db, f"SELECT count(*) FROM events WHERE type = '{kind}' AND NOT voided")[0][0]


def test_the_tables_agree_with_the_events(db: Path) -> None:
    assert rows(db, "SELECT count(*) FROM splendor_cards_bought")[0][0] == events(db, "card_bought") > 0
    assert rows(db, "SELECT count(*) FROM splendor_reserves")[0][0] == events(db, "card_reserved") > 0
    # a blind reserve names a level, a face-up one its card; both kinds occur
    assert {blind for (blind,) in rows(db, "SELECT DISTINCT blind FROM splendor_reserves")} == {True, False}
    for card, level, points in rows(db, "SELECT card, level, points FROM splendor_cards_bought"):
        assert (CARDS[card].level, CARDS[card].points) == (level, points), card
    # every game's turns are numbered 1..n, one row per turn played
    for game_id, turns, count, top in rows(
        db,
        """SELECT t.game_id, g.turns, count(*), max(t.turn) FROM splendor_turns t
                                                  JOIN games g USING (game_id) GROUP BY ALL""",
    ):
        assert turns == count == top, game_id


def test_a_winner_has_the_most_points_of_the_last_turns(db: Path) -> None:
    finished = rows(db, "SELECT game_id, winners FROM games WHERE game = 'splendor' AND finished")
    assert finished
    for game_id, winners in finished:
        last = rows(
            db,
            f"""SELECT player, arg_max(points, turn) FROM splendor_turns WHERE game_id = '{game_id}'
                            GROUP BY player""",
        )
        best = max(points for _, points in last)
        assert set(winners) <= {player for player, points in last if points == best}, game_id


def test_stats_report_splendor(db: Path, tally: Any) -> None:
    report = library.stats(db, "splendor", simulated=True)
    assert report["games"] == 5 + 3 + len(FIXTURES)
    text = tally("stats", "--simulated", "--db", str(db), "--game", "splendor")
    assert text.exit_code == 0, text
    assert "most-bought cards" in text.stdout
    as_json = json.loads(tally("stats", "--simulated", "--db", str(db), "--game", "splendor", "--json").stdout)
    assert as_json["games"] == report["games"]
