"""Builders for Splendor positions in tests, using only the public core API.

A `Game` is a `tally.core.engine.Table` plus a sequence counter. Positions are built by folding real
events through the table's `step` (check, then apply): a helper never pokes at the state, so every
position a test judges is one a real log can reach. Moves are events or strings in the game's move
notation (parsed with `SPLENDOR.parse` against the current state).
"""

from __future__ import annotations

from typing import Callable, Iterable

from support.harness import Harness
from tally.core.games.splendor import (
    CARDS,
    LEVEL_CARDS,
    MANIFEST,
    NOBLES,
    SPLENDOR,
    CardBought,
    CardReserved,
    CardRevealed,
    GemsTaken,
    NobleRevealed,
    Seat,
    SetupDealt,
    TokensReturned,
)

GEMS = "wbgrk"
COLOURS = "wbgrky"
SEATS = ("ann", "ben", "cal", "dee")


class Game(Harness):
    """A running fold of one Splendor log, built move by move (see tests/support/harness.py for the verbs)."""

    spec = SPLENDOR
    manifest = MANIFEST

    def seat(self, name: str) -> Seat:
        return self.state.players[self.state.seats.index(name)]

    def tokens(self, name: str) -> dict[str, int]:
        """Tokens a seat holds, by letter, without the zeros: {'w': 1, 'y': 2}."""
        return {COLOURS[i]: n for i, n in enumerate(self.seat(name).tokens) if n}

    def bank(self) -> dict[str, int]:
        return {COLOURS[i]: n for i, n in enumerate(self.state.bank)}

    def face_up(self, level: int | None = None) -> list[str | None]:
        rows = self.state.board if level is None else (self.state.board[level - 1],)
        return [card for row in rows for card in row]


# ---------------------------------------------------------------------------- setups


def deck(level: int, first: Iterable[str] = ()) -> list[str]:
    """A whole level deck, top first: the `first` cards in that order, then the rest in table order."""
    first = list(first)
    assert all(CARDS[c].level == level for c in first), first
    return first + [c for c in LEVEL_CARDS[level - 1] if c not in first]


def default_nobles(players: int) -> list[str]:
    return list(NOBLES)[: players + 1]


def open_game(
    seats: Iterable[str] = ("ann", "ben"),
    *,
    level1: Iterable[str] = (),
    level2: Iterable[str] = (),
    level3: Iterable[str] = (),
    nobles: Iterable[str] | None = None,
    **options: object,
) -> Game:
    """An open-mode game right after the deal. `levelN` are the top cards of deck N (the first 4 lie face up)."""
    game = Game(seats, "open", **options)
    n = len(game.started.seats)
    game.do(
        SetupDealt(
            nobles=list(nobles) if nobles is not None else default_nobles(n),
            decks=[deck(1, level1), deck(2, level2), deck(3, level3)],
        )
    )
    assert game.state.phase == "action"
    return game


def table_game(
    seats: Iterable[str] = ("ann", "ben"),
    *,
    board: Iterable[str] | None = None,
    nobles: Iterable[str] | None = None,
    **options: object,
) -> Game:
    """A table-mode game with its setup revealed: the nobles, then the 12 face-up cards."""
    game = Game(seats, "table", **options)
    n = len(game.started.seats)
    cards = list(board) if board is not None else [c for level in LEVEL_CARDS for c in level[:4]]
    for noble in nobles if nobles is not None else default_nobles(n):
        game.do(NobleRevealed(noble=noble))
    for card in cards:
        game.do(CardRevealed(card=card))
    assert game.state.phase == "action"
    return game


# ---------------------------------------------------------------------------- a simple playing policy


def need(game: Game, name: str, card: str) -> list[int]:
    """Gems `name` still lacks for `card`, after bonuses and tokens held (gold not counted)."""
    seat = game.seat(name)
    cost = CARDS[card].cost
    return [max(0, cost[i] - seat.bonus[i] - seat.tokens[i]) for i in range(5)]


def autoplay(game: Game, plans: dict[str, list[str]], until: Callable[[Game], bool], limit: int = 600) -> None:
    """Play until `until(game)`: a seat with a plan buys its cards in order (taking the gems each one lacks),
    a seat without one only takes the gems the planners need least and hands back what they need most.
    Deterministic; fails when `limit` events do not reach the goal."""

    def goal(name: str) -> str | None:
        owned = game.seat(name).cards
        return next((c for c in plans.get(name, []) if c not in owned), None)

    def wanted() -> list[int]:
        total = [0] * 5
        for name in plans:
            card = goal(name)
            if card:
                total = [a + b for a, b in zip(total, need(game, name, card))]
        return total

    for _ in range(limit):
        if until(game):
            return
        state = game.state
        name = state.seats[state.current]
        moves = SPLENDOR.legal_moves(state)
        assert moves, f"no legal move for {name} in phase {state.phase}"
        card = goal(name)
        if state.phase == "return":
            cost = CARDS[card].cost if card else (0,) * 5
            bonus = game.seat(name).bonus
            spare = [game.seat(name).tokens[i] - max(0, cost[i] - bonus[i]) for i in range(5)]
            others = wanted()

            def keep_score(m: TokensReturned) -> tuple:
                gems = [m.tokens.count(c) for c in GEMS]
                over = sum(max(0, g - max(0, s)) for g, s in zip(gems, spare))
                return (over, m.tokens.count("y"), -sum(g * o for g, o in zip(gems, others)))

            game.do(min(moves, key=keep_score))  # type: ignore[arg-type]
            continue
        if state.phase != "action":
            game.do(moves[0])
            continue
        if card is not None:
            buy = [m for m in moves if isinstance(m, CardBought) and m.card == card]
            if buy:
                game.do(buy[0])
                continue
            lacking = need(game, name, card)
            takes = [m for m in moves if isinstance(m, GemsTaken)]

            def take_score(m: GemsTaken) -> tuple:
                got = [m.gems.count(c) for c in GEMS]
                useful = sum(min(g, n) for g, n in zip(got, lacking))
                return (-useful, len(m.gems) - useful)

            if takes:
                game.do(min(takes, key=take_score))
                continue
        else:
            others = wanted()
            takes = [m for m in moves if isinstance(m, GemsTaken)]

            def idle_score(m: GemsTaken) -> tuple:
                return (sum(others[GEMS.index(c)] for c in m.gems), len(m.gems))

            if takes:
                game.do(min(takes, key=idle_score))
                continue
        # nothing to take: reserve blind from the highest level (the plans lie at the top of level 1),
        # never a face-up card someone may plan to buy; else whatever is left
        blind = sorted(
            (m for m in moves if isinstance(m, CardReserved) and m.level is not None), key=lambda m: -(m.level or 0)
        )
        rest = [m for m in moves if not isinstance(m, (CardBought, CardReserved))]
        game.do((blind or rest or moves)[0])
    raise AssertionError(f"autoplay did not reach its goal in {limit} events")
