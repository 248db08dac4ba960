"""Splendor's board: the supply, the three rows of face-up cards with their decks, nobles and players."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

STYLE = {"w": "bold white", "b": "bold blue", "g": "bold green", "r": "bold red", "k": "bold bright_black", "y": "bold yellow"}


def tokens(counts: dict[str, int], zero: bool = False) -> Text:
    text = Text()
    for letter, n in counts.items():
        if n or zero:
            text.append(f"{letter}{n} ", style=STYLE.get(letter, ""))
    return text if text.plain else Text("-")


def card(card_id: str | None) -> Text:
    if card_id is None:
        return Text("(empty)", style="dim")
    if card_id.startswith("?"):
        return Text(f"?{card_id[1:]} (hidden)", style="italic dim")
    head, _, cost = card_id.partition("-")
    text = Text()
    text.append(head, style=STYLE.get(head[1], ""))
    text.append("-")
    for i in range(0, len(cost), 2):
        text.append(cost[i : i + 2], style=STYLE.get(cost[i], ""))
    return text


def draw(view: dict[str, Any], out: Console) -> None:
    viewer = f" as seen by {view['viewer']}" if view.get("viewer") else ""
    out.print(Text(f"Splendor after #{view.get('seq', '?')}, turn {view['turn']}{viewer} ({view['mode']} mode)", style="bold"))
    out.print(Text("supply: ").append_text(tokens(view["bank"], zero=True)))
    board = Table(show_header=True, box=None, pad_edge=False)
    board.add_column("level")
    board.add_column("deck", justify="right")
    for slot in range(4):
        board.add_column(f"slot {slot + 1}")
    for level in ("3", "2", "1"):
        board.add_row(level, str(view["decks"][level]), *[card(c) for c in view["board"][level]])
    out.print(board)
    out.print("nobles: " + (" ".join(view["nobles"]) or "-"))
    players = Table(show_header=True, box=None, pad_edge=False)
    for column in ("player", "points", "tokens", "bonus", "cards", "reserved", "nobles"):
        players.add_column(column)
    for p in view["players"]:
        reserved = Text(" ").join(card(c) for c in p["reserved"]) if p["reserved"] else Text("-")
        players.add_row(
            p["name"], str(p["points"]), tokens(p["tokens"]), tokens(p["bonus"]), str(len(p["cards"])), reserved,
            " ".join(p["nobles"]) or "-",
        )
    out.print(players)
