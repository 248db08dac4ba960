"""Array's tables in the history library and `tally stats --game array`, on real DuckDB files."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import duckdb
import pytest

from tally.core.engine import Table
from tally.core.games.array import ARRAY, ActionGiven
from tally.store import library
from tally.store.library.folding import game_id_of
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.simulate import playout, simulate


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Simulated Array games in open and table mode, and a table-mode log whose last show was voided."""
    folder = tmp_path_factory.mktemp("array-games")
    simulate("array", 6, 5, folder / "open")
    simulate("array", 4, 6, folder / "table", mode="table")
    events, _ = playout("array", 2, random.Random("voided"))
    transcript = ARRAY.table_transcript(events)
    table = Table(ARRAY, transcript[0])  # type: ignore[arg-type]
    for index, event in enumerate(transcript[1:], 1):
        table.apply(event)
        if table.state.results:  # the first round was just scored: cut here, then void that last show
            break
    path = folder / "voided" / "voided.jsonl"
    path.parent.mkdir()
    logfile.create(path, transcript[: index + 1])
    assert record.undo(path, "showed the wrong card").accepted
    return folder


@pytest.fixture(scope="module")
def db(games: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("array-db") / "lib.duckdb"
    summary = library.ingest(db, [games])
    assert summary.rejected == [] and summary.games_added == 11
    return db


def rows(db: Path, sql: str) -> list[tuple]:  # type: ignore[type-arg]
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql).fetchall()


def folds(games: Path) -> dict[str, Table]:
    found = {}
    for path in sorted(games.rglob("*.jsonl")):
        log = logfile.read(path)
        table = Table(ARRAY, log.events[0])  # type: ignore[arg-type]
        for event in log.events[1:]:
            table.apply(event)
        found[game_id_of(path.read_bytes().split(b"\n", 1)[0])] = (table, log.events)
    return found


def test_the_tables_are_a_fold_of_the_events(db: Path, games: Path) -> None:
    for game_id, (table, events) in folds(games).items():
        state = table.state
        results = state.results
        got = rows(
            db,
            f"SELECT round, ended, went_out, players, cards_left, points FROM array_rounds WHERE game_id = '{game_id}' ORDER BY round",
        )
        assert got == [
            (
                r.round,
                r.ended,
                state.seats[r.winners[0]] if r.ended == "out" else None,
                len(r.playing),
                sum(len(r.left[s]) for s in r.playing),
                sum(r.points[s] for s in r.playing),
            )
            for r in results
        ]
        left = Counter((r.round, state.seats[s], card) for r in results for s in r.playing for card in r.left[s])
        assert (
            Counter(rows(db, f"SELECT round, player, card FROM array_cards_left WHERE game_id = '{game_id}'")) == left
        )
        out = [(r.round, state.seats[s], r.totals[s]) for r in results for s in r.eliminated]
        assert (
            rows(
                db,
                f"SELECT round, player, total FROM array_eliminations WHERE game_id = '{game_id}' ORDER BY seq, seat",
            )
            == out
        )
        voided = {e.target for e in events if type(e).__name__ == "Voided"}  # type: ignore[attr-defined]
        gives = [e for e in events if isinstance(e, ActionGiven) and e.seq not in voided]
        assert rows(db, f"SELECT count(*) FROM array_actions WHERE game_id = '{game_id}'")[0][0] == len(gives)
        totals = rows(db, f"SELECT player, max(total) FROM round_results WHERE game_id = '{game_id}' GROUP BY player")
        expected = {
            state.seats[s]: state.totals[s] for s in range(len(state.seats)) if any(s in r.playing for r in results)
        }
        assert dict(totals) == expected


def test_a_voided_show_drops_the_rounds_rows(db: Path, games: Path) -> None:
    path = games / "voided" / "voided.jsonl"
    game_id = game_id_of(path.read_bytes().split(b"\n", 1)[0])
    assert rows(db, f"SELECT count(*) FROM array_rounds WHERE game_id = '{game_id}'") == [(0,)]
    assert rows(db, f"SELECT count(*) FROM array_cards_left WHERE game_id = '{game_id}'") == [(0,)]
    assert rows(db, f"SELECT count(*) FROM round_results WHERE game_id = '{game_id}'") == [(0,)]


def test_finished_games_have_their_winner_and_scores(db: Path) -> None:
    for winner, finished, scores in rows(
        db,
        "SELECT g.winner, g.finished, list(s.score ORDER BY s.seat) FROM games g "
        "JOIN seats s USING (game_id) WHERE g.game = 'array' AND g.finished GROUP BY ALL",
    ):
        assert winner and finished and all(score is not None for score in scores)


def test_stats_for_array(db: Path, tally) -> None:  # type: ignore[no-untyped-def]
    report = library.stats(db, "array", simulated=True)
    assert report["games"] == 11
    by_players = report["array_rounds"]["array"]
    assert by_players and all(row["rounds"] >= 1 for row in by_players)
    kinds = {row["kind"] for row in report["array_cards_left"]["array"]}
    assert kinds <= {"2 colours", "3 colours", "4 colours", "splatter", "slam"} and "3 colours" in kinds
    assert report["array_eliminations"]["array"]
    assert library.stats(db, "splendor", simulated=True)["array_rounds"] == {}
    text = tally("stats", "--simulated", "--db", str(db), "--game", "array")
    assert text.exit_code == 0, text
    for title in (
        "rounds per game and how they end",
        "cards left in hand at the end of a round, by kind",
        "eliminations by seat",
    ):
        assert f"array: {title}" in text.stdout
    as_json = json.loads(tally("stats", "--simulated", "--db", str(db), "--json").stdout)
    assert set(as_json["array_rounds"]) == {"array"}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_simulated_games_pass_check_for_every_player_count(tmp_path: Path, tally, players: int) -> None:  # type: ignore[no-untyped-def]
    for mode in ("open", "table"):
        out = tmp_path / mode
        result = tally(
            "simulate",
            "array",
            "--games",
            "2",
            "--seed",
            str(players),
            "--players",
            str(players),
            "--mode",
            mode,
            "--out",
            str(out),
            "--json",
        )
        assert result.exit_code == 0, result
        assert json.loads(result.stdout)["finished"] == 2
        for path in sorted(out.glob("*.jsonl")):
            check = tally("check", str(path), "--json")
            assert check.exit_code == 0, check
            report = json.loads(check.stdout)
            assert report["ok"] and len(report["outcome"]["scores"]) == players
