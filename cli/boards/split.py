"""Split's board: the pile, the discard row, every player's hand and matches by type, and the score pads as
on paper (each row's boxes marked so far and the value of its first open box, which is what counts)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import heading

SUIT_STYLE = {"H": "bold red", "D": "bold red", "S": "bold", "C": "bold"}
KIND_STYLE = {"perfect": "bold green", "strong": "bold cyan", "weak": "yellow"}
SHOWN_MARKS = 8  # marks beyond this are written as a count, so a cell stays short


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


def hand(entry: dict[str, Any]) -> Text:
    if not entry["hand_size"]:
        return Text("(empty)", style="dim")
    shown = cards(entry["hand"]) if entry["hand"] else Text("")
    if entry["hidden"]:
        hidden = Text(f"{entry['hidden']} hidden", style="italic dim")
        shown = shown.append(" ").append_text(hidden) if entry["hand"] else hidden
    return shown.append(f" ({entry['hand_size']})")


def boxes(marked: int, values: list[int], sign: str = "") -> Text:
    """A row of the pad: `x` per marked box, then the first open box's value in brackets."""
    text = Text("x" * marked if marked <= SHOWN_MARKS else f"x{marked}", style="bold")
    value = values[marked] if marked < len(values) else values[-1]
    if marked:
        text.append(" ")
    sign = sign if value else ""
    return text.append(f"[{sign}{value}]" if marked < len(values) else f"full {sign}{value}")


def draw(view: dict[str, Any], out: Console) -> None:
    round_text = f"round {view['round']} of {view['rounds']}" if view["round"] else f"before round 1 of {view['rounds']}"
    out.print(heading(view, "Split", round_text))
    out.print(Text(f"dealer: {view['dealer']}   pile: {view['pile']} cards   reference cards: {view['reference']} set aside"))
    out.print(Text("discard row (bottom to top): ").append_text(cards(view["row"])))
    if view.get("bonus"):
        out.print(Text(f"pending: the {view['bonus']} match's bonus", style="italic"))
    if view.get("must_play"):
        out.print(Text(f"to play first: {view['must_play']} (taken from the discard row)", style="italic"))
    table = Table(show_header=True, box=None, pad_edge=False)
    for column in ("player", "hand", "perfect", "strong", "weak", "under"):
        table.add_column(column)
    for entry in view["players"]:
        found = entry["matches"]
        table.add_row(
            entry["name"], hand(entry), matches(found["perfect"], "perfect"), matches(found["strong"], "strong"),
            matches(found["weak"], "weak"), cards(entry["under"]) if entry["under"] else Text("-", style="dim"),
        )
    out.print(table)
    pad = Table(show_header=True, box=None, pad_edge=False, title="score pads", title_justify="left")
    pad.add_column("row")
    for entry in view["players"]:
        pad.add_column(entry["name"])
    for row in view["pad"]["rows"]:
        pad.add_row(row["name"], *[boxes(entry["pad"][row["name"]], row["boxes"]) for entry in view["players"]])
    pad.add_row("minus", *[boxes(entry["pad"]["minus"], view["pad"]["minus"], "-") for entry in view["players"]])
    pad.add_row(Text("score", style="bold"), *[Text(str(entry["score"]), style="bold") for entry in view["players"]])
    for result in view["results"]:
        pad.add_row(f"round {result['round']}", *[f"{result['scores'][entry['name']]:+d}" for entry in view["players"]])
    out.print(pad)
