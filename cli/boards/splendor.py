"""Splendor's board: the supply, the nobles, the three rows of face-up cards with their decks, and the
players (tokens against the limit, bonuses, cards, nobles, reserves), within 80 columns."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import heading

if TYPE_CHECKING:  # the view's type, for the checker: the board draws from the view alone
    from tally.core.games.splendor.view import SplendorView

STYLE = {
    "w": "bold white",
    "b": "bold blue",
    "g": "bold green",
    "r": "bold red",
    "k": "bold bright_black",
    "y": "bold yellow",
}


def tokens(counts: dict[str, int], zero: bool = False) -> Text:
    """`w1 b0 g2 ...` with each colour in its colour; zeros dimmed (with `zero`) or left out."""
    text = Text()
    for letter, n in counts.items():
        if n or zero:
            if text:
                text.append(" ")
            text.append(f"{letter}{n}", style=STYLE.get(letter, "") if n else "dim")
    return text if text.plain else Text("-", style="dim")


def code(pairs: str) -> Text:
    """A cost or a noble's requirement (`w4b4`), each colour in its colour."""
    text = Text()
    for i in range(0, len(pairs), 2):
        text.append(pairs[i : i + 2], style=STYLE.get(pairs[i], ""))
    return text


def card(card_id: str | None) -> Text:
    if card_id is None:
        return Text("(empty)", style="dim")
    if card_id.startswith("?"):
        return Text(f"?{card_id[1:]} (hidden)", style="italic dim")
    head, _, cost = card_id.partition("-")
    text = Text()
    text.append(head, style=STYLE.get(head[1], ""))
    text.append("-")
    return text.append_text(code(cost))


def _grid(*headers: str, right: tuple[str, ...] = ()) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for header in headers:
        table.add_column(header, justify="right" if header in right else "left", no_wrap=True)
    return table


def draw(view: SplendorView, out: Console) -> None:
    out.print(heading(view, "Splendor"))
    out.print(Text("supply  ").append_text(tokens(view.bank, zero=True)))
    nobles = Text("nobles  ")
    for i, noble in enumerate(view.nobles):
        nobles.append("  " if i else "").append_text(code(noble))
    out.print(nobles if view.nobles else Text("nobles  -"))
    board = _grid("level", "deck", *(f"slot {slot + 1}" for slot in range(4)), right=("level", "deck"))
    for level in ("3", "2", "1"):
        board.add_row(level, str(view.decks[level]), *[card(c) for c in view.board[level]])
    out.print(board)
    limit = view.token_limit
    players = _grid(
        "player",
        "pts",
        "tokens",
        "held",
        "bonus",
        "cards",
        "nobles",
        "resv",
        right=("pts", "held", "cards", "nobles", "resv"),
    )
    for p in view.players:
        held = sum(p.tokens.values())
        players.add_row(
            p.name,
            str(p.points),
            tokens(p.tokens, zero=True),
            Text(f"{held}/{limit}", style="bold red" if held > limit else ""),
            tokens(p.bonus, zero=True),
            str(len(p.cards)),
            str(len(p.nobles)),
            str(len(p.reserved)),
        )
    out.print(players)
    for p in view.players:  # what does not fit a column: the nobles and reserves themselves
        details = []
        if p.nobles:
            details.append(Text("nobles ").append_text(Text(" ").join(code(n) for n in p.nobles)))
        if p.reserved:
            details.append(Text("reserved ").append_text(Text(" ").join(card(c) for c in p.reserved)))
        if details:
            out.print(Text(f"  {p.name}: ").append_text(Text("; ").join(details)))
