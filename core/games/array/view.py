"""What Array shows: the view for one seat, the outcome, who must act next, and narration.

`view(state, None)` is everything the log knows; `view(state, seat)` hides the other hands (their size
only). A card the log has not seen is `?`.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from ...model import TABLE, Due, Outcome, turn_dues
from ...text import plural
from ...views import common
from ...views import waiting_on as _waiting_on
from .components import DEAL, card_text
from .state import Result, State, array_tree, arrays, open_colours, turn


class ArrayPlayer(msgspec.Struct, frozen=True, kw_only=True):
    """A player's entry: total, whether playing this round or eliminated, the hand (`?` for a card not shown),
    its size, the cards shown at a round's end, SLAM points received this round."""

    name: str
    total: int
    playing: bool
    out: bool
    hand: list[str]
    cards: int
    shown: list[str]
    slams: int


class ArrayCard(msgspec.Struct, frozen=True, kw_only=True):
    """A card of an array: its number, code, the card it was laid against and the colour they join on (None for
    the array's first card), its open segments' colour letters."""

    n: int
    card: str
    parent: int | None
    via: str | None
    open: str


class ArrayTree(msgspec.Struct, frozen=True, kw_only=True):
    """An array: its lowest-numbered card, its size, its cards in tree order."""

    root: int
    size: int
    cards: list[ArrayCard]


class ArrayRound(msgspec.Struct, frozen=True, kw_only=True):
    """A finished round, by seat name."""

    round: int
    dealer: str
    ended: str
    winners: list[str]
    points: dict[str, int]
    left: dict[str, list[str]]
    totals: dict[str, int]
    eliminated: list[str]
    sudden_death: bool


class ArrayView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat sees (`core.views.View`), its keys in the order `--json` has always printed them."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    turn: int
    to_act: str
    expected: str
    round: int
    dealer: str
    threshold: int
    end: str
    sudden_death: bool
    colours: dict[str, str]
    deck: int
    arrays: list[ArrayTree]
    anchors: list[int]
    given: list[str]
    returned: list[str]
    players: list[ArrayPlayer]
    rounds: list[ArrayRound]
    outcome: Outcome | None
    seq: int | UnsetType = UNSET
    fingerprint: str | None | UnsetType = UNSET


def _names(state: State, seats: tuple[int, ...] | list[int]) -> str:
    names = [state.seats[s] for s in seats]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _hand(state: State, seat: int, viewer: str | None) -> list[str]:
    zone = state.hands[seat]
    if viewer is not None and viewer != state.seats[seat]:
        return ["?"] * zone.size
    return list(zone.known) + ["?"] * zone.unknown


def _array_view(state: State, group: list[int]) -> ArrayTree:
    cards = []
    for number, parent, colour in array_tree(state, group):
        cards.append(
            ArrayCard(
                n=number,
                card=state.placed[number - 1],
                parent=parent or None,
                via=colour or None,
                open=open_colours(state, number),
            )
        )
    return ArrayTree(root=min(group), size=len(group), cards=cards)


def _round_view(state: State, result: Result) -> ArrayRound:
    seats = state.seats
    return ArrayRound(
        round=result.round,
        dealer=seats[result.dealer],
        ended=result.ended,
        winners=[seats[s] for s in result.winners],
        points={seats[s]: result.points[s] for s in result.playing},
        left={seats[s]: list(result.left[s]) for s in result.playing},
        totals={seats[s]: result.totals[s] for s in result.playing},
        eliminated=[seats[s] for s in result.eliminated],
        sudden_death=result.sudden,
    )


def view(state: State, seat: str | None) -> ArrayView:
    """What `seat` may see (None: everything the log knows)."""
    players = []
    for index, name in enumerate(state.seats):
        shown = list(state.left[index]) if state.left else []
        players.append(
            ArrayPlayer(
                name=name,
                total=state.totals[index],
                playing=index in state.playing and state.phase != "over",
                out=index in state.out,
                hand=_hand(state, index, seat),
                cards=state.hands[index].size,
                shown=shown,
                slams=state.slams[index] if state.slams else 0,
            )
        )
    return ArrayView(
        **common("array", state.mode, seat, state.phase, turn(state), to_act(state), outcome(state)),
        round=state.round,
        dealer=state.seats[state.dealer],
        threshold=state.threshold,
        end=state.end if state.end != "hands" else f"hands ({state.hands_limit})",
        sudden_death=state.sudden,
        colours={letter: name for letter, name in zip(state.box.colours, state.box.names)},
        deck=state.deck_size,
        arrays=[_array_view(state, group) for group in arrays(state)],
        anchors=list(state.anchors),
        given=list(state.played),
        returned=list(state.returned),
        players=players,
        rounds=[_round_view(state, r) for r in state.results],
    )


# --------------------------------------------------------------------------- the outcome


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    seats = state.seats
    scores = {name: state.totals[i] for i, name in enumerate(seats)}
    winner = seats[state.winner]
    total = state.totals[state.winner]
    last = state.results[-1]
    if state.ended == "last-standing":
        why = f"{winner} is the last player below {state.threshold} ({total} points)"
    elif state.ended == "all-crossed":
        crossed = _names(state, last.playing)
        why = f"{crossed} all reached {state.threshold} in round {last.round}; {winner} has the lowest total ({total})"
    elif state.ended == "sudden-death":
        why = f"{winner} won the sudden-death round {last.round} against {_names(state, [s for s in last.playing if s != state.winner])}"
    elif state.ended == "hands":
        why = f"after {plural(last.round, 'hand')}, {winner} has the fewest points ({total})"
    else:
        why = f"time was called in round {last.round}; {winner} has the fewest points ({total})"
    return Outcome(
        scores=scores,
        winners=[winner],
        reason=why,
        ended=state.ended,
        details={
            "ended": state.ended,
            "rounds": len(state.results),
            "eliminated": [seats[s] for s in state.out if s != state.winner],
            "round_points": [{seats[s]: r.points[s] for s in r.playing} for r in state.results],
        },
    )


# --------------------------------------------------------------------------- who acts


def to_act(state: State) -> tuple[str, str]:
    phase = state.phase
    if phase == "over":
        return "nobody", f"the game is over ({state.ended})"
    if state.picking:  # the cards a Splatter made a seated seat pick up, named by it before anything else
        return state.picking, (
            f"{state.picking} to name the {plural(state.picks, 'card')} the Splatter made them pick "
            "up (PLAYER: pick up CARD ...)"
        )
    dealer = state.seats[state.dealer]
    if phase == "deal":
        return "table", f"tally must deal round {state.round} (dealer {dealer})"
    if phase == "starter":
        owed = state.owed
        if owed:  # a seated seat's hand is named before the starting card, by that seat
            return owed[0], (
                f"{', '.join(owed)} to name their own dealt hand ({DEAL} cards: PLAYER: hand CARD ...) "
                f"before round {state.round}'s starting card"
            )
        back = f" ({', '.join(state.returned)} went back)" if state.returned else ""
        return "table", (
            f"{dealer} deals round {state.round}; the table must turn over the starting card{back}: start CARD"
        )
    if phase == "show":
        seat = state.owing[0]
        name = state.seats[seat]
        return name, f"{name} must show the {plural(state.hands[seat].size, 'card')} left in hand: show CARD ..."
    name = state.player_name
    if phase == "splice":
        laid = " and ".join(f"#{a} (open: {open_colours(state, a) or '-'})" for a in state.anchors)
        return name, f"{name} may splice more cards onto {laid}, or done"
    fallback = "draw" if state.deck_size else "pass (the pickup deck is empty)"
    if not state.first_done:
        start = state.placed[0]
        sudden = f" (sudden death: {_names(state, state.playing)})" if state.sudden else ""
        return name, (
            f"{name} to make the first move of round {state.round}{sudden}: splice a card onto #1 {start}, "
            f"or {fallback}"
        )
    return name, f"{name} to slice and splice, splice, give an action card, or {fallback}"


def waiting_on(state: State) -> tuple[str, ...]:
    """The seats the table waits on: each seated seat still to name its dealt hand, every seat with cards left to
    show at a round's end (they show them in any order), else the seat to act."""
    if state.phase == "show" and not state.picking:
        return tuple(state.seats[seat] for seat in state.owing)
    return _waiting_on(to_act(state), state.owed if state.phase == "starter" else ())


def owed(state: State) -> tuple[Due, ...]:
    """Who owes what: the seated seat a Splatter made pick up cards (typed: too many sets to list), each seated seat
    still to name its dealt hand (typed), the starting card from the dealer's device, every seat's cards left to
    show at a round's end; else the turn's move (all three listed)."""
    if state.picking:
        return (
            Due(
                seat=state.picking,
                what=f"the {plural(state.picks, 'card')} picked up after the Splatter",
                form="PLAYER: pick up CARD ...",
            ),
        )
    if state.phase == "starter" and state.owed:
        return tuple(
            Due(seat=name, what=f"the dealt hand of round {state.round} ({DEAL} cards)", form="PLAYER: hand CARD ...")
            for name in state.owed
        )
    if state.phase == "starter":
        return (Due(seat=TABLE, what=f"the starting card of round {state.round}", by=state.seats[state.dealer]),)
    if state.phase == "show":
        return tuple(
            Due(seat=state.seats[seat], what=f"the {plural(state.hands[seat].size, 'card')} left in hand")
            for seat in state.owing
        )
    return turn_dues(to_act(state), waiting_on(state))


def _round_end(state: State, went_out: int, number: int | None = None) -> str:
    number = state.round if number is None else number
    if went_out >= 0:
        return f"{state.seats[went_out]} played the last card: round {number} is over"
    return f"every player passed: round {number} is blocked"


def pending(state: State) -> str | None:
    """What must be settled before play goes on: the starting card to turn over, the hands left to show at the
    end of a round (table mode), or a move in progress (Splice 2 onto the cards just laid, or done)."""
    if state.phase in ("starter", "show", "splice") or state.picking:
        return to_act(state)[1]
    return None


def narrate(before: State, after: State) -> list[str]:
    """What followed from an event without being an event itself: a pick-up, the end of a move, a round, the game."""
    notes: list[str] = []
    seats = after.seats
    same_round = after.round == before.round and not len(after.results) > len(before.results)
    if same_round and len(after.played) > len(before.played):
        for seat, (old, new) in enumerate(zip(before.hands, after.hands)):
            if new.size > old.size:
                notes.append(f"{seats[seat]} picks up {plural(new.size - old.size, 'card')}")
            if after.slams[seat] > before.slams[seat]:
                notes.append(f"{seats[seat]} takes {after.slams[seat] - before.slams[seat]} points")
    if same_round and after.phase == "play" and len(after.placed) > len(before.placed) and after.turns > before.turns:
        notes.append(f"no open segment left on the cards just laid: {before.player_name}'s move ends")
    if before.phase != "show" and after.phase == "show":
        notes.append(_round_end(after, after.went_out) + "; the hands left are shown")
    if len(after.results) > len(before.results):
        result = after.results[-1]
        if before.phase != "show":  # (after the shows the end of the round was told already)
            notes.append(_round_end(after, result.winners[0] if result.ended == "out" else -1, result.round))
        scored = ", ".join(f"{seats[s]} +{result.points[s]} ({result.totals[s]})" for s in result.playing)
        notes.append(f"scores: {scored}")
        notes.extend(f"{seats[seat]} reaches {after.threshold} and is eliminated" for seat in result.eliminated)
        if result.then == "sudden-death":
            notes.append(f"sudden death: {_names(after, after.playing)} play round {after.round}")
        elif result.then == "continue":
            notes.append(f"{seats[after.dealer]} deals round {after.round}")
    if same_round and len(after.returned) > len(before.returned):
        notes.extend(
            f"{card_text(card, after.box)} goes back into the pickup deck"
            for card in after.returned[len(before.returned) :]
        )
    if after.phase == "over" and before.phase != "over":
        ended = outcome(after)
        notes.append(f"game over: {ended.reason}" if ended else "game over")
    return notes
