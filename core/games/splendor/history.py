"""Splendor's tables in the history library (docs/sql.md): their schema, the rows read off a fold, the reports.

Nothing here judges or applies a rule: the library folds every log through the engine (the same
checks and reducers as `tally check`) and the watcher only reads the states before and after each
event (who acted, points, cards, nobles, turn count) and the component data. Rows carry the seq of
the event that produced them, so that a `voided` event drops the rows of the event it voids (`History.watcher`).
"""

from __future__ import annotations

from typing import Any, Callable

from ...history import Column, History, Report, one_round, progression_sql
from ...model import Event, GameStarted, Outcome
from .components import CARDS, GEMS, NOBLE_NAMES
from .events import CardBought, CardReserved
from .state import State

# table -> [(column, DuckDB type)]: the exact schema (docs/sql.md documents every column)
TABLES: dict[str, list[tuple[str, str]]] = {
    "splendor_turns": [
        ("game_id", "VARCHAR"),
        ("turn", "INTEGER"),
        ("player_turn", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("points", "INTEGER"),
        ("cards", "INTEGER"),
        ("nobles", "INTEGER"),
        ("reserved", "INTEGER"),
        ("tokens", "INTEGER"),
    ],
    "splendor_cards_bought": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("card", "VARCHAR"),
        ("level", "INTEGER"),
        ("bonus", "VARCHAR"),
        ("points", "INTEGER"),
        ("from_reserve", "BOOLEAN"),
        ("paid", "INTEGER"),
        ("gold", "INTEGER"),
    ],
    "splendor_reserves": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("card", "VARCHAR"),
        ("level", "INTEGER"),
        ("blind", "BOOLEAN"),
        ("gold", "BOOLEAN"),
    ],
    "splendor_nobles": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("noble", "VARCHAR"),
        ("name", "VARCHAR"),
    ],
}


def watch(
    game_id: str, started: GameStarted, sink: dict[str, list[tuple[Any, ...]]]
) -> Callable[[Event, State, State], None]:
    """A watcher for one game: it appends rows (tuples) to the batch's row lists (`sink[table]`).

    A closure rather than an object: it runs after every event of every game ingested, and local
    names are the cheapest to reach.
    """
    seats = started.seats
    count = len(seats)
    turn_rows, bought_rows, reserve_rows, noble_rows = (sink[name] for name in TABLES)
    add_turn, add_buy, add_reserve, add_noble = (
        turn_rows.append,
        bought_rows.append,
        reserve_rows.append,
        noble_rows.append,
    )

    def watcher(event: Event, before: State, after: State) -> None:
        current = before.current
        if isinstance(event, CardBought):
            card = CARDS[event.card]
            on_board = any(event.card in row for row in before.board)
            paid = event.paid
            add_buy(
                (
                    game_id,
                    event.seq,
                    before.turns + 1,
                    current + 1,
                    seats[current],
                    card.id,
                    card.level,
                    GEMS[card.bonus],
                    card.points,
                    not on_board,
                    len(paid),
                    paid.count("y"),
                )
            )
        elif isinstance(event, CardReserved):
            level = event.level
            card_id = event.card
            blind = level is not None
            if level is None:  # a face-up reserve names its card, whose level it is
                assert card_id is not None, event
                level = CARDS[card_id].level
            add_reserve(
                (
                    game_id,
                    event.seq,
                    before.turns + 1,
                    current + 1,
                    seats[current],
                    card_id,
                    level,
                    blind,
                    after.players[current].tokens[5] > before.players[current].tokens[5],
                )
            )
        turns = after.turns
        if turns != before.turns:  # the turn ended (a noble can only come at the end of a turn)
            seat_after = after.players[current]
            nobles = seat_after.nobles
            had = before.players[current].nobles
            if nobles is not had:
                for noble in nobles[len(had) :]:
                    add_noble((game_id, event.seq, turns, current + 1, seats[current], noble, NOBLE_NAMES.get(noble)))
            # turns go round the table from the first seat, one each, so turn t is its player's ((t-1)//n + 1)-th
            add_turn(
                (
                    game_id,
                    turns,
                    (turns - 1) // count + 1,
                    event.seq,
                    current + 1,
                    seats[current],
                    seat_after.points,
                    len(seat_after.cards),
                    len(nobles),
                    len(seat_after.reserved),
                    sum(seat_after.tokens),
                )
            )

    return watcher


def scores(state: State) -> dict[str, int]:
    """Points so far (final points once the game is over)."""
    return {name: seat.points for name, seat in zip(state.seats, state.players)}


def turns(state: State) -> int:
    return state.turns


def rounds(state: State, outcome: Outcome | None) -> list[tuple[Any, ...]]:
    """Splendor is scored once: a finished game is one round."""
    return one_round(outcome, state.seats)


_PROGRESSION_SQL = progression_sql("splendor_turns", "player_turn", "points")  # `tally stats`: core.history

_MOST_BOUGHT_SQL = """
SELECT b.card, any_value(b.level) AS level, any_value(b.bonus) AS bonus, any_value(b.points) AS points,
       count(*) AS bought, count(DISTINCT b.game_id) AS games,
       avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS buyer_win_rate
FROM splendor_cards_bought b
JOIN seats s ON s.game_id = b.game_id AND s.seat = b.seat
JOIN games g ON g.game_id = b.game_id
WHERE TRUE {where}
GROUP BY b.card
ORDER BY bought DESC, b.card
LIMIT {limit}
"""

HISTORY = History(
    tables=TABLES,
    watch=watch,
    scores=scores,
    turns=turns,
    rounds=rounds,
    score_label="points",
    reports=(
        Report(
            "progression",
            "average points after each player's k-th turn (finished games; up to the last turn half of them reach)",
            _PROGRESSION_SQL,
            (
                Column("player_turn", "turn", "int"),
                Column("games", "games", "int"),
                Column("winners", "winners", "num", bar="green"),
                Column("others", "others", "num", bar="yellow"),
            ),
            chart=True,
        ),
        Report(
            "most_bought",
            "most-bought cards",
            _MOST_BOUGHT_SQL,
            (
                Column("card", "card"),
                Column("level", "level", "int"),
                Column("bonus", "bonus"),
                Column("points", "points", "int"),
                Column("bought", "bought", "int"),
                Column("games", "games", "int"),
                Column("buyer_win_rate", "buyer won", "pct"),
            ),
        ),
    ),
)
