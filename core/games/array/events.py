"""Array's events: facts in the past tense, one tagged msgspec Struct each (docs/rules/array.md, "Events").

Cards on the table are numbered in the order they were laid this round: #1 is the starting card. A card
laid (`card_spliced`) names the card it was laid against and the colour of the two touching segments; the
new card takes the next number. A slice (`sliced`) names the two joined cards it separates and the two
cards laid against the freed segments (they take the next two numbers).

Chance is data: in `open` mode tally deals each round (`round_dealt`: the hands, the cards turned over for
the starting card, the pickup deck) and a draw names the card; in `table` mode the recorder turns the
starting card (`starter_turned`), draws stay unknown (a seated seat names its own, and the cards a Splatter
made it pick up, `picked_up`), and at the end of a round each player with cards left
shows them one by one (`card_shown`).
"""

from ...model import Event


class RoundDealt(Event, tag="round_dealt", frozen=True):
    """Open mode: 7 cards to each player of the round, the cards turned over until a colour card came up
    (action cards go back under the deck), and the pickup deck, top first."""

    hands: dict[str, list[str]] = {}
    turned: list[str] = []
    deck: list[str] = []


class HandNamed(Event, tag="hand_named", frozen=True):
    """Table mode: a seated seat's own hand dealt this round, named by that seat (from its own device) before the
    starting card is turned."""

    player: str = ""
    cards: list[str] = []


class StarterTurned(Event, tag="starter_turned", frozen=True):
    """Table mode: the top card of the pickup deck turned over for the starting card (an action card goes back)."""

    card: str = ""


class CardSpliced(Event, tag="card_spliced", frozen=True):
    """A colour card from `player`'s hand laid against card #`to`, the two `colour` segments touching."""

    player: str = ""
    card: str = ""
    to: int = 0
    colour: str = ""


class Sliced(Event, tag="sliced", frozen=True):
    """The join between cards `cut[0]` and `cut[1]` separated, and `cards[0]` / `cards[1]` laid against the
    freed segment of `cut[0]` / `cut[1]` (the colour of the join)."""

    player: str = ""
    cut: list[int] = []
    cards: list[str] = []


class TurnEnded(Event, tag="turn_ended", frozen=True):
    """The player ends a splice move, leaving the open segments of the cards just laid open."""

    player: str = ""


class CardDrawn(Event, tag="card_drawn", frozen=True):
    """The player draws the top card of the pickup deck (`card`: open mode; absent in table mode)."""

    player: str = ""
    card: str | None = None


class ActionGiven(Event, tag="action_given", frozen=True):
    """An action card given to `target`: Splatter N makes them pick up N cards (`drawn`, open mode), SLAM adds 10."""

    player: str = ""
    card: str = ""
    target: str = ""
    drawn: list[str] = []


class PickedUp(Event, tag="picked_up", frozen=True):
    """Table mode: the cards a Splatter made a seated seat pick up, named by that seat (from its own device, which
    alone sees them) before play goes on; the `action_given` before it named none."""

    player: str = ""
    cards: list[str] = []


class TurnPassed(Event, tag="turn_passed", frozen=True):
    """The pickup deck is empty and the player can do nothing else."""

    player: str = ""


class CardShown(Event, tag="card_shown", frozen=True):
    """Table mode, end of a round: a card left in `player`'s hand, shown for the score."""

    player: str = ""
    card: str = ""


class TimeCalled(Event, tag="time_called", frozen=True):
    """Variant `end=time`: the table calls time; the round being played is the last."""


EVENTS: tuple[type[Event], ...] = (
    RoundDealt,
    StarterTurned,
    CardSpliced,
    Sliced,
    TurnEnded,
    CardDrawn,
    ActionGiven,
    TurnPassed,
    CardShown,
    TimeCalled,
    HandNamed,
    PickedUp,
)
PLAYER_EVENTS = (CardSpliced, Sliced, TurnEnded, CardDrawn, ActionGiven, TurnPassed, CardShown, HandNamed, PickedUp)
