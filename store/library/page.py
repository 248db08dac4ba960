"""What the library's page (`tally serve`'s `/library`) shows, each a struct handed to the page as it is: the list's
filters read from a request's words, one stored game (its row, its chart, its replay's steps) and the board after any
step of its replay, drawn as `tally replay --svg` draws it (`results.frame_board` and the game's `picture`).

Opening a DuckDB file costs tens of milliseconds, a second connection to a file this process holds open almost
nothing: the library is held open while the page asks (`KEEP_OPEN` seconds after the last question), then let go,
so that an ingest (which waits for readers, `busy_timeout`) can write it between visits.

A game's replay is folded once and kept while the page steps through it: the pictures of one game are asked for
one after another, and each would otherwise read and judge the whole log again. It is kept under the game's
fingerprint, so a game that grew since (ingested again) is folded anew. The library's charts are kept under the
state of its files (inode, size, time of change of the file and its WAL), which every ingest changes.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import duckdb
import msgspec

from tally.core.engine import Table
from tally.store.library.charts import MOST_TURNS, Chart, game_chart, sampled
from tally.store.library.games import GameList, LibraryGame, games
from tally.store.library.schema import LibraryError, _duck_message, connect_read_only
from tally.store.recording.results import FinalScores, ReplayStep
from tally.store.recording.service import Frame

if TYPE_CHECKING:
    from tally.core.history import Course
    from tally.store.recording.positions import Reached


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


GAME_ID = re.compile(r"[0-9a-f]{16}")  # the library's ids: 16 hex digits of the first line's SHA-256
LISTED = 50  # games per page of the list, unless asked for another number
MOST = 500  # the most games one answer lists
KEPT = 8  # replays kept folded (a page steps through one; a few pages at once)
KEEP_OPEN = 2.0  # seconds the library stays open after the page's last question


class NoLibrary(Exception):
    """There is no library to show at that path (or it holds no tables yet)."""


class _Held:
    """One read-only connection kept open until `KEEP_OPEN` seconds after it was last asked for."""

    def __init__(self, con: duckdb.DuckDBPyConnection):
        self.con, self.until = con, time.monotonic() + KEEP_OPEN


_held: dict[str, _Held] = {}
_holding = threading.Lock()


def _let_go(key: str) -> None:
    with _holding:
        held = _held.get(key)
        if held is None:
            return
        left = held.until - time.monotonic()
        if left > 0:
            _timer(key, left)
            return
        del _held[key]
    held.con.close()


def _timer(key: str, seconds: float) -> None:
    timer = threading.Timer(seconds, _let_go, [key])
    timer.daemon = True
    timer.start()


def hold(db: Path | str) -> None:
    """The library opened (or kept open) for the page's next few questions; NoLibrary when there is none."""
    from tally.store.recording.service import UsageError

    key = str(Path(db).resolve())
    with _holding:
        held = _held.get(key)
        if held is not None:
            held.until = time.monotonic() + KEEP_OPEN
            return
        try:
            _held[key] = _Held(connect_read_only(db))
        except UsageError as error:
            raise NoLibrary(str(error)) from None
        _timer(key, KEEP_OPEN)


class FilterError(ValueError):
    """A filter the list cannot apply: which one, and why."""

    def __init__(self, name: str, message: str):
        super().__init__(message)
        self.name = name


class Filters(msgspec.Struct):
    """The list's filters, as `library_games.games` takes them."""

    game: str | None = None
    player: str | None = None
    since: date | None = None
    until: date | None = None
    simulated: bool | None = False
    limit: int = LISTED
    offset: int = 0


SIMULATED = {"real": False, "simulated": True, "all": None}


def _date(name: str, text: str) -> date:
    try:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            raise ValueError(text)
        return date.fromisoformat(text)
    except ValueError:
        raise FilterError(name, f"{name}={text!r}: a date is written YYYY-MM-DD") from None


def _count(name: str, text: str, low: int, high: int) -> int:
    if not text.isascii() or not text.isdigit() or len(text) > 9 or not low <= int(text) <= high:
        raise FilterError(name, f"{name}={text!r}: a whole number from {low} to {high}")
    return int(text)


def filters_of(words: Mapping[str, str], game_names: list[str]) -> Filters:
    """The filters a request's query names (empty words are no filter); FilterError for a value none can mean:
    a game tally does not know, a date that is no date, `simulated` other than real, simulated or all."""
    given = {key: value.strip() for key, value in words.items() if value.strip()}
    unknown = sorted(set(given) - {"game", "player", "since", "until", "simulated", "limit", "offset"})
    if unknown:
        raise FilterError(
            unknown[0], f"{unknown[0]}: no such filter (game, player, since, until, simulated, limit, offset)"
        )
    found = Filters()
    if "game" in given:
        if given["game"] not in game_names:
            raise FilterError("game", f"game={given['game']!r}: not a game of tally ({', '.join(game_names)})")
        found.game = given["game"]
    if "player" in given:
        if len(given["player"]) > 200:
            raise FilterError("player", "player: a name is at most 200 characters")
        found.player = given["player"]
    if "since" in given:
        found.since = _date("since", given["since"])
    if "until" in given:
        found.until = _date("until", given["until"])
    if found.since and found.until and found.since > found.until:
        raise FilterError("since", f"since={found.since} is after until={found.until}")
    if "simulated" in given:
        if given["simulated"] not in SIMULATED:
            raise FilterError("simulated", f"simulated={given['simulated']!r}: real, simulated or all")
        found.simulated = SIMULATED[given["simulated"]]
    if "limit" in given:
        found.limit = _count("limit", given["limit"], 1, MOST)
    if "offset" in given:
        found.offset = _count("offset", given["offset"], 0, 10**9)
    return found


class ListPage(msgspec.Struct):
    """A page of the library's list and what its filters may choose from."""

    shown: Annotated[
        GameList,
        _(
            "`games` (each: `game_id`, `game`, `started_at`, `players` and `winners` as the aliases "
            "name them, `finished`, `simulated`, `events`, `turns`, `result`), `total` (matching "
            "in all), `filters` (as applied)"
        ),
    ]
    games_known: Annotated[list[str], _("every game tally knows (the `game` filter's choices)")]
    people: Annotated[list[str], _("every person of the library, aliases merged (the `player` filter's choices)")]


def listed(db: Path | str, chosen: Filters, game_names: list[str]) -> ListPage:
    """The page of the list the filters choose (`library_games.games`), with every person of the library (aliases
    merged) for the player filter."""
    hold(db)
    shown = games(
        db, chosen.game, chosen.player, chosen.since, chosen.until, chosen.simulated, chosen.limit, chosen.offset
    )
    con = connect_read_only(db)
    try:
        people = [
            row[0]
            for row in con.execute(
                "SELECT DISTINCT coalesce(a.player, s.player) AS person FROM seats s LEFT JOIN aliases a ON a.name = s.player "
                "ORDER BY person"
            ).fetchall()
        ]
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    return ListPage(shown, game_names, people)


# --------------------------------------------------------------------------- one game


STEPS = 100  # steps in a page of a stored game's replay, unless asked for another number
MOST_STEPS = 1000


class GameDetail(msgspec.Struct):
    """One stored game: its row of the list, its chart, the first page of its replay's steps and the result."""

    game: Annotated[LibraryGame, _("the game's row of the list (`GET /api/library/games`)")]
    chart: Annotated[
        Chart,
        _(
            "each player's score over the turns, the rounds and the deciding moments: `svg`, and "
            "the `rows` (player, turn, score) it was drawn from (a long game's turns sampled: at most "
            f"{MOST_TURNS} of them, the last included)"
        ),
    ]
    steps: Annotated[
        list[ReplayStep],
        _(
            "the first page of the replay's steps (`GET .../steps` gives the others): `seq`, "
            "`type`, `text` (in notation), `to_act` after it, `voided` (as `tally replay --json`)"
        ),
    ]
    outcome: Annotated[FinalScores | None, _("`scores`, `winners`, `reason` when the game is over, else null")]
    last: Annotated[int, _("the replay's last step")] = 0
    next: Annotated[int | None, _("the `after` of the next page of steps, or null when `steps` holds them all")] = None


class StepsPage(msgspec.Struct):
    """A page of a stored game's replay steps."""

    steps: Annotated[list[ReplayStep], _("`seq`, `type`, `text` (in notation), `to_act` after it, `voided`")]
    last: Annotated[int, _("the replay's last step")]
    next: Annotated[int | None, _("the `after` of the next page, or null at the replay's last step")]


class StepPicture(msgspec.Struct):
    """The board after one step of a stored game's replay, as `tally replay --svg` draws it."""

    game_id: Annotated[str, _("the game's id in the library")]
    seq: Annotated[int, _("the step: the event after which the table is drawn")]
    last: Annotated[int, _("the replay's last step")]
    text: Annotated[str, _("the event in notation")]
    to_act: Annotated[str, _("who acts after it")]
    svg: Annotated[str, _("the table, the referee's (every card), as `tally replay --db LIBRARY GAME --svg` draws it")]


def is_game_id(text: str) -> bool:
    return GAME_ID.fullmatch(text) is not None


class StoredLines:
    """A stored game's lines, read from the library's `events` table a page at a time (`logstore.Lines`): what
    `positions` folds from a checkpoint, so that a step or a page of a long game reads only the lines near it."""

    def __init__(self, db: Path | str, game_id: str, events: int, fingerprint: str, size: int):
        self.db, self.game_id, self.events, self.fingerprint, self.size = db, game_id, events, fingerprint, size
        self.name = f"{db}#{game_id}"

    def _lines(self, sql: str, params: list[Any]) -> list[str]:
        con = connect_read_only(self.db)
        try:
            return [row[0] for row in con.execute(sql, [self.game_id, *params]).fetchall()]
        except duckdb.Error as error:
            raise LibraryError(self.db, f"cannot read the library: {_duck_message(error)}") from None
        finally:
            con.close()

    def first_line(self) -> bytes:
        found = self._lines("SELECT line FROM events WHERE game_id = ? AND seq = 1", [])
        return found[0].encode() if found else b""

    def lines_after(self, seq: int, offset: int, upto: int | None = None) -> bytes:
        found = self._lines(
            "SELECT line FROM events WHERE game_id = ? AND seq > ? AND seq <= ? ORDER BY seq",
            [seq, self.events if upto is None else upto],
        )
        return "".join(line + "\n" for line in found).encode()

    def ends_at(self, seq: int, line_hash: str, offset: int, last_line: int) -> bool:
        return (seq, line_hash) == (self.events, self.fingerprint)

    def extent(self) -> tuple[int | None, int | None]:
        return self.events, self.size


def _stored(db: Path | str, game_id: str, with_row: bool = True) -> tuple[LibraryGame | None, StoredLines] | None:
    """A stored game's row (`with_row`) and its lines, or None when the library holds no game of that id."""
    hold(db)
    con = connect_read_only(db)
    try:
        found = con.execute("SELECT events, fingerprint, size FROM games WHERE game_id = ?", [game_id]).fetchall()
    except duckdb.Error as error:
        raise LibraryError(db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    if not found:
        return None
    events, fingerprint, size = found[0]
    lines = StoredLines(db, game_id, int(events), str(fingerprint), int(size))
    if not with_row:
        return None, lines
    row = games(db, game_id=game_id, simulated=None, limit=1).games
    return (row[0], lines) if row else None


class _Kept:
    """The last few answers worked out, under a key that says what they were worked out from."""

    def __init__(self, size: int):
        self.size, self.found, self.lock = size, OrderedDict[tuple[Any, ...], Any](), threading.Lock()

    def get(self, key: tuple[Any, ...], work: Any) -> Any:
        with self.lock:
            if key in self.found:
                self.found.move_to_end(key)
                return self.found[key]
        value = work()
        with self.lock:
            self.found[key] = value
            while len(self.found) > self.size:
                self.found.popitem(last=False)
        return value


_tails, _details, _charts = _Kept(KEPT), _Kept(KEPT), _Kept(KEPT)


def _key(lines: StoredLines) -> tuple[Any, ...]:
    return str(Path(lines.db).resolve()), lines.game_id, lines.fingerprint


def _tail(lines: StoredLines) -> Reached:
    """The stored game folded to its last line, from its last checkpoint (kept while the page asks)."""
    from tally.store.recording import positions

    found: Reached = _tails.get(_key(lines), lambda: positions.reach(lines))
    return found


def _course(lines: StoredLines) -> Course:
    """How the game went, for its chart (its turns sampled, `charts.sampled`): kept on disk beside the game's
    checkpoints under its fingerprint, worked out once (the whole log folded, which leaves the checkpoints behind
    too) on the first visit of this machine."""
    from tally.core.history import Course, course, course_of_steps
    from tally.core.model import Amended, Noted, Voided
    from tally.store.logs import checkpoints
    from tally.store.recording import positions

    first = lines.first_line()
    key = positions.key_of(first)
    name = f"course-{MOST_TURNS}-{lines.fingerprint[:16]}"  # sampled as the chart draws it: small to read back
    kept = checkpoints.derived(key, name)
    if kept is not None:
        try:
            return msgspec.msgpack.decode(kept, type=Course)
        except msgspec.DecodeError:
            pass
    whole = positions.reach(lines, since=1)
    spec, started, table = whole.spec, whole.started, whole.table
    if any(type(step[0]) is Voided or type(step[0]) is Amended for step in whole.steps):
        played = course(spec, started, table.effective)
    else:
        played = course_of_steps(
            spec, started, [step for step in whole.steps if type(step[0]) is not Noted], table.state
        )
    played = sampled(played)
    checkpoints.keep_derived(key, name, msgspec.msgpack.encode(played))
    return played


def _replay_steps(lines: StoredLines, after: int, limit: int) -> StepsPage:
    """The steps after `after` (at most `limit`), folded from the checkpoint before them; `voided` as the library
    records it (a later void or correction takes the event back)."""
    from tally.store.recording import positions
    from tally.store.recording.service import describe_start

    upto = min(lines.events, after + limit)
    shown: list[ReplayStep] = []
    if after < upto:
        voided = _voided(lines, after, upto)
        if after == 0:
            tail = _tail(lines)
            started = tail.started
            shown.append(
                ReplayStep(
                    1,
                    "game_started",
                    describe_start(started),
                    tail.spec.to_act(Table(tail.spec, started).state)[0],
                    False,
                )
            )
        spec = _spec_of(lines)
        for event, before, state in positions.steps(lines, max(after, 1), upto):
            frame = Frame(event.seq, event, state, event.seq in voided, spec, before)
            shown.append(ReplayStep(frame.seq, frame.type, frame.text, spec.to_act(state)[0], frame.voided))
    last = shown[-1].seq if shown else upto
    return StepsPage(shown, lines.events, last if last < lines.events else None)


def _spec_of(lines: StoredLines) -> Any:
    return _tail(lines).spec


def _voided(lines: StoredLines, after: int, upto: int) -> set[int]:
    con = connect_read_only(lines.db)
    try:
        rows = con.execute(
            "SELECT seq FROM events WHERE game_id = ? AND seq > ? AND seq <= ? AND voided", [lines.game_id, after, upto]
        ).fetchall()
    except duckdb.Error as error:
        raise LibraryError(lines.db, f"cannot read the library: {_duck_message(error)}") from None
    finally:
        con.close()
    return {int(row[0]) for row in rows}


def game_detail(db: Path | str, game_id: str) -> GameDetail | None:
    """A stored game's page (None when the library holds no game of that id): its row, its chart (the game's course,
    its turns sampled when there are many), the first page of its replay's steps and its result. Its cost does not
    grow with the game's length once the game was seen on this machine (`_course`)."""
    stored = _stored(db, game_id)
    if stored is None:
        return None
    row, lines = stored
    assert row is not None

    def work() -> GameDetail:
        tail = _tail(lines)
        result = tail.spec.outcome(tail.table.state)
        final = FinalScores(result.scores, result.winners, result.reason) if result else None
        page = _replay_steps(lines, 0, STEPS)
        return GameDetail(row, game_chart(_course(lines)), page.steps, final, page.last, page.next)

    found: GameDetail = _details.get((*_key(lines), msgspec.json.encode(row)), work)
    return found


def steps_page(db: Path | str, game_id: str, after: int, limit: int = STEPS) -> StepsPage | None:
    """A page of a stored game's replay steps (None when the library holds no game of that id)."""
    stored = _stored(db, game_id, with_row=False)
    if stored is None:
        return None
    return _replay_steps(stored[1], after, limit)


def step_picture(db: Path | str, game_id: str, seq: int) -> StepPicture | None:
    """The board after event `seq` of a stored game's replay (None when the library holds no such game); the
    referee's table, all of it: the library is the host's (its games' full logs). IndexError: no such step. Folded
    from the checkpoint before it."""
    from tally.store.recording import positions
    from tally.store.recording.pictures import picture_of
    from tally.store.recording.results import board_at

    stored = _stored(db, game_id, with_row=False)
    if stored is None:
        return None
    lines = stored[1]
    if not 1 <= seq <= lines.events:
        raise IndexError(f"no step #{seq}: the replay has steps #1 to #{lines.events}")
    reached = positions.reach(lines, seq, since=max(seq - 1, 1))
    spec, state = reached.spec, reached.table.state
    if seq == 1:
        from tally.store.recording.service import describe_start

        text = describe_start(reached.started)
    else:
        event, before, _ = reached.steps[-1]
        text = Frame(seq, event, state, False, spec, before).text
    shown = board_at(spec, state, seq, reached.line_hash, None)
    return StepPicture(game_id, seq, lines.events, text, spec.to_act(state)[0], picture_of(spec, shown.view))


def _stamp(db: Path | str) -> tuple[Any, ...]:
    """What the library's files are now (an ingest rewrites them): their inode, size and time of change."""
    found: list[Any] = [str(Path(db).resolve())]
    for path in (Path(db), Path(f"{db}.wal")):
        try:
            status = path.stat()
            found += [status.st_ino, status.st_size, status.st_mtime_ns]
        except OSError:
            found.append(None)
    return tuple(found)


def warm_up(db: Path | str) -> None:
    """What the page's first questions would each pay for once, paid by the server as it starts (a club opens the
    page once: its first request is the one they see): the modules that draw a chart, fold a replay and draw a
    board, and every game's own. Done before the server answers, not on a thread beside it: imports racing the
    first requests' imports could see half-imported modules. Nothing is read from the library here."""
    from tally.core import charts, registry
    from tally.store.library import charts as library_charts  # noqa: F401
    from tally.store.recording import pictures, record, results  # noqa: F401  (imported here, not on a first request)

    for spec in registry.specs():
        spec.history, spec.picture  # noqa: B018  (the game's modules are imported with its spec)
    charts.score_lines([("a", 1, 1)], "warm")  # the first drawing compiles nothing later


def library_charts_of(db: Path | str, words: Mapping[str, str], game_names: list[str]) -> list[Chart]:
    """The library's charts (`library_charts`) for the page's filters: a game, and whether simulated games count."""
    from tally.store.library.charts import library_charts

    hold(db)
    given = {key: value.strip() for key, value in words.items() if value.strip()}
    unknown = sorted(set(given) - {"game", "simulated"})
    if unknown:
        raise FilterError(unknown[0], f"{unknown[0]}: the charts take game and simulated")
    if given.get("simulated") == "simulated":
        raise FilterError("simulated", "simulated: the charts take real (the default) or all")
    chosen = filters_of(given, game_names)
    # drawn once for each state of the library's files: the charts change only when an ingest writes them
    found: list[Chart] = _charts.get(
        (_stamp(db), chosen.game, chosen.simulated), lambda: library_charts(db, chosen.game, chosen.simulated is None)
    )
    return found
