"""What a game's view shows: the card codes it names and how many cards it hides, read from the view's keys as
`--json` prints them (independently of the drawing code), for the picture and page tests to hold drawings to."""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

import msgspec


def _known(codes: list[str]) -> list[str]:
    return [code for code in codes if code != "?"]


def _unknown(codes: list[str]) -> int:
    return sum(1 for code in codes if code == "?")


def read_as_json(
    shown: Callable[[dict[str, Any]], tuple[Counter[str], int]],
) -> Callable[[Any], tuple[Counter[str], int]]:
    """A reader of a view's keys as `--json` prints them (the view Struct's builtins): what the picture must draw is
    read from what the view says, not through the attributes the drawing code reads."""
    return lambda view: shown(msgspec.to_builtins(view))


def shown_splendor(view: dict[str, Any]) -> tuple[Counter[str], int]:
    codes = [code for row in view["board"].values() for code in row if code] + list(view["nobles"])
    hidden = 0
    for player in view["players"]:
        codes += player["cards"] + player["nobles"] + [c for c in player["reserved"] if not c.startswith("?")]
        hidden += sum(1 for c in player["reserved"] if c.startswith("?"))
    return Counter(codes), hidden


def shown_split(view: dict[str, Any]) -> tuple[Counter[str], int]:
    codes = list(view["row"])
    hidden = 0
    for player in view["players"]:
        codes += player["hand"] + player["under"]
        codes += [half for pairs in player["matches"].values() for pair in pairs for half in pair.split("+")]
        hidden += player["hidden"]
    return Counter(codes), hidden


def shown_array(view: dict[str, Any]) -> tuple[Counter[str], int]:
    codes = [entry["card"] for array in view["arrays"] for entry in array["cards"]] + view["given"] + view["returned"]
    hidden = 0
    for player in view["players"]:
        codes += _known(player["hand"]) + player["shown"]
        hidden += _unknown(player["hand"])
    return Counter(codes), hidden


def shown_splice(view: dict[str, Any]) -> tuple[Counter[str], int]:
    codes = _known(view["unused_disks"]) + view["map_laid"]
    hidden = _unknown(view["unused_disks"])
    for player in view["players"]:
        zones = player["hand"] + player["map_pieces"] + [player["disk"]]
        codes += _known(zones) + [card for coin_set in player["sets"] for card in coin_set.split("-")]
        hidden += _unknown(zones)
    return Counter(codes), hidden


SHOWN = {
    game: read_as_json(shown)
    for game, shown in {
        "splendor": shown_splendor,
        "split": shown_split,
        "array": shown_array,
        "splice": shown_splice,
    }.items()
}
