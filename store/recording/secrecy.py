"""What each caller of a served game may know of its log, and the salt that keeps the hash chain from telling more.

A caller is the host (everything the log knows), a seat (the game's `conceal` for that seat: every other seat's
hidden cards unknown) or a watcher (`WATCHER`: what every player sees). An event line tells a caller its content
only when, applied to the table as the caller knew it, it leaves the table as the caller knows it now
(`is_known_to`); otherwise the caller reads only who did what kind of thing (`hidden_text`).

The fingerprint, every `prev` and every anchor are SHA-256 hashes of whole lines, and every seat is shown them.
A line a seat may not read holds little it could not guess (its type, seq, `prev`, player, and `at` to the
second), so without more the seat could hash each card the line might name and find the one that matches. The
record service therefore puts a `salt` of 128 random bits on every line that holds something some caller may
not read (`salted`), before the line is written: no enumeration of candidates can match a hash then.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterator, Sequence

import msgspec

from tally.core.model import Amended, Event, GameSpec, GameStarted, Noted, Voided

WATCHER = ""  # the viewer of a caller who holds no seat: no player may have an empty name (core.names)
SHARED = (Voided, Amended, Noted)  # their notation names a seq and a reason or a remark, never a card
SALT_BYTES = 16  # 128 bits: as many as `secrets.token_hex()` gives by default


def hidden_text(event: Event) -> str:
    """What a caller who may not know an event's content reads of it."""
    kind = str(type(event).__struct_config__.tag)
    player = getattr(event, "player", None)
    return f"{player}: {kind} (hidden)" if isinstance(player, str) else f"{kind} (hidden)"


def is_known_to(spec: GameSpec, before: Any, after: Any, event: Event, viewer: str) -> bool:
    """Whether `event` tells `viewer` nothing the game's `conceal` hides from them: applied to the table as the
    viewer knew it, it leaves the table as the viewer knows it now. A hand dealt to another seat, a card another
    seat drew by name, a blind reserve: each names what the viewer's table keeps unknown, so it is hidden. The
    viewer's own events are known to it, even where its table as the game conceals it cannot follow them (a buy
    whose refill comes from a deck the viewer's table keeps unknown). So is an event that moves only what the
    viewer saw into another seat's hidden cards (a take of a card from an open row): the viewer's table follows it
    up to what the game then conceals, and no other legal move would leave the table as the viewer sees it now
    (`_is_determined`)."""
    if isinstance(event, SHARED) or getattr(event, "player", None) == viewer:
        return True  # a seat's own move holds only what it did and saw doing it (its draw, the card it bought)
    try:
        known = spec.conceal(before, viewer)
        followed = spec.apply(known, event)
        now = spec.conceal(after, viewer)
        if followed == now:
            return True
        return bool(spec.conceal(followed, viewer) == now) and _is_determined(spec, event, known, now, viewer)
    except Exception:  # a reducer trusts its input: one that cannot apply the event to the viewer's table hides it
        return False


def _is_determined(spec: GameSpec, event: Event, known: Any, now: Any, viewer: str) -> bool:
    """Whether the viewer's table before (`known`) and now (`now`) leave `event` the only move it can have been:
    of the legal moves of its kind and player on the viewer's table, it alone leads to the table the viewer sees
    now (a take from the row: only that card leaves the row so; a card drawn by name: any card does the same)."""
    seats = set(known.seats)
    fields = msgspec.to_builtins(event)
    if not any(name not in seats for name in _names(fields)):
        return True  # it names no card, only seats (`ben: draw ?`): nothing in it the viewer's table lacks
    try:  # the quick answer for most: the same move naming no card of the box looks the same to the viewer
        if spec.conceal(spec.apply(known, msgspec.convert(_unnamed(fields, seats), type(event))), viewer) == now:
            return False
    except Exception:
        pass  # a reducer that cannot apply a card it does not know: the legal moves decide
    text = spec.format(event)
    player = getattr(event, "player", None)
    listed = False
    for move in spec.legal_moves(known):
        if type(move) is not type(event) or getattr(move, "player", None) != player:
            continue
        if spec.format(move) == text:
            listed = True
        elif spec.conceal(spec.apply(known, move), viewer) == now:
            return False  # another move the viewer cannot tell apart: the line would say which
    return listed


def _names(value: Any) -> list[str]:
    """Every string value of an event's fields (dict keys included), its type tag and envelope left out."""
    if isinstance(value, dict):
        return [name for key, item in value.items() if key not in _ENVELOPE for name in _names(key) + _names(item)]
    if isinstance(value, list):
        return [name for item in value for name in _names(item)]
    return [value] if isinstance(value, str) else []


def _unnamed(value: Any, seats: set[str]) -> Any:
    """An event's fields with every name but the seats' and the envelope's replaced by one no box holds."""
    if isinstance(value, dict):
        return {
            key: item if key in _ENVELOPE or key == "player" else _unnamed(item, seats) for key, item in value.items()
        }
    if isinstance(value, list):
        return [_unnamed(item, seats) for item in value]
    return "\x00" if isinstance(value, str) and value not in seats else value


_ENVELOPE = frozenset({"type", "seq", "at", "prev", "unit", "salt", "by"})


def known_to(spec: GameSpec, state: Any, seat: str) -> Any:
    """The table as `seat` knows it, to judge that seat's moves and questions on: the game's `conceal` (every other
    seat's hidden cards unknown). In an open game the seat knows no more of what tally dealt than a table's recorder
    does (the piles' order, another seat's hand), so it is judged as in table mode (every game's state records its
    mode, as `game_started` stated it): a draw it makes is of a card it has not seen yet. Its moves are listed on the
    game's `conceal` as it is (`seat_listing`): in an open game tally, not the seat, says which card a draw takes."""
    known = spec.conceal(state, seat)
    if getattr(known, "mode", "table") == "open":
        known = msgspec.structs.replace(known, mode="table")
    return known


def seat_listing(spec: GameSpec, mode: str, seat: str) -> Callable[[Any], list[Event]]:
    """The moves `seat` is shown at a table it knows as `known` (`known_to`), numbered as `tally moves --as` numbers
    them: `listed_for` on the game's `conceal`, in the game's own mode."""

    def listing(known: Any) -> list[Event]:
        if getattr(known, "mode", mode) != mode:
            known = msgspec.structs.replace(known, mode=mode)
        return listed_for(spec, known, seat)

    return listing


def names_others_secret(spec: GameSpec, known: Any, event: Event, seat: str) -> bool:
    """Whether `event`, applied to the table as `seat` knows it (`known`), names something that table keeps hidden:
    another seat's hidden component, which only that seat may name (a table's entry such as a deal naming every
    hand, or the disks every seat drew). The seat's own moves are not asked: what it names of its own, or of what
    it hands to or takes from another seat, it saw doing so."""
    try:
        after = spec.apply(known, event)
    except Exception:  # a reducer trusts its input: what it cannot apply to the seat's table names what is not there
        return True
    return bool(spec.conceal(after, seat) != after)


def listed_for(spec: GameSpec, known: Any, seat: str) -> list[Event]:
    """The moves `seat` is offered, numbered as it is shown them: the legal moves on the table as it knows it
    (`known`, the game's `conceal`), less the table's entries that would name another seat's hidden component."""
    return [
        move
        for move in spec.legal_moves(known)
        if getattr(move, "player", None) is not None or not names_others_secret(spec, known, move, seat)
    ]


def new_salt() -> str:
    """128 random bits from the operating system, as lowercase hex (what `secrets.token_hex(16)` returns, without
    importing `secrets`, which `tally move` would pay for)."""
    return os.urandom(SALT_BYTES).hex()


def is_secret(spec: GameSpec, before: Any, after: Any, event: Event, seats: Sequence[str]) -> bool:
    """Whether some seat, or a watcher, may not read `event` (the state `before` and `after` it): its line then
    carries a salt. A correction that puts events in place of another is salted whatever it holds: its line keeps
    the replacement's every field, and corrections are rare."""
    if isinstance(event, Amended):
        return bool(event.events)
    if isinstance(event, (GameStarted, Voided, Noted)):
        return False
    return any(not is_known_to(spec, before, after, event, viewer) for viewer in (*seats, WATCHER))


def followed(spec: GameSpec, state: Any, events: list[Event]) -> Iterator[tuple[Event, Any, Any]]:
    """Each of `events` (one write, applied in order to `state`) with the states before and after it. A void or a
    correction leaves no state to follow here (the fold's undo stack has it): after one, both are None."""
    known: Any = state  # None once the state after the events so far is not followed
    for event in events:
        after: Any = None
        if isinstance(event, (GameStarted, Noted)):
            after = known
        elif known is not None and not isinstance(event, (Voided, Amended)):
            after = spec.apply(known, event)
        yield event, known, after
        known = after


def salted(spec: GameSpec, seats: Sequence[str], state: Any, events: list[Event]) -> list[Event]:
    """`events` (one write, applied in order to `state`) with a fresh salt on each that holds a secret; a game event
    whose state is not followed (after a void in the same write, which no command writes) is salted whatever it holds."""
    out: list[Event] = []
    for event, before, after in followed(spec, state, events):
        secret = (
            is_secret(spec, before, after, event, seats) if after is not None or isinstance(event, SHARED) else True
        )
        out.append(msgspec.structs.replace(event, salt=new_salt()) if secret else event)
    return out


def may_read(spec: GameSpec, state: Any, events: list[Event], viewer: str) -> list[bool]:
    """For each of `events` (one write, from `state`), whether `viewer` may read it in full."""
    return [
        isinstance(event, SHARED) or (after is not None and is_known_to(spec, before, after, event, viewer))
        for event, before, after in followed(spec, state, events)
    ]
