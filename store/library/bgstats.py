"""Every finished game of the library as a play in BG Stats' import format, one JSON document per game.

The format is the one BG Stats documents for plays pushed to it by other apps ("Push plays to BG Stats
from other apps or websites", bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/):
`sourceName`, `sourcePlayId`, `playDate` (`YYYY-MM-DD HH:MM:SS`), `durationMin`, `game` (`name`,
`sourceGameId`, `highestWins`, `noPoints`) and `players` (`name`, `sourcePlayerId`, `score`, `winner`,
`rank`, `startPlayer`). Players are named as the aliases say (`tally alias`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import duckdb
import msgspec

from tally.core import registry

from tally.store.library.schema import LibraryError, _duck_message, connect_read_only

SOURCE = "tally"


class BgPlayer(msgspec.Struct):
    name: str
    sourcePlayerId: str
    score: float | None
    winner: bool
    rank: int
    startPlayer: bool


class BgGame(msgspec.Struct):
    name: str
    sourceGameId: str
    highestWins: bool
    noPoints: bool


class BgPlay(msgspec.Struct):
    sourceName: str
    sourcePlayId: str
    playDate: str
    durationMin: int
    game: BgGame
    players: list[BgPlayer]


def plays(db: Path | str, game: str | None = None, simulated: bool = False) -> list[BgPlay]:
    """The library's finished games as BG Stats plays, oldest first."""
    where = ("" if simulated else " AND NOT g.simulated") + (" AND g.game = $game" if game else "")
    con = connect_read_only(db)
    try:
        rows = con.execute(f"""
            SELECT g.game_id, g.game, strftime(g.started_at, '%Y-%m-%d %H:%M:%S'),
                   greatest(0, CAST(round(epoch(g.ended_at - g.started_at) / 60) AS INTEGER)),
                   list(coalesce(a.player, s.player) ORDER BY s.seat), list(s.player ORDER BY s.seat),
                   list(s.score ORDER BY s.seat), list(s.won ORDER BY s.seat)
            FROM games g JOIN seats s USING (game_id) LEFT JOIN aliases a ON a.name = s.player
            WHERE g.finished {where} GROUP BY g.game_id, g.game, g.started_at, g.ended_at
            ORDER BY g.started_at, g.game_id""", {"game": game} if game else {}).fetchall()
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    return [_play(*row) for row in rows]


def _play(gid: str, game: str, date: str | None, minutes: int | None, people: list[str], seats: list[str],
          scores: list[int | None], won: list[bool]) -> BgPlay:
    spec = registry.get(game)
    lower = spec.history.lower_wins
    order = sorted(range(len(seats)), key=lambda i: (not won[i], (scores[i] or 0) * (1 if lower else -1)))
    ranks: dict[int, int] = {}
    for place, i in enumerate(order, 1):  # a shared victory shares first place; a tie on the score shares a rank
        before = order[place - 2] if place > 1 else None
        same = before is not None and won[i] == won[before] and scores[i] == scores[before]
        ranks[i] = ranks[before] if same and before is not None else place
    points = [None if score is None else float(score) for score in scores]
    players = [BgPlayer(people[i], seats[i], points[i], bool(won[i]), ranks[i], i == 0) for i in range(len(seats))]
    return BgPlay(SOURCE, gid, date or "", int(minutes or 0), BgGame(spec.title, game, not lower, False), players)


def write(plays: list[BgPlay], target: Path) -> list[str]:
    """One `<game id>.json` per play in the (new or empty) folder `target`."""
    files = []
    for play in plays:
        path = target / f"{play.sourcePlayId}.json"
        with open(path, "xb") as handle:
            handle.write(msgspec.json.encode(play) + b"\n")
        files.append(str(path))
    return files


def as_document(play: BgPlay) -> dict[str, Any]:
    return msgspec.to_builtins(play)
