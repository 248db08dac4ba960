"""Rich rendering of views and replays (imported only by commands that draw a table).

A game's board is drawn by `cli/boards/<game>.py`, or by the generic board; this module adds what
every game shares: the console, the result or what is expected next, and the replay's steps.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TypeVar, cast

import msgspec
from rich.console import Console
from rich.text import Text

from tally.core.text import visible

from .boards import board_for
from .boards.generic import WIDTH

if TYPE_CHECKING:
    from tally.core.views import View

T = TypeVar("T")


def console() -> Console:
    # a fixed width off a terminal keeps piped output (and snapshots) stable
    # markup off: notes, reasons and names are the players' own text, never formatting codes
    return Console(width=None if sys.stdout.isatty() else 100, highlight=False, markup=False, emoji=False)


def shown(data: T) -> T:
    """`data` (a view, a report row) with every string made safe to print (`core.text.visible`), so no board,
    table or chart can pass a player's control characters to the terminal, whatever it draws."""
    return _shown(data)  # (the same type back: a Struct as itself, a dict as a dict)


def _shown(data: Any) -> Any:
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, msgspec.Struct):  # a view, its entries and parts: the same Struct, its strings made safe
        return msgspec.structs.replace(data, **{name: _shown(getattr(data, name)) for name in data.__struct_fields__})
    if isinstance(data, dict):
        return {_shown(key): _shown(value) for key, value in data.items()}
    if isinstance(data, list):
        return [_shown(item) for item in data]
    if isinstance(data, tuple):
        return tuple(_shown(item) for item in data)
    return data


def narrowed(out: Console) -> Console:
    """A console onto the same output at most `WIDTH` columns wide: a board stays within an 80-column terminal
    whatever the console's own width (a wider terminal, output piped at 100 columns)."""
    if out.width <= WIDTH:
        return out
    return Console(
        file=out.file,
        width=WIDTH,
        color_system=cast(Any, out.color_system),
        force_terminal=out.is_terminal,
        no_color=out.no_color,
        markup=False,
        highlight=False,
        emoji=False,
        legacy_windows=False,
    )


def print_view(view: View, out: Console | None = None, footer: bool = True) -> None:
    """The game's board (within `WIDTH` columns), then (with `footer`) the result or what is expected next."""
    out = out or console()
    view = shown(view)
    board_for(view.game)(view, narrowed(out))
    if not footer:
        return
    if view.outcome:
        out.print(Text(f"game over: {view.outcome.reason}", style="bold"))
    else:
        out.print(f"next: {view.expected}")


def print_replay(report: Any) -> None:
    """A replay (`store.results.ReplayReport`): every step, the table after the last, the result."""
    out = console()
    for step in report.steps:
        mark = " (voided)" if step.voided else ""
        out.print(f"#{step.seq:<4} {visible(step.text)}{mark}", soft_wrap=True)
    out.print()
    print_view(report.state, out)
    if report.outcome is not None:
        out.print(visible(report.outcome.scores_line()))
