"""Who must act in Splice, and the turn guard: chance and the table's entries when each is expected, the setup,
a Hurricane to resolve, what is owed, the step of the turn, and whose move it is."""

from __future__ import annotations

from ...model import Event, Ruling, illegal
from ...text import quote
from .events import (
    PLAYS,
    BlackSpotPlayed,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    DisksChosen,
    DisksDealt,
    DisksRedrawn,
    HoldingsRevealed,
    MapLaid,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .state import State
from .view import obligation, to_act

# --------------------------------------------------------------------------- who must act


def actor(state: State) -> int:
    """The seat whose move is awaited now, or -1 when it is the table's (or nobody's)."""
    phase = state.phase
    if phase in ("start", "play", "discard", "maps"):
        return state.current
    if phase == "draw":
        return state.owed[0].seat
    if phase == "reveal":
        return next(i for i, p in enumerate(state.players) if not p.revealed)
    return -1


def _expected(state: State) -> str:
    return to_act(state)[1]


def _owed(state: State) -> str:
    """The open obligation as a ruling says it: `ben must draw 1 card first (replacing the Hurricane dealt)`."""
    found = obligation(state)
    if found is None:
        return _expected(state)
    return f"{found['by']} must {found['obligation']} first ({found['why']})"


def _name(state: State, player: str) -> str:
    return player if player in state.seats else quote(player)


_PHASES: dict[type, tuple[str, ...]] = {
    CardsDrawn: ("start", "draw"),
    BlindDrawn: ("start",),
    CoinsPlayed: ("play",),
    PiracyPlayed: ("play",),
    SkullPlayed: ("play",),
    TradePlayed: ("play",),
    BlackSpotPlayed: ("play",),
    MapsBought: ("play",),
    MapLaid: ("play",),
    TurnPassed: ("play",),
    CardsDiscarded: ("play", "discard"),
    MapsReturned: ("maps",),
    HoldingsRevealed: ("reveal",),
}
_STORM_WHY = {
    "start": "drawn at the start of the turn",
    "refill": "drawn in the end-of-turn refill",
    "skull": "drawn in a Skull redraw",
    "deal": "dealt in the first deal",
    "replace": "drawn replacing a card taken blind",
}


def _table_event(state: State, event: Event) -> Ruling | None:
    """Chance (open mode, dealt by tally) and the table's entries (table mode): when each is expected."""
    kind = type(event)
    open_mode = state.mode == "open"
    if kind is SetupDealt:
        if not open_mode or state.phase != "setup":
            return illegal("splice.setup.deal", "the deal is recorded once, at the start of an open-mode game (tally deals it)")
        return None
    if kind is DisksChosen or kind is CardsDealt:
        if open_mode:
            return illegal("splice.setup.deal", "in open mode tally deals the disks and the cards")
        if state.stage not in ("setup", "dealing"):
            return illegal("splice.setup.deal", f"the setup is complete; {_expected(state)}")
        if kind is DisksChosen and state.stage == "dealing":
            return illegal("splice.setup.disks-first", "the disks are already chosen: the cards are dealt next")
        if kind is CardsDealt and state.stage == "setup":
            return illegal("splice.setup.disks-first", "choose the gemstone disks first (`disks`), then deal the cards")
        return None
    if kind is DisksDealt or kind is DisksRedrawn:
        if (kind is DisksDealt) != open_mode:
            which = "tally deals the disks" if open_mode else "the table enters `reshuffle` and the disks stay unseen"
            return illegal("splice.hurricane.reshuffle", f"in {state.mode} mode {which}")
        if state.phase != "storm":
            return illegal("splice.hurricane.reshuffle", f"no Hurricane is waiting for the disks to be shuffled; {_expected(state)}")
        return None
    if kind is CardPicked:
        if not open_mode or state.phase != "pick":
            return illegal("splice.draw.blind", "nothing is waiting for tally to pick a card at random")
        return None
    return None


def check_turn(state: State, event: Event) -> Ruling | None:
    """Chance and the table's entries when each is expected; then the setup, a Hurricane to resolve, what is
    owed, the step of the turn, and whose move it is."""
    kind = type(event)
    wanted = _PHASES.get(kind)
    if wanted is None:
        return _table_event(state, event)
    player = getattr(event, "player", "")
    if state.phase == "setup":
        return illegal("splice.setup.incomplete", f"the setup is not complete: {_expected(state)}")
    if state.phase == "storm":
        why = _STORM_WHY.get(state.storm, "drawn")
        return illegal(
            "splice.hurricane.immediate",
            f"a Hurricane ({why}) lies in the centre: the gemstone disks must be shuffled and drawn again before anything else",
            storm=state.storm,
        )
    if state.phase == "pick":
        return illegal("splice.turn.pending", _owed(state))
    who = actor(state)
    if state.phase in wanted and who >= 0 and player == state.seats[who]:
        return None
    current = state.player_name
    if player == current:
        if state.phase == "start" and (kind in PLAYS or kind is CardsDiscarded):
            return illegal("splice.draw.first", f"{current} must draw first: every turn starts with one draw")
        if state.phase == "play" and kind in (CardsDrawn, BlindDrawn):
            return illegal("splice.draw.first", f"{current} has already drawn this turn: a turn starts with exactly one draw")
        if state.phase == "draw" and kind is BlindDrawn:
            return illegal("splice.hand.refill", f"{_owed(state)}: cards owed are drawn from the Draw Pile, never blind")
        if kind in PLAYS and state.acted:
            head = state.owed[0] if state.owed else None
            if head is not None and head.case == "refill" and head.seat == state.current:
                return illegal(
                    "splice.hand.refill-not-playable",
                    f"{current} is refilling the hand at the end of the turn: those cards wait for the next turn",
                )
            return illegal("splice.turn.one-play", f"{current} has already made this turn's play; {_owed(state)}", acted=state.acted)
    if who >= 0 and player == state.seats[who]:
        return illegal("splice.turn.pending", _owed(state), phase=state.phase)
    if state.phase in ("draw", "discard", "maps", "reveal"):
        return illegal("splice.turn.pending", _owed(state), phase=state.phase)
    return illegal(
        "splice.turn.out-of-turn",
        f"it is {current}'s turn, not {_name(state, player)}'s",
        player=player,
        current=current,
    )
