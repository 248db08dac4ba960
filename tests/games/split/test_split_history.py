"""Split through the rest of tally: simulated games pass `tally check` for 2 to 6 players (open and table mode),
the history library's Split tables equal a fold of the events, `tally stats` reports on Split, and the board
draws the view."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path
from typing import Any

import duckdb
import msgspec
import pytest
from rich.console import Console

from support import ROOT
from tally.cli.boards.split import draw
from tally.core.engine import Table
from tally.core.games.split import SPLIT, MatchPlayed, MatchUpgraded
from tally.store import library
from tally.store.library.folding import game_id_of
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.simulate import playout, simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("split-*.jsonl"))


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_simulated_games_pass_check_for_every_player_count(tmp_path: Path, players: int) -> None:
    for mode in ("open", "table"):
        summary = simulate("split", 2, players, tmp_path / mode, players=players, mode=mode)
        assert summary.finished == 2
        for path in summary.files:
            report = record.check(path)
            assert report.ok and report.outcome is not None, report
            assert {w["rule"] for w in report.warnings} <= {"split.row.playable"}
            started = logfile.read(path).started
            assert started.mode == mode and len(started.seats) == players


def test_table_transcripts_are_judged_legal_with_the_same_outcome() -> None:
    for index in range(6):
        events, state = playout("split", 2 + index % 5, random.Random(f"transcript:{index}"))
        transcript = SPLIT.table_transcript(events)
        table = Table(SPLIT, transcript[0])  # type: ignore[arg-type]
        for event in transcript[1:]:
            assert all(r.verdict != "illegal" for r in table.check(event))
            table.apply(event)
        assert SPLIT.outcome(table.state) == SPLIT.outcome(state)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("split-lib")
    sims = simulate("split", 6, 9, folder / "sim")
    path = folder / "lib.duckdb"
    summary = library.ingest(path, [*FIXTURES, *sims.files])
    assert summary.games_added == len(FIXTURES) + 6 and not summary.rejected
    return path


def rows(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def test_the_round_tables_equal_the_fold(db: Path) -> None:
    for path in FIXTURES:
        log = logfile.read(path)
        game_id = game_id_of(path.read_bytes().split(b"\n", 1)[0])
        table = Table(SPLIT, log.events[0])  # type: ignore[arg-type]
        for event in log.events[1:]:
            table.apply(event)
        state = table.state
        seats = state.seats
        expected = [
            (r.round, s + 1, name, r.scores[s], r.totals[s], r.left[s], r.ended, s == r.ender)
            for r in state.results
            for s, name in enumerate(seats)
        ]
        found = rows(
            db,
            "SELECT round, seat, player, score, total, cards_left, ended, ender FROM split_rounds WHERE game_id = ? ORDER BY round, seat",
            game_id,
        )
        assert found == expected
        assert rows(
            db, "SELECT round, seat, score, total FROM round_results WHERE game_id = ? ORDER BY round, seat", game_id
        ) == [(r.round, s + 1, r.scores[s], r.totals[s]) for r in state.results for s in range(len(seats))]
        pads = rows(
            db,
            "SELECT round, seat, pad_row, marks FROM split_pad WHERE game_id = ? AND pad_row = 'minus' ORDER BY round, seat",
            game_id,
        )
        assert pads == [(r.round, s + 1, "minus", r.pads[s][-1]) for r in state.results for s in range(len(seats))]
        outcome = SPLIT.outcome(state)
        assert rows(db, "SELECT player, score, won FROM seats WHERE game_id = ? ORDER BY seat", game_id) == [
            (name, outcome.scores[name], name in outcome.winners) for name in seats
        ]
        effective = [e for e in log.events if e.seq not in {getattr(v, "target", 0) for v in log.events}]
        made = sum(1 for e in effective if isinstance(e, (MatchPlayed, MatchUpgraded)))
        assert rows(db, "SELECT count(*) FROM split_matches WHERE game_id = ?", game_id) == [(made,)]


def test_upgrades_that_take_a_match_are_recorded(db: Path) -> None:
    taken = rows(db, "SELECT count(*) FROM split_matches WHERE how = 'upgrade' AND taken_from IS NOT NULL")[0][0]
    assert taken > 0
    assert rows(db, "SELECT DISTINCT kind FROM split_matches ORDER BY kind") == [("perfect",), ("strong",), ("weak",)]


def test_stats_reports_on_split(db: Path, tally: Any) -> None:
    report = library.stats(db, "split", simulated=True)
    assert report["games"] == len(FIXTURES) + 6 and report["finished"] == report["games"]
    progression = report["progression"]["split"]
    assert [r["round"] for r in progression] == [1, 2, 3]
    kinds = {(r["kind"], r["how"]) for r in report["match_types"]["split"]}
    assert {("perfect", "upgrade"), ("weak", "match")} <= kinds
    text = tally("stats", "--simulated", "--db", str(db), "--game", "split")
    assert text.exit_code == 0, text
    for heading in ("average total after each round", "matches by type and how made"):
        assert heading in text.stdout
    as_json = json.loads(tally("stats", "--simulated", "--db", str(db), "--json").stdout)
    assert "split" in as_json["match_types"] and "splendor" in as_json["progression"]


def test_the_board_draws_every_part_of_the_view() -> None:
    _, frames = record.replay(FIXTURES[-1], 120)
    view = msgspec.structs.replace(SPLIT.view(frames[-1].state, "ana"), seq=120)
    out = Console(file=io.StringIO(), width=100, markup=False, highlight=False, color_system=None)
    draw(view, out)
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert text.startswith("Split after #120, round 1 of 3") and "as seen by ana" in text
    assert "discard row (bottom to top): " + " ".join(view.row) in text
    for entry in view.players:
        assert entry.name in text
        for kind in ("perfect", "strong", "weak"):
            for match in entry.matches[kind]:
                assert match in text
    assert "score pads" in text and "minus" in text
    for name in ("ben", "cy", "dee"):
        hidden = next(p for p in view.players if p.name == name).hidden
        assert f"{hidden} hidden" in text
