"""`tally stats`' report over the history library: which games it rests on (simulated games left out unless
asked for), one person's names merged by the aliases (`tally alias`), scores compared only within one game
and one scale, and every section saying how many games it rests on."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import _duckdb as duckdb  # the engine without the package's Python layer (library_schema says why)
import msgspec

from tally.store.library.schema import (
    LibraryError,
    _duck_message,
    connect,
    connect_read_only,
    stored_reports,
    usage_error,
)


class Scope(msgspec.Struct, frozen=True):
    """Which games a report rests on: one game type or all, and whether simulated games count."""

    game: str | None = None
    simulated: bool = False

    def where(self) -> str:
        """The `{where}` of a report's SQL (games aliased as `g`)."""
        return ("" if self.simulated else " AND NOT g.simulated") + (" AND g.game = $game" if self.game else "")

    def params(self) -> dict[str, Any]:
        return {"game": self.game} if self.game else {}


# the player a seat's name stands for: the alias's person, or the name itself
PERSON = "coalesce(a.player, s.player)"
ALIASED = "LEFT JOIN aliases a ON a.name = s.player"
# what a score is compared within: one game and one scale (its options decide the target and what is counted)
SCALE = "CAST(g.options AS VARCHAR)"


def rows_of(con: duckdb.DuckDBPyConnection, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    cursor = con.execute(sql, params)
    names = [d[0] for d in cursor.description or []]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


# --------------------------------------------------------------------------- the games' reports, kept by ingest

# A game's reports read its own tables, which only an ingest changes: the ingest works them out once (for the games
# with and without the simulated ones) and keeps their rows in `report_rows`, so that `tally stats` reads one small
# table instead of scanning and joining every turn. A kept report is used only while its mark is what the library
# holds now: the ids and fingerprints of the games it reads (that game's, real or all: any ingest that changes a
# game changes its fingerprint, whichever tally wrote it) and the report's SQL; otherwise it is worked out there and
# then, as before.
EVERY_ROW = 1 << 40  # a kept report's `{limit}`: all its rows, in the report's total order; `--top` is a slice of them


def is_kept(report: dict[str, Any]) -> bool:
    """Whether a report's rows can be kept: they depend on the games alone, not on what `tally alias` says."""
    return "aliases" not in report["sql"]


def _game_marks(con: duckdb.DuckDBPyConnection) -> dict[tuple[str, bool], str]:
    """(game, simulated counted) -> the mark of the games a report of that scope reads: a simulated game added
    changes only the reports that count simulated games."""
    marks = {}
    for game, real, every in con.execute(
        "SELECT game, md5(string_agg(game_id || ':' || fingerprint, ',' ORDER BY game_id) FILTER (WHERE NOT simulated)), "
        "md5(string_agg(game_id || ':' || fingerprint, ',' ORDER BY game_id)) FROM games GROUP BY game"
    ).fetchall():
        marks[(game, False)], marks[(game, True)] = real or "", every
    return marks


def _mark(game_mark: str | None, sql: str) -> str:
    import hashlib

    return hashlib.sha256(f"{game_mark or ''}\n{sql}".encode()).hexdigest()[:32]


def keep_reports(con: duckdb.DuckDBPyConnection) -> int:
    """Work out again the kept reports whose games changed (after an ingest's writes); how many were."""
    marks = _game_marks(con)
    kept = {
        (game, report, bool(simulated)): mark
        for game, report, simulated, mark in con.execute(
            "SELECT game, report, simulated, mark FROM report_rows"
        ).fetchall()
    }
    fresh = []
    for spec in stored_reports(con):
        for report in spec["reports"]:
            if not is_kept(report):
                continue
            for simulated in (False, True):
                mark = _mark(marks.get((spec["game"], simulated)), report["sql"])
                if kept.get((spec["game"], report["key"], simulated)) == mark:
                    continue
                sql = report["sql"].format(where=Scope(None, simulated).where(), limit=EVERY_ROW)
                rows = [plain(row) for row in rows_of(con, sql, {})]
                fresh.append((spec["game"], report["key"], simulated, mark, msgspec.json.encode(rows).decode()))
    if not fresh:
        return 0
    con.execute("BEGIN TRANSACTION")
    try:
        for row in fresh:
            con.execute("DELETE FROM report_rows WHERE game = ? AND report = ? AND simulated = ?", list(row[:3]))
        con.executemany("INSERT INTO report_rows VALUES (?, ?, ?, ?, ?)", fresh)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return len(fresh)


def _kept_rows(
    con: duckdb.DuckDBPyConnection, declared: list[dict[str, Any]], simulated: bool, top: int
) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """The kept reports still true of the library, (game, key) -> rows as the report's query gives them (`--top`
    applied); none from a library written before reports were kept."""
    if top < 0:
        return {}
    try:
        stored = con.execute(
            "SELECT game, report, mark, rows FROM report_rows WHERE simulated = ?", [simulated]
        ).fetchall()
    except duckdb.CatalogException:
        return {}
    if not stored:
        return {}
    marks = _game_marks(con)
    sql = {(spec["game"], report["key"]): report["sql"] for spec in declared for report in spec["reports"]}
    found = {}
    for game, key, mark, rows in stored:
        text = sql.get((game, key))
        if text is None or mark != _mark(marks.get((game, simulated)), text):
            continue
        decoded: list[dict[str, Any]] = msgspec.json.decode(rows)
        found[(game, key)] = decoded[:top] if "{limit}" in text else decoded
    return found


def stats(db: Path | str, game: str | None = None, top: int = 10, simulated: bool = False) -> dict[str, Any]:
    """The canned report behind `tally stats` (see docs/sql.md for the queries)."""
    scope = Scope(game, simulated)
    where, params = scope.where(), scope.params()
    con = connect_read_only(db)
    try:

        def rows(sql: str) -> list[dict[str, Any]]:
            return rows_of(con, sql, params)

        games = rows(f"""
            SELECT g.game, count(*) AS games, count(*) FILTER (WHERE g.finished) AS finished,
                   sum(g.events) AS events, avg(g.events) AS avg_events, avg(g.turns) AS avg_turns,
                   min(g.started_at) AS first, max(g.ended_at) AS last
            FROM games g WHERE TRUE {where} GROUP BY g.game ORDER BY g.game""")
        left_out = (
            0
            if simulated
            else con.execute(
                "SELECT count(*) FROM games g WHERE g.simulated" + (" AND g.game = $game" if game else ""), params
            ).fetchall()[0][0]
        )
        players = rows(f"""
            SELECT g.game, {SCALE} AS scale, {PERSON} AS player, count(*) AS games,
                   count(*) FILTER (WHERE s.won) AS wins, avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS win_rate,
                   avg(s.score) AS avg_score
            FROM seats s JOIN games g USING (game_id) {ALIASED}
            WHERE g.finished {where} GROUP BY ALL ORDER BY g.game, scale, win_rate DESC, games DESC, player""")
        seats = rows(f"""
            SELECT g.game, g.player_count AS players, s.seat, count(*) AS games, count(*) FILTER (WHERE s.won) AS wins,
                   avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS win_rate
            FROM seats s JOIN games g USING (game_id)
            WHERE g.finished {where} GROUP BY ALL ORDER BY g.game, players, s.seat""")
        declared = stored_reports(con)  # read from the library: no game is loaded for a report
        kept = _kept_rows(con, declared, simulated, int(top))
        reports: dict[str, dict[str, list[dict[str, Any]]]] = {}
        for spec in declared:  # every report key is always present, so the document's shape is stable
            for report in spec["reports"]:
                found = reports.setdefault(report["key"], {})
                if not game or spec["game"] == game:  # a game's report reads that game's tables only
                    known = kept.get((spec["game"], report["key"]))
                    found[spec["game"]] = (
                        known if known is not None else rows(report["sql"].format(where=where, limit=int(top)))
                    )
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    total = sum(r["games"] for r in games)
    finished = {r["game"]: int(r["finished"] or 0) for r in games}
    every = {r["game"]: int(r["games"]) for r in games}
    rests_on: dict[str, Any] = {"by_game": total, "players": sum(finished.values()), "seats": sum(finished.values())}
    sections = []
    for spec in declared:
        for report in spec["reports"]:  # a game's report reads its finished games, or all of them
            counted = finished if "g.finished" in report["sql"] else every
            name = spec["game"]
            rests_on.setdefault(report["key"], {})[name] = counted.get(name, 0) if not game or name == game else 0
            sections.append(
                {
                    "game": name,
                    "key": report["key"],
                    "title": report["title"],
                    "columns": report["columns"],
                    "chart": report["chart"],
                }
            )
    return {
        "db": str(db),
        "game": game,
        "simulated": simulated,
        "games": total,
        "finished": sum(finished.values()),
        "simulated_left_out": int(left_out),
        "rests_on": rests_on,
        "sections": sections,
        "by_game": [plain(r) for r in games],
        "players": [plain(r) for r in players],
        "seats": [plain(r) for r in seats],
        **{
            key: {name: [plain(r) for r in found] for name, found in by_game.items()}
            for key, by_game in reports.items()
        },
    }


def plain(row: dict[str, Any]) -> dict[str, Any]:
    """JSON-ready values: rounded floats, ISO times, plain ints."""
    out = {}
    for key, value in row.items():
        if isinstance(value, float):
            value = round(value, 4)
        elif hasattr(value, "isoformat"):
            value = value.isoformat().replace("+00:00", "Z")
        elif value is not None and type(value).__name__ in ("Decimal", "int64"):
            value = float(value) if type(value).__name__ == "Decimal" else int(value)
        out[key] = value
    return out


# --------------------------------------------------------------------------- tally alias


class Alias(msgspec.Struct):
    """`tally alias NAME PERSON`: the library's aliases after it, and how many seats now read as PERSON."""

    db: str
    name: str
    player: str | None
    seats: int
    aliases: dict[str, str]


def alias(db: Path | str, name: str, player: str | None) -> Alias:
    """Say that the seats named `name` are `player` in every report (`player` None: forget what was said).
    A name may stand for one person only; a person is never itself another's alias (no chains)."""
    for text in (name, player):
        if text is not None and (not text.strip() or len(text) > 60 or not text.isprintable()):
            raise usage_error(f"{text!r}: an alias is a printable name of 1 to 60 characters")
    if player is not None and name == player:
        raise usage_error(f"{name!r} is already itself: give another name to merge it into")
    if not Path(db).exists():
        raise usage_error(f"{db}: no history library here; create one with `tally ingest LOGS... --db {db}`")
    con = connect(db)
    try:
        con.execute("BEGIN TRANSACTION")
        if player is not None:
            if con.execute("SELECT count(*) FROM aliases WHERE player = ?", [name]).fetchall()[0][0]:
                con.execute("ROLLBACK")
                raise usage_error(f"{name!r} is the person other names stand for: merge them into {player!r} first")
            chained = con.execute("SELECT player FROM aliases WHERE name = ?", [player]).fetchall()
            if chained:
                player = chained[0][0]  # `player` is itself an alias: merge into the person it stands for
        con.execute("DELETE FROM aliases WHERE name = ?", [name])
        if player is not None:
            con.execute("INSERT INTO aliases VALUES (?, ?, now())", [name, player])
        con.execute("COMMIT")
        seats = con.execute("SELECT count(*) FROM seats WHERE player = ?", [name]).fetchall()[0][0]
        said = dict(con.execute("SELECT name, player FROM aliases ORDER BY name").fetchall())
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot write the alias: {_duck_message(error)}") from None
    finally:
        con.close()
    return Alias(str(db), name, player, int(seats), said)
