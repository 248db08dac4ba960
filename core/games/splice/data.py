"""Splice's default component manifest, in the same shape as a manifest file (`tally new --manifest FILE`).

Nothing about the printed box is known for sure (docs/rules/splice.md, "Components"), so this is a
documented default chosen for play: five gem colours, one treasure map per colour in four pieces, coin
cards worth 1 to 10, and the special cards in numbers that keep the Draw Pile moving. A table with the
real box writes a manifest file with the keys it wants to change (TOML or JSON); every key left out keeps
its value below, and the log records the manifest it was judged with.

Keys:
- `colours`: gem colour letter -> name. One gemstone disk and one treasure map per colour. Letters are one
  lowercase ASCII letter, never `x` (wild map pieces) or `w` (a wild coin card in a set).
- `coins`: coin value -> copies of that coin card.
- `wild_pieces`: map position (1-4) -> copies of the wild map piece for that position (in the deck).
- `wild`, `double`, `piracy`, `skull`, `trade`, `black_spot`, `hurricane`: copies of each card. The box's
  Hurricane cards: option `hurricanes` says how many of them are shuffled in (the house rules use one).
"""

from __future__ import annotations

from typing import Any

MANIFEST = "splice-house-1"

DEFAULT: dict[str, Any] = {
    "colours": {"r": "red", "b": "blue", "g": "green", "y": "yellow", "p": "purple"},
    "coins": {str(value): 4 for value in range(1, 11)},
    "wild_pieces": {"1": 1, "2": 1, "3": 1, "4": 1},
    "wild": 4,
    "double": 3,
    "piracy": 3,
    "skull": 2,
    "trade": 3,
    "black_spot": 2,
    "hurricane": 2,
}
