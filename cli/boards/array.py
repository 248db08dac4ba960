"""Array's board: the arrays drawn as trees of touching cards, then the players and the rounds so far.

Each array starts at its lowest-numbered card; every other card hangs under the card it was laid against,
with the colour of the two touching segments on the branch (`─r─`). A card shows its colour letters and,
after it, which of its segments are still open. Cards just laid in the move being made are marked `*`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import heading

# rich styles for colour names a box may use; other names are drawn unstyled
STYLE = {
    "blue": "bold blue", "gray": "bold bright_black", "grey": "bold bright_black", "orange": "bold dark_orange",
    "red": "bold red", "yellow": "bold yellow", "green": "bold green", "purple": "bold magenta",
    "pink": "bold hot_pink", "white": "bold white", "black": "bold black", "brown": "bold orange4",
}


def letters(code: str, colours: dict[str, str]) -> Text:
    text = Text()
    for letter in code:
        text.append(letter, style=STYLE.get(colours.get(letter, ""), ""))
    return text


def card_line(card: dict[str, Any], colours: dict[str, str], anchors: list[int]) -> Text:
    mark = "*" if card["n"] in anchors else ""
    text = Text(f"#{card['n']}{mark} ", style="bold" if mark else "")
    text.append_text(letters(card["card"], colours))
    if card["open"]:
        text.append("  open ").append_text(letters(" ".join(card["open"]), colours))
    return text


def draw_array(array: dict[str, Any], colours: dict[str, str], anchors: list[int], out: Console) -> None:
    cards = array["cards"]
    children: dict[int, list[dict[str, Any]]] = {}
    for card in cards:
        if card["parent"]:
            children.setdefault(card["parent"], []).append(card)
    out.print(Text(f"array {array['root']} · {array['size']} card{'s' if array['size'] != 1 else ''}", style="bold"))

    def branch(card: dict[str, Any], prefix: str, last: bool, top: bool) -> None:
        line = Text("  " + prefix)
        if not top:
            line.append("└─" if last else "├─").append_text(letters(card["via"], colours)).append("─ ")
        line.append_text(card_line(card, colours, anchors))
        out.print(line)
        below = children.get(card["n"], [])
        deeper = prefix if top else prefix + ("     " if last else "│    ")  # under the parent's number
        for i, child in enumerate(below):
            branch(child, deeper, i == len(below) - 1, False)

    branch(cards[0], "", True, True)


def draw(view: dict[str, Any], out: Console) -> None:
    out.print(heading(view, "Array", f"round {view['round']}"))
    colours = view["colours"]
    facts = [f"dealer {view['dealer']}", f"threshold {view['threshold']}", f"end {view['end']}",
             f"pickup deck {view['deck']}"]
    if view["sudden_death"]:
        facts.insert(0, "SUDDEN DEATH")
    if view["given"]:
        facts.append("given: " + " ".join(view["given"]))
    if view["returned"]:
        facts.append("back in the deck: " + " ".join(view["returned"]))
    out.print(" · ".join(facts))
    out.print(Text("colours: ").append_text(
        Text(" ").join(letters(k, colours) + Text(f" {v}") for k, v in colours.items())))
    if not view["arrays"]:
        out.print("(no card on the table)")
    for array in view["arrays"]:
        draw_array(array, colours, view["anchors"], out)
    players = Table(show_header=True, box=None, pad_edge=False)
    for column in ("player", "total", "status", "cards", "hand", "slams"):
        players.add_column(column)
    winners = (view.get("outcome") or {}).get("winners", [])
    for p in view["players"]:
        name = p["name"] + (" ←" if p["name"] == view["to_act"] else "")
        if p["name"] in winners:
            status = "winner"
        elif p["playing"]:
            status = "playing"
        else:
            status = "out" if p["out"] else "sits out"
        hand = letters(" ".join(p["hand"]), colours) if p["hand"] else Text("-")
        if p["shown"]:
            hand = Text("shown: ").append_text(letters(" ".join(p["shown"]), colours)).append("  ").append_text(hand)
        players.add_row(name, str(p["total"]), status, str(p["cards"]), hand, str(p["slams"] or "-"))
    out.print(players)
    for entry in view["rounds"][-5:]:
        how = f"{entry['winners'][0]} went out" if entry["ended"] == "out" else "blocked"
        sudden = " (sudden death)" if entry["sudden_death"] else ""
        points = ", ".join(f"{name} +{n} ({entry['totals'][name]})" for name, n in entry["points"].items())
        gone = f"; eliminated: {', '.join(entry['eliminated'])}" if entry["eliminated"] else ""
        out.print(f"round {entry['round']}{sudden}, dealer {entry['dealer']}: {how}; {points}{gone}")
