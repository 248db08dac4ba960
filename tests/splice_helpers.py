"""Builders for Splice positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table` plus a sequence counter. Positions are built by folding real events
through the table's `step` (check, then apply): a helper never pokes at the state, so every position a test
judges is one a real log can reach. Moves are events or strings in the game's notation.

`open_game` deals a chosen setup: each seat's hand, the top of the Draw Pile, the disks and the top of the
Map Pile are given; the rest of the deck follows in the manifest's order (the Hurricane near the bottom).
"""

from __future__ import annotations

from typing import Iterable

import msgspec

from tally.core.engine import Table
from tally.core.games.splice import (
    DEFAULT_BOX,
    MANIFEST,
    Box,
    box_for,
    SPLICE,
    CardsDealt,
    DisksChosen,
    SetupDealt,
    State,
    deck_cards,
    deck_copies,
)
from tally.core.model import Event, GameStarted, NotationError, Ruling

Move = Event | str


class Game:
    """A running fold of one Splice log, built move by move."""

    def __init__(self, seats: Iterable[str] = ("ann", "ben"), mode: str = "open", manifest: object = MANIFEST, **options: object):
        self.started = GameStarted(
            seq=1,
            game="splice",
            rules=SPLICE.rules_version,
            seats=list(seats),
            mode=mode,  # type: ignore[arg-type]
            options=SPLICE.resolved_options({key.replace("_", "-"): str(value) for key, value in options.items()}),
            manifest=manifest,  # type: ignore[arg-type]
        )
        assert SPLICE.check_started(self.started) == [], SPLICE.check_started(self.started)
        self.table = Table(SPLICE, self.started)

    # ---------------------------------------------------------------- reading the position

    @property
    def state(self) -> State:
        return self.table.state

    def seat(self, name: str):  # type: ignore[no-untyped-def]
        return self.state.players[self.state.seats.index(name)]

    def hand(self, name: str) -> list[str]:
        """The cards the log knows in `name`'s hand, sorted (`?` for each unknown one)."""
        zone = self.seat(name).hand
        return sorted(zone.known) + ["?"] * zone.unknown

    def pieces(self, name: str) -> list[str]:
        zone = self.seat(name).maps
        return sorted(zone.known) + ["?"] * zone.unknown

    def top(self, n: int = 1) -> list[str]:
        return [card for segment in self.state.pile for card in segment.known][:n]

    def to_act(self) -> tuple[str, str]:
        return SPLICE.to_act(self.state)

    def legal(self) -> list[str]:
        return [SPLICE.format(m) for m in SPLICE.legal_moves(self.state)]

    def view(self, seat: str | None = None) -> dict:  # type: ignore[type-arg]
        return SPLICE.view(self.state, seat)

    # ---------------------------------------------------------------- making events

    def events(self, move: Move) -> list[Event]:
        if isinstance(move, str):
            parsed = SPLICE.parse(self.state, move)
            if isinstance(parsed, NotationError):
                raise AssertionError(parsed.render())
            return list(parsed)
        return [move]

    def event(self, move: Move) -> Event:
        """One event stamped with the next seq."""
        found = self.events(move)
        assert len(found) == 1, f"{move!r} is {len(found)} events"
        return msgspec.structs.replace(found[0], seq=self.table.last_seq + 1)

    # ---------------------------------------------------------------- judging and playing

    def do(self, *moves: Move) -> list[Ruling]:
        """Step every move; each must be accepted (no illegal ruling). Returns the last step's rulings."""
        rulings: list[Ruling] = []
        for move in moves:
            for event in self.events(move):
                step = self.table.step(msgspec.structs.replace(event, seq=self.table.last_seq + 1))
                if not step.is_legal:
                    shown = "; ".join(r.render() for r in step.rulings)
                    raise AssertionError(f"{SPLICE.format(event)} was refused: {shown}")
                rulings = step.rulings
        return rulings

    def accept(self, move: Move) -> Ruling:
        """`move` draws no ruling at all; step it and return the ruling that permits it."""
        event = self.event(move)
        rulings = self.table.check(event)
        assert rulings == [], "; ".join(r.render() for r in rulings)
        permit = self.table.permit(event)
        assert permit.verdict == "legal"
        self.table.step(event)
        return permit

    def permits(self, move: Move) -> Ruling:
        """Like `accept`, leaving the position as it is."""
        event = self.event(move)
        rulings = self.table.check(event)
        assert rulings == [], "; ".join(r.render() for r in rulings)
        return self.table.permit(event)

    def refuse(self, move: Move) -> Ruling:
        """`move` draws exactly one ruling, an illegal one; stepping it changes nothing. Returns it."""
        event = self.event(move)
        before, seq = self.state, self.table.last_seq
        rulings = self.table.check(event)
        assert len(rulings) == 1, rulings
        (ruling,) = rulings
        assert ruling.verdict == "illegal", ruling
        step = self.table.step(event)
        assert not step.is_legal
        assert self.state is before and self.table.last_seq == seq
        return ruling

    def doubtful(self, move: Move) -> Ruling:
        """`move` is accepted with exactly one unverifiable note; step it and return the note."""
        event = self.event(move)
        rulings = self.table.check(event)
        assert len(rulings) == 1 and rulings[0].verdict == "unverifiable", rulings
        self.table.step(event)
        return rulings[0]


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
    return SetupDealt(disks=colours[:seats], unused=colours[seats:], maps=top + [p for p in box.pieces if p not in top],
                      deck=first + rest)


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


def table_game(seats: Iterable[str] = ("ann", "ben"), hurricanes: Iterable[str] = (), manifest: object = MANIFEST,
               **options: object) -> Game:
    """A table-mode game after `disks` and `deal`."""
    game = Game(seats, "table", manifest, **options)
    game.do(DisksChosen(), CardsDealt(hurricanes=list(hurricanes)))
    return game


# a box with a coin worth 50: a pair buys 5 map pieces at once (positions that need many pieces, quickly)
RICH = {"coins": {**{str(v): 4 for v in range(1, 11)}, "50": 4}}
# two colours only: 8 regular map pieces, so two players can buy the Map Pile empty
SMALL_MAPS = {**RICH, "colours": {"r": "red", "b": "blue"}}
# ten cards and nothing else: two hands of 5 and an empty Draw Pile from the start
TINY = {"coins": {"1": 4, "2": 4, "3": 2}, "wild": 0, "double": 0, "piracy": 0, "skull": 0, "trade": 0, "black_spot": 0,
        "hurricane": 0, "wild_pieces": {}}
