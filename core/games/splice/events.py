"""Splice's events: facts in the past tense, one tagged msgspec Struct each (docs/format.md).

Chance is data. In `open` mode tally deals (`setup_dealt`, `disks_dealt` after a Hurricane, `card_picked`
for a blind pick) and every card drawn is named from the known Draw Pile. In `table` mode the recorder
enters what the table did (`disks_chosen`, `cards_dealt`, `disks_redrawn`), and a card nobody showed is
`null`: a draw, a blind draw, a discard, a bought or returned map piece stays unknown until it is played.
"""

from ...model import Event

# ------------------------------------------------------------------ chance and setup


class SetupDealt(Event, tag="setup_dealt", frozen=True):
    """Open mode: the disks each seat drew (in seat order) and the unused ones, the shuffled Map Pile and
    the shuffled deck (top first). Each seat in turn is then dealt its hand from the top of the deck."""

    disks: list[str] = []
    unused: list[str] = []
    maps: list[str] = []
    deck: list[str] = []


class DisksChosen(Event, tag="disks_chosen", frozen=True):
    """Table mode: every player drew a gemstone disk face down; the rest lie aside, unused. `disks` names the
    disk of each seat that enters its own hidden cards (`game_started`'s `seated`), and no other."""

    disks: dict[str, str] = {}


class CardsDealt(Event, tag="cards_dealt", frozen=True):
    """Table mode: the Map Pile was shuffled and the hands dealt; `hurricanes` names each player dealt a
    Hurricane (once per Hurricane); `hands` names the hand (the Hurricanes left out) of each seat that enters its
    own hidden cards, and no other."""

    hurricanes: list[str] = []
    hands: dict[str, list[str]] = {}


class HandNamed(Event, tag="hand_named", frozen=True):
    """Table mode: what the setup left for a seated seat to name itself (from its own device): `cards`, its hand
    (the Hurricanes left out), when `cards_dealt` left it out; `disk`, its gemstone disk, when `disks_chosen` did."""

    player: str = ""
    cards: list[str] = []
    disk: str | None = None


class DisksDealt(Event, tag="disks_dealt", frozen=True):
    """Open mode: after a Hurricane, the disks shuffled and drawn again (per seat, in seat order) and the unused ones."""

    disks: list[str] = []
    unused: list[str] = []


class DisksRedrawn(Event, tag="disks_redrawn", frozen=True):
    """Table mode: after a Hurricane, every player drew a new disk face down (`disks`: as for `disks_chosen`)."""

    disks: dict[str, str] = {}


class CardPicked(Event, tag="card_picked", frozen=True):
    """Open mode: the card tally picked at random for a blind draw from a hand, or a map piece taken by Piracy."""

    card: str = ""


# ------------------------------------------------------------------ draws


class CardsDrawn(Event, tag="cards_drawn", frozen=True):
    """Cards drawn from the top of the Draw Pile: the draw that starts a turn (one card), or cards a player
    owes (refill, Skull, a replacement). `null` is a card the recorder did not see; a Hurricane is always named."""

    player: str = ""
    cards: list[str | None] = []


class BlindDrawn(Event, tag="blind_drawn", frozen=True):
    """The draw that starts a turn, taken blind from another player's hand (`card`: null unless seen)."""

    player: str = ""
    source: str = ""
    card: str | None = None


# ------------------------------------------------------------------ the one play of a turn


class CoinsPlayed(Event, tag="coins_played", frozen=True):
    """Coin sets (`5-5`, `4-5-6`, `w5-5`) and Double Your Gold cards laid down in front of the player."""

    player: str = ""
    sets: list[str] = []
    doubles: int = 0


class PiracyPlayed(Event, tag="piracy_played", frozen=True):
    """Piracy on `target`: `plunder` is a coin set's form, `double`, or `map` (a piece taken blind; `piece`:
    null unless seen, and in open mode tally picks it with a `card_picked`)."""

    player: str = ""
    target: str = ""
    plunder: str = ""
    piece: str | None = None


class SkullPlayed(Event, tag="skull_played", frozen=True):
    player: str = ""
    target: str = ""


class TradePlayed(Event, tag="trade_played", frozen=True):
    """Trade Certificate: `colour` called out; `partner` is the player who held it, or `unused`. `given`: the
    disk handed to a partner who enters its own hidden cards, when the log did not know it (else null)."""

    player: str = ""
    colour: str = ""
    partner: str = ""
    given: str | None = None


class BlackSpotPlayed(Event, tag="black_spot_played", frozen=True):
    player: str = ""
    target: str = ""


class MapsBought(Event, tag="maps_bought", frozen=True):
    """`count` map pieces bought with coin sets in play (`paid`) and Double Your Gold cards (`doubles`);
    `pieces`: what came off the Map Pile (null: not seen by the recorder)."""

    player: str = ""
    count: int = 0
    paid: list[str] = []
    doubles: int = 0
    pieces: list[str | None] = []


class MapLaid(Event, tag="map_laid", frozen=True):
    """A completed map laid down: four pieces, one per position (regular pieces and wild `x` pieces)."""

    player: str = ""
    pieces: list[str] = []


class CardsDiscarded(Event, tag="cards_discarded", frozen=True):
    """Cards put face down at the bottom of the Draw Pile: the turn without a play, or down to the hand size."""

    player: str = ""
    cards: list[str | None] = []


class TurnPassed(Event, tag="turn_passed", frozen=True):
    """A turn without a play when there is no card over the hand size to discard."""

    player: str = ""


# ------------------------------------------------------------------ obligations


class MapsReturned(Event, tag="maps_returned", frozen=True):
    """Map pieces over the limit of 5, returned face down to the bottom of the Map Pile."""

    player: str = ""
    pieces: list[str | None] = []


class HoldingsRevealed(Event, tag="holdings_revealed", frozen=True):
    """Table mode, a game ended without a map under `no-map=most-matching`: a player shows disk and map pieces."""

    player: str = ""
    disk: str = ""
    pieces: list[str] = []


EVENTS: tuple[type[Event], ...] = (
    SetupDealt,
    DisksChosen,
    CardsDealt,
    DisksDealt,
    DisksRedrawn,
    CardPicked,
    CardsDrawn,
    BlindDrawn,
    CoinsPlayed,
    PiracyPlayed,
    SkullPlayed,
    TradePlayed,
    BlackSpotPlayed,
    MapsBought,
    MapLaid,
    CardsDiscarded,
    TurnPassed,
    MapsReturned,
    HoldingsRevealed,
    HandNamed,
)
PLAYS = (CoinsPlayed, PiracyPlayed, SkullPlayed, TradePlayed, BlackSpotPlayed, MapsBought, MapLaid, TurnPassed)
CHANCE = (SetupDealt, DisksDealt, CardPicked)  # dealt by tally in open mode: never voided
