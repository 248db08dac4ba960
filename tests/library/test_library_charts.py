"""The library's charts, one game's chart, the simulated flag, aliases, CSV and the BG Stats export, on real
DuckDB files built from the bundled games and simulated ones: every chart's marks are read back and compared with
the rows its query returned, and every report says how many games it rests on."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from support import ROOT
from tally.core.engine import judge
from tally.store import library
from tally.store.library.charts import course_in_library, course_of_log, game_chart, library_charts
from tally.store.logs import log as logfile
from tally.store.recording.simulate import simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))
NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def sims(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("sims")
    return [Path(p) for p in simulate("splendor", 3, 5, folder).files + simulate("split", 2, 5, folder).files]


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory, sims: list[Path]) -> Path:
    path = tmp_path_factory.mktemp("charts") / "tally.duckdb"
    summary = library.ingest(path, [*FIXTURES, *sims], jobs=1)
    assert not summary.rejected
    return path


def rows(db: Path, sql: str) -> list[tuple[Any, ...]]:
    return list(library.query(db, sql).rows())


def marks(document: str, kind: str) -> list[ET.Element]:
    root = ET.fromstring(document)
    return [e for e in root.iter(f"{NS}g") if e.attrib.get("class") == kind]


def texts(document: str) -> str:
    return " ".join(t.text or "" for t in ET.fromstring(document).iter(f"{NS}text"))


# --------------------------------------------------------------------------- simulated games


def test_simulate_marks_its_games_and_the_library_keeps_the_mark(db: Path, sims: list[Path]) -> None:
    first = json.loads(sims[0].read_bytes().split(b"\n", 1)[0])
    assert first["simulated"] is True
    for fixture in FIXTURES:  # a game played at a table never carries the field (its default is not written)
        assert b'"simulated"' not in fixture.read_bytes().split(b"\n", 1)[0]
    assert rows(db, "SELECT simulated, count(*) FROM games GROUP BY ALL ORDER BY ALL") == [
        (False, len(FIXTURES)),
        (True, len(sims)),
    ]
    report = library.stats(db)
    assert report["games"] == len(FIXTURES) and report["simulated_left_out"] == len(sims)
    assert library.stats(db, simulated=True)["games"] == len(FIXTURES) + len(sims)


def test_a_written_false_flag_is_not_canonical(tmp_path: Path) -> None:
    data = FIXTURES[0].read_bytes()
    line, rest = data.split(b"\n", 1)
    spoiled = tmp_path / "spoiled.jsonl"
    spoiled.write_bytes(line[:-1] + b',"simulated":false}\n' + rest)
    with pytest.raises(logfile.LogError):
        logfile.parse_lines(str(spoiled), spoiled.read_bytes())


# --------------------------------------------------------------------------- the library's charts


def test_every_library_chart_gives_back_its_query_rows(db: Path) -> None:
    drawn = {chart.key: chart for chart in library_charts(db)}
    assert set(drawn) == {
        "win_rate_by_seat",
        "win_rate_by_player_count",
        "games_per_month",
        "score_per_round",
        "rivalries",
        "longest_games",
        "closest_games",
    }
    for key, chart in drawn.items():
        assert chart.rows, key
        ET.fromstring(chart.svg)
        assert f"rests on {chart.games} " in texts(chart.svg), key
        if key == "rivalries":
            cells = {
                (e.attrib["data-series"], e.attrib["data-label"]): float(e.attrib["data-value"])
                for e in marks(chart.svg, "cell")
            }
            for winner, loser, wins, _ in chart.rows:
                assert cells[(winner, loser)] == wins
            assert sum(cells.values()) == sum(row[2] for row in chart.rows)
        else:
            kind = "ranked" if key in ("longest_games", "closest_games") else "bar"
            found = [(e.attrib["data-label"], float(e.attrib["data-value"])) for e in marks(chart.svg, kind)]
            assert found == [(row[0], float(row[1])) for row in chart.rows], key


def test_the_charts_rest_on_the_games_in_scope(db: Path) -> None:
    real = {chart.key: chart for chart in library_charts(db)}
    every = {chart.key: chart for chart in library_charts(db, simulated=True)}
    finished_real = rows(db, "SELECT count(*) FROM games WHERE finished AND NOT simulated")[0][0]
    assert real["win_rate_by_seat"].games == finished_real
    assert every["win_rate_by_seat"].games == rows(db, "SELECT count(*) FROM games WHERE finished")[0][0]
    assert sum(row[1] for row in real["games_per_month"].rows) == len(FIXTURES)
    by_seat = rows(
        db,
        "SELECT g.game, g.player_count, s.seat, round(100 * avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END), 1) "
        "FROM seats s JOIN games g USING (game_id) WHERE g.finished AND NOT g.simulated GROUP BY ALL ORDER BY ALL",
    )
    assert [row[1] for row in real["win_rate_by_seat"].rows] == [rate for *_, rate in by_seat]
    split = library_charts(db, "split")
    assert all(row[0].startswith("split") for chart in split if chart.key == "score_per_round" for row in chart.rows)


def test_the_closest_games_are_within_one_game(db: Path) -> None:
    [closest] = [c for c in library_charts(db) if c.key == "closest_games"]
    margins = [row[1] for row in closest.rows]
    assert margins == sorted(margins)
    for label, margin, gid, _ in closest.rows:
        scores = sorted((s for (s,) in rows(db, f"SELECT score FROM seats WHERE game_id = '{gid}'")), reverse=True)
        assert label.split(" ")[1].rstrip(",") == rows(db, f"SELECT game FROM games WHERE game_id = '{gid}'")[0][0]
        assert margin <= max(scores) - min(scores)


# --------------------------------------------------------------------------- one game


@pytest.mark.parametrize(
    "fixture", ["splendor-4p.jsonl", "split-3p.jsonl", "array-open-4p.jsonl", "splice-open-2p.jsonl"]
)
def test_a_game_chart_gives_back_every_score_after_each_turn(fixture: str, db: Path) -> None:
    path = ROOT / "fixtures" / "games" / fixture
    played = course_of_log(path)
    log = logfile.parse_lines(str(path), path.read_bytes())
    _, table = judge(log.spec, log.events)
    assert played.finished and played.turns == log.spec.history.turns(table.state)
    final = {p.player: p.score for p in played.points if p.turn == played.turns}
    assert final == log.spec.history.scores(table.state)
    chart = game_chart(played)
    found = Counter(
        (e.attrib["data-series"], int(e.attrib["data-x"]), float(e.attrib["data-value"]))
        for e in marks(chart.svg, "mark")
    )
    assert found == Counter((p.player, p.turn, float(p.score)) for p in played.points)
    assert [float(e.attrib["data-value"]) for e in marks(chart.svg, "round")] == [turn for _, turn in played.rounds]
    assert any("game over" in m.what for m in played.moments)
    stored = course_in_library(db, logfile.parse_lines(str(path), path.read_bytes()).events and _gid(path))
    assert stored == played


def _gid(path: Path) -> str:
    from tally.store.library.folding import game_id_of

    return game_id_of(path.read_bytes().split(b"\n", 1)[0])


@pytest.mark.parametrize("fixture", [p.stem for p in FIXTURES])
def test_a_games_moments_name_their_player_once_and_never_cover_each_other(fixture: str) -> None:
    """Each moment of a game's chart says what the narration said, naming its player once (never `ana ana reached
    15 points`), and no moment's marker overlaps another's."""
    played = course_of_log(ROOT / "fixtures" / "games" / f"{fixture}.jsonl")
    drawn = marks(game_chart(played).svg, "moment")
    assert len(drawn) == len(played.moments)
    said = sorted((int(m.attrib["data-value"]), m.find(f"{NS}title").text or "") for m in drawn)  # type: ignore[union-attr]
    assert said == sorted((m.turn, f"turn {m.turn}: {m.what}") for m in played.moments)
    for _, title in said:
        words = title.split(": ", 1)[1].split()
        assert all(a != b for a, b in zip(words, words[1:])), title
    circles = [
        (float(c.attrib["cx"]), float(c.attrib["cy"]), float(c.attrib["r"]))
        for m in drawn
        for c in m.iter(f"{NS}circle")
    ]
    for i, (x, y, r) in enumerate(circles):
        for x2, y2, r2 in circles[i + 1 :]:
            assert (x - x2) ** 2 + (y - y2) ** 2 >= (r + r2) ** 2, ("overlapping moments", (x, y), (x2, y2))


def test_no_label_of_a_library_chart_is_cut(db: Path) -> None:
    """Every bar's and every row's label is written whole (a long one on a line of its own), within the picture."""
    for chart in library_charts(db, simulated=True):
        root = ET.fromstring(chart.svg)
        width = float(root.attrib["viewBox"].split()[2])
        written = texts(chart.svg)
        assert "…" not in written, chart.key
        for group in (g for g in root.iter(f"{NS}g") if g.attrib.get("class") in ("bar", "ranked")):
            inside = " ".join(" ".join(t.text or "" for t in group.iter(f"{NS}text")).split())
            assert " ".join(group.attrib["data-label"].split()) in inside, (chart.key, group.attrib["data-label"])
        for text in root.iter(f"{NS}text"):  # what starts at the left margin fits the width (numbers end bars)
            if text.attrib.get("text-anchor") is None:
                assert float(text.attrib["x"]) + len(text.text or "") * 11 * 0.62 <= width + 1, (chart.key, text.text)
        for cell in marks(chart.svg, "cell"):  # head to head: every player's name whole, in a row or a column
            assert cell.attrib["data-series"] in written and cell.attrib["data-label"] in written


def test_split_rounds_and_splendor_nobles_are_marked() -> None:
    split = course_of_log(ROOT / "fixtures" / "games" / "split-3p.jsonl")
    assert [number for number, _ in split.rounds] == [2, 3]
    assert [m.what.split(":")[0] for m in split.moments if m.what.startswith("round")] == [
        "round 1 ends",
        "round 2 ends",
        "round 3 ends",
    ]
    splendor = course_of_log(ROOT / "fixtures" / "games" / "splendor-2p.jsonl")
    assert [(m.turn, m.player) for m in splendor.moments if "visits" in m.what] == [(43, "ana"), (53, "ana")]


def test_tally_chart_writes_the_svg(tmp_path: Path, db: Path, tally: Any) -> None:
    out = tmp_path / "game.svg"
    path = ROOT / "fixtures" / "games" / "split-3p.jsonl"
    done = tally("chart", str(path), "--svg", str(out), "--json")
    assert done.exit_code == 0, done
    assert json.loads(done.stdout)["rounds"] == 2 and out.read_text() == game_chart(course_of_log(path)).svg
    again = tmp_path / "again.svg"
    assert tally("chart", _gid(path)[:8], "--db", str(db), "--svg", str(again)).exit_code == 0
    assert again.read_bytes() == out.read_bytes()
    missing = tally("chart", str(tmp_path / "nothing.jsonl"), "--svg", str(out))
    assert missing.exit_code == 3 and "Traceback" not in missing.stderr


def test_tally_chart_draws_a_game_where_every_score_is_alike(tmp_path: Path, tally: Any) -> None:
    """A game just dealt (every score 0) is drawn, its axis one step high: the axis' ends were once equal and the
    chart divided by their difference (found by fuzzing: an internal error, exit 4)."""
    path = tmp_path / "dealt.jsonl"
    assert tally("new", "split", str(path), "-p", "ana", "-p", "ben", "-p", "cy").exit_code == 0
    done = tally("chart", str(path))
    assert done.exit_code == 0 and done.stderr == "", done
    assert max(map(len, done.stdout.splitlines())) <= 80 and "0 ┤" in done.stdout, done.stdout


@pytest.mark.parametrize("name", ["split-3p", "splendor-4p", "array-open-4p"])
def test_tally_chart_draws_in_the_terminal_without_svg(tmp_path: Path, tally: Any, name: str) -> None:
    """Without `--svg`, `tally chart LOG` draws the game in the terminal within 80 columns: every player's mark at
    the height of each score the SVG chart draws, the round boundaries on the turns' axis, a legend, the moments."""
    from tally.cli.text_chart import BOTH, MARKS, PLOT_ROWS, ROUND

    path = ROOT / "fixtures" / "games" / f"{name}.jsonl"
    done = tally("chart", str(path))
    assert done.exit_code == 0 and done.stderr == "", done
    played = course_of_log(path)
    chart = game_chart(played)
    lines = done.stdout.splitlines()
    assert lines[0] == chart.title and max(map(len, lines)) <= 80, lines
    plot = lines[2 : 2 + PLOT_ROWS]
    axis = lines[2 + PLOT_ROWS]
    players = list(dict.fromkeys(row[0] for row in chart.rows))
    legend = next(line for line in lines if line.startswith(f"{MARKS[0]} {players[0]}"))
    assert all(f"{MARKS[i]} {player}" in legend for i, player in enumerate(players)), legend
    for i, player in enumerate(players):  # each player's mark is drawn (or shares a cell, `&`)
        assert any(MARKS[i] in line for line in plot) or any(BOTH in line for line in plot), player
    assert axis.count(ROUND) == len({turn for _, turn in played.rounds}), axis
    for moment in played.moments:
        assert any(moment.what.split(":")[0] in line for line in lines[3 + PLOT_ROWS :]), moment.what
    labelled = [(number, float(line.split("┤")[0])) for number, line in enumerate(plot) if "┤" in line]
    (row_a, value_a), (row_b, value_b) = labelled[0], labelled[-1]
    start = axis.index("└") + 1
    last = start + len(axis[start:]) - 1
    for i, player in enumerate(players):  # the last score of each player, read back from the plot
        score = [row[2] for row in chart.rows if row[0] == player][-1]
        row = round(row_a + (value_a - score) / (value_a - value_b) * (row_b - row_a))
        assert plot[row][last : last + 1] in (MARKS[i], BOTH), (player, score, plot[row])
    again = tally("chart", str(path), "--json")
    assert json.loads(again.stdout)["svg"] is None and json.loads(again.stdout)["turns"] == played.turns


# --------------------------------------------------------------------------- aliases, CSV, SVG files


def test_an_alias_merges_one_persons_names(tmp_path: Path, tally: Any) -> None:
    db = tmp_path / "lib.duckdb"
    library.ingest(db, FIXTURES, jobs=1)
    before = {(r["game"], r["player"]): r["games"] for r in library.stats(db)["players"]}
    said = tally("alias", "ana", "Ana P.", "--db", str(db))
    assert said.exit_code == 0, said
    after = {(r["game"], r["player"]): r["games"] for r in library.stats(db)["players"]}
    assert ("splendor", "ana") not in after and after[("splendor", "Ana P.")] == before[("splendor", "ana")]
    rivals = [c for c in library_charts(db) if c.key == "rivalries"][0]
    assert "ana" not in {name for row in rivals.rows for name in row[:2]}
    assert tally("alias", "Ana P.", "x", "--db", str(db)).exit_code == 2  # a person is not itself an alias
    assert tally("alias", "ana", "--forget", "--db", str(db)).exit_code == 0
    assert {(r["game"], r["player"]): r["games"] for r in library.stats(db)["players"]} == before


def test_stats_writes_its_charts_and_every_section_as_csv(tmp_path: Path, db: Path, tally: Any) -> None:
    done = tally("stats", "--db", str(db), "--svg", str(tmp_path / "svg"), "--csv", str(tmp_path / "csv"), "--json")
    assert done.exit_code == 0, done
    report = json.loads(done.stdout)
    assert sorted(p.name for p in (tmp_path / "svg").iterdir()) == sorted(f"{c.key}.svg" for c in library_charts(db))
    with open(tmp_path / "csv" / "players.csv", encoding="utf-8") as handle:
        read = list(csv.DictReader(handle))
    assert [(r["game"], r["player"], int(r["games"])) for r in read] == [
        (r["game"], r["player"], r["games"]) for r in report["players"]
    ]
    assert (tmp_path / "csv" / "splendor_most_bought.csv").exists() and (
        tmp_path / "csv" / "chart_rivalries.csv"
    ).exists()
    text = tally("stats", "--db", str(db))
    assert (
        "simulated games left out" in text.stdout and f"({report['rests_on']['players']} finished games" in text.stdout
    )


# --------------------------------------------------------------------------- the games as a list (a library page's)


def test_the_games_listed_follow_every_filter(db: Path) -> None:
    from datetime import date

    from tally.store.library.games import games

    real = games(db, limit=1000)
    assert real.total == len(real.games) == len(FIXTURES) and not any(g.simulated for g in real.games)
    assert games(db, simulated=True).total == rows(db, "SELECT count(*) FROM games WHERE simulated")[0][0]
    both = games(db, simulated=None, limit=1000)
    assert both.total == len(FIXTURES) + rows(db, "SELECT count(*) FROM games WHERE simulated")[0][0]
    starts = [g.started_at for g in both.games]
    assert starts == sorted(starts, reverse=True)  # newest first
    split = games(db, game="split", simulated=None, limit=1000)
    assert split.total == rows(db, "SELECT count(*) FROM games WHERE game = 'split'")[0][0]
    ana = games(db, player="ana", limit=1000)
    assert ana.total == rows(
        db,
        "SELECT count(DISTINCT s.game_id) FROM seats s JOIN games g USING (game_id) "
        "WHERE s.player = 'ana' AND NOT g.simulated",
    )[0][0] and all("ana" in g.players for g in ana.games)
    day = date.fromisoformat(real.games[-1].started_at[:10])
    assert games(db, since=day, until=day, limit=1000).total == sum(
        g.started_at[:10] == day.isoformat() for g in real.games
    )
    page = games(db, limit=2, offset=1)
    assert [g.game_id for g in page.games] == [g.game_id for g in real.games[1:3]] and page.total == real.total
    for listed in real.games:
        gid = listed.game_id
        assert listed.winners == [
            w for w in listed.players if w in rows(db, f"SELECT winners FROM games WHERE game_id = '{gid}'")[0][0]
        ]


def test_readers_of_one_process_may_hold_the_library_at_once(db: Path) -> None:
    from tally.store.library.schema import connect_read_only

    first = connect_read_only(db)
    try:  # a page answering two requests at once: the second reader shares the first one's locked settings
        assert library.stats(db)["games"] == len(FIXTURES)
        assert [c.key for c in library_charts(db)]
        assert first.execute("SELECT current_setting('TimeZone')").fetchall() == [("UTC",)]
    finally:
        first.close()
