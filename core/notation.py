"""Notation helpers every game shares: the `player:` prefix, counts, card codes by prefix, suggestions.

A move is typed by a person at a table, so the reader is forgiving where it cannot be wrong (a unique
prefix of a code, a name in another case when only one player has it) and strict where a number is
concerned: a count is ASCII digits, and never larger than the game allows, so no input can make a
huge number, an overflow, or a superscript digit that `int` refuses.
"""

from __future__ import annotations

from difflib import get_close_matches
from typing import Callable, Iterable, Sequence

from .model import Event, NotationError, NotationKind, Ruling, illegal
from .text import quote

MAX_DIGITS = 4  # no count in any game needs more; longer runs of digits are refused before int() sees them


def read_count(word: str, largest: int) -> int | None:
    """`word` as a count from 0 to `largest` written in ASCII digits, or None."""
    if not (0 < len(word) <= MAX_DIGITS and word.isascii() and word.isdigit()):
        return None
    value = int(word)
    return value if value <= largest else None


def player_of(text: str, seats: Sequence[str]) -> tuple[str | None, str] | NotationError:
    """Split `ben: take r g b` into (`ben`, `take r g b`); (None, text) when no player is named.

    A name is matched exactly, else ignoring case when exactly one seat matches that way."""
    raw = text.strip()
    head, colon, body = raw.partition(":")
    if not colon or " " in head.strip():
        return None, raw
    name = head.strip()
    seat = seat_named(name, seats)
    if seat is not None:
        return seat, body.strip()
    return NotationError(raw, f"no player {quote(name)} at this table", list(seats), "unknown")


class Unreadable(Exception):
    """Why a move's text cannot be read, found deep in reading it. A game's notation raises it wherever it finds
    the problem, and `read_move` turns it into the NotationError that `parse` returns: it never leaves core."""

    def __init__(self, message: str, expected: Iterable[str] = (), kind: NotationKind = "invalid"):
        super().__init__(message)
        self.message, self.expected, self.kind = message, list(expected), kind


def read_move(raw: str, read: Callable[[str], list[Event]]) -> list[Event] | NotationError:
    """`read(raw)`, or the NotationError for the problem it raised, reported against the whole move `raw`."""
    try:
        return read(raw)
    except Unreadable as why:
        return NotationError(raw, why.message, why.expected, why.kind)


def seat_or_refuse(word: str, seats: Sequence[str]) -> str:
    """The seat `word` names (as `seat_named` matches it); an unknown name is refused with the seats there are."""
    seat = seat_named(word, seats)
    if seat is None:
        raise Unreadable(f"no player {quote(word)} at this table", seats, "unknown")
    return seat


def seat_named(name: str, seats: Sequence[str]) -> str | None:
    """The seat `name` names: matched exactly, else ignoring case when exactly one seat matches that way."""
    if name in seats:
        return name
    folded = [seat for seat in seats if seat.casefold() == name.casefold()]
    return folded[0] if len(folded) == 1 else None


def by_prefix(word: str, codes: Iterable[str]) -> list[str]:
    """The codes `word` names: the exact code if there is one, else every code starting with it."""
    codes = list(codes)
    if word in codes:
        return [word]
    return [code for code in codes if code.startswith(word)]


def suggestions(word: str, codes: Iterable[str], limit: int = 8) -> list[str]:
    """What the user probably meant: codes starting with `word`, then the closest spellings."""
    codes = list(dict.fromkeys(codes))
    starting = [code for code in codes if code.startswith(word)] if word else []
    if starting:
        return starting[:limit]
    return get_close_matches(word, codes, n=limit, cutoff=0.5) or codes[:limit]


CROSSES_TURN = "core.chain.crosses-turn"  # a ` + ` part that would be read as the next player's move


def check_chain_part(
    seats: Sequence[str], part: str, parsed: list[Event], index: int, acting: str | None
) -> tuple[Ruling | None, str | None]:
    """A part after a ` + ` that names no player is read as the move of whoever must act now: when that is
    another player than the one whose move the line was, the line would roll silently into their turn, so it
    is refused (`core.chain.crosses-turn`) unless the part names its player (`ben: draw`). The table's own
    entries (a reveal, a deal: events of no seat) belong to no player's turn. `parsed` is the part read, `index` its place on the line, `acting` whose
    move the line is so far. Returns the refusal or None, and the seat whose move the line is after this part."""
    named = player_of(part, seats)
    if isinstance(named, tuple) and named[0] is not None:
        return None, named[0]
    players = [player for player in (getattr(event, "player", None) for event in parsed) if player in seats]
    if not players:
        return None, acting
    now = players[0]
    if index and acting is not None and now != acting:
        return illegal(
            CROSSES_TURN,
            f"{quote(part.strip())} would be read as {now}'s move, but the line is {acting}'s: a ` + ` line does not "
            f"roll into the next player's turn; name the player (`{now}: {part.strip()}`) or enter it on its own line",
            part=part.strip(),
            player=acting,
            next=now,
        ), acting
    return None, now
