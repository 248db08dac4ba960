"""Builders for Splice positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table` plus a sequence counter. Positions are built by folding real events
through the table's `step` (check, then apply): a helper never pokes at the state, so every position a test
judges is one a real log can reach. Moves are events or strings in the game's notation.

`open_game` deals a chosen setup: each seat's hand, the top of the Draw Pile, the disks and the top of the
Map Pile are given; the rest of the deck follows in the manifest's order (the Hurricane near the bottom).
"""

from __future__ import annotations

from typing import Iterable

from support.harness import Harness
from tally.core.games.splice import (
    DEFAULT_BOX,
    MANIFEST,
    SPLICE,
    Box,
    CardsDealt,
    DisksChosen,
    DisksRedrawn,
    HandNamed,
    SetupDealt,
    box_for,
    deck_cards,
    deck_copies,
)
from tally.core.model import Event


class Game(Harness):
    """A running fold of one Splice log, built move by move (see tests/support/harness.py for the verbs)."""

    spec = SPLICE
    manifest = MANIFEST

    def hand(self, name: str) -> list[str]:
        """The cards the log knows in `name`'s hand, sorted (`?` for each unknown one)."""
        zone = self.seat(name).hand
        return sorted(zone.known) + ["?"] * zone.unknown

    def pieces(self, name: str) -> list[str]:
        zone = self.seat(name).maps
        return sorted(zone.known) + ["?"] * zone.unknown

    def top(self, n: int = 1) -> list[str]:
        return [card for segment in self.state.pile for card in segment.known][:n]


# ---------------------------------------------------------------------------- setups


def setup_event(
    seats: int,
    hands: list[list[str]],
    pile: Iterable[str] = (),
    disks: Iterable[str] | None = None,
    maps: Iterable[str] = (),
    hand_size: int = 5,
    hurricanes: int = 1,
    box: Box = DEFAULT_BOX,
) -> SetupDealt:
    """The open-mode deal: `hands` (one list per seat, each `hand_size` cards, Hurricanes allowed), then the top
    of the Draw Pile; the rest of the deck follows in the manifest's order. Disks in seat order, then unused."""
    copies = deck_copies(box, hurricanes)
    first = [card for hand in hands for card in hand] + list(pile)
    assert all(len(hand) == hand_size for hand in hands) and len(hands) == seats
    rest = deck_cards(copies)
    for card in first:
        rest.remove(card)
    colours = list(disks) if disks is not None else list(box.colours)
    colours += [c for c in box.colours if c not in colours]
    top = list(maps)
    return SetupDealt(
        disks=colours[:seats],
        unused=colours[seats:],
        maps=top + [p for p in box.pieces if p not in top],
        deck=first + rest,
    )


def open_game(
    seats: Iterable[str] = ("ann", "ben"),
    hands: list[list[str]] | None = None,
    pile: Iterable[str] = (),
    disks: Iterable[str] | None = None,
    maps: Iterable[str] = (),
    manifest: object = MANIFEST,
    **options: object,
) -> Game:
    """An open-mode game right after the deal (and the first turn not yet begun if a Hurricane was dealt)."""
    game = Game(seats, "open", manifest, **options)
    n = len(game.started.seats)
    size = int(options.get("hand_size", 5))  # type: ignore[call-overload]
    if hands is None:
        hands = [[str(v) for v in range(1 + i, 1 + i + size)] for i in range(n)]
    game.do(setup_event(n, hands, pile, disks, maps, size, int(options.get("hurricanes", 1)), box_for(manifest)))  # type: ignore[call-overload, arg-type]
    return game


def table_game(
    seats: Iterable[str] = ("ann", "ben"),
    hurricanes: Iterable[str] = (),
    manifest: object = MANIFEST,
    **options: object,
) -> Game:
    """A table-mode game after `disks` and `deal`."""
    game = Game(seats, "table", manifest, **options)
    game.do(DisksChosen(), CardsDealt(hurricanes=list(hurricanes)))
    return game


# a box with a coin worth 50: a pair buys 5 map pieces at once (positions that need many pieces, quickly)
RICH = {"coins": {**{str(v): 4 for v in range(1, 11)}, "50": 4}}
# two colours only: 8 regular map pieces, so two players can buy the Map Pile empty
SMALL_MAPS = {**RICH, "colours": {"r": "red", "b": "blue"}}
# ten cards and nothing else: two hands of 5 and an empty Draw Pile from the start
TINY = {
    "coins": {"1": 4, "2": 4, "3": 2},
    "wild": 0,
    "double": 0,
    "piracy": 0,
    "skull": 0,
    "trade": 0,
    "black_spot": 0,
    "hurricane": 0,
    "wild_pieces": {},
}


def hands_by_seat(events: list[Event]) -> list[Event]:
    """A table transcript whose setup, and every reshuffle after a Hurricane, leaves every seated disk and hand out,
    each seat then naming its own (`hand_named`), the last seat first: a table where no one device knows another's
    disk or hand."""
    out: list[Event] = []
    disks: dict[str, str] = {}
    for event in events:
        if isinstance(event, DisksRedrawn) and event.disks:
            out.append(DisksRedrawn())
            out += [HandNamed(player=name, disk=disk) for name, disk in reversed(list(event.disks.items()))]
        elif isinstance(event, DisksChosen) and event.disks:
            disks = dict(event.disks)
            out.append(DisksChosen())
        elif isinstance(event, CardsDealt) and (event.hands or disks):
            out.append(CardsDealt(hurricanes=event.hurricanes))
            names = list(dict.fromkeys([*event.hands, *disks]))
            out += [
                HandNamed(player=name, cards=event.hands.get(name, []), disk=disks.get(name))
                for name in reversed(names)
            ]
        else:
            out.append(event)
    return out
