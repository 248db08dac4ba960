"""Splendor's events: facts in the past tense, one tagged msgspec Struct each (docs/format.md).

Chance is data: in `open` mode the deal (`setup_dealt`) carries the shuffled decks and the
reducer turns cards up from them; in `table` mode the recorder enters every card turned up
(`card_revealed`) and a blind reserve stays unknown (`?2`) until it is bought.
"""

from ...model import Event


class SetupDealt(Event, tag="setup_dealt", frozen=True):
    """Open mode: the shuffled decks (top card first) and the nobles laid out."""

    nobles: list[str] = []
    decks: list[list[str]] = []


class CardRevealed(Event, tag="card_revealed", frozen=True):
    """Table mode: a card turned face up (at setup, or to fill the gap a bought/reserved card left)."""

    card: str = ""


class NobleRevealed(Event, tag="noble_revealed", frozen=True):
    """Table mode: a noble laid out at setup."""

    noble: str = ""


class GemsTaken(Event, tag="gems_taken", frozen=True):
    player: str = ""
    gems: list[str] = []


class CardReserved(Event, tag="card_reserved", frozen=True):
    """A reserve: face up (`card` set, `level` absent) or blind from a deck (`level` set; `card` absent if unseen)."""

    player: str = ""
    card: str | None = None
    level: int | None = None


class CardBought(Event, tag="card_bought", frozen=True):
    player: str = ""
    card: str = ""
    paid: list[str] = []


class TokensReturned(Event, tag="tokens_returned", frozen=True):
    player: str = ""
    tokens: list[str] = []


class NobleChosen(Event, tag="noble_chosen", frozen=True):
    player: str = ""
    noble: str = ""


class TurnPassed(Event, tag="turn_passed", frozen=True):
    player: str = ""


EVENTS: tuple[type[Event], ...] = (
    SetupDealt,
    CardRevealed,
    NobleRevealed,
    GemsTaken,
    CardReserved,
    CardBought,
    TokensReturned,
    NobleChosen,
    TurnPassed,
)
PLAYER_EVENTS = (GemsTaken, CardReserved, CardBought, TokensReturned, NobleChosen, TurnPassed)
