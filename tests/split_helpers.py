"""Builders for Split positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table`. Positions are built by folding real events through the table's
`step` (check, then apply): a helper never pokes at the state, so every position a test judges is one a
real log can reach. Moves are events or strings in the game's notation (parsed against the current state).

`deal(...)` records an open-mode deal with the hands a test names; a hand given with fewer than 9 cards
is filled with left halves of high ranks (`KCL`, `KDL`, ...), which never match each other under the
default `halves=left-right`, so filler cards make no match a test did not ask for.
"""

from __future__ import annotations

from typing import Any, Iterable

import msgspec

from tally.core.engine import Table
from tally.core.games.split import DEFAULT_DECK, HAND, MANIFEST, SPLIT, RoundDealt, State
from tally.core.model import Event, GameStarted, NotationError, Ruling

SEATS = ("ann", "ben", "cy", "dee", "eve", "fay")
FILLERS = [card for card in reversed(DEFAULT_DECK.cards) if card.endswith("L")]

Move = Event | str


class Game:
    """A running fold of one Split log, built move by move."""

    def __init__(self, seats: Iterable[str] = ("ann", "ben"), mode: str = "open", manifest: Any = None, **options: object):
        self.started = GameStarted(
            seq=1,
            game="split",
            rules=SPLIT.rules_version,
            seats=list(seats),
            mode=mode,  # type: ignore[arg-type]
            options=SPLIT.resolved_options({key.replace("_", "-"): str(value) for key, value in options.items()}),
            manifest=MANIFEST if manifest is None else manifest,
        )
        assert SPLIT.check_started(self.started) == [], SPLIT.check_started(self.started)
        self.table = Table(SPLIT, self.started)

    # ---------------------------------------------------------------- reading the position

    @property
    def state(self) -> State:
        return self.table.state

    def seat(self, name: str) -> Any:
        return self.state.players[self.state.seats.index(name)]

    def hand(self, name: str) -> list[str]:
        return sorted(self.seat(name).hand.known)

    def matches(self, name: str) -> list[str]:
        return ["+".join(m[:2]) for m in self.seat(name).matches]

    def to_act(self) -> tuple[str, str]:
        return SPLIT.to_act(self.state)

    def legal(self) -> list[str]:
        return [SPLIT.format(m) for m in SPLIT.legal_moves(self.state)]

    def view(self, seat: str | None = None) -> dict[str, Any]:
        return SPLIT.view(self.state, seat)

    # ---------------------------------------------------------------- the deal

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

    # ---------------------------------------------------------------- moves

    def event(self, move: Move) -> Event:
        if isinstance(move, str):
            parsed = SPLIT.parse(self.state, move)
            assert not isinstance(parsed, NotationError), parsed.render()
            assert len(parsed) == 1, parsed
            return parsed[0]
        return move

    def check(self, move: Move) -> list[Ruling]:
        return self.table.check(self.event(move))

    def do(self, *moves: Move) -> "Game":
        for move in moves:
            event = self.event(move)
            step = self.table.step(msgspec.structs.replace(event, seq=self.table.last_seq + 1))
            assert step.is_legal, f"{SPLIT.format(event)} refused: {[r.render() for r in step.rulings]}"
        return self

    def accept(self, move: Move) -> Ruling:
        """Apply a legal move; returns the ruling that permits it (and asserts there is no other ruling)."""
        event = self.event(move)
        rulings = self.table.check(event)
        assert rulings == [], [r.render() for r in rulings]
        permit = self.table.permit(event)
        self.do(event)
        return permit

    def reject(self, move: Move, rule: str) -> Ruling:
        """A move that must be refused by `rule`; the state must not change."""
        event = self.event(move)
        before = self.state
        rulings = self.table.check(event)
        illegal = [r for r in rulings if r.verdict == "illegal"]
        assert illegal, f"{SPLIT.format(event)} was not refused"
        assert illegal[0].rule == rule, illegal[0].render()
        assert self.table.step(event).is_legal is False and self.state is before
        return illegal[0]


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


def standard(manifest: object = None, **options: object) -> Game:
    return Game(manifest=manifest, **options).deal(row="QSR", pile=PILE, ann=ANN, ben=BEN)


def small(**options: object) -> Game:
    """A 24-card box: the pile runs out after 5 draws."""
    game = Game(manifest=SMALL, **options)
    cards = list(game.state.deck.cards)
    return game.do(RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:18]}, pile=cards[19:]))


def out_on_first_turn(manifest: object = None, **options: object) -> Game:
    """ann lays 4 matches and an upgrade on her first turn, letting every bonus go, and is left with 8HL."""
    game = standard(manifest, **options)
    game.do("draw")  # 8HL
    for move in ("match 7HL 7DR", "match 9SL 9CR", "match 5HL 5SR", "match 2HL 2HR", "upgrade 7HR over 7DR"):
        game.do(move, "skip")
    assert game.hand("ann") == ["8HL"]
    return game
