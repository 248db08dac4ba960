"""The board of any game without its own: the view's common keys as a heading, every other key as a
line (cut at the board's width), and the players as a table whose columns are the keys of the players'
entries (walked as the view's JSON has them, so any game's view is drawn). What every board shares lives
here too: the heading, the anchor, and the size a board fits."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec
from rich.console import Console
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from tally.core.views import View

# keys every view has (docs/architecture.md); drawn in the heading, the players table, or by print_view
COMMON = ("game", "mode", "viewer", "phase", "turn", "to_act", "expected", "players", "outcome", "seq", "fingerprint")
ANCHOR_DIGITS = 8  # what a table writes down (`tally check --expect SEQ:FINGERPRINT` takes 8 or more)
# every board fits an 80x24 terminal with the lines the session prints under it (what was recorded, a
# consequence, what is due next, the prompt): a board may take WIDTH columns and ROWS rows
WIDTH, ROWS = 80, 20


def height(*parts: Any) -> int:
    """How many rows `parts` take on a terminal WIDTH columns wide (a table's cells wrap, a long line folds)."""
    import io

    out = Console(file=io.StringIO(), width=WIDTH, color_system=None, markup=False, highlight=False, emoji=False)
    for part in parts:
        out.print(part)
    return out.file.getvalue().count("\n")  # type: ignore[attr-defined]


def folded(items: list[Text], lead: Text | str = "", separator: str = " · ", indent: str = "  ") -> list[Text]:
    """`lead` then `items` joined by `separator`, broken into lines of at most WIDTH columns between items
    (never inside one): what a long list becomes on a board that must stay within its width."""
    lines = [Text(lead) if isinstance(lead, str) else lead.copy()]
    for item in items:
        line = lines[-1]
        gap = separator if line.plain.strip() and not line.plain.endswith(" ") else ""
        if line.plain.strip() and len(line.plain) + len(gap) + len(item.plain) > WIDTH:
            lines.append(Text(indent))
            line, gap = lines[-1], ""
        line.append(gap).append_text(item)
    return lines


def cell(value: Any) -> str:
    """A value of a view as short text: lists joined by spaces, mappings as key=value, nothing as '-'."""
    if value is None or value == [] or value == {}:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (str, int, float)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, (str, int, float)) or v is None for v in value):
        return " ".join("-" if v is None else str(v) for v in value)
    if isinstance(value, dict) and all(isinstance(v, (str, int, float, bool)) or v is None for v in value.values()):
        return " ".join(f"{k}={cell(v)}" for k, v in value.items())
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def anchor(view: View) -> str:
    """The position as a table writes it down: its seq and the first digits of the log's fingerprint there,
    `#12 3fa9c1d0` (just `#12` for a view that does not carry the fingerprint, `#?` for one placed nowhere)."""
    seq = view.seq if isinstance(view.seq, int) else "?"
    fingerprint = view.fingerprint if isinstance(view.fingerprint, str) else None
    return f"#{seq}" + (f" {fingerprint[:ANCHOR_DIGITS]}" if fingerprint else "")


def heading(view: View, title: str, where: str = "") -> Text:
    """Every board's first line: `<title> after #12 3fa9c1d0, <where>, turn 4 as seen by ana (table mode)`."""
    viewer = f" as seen by {view.viewer}" if view.viewer else ""
    where = f", {where}" if where else ""
    return Text(f"{title} after {anchor(view)}{where}, turn {view.turn}{viewer} ({view.mode} mode)", style="bold")


def clipped(text: str) -> Text:
    """A line cut to WIDTH columns, its end marked `…`: a view's key may hold more than a board can show
    (`tally state --json` shows all of it)."""
    return Text(text if len(text) <= WIDTH else text[: WIDTH - 1] + "…")


def draw(view: View, out: Console) -> None:
    out.print(heading(view, view.game))
    keys: dict[str, Any] = msgspec.to_builtins(view)  # a view this board does not know: its keys, as --json has them
    for key, value in keys.items():
        if key not in COMMON:
            out.print(clipped(f"{key.replace('_', ' ')}: {cell(value)}"))
    players: list[dict[str, Any]] = keys["players"]
    if players:
        columns: list[str] = []
        for entry in players:
            columns.extend(k for k in entry if k not in columns)
        table = Table(show_header=True, box=None, pad_edge=False)
        for column in columns:
            table.add_column("player" if column == "name" else column.replace("_", " "))
        for entry in players:
            table.add_row(*[Text(cell(entry.get(column))) for column in columns])
        out.print(table)
