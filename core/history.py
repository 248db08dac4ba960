"""What a game gives the history library: its tables, the rows read off a fold, and its reports.

Pure: a game's `history` module declares its tables (names prefixed with the game's name, columns
with DuckDB types as text) and a watcher that turns the states of a fold into rows; `store/` creates
the tables, runs the fold and inserts the rows. Nothing here judges or applies a rule: a watcher
only reads the states before and after each event that the engine already judged.

Every table of a game starts with `game_id` and has a `seq` column: the event that produced the row.
A watcher sees only effective events: `History.watcher` drops the rows of a voided event itself.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import msgspec

from .engine import judge
from .model import Event, GameStarted, Outcome, Voided

Columns = list[tuple[str, str]]  # [(column, DuckDB type)]
Rows = dict[str, list[tuple[Any, ...]]]  # table -> rows gathered so far
Watcher = Callable[[Event, Any, Any], None]  # (event, state before, state after)


class Column(msgspec.Struct, frozen=True):
    """One column of a report as `tally stats` prints it.

    `kind`: text, int, num (one decimal), pct (a rate shown in percent); `bar`: a style for a bar drawn
    after the value (bars of one report share one scale).
    """

    name: str
    header: str
    kind: str = "text"
    bar: str | None = None


class Report(msgspec.Struct, frozen=True):
    """A canned query of `tally stats`: a JSON key, a title, SQL with `{where}` (and `{limit}`) slots.

    `{where}` becomes `AND g.game = $game` (or nothing) and needs the query to alias `games` as `g`;
    `{limit}` is `--top`. A `chart` report is sampled to at most about 40 printed lines.
    """

    key: str
    title: str
    sql: str
    columns: tuple[Column, ...]
    chart: bool = False


def one_round(outcome: Outcome | None, seats: tuple[str, ...] | list[str]) -> list[tuple[Any, ...]]:
    """`rounds` for a game scored once: a finished game is one round. (round, seat, player, score, total, won)."""
    if outcome is None:
        return []
    return [
        (1, i + 1, name, outcome.scores[name], outcome.scores[name], name in outcome.winners)
        for i, name in enumerate(seats)
    ]


def round_rows(
    seats: tuple[str, ...] | list[str], scores: list[dict[str, int]], winners: list[list[str]]
) -> list[tuple[Any, ...]]:
    """`rounds` for a game scored round by round: one row per seat per finished round, with running totals.

    `scores[r][name]` is what `name` scored in round r + 1, `winners[r]` who won that round."""
    rows = []
    totals = dict.fromkeys(seats, 0)
    for number, (scored, won) in enumerate(zip(scores, winners), 1):
        for index, name in enumerate(seats):
            if name in scored:
                totals[name] += scored[name]
                rows.append((number, index + 1, name, scored[name], totals[name], name in won))
    return rows


class History(msgspec.Struct, frozen=True, kw_only=True):
    """A game's part of the history library (docs/sql.md).

    - `tables`: its own tables, each name prefixed with the game's name, each with `game_id` first and
      a `seq` column;
    - `watch(game_id, started, rows)`: a watcher for one game that appends tuples to `rows[table]`,
      called with every effective event and the states around it (never with a `voided` event: see
      `watcher`), so it keeps no count a void would have to take back;
    - `scores(state)`: points so far, for the `seats` table of an unfinished game;
    - `turns(state)`: turns played, for the `games` table;
    - `rounds(state, outcome)`: the `round_results` rows (round, seat, player, score, total, won);
    - `reports`: what `tally stats` shows for this game;
    - `score_label`: what `scores` counts, in words (a chart's axis);
    - `lower_wins`: the lowest score wins (a game that counts penalty points).
    """

    tables: dict[str, Columns]
    watch: Callable[[str, GameStarted, Rows], Watcher]
    scores: Callable[[Any], dict[str, int]]
    turns: Callable[[Any], int]
    rounds: Callable[[Any, Outcome | None], list[tuple[Any, ...]]]
    reports: tuple[Report, ...] = ()
    score_label: str = "score"
    lower_wins: bool = False

    def watcher(self, game_id: str, started: GameStarted, rows: Rows, voids: bool = True) -> Watcher:
        """The game's watcher, shown only effective events: a `voided` event drops the rows of the event it
        voids instead. Those are the game's newest rows in each table, as only the last effective event is
        ever voided (`tally undo --turn` voids a turn's events newest first). `voids` False: the log voids
        nothing, so the game's own watcher is shown every event, without a question asked of each."""
        watch = self.watch(game_id, started, rows)
        if not voids:
            return watch
        dropped = [
            (rows.setdefault(name, []), [column for column, _ in columns].index("seq"))
            for name, columns in self.tables.items()
        ]

        def effective(event: Event, before: Any, after: Any) -> None:
            if not isinstance(event, Voided):
                watch(event, before, after)
                return
            target = event.target
            for table, at in dropped:
                while table and table[-1][at] == target and table[-1][0] == game_id:
                    table.pop()

        return effective


# --------------------------------------------------------------------------- one game's course, for its chart


class Point(msgspec.Struct, frozen=True, array_like=True):
    """A player's score (`History.scores`) once `turn` turns had been played."""

    player: str
    turn: int
    score: int


class Moment(msgspec.Struct, frozen=True, array_like=True):
    """What the game's narration said at `turn` when it moved a score, ended a round or ended the game."""

    turn: int
    player: str | None
    what: str


class Course(msgspec.Struct, frozen=True):
    """How one game went: every player's score after each turn, the turn each later round began at
    (`rounds`: (round, turn)), and the moments that decided it. `turns`: turns played in all."""

    game: str
    seats: list[str]
    points: list[Point]
    rounds: list[tuple[int, int]]
    moments: list[Moment]
    turns: int
    finished: bool


def progression_sql(table: str, step: str, value: str) -> str:
    """`tally stats`' progression report over a game's own `table`: the average `value` after each `step`, winners
    against the others, and how many games each step's averages rest on. Fewer games last long, so past the step half
    of them reach the averages would stand on the longest games alone (and read as if points went down): the report
    stops there. `{where}` is left for the report's filter."""
    return f"""
WITH per_step AS (
    SELECT t.{step},
           avg(CASE WHEN s.won THEN t.{value} END) AS winners,
           avg(CASE WHEN NOT s.won THEN t.{value} END) AS others,
           count(DISTINCT t.game_id) AS games
    FROM {table} t
    JOIN seats s ON s.game_id = t.game_id AND s.seat = t.seat
    JOIN games g ON g.game_id = t.game_id
    WHERE g.finished {{where}}
    GROUP BY t.{step}
)
SELECT {step}, winners, others, games FROM per_step
WHERE games * 2 >= (SELECT max(games) FROM per_step)
ORDER BY {step}
"""


def course(spec: Any, started: GameStarted, effective: list[Event]) -> Course:
    """The course of a game from its effective events (the fold's `Table.effective`, already judged):
    read off the states only, like a watcher. A moment is a line of the game's narration at an event
    that changed a score, finished a round or ended the game (a noble's visit, a round's scores, an
    elimination, the map that won), not every aside (a Hurricane, a card owed)."""
    steps: list[tuple[Event, Any, Any]] = []
    _, table = judge(spec, [started, *effective], lambda event, before, after: steps.append((event, before, after)))
    return course_of_steps(spec, started, steps, table.state)


def course_of_steps(spec: Any, started: GameStarted, steps: Iterable[tuple[Event, Any, Any]], state: Any) -> Course:
    """`course` from a fold already made: each effective game event with the states before and after it, in
    order, and the last state (a replay's frames hold them: the game's page folds its log once, not twice)."""

    history: History = spec.history
    seats = list(started.seats)
    points: list[Point] = [Point(name, 0, score) for name, score in history.scores(spec.start(started)).items()]
    rounds: list[tuple[int, int]] = []
    moments: list[Moment] = []
    finished_rounds = [0]
    last_turn = [0]

    last: list[Any] = [None, None]  # the state after the step before, and its scores: this step's before

    def watch(event: Event, before: Any, after: Any) -> None:
        turn = history.turns(after)
        scored = history.scores(after)
        moved = scored != (last[1] if before is last[0] else history.scores(before))
        last[0], last[1] = after, scored
        if turn != last_turn[0] or moved:
            if turn != last_turn[0]:
                last_turn[0] = turn
            else:  # a score moved within a turn (a round's scoring): the turn's point is the newest one
                while points and points[-1].turn == turn:
                    points.pop()
            points.extend(Point(name, turn, score) for name, score in scored.items())
        said = spec.narrate(before, after)
        if not said:
            return
        done = len({row[0] for row in history.rounds(after, None)})
        ended = spec.outcome(after) is not None
        new_round = done > finished_rounds[0]
        if new_round:
            finished_rounds[0] = done
            if not ended:
                rounds.append((done + 1, turn))
        if moved or ended or new_round:  # a line that only says whose turn it is now is no moment
            moments.extend(Moment(turn, _named(line, seats), line) for line in said if not line.endswith("'s turn"))

    for event, before, after in steps:
        watch(event, before, after)
    return Course(started.game, seats, points, rounds, moments, history.turns(state), spec.outcome(state) is not None)


def _named(line: str, seats: list[str]) -> str | None:
    """The seat a narration line speaks of first (by its whole name), or None."""
    found = []
    for name in seats:
        at = 0
        while (at := line.find(name, at)) >= 0:
            end = at + len(name)
            if (at == 0 or not line[at - 1].isalnum()) and (end == len(line) or not line[end].isalnum()):
                found.append((at, -len(name), name))
                break
            at = end
    return min(found)[2] if found else None
