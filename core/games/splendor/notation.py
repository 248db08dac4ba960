"""Splendor's notation: `take r g b`, `reserve 1k0-w1b1g1r1`, `reserve deck 2`, `buy CARD [pay w2 y1]`,
`return r g`, `noble w4b4`, `pass`, `reveal CARD|NOBLE ...`, each optionally prefixed `PLAYER:`.

`parse` reads text into events (or a NotationError listing what would have been valid); `format_event`
writes an event back so that parsing it yields the same event (docs/rules/splendor.md).
"""

from __future__ import annotations

from ...model import Event, NotationError
from ...notation import read_count
from ...text import quote
from .components import CARDS, COLOURS, FACE_UP, GEMS, NOBLES, TOKEN_LIMIT, cost_code, spell, token_counts
from .events import (
    PLAYER_EVENTS,
    CardBought,
    CardReserved,
    CardRevealed,
    GemsTaken,
    NobleChosen,
    NobleRevealed,
    SetupDealt,
    TokensReturned,
    TurnPassed,
)
from .moves import legal_moves
from .state import State, default_payment, reserve_card, unlocated

VERBS = ("take", "reserve", "buy", "return", "noble", "pass", "reveal")
_USAGE = {
    "take": "take r g b | take r r",
    "reserve": "reserve CARD | reserve deck LEVEL",
    "buy": "buy CARD [pay TOKENS]",
    "return": "return TOKENS",
    "noble": "noble NOBLE",
    "pass": "pass",
    "reveal": "reveal CARD|NOBLE ...",
}


# no move names more tokens of one colour than a player may hold (a card costs at most 7 of a colour)
COUNT_LIMIT = TOKEN_LIMIT
_DIGITS = frozenset("0123456789")


def _count(word: str) -> int | None | str:
    """A count word: its value (ASCII digits, 1..COUNT_LIMIT), None when `word` is no number at all, or a
    message when it is a number tally does not take (another script's digits, `²`, zero, too large)."""
    if not word or not all(ch.isdigit() or ch.isnumeric() for ch in word):
        return None
    value = read_count(word, COUNT_LIMIT)
    if value is None or value == 0:
        return f"count {quote(word)}: a count is a number from 1 to {COUNT_LIMIT} in digits 0-9"
    return value


def _parse_tokens(words: list[str]) -> list[str] | str:
    """`r g b`, `rgb`, `r2 y1`, `2 r` -> letters; or a message naming the bad word."""
    letters: list[str] = []
    count = 1
    for word in words:
        w = word.lower()
        if w == "gold":
            w = "y"
        number = _count(w)
        if isinstance(number, str):
            return number
        if number is not None:
            count = number
            continue
        if len(w) >= 2 and w[0] in COLOURS and _count(w[1:]) is not None:
            number = _count(w[1:])
            if isinstance(number, str):
                return number
            letters.extend(w[0] * number)  # type: ignore[operator]
            continue
        if not w or any(ch not in COLOURS for ch in w):
            return f"unknown token {quote(word)}"
        for ch in w:
            letters.extend(ch * count)
            count = 1
    return letters


def _card_suggestions(text: str, candidates: list[str]) -> list[str]:
    prefix = text[:2]
    close = [c for c in candidates if c.startswith(prefix)]
    return close or candidates


def _normal_card(text: str) -> str | None:
    """Accept a card id with its cost colours in any order: `1k0-r1g1b1w1` -> `1k0-w1b1g1r1`."""
    if text in CARDS:
        return text
    head, _, cost = text.partition("-")
    counts = [0] * 5
    pairs = [cost[i : i + 2] for i in range(0, len(cost), 2)]
    for pair in pairs:
        if len(pair) != 2 or pair[0] not in GEMS or pair[1] not in _DIGITS:
            return None
        counts[GEMS.index(pair[0])] += int(pair[1])
    candidate = f"{head}-{cost_code(tuple(counts))}"
    return candidate if candidate in CARDS else None


def parse(state: State, text: str) -> list[Event] | NotationError:
    raw = text.strip()
    who: str | None = None
    body = raw
    if ":" in raw.split(" ", 1)[0]:
        who, _, body = raw.partition(":")
        who = who.strip()
        if who not in state.seats:
            return NotationError(raw, f"no player {quote(who)} at this table", list(state.seats))
    words = body.lower().split()
    if not words:
        return NotationError(raw, "empty move", [_USAGE[v] for v in VERBS])
    verb, args = words[0], words[1:]
    if who is None:
        who = state.player_name
    if verb == "take":
        gems = _parse_tokens(args)
        if isinstance(gems, str) or not gems:
            return NotationError(raw, gems or "take what?", ["take r g b", "take r r", "colours: w b g r k"])
        return [GemsTaken(player=who, gems=gems)]
    if verb == "return":
        tokens = _parse_tokens(args)
        if isinstance(tokens, str) or not tokens:
            return NotationError(raw, tokens or "return what?", ["return r g", "tokens: w b g r k y"])
        return [TokensReturned(player=who, tokens=tokens)]
    if verb == "pass":
        return [TurnPassed(player=who)] if not args else NotationError(raw, "pass takes no arguments", ["pass"])
    if verb == "noble":
        if len(args) != 1:
            return NotationError(raw, "name one noble", [f"noble {n}" for n in NOBLES])
        noble = _normal_noble(args[0])
        if noble is None:
            return NotationError(raw, f"unknown noble {quote(args[0])}", list(NOBLES))
        return [NobleChosen(player=who, noble=noble)]
    if verb == "reserve":
        if args and args[0] in ("deck", "blind"):
            args = args[1:]
            if not args or args[0] not in ("1", "2", "3"):
                shown = quote(args[0]) if args else "no level"
                return NotationError(raw, f"{shown} is not a deck: the levels are 1, 2 and 3", ["reserve deck 1", "reserve deck 2", "reserve deck 3"])
        if len(args) == 1 and args[0] in ("1", "2", "3"):
            lvl = int(args[0])
            top = state.decks[lvl - 1][0] if state.decks[lvl - 1] else None
            return [CardReserved(player=who, card=top, level=lvl)]
        if len(args) == 3 and args[0] in ("1", "2", "3") and args[1] == "as":
            card = _normal_card(args[2])
            if card is None:
                return NotationError(raw, f"unknown card {quote(args[2])}", _card_suggestions(args[2], unlocated(state, int(args[0]))))
            return [CardReserved(player=who, card=card, level=int(args[0]))]
        if len(args) != 1:
            return NotationError(raw, "reserve one card", ["reserve CARD", "reserve deck LEVEL", "reserve deck LEVEL as CARD"])
        card = _normal_card(args[0])
        if card is None:
            face_up = [c for row in state.board for c in row if c]
            return NotationError(raw, f"unknown card {quote(args[0])}", _card_suggestions(args[0], face_up))
        return [CardReserved(player=who, card=card)]
    if verb == "buy":
        if not args:
            return NotationError(raw, "buy which card?", ["buy CARD", "buy CARD pay w2 y1"])
        card = _normal_card(args[0])
        if card is None:
            seat = state.players[state.seats.index(who)]
            buyable = [c for row in state.board for c in row if c] + [
                c for c in map(reserve_card, seat.reserved) if c
            ]
            return NotationError(raw, f"unknown card {quote(args[0])}", _card_suggestions(args[0], buyable))
        if len(args) > 1:
            if args[1] != "pay":
                return NotationError(raw, f"unexpected {quote(args[1])} after the card", ["buy CARD", "buy CARD pay w2 y1"])
            paid = [] if args[2:] == ["nothing"] else _parse_tokens(args[2:])
            if isinstance(paid, str):
                return NotationError(raw, paid, ["pay w2 y1", "tokens: w b g r k y"])
            return [CardBought(player=who, card=card, paid=paid)]
        seat = state.players[state.seats.index(who)]
        pay = default_payment(CARDS[card], seat)
        # an unaffordable card still parses, so the ruling (not the parser) explains why it is refused
        return [CardBought(player=who, card=card, paid=spell(pay) if pay else [])]
    if verb == "reveal":
        if not args:
            return NotationError(raw, "reveal what?", ["reveal CARD", "reveal NOBLE"])
        events: list[Event] = []
        for arg in args:
            noble = _normal_noble(arg)
            card = _normal_card(arg)
            if card is not None:
                events.append(CardRevealed(card=card))
            elif noble is not None:
                events.append(NobleRevealed(noble=noble))
            else:
                expect = [e for e in map(format_event, legal_moves(state)) if e.startswith("reveal")]
                return NotationError(raw, f"unknown card or noble {quote(arg)}", [e.split()[1] for e in expect])
        return events
    return NotationError(raw, f"unknown move {quote(verb)}", [_USAGE[v] for v in VERBS])


def _normal_noble(text: str) -> str | None:
    counts = [0] * 5
    pairs = [text[i : i + 2] for i in range(0, len(text), 2)]
    for pair in pairs:
        if len(pair) != 2 or pair[0] not in GEMS or pair[1] not in _DIGITS:
            return None
        counts[GEMS.index(pair[0])] += int(pair[1])
    code = cost_code(tuple(counts))
    return code if code in NOBLES else None


def _compact(letters: list[str]) -> str:
    counts = token_counts(letters)
    if counts is None:
        return " ".join(letters)
    return " ".join(f"{COLOURS[i]}{n}" for i, n in enumerate(counts) if n) or "nothing"


def format_event(event: Event) -> str:
    kind = type(event)
    prefix = f"{event.player}: " if kind in PLAYER_EVENTS else ""  # type: ignore[attr-defined]
    if kind is GemsTaken:
        return prefix + "take " + " ".join(event.gems)  # type: ignore[attr-defined]
    if kind is CardReserved:
        if event.level is None:  # type: ignore[attr-defined]
            return prefix + f"reserve {event.card}"  # type: ignore[attr-defined]
        suffix = f" as {event.card}" if event.card else ""  # type: ignore[attr-defined]
        return prefix + f"reserve deck {event.level}{suffix}"  # type: ignore[attr-defined]
    if kind is CardBought:
        return prefix + f"buy {event.card} pay {_compact(event.paid)}"  # type: ignore[attr-defined]
    if kind is TokensReturned:
        return prefix + "return " + " ".join(event.tokens)  # type: ignore[attr-defined]
    if kind is NobleChosen:
        return prefix + f"noble {event.noble}"  # type: ignore[attr-defined]
    if kind is TurnPassed:
        return prefix + "pass"
    if kind is CardRevealed:
        return f"reveal {event.card}"  # type: ignore[attr-defined]
    if kind is NobleRevealed:
        return f"reveal {event.noble}"  # type: ignore[attr-defined]
    if kind is SetupDealt:
        return "deal " + " ".join(event.nobles) + " | " + " ".join(  # type: ignore[attr-defined]
            f"{lvl + 1}:{','.join(deck[:FACE_UP])}" for lvl, deck in enumerate(event.decks)  # type: ignore[attr-defined]
        )
    return type(event).__name__


