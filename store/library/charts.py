"""Charts of the history library and of one game, as SVG (`core/charts.py` draws; this module asks).

Each library chart is one query over the common tables (games, seats, round_results), scoped like
`tally stats` (simulated games left out unless asked for, aliases merged), and says how many games it
rests on. `Chart` keeps the query's rows beside the picture, so a page, a CSV or a test reads the same
numbers the picture was drawn from. One game's chart is drawn from the fold of its log (`core.history.course`),
whether the log is a file or a game stored in the library.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import duckdb
import msgspec

from tally.core import charts
from tally.core.engine import judge
from tally.core.history import Course, course
from tally.store.library.read import game_bytes
from tally.store.library.report import ALIASED, PERSON, SCALE, Scope
from tally.store.library.schema import LibraryError, _duck_message, connect_read_only, stored_reports
from tally.store.logs import log as logfile
from tally.store.recording.record import IllegalLog


class Chart(msgspec.Struct):
    """One chart: its file name's stem, title, the columns and rows it was drawn from, the games it rests on,
    and the picture (SVG text)."""

    key: Annotated[str, msgspec.Meta(description="the chart's name (its file's stem with `tally stats --svg`)")]
    title: str
    columns: Annotated[list[str], msgspec.Meta(description="the query's columns")]
    rows: Annotated[list[list[Any]], msgspec.Meta(description="the query's rows, which the picture's marks show")]
    games: Annotated[int, msgspec.Meta(description="how many games the chart rests on")]
    svg: Annotated[str, msgspec.Meta(description="the picture (an SVG document)")]


# --------------------------------------------------------------------------- one game


def course_of(path: str, data: bytes) -> Course:
    """How the game in a log's bytes went (verified and judged like `tally check`; an illegal log is refused)."""
    log = logfile.parse_lines(path, data)
    judgement, table = judge(log.spec, log.events)
    if not judgement.ok and judgement.failed_seq is not None:
        raise IllegalLog(path, judgement.failed_seq, next(r for r in judgement.rulings if r.verdict == "illegal"))
    return course(log.spec, log.started, table.effective)


def course_of_log(path: Path | str) -> Course:
    return course_of(str(path), logfile.read_regular(path))


def course_in_library(db: Path | str, game_id: str) -> Course:
    """How a stored game went: its exact lines, read back and folded like its file."""
    gid, data = game_bytes(db, game_id)
    return course_of(f"{db}#{gid}", data)


MOST_TURNS = 120  # turns a game's chart draws at most: a long game's turns are sampled, so its chart stays small
MOST_MOMENTS = 40  # moments listed under it at most: a long game's latest


def sampled(played: Course, turns: int = MOST_TURNS, moments: int = MOST_MOMENTS) -> Course:
    """`played` with at most `turns` turns of points (evenly spaced, the first and the last kept) and its last
    `moments` moments: what a chart of a game of any length draws in about the same room."""
    import msgspec

    every = sorted({point.turn for point in played.points})
    if len(every) <= turns and len(played.moments) <= moments:
        return played
    kept = (
        set(every) if len(every) <= turns else {every[round(i * (len(every) - 1) / (turns - 1))] for i in range(turns)}
    )
    return msgspec.structs.replace(
        played, points=[point for point in played.points if point.turn in kept], moments=played.moments[-moments:]
    )


def game_chart(played: Course, title: str | None = None) -> Chart:
    """Each player's score over the turns, the round boundaries and the moments that decided it."""
    from tally.core import registry

    history = registry.get(played.game).history
    heading = title or (
        f"{registry.get(played.game).title}, {len(played.seats)} players: {history.score_label} "
        f"after each turn" + ("" if played.finished else " (unfinished)")
    )
    picture = charts.score_lines(
        [(p.player, p.turn, p.score) for p in played.points],
        heading,
        played.rounds,
        [(m.turn, m.player, m.what) for m in played.moments],
        y_label=history.score_label,
    )
    return Chart(
        "game", heading, ["player", "turn", "score"], [[p.player, p.turn, p.score] for p in played.points], 1, picture
    )


# --------------------------------------------------------------------------- the library


def _queries(where: str) -> list[tuple[str, str, str, str, str]]:
    """(key, title, kind, unit, SQL) of each library chart. Every query returns (label, value, detail) rows
    (a rivalry: winner, loser, wins) and a `games` column: how many games that row rests on."""
    finished = f"g.finished {where}"
    return [
        (
            "win_rate_by_seat",
            "Win rate by seat, per game and player count",
            "bars",
            "%",
            f"""
            SELECT g.game || ', ' || g.player_count || ' players, seat ' || s.seat AS label,
                   round(100 * avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END), 1) AS value,
                   count(*) || ' games' AS detail, count(*) AS games
            FROM seats s JOIN games g USING (game_id) WHERE {finished}
            GROUP BY g.game, g.player_count, s.seat ORDER BY g.game, g.player_count, s.seat""",
        ),
        (
            "win_rate_by_player_count",
            "Win rate by player and player count, per game",
            "bars",
            "%",
            f"""
            SELECT g.game || ', ' || g.player_count || ' players: ' || {PERSON} AS label,
                   round(100 * avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END), 1) AS value,
                   count(*) || ' games' AS detail, count(*) AS games
            FROM seats s JOIN games g USING (game_id) {ALIASED} WHERE {finished}
            GROUP BY g.game, g.player_count, {PERSON} ORDER BY g.game, g.player_count, label""",
        ),
        (
            "games_per_month",
            "Games per month",
            "bars",
            " games",
            f"""
            SELECT strftime(g.started_at, '%Y-%m') AS label, count(*) AS value,
                   count(*) FILTER (WHERE g.finished) || ' finished' AS detail, count(*) AS games
            FROM games g WHERE g.started_at IS NOT NULL {where} GROUP BY label ORDER BY label""",
        ),
        (
            "score_per_round",
            "Average score per round (games scored round by round)",
            "bars",
            "",
            f"""
            SELECT g.game || ', ' || g.player_count || ' players, round ' || r.round AS label,
                   round(avg(r.score), 1) AS value, count(DISTINCT r.game_id) || ' games' AS detail,
                   count(DISTINCT r.game_id) AS games
            FROM round_results r JOIN games g USING (game_id)
            WHERE {finished} AND g.game_id IN (SELECT game_id FROM round_results WHERE round > 1)
            GROUP BY g.game, g.player_count, r.round ORDER BY g.game, g.player_count, r.round""",
        ),
        (
            "rivalries",
            "Rivalries: head-to-head wins",
            "head_to_head",
            "",
            f"""
            SELECT coalesce(aw.player, w.player) AS winner, coalesce(al.player, l.player) AS loser,
                   count(*) AS wins, count(DISTINCT g.game_id) AS games
            FROM seats w JOIN seats l ON l.game_id = w.game_id AND l.seat <> w.seat JOIN games g ON g.game_id = w.game_id
            LEFT JOIN aliases aw ON aw.name = w.player LEFT JOIN aliases al ON al.name = l.player
            WHERE {finished} AND w.won AND NOT l.won GROUP BY ALL ORDER BY winner, loser""",
        ),
        (
            "longest_games",
            "The longest games (turns)",
            "ranked",
            " turns",
            f"""
            SELECT strftime(g.started_at, '%Y-%m-%d') || ' ' || g.game || ', ' || g.player_count || ' players' AS label,
                   g.turns AS value, coalesce(g.result, '') AS detail, 1 AS games
            FROM games g WHERE {finished} ORDER BY g.turns DESC, g.game_id LIMIT 10""",
        ),
        (
            "closest_games",
            "The closest games (points between the winner and the next, within one game and scale)",
            "ranked",
            " apart",
            f"""
            WITH ranked AS (
                SELECT g.game_id, g.game, g.player_count, g.started_at, {SCALE} AS scale,
                       s.score, row_number() OVER (PARTITION BY g.game_id ORDER BY
                           CASE WHEN s.won THEN 0 ELSE 1 END, s.score * CASE WHEN {LOWER_WINS} THEN 1 ELSE -1 END) AS place
                FROM seats s JOIN games g USING (game_id) WHERE {finished} AND s.score IS NOT NULL)
            SELECT strftime(any_value(started_at), '%Y-%m-%d') || ' ' || any_value(game) || ', ' ||
                       any_value(player_count) || ' players' AS label,
                   abs(max(score) FILTER (WHERE place = 1) - max(score) FILTER (WHERE place = 2)) AS value,
                   any_value(game_id) AS detail, 1 AS games
            FROM ranked GROUP BY game_id HAVING count(*) FILTER (WHERE place = 2) > 0
            ORDER BY value, detail LIMIT 10""",
        ),
    ]


def _lower_wins(declared: list[dict[str, Any]]) -> str:
    """SQL true for a game whose lowest score wins (`History.lower_wins`, as the library keeps it)."""
    lower = [spec["game"] for spec in declared if spec["lower_wins"]]
    return "g.game IN (" + ", ".join(f"'{name}'" for name in lower) + ")" if lower else "FALSE"


LOWER_WINS = "{lower_wins}"


def library_charts(db: Path | str, game: str | None = None, simulated: bool = False) -> list[Chart]:
    """Every chart of the library (the page's and `tally stats --svg`'s), in a fixed order."""
    scope = Scope(game, simulated)
    params = scope.params()
    found: list[Chart] = []
    con = connect_read_only(db)
    try:
        lower_wins = _lower_wins(stored_reports(con))
        counted: dict[str, int] = {}  # most charts rest on the same games: counted once
        for key, title, kind, unit, sql in _queries(scope.where()):
            cursor = con.execute(sql.replace(LOWER_WINS, lower_wins), params)
            columns = [d[0] for d in cursor.description or []]
            rows = [list(row) for row in cursor.fetchall()]
            games = _rests_on(con, key, scope, rows, counted)
            found.append(_drawn(key, title, kind, unit, columns, rows, games, scope))
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    return found


def _rests_on(
    con: duckdb.DuckDBPyConnection, key: str, scope: Scope, rows: list[list[Any]], counted: dict[str, int] | None = None
) -> int:
    """How many games a chart rests on: the finished games in scope (games per month: every game in scope;
    score per round: those scored over several rounds; a ranked list: the games it ranks from). `counted`: the
    counts already made for the other charts of the same scope, by their SQL."""
    where = scope.where()
    if key == "games_per_month":
        return sum(int(row[-1]) for row in rows)
    if key == "score_per_round":
        sql = f"SELECT count(*) FROM games g WHERE g.finished {where} AND g.game_id IN (SELECT game_id FROM round_results WHERE round > 1)"
    else:
        sql = f"SELECT count(*) FROM games g WHERE g.finished {where}"
    known = {} if counted is None else counted
    if sql not in known:
        known[sql] = int(con.execute(sql, scope.params()).fetchall()[0][0])
    return known[sql]


def _drawn(
    key: str, title: str, kind: str, unit: str, columns: list[str], rows: list[list[Any]], games: int, scope: Scope
) -> Chart:
    which = f"{scope.game} games" if scope.game else "games"
    note = f"rests on {games} finished {which}" + ("" if scope.simulated else " (simulated games left out)")
    if key == "games_per_month":
        note = f"rests on {games} {which}" + ("" if scope.simulated else " (simulated games left out)")
    values = [[_number(v) for v in row] for row in rows]
    if kind == "head_to_head":
        picture = charts.head_to_head([row[:3] for row in values], title, note)
    else:
        draw = charts.ranked if kind == "ranked" else charts.bars
        picture = draw([row[:3] for row in values], title, unit, note)
    return Chart(key, title, columns, values, games, picture)


def _number(value: Any) -> Any:
    if type(value).__name__ == "Decimal":
        return float(value)
    return value
