"""Array's tables in the history library (docs/sql.md): their schema, the rows read off a fold, the reports.

Nothing here judges or applies a rule: the library folds every log through the engine and the watcher
reads the states before and after each event. A finished round adds a row to `array_rounds`, one row per
card left in a hand to `array_cards_left` and one per player eliminated to `array_eliminations`; every
action card given adds a row to `array_actions`. Rows carry the seq of the event that produced them, so a
`voided` event drops the rows of the event it voids.
"""

from __future__ import annotations

from typing import Any, Callable

from ...history import Column, History, Report, round_rows
from ...model import Event, GameStarted, Outcome
from .components import SLAM_POINTS, is_action, points
from .events import ActionGiven
from .state import State, picked_up

TABLES: dict[str, list[tuple[str, str]]] = {
    "array_rounds": [
        ("game_id", "VARCHAR"),
        ("round", "INTEGER"),
        ("seq", "INTEGER"),
        ("dealer_seat", "INTEGER"),
        ("dealer", "VARCHAR"),
        ("players", "INTEGER"),
        ("turns", "INTEGER"),
        ("ended", "VARCHAR"),
        ("went_out", "VARCHAR"),
        ("sudden_death", "BOOLEAN"),
        ("cards_left", "INTEGER"),
        ("points", "INTEGER"),
    ],
    "array_cards_left": [
        ("game_id", "VARCHAR"),
        ("round", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("card", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("points", "INTEGER"),
    ],
    "array_eliminations": [
        ("game_id", "VARCHAR"),
        ("round", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("total", "INTEGER"),
        ("remaining", "INTEGER"),
    ],
    "array_actions": [
        ("game_id", "VARCHAR"),
        ("round", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("card", "VARCHAR"),
        ("target", "VARCHAR"),
        ("picked_up", "INTEGER"),
        ("slam_points", "INTEGER"),
    ],
}


def kind(card: str) -> str:
    """`2 colours`, `3 colours`, `4 colours`, `splatter` or `slam`: how a card left in hand is grouped."""
    if card == "slam":
        return "slam"
    if is_action(card):
        return "splatter"
    return f"{len(card)} colours"


def watch(
    game_id: str, started: GameStarted, sink: dict[str, list[tuple[Any, ...]]]
) -> Callable[[Event, State, State], None]:
    seats = started.seats
    round_rows_, left_rows, out_rows, action_rows = (sink[name] for name in TABLES)

    def watcher(event: Event, before: State, after: State) -> None:
        seq = event.seq
        if isinstance(event, ActionGiven):
            card = event.card
            picked = picked_up(before, card)
            slam = SLAM_POINTS if card == "slam" else 0
            action_rows.append(
                (
                    game_id,
                    before.round,
                    seq,
                    before.current + 1,
                    seats[before.current],
                    card,
                    event.target,
                    picked,
                    slam,
                )
            )
        if len(after.results) == len(before.results):
            return
        result = after.results[-1]
        left = sum(len(result.left[s]) for s in result.playing)
        went_out = seats[result.winners[0]] if result.ended == "out" else None
        round_rows_.append(
            (
                game_id,
                result.round,
                seq,
                result.dealer + 1,
                seats[result.dealer],
                len(result.playing),
                result.turns,
                result.ended,
                went_out,
                result.sudden,
                left,
                sum(result.points[s] for s in result.playing),
            )
        )
        for seat in result.playing:
            for card in result.left[seat]:
                left_rows.append((game_id, result.round, seq, seat + 1, seats[seat], card, kind(card), points(card)))
        remaining = sum(1 for s in result.playing if s not in result.eliminated)
        for seat in result.eliminated:
            out_rows.append((game_id, result.round, seq, seat + 1, seats[seat], result.totals[seat], remaining))

    return watcher


def scores(state: State) -> dict[str, int]:
    """Points so far (lower is better): the running totals."""
    return {name: state.totals[i] for i, name in enumerate(state.seats)}


def turns(state: State) -> int:
    return state.turns


def rounds(state: State, outcome: Outcome | None) -> list[tuple[Any, ...]]:
    """One row per player per finished round (points scored that round, running total, won the round)."""
    seats = state.seats
    scored = [{seats[s]: r.points[s] for s in r.playing} for r in state.results]
    winners = [[seats[s] for s in r.winners] for r in state.results]
    return round_rows(seats, scored, winners)


_ROUNDS_SQL = """
SELECT g.player_count AS players, count(DISTINCT r.game_id) AS games,
       count(*) * 1.0 / count(DISTINCT r.game_id) AS rounds, avg(r.turns) AS turns,
       avg(r.points) AS points,
       avg(CASE WHEN r.ended = 'blocked' THEN 1.0 ELSE 0.0 END) AS blocked,
       avg(CASE WHEN r.sudden_death THEN 1.0 ELSE 0.0 END) AS sudden_death
FROM array_rounds r
JOIN games g ON g.game_id = r.game_id
WHERE TRUE {where}
GROUP BY g.player_count
ORDER BY g.player_count
"""

_CARDS_LEFT_SQL = """
SELECT c.kind, count(*) AS cards, count(DISTINCT c.game_id || '/' || c.round) AS rounds,
       sum(c.points) AS points, avg(c.points) AS points_per_card
FROM array_cards_left c
JOIN games g ON g.game_id = c.game_id
WHERE TRUE {where}
GROUP BY c.kind
ORDER BY points DESC, c.kind
LIMIT {limit}
"""

_ELIMINATIONS_SQL = """
SELECT g.player_count AS players, e.seat, count(*) AS eliminations, avg(e.round) AS round, avg(e.total) AS total
FROM array_eliminations e
JOIN games g ON g.game_id = e.game_id
WHERE TRUE {where}
GROUP BY g.player_count, e.seat
ORDER BY g.player_count, e.seat
"""

HISTORY = History(
    tables=TABLES,
    watch=watch,
    scores=scores,
    turns=turns,
    rounds=rounds,
    score_label="total (the lowest wins)",
    lower_wins=True,
    reports=(
        Report(
            "array_rounds",
            "rounds per game and how they end, by player count",
            _ROUNDS_SQL,
            (
                Column("players", "players", "int"),
                Column("games", "games", "int"),
                Column("rounds", "rounds/game", "num", bar="green"),
                Column("turns", "turns/round", "num"),
                Column("points", "points/round", "num"),
                Column("blocked", "blocked", "pct"),
                Column("sudden_death", "sudden death", "pct"),
            ),
        ),
        Report(
            "array_cards_left",
            "cards left in hand at the end of a round, by kind",
            _CARDS_LEFT_SQL,
            (
                Column("kind", "kind"),
                Column("cards", "cards", "int"),
                Column("rounds", "rounds", "int"),
                Column("points", "points", "int", bar="yellow"),
                Column("points_per_card", "points/card", "num"),
            ),
        ),
        Report(
            "array_eliminations",
            "eliminations by seat (seat 1 plays first in round 1)",
            _ELIMINATIONS_SQL,
            (
                Column("players", "players", "int"),
                Column("seat", "seat", "int"),
                Column("eliminations", "eliminated", "int", bar="red"),
                Column("round", "avg round", "num"),
                Column("total", "avg total", "num"),
            ),
        ),
    ),
)
