"""The library's games as a list to browse: filtered by game, player (aliases merged), date and real or simulated,
newest first, one struct per game (what a library page lists; each row's `game_id` opens its chart
(`library_charts.course_in_library` and `game_chart`) and its replay (`library.replay`))."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import duckdb
import msgspec

from tally.store.library.schema import LibraryError, _duck_message, connect_read_only, usage_error


class LibraryGame(msgspec.Struct):
    """One game of the library, as listed: the name the host gave it, its players as the aliases name them, its
    winners, its length."""

    game_id: str
    name: Annotated[
        str,
        msgspec.Meta(
            description=(
                "the name the game was given where it was recorded: its log's file name without `.jsonl` (`friday` for "
                "`games/friday.jsonl`, the id `tally serve`'s host gave it), or its id in a PostgreSQL log store"
            )
        ),
    ]
    game: str
    started_at: str | None
    players: list[str]
    winners: list[str]
    finished: bool
    simulated: bool
    events: int
    turns: int | None
    result: str | None


class GameList(msgspec.Struct):
    """A page of the list: the games shown, how many match the filters in all, and the filters as applied."""

    games: list[LibraryGame]
    total: int
    filters: dict[str, str | bool | None]


def name_of(source: str | None, game_id: str) -> str:
    """The name a game was given where it was recorded, read from where the library last ingested it: a log file's
    name without `.jsonl` (`games/friday.jsonl`: friday), a PostgreSQL store's game id (`postgresql://...#friday`);
    its library id when the library does not know where it came from."""
    if not source:
        return game_id
    if source.startswith(("postgresql://", "postgres://")):  # `URL#GAME` (pgstore.game_url)
        return source.rsplit("#", 1)[-1] or game_id
    name = source.replace("\\", "/").rsplit("/", 1)[-1]
    return name.removesuffix(".jsonl") or game_id


def games(
    db: Path | str,
    game: str | None = None,
    player: str | None = None,
    since: date | None = None,
    until: date | None = None,
    simulated: bool | None = False,
    limit: int = 100,
    offset: int = 0,
    game_id: str | None = None,
) -> GameList:
    """The games matching every filter given: `player` is a person (an alias's person, or a seat's name),
    `since`/`until` dates of the start (UTC, both included), `simulated` False for games played at a table, True
    for simulated ones, None for both; `game_id` one game's row."""
    if not 0 < limit <= 10_000 or offset < 0:
        raise usage_error(f"limit {limit}, offset {offset}: expected a limit of 1 to 10000 and an offset of 0 or more")
    where = ["TRUE"]
    params: dict[str, object] = {}
    if game_id is not None:
        where.append("g.game_id = $game_id")
        params["game_id"] = game_id
    if game is not None:
        where.append("g.game = $game")
        params["game"] = game
    if simulated is not None:
        where.append("g.simulated = $simulated")
        params["simulated"] = simulated
    if since is not None:
        where.append("CAST(g.started_at AS DATE) >= $since")
        params["since"] = since
    if until is not None:
        where.append("CAST(g.started_at AS DATE) <= $until")
        params["until"] = until
    if player is not None:
        where.append(
            "g.game_id IN (SELECT s.game_id FROM seats s LEFT JOIN aliases a ON a.name = s.player "
            "WHERE coalesce(a.player, s.player) = $player)"
        )
        params["player"] = player
    condition = " AND ".join(where)
    con = connect_read_only(db)
    try:
        total = con.execute(f"SELECT count(*) FROM games g WHERE {condition}", params).fetchall()[0][0]
        # the page's games are chosen first, then only their seats are gathered (not every game's, to keep a page)
        rows = con.execute(
            f"""
            WITH page AS (SELECT * FROM games g WHERE {condition}
                          ORDER BY g.started_at DESC NULLS LAST, g.game_id LIMIT {int(limit)} OFFSET {int(offset)})
            SELECT g.game_id, g.source, g.game, strftime(g.started_at, '%Y-%m-%dT%H:%M:%SZ'),
                   list(coalesce(a.player, s.player) ORDER BY s.seat),
                   list(coalesce(a.player, s.player) ORDER BY s.seat) FILTER (WHERE s.won),
                   g.finished, g.simulated, g.events, g.turns, g.result
            FROM page g JOIN seats s USING (game_id) LEFT JOIN aliases a ON a.name = s.player
            GROUP BY g.game_id, g.source, g.game, g.started_at, g.finished, g.simulated, g.events, g.turns, g.result
            ORDER BY g.started_at DESC NULLS LAST, g.game_id""",
            params,
        ).fetchall()
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    listed = [
        LibraryGame(
            gid, name_of(source, gid), kind, at, people, won or [], bool(done), bool(sim), int(events), turns, result
        )
        for gid, source, kind, at, people, won, done, sim, events, turns, result in rows
    ]
    filters: dict[str, str | bool | None] = {
        "game": game,
        "player": player,
        "since": since.isoformat() if since is not None else None,
        "until": until.isoformat() if until is not None else None,
        "simulated": simulated,
    }
    return GameList(listed, int(total), filters)
