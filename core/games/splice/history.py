"""Splice's tables in the history library (docs/sql.md): their schema, the rows read off a fold, the reports.

Nothing here judges or applies a rule: the library folds every log through the engine and the watcher
reads the states before and after each event. Rows carry the seq of the event that produced them, so a
`voided` event drops the rows of the event it voids.
"""

from __future__ import annotations

from typing import Any, Callable

from ...history import Column, History, Report, one_round
from ...model import Event, GameStarted, Outcome
from .components import PRICE, read_set
from .events import (
    BlackSpotPlayed,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    MapLaid,
    MapsBought,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .state import State, gold, payment_value

TABLES: dict[str, list[tuple[str, str]]] = {
    "splice_turns": [
        ("game_id", "VARCHAR"),
        ("turn", "INTEGER"),
        ("seq", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("play", "VARCHAR"),
        ("hand", "INTEGER"),
        ("map_pieces", "INTEGER"),
        ("gold", "INTEGER"),
    ],
    "splice_purchases": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("pieces", "INTEGER"),
        ("paid", "INTEGER"),
        ("sets", "INTEGER"),
        ("doubles", "INTEGER"),
        ("overpaid", "INTEGER"),
    ],
    "splice_piracy": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("target_seat", "INTEGER"),
        ("target", "VARCHAR"),
        ("plunder", "VARCHAR"),
        ("coin_set", "VARCHAR"),
        ("gold", "INTEGER"),
    ],
    "splice_hurricanes": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("drawn_in", "VARCHAR"),
        ("turn_lost", "BOOLEAN"),
    ],
    "splice_maps_laid": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("colour", "VARCHAR"),
        ("wild_pieces", "INTEGER"),
    ],
}


_PLAY = {
    CoinsPlayed: "coins",
    PiracyPlayed: "piracy",
    SkullPlayed: "skull",
    TradePlayed: "trade",
    BlackSpotPlayed: "spot",
    MapsBought: "buy",
    MapLaid: "lay",
    CardsDiscarded: "discard",
    TurnPassed: "pass",
}


# the kinds whose event writes a row of its own (every other event can only end turns: `splice_turns`)
_ROWS_OF_THEIR_OWN = frozenset({MapsBought, PiracyPlayed, MapLaid, CardsDrawn, SetupDealt, CardsDealt})


def watch(
    game_id: str, started: GameStarted, sink: dict[str, list[tuple[Any, ...]]]
) -> Callable[[Event, State, State], None]:
    """A watcher for one game: it appends rows to the batch's row lists (`sink[table]`)."""
    seats = started.seats
    n = len(seats)
    turn_rows, buy_rows, piracy_rows, storm_rows, laid_rows = (sink[name] for name in TABLES)

    def watcher(event: Event, before: State, after: State) -> None:
        kind = type(event)  # an event's kind is its exact class: looked up once, not asked of isinstance in turn
        if kind in _ROWS_OF_THEIR_OWN:
            _own_row(kind, event, before, after)
        if after.turns > before.turns:
            if before.stage == "deal":  # the first seat was dealt a Hurricane: its first turn is lost
                first, play = 0, "lost"
            else:
                first = before.current
                play = (_PLAY.get(kind) if before.phase == "play" else None) or before.acted or "lost"
            seq = event.seq
            for k in range(after.turns - before.turns):
                index = (first + k) % n
                seat = after.players[index]
                turn_rows.append(
                    (
                        game_id,
                        before.turns + k + 1,
                        seq,
                        index + 1,
                        seats[index],
                        play if k == 0 else "lost",
                        seat.hand.size,
                        seat.maps.size,
                        gold(after, seat),
                    )
                )

    def _own_row(kind: type, event: Any, before: State, after: State) -> None:
        seq = event.seq
        me = before.current
        turn = before.turns + 1
        if kind is CardsDrawn:
            if after.centre > before.centre:
                drawer = after.storm_seat
                lost = after.storm == "start" or (after.storm == "replace" and after.players[drawer].forfeit)
                storm_rows.append((game_id, seq, turn, drawer + 1, seats[drawer], after.storm, lost))
        elif kind is MapsBought:
            paid = payment_value(before, event.paid, event.doubles)
            count = event.count
            buy_rows.append(
                (
                    game_id,
                    seq,
                    turn,
                    me + 1,
                    seats[me],
                    count,
                    paid,
                    len(event.paid),
                    event.doubles,
                    paid - PRICE * count,
                )
            )
        elif kind is PiracyPlayed:
            target = seats.index(event.target)
            plunder = event.plunder
            if plunder in ("map", "double"):
                piracy_rows.append(
                    (game_id, seq, turn, me + 1, seats[me], target + 1, seats[target], plunder, None, None)
                )
            else:
                coin_set = read_set(plunder, before.box.values)
                # the fold judged this piracy, so its plunder reads as a coin set: a message would be broken machinery
                assert not isinstance(coin_set, str), coin_set
                piracy_rows.append(
                    (game_id, seq, turn, me + 1, seats[me], target + 1, seats[target], "set", plunder, coin_set.value)
                )
        elif kind is MapLaid:
            wild = sum(1 for p in event.pieces if p[0] == "x")
            colour = after.players[me].disk
            laid_rows.append((game_id, seq, turn, me + 1, seats[me], after.box.colour_name(colour or "?"), wild))
        else:  # SetupDealt, CardsDealt
            for head in after.owed:
                for _ in range(head.count):
                    storm_rows.append((game_id, seq, 0, head.seat + 1, seats[head.seat], "deal", head.seat == 0))

    return watcher


def scores(state: State) -> dict[str, int]:
    """Map pieces held so far (the outcome's scores once the game is over)."""
    return {name: seat.maps.size for name, seat in zip(state.seats, state.players)}


def turns(state: State) -> int:
    return state.turns


def rounds(state: State, outcome: Outcome | None) -> list[tuple[Any, ...]]:
    """Splice is decided once: a finished game is one round."""
    return one_round(outcome, state.seats)


_HURRICANES_SQL = """
SELECT h.drawn_in, count(*) AS hurricanes, count(DISTINCT h.game_id) AS games,
       avg(CASE WHEN h.turn_lost THEN 1.0 ELSE 0.0 END) AS turn_lost
FROM splice_hurricanes h
JOIN games g ON g.game_id = h.game_id
WHERE TRUE {where}
GROUP BY h.drawn_in
ORDER BY hurricanes DESC, h.drawn_in
"""

_PIRACY_SQL = """
SELECT p.plunder, count(*) AS raids, count(DISTINCT p.game_id) AS games, avg(p.gold) AS gold,
       avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS pirate_won
FROM splice_piracy p
JOIN seats s ON s.game_id = p.game_id AND s.seat = p.seat
JOIN games g ON g.game_id = p.game_id
WHERE TRUE {where}
GROUP BY p.plunder
ORDER BY raids DESC, p.plunder
"""

_PURCHASES_SQL = """
SELECT b.pieces, count(*) AS purchases, avg(b.paid) AS paid, avg(b.overpaid) AS overpaid,
       avg(b.sets) AS sets, avg(CASE WHEN b.doubles > 0 THEN 1.0 ELSE 0.0 END) AS with_double
FROM splice_purchases b
JOIN games g ON g.game_id = b.game_id
WHERE TRUE {where}
GROUP BY b.pieces
ORDER BY b.pieces
LIMIT {limit}
"""

HISTORY = History(
    tables=TABLES,
    watch=watch,
    scores=scores,
    turns=turns,
    rounds=rounds,
    score_label="map pieces",
    reports=(
        Report(
            "splice_hurricanes",
            "Hurricanes by when they were drawn",
            _HURRICANES_SQL,
            (
                Column("drawn_in", "drawn in"),
                Column("hurricanes", "hurricanes", "int", bar="cyan"),
                Column("games", "games", "int"),
                Column("turn_lost", "turn lost", "pct"),
            ),
        ),
        Report(
            "splice_piracy",
            "Piracy by plunder",
            _PIRACY_SQL,
            (
                Column("plunder", "plunder"),
                Column("raids", "raids", "int", bar="red"),
                Column("games", "games", "int"),
                Column("gold", "gold taken", "num"),
                Column("pirate_won", "pirate won", "pct"),
            ),
        ),
        Report(
            "splice_purchases",
            "map pieces bought per purchase",
            _PURCHASES_SQL,
            (
                Column("pieces", "pieces", "int"),
                Column("purchases", "purchases", "int", bar="green"),
                Column("paid", "gold paid", "num"),
                Column("overpaid", "overpaid", "num"),
                Column("sets", "sets", "num"),
                Column("with_double", "with a double", "pct"),
            ),
        ),
    ),
)
