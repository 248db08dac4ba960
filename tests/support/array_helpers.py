"""Builders for Array positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table` plus a sequence counter. Positions are built by folding real events
through the table's `step` (check, then apply): a helper never pokes at the state, so every position a test
judges is one a real log can reach. Moves are events or strings in Array's notation.

`open_game` deals a chosen round: the hands named, the starting card, and the pickup deck with chosen cards on
top (the rest of the box after them, in a fixed order). `table_game` starts a table-mode game and turns the
starting card.
"""

from __future__ import annotations

from collections import Counter
from typing import Iterable

from support.harness import Harness, Move
from tally.core.games.array import ARRAY, DEFAULT_BOX, MANIFEST, HandNamed, RoundDealt
from tally.core.model import Event, Ruling

SEATS = ("ann", "ben", "cy", "dee", "eve")


def rest_of_box(*taken: Iterable[str], box=DEFAULT_BOX) -> list[str]:
    """The box's cards without `taken`, in a fixed order (manifest order)."""
    left = Counter(box.cards())
    for cards in taken:
        left.subtract(cards)
    assert all(n >= 0 for n in left.values()), "more copies taken than the box holds"
    return [card for card, _ in box.copies for _ in range(left[card])]


def deal_event(
    hands: dict[str, list[str]],
    starter: str = "br",
    top: Iterable[str] = (),
    turned: Iterable[str] = (),
    box=DEFAULT_BOX,
) -> RoundDealt:
    """A complete deal: `hands`, `turned` action cards put back under the deck, the `starter`, `top` first."""
    turned = list(turned)
    top = list(top)
    rest = rest_of_box(*hands.values(), [starter], top, turned, box=box)
    return RoundDealt(hands={k: list(v) for k, v in hands.items()}, turned=turned + [starter], deck=top + rest + turned)


class Game(Harness):
    """A running fold of one Array log, built move by move (see tests/support/harness.py for the verbs)."""

    spec = ARRAY
    manifest = MANIFEST

    def hand(self, name: str) -> list[str]:
        zone = self.state.hands[self.state.seats.index(name)]
        return list(zone.known) + ["?"] * zone.unknown

    def ruling(self, move: Move) -> Ruling:
        """The one ruling that decides `move` (the first illegal or unverifiable one)."""
        found = [r for r in self.rule(move) if r.verdict != "legal"]
        assert found, f"{move!r} is legal"
        return found[0]

    def permit(self, move: Move) -> Ruling:
        events = self.events(move)
        assert not self.rule(move), self.rule(move)
        return self.table.permit(events[0])


def open_game(
    hands: dict[str, list[str]],
    starter: str = "br",
    top: Iterable[str] = (),
    turned: Iterable[str] = (),
    manifest=MANIFEST,
    **options: object,
) -> Game:
    game = Game(tuple(hands), "open", manifest=manifest, **options)
    game.do(deal_event(hands, starter, top, turned, box=game.state.box))
    return game


def table_game(seats: Iterable[str] = ("ann", "ben"), starter: str = "br", **options: object) -> Game:
    game = Game(seats, "table", **options)
    game.do(f"start {starter}")
    return game


# A position every test may start from (docs/rules/array.md draws it): ann and ben, #1 br, ann laid bor on its
# blue with oy and ry on bor's orange and red; ben laid gr on #1's red. Joins: 1-2 blue, 1-5 red, 2-3 orange,
# 2-4 red. Open: #3 yellow, #4 yellow, #5 gray. ann to play, holding bry gry s3 slam.
ANN = ["bor", "oy", "ry", "bry", "gry", "s3", "slam"]
BEN = ["gr", "bgy", "by", "gy", "go", "bo", "s1"]


def documented_position(top: Iterable[str] = ("bg", "oy", "ry", "go")) -> Game:
    game = open_game({"ann": list(ANN), "ben": list(BEN)}, "br", top)
    return game.do("splice bor@1.b oy ry", "ben: splice gr@1.r")


def hands_by_seat(events: list[Event]) -> list[Event]:
    """A table transcript whose rounds leave the seated hands to their seats, each naming its own (`hand_named`),
    the last seat first: a table where no one device knows another's hand."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, RoundDealt) and not event.turned:  # table mode: the seated hands of a round
            out += [HandNamed(player=name, cards=cards) for name, cards in reversed(list(event.hands.items()))]
        else:
            out.append(event)
    return out
