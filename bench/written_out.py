"""The written-out copies of helpers that the games keep for speed, each with the plain code it stands for.

`bench_fold.py` measures each copy against its plain twin: the function that holds the copy, rebuilt from its own
source with the copy's text replaced by the plain text and run in its module's names. A copy whose text is no longer
in its function fails the run: the copy changed, so its entry here must change with it.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, Callable


@dataclass
class Copy:
    """One written-out copy, `what` it copies: in `game`'s module `module`, function `function`, the text `written`
    stands for `plain`; `part`: where the function runs, `check` (the guards) or `apply` (the reducers)."""

    game: str
    module: str
    function: str
    what: str
    part: str
    written: str
    plain: str
    twin: Callable[..., Any] = field(init=False)
    original: Callable[..., Any] = field(init=False)

    def __post_init__(self) -> None:
        module = import_module(f"tally.core.games.{self.game}.{self.module}")
        self.original = getattr(module, self.function)
        source = inspect.getsource(self.original)
        if self.written not in source:
            sys.exit(f"bench: {self.where} no longer holds its written-out copy; update bench/written_out.py")
        names: dict[str, Any] = {}
        for name, loaded in list(sys.modules.items()):  # the game's names, its own module's last
            if name.startswith(f"tally.core.games.{self.game}."):
                names.update(vars(loaded))
        names.update(vars(module))
        exec(compile(source.replace(self.written, self.plain), f"<plain {self.where}>", "exec"), names)  # noqa: S102
        self.twin = names[self.function]

    @property
    def where(self) -> str:
        return f"{self.module}.{self.function} ({self.what})"


# every copy a game keeps: each paid 3% or more of its game's fold when it was last measured (the figure is in its
# comment); a copy that no longer pays goes back to its plain code, and its entry here goes
COPIES: list[Copy] = [
    Copy(
        "splendor",
        "reducer",
        "_apply_take",
        "_seat_done",
        "apply",
        """\
    held = tw + tb + tg + tr + tk + ty + w + b + g + r + k + y
    if held > TOKEN_LIMIT:  # `_end_of_turn`'s first answer: tokens to return, in the same copy of the state
        return _replace(state, players=_seated(players, current, seat), bank=bank, passes=0, phase="return")
    if state.stuck != "end":
        nobles = state.nobles
        if not nobles or len(seat.cards) < NOBLE_MINIMUM or nobles_met(seat.bonus).isdisjoint(nobles):
            following = current + 1
            if following == len(players):
                following = -1 if state.end_triggered or seat.points >= state.target else 0
            if following >= 0:
                seats = list(players)  # `_seated(players, current, seat)` without its call
                seats[current] = seat
                return _replace(
                    state,
                    players=tuple(seats),
                    bank=bank,
                    passes=0,
                    current=following,
                    phase="action",
                    end_triggered=state.end_triggered or seat.points >= state.target,
                    turns=state.turns + 1,
                )
    return _end_of_turn(with_seat(state, current, seat, bank=bank, passes=0))
""",
        """\
    return _seat_done(state, seat, {"bank": bank, "passes": 0}, _end_of_turn)
""",
    ),
    Copy(
        "splendor",
        "reducer",
        "_apply_return",
        "_seat_done",
        "apply",
        """\
    if state.gap is None:
        following = _next_seat(state, seat, tw + tb + tg + tr + tk + ty)
        if following is not None:
            return _replace(
                state,
                players=_seated(players, current, seat),
                bank=bank,
                current=following,
                phase="action",
                end_triggered=state.end_triggered or seat.points >= state.target,
                turns=state.turns + 1,
            )
    state = with_seat(state, current, seat, bank=bank)
    return state if state.gap else _nobles_then_next(state)
""",
        """\
    return _seat_done(state, seat, {"bank": bank}, _nobles_then_next)
""",
    ),
    Copy(
        "split",
        "state",
        "plays_with",
        "is_pairable",
        "check",
        """\
    if size - 2 >= 1:
        info = state.deck.info
        rank, _, side, _ = info[card]
        any_side = state.halves == "any"
        for other in hand:
            o = info[other]
            if o[0] == rank and other != card and (any_side or o[2] != side):
                return True
""",
        """\
    if size - 2 >= 1 and any(is_pairable(state, card, other) for other in hand):
        return True
""",
    ),
]
