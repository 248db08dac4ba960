"""Split's events: facts in the past tense, one tagged msgspec Struct each (docs/format.md).

Chance is data: in `open` mode tally deals every round (`round_dealt` carries every hand, the discard
row's first card and the pile, top first), so every draw is the pile's known top card. In `table` mode
the recorder enters the deal as seen (the discard row's first card, and any hand the recorder saw), and a
card drawn from the pile is unknown (`card` absent) unless the recorder saw it; it becomes known when it
is played, discarded or otherwise revealed.
"""

from ...model import Event


class RoundDealt(Event, tag="round_dealt", frozen=True):
    """A round's deal: the discard row's first card, the hands the log knows (by player), the pile (open mode)."""

    row: str = ""
    hands: dict[str, list[str]] = {}
    pile: list[str] = []


class HandNamed(Event, tag="hand_named", frozen=True):
    """Table mode: a seated seat's own dealt hand, which the deal left for it to name (from its own device)."""

    player: str = ""
    cards: list[str] = []


class CardDrawn(Event, tag="card_drawn", frozen=True):
    """The top card of the pile, drawn at the start of a turn or as a strong match's bonus; `card` absent if unseen."""

    player: str = ""
    card: str | None = None


class RowTaken(Event, tag="row_taken", frozen=True):
    """`card` taken from the discard row, with every card above it."""

    player: str = ""
    card: str = ""


class MatchPlayed(Event, tag="match_played", frozen=True):
    """Two halves of one rank played from the hand as a match."""

    player: str = ""
    cards: list[str] = []


class MatchUpgraded(Event, tag="match_upgraded", frozen=True):
    """`card` from the hand played over the half `over` of a match on the table, making it stronger."""

    player: str = ""
    card: str = ""
    over: str = ""


class MinusMarked(Event, tag="minus_marked", frozen=True):
    """A perfect match's bonus: `player` chose `target`, who marks a minus box."""

    player: str = ""
    target: str = ""


class MatchesSwapped(Event, tag="matches_swapped", frozen=True):
    """A weak match's bonus: `player`'s match `mine` exchanged for another player's match `theirs` of the same type."""

    player: str = ""
    mine: list[str] = []
    theirs: list[str] = []


class BonusDeclined(Event, tag="bonus_declined", frozen=True):
    """The player let the pending bonus go."""

    player: str = ""


class CardDiscarded(Event, tag="card_discarded", frozen=True):
    player: str = ""
    card: str = ""


class LayingDone(Event, tag="laying_done", frozen=True):
    """After someone went out on their first turn: a player who had no turn has laid the matches they wanted."""

    player: str = ""


EVENTS: tuple[type[Event], ...] = (
    RoundDealt,
    CardDrawn,
    RowTaken,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    MatchesSwapped,
    BonusDeclined,
    CardDiscarded,
    LayingDone,
    HandNamed,
)
