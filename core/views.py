"""What every game's view holds, built once: the envelope of keys `tally state --json` prints for every game.

A game's view is plain data. The common keys (`game`, `mode`, `viewer`, `phase`, `turn`, `to_act`, `expected`,
`players`, `outcome`) come from here; the game passes its own keys and where they go, so that the order of the
keys, which `--json` prints as it is, stays the one each game has always had.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from .model import Outcome


def view_envelope(
    game: str,
    mode: str,
    viewer: str | None,
    phase: str,
    turn: int,
    acting: tuple[str, str],
    players: list[Any],
    outcome: Outcome | None,
    table: dict[str, Any],
    *,
    after_phase: dict[str, Any] | None = None,
    after_players: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The view: the common keys with the game's own `table` keys between `expected` and `players` (`after_phase`:
    keys between `phase` and `turn`; `after_players`: between `players` and `outcome`). `acting` is the game's
    `to_act` (who, what)."""
    view: dict[str, Any] = {"game": game, "mode": mode, "viewer": viewer, "phase": phase}
    if after_phase:
        view.update(after_phase)
    view["turn"] = turn
    view["to_act"], view["expected"] = acting
    view.update(table)
    view["players"] = players
    if after_players:
        view.update(after_players)
    view["outcome"] = msgspec.to_builtins(outcome) if outcome else None
    return view


def waiting_on(acting: tuple[str, str], owed: Sequence[str] = ()) -> tuple[str, ...]:
    """The seats the table waits on (a game's `waiting_on`): every seat still to name its own hidden cards, `owed`,
    since they name them in any order, each from its own device; else the seat to act (`acting`, the game's
    `to_act`); none when the table or nobody acts."""
    if owed:
        return tuple(owed)
    who = acting[0]
    return () if who in ("table", "nobody") else (who,)
