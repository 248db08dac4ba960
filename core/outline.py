"""The board as a structured, labelled outline, for assistive technology: whose turn, each player and what they hold,
and the table. The picture (`core/games/<game>/picture.py`) is one image to a screen reader; the outline says the same
view as nested lists of words, so that a player who cannot see the picture follows the game with a screen reader.

A pure function of a view (what one seat may see), game-agnostic: it reads the view's JSON keys, which each game
documents in `docs/rules/<game>.md`, and words their values (a count per colour as `w 4, b 5`, a hidden card as
`hidden`), so that an outline holds exactly what the view holds, no more.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .views import View

COMMON = frozenset(
    {"game", "mode", "viewer", "phase", "turn", "to_act", "expected", "players", "outcome", "seq", "fingerprint"}
)
LONGEST = 400  # characters of one item's words: a value longer is cut, saying how much more there is


class Item(msgspec.Struct):
    """One line of the outline: its words, and the lines under it (a part of the table, a player's holding)."""

    text: str
    items: list["Item"] = []


class Outline(msgspec.Struct):
    """The board in words: what it is, whose turn and what is expected, the players, the table, the result."""

    title: str
    turn: str
    players: list[Item]
    table: list[Item]
    result: str | None = None


def outline(view: View) -> Outline:
    """The view as an outline (see the module's docstring)."""
    fields = msgspec.to_builtins(view)
    who = view.viewer or "the referee"
    title = f"{view.game}, turn {view.turn}, as {who} sees it"
    turn = view.expected  # it names who acts ("ana to take gems, ...", "the table must reveal ...")
    players = [_player(entry, view.to_act) for entry in fields.get("players", [])]
    table = [_item(key, value) for key, value in fields.items() if key not in COMMON and not _is_empty(value)]
    result = None
    if view.outcome is not None:
        scores = ", ".join(f"{seat} {score}" for seat, score in view.outcome.scores.items())
        result = f"game over: {view.outcome.reason}" + (f" ({scores})" if scores else "")
    return Outline(title, turn, players, table, result)


def _player(entry: dict[str, Any], to_act: str) -> Item:
    name = str(entry.get("name", "?"))
    label = f"{name}, to act" if name == to_act else name
    return Item(label, [_item(key, value) for key, value in entry.items() if key != "name" and not _is_empty(value)])


def _is_empty(value: Any) -> bool:
    return value is None or value == [] or value == {} or value == ""


def _label(key: str) -> str:
    return key.replace("_", " ")


def _item(key: str, value: Any) -> Item:
    """One key of the view: a value that reads in one line is the item's words; a list of records (an array of
    cards, a pad's rows) or a record of records is a sub-list."""
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return Item(f"{_label(key)}: {len(value)}", [_record(v, i) for i, v in enumerate(value, 1)])
    if isinstance(value, dict) and any(isinstance(v, (dict, list)) for v in value.values()):
        return Item(_label(key), [_item(str(k), v) for k, v in value.items() if not _is_empty(v)])
    return Item(_cut(f"{_label(key)}: {_words(value)}"))


def _record(value: dict[str, Any], index: int) -> Item:
    name = value.get("name") or value.get("round") or index
    rest = {k: v for k, v in value.items() if k != "name" and not _is_empty(v)}
    flat = all(not isinstance(v, (dict, list)) or not _nested(v) for v in rest.values())
    if flat:
        return Item(_cut(f"{name}: " + "; ".join(f"{_label(k)} {_words(v)}" for k, v in rest.items())))
    return Item(str(name), [_item(k, v) for k, v in rest.items()])


def _nested(value: Any) -> bool:
    items = value.values() if isinstance(value, dict) else value
    return any(isinstance(v, (dict, list)) for v in items)


def _words(value: Any) -> str:
    """A value in words: a count or a name as it is, a hidden card (`?`, `?2`) as hidden, a list joined by commas (a
    run of hidden cards counted), a record as `key value` pairs."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return _spoken(value)
    if isinstance(value, list):
        return _listed(value) if value else "none"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items()) or "none"
    return "none" if value is None else str(value)


def _spoken(code: str) -> str:
    if code == "?":
        return "hidden"
    if code.startswith("?"):
        return f"hidden ({code[1:]})"
    return code


def _listed(values: list[Any]) -> str:
    hidden = sum(1 for v in values if v == "?")
    shown = [_words(v) for v in values if v != "?"]
    if hidden:
        shown.append(f"{hidden} hidden")
    return ", ".join(shown)


def _cut(text: str) -> str:
    if len(text) <= LONGEST:
        return text
    return text[:LONGEST].rsplit(" ", 1)[0] + f" … ({len(text) - LONGEST} more characters)"
