"""Splice's board: whose turn it is, what is pending and why, the piles, and each player's table."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import heading

if TYPE_CHECKING:  # the view's type, for the checker: the board draws from the view alone
    from tally.core.games.splice.view import SpliceView

STYLE = {"r": "bold red", "b": "bold blue", "g": "bold green", "y": "bold yellow", "p": "bold magenta"}


def cards(items: list[str]) -> Text:
    if not items:
        return Text("-")
    text = Text()
    for i, item in enumerate(items):
        if i:
            text.append(" ")
        style = "dim" if item == "?" else STYLE.get(item[0], "") if len(item) == 2 and item[1].isdigit() else ""
        text.append(item, style=style)
    return text


def draw(view: SpliceView, out: Console) -> None:
    out.print(heading(view, "Splice"))
    out.print(f"turn of: {view.current}")
    pending = view.pending
    if pending:
        out.print(Text(f"pending: {pending.by} must {pending.obligation} — {pending.why}", style="bold yellow"))
    storm = view.hurricanes
    centre = f", {storm.in_centre} in the centre" if storm.in_centre else ""
    out.print(
        f"Draw Pile {view.draw_pile}, Map Pile {view.map_pile}, unused disks {' '.join(view.unused_disks) or '-'}; "
        f"Hurricanes in play {storm.in_play}{centre}"
    )
    stall = view.stall
    limit = f"/{stall.limit}" if stall.limit else ""
    final = "; final round" if view.final_round else ""
    out.print(f"turns without a map piece bought or taken: {stall.quiet_turns}{limit}{final}")
    if view.map_laid:
        out.print(Text("map laid down: ").append_text(cards(view.map_laid)))
    colours = " ".join(f"{letter}={name}" for letter, name in view.colours.items())
    out.print(f"colours: {colours}")
    players = Table(show_header=True, box=None, pad_edge=False)
    for column in ("player", "disk", "hand", "sets", "gold", "map pieces", "lost turns"):
        players.add_column(column)
    for p in view.players:
        sets = list(p.sets) + ["double"] * p.doubles
        lost = ("spot " * p.black_spots).strip() or ("forfeit" if p.loses_next_turn else "-")
        marker = " *" if p.name == view.current else ""
        players.add_row(
            p.name + marker, cards([p.disk]), cards(p.hand), cards(sets), str(p.gold), cards(p.map_pieces), lost
        )
    out.print(players)
