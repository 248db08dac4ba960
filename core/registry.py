"""The games tally knows, by name. Game modules are imported on first use so a command pays only for its game."""

from __future__ import annotations

from importlib import import_module

from .model import GameSpec

_MODULES = {"splendor": ("splendor", "SPLENDOR")}


class UnknownGame(LookupError):
    def __init__(self, name: str):
        super().__init__(f"unknown game {name!r}; tally knows: {', '.join(names())}")
        self.name = name


def names() -> list[str]:
    return sorted(_MODULES)


def get(name: str) -> GameSpec:
    try:
        module, attribute = _MODULES[name]
    except KeyError:
        raise UnknownGame(name) from None
    return getattr(import_module(f"{__package__}.games.{module}"), attribute)
