"""Ten's notation: `say N`, optionally prefixed `PLAYER:`."""

from __future__ import annotations

from tally.core.model import Event, NotationError, NotationForm
from tally.core.notation import Unreadable, player_of, read_count, read_move

from .events import NumberSaid
from .state import State


def _read(state: State, raw: str) -> list[Event]:
    named = player_of(raw, state.seats)
    if isinstance(named, NotationError):
        raise Unreadable(named.message, named.expected, named.kind)
    who, body = named
    words = body.split()
    if not words or words[0] != "say":
        raise Unreadable(
            f"unknown move {words[0]!r}" if words else "empty move",
            ["say 1", "say 2"],
            "unknown" if words else "invalid",
        )
    amount = read_count(words[1], 9) if len(words) == 2 else None
    if amount is None:
        raise Unreadable("say one number", ["say 1", "say 2"])
    return [NumberSaid(player=who or state.player_name, amount=amount)]


def parse(state: State, text: str) -> list[Event] | NotationError:
    return read_move(text.strip(), lambda raw: _read(state, raw))


def format_event(event: Event) -> str:
    if isinstance(event, NumberSaid):
        return f"{event.player}: say {event.amount}"
    return type(event).__name__


NOTATION: tuple[NotationForm, ...] = (
    NotationForm("say N", "say 1 or 2: the running total grows by N", ("say 1", "say 2")),
)
