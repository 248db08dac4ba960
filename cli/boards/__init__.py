"""Boards: a game's view drawn in the terminal. `cli/boards/<game>.py` draws one game's board; any game
without one is drawn by `generic`. Each board module has `draw(view, out)`; a view is the game's view Struct
(docs/architecture.md lists the keys every view has; a game's board reads its own game's view type)."""

from __future__ import annotations

from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:
    from tally.core.views import View


def board_for(game: str) -> Callable[[View, Any], None]:
    """The `draw` function of the game's own board, or the generic one."""
    name = f"{__package__}.{game}"
    if game.isidentifier() and find_spec(name) is not None:
        return import_module(name).draw
    return import_module(f"{__package__}.generic").draw
