"""A finished game as a play of BG Stats, and the link that logs it there: computed here once, for `tally export
--format bgstats` (every finished game of the library) and for a finished game's page (`tally serve`).

BG Stats takes a play pushed by another app only as a link, `https://app.bgstatsapp.com/createPlay.html?data=`
and the play's JSON, URL-encoded, opened on the phone that has BG Stats ("Push plays to BG Stats from other apps
or websites", bgstatsapp.com/support/push-plays-to-bg-stats-from-other-apps-or-websites/), one play per link. The
play's fields, as that page documents them:

- `sourceName` (text, required): `tally`; `sourcePlayId` (text): the game's id in the library (the first 16 hex
  digits of the SHA-256 of its first line), the same from the export and from the page, so BG Stats knows a play
  it was given twice; `playDate` (text, required, `YYYY-MM-DD HH:MM:SS`): when the game began, in the time zone
  chosen (BG Stats reads it as the phone's local time: `--timezone`, by default the machine's; the page's, its
  phone's); `durationMin` (a whole number): from the first line to the last, when both times are known;
- `game`: `name` (text, required, the game's title), `sourceGameId` (text, required, tally's name of the game),
  `bggId` (a number: the game's id on BoardGameGeek, only where the game has one, `GameSpec.bgg_id`),
  `highestWins` and `noPoints` (booleans, always given);
- `players`, in seat order: `name` (the aliases' person in the library, else the seat's name), `sourcePlayerId`
  (the seat's name), `score` (a number, left out when the game does not know it: BG Stats' Android app is known to
  fail on a field it does not expect, `null` among them), `winner` and `startPlayer` (booleans, always given: the
  first seat starts), `rank` (a whole number, 1 for a winner; left out for a player whose score is unknown).

A game whose start has no valid time (its first line's `at`) has no play date: it is skipped, and the export
says which and why.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

import msgspec

from tally.core import registry

if TYPE_CHECKING:
    from tally.store.logs.log import Log

SOURCE = "tally"
CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
DATE = "%Y-%m-%d %H:%M:%S"


class BgPlayer(msgspec.Struct, kw_only=True):
    name: str
    sourcePlayerId: str
    score: int | float | msgspec.UnsetType = msgspec.UNSET
    winner: bool
    rank: int | msgspec.UnsetType = msgspec.UNSET
    startPlayer: bool


class BgGame(msgspec.Struct, kw_only=True):
    name: str
    sourceGameId: str
    bggId: int | msgspec.UnsetType = msgspec.UNSET
    highestWins: bool
    noPoints: bool


class BgPlay(msgspec.Struct, kw_only=True):
    sourceName: str
    sourcePlayId: str
    playDate: str
    durationMin: int | msgspec.UnsetType = msgspec.UNSET
    game: BgGame
    players: list[BgPlayer]


class Finished(msgspec.Struct, frozen=True):
    """What a play is made of: a finished game's id, kind, times (None: not a valid time), and per seat in seat
    order the person it names, the seat's name, its score (None: unknown) and whether it won."""

    game_id: str
    game: str
    started_at: datetime | None
    ended_at: datetime | None
    people: list[str]
    seats: list[str]
    scores: list[int | None]
    won: list[bool]


class Pushed(msgspec.Struct):
    """One finished game ready for BG Stats: the play and the link that logs it."""

    game_id: str
    play: BgPlay
    link: str


class Skipped(msgspec.Struct):
    """A finished game that cannot be a play, and why."""

    game_id: str
    why: str


# --------------------------------------------------------------------------- the time zone


class UnknownZone(ValueError):
    """A time zone name that is none (not an IANA name such as Europe/Copenhagen, nor UTC)."""


def time_zone(name: str | None = None) -> tuple[tzinfo, str]:
    """The zone named (an IANA name: Europe/Copenhagen, UTC), or this machine's (`$TZ`, else `/etc/localtime`,
    else its current offset from UTC), with the name it is stated by."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    def zone(text: str) -> ZoneInfo | None:
        try:
            return ZoneInfo(text)
        except (ZoneInfoNotFoundError, ValueError):
            return None

    if name is not None:
        found = zone(name.strip()) if name.strip() else None
        if found is None:
            raise UnknownZone(f"{name!r} is not a time zone: give an IANA name such as Europe/Copenhagen, or UTC")
        return found, name.strip()
    for candidate in (os.environ.get("TZ", "").lstrip(":"), _linked_zone()):
        found = zone(candidate) if candidate else None
        if found is not None:
            return found, candidate
    here = datetime.now().astimezone().tzinfo or timezone.utc
    return here, here.tzname(None) or "UTC"


def _linked_zone() -> str:
    """The IANA name `/etc/localtime` links to (`/usr/share/zoneinfo/Europe/Copenhagen`), or ''."""
    try:
        target = str(Path("/etc/localtime").resolve())
    except OSError:
        return ""
    return target.split("/zoneinfo/", 1)[1] if "/zoneinfo/" in target else ""


# --------------------------------------------------------------------------- one play


def play(done: Finished, zone: tzinfo) -> BgPlay | Skipped:
    """The play of a finished game, its date in `zone`; Skipped when its start has no valid time."""
    if done.started_at is None:
        return Skipped(done.game_id, "its first line's `at` is not a valid time, so it has no play date")
    spec = registry.get(done.game)
    lower = spec.history.lower_wins
    ranks = _ranks(done.scores, done.won, lower)
    players = [
        BgPlayer(
            name=done.people[i],
            sourcePlayerId=done.seats[i],
            winner=bool(done.won[i]),
            startPlayer=i == 0,
            score=_known(done.scores[i]),
            rank=ranks.get(i, msgspec.UNSET),
        )
        for i in range(len(done.seats))
    ]
    game = BgGame(
        name=spec.title,
        sourceGameId=done.game,
        highestWins=not lower,
        noPoints=all(score is None for score in done.scores),
        bggId=spec.bgg_id if spec.bgg_id is not None else msgspec.UNSET,
    )
    minutes: int | msgspec.UnsetType = msgspec.UNSET
    if done.ended_at is not None and done.ended_at >= done.started_at:
        minutes = round((done.ended_at - done.started_at).total_seconds() / 60)
    return BgPlay(
        sourceName=SOURCE,
        sourcePlayId=done.game_id,
        playDate=done.started_at.astimezone(zone).strftime(DATE),
        durationMin=minutes,
        game=game,
        players=players,
    )


def _known(score: int | None) -> int | msgspec.UnsetType:
    """A score as the play gives it: left out (unset), never `null`, when the game does not know it."""
    return msgspec.UNSET if score is None else score


def _ranks(scores: list[int | None], won: list[bool], lower: bool) -> dict[int, int]:
    """Each seat's place: the winners first (a shared victory shares first place), then by score (a tie on the
    score shares a place); a seat that did not win and whose score is unknown has none."""
    placed = [i for i in range(len(scores)) if won[i] or scores[i] is not None]
    order = sorted(placed, key=lambda i: (not won[i], (scores[i] or 0) * (1 if lower else -1)))
    ranks: dict[int, int] = {}
    for place, i in enumerate(order, 1):
        before = order[place - 2] if place > 1 else None
        same = before is not None and won[i] == won[before] and scores[i] == scores[before]
        ranks[i] = ranks[before] if same and before is not None else place
    return ranks


def link(pushed: BgPlay) -> str:
    """The link that opens BG Stats with the play filled in: its JSON, URL-encoded whole."""
    return CREATE_PLAY + quote(msgspec.json.encode(pushed).decode(), safe="")


def pushed(done: Finished, zone: tzinfo) -> Pushed | Skipped:
    made = play(done, zone)
    return made if isinstance(made, Skipped) else Pushed(done.game_id, made, link(made))


# --------------------------------------------------------------------------- a game's log (a finished game's page)


def _time(text: str) -> datetime | None:
    """An `at` as a time, None when it is none (the library's TRY_CAST, likewise)."""
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)


def finished_of_log(log: Log, state: Any) -> Finished | None:
    """A log's game as a play is made of it, from the log's lines and the state its fold reached; None while the
    game is not over. Its id is the library's (the first line's SHA-256, which line 2's `prev` holds)."""
    spec = log.spec
    outcome = spec.outcome(state)
    if outcome is None:
        return None
    first = log.fingerprint_at(1) or ""
    seats = list(log.started.seats)
    return Finished(
        first[:16],
        log.started.game,
        _time(log.started.at),
        _time(log.events[-1].at),
        seats,
        seats,
        [outcome.scores.get(name) for name in seats],
        [name in outcome.winners for name in seats],
    )


# --------------------------------------------------------------------------- the library (tally export)


def finished_in_library(db: Path | str, game: str | None = None, simulated: bool = False) -> list[Finished]:
    """The library's finished games (played at a table unless `simulated`), oldest first, players named as the
    aliases say."""
    import _duckdb as duckdb

    from tally.store.library.schema import LibraryError, _duck_message, connect_read_only

    where = ("" if simulated else " AND NOT g.simulated") + (" AND g.game = $game" if game else "")
    con = connect_read_only(db)
    try:
        rows = con.execute(
            f"""
            SELECT g.game_id, g.game, g.started_at, g.ended_at,
                   list(coalesce(a.player, s.player) ORDER BY s.seat), list(s.player ORDER BY s.seat),
                   list(s.score ORDER BY s.seat), list(s.won ORDER BY s.seat)
            FROM games g JOIN seats s USING (game_id) LEFT JOIN aliases a ON a.name = s.player
            WHERE g.finished {where} GROUP BY g.game_id, g.game, g.started_at, g.ended_at
            ORDER BY g.started_at NULLS FIRST, g.game_id""",
            {"game": game} if game else {},
        ).fetchall()
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    return [
        Finished(gid, kind, started, ended, people, seats, scores, [bool(w) for w in won])
        for gid, kind, started, ended, people, seats, scores, won in rows
    ]


def write(plays: list[Pushed], target: Path) -> list[str]:
    """Each play as `<game id>.json` (the play) and `<game id>.link` (the link that logs it, one line) in the
    (new or empty) folder `target`."""
    files = []
    for one in plays:
        for suffix, data in ((".json", msgspec.json.encode(one.play)), (".link", one.link.encode())):
            path = target / f"{one.game_id}{suffix}"
            with open(path, "xb") as handle:
                handle.write(data + b"\n")
            files.append(str(path))
    return files
