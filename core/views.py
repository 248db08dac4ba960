"""What every game's view holds: the keys `tally state --json` prints for every game, typed.

A game's view is a frozen msgspec Struct of its own (`core/games/<game>/view.py`), its players' entries and
the table's parts Structs too, so that pictures and boards read attributes the type checker knows. Every
view has the common keys (`game`, `mode`, `viewer`, `phase`, `turn`, `to_act`, `expected`, `players`,
`outcome`, then `seq` and `fingerprint` once the read model places it in a log): `View` says so, and
`GameSpec`'s view type is bound to it, so mypy checks each game's Struct against it.

Why a protocol and not a base Struct: a Struct encodes its fields in the order they are declared, a base's
first, and each game has always put its own keys between the common ones (Split's `round` and `rounds` after
`phase`, every game's table before `players`, Splendor's `end_triggered` after them); `--json` and the API
print the keys in that order, which must not change. So each game declares every field in its order, and
`common` builds the common values once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypedDict

from msgspec import UnsetType

from .model import Outcome


class Entry(Protocol):
    """A player's entry in a view: every game's has the player's `name` first."""

    @property
    def name(self) -> str: ...


class View(Protocol):
    """The keys every game's view has (read-only: a view is a value). `seq` and `fingerprint` are unset in a
    game's own view (and left out of its JSON); the read model sets them where it shows the view at a
    position of a log (`store/recording/results.py`'s `board_at`), and the boards' heading reads them."""

    @property
    def game(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def viewer(self) -> str | None: ...
    @property
    def phase(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def to_act(self) -> str: ...
    @property
    def expected(self) -> str: ...
    @property
    def players(self) -> Sequence[Entry]: ...
    @property
    def outcome(self) -> Outcome | None: ...
    @property
    def seq(self) -> int | UnsetType: ...
    @property
    def fingerprint(self) -> str | None | UnsetType: ...


class Common(TypedDict):
    """The common keys' values but `players` (`**common(...)` in a game's view Struct's call)."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    turn: int
    to_act: str
    expected: str
    outcome: Outcome | None


def common(
    game: str, mode: str, viewer: str | None, phase: str, turn: int, acting: tuple[str, str], outcome: Outcome | None
) -> Common:
    """The common keys of a view: `acting` is the game's `to_act` (who, what)."""
    who, what = acting
    return Common(
        game=game, mode=mode, viewer=viewer, phase=phase, turn=turn, to_act=who, expected=what, outcome=outcome
    )


def waiting_on(acting: tuple[str, str], owed: Sequence[str] = ()) -> tuple[str, ...]:
    """The seats the table waits on (a game's `waiting_on`): every seat still to name its own hidden cards, `owed`,
    since they name them in any order, each from its own device; else the seat to act (`acting`, the game's
    `to_act`); none when the table or nobody acts."""
    if owed:
        return tuple(owed)
    who = acting[0]
    return () if who in ("table", "nobody") else (who,)
