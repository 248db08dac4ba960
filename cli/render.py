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


_UNSAFE = {code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)}
_UNSAFE.update({code: f"\\u{code:04x}" for code in (*range(0x80, 0xA0), 0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x2028,
                                                    0x2029, *range(0x202A, 0x202F), *range(0x2066, 0x206A), 0xFEFF)})
_UNSAFE.pop(0x0A)  # a newline in our own text is a line break


def safe(text: str) -> str:
    """Text for the terminal: control, bidi and invisible characters shown as escapes, never obeyed."""
    return text.translate(_UNSAFE)


def console() -> Console:
    # a fixed width off a terminal keeps piped output (and snapshots) stable
    # markup off: notes, reasons and names are the players' own text, never formatting codes
    return Console(width=None if sys.stdout.isatty() else 100, highlight=False, markup=False, emoji=False)


def print_view(view: dict[str, Any], out: Console | None = None, footer: bool = True) -> None:
    """The game's board, then (with `footer`) the result or what is expected next."""
    out = out or console()
    board_for(view["game"])(view, out)
    if not footer:
        return
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
