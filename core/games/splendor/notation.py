"""Splendor's notation: `take r g b`, `reserve 1k0-w1b1g1r1`, `reserve deck 2`, `buy CARD [pay w2 y1]`,
`return r g`, `noble w4b4`, `pass`, `reveal CARD|NOBLE ...`, each optionally prefixed `PLAYER:`.

`parse` reads text into events (or a NotationError listing what would have been valid); `format_event`
writes an event back so that parsing it yields the same event (docs/rules/splendor.md).
"""

from __future__ import annotations

from typing import Callable

from ...model import Event, NotationError
from ...notation import Unreadable, by_prefix, player_of, read_count, read_move, suggestions
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
from .state import State, buyable, deck_top, default_payment, face_up, unlocated

DIGITS = "0123456789"

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
TOKEN_WORDS = 40  # tokens named in one move, at most: a payment is at most 14, a take 3


def _count(word: str) -> int | None:
    """A count word: its value (ASCII digits, 1..COUNT_LIMIT), None when `word` is no number at all; a number
    tally does not take (another script's digits, `²`, zero, too large) is refused with `expected`."""
    if not word.isnumeric():  # a digit of any script is numeric too
        return None
    value = read_count(word, COUNT_LIMIT)
    if value is None or value == 0:
        raise Unreadable(f"count {quote(word)}: a count is a number from 1 to {COUNT_LIMIT} in digits 0-9")
    return value


def _parse_tokens(words: list[str], expected: list[str]) -> list[str]:
    """`r g b`, `rgb`, `r2 y1`, `2 r` -> letters; a bad word is refused with `expected`."""
    try:
        return _tokens(words)
    except Unreadable as why:
        raise Unreadable(why.message, expected, why.kind) from None


def _tokens(words: list[str]) -> list[str]:
    letters: list[str] = []
    count = 1
    for word in words:
        w = word.lower()
        if w == "gold":
            w = "y"
        number = _count(w)
        if number is not None:
            count = number
            continue
        if len(w) >= 2 and w[0] in COLOURS:
            number = _count(w[1:])
            if number is not None:
                letters.extend(w[0] * number)
                continue
        if not w or any(ch not in COLOURS for ch in w):
            raise Unreadable(f"unknown token {quote(word)}", kind="unknown")
        for ch in w:
            letters.extend(ch * count)
            count = 1
        if len(letters) > TOKEN_WORDS:
            raise Unreadable(f"more than {TOKEN_WORDS} tokens in one move")
    return letters


def _pairs(text: str) -> tuple[int, ...] | None:
    """Colour-count pairs (`w1b2`, in any order) as counts w b g r k, or None if they are not pairs."""
    counts = [0] * 5
    if len(text) % 2:
        return None
    for i in range(0, len(text), 2):
        letter, digit = text[i], text[i + 1]
        if letter not in GEMS or digit not in DIGITS:
            return None
        counts[GEMS.index(letter)] += int(digit)
    return tuple(counts)


def _normal_card(text: str) -> str | None:
    """A card id with its cost colours in any order: `1k0-r1g1b1w1` -> `1k0-w1b1g1r1`; None if it is none."""
    if text in CARDS:
        return text
    head, _, cost = text.partition("-")
    counts = _pairs(cost)
    if counts is None:
        return None
    candidate = f"{head}-{cost_code(counts)}"
    return candidate if candidate in CARDS else None


def _normal_noble(text: str) -> str | None:
    counts = _pairs(text)
    if counts is None:
        return None
    code = cost_code(counts)
    return code if code in NOBLES else None


def _pick(word: str, normal: Callable[[str], str | None], candidates: list[str], what: str) -> str:
    """The card or noble `word` names: its full code (colours in any order), or a unique prefix of one of the
    `candidates` (the cards that make sense here); else it is refused with what it could have been."""
    exact = normal(word)
    if exact is not None:
        return exact
    named = by_prefix(word, candidates)
    if len(named) == 1:
        return named[0]
    if named:
        raise Unreadable(f"{quote(word)} could be any of {len(named)} {what}s: type more of it", named, "ambiguous")
    raise Unreadable(f"unknown {what} {quote(word)}", suggestions(word, candidates), "unknown")


def parse(state: State, text: str) -> list[Event] | NotationError:
    return read_move(text.strip(), lambda raw: _parse(state, raw))


def _parse(state: State, raw: str) -> list[Event]:
    named = player_of(raw, state.seats)
    if isinstance(named, NotationError):
        raise Unreadable(named.message, named.expected, named.kind)
    who, body = named
    words = body.lower().split()
    if not words:
        raise Unreadable("empty move", [_USAGE[v] for v in VERBS])
    verb, args = words[0], words[1:]
    if who is None:
        who = state.player_name
    if verb == "take":
        gems = _parse_tokens(args, ["take r g b", "take r r", "colours: w b g r k"])
        if not gems:
            raise Unreadable("take what?", ["take r g b", "take r r", "colours: w b g r k"])
        return [GemsTaken(player=who, gems=gems)]
    if verb == "return":
        tokens = _parse_tokens(args, ["return r g", "tokens: w b g r k y"])
        if not tokens:
            raise Unreadable("return what?", ["return r g", "tokens: w b g r k y"])
        return [TokensReturned(player=who, tokens=tokens)]
    if verb == "pass":
        if args:
            raise Unreadable("pass takes no arguments", ["pass"])
        return [TurnPassed(player=who)]
    if verb == "noble":
        if len(args) != 1:
            raise Unreadable("name one noble", [f"noble {n}" for n in state.nobles or NOBLES])
        return [NobleChosen(player=who, noble=_pick(args[0], _normal_noble, list(state.nobles), "noble"))]
    if verb == "reserve":
        if args and args[0] in ("deck", "blind"):
            args = args[1:]
            if not args or args[0] not in ("1", "2", "3"):
                shown = repr(args[0]) if args else "no level"
                raise Unreadable(
                    f"{shown} is not a deck: the levels are 1, 2 and 3",
                    ["reserve deck 1", "reserve deck 2", "reserve deck 3"],
                )
        if len(args) == 1 and args[0] in ("1", "2", "3"):
            lvl = int(args[0])
            return [CardReserved(player=who, card=deck_top(state, lvl - 1), level=lvl)]
        if len(args) == 3 and args[0] in ("1", "2", "3") and args[1] == "as":
            card = _pick(args[2], _normal_card, unlocated(state, int(args[0])), "card")
            return [CardReserved(player=who, card=card, level=int(args[0]))]
        if len(args) != 1:
            raise Unreadable("reserve one card", ["reserve CARD", "reserve deck LEVEL", "reserve deck LEVEL as CARD"])
        return [CardReserved(player=who, card=_pick(args[0], _normal_card, face_up(state), "card"))]
    if verb == "buy":
        if not args:
            raise Unreadable("buy which card?", ["buy CARD", "buy CARD pay w2 y1"])
        seat = state.players[state.seats.index(who)]
        card = _pick(args[0], _normal_card, buyable(state, seat), "card")
        if len(args) > 1:
            if args[1] != "pay":
                raise Unreadable(f"unexpected {args[1]!r} after the card", ["buy CARD", "buy CARD pay w2 y1"])
            paid = [] if args[2:] == ["nothing"] else _parse_tokens(args[2:], ["pay w2 y1", "tokens: w b g r k y"])
            return [CardBought(player=who, card=card, paid=paid)]
        pay = default_payment(CARDS[card], seat)
        # an unaffordable card still parses, so the ruling (not the parser) explains why it is refused
        return [CardBought(player=who, card=card, paid=spell(pay) if pay else [])]
    if verb == "reveal":
        if not args:
            raise Unreadable("reveal what?", ["reveal CARD", "reveal NOBLE"])
        if len(args) > FACE_UP * 3 + len(NOBLES):
            raise Unreadable(f"more than a whole setup ({FACE_UP * 3} cards and the nobles) in one reveal")
        events: list[Event] = []
        possible = [move.card for move in legal_moves(state) if isinstance(move, CardRevealed)]
        for arg in args:
            noble = _normal_noble(arg)
            if noble is not None and _normal_card(arg) is None:
                events.append(NobleRevealed(noble=noble))
                continue
            try:
                card = _pick(arg, _normal_card, possible, "card")
            except Unreadable as why:
                if why.kind == "unknown":
                    raise Unreadable(f"unknown card or noble {quote(arg)}", why.expected, "unknown") from None
                raise
            events.append(CardRevealed(card=card))
            possible = [c for c in possible if c != card]
        return events
    close = [v for v in suggestions(verb, VERBS, 3) if v.startswith(verb[:1])]  # `tkae` -> take; `grab` -> all
    raise Unreadable(f"unknown move {quote(verb)}", [_USAGE[v] for v in close or VERBS], "unknown")


def _compact(letters: list[str]) -> str:
    counts = token_counts(letters)
    if counts is None:
        return " ".join(letters)
    return " ".join(f"{COLOURS[i]}{n}" for i, n in enumerate(counts) if n) or "nothing"


def format_event(event: Event) -> str:
    prefix = f"{getattr(event, 'player', '')}: " if isinstance(event, PLAYER_EVENTS) else ""
    if isinstance(event, GemsTaken):
        return prefix + "take " + " ".join(event.gems)
    if isinstance(event, CardReserved):
        if event.level is None:
            return prefix + f"reserve {event.card}"
        suffix = f" as {event.card}" if event.card else ""
        return prefix + f"reserve deck {event.level}{suffix}"
    if isinstance(event, CardBought):
        return prefix + f"buy {event.card} pay {_compact(event.paid)}"
    if isinstance(event, TokensReturned):
        return prefix + "return " + " ".join(event.tokens)
    if isinstance(event, NobleChosen):
        return prefix + f"noble {event.noble}"
    if isinstance(event, TurnPassed):
        return prefix + "pass"
    if isinstance(event, CardRevealed):
        return f"reveal {event.card}"
    if isinstance(event, NobleRevealed):
        return f"reveal {event.noble}"
    if isinstance(event, SetupDealt):
        return (
            "deal "
            + " ".join(event.nobles)
            + " | "
            + " ".join(f"{lvl + 1}:{','.join(deck[:FACE_UP])}" for lvl, deck in enumerate(event.decks))
        )
    return type(event).__name__


# --------------------------------------------------------------------------- the notation as data

# imported here, beside the data it types, so this block stays apart from the reader above
from ...model import NotationForm  # noqa: E402

# every form of the notation with its meaning and examples (`tally rules splendor --notation`); the notation table of
# docs/rules/splendor.md agrees with it, and every example parses (tests/core/test_notation_forms.py)
NOTATION: tuple[NotationForm, ...] = (
    NotationForm("take TOKENS", "take gems", ("take r g b", "take r r", "take rgb", "take r2", "take 2 r")),
    NotationForm("reserve CARD", "reserve a face-up card", ("reserve 1k0-w1b1g1r1",)),
    NotationForm(
        "reserve deck N",
        "reserve blind from level N (also `reserve blind N`, `reserve N`); in open mode the log fills in the top card",
        ("reserve deck 2",),
    ),
    NotationForm(
        "reserve deck N as CARD",
        "a blind reserve whose card the recorder saw (table mode), or the known top card (open mode)",
        ("reserve deck 2 as 2w3-w6",),
    ),
    NotationForm("buy CARD", "buy, paying the canonical way: gems first, gold for the shortfall", ("buy 1w0-b3",)),
    NotationForm(
        "buy CARD pay TOKENS",
        "buy with an explicit payment; `pay nothing` for a card the bonuses cover",
        ("buy 1w0-b3 pay b2 y1",),
    ),
    NotationForm("return TOKENS", "return tokens down to 10", ("return w k", "return y")),
    NotationForm("noble NOBLE", "choose the noble that visits when several qualify", ("noble w4b4",)),
    NotationForm("pass", "pass when no action is possible (`stuck=pass`)", ("pass",)),
    NotationForm(
        "reveal CARD ..., reveal NOBLE ...",
        "table mode: cards or nobles turned up at setup, or the card that fills a gap; several per line",
        ("reveal 1w1-g4 w4b4",),
    ),
)
