"""Ten's part of the history library: the total after every number said."""

from __future__ import annotations

from typing import Any

from tally.core.history import Column, History, Report, Rows, Watcher, one_round
from tally.core.model import Event, GameStarted

from .events import NumberSaid
from .state import State


def watch(game_id: str, started: GameStarted, rows: Rows) -> Watcher:
    totals = rows.setdefault("tinygame_totals", [])

    def seen(event: Event, before: Any, after: Any) -> None:
        if isinstance(event, NumberSaid):
            totals.append((game_id, event.seq, after.total))

    return seen


def _scores(state: State) -> dict[str, int]:
    return dict.fromkeys(state.seats, 0)


HISTORY = History(
    tables={"tinygame_totals": [("game_id", "VARCHAR"), ("seq", "INTEGER"), ("total", "INTEGER")]},
    watch=watch,
    scores=_scores,
    turns=lambda state: state.turns,
    rounds=lambda state, outcome: one_round(outcome, state.seats),
    reports=(
        Report(
            "totals",
            "Totals said",
            "SELECT count(*) AS n FROM games g WHERE true {where}",
            (Column("n", "games", "int"),),
        ),
    ),
)
