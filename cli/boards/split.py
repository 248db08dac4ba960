"""Split's board: the pile, the discard row, every player's hand and matches by type, and the score pads as
on paper, turned on their side to fit 80x24: one line per player, a column per row of the pad holding how
many of its boxes are marked (`·` none), the minus boxes marked and the sheet's total. A row no player has
marked yet is folded into the pad's title rather than given a column."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import folded, heading

if TYPE_CHECKING:  # the view's type, for the checker: the board draws from the view alone
    from tally.core.games.split.view import SplitPlayer, SplitView

SUIT_STYLE = {"H": "bold red", "D": "bold red", "S": "bold", "C": "bold"}
KIND_STYLE = {"perfect": "bold green", "strong": "bold cyan", "weak": "yellow"}


def card(code: str) -> Text:
    """A half-card coloured by suit (hearts and diamonds red): `7HL`."""
    suit = code[-2:-1]
    return Text(code, style=SUIT_STYLE.get(suit, ""))


def cards(codes: list[str]) -> Text:
    return Text(" ").join(card(c) for c in codes) if codes else Text("-")


def matches(found: list[str], kind: str) -> Text:
    if not found:
        return Text("-", style="dim")
    return Text(" ").join(Text(m, style=KIND_STYLE[kind]) for m in found)


def hand(entry: SplitPlayer) -> Text:
    if not entry.hand_size:
        return Text("(empty)", style="dim")
    shown = cards(entry.hand) if entry.hand else Text("")
    if entry.hidden:
        hidden = Text(f"{entry.hidden} hidden", style="italic dim")
        shown = shown.append(" ").append_text(hidden) if entry.hand else hidden
    return shown.append(f" ({entry.hand_size})")


def marks(marked: int) -> Text:
    return Text(str(marked), style="bold") if marked else Text("·", style="dim")


def player_lines(entry: SplitPlayer, width: int) -> list[Text]:
    """A player's hand (and how many halves lie under their matches) on one line, then their matches by type
    (`perfect KSL+KSR ... weak 2HL+2SR`) under it, folded within the board's width; a player without
    matches takes one line."""
    lead = Text(entry.name.ljust(width))
    items = list(hand(entry).split(" "))
    if entry.under:
        items.append(Text(f"· {len(entry.under)} under their matches", style="dim"))  # out of play: a count will do
    lines = folded(items, lead, " ", " " * width)
    found = entry.matches
    parts: list[Text] = []
    for kind in ("perfect", "strong", "weak"):
        if found[kind]:
            parts.append(Text(f"{kind}:", style="italic"))
            parts.extend(matches([m], kind) for m in found[kind])
    if parts:
        lines += folded(parts, " " * width, " ", " " * width)
    return lines


def draw(view: SplitView, out: Console) -> None:
    round_text = f"round {view.round} of {view.rounds}" if view.round else f"before round 1 of {view.rounds}"
    out.print(heading(view, "Split", round_text))
    out.print(Text(f"dealer: {view.dealer}   pile: {view.pile} cards   reference cards: {view.reference} set aside"))
    for line in folded([card(c) for c in view.row] or [Text("-")], "discard row (bottom to top): ", " "):
        out.print(line)
    due = []
    if view.bonus:
        due.append(Text(f"pending: the {view.bonus} match's bonus", style="italic"))
    if view.must_play:
        due.append(Text(f"to play first: {view.must_play} (taken from the discard row)", style="italic"))
    for line in folded(due, "", "; "):
        if line.plain:
            out.print(line)
    width = max(len(entry.name) for entry in view.players) + 2
    for entry in view.players:
        for line in player_lines(entry, width):
            out.print(line)
    rows = [row.name for row in view.pad.rows]
    marked = [row for row in rows if any(entry.pad[row] for entry in view.players)]
    unmarked = [row for row in rows if row not in marked]
    title = "score pads: boxes marked per row" + (f" (none yet in {' '.join(unmarked)})" if unmarked else "")
    out.print(Text(title))  # a table's own title would wrap to the table's width
    pad = Table(show_header=True, box=None, pad_edge=False)
    pad.add_column("player")
    for row in marked:
        pad.add_column(row, justify="right")
    pad.add_column("minus", justify="right")
    pad.add_column(Text("score", style="bold"), justify="right")
    if view.results:
        pad.add_column("rounds", justify="right")
    for entry in view.players:
        cells = [marks(entry.pad[row]) for row in marked]
        cells += [marks(entry.pad["minus"]), Text(str(entry.score), style="bold")]
        if view.results:
            cells.append(Text(" ".join(f"{result.scores[entry.name]:+d}" for result in view.results)))
        pad.add_row(entry.name, *cells)
    out.print(pad)
