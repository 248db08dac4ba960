"""Charts of history (`core/charts.py`): each chart parses as XML, its marks give back the numbers it was drawn
from (read out of `data-value` and compared with the input rows), and the same rows give the same bytes.

The rows come from hand-written tables and from real queries on a history library built from the bundled games.
Golden charts, drawn from the hand-written tables only (so that a change in the library's projections never
moves them), are kept as `.svg` snapshots (update with `--snapshot-update` and look at them).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from support import ROOT
from support.bundled import SvgSnapshot
from tally.core import charts, svg
from tally.store import library

NS = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def svg_snapshot(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(SvgSnapshot)


def parse(document: str) -> ET.Element:
    root = ET.fromstring(document)
    assert root.tag == f"{NS}svg" and root.attrib["role"] == "img" and root.attrib["aria-label"]
    assert root.attrib["width"] == str(svg.WIDTH)
    assert min(float(e.attrib["font-size"]) for e in root.iter(f"{NS}text")) >= svg.SMALL
    return root


def marks(root: ET.Element, kind: str) -> list[ET.Element]:
    found = [e for e in root.iter(f"{NS}g") if e.attrib.get("class") == kind]
    for e in found:
        assert e.find(f"{NS}title") is not None, f"a {kind} without a title"
    return found


def value(e: ET.Element) -> float:
    return float(e.attrib["data-value"])


SCORES = [
    ("ana", 1, 0),
    ("ben", 1, 0),
    ("ana", 2, 3),
    ("ben", 2, 1),
    ("ana", 3, 3),
    ("ben", 3, 6),
    ("ana", 4, 9),
    ("ben", 4, 7),
]


# --------------------------------------------------------------------------- the score over the turns


def test_score_lines_give_back_every_point() -> None:
    rounds = [(2, 3)]
    moments = [(4, "ana", "is visited by a noble"), (3, "ben", "lays a map")]
    root = parse(charts.score_lines(SCORES, "ana and ben", rounds, moments))
    points = Counter((e.attrib["data-series"], int(e.attrib["data-x"]), value(e)) for e in marks(root, "mark"))
    assert points == Counter(SCORES)
    assert [(e.attrib["data-label"], value(e)) for e in marks(root, "round")] == [("round 2", 3)]
    assert sorted((value(e), e.attrib["data-series"]) for e in marks(root, "moment")) == [(3, "ben"), (4, "ana")]
    texts = " ".join(t.text or "" for t in root.iter(f"{NS}text"))
    assert "is visited by a noble" in texts and "lays a map" in texts


def test_a_higher_score_is_drawn_higher_and_a_later_turn_further_right() -> None:
    root = parse(charts.score_lines(SCORES, "ana and ben"))
    placed = []
    for e in marks(root, "mark"):
        shape = [child for child in e if child.tag != f"{NS}title"][0]
        if shape.tag == f"{NS}circle":
            x, y = float(shape.attrib["cx"]), float(shape.attrib["cy"])
        else:  # a square: its corner; the same offset for every mark of the series
            x, y = float(shape.attrib["x"]), float(shape.attrib["y"])
        placed.append((e.attrib["data-series"], int(e.attrib["data-x"]), value(e), x, y))
    for name in ("ana", "ben"):
        mine = [p for p in placed if p[0] == name]
        for a in mine:
            for b in mine:
                if a[1] < b[1]:
                    assert a[3] < b[3]
                if a[2] < b[2]:
                    assert a[4] > b[4]


def test_series_differ_by_shape_and_dash_not_only_by_colour() -> None:
    rows = [(f"p{i}", turn, turn * i) for i in range(6) for turn in (1, 2)]
    root = parse(charts.score_lines(rows, "six players"))
    legends = [e for e in root.iter(f"{NS}g") if e.attrib.get("class") == "legend"]
    assert [e.attrib["data-series"] for e in legends] == [f"p{i}" for i in range(6)]
    assert len({e.attrib["data-shape"] for e in legends}) == 6
    dashes = [line.attrib.get("stroke-dasharray") for e in legends for line in e.iter(f"{NS}line")]
    assert len(set(dashes)) == 6
    for e in legends:  # every mark of a series has the legend's shape
        shapes = {
            m.attrib["data-shape"] for m in marks(root, "mark") if m.attrib["data-series"] == e.attrib["data-series"]
        }
        assert shapes == {e.attrib["data-shape"]}


@pytest.mark.parametrize("shape", charts.SHAPES)
def test_a_marker_drawn_fast_is_the_same_text_as_the_generic_one(shape: str) -> None:
    paint = svg.colour("orange")
    drawn = charts.marker_drawer(shape, paint, 3.5)
    for x, y in [(54, 82.5), (0.125, -3.333), (381.99, 250.005), (12.345, 7)]:
        assert drawn(x, y) == charts.marker(shape, x, y, paint, 3.5)


def test_a_mark_is_written_as_the_generic_group_writes_it() -> None:
    rows = [('a<&"b', 1, 3), ('a<&"b', 2, -1.5), ("c", 1, 0)]
    root = parse(charts.score_lines(rows, "marks", y_label="pad & score"))
    shown = [
        (m.attrib["data-series"], m.attrib["data-x"], m.attrib["data-value"], m.find(f"{NS}title").text)
        for m in marks(root, "mark")
    ]
    assert shown == [
        ('a<&"b', "1", "3", 'a<&"b: 3 pad & score at turn 1'),
        ('a<&"b', "2", "-1.5", 'a<&"b: -1.5 pad & score at turn 2'),
        ("c", "1", "0", "c: 0 pad & score at turn 1"),
    ]


def test_negative_scores_and_a_single_turn_are_drawn() -> None:
    rows = [{"player": "ana", "turn": 5, "score": -35}, {"player": "ben", "turn": 5, "score": 12}]
    root = parse(charts.score_lines(rows, "one turn", y_label="pad score"))
    assert sorted(value(e) for e in marks(root, "mark")) == [-35, 12]
    ticks = [float(t.text) for t in root.iter(f"{NS}text") if t.attrib.get("text-anchor") == "end" and t.text]
    assert min(ticks) <= -35 and max(ticks) >= 12


def test_nice_ticks_cover_the_range_in_round_steps() -> None:
    assert charts.nice_ticks(0, 18) == [0, 5, 10, 15, 20]
    assert charts.nice_ticks(-35, 12) == [-40, -30, -20, -10, 0, 10, 20]
    assert charts.nice_ticks(3, 3) == [3, 3.2, 3.4, 3.6, 3.8, 4]


# --------------------------------------------------------------------------- bars, ranked lists, rivalries


def test_bars_give_back_their_numbers_and_their_lengths_follow_them() -> None:
    rows = [("seat 1", 31.5), ("seat 2", 27.0, "n=40"), ("seat 3", 22.25), ("seat 4", 0)]
    root = parse(charts.bars(rows, "win rate by seat", "%", "rests on 120 games"))
    found = marks(root, "bar")
    assert [(e.attrib["data-label"], value(e)) for e in found] == [(label, number) for label, number, *_ in rows]
    widths = [float(e.find(f"{NS}rect").attrib["width"]) for e in found]  # type: ignore[union-attr]
    assert widths[0] / widths[1] == pytest.approx(31.5 / 27.0, rel=0.01)
    assert widths[3] <= 1
    assert "rests on 120 games" in " ".join(t.text or "" for t in root.iter(f"{NS}text"))


def test_bars_below_zero_go_left_of_the_axis() -> None:
    root = parse(charts.bars([("round 1", 12), ("round 2", -30)], "score per round"))
    first, second = (e.find(f"{NS}rect") for e in marks(root, "bar"))
    assert second is not None and first is not None
    assert float(second.attrib["x"]) + float(second.attrib["width"]) == pytest.approx(
        float(first.attrib["x"]), abs=0.01
    )


def test_a_ranked_list_keeps_the_query_order() -> None:
    rows = [
        {"label": "game b", "value": 412, "detail": "4 players"},
        {"label": "game a", "value": 390, "detail": None},
        {"label": "game c", "value": 388},
    ]
    root = parse(charts.ranked(rows, "the longest games", " events"))
    found = marks(root, "ranked")
    assert [(e.attrib["data-rank"], e.attrib["data-label"], value(e)) for e in found] == [
        ("1", "game b", 412),
        ("2", "game a", 390),
        ("3", "game c", 388),
    ]


def test_head_to_head_cells_are_the_wins_summed() -> None:
    rows = [("ana", "ben", 5), ("ben", "ana", 3), ("cy", "ana", 7), ("ana", "ben", 1)]
    root = parse(charts.head_to_head(rows, "rivalries"))
    cells = {(e.attrib["data-series"], e.attrib["data-label"]): value(e) for e in marks(root, "cell")}
    assert cells[("ana", "ben")] == 6 and cells[("ben", "ana")] == 3 and cells[("cy", "ana")] == 7
    assert cells[("ben", "cy")] == 0 and ("ana", "ana") not in cells
    assert len(cells) == 6


@pytest.mark.parametrize("chart", [charts.bars, charts.ranked, charts.head_to_head])
def test_no_rows_is_said_not_drawn(chart: Any) -> None:
    root = parse(chart([], "nothing yet"))
    assert not [e for e in root.iter() if "data-value" in e.attrib]
    assert "no data" in " ".join(t.text or "" for t in root.iter(f"{NS}text"))


def test_a_moment_of_nobody_is_listed_without_a_name() -> None:
    root = parse(
        charts.score_lines(SCORES, "ana and ben", moments=[{"turn": 2, "player": None, "what": "the round ends"}])
    )
    [moment] = marks(root, "moment")
    assert value(moment) == 2 and "data-series" not in moment.attrib
    assert "1 · turn 2 · the round ends" in [t.text for t in root.iter(f"{NS}text")]


def test_no_score_rows_is_said_not_drawn() -> None:
    root = parse(charts.score_lines([], "nothing yet"))
    assert not [e for e in root.iter() if "data-value" in e.attrib]


def test_names_are_text_and_charts_are_the_same_bytes_every_time() -> None:
    hostile = '<script>alert("x")</script> & co'
    rows = [(hostile, 1, 2), ("ben", 1, 3)]
    document = charts.score_lines(rows, hostile, moments=[(1, hostile, "<b>won</b>")])
    root = parse(document)
    assert not list(root.iter(f"{NS}script")) and not list(root.iter(f"{NS}b"))
    assert document == charts.score_lines(list(rows), hostile, moments=[(1, hostile, "<b>won</b>")])
    assert charts.head_to_head([(hostile, "ben", 1)], "x") == charts.head_to_head([(hostile, "ben", 1)], "x")


# --------------------------------------------------------------------------- golden charts

SPLIT_TOTALS = [
    (name, turn, score)
    for name, scores in (
        ("ana", (0, -5, 10, 25, 20, 45)),
        ("ben", (0, 15, 5, 5, 30, 35)),
        ("cy", (0, 0, -15, -10, 0, 15)),
    )
    for turn, score in zip((0, 12, 20, 31, 40, 52), scores)
]
GOLDEN = {
    "score_lines": lambda: charts.score_lines(
        SPLIT_TOTALS,
        "Split, 3 players: pad score over the turns",
        rounds=[(2, 20), (3, 40)],
        moments=[(31, "ana", "ends round 2 with a perfect match"), (52, "ana", "wins with 45")],
        y_label="pad score",
    ),
    "bars": lambda: charts.bars(
        [("2 players", 52.5, "40 games"), ("3 players", 35.0, "31 games"), ("4 players", 24.1, "12 games")],
        "Splendor: the first player's win rate by player count",
        "%",
        "rests on 83 finished games",
    ),
    "head_to_head": lambda: charts.head_to_head(
        [
            ("ana", "ben", 12),
            ("ben", "ana", 9),
            ("ana", "cy", 4),
            ("cy", "ana", 6),
            ("ben", "cy", 3),
            ("dee", "ben", 1),
        ],
        "Rivalries: head-to-head wins",
    ),
    "ranked": lambda: charts.ranked(
        [
            ("2026-03-14 split, 4 players", 483, "3 rounds, ben won by 5"),
            ("2026-02-01 array, 3 players", 350, "7 rounds"),
            ("2025-12-24 splice, 3 players", 332, None),
        ],
        "The longest games",
        " events",
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_chart(svg_snapshot, name: str) -> None:  # type: ignore[no-untyped-def]
    document = GOLDEN[name]()
    parse(document)
    assert document == GOLDEN[name]()
    assert document == svg_snapshot


# --------------------------------------------------------------------------- from a real library


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("charts") / "tally.duckdb"
    summary = library.ingest(path, sorted((ROOT / "fixtures" / "games").glob("*.jsonl")), jobs=1)
    assert not summary.rejected
    return path


def rows_of(db: Path, sql: str) -> list[tuple[Any, ...]]:
    return list(library.query(db, sql).rows())


def test_a_game_from_the_library(db: Path) -> None:
    game = "(SELECT min(game_id) FROM games WHERE game = 'splendor' AND player_count = 4)"
    rows = rows_of(db, f"SELECT player, turn, points FROM splendor_turns WHERE game_id = {game} ORDER BY turn")
    nobles = rows_of(
        db,
        f"SELECT t.turn, t.player, 'is visited by a noble' FROM splendor_turns t WHERE t.game_id = {game} "
        "AND t.nobles > coalesce((SELECT max(p.nobles) FROM splendor_turns p WHERE p.game_id = t.game_id "
        "AND p.player = t.player AND p.turn < t.turn), 0) ORDER BY t.turn",
    )
    assert rows and nobles
    document = charts.score_lines(rows, "Splendor, 4 players: points after each turn", moments=nobles)
    root = parse(document)
    assert Counter(
        (e.attrib["data-series"], int(e.attrib["data-x"]), value(e)) for e in marks(root, "mark")
    ) == Counter(rows)
    assert sorted(value(e) for e in marks(root, "moment")) == sorted(turn for turn, _, _ in nobles)


def test_the_library_in_bars_and_a_matrix(db: Path) -> None:
    by_seat = rows_of(
        db,
        "SELECT 'seat ' || s.seat, round(100 * avg(CASE WHEN s.won THEN 1 ELSE 0 END), 1), "
        "count(*) || ' games' FROM seats s JOIN games g USING (game_id) WHERE g.finished "
        "GROUP BY s.seat ORDER BY s.seat",
    )
    root = parse(charts.bars(by_seat, "win rate by seat, every game", "%"))
    assert [(e.attrib["data-label"], value(e)) for e in marks(root, "bar")] == [
        (label, rate) for label, rate, _ in by_seat
    ]
    rivals = rows_of(
        db,
        "SELECT w.player, l.player, count(*) FROM seats w JOIN seats l USING (game_id) "
        "JOIN games g USING (game_id) WHERE g.finished AND w.won AND NOT l.won GROUP BY ALL ORDER BY ALL",
    )
    assert rivals
    document = charts.head_to_head(rivals, "rivalries in the bundled games")
    root = parse(document)
    cells = {(e.attrib["data-series"], e.attrib["data-label"]): value(e) for e in marks(root, "cell")}
    for winner, loser, wins in rivals:
        assert cells[(winner, loser)] == wins
    assert sum(cells.values()) == sum(wins for _, _, wins in rivals)
    longest = rows_of(
        db,
        "SELECT source, events, game || ', ' || player_count || ' players' FROM games "
        "ORDER BY events DESC, source LIMIT 5",
    )
    ranked = parse(charts.ranked([(Path(s).name, n, d) for s, n, d in longest], "the longest games", " events"))
    assert [value(e) for e in marks(ranked, "ranked")] == [n for _, n, _ in longest]
