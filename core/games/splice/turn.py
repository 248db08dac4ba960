"""Who must act in Splice, and the turn guard: chance and the table's entries when each is expected, the setup,
a Hurricane to resolve, what is owed, the step of the turn, and whose move it is (the kernel decides what is
pending and whose move it is, from `TURN`; this module gives the words)."""

from __future__ import annotations

from typing import Any, Callable

from ...model import Event, Ruling, illegal
from ...referee import ALLOWED, Allowed, OutOfTurn, Pending, TurnStep, concerns
from ...seated import hands_owed, seat_names_own_cards
from ...text import plural, quote
from .components import MAP_LIMIT
from .events import (
    EVENTS,
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
    HandNamed,
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
from .seating import unnamed
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
    return f"{found.by} must {found.obligation} first ({found.why})"


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


@concerns(*(kind for kind in EVENTS if kind not in _PHASES))  # a player's move passes it untouched
def check_table_entry(state: State, event: Event) -> Ruling | Allowed | None:
    """Chance (open mode, dealt by tally) and the table's entries (table mode): when each is expected. None of
    them is a player's move, so nothing more of the turn is asked of them."""
    kind = type(event)
    open_mode = state.mode == "open"
    if kind is CardPicked:  # the most frequent: every blind draw of an open game
        if not open_mode or state.phase != "pick":
            return illegal("splice.draw.blind", "nothing is waiting for tally to pick a card at random")
        return ALLOWED
    if kind in _PHASES:
        return None
    if kind is SetupDealt:
        if not open_mode or state.phase != "setup":
            return illegal(
                "splice.setup.deal", "the deal is recorded once, at the start of an open-mode game (tally deals it)"
            )
        return ALLOWED
    if kind is DisksChosen or kind is CardsDealt:
        if open_mode:
            return illegal("splice.setup.deal", "in open mode tally deals the disks and the cards")
        if state.stage not in ("setup", "dealing"):
            return illegal("splice.setup.deal", f"the setup is complete; {_expected(state)}")
        if kind is DisksChosen and state.stage == "dealing":
            return illegal("splice.setup.disks-first", "the disks are already chosen: the cards are dealt next")
        if kind is CardsDealt and state.stage == "setup":
            return illegal("splice.setup.disks-first", "choose the gemstone disks first (`disks`), then deal the cards")
        return ALLOWED
    if kind is DisksDealt or kind is DisksRedrawn:
        if (kind is DisksDealt) != open_mode:
            which = "tally deals the disks" if open_mode else "the table enters `reshuffle` and the disks stay unseen"
            return illegal("splice.hurricane.reshuffle", f"in {state.mode} mode {which}")
        if state.phase != "storm":
            return illegal(
                "splice.hurricane.reshuffle",
                f"no Hurricane is waiting for the disks to be shuffled; {_expected(state)}",
            )
        return ALLOWED
    return ALLOWED


def _fits(phases: tuple[str, ...]) -> Callable[[State, Any], Allowed | None]:
    """The step that allows a move of the kinds played in `phases` when the step of the turn expects it and the
    seat whose move is awaited makes it. One such step per set of phases, each knowing its phases and that its kinds
    name a `player`: this runs for most events of every fold."""
    if phases == ("start", "draw"):

        def fits_a_draw(state: State, event: Any) -> Allowed | None:
            phase = state.phase
            if phase == "start":
                who = state.current
            elif phase == "draw":
                who = state.owed[0].seat
            else:
                return None
            return ALLOWED if event.player == state.seats[who] else None

        return fits_a_draw
    if phases == ("reveal",):

        def fits_a_reveal(state: State, event: Any) -> Allowed | None:
            if state.phase != "reveal":
                return None
            who = next(i for i, p in enumerate(state.players) if not p.revealed)  # `actor` in the reveal
            return ALLOWED if event.player == state.seats[who] else None

        return fits_a_reveal
    if len(phases) == 1:  # a phase the current player acts in
        only = phases[0]

        def fits_the_phase(state: State, event: Any) -> Allowed | None:
            if state.phase == only and event.player == state.seats[state.current]:
                return ALLOWED
            return None

        return fits_the_phase

    def fits_the_phases(state: State, event: Any) -> Allowed | None:  # phases the current player acts in
        if state.phase in phases and event.player == state.seats[state.current]:
            return ALLOWED
        return None

    return fits_the_phases


def _fitting() -> tuple[Callable[[State, Any], Allowed | None], ...]:
    """`_fits` for each set of phases of `_PHASES`, declared to concern the kinds played in them."""
    kinds: dict[tuple[str, ...], list[type]] = {}
    for kind, phases in _PHASES.items():
        kinds.setdefault(phases, []).append(kind)
    return tuple(concerns(*group)(_fits(phases)) for phases, group in kinds.items())


# A move of a kind the step of the turn expects, by the seat whose move is awaited (`actor`): allowed, with nothing
# more of the turn asked. The table's entries have been allowed or refused before.
FITS = _fitting()


def check_step(state: State, event: Event) -> Ruling | None:
    """What the current player may not do at this step of the turn: play before the one draw, draw twice, draw
    owed cards blind, play twice or play cards drawn in the refill; the awaited seat's move of another step."""
    kind = type(event)
    player = getattr(event, "player", "")
    current = state.player_name
    if player == current:
        if state.phase == "start" and (kind in PLAYS or kind is CardsDiscarded):
            return illegal("splice.draw.first", f"{current} must draw first: every turn starts with one draw")
        if state.phase == "play" and kind in (CardsDrawn, BlindDrawn):
            return illegal(
                "splice.draw.first", f"{current} has already drawn this turn: a turn starts with exactly one draw"
            )
        if state.phase == "draw" and kind is BlindDrawn:
            return illegal(
                "splice.hand.refill", f"{_owed(state)}: cards owed are drawn from the Draw Pile, never blind"
            )
        if kind in PLAYS and state.acted:
            head = state.owed[0] if state.owed else None
            if head is not None and head.case == "refill" and head.seat == state.current:
                return illegal(
                    "splice.hand.refill-not-playable",
                    f"{current} is refilling the hand at the end of the turn: those cards wait for the next turn",
                )
            return illegal(
                "splice.turn.one-play",
                f"{current} has already made this turn's play; {_owed(state)}",
                acted=state.acted,
            )
    who = actor(state)
    if who >= 0 and player == state.seats[who]:  # the awaited seat, with a move that fits no step of the turn
        if obligation(state) is None:  # nothing is pending: the rule at stake is the move's own
            unasked = _unasked(state, event)
            if unasked is not None:
                return unasked
        return illegal("splice.turn.pending", _owed(state), phase=state.phase)
    return None


def _unasked(state: State, event: Event) -> Ruling | None:
    """A return of map pieces or a reveal of holdings while none is asked: refused under the move's own rule."""
    who = getattr(event, "player", "")
    if isinstance(event, MapsReturned):
        held = state.players[state.seats.index(who)].maps.size
        return illegal(
            "splice.maps.return",
            f"{who} holds {plural(held, 'map piece')}, no more than {MAP_LIMIT}: "
            f"only pieces over {MAP_LIMIT} are returned, after a purchase or Piracy",
            held=held,
        )
    if isinstance(event, HoldingsRevealed):
        return illegal(
            "splice.end.reveal",
            f"{who} shows disk and map pieces only when a game ends without a map under no-map=most-matching",
        )
    return None


def _owing(state: State) -> tuple[str, str]:
    """What the seated seats still owe, in words and as the form that names it (`core.seat.hand-owed`)."""
    if state.redrawn:
        return "disk drawn again after the Hurricane", "PLAYER: hand disk COLOUR"
    return "dealt hand or disk", "PLAYER: hand CARD ... [disk COLOUR]"


def _storm(state: State, event: Event) -> str:
    why = _STORM_WHY.get(state.storm, "drawn")
    return f"a Hurricane ({why}) lies in the centre: the gemstone disks must be shuffled and drawn again before anything else"


# the turn: a seated seat's setup owed (named by the seat itself, before all else); a seated seat's hidden components
# named (before the table's entries: a deal names hands too); the table's entries; the setup, a Hurricane and a card
# for tally to pick pending (kernel); a move that fits; what the step of the turn forbids; a draw, a discard, maps or
# holdings pending (kernel); whose move (kernel)
TURN: tuple[TurnStep[State], ...] = (
    hands_owed(HandNamed, field="hands_owed", owing=_owing),
    seat_names_own_cards(unnamed),
    check_table_entry,
    Pending[State](
        ("setup",), "splice.setup.incomplete", lambda state, event: f"the setup is not complete: {_expected(state)}"
    ),
    Pending[State](("storm",), "splice.hurricane.immediate", _storm, facts=lambda state: {"storm": state.storm}),
    Pending[State](("pick",), "splice.turn.pending", lambda state, event: _owed(state)),
    *FITS,
    check_step,
    Pending[State](
        ("draw", "discard", "maps", "reveal"),
        "splice.turn.pending",
        lambda state, event: _owed(state),
        facts=lambda state: {"phase": state.phase},
    ),
    OutOfTurn[State](lambda state, player: f"it is {state.player_name}'s turn, not {_name(state, player)}'s"),
)
