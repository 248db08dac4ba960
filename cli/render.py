"""Rich rendering of views and replays (imported only by commands that draw a table).

A game's board is drawn by `cli/boards/<game>.py`, or by the generic board; this module adds what
every game shares: the console, the result or what is expected next, and the replay's steps.
"""

from __future__ import annotations

import sys
from typing import Any

from rich.console import Console
from rich.text import Text

from .boards import board_for


def console() -> Console:
    # a fixed width off a terminal keeps piped output (and snapshots) stable
    # markup off: notes, reasons and names are the players' own text, never formatting codes
    return Console(width=None if sys.stdout.isatty() else 100, highlight=False, markup=False, emoji=False)


def print_view(view: dict[str, Any], out: Console | None = None) -> None:
    out = out or console()
    board_for(view["game"])(view, out)
    if view.get("outcome"):
        out.print(Text(f"game over: {view['outcome']['reason']}", style="bold"))
    else:
        out.print(f"next: {view['expected']}")


def print_replay(spec: Any, frames: list[Any], state: Any, result: Any) -> None:
    out = console()
    for frame in frames:
        mark = " (voided)" if frame.voided else ""
        out.print(f"#{frame.seq:<4} {frame.text}{mark}", soft_wrap=True)
    view = spec.view(state, None)
    view["seq"] = frames[-1].seq
    out.print()
    print_view(view, out)
    if result is not None:
        scores = ", ".join(f"{name} {score}" for name, score in result.scores.items())
        out.print(f"scores: {scores}; winner: {', '.join(result.winners)}")
