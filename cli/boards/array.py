"""Array's board: the arrays drawn as trees of touching cards, then the players and the last round.

Each array starts at its lowest-numbered card; every other card hangs under the card it was laid against,
with the colour of the two touching segments on the branch (`─r─`). A card shows its colour letters and,
after it, which of its segments are still open. Cards just laid in the move being made are marked `*`.

The board fits 80x24 (`generic.WIDTH`, `generic.ROWS`): a branch that runs on to a single last card without
forking is drawn on one line (`├─o─ #17 go ─g─ #21 gr ─r─ #26 br`); when the trees still do not fit, each
array's heading joins its first card's line, and then each array becomes the list of its cards that have an
open segment (where a card may still be laid), `#12 bor[or]`, its joins left to `tally state`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from .generic import ROWS, WIDTH, folded, heading, height

if TYPE_CHECKING:  # the view's type, for the checker: the board draws from the view alone
    from tally.core.games.array.view import ArrayCard, ArrayTree, ArrayView

# rich styles for colour names a box may use; other names are drawn unstyled
STYLE = {
    "blue": "bold blue",
    "gray": "bold bright_black",
    "grey": "bold bright_black",
    "orange": "bold dark_orange",
    "red": "bold red",
    "yellow": "bold yellow",
    "green": "bold green",
    "purple": "bold magenta",
    "pink": "bold hot_pink",
    "white": "bold white",
    "black": "bold black",
    "brown": "bold orange4",
}


def letters(code: str, colours: dict[str, str]) -> Text:
    text = Text()
    for letter in code:
        text.append(letter, style=STYLE.get(colours.get(letter, ""), ""))
    return text


def card_line(card: ArrayCard, colours: dict[str, str], anchors: list[int]) -> Text:
    mark = "*" if card.n in anchors else ""
    text = Text(f"#{card.n}{mark} ", style="bold" if mark else "")
    text.append_text(letters(card.card, colours))
    if card.open:
        text.append("  open ").append_text(letters(" ".join(card.open), colours))
    return text


def tree(array: ArrayTree, colours: dict[str, str], anchors: list[int], joined: bool) -> list[Text]:
    """An array as a tree, one line per card except a branch that runs on to its last card without forking
    (one line); `joined`: the array's heading on its first card's line."""
    cards = array.cards
    children: dict[int, list[ArrayCard]] = {}
    for card in cards:
        if card.parent:
            children.setdefault(card.parent, []).append(card)
    title = Text(f"array {array.root} · {array.size} card{'s' if array.size != 1 else ''}", style="bold")
    lines: list[Text] = [] if joined else [title]

    def is_straight(card: ArrayCard) -> bool:  # no fork from here to its last card
        below = children.get(card.n, [])
        return not below or (len(below) == 1 and is_straight(below[0]))

    def branch(card: ArrayCard, prefix: str, last: bool, top: bool) -> None:
        line = title.append(": ") if top and joined else Text("  ")
        line.append(prefix)
        if not top:
            line.append("└─" if last else "├─").append_text(letters(card.via or "", colours)).append("─ ")
        line.append_text(card_line(card, colours, anchors))
        lines.append(line)
        below = children.get(card.n, [])
        if not top and is_straight(card):
            while below:  # the rest of a straight branch, on this line
                card = below[0]
                line.append(" ─").append_text(letters(card.via or "", colours)).append("─ ")
                line.append_text(card_line(card, colours, anchors))
                below = children.get(card.n, [])
            return
        deeper = prefix if top else prefix + ("     " if last else "│    ")  # under the parent's number
        for i, child in enumerate(below):
            branch(child, deeper, i == len(below) - 1, False)

    branch(cards[0], "", True, True)
    return lines


def open_cards(array: ArrayTree, colours: dict[str, str], anchors: list[int]) -> list[Text]:
    """An array as the cards of it that have an open segment (`#12 bor[or]`) and those just laid, its joins
    and closed cards left out (counted): the items of a list that flows from one array into the next."""
    shown = []
    for card in array.cards:
        if card.open or card.n in anchors:
            text = Text(f"#{card.n}{'*' if card.n in anchors else ''} ").append_text(letters(card.card, colours))
            if card.open:
                text.append("[").append_text(letters("".join(card.open), colours)).append("]")
            shown.append(text)
    closed = array.size - len(shown)
    if closed:
        shown.append(Text(f"+{closed} closed", style="dim"))
    shown[-1].append(";")  # where the next array's list begins
    return [Text(f"array {array.root} ({array.size}):", style="bold"), *shown]


def listed(every: list[ArrayTree], colours: dict[str, str], anchors: list[int]) -> list[Text]:
    """Every array's open cards, one list, a `;` where the next array begins."""
    items = [item for array in every for item in open_cards(array, colours, anchors)]
    items[-1].right_crop(1)  # no array begins after the last
    return items


def arrays(view: ArrayView, colours: dict[str, str], room: int) -> list[Text]:
    """The arrays in the most detail that fits `room` rows of WIDTH columns."""
    if not view.arrays:
        return [Text("(no card on the table)")]
    anchors = view.anchors
    tried = [
        [line for array in view.arrays for line in tree(array, colours, anchors, joined)] for joined in (False, True)
    ]
    tried.append(
        [Text("open segments in [ ], joins left out to fit (`tally state --json` has them)", style="italic")]
        + folded(listed(view.arrays, colours, anchors), "", " ", "")
    )
    for lines in tried:
        if len(lines) <= room and all(len(line.plain) <= WIDTH for line in lines):
            return lines
    cards = sum(array.size for array in view.arrays)
    segments = sum(len(card.open) for array in view.arrays for card in array.cards)
    return [
        Text(
            f"{len(view.arrays)} arrays, {cards} cards, {segments} open segments (`tally state --json`)", style="italic"
        )
    ]


def draw(view: ArrayView, out: Console) -> None:
    colours = view.colours
    facts = [
        Text(f"dealer {view.dealer}"),
        Text(f"threshold {view.threshold}"),
        Text(f"end {view.end}"),
        Text(f"pickup deck {view.deck}"),
    ]
    if view.sudden_death:
        facts.insert(0, Text("SUDDEN DEATH"))
    if view.given:
        facts.append(Text("given: " + " ".join(view.given)))
    if view.returned:
        facts.append(Text("back in the deck: " + " ".join(view.returned)))
    top: list[Any] = [heading(view, "Array", f"round {view.round}"), *folded(facts)]
    top += folded([letters(k, colours) + Text(f" {v}") for k, v in colours.items()], "colours: ", " ")
    players = Table(show_header=True, box=None, pad_edge=False)
    for column in ("player", "total", "status", "cards", "hand", "slams"):
        players.add_column(column)
    winners = view.outcome.winners if view.outcome else []
    for p in view.players:
        name = p.name + (" ←" if p.name == view.to_act else "")
        if p.name in winners:
            status = "winner"
        elif p.playing:
            status = "playing"
        else:
            status = "out" if p.out else "sits out"
        hand = letters(" ".join(p.hand), colours) if p.hand else Text("-")
        if p.shown:
            hand = Text("shown: ").append_text(letters(" ".join(p.shown), colours)).append("  ").append_text(hand)
        players.add_row(name, str(p.total), status, str(p.cards), hand, str(p.slams or "-"))
    bottom: list[Any] = [players]
    for entry in view.rounds[-1:]:  # the totals are in the players' table; earlier rounds in `tally replay`
        how = f"{entry.winners[0]} went out" if entry.ended == "out" else "blocked"
        sudden = " (sudden death)" if entry.sudden_death else ""
        parts = [
            Text(f"round {entry.round}{sudden}, dealer {entry.dealer}: {how};"),
            *(Text(f"{name} +{n},") for name, n in entry.points.items()),
        ]
        parts[-1] = Text(parts[-1].plain.rstrip(","))
        if entry.eliminated:
            parts[-1].append(";")
            parts.append(Text(f"eliminated: {', '.join(entry.eliminated)}"))
        bottom += folded(parts, separator=" ")  # within WIDTH columns, whatever the console's width
    for part in [*top, *arrays(view, colours, ROWS - height(*top, *bottom)), *bottom]:
        out.print(part)
