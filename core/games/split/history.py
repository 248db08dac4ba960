"""Split's tables in the history library (docs/sql.md): their schema, the rows read off a fold, the reports.

Nothing here judges or applies a rule: the library folds every log through the engine (the same checks
and reducers as `tally check`) and the watcher only reads the states before and after each event. Rows
carry the seq of the event that produced them, so a `voided` event drops the rows of the event it voids.
"""

from __future__ import annotations

from typing import Any, Callable

from ...history import Column, History, Report, progression_sql, round_rows
from ...model import Event, GameStarted, Outcome
from .components import GRADES, box_value, grade
from .events import MatchPlayed, MatchUpgraded
from .state import State, find_match, scores

# table -> [(column, DuckDB type)]: the exact schema (docs/sql.md documents every column)
TABLES: dict[str, list[tuple[str, str]]] = {
    "split_rounds": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("round", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("dealer", "BOOLEAN"),
        ("ended", "VARCHAR"),
        ("ender", "BOOLEAN"),
        ("perfect", "INTEGER"),
        ("strong", "INTEGER"),
        ("weak", "INTEGER"),
        ("cards_left", "INTEGER"),
        ("minus", "INTEGER"),
        ("score", "INTEGER"),
        ("total", "INTEGER"),
        ("won", "BOOLEAN"),
    ],
    "split_pad": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("round", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("position", "INTEGER"),
        ("pad_row", "VARCHAR"),
        ("marks", "INTEGER"),
        ("points", "INTEGER"),
    ],
    "split_matches": [
        ("game_id", "VARCHAR"),
        ("seq", "INTEGER"),
        ("round", "INTEGER"),
        ("turn", "INTEGER"),
        ("seat", "INTEGER"),
        ("player", "VARCHAR"),
        ("how", "VARCHAR"),
        ("rank", "VARCHAR"),
        ("kind", "VARCHAR"),
        ("cards", "VARCHAR"),
        ("taken_from", "VARCHAR"),
    ],
}


def watch(
    game_id: str, started: GameStarted, sink: dict[str, list[tuple[Any, ...]]]
) -> Callable[[Event, State, State], None]:
    """A watcher for one game: it appends rows (tuples) to the batch's row lists (`sink[table]`)."""
    seats = started.seats
    round_rows_, pad_rows, match_rows = (sink[name] for name in TABLES)

    def watcher(event: Event, before: State, after: State) -> None:
        current = before.current
        deck = after.deck
        if isinstance(event, MatchPlayed):
            a, b = event.cards
            how = "laid" if before.phase == "laying" else "match"
            match_rows.append(
                (
                    game_id,
                    event.seq,
                    before.round,
                    before.turns + 1,
                    current + 1,
                    seats[current],
                    how,
                    deck.ranks[deck.info[a][0]],
                    GRADES[grade(deck, a, b)],
                    "+".join(_pair_of(after, a)),
                    None,
                )
            )
        elif isinstance(event, MatchUpgraded):
            owner = find_match(before, event.over)
            card = event.card
            shown = _pair_of(after, card)
            taken = (
                seats[owner[0]]
                if owner is not None and owner[0] != current and before.upgrade_others == "take"
                else None
            )
            match_rows.append(
                (
                    game_id,
                    event.seq,
                    before.round,
                    before.turns + 1,
                    current + 1,
                    seats[current],
                    "upgrade",
                    deck.ranks[deck.info[card][0]],
                    GRADES[grade(deck, shown[0], shown[1])],
                    "+".join(shown),
                    taken,
                )
            )
        if len(after.results) > len(before.results):
            r = after.results[-1]
            best = max(r.scores)
            for s, name in enumerate(seats):
                round_rows_.append(
                    (
                        game_id,
                        event.seq,
                        r.round,
                        s + 1,
                        name,
                        s == r.dealer,
                        r.ended,
                        s == r.ender,
                        r.perfect[s],
                        r.strong[s],
                        r.weak[s],
                        r.left[s],
                        r.minus[s],
                        r.scores[s],
                        r.totals[s],
                        r.scores[s] == best,
                    )
                )
                marks = r.pads[s]
                for line, row in enumerate(deck.rows):
                    pad_rows.append(
                        (
                            game_id,
                            event.seq,
                            r.round,
                            s + 1,
                            name,
                            line + 1,
                            row.name,
                            marks[line],
                            box_value(row.boxes, marks[line]),
                        )
                    )
                pad_rows.append(
                    (
                        game_id,
                        event.seq,
                        r.round,
                        s + 1,
                        name,
                        len(deck.rows) + 1,
                        "minus",
                        marks[-1],
                        -box_value(deck.minus, marks[-1]),
                    )
                )

    return watcher


def _pair_of(state: State, card: str) -> tuple[str, str]:
    """The visible halves of the match on the table that shows `card`."""
    where = find_match(state, card)
    if where is None:  # cannot happen after a legal match or upgrade; the card alone, to be safe
        return (card, card)
    owner, index = where
    match = state.players[owner].matches[index]
    return match[0], match[1]


def turns(state: State) -> int:
    return state.turns


def rounds(state: State, outcome: Outcome | None) -> list[tuple[Any, ...]]:
    """One row per player per finished round: its score (what the pad's total gained) and the running total."""
    seats = state.seats
    per_round = [dict(zip(seats, r.scores)) for r in state.results]
    winners = [[name for name, score in zip(seats, r.scores) if score == max(r.scores)] for r in state.results]
    return round_rows(seats, per_round, winners)


_PROGRESSION_SQL = progression_sql("split_rounds", "round", "total")  # `tally stats`: core.history

# matches by type
_MATCH_TYPES_SQL = """
SELECT m.kind, m.how, count(*) AS matches, count(DISTINCT m.game_id) AS games,
       avg(CASE WHEN s.won THEN 1.0 ELSE 0.0 END) AS player_win_rate
FROM split_matches m
JOIN seats s ON s.game_id = m.game_id AND s.seat = m.seat
JOIN games g ON g.game_id = m.game_id
WHERE TRUE {where}
GROUP BY m.kind, m.how
ORDER BY matches DESC, m.kind, m.how
LIMIT {limit}
"""

HISTORY = History(
    tables=TABLES,
    watch=watch,
    scores=scores,
    turns=turns,
    rounds=rounds,
    score_label="pad score",
    reports=(
        Report(
            "progression",
            "average total after each round (finished games)",
            _PROGRESSION_SQL,
            (
                Column("round", "round", "int"),
                Column("games", "games", "int"),
                Column("winners", "winners", "num", bar="green"),
                Column("others", "others", "num", bar="yellow"),
            ),
            chart=True,
        ),
        Report(
            "match_types",
            "matches by type and how made",
            _MATCH_TYPES_SQL,
            (
                Column("kind", "type"),
                Column("how", "how"),
                Column("matches", "matches", "int"),
                Column("games", "games", "int"),
                Column("player_win_rate", "player won", "pct"),
            ),
        ),
    ),
)
