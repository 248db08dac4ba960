"""Builders for Split positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table`. Positions are built by folding real events through the table's
`step` (check, then apply): a helper never pokes at the state, so every position a test judges is one a
real log can reach. Moves are events or strings in the game's notation (parsed against the current state).

`deal(...)` records an open-mode deal with the hands a test names; a hand given with fewer than 9 cards
is filled with left halves of high ranks (`KCL`, `KDL`, ...), which never match each other under the
default `halves=left-right`, so filler cards make no match a test did not ask for.
"""

from __future__ import annotations

from typing import Iterable

from support.harness import DEFAULT, Harness
from tally.core.games.split import DEFAULT_DECK, HAND, MANIFEST, SPLIT, HandNamed, RoundDealt
from tally.core.model import Event

SEATS = ("ann", "ben", "cy", "dee", "eve", "fay")
FILLERS = [card for card in reversed(DEFAULT_DECK.cards) if card.endswith("L")]


class Game(Harness):
    """A running fold of one Split log, built move by move (see tests/support/harness.py for the verbs)."""

    spec = SPLIT
    manifest = MANIFEST

    def hand(self, name: str) -> list[str]:
        return sorted(self.seat(name).hand.known)

    def matches(self, name: str) -> list[str]:
        return ["+".join(m[:2]) for m in self.seat(name).matches]

    def deal(self, row: str | None = None, pile: Iterable[str] = (), **hands: Iterable[str]) -> "Game":
        """Open mode: deal the named hands (filled up to 9), `row` starting the discard row, `pile` on top of the pile."""
        named = {name: list(cards) for name, cards in hands.items()}
        pile = list(pile)
        used = {c for cards in named.values() for c in cards} | set(pile) | ({row} if row else set())
        fillers = (c for c in FILLERS if c not in used)
        full: dict[str, list[str]] = {}
        for name in self.state.seats:
            cards = named.get(name, [])
            while len(cards) < HAND:
                cards.append(next(fillers))
            full[name] = cards
            used.update(cards)
        if row is None:
            row = next(c for c in DEFAULT_DECK.cards if c not in used and c.endswith("R"))
            used.add(row)
        rest = [c for c in self.state.deck.cards if c not in used]
        return self.do(RoundDealt(row=row, hands=full, pile=pile + rest))


def deal_table(game: Game, row: str, **hands: list[str]) -> Game:
    """Table mode: the deal as the table enters it (the row's card, and any hand the recorder saw)."""
    text = f"deal {row}" + "".join(f" | {name} {' '.join(cards)}" for name, cards in hands.items())
    return game.do(text)


# --------------------------------------------------------------------------- positions tests share

# ann (seat 1) plays first, ben deals. ann: strong 7HL+7DR, strong 9SL+9CR, weak 5HL+5SR, perfect 2HL+2HR,
# and 7HR to upgrade 7HL+7DR to perfect. ben: weak 7DL+7CR, strong 9HL+9DR, weak 5DL+5CR, perfect 3SL+3SR.
ANN = ["7HL", "7DR", "9SL", "9CR", "5HL", "5SR", "2HL", "2HR", "7HR"]
BEN = ["7DL", "7CR", "9HL", "9DR", "5DL", "5CR", "3SL", "3SR", "4HL"]
PILE = ["8HL", "8HR", "8DL", "8DR", "6SL", "6SR"]
SMALL = {"ranks": ["A", "2", "3"]}  # 24 half-cards: 9 + 9 dealt, 1 in the row, a pile of 5


def standard(manifest: object = DEFAULT, **options: object) -> Game:
    return Game(manifest=manifest, **options).deal(row="QSR", pile=PILE, ann=ANN, ben=BEN)


def small(**options: object) -> Game:
    """A 24-card box: the pile runs out after 5 draws."""
    game = Game(manifest=SMALL, **options)
    cards = list(game.state.deck.cards)
    return game.do(RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:18]}, pile=cards[19:]))


def out_on_first_turn(manifest: object = DEFAULT, **options: object) -> Game:
    """ann lays 4 matches and an upgrade on her first turn, letting every bonus go, and is left with 8HL."""
    game = standard(manifest, **options)
    game.do("draw")  # 8HL
    for move in ("match 7HL 7DR", "match 9SL 9CR", "match 5HL 5SR", "match 2HL 2HR", "upgrade 7HR over 7DR"):
        game.do(move, "skip")
    assert game.hand("ann") == ["8HL"]
    return game


def hands_by_seat(events: list[Event]) -> list[Event]:
    """A table transcript whose deals leave the seated hands out, each seat then naming its own (`hand_named`),
    the last seat first: a table where no one device knows another's hand."""
    out: list[Event] = []
    for event in events:
        if isinstance(event, RoundDealt) and event.hands:
            out.append(RoundDealt(row=event.row, pile=event.pile))
            out += [HandNamed(player=name, cards=cards) for name, cards in reversed(list(event.hands.items()))]
        else:
            out.append(event)
    return out
