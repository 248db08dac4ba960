"""The games tally knows: the one list. A game is a package `core/games/<name>/` exposing `SPEC`.

Adding a game is a new folder plus one line here (docs/architecture.md, "Adding a game"). Game
packages are imported on first use, so a command pays only for the game it touches.
"""

from __future__ import annotations

from importlib import import_module

from .model import GameSpec

GAMES: tuple[str, ...] = (
    "splendor",
    "split",
    "array",
    "splice",
)


class UnknownGame(LookupError):
    def __init__(self, name: str):
        super().__init__(f"unknown game {name!r}; tally knows: {', '.join(names())}")
        self.name = name


def names() -> list[str]:
    return sorted(GAMES)


def get(name: str) -> GameSpec:
    if name not in GAMES:
        raise UnknownGame(name)
    return import_module(f"{__package__}.games.{name}").SPEC


def specs() -> list[GameSpec]:
    """Every game's spec, in name order (imports every game: for the library and docs, not for a move)."""
    return [get(name) for name in names()]
