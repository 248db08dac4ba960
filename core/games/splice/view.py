"""What Splice shows: the view for one seat, the outcome, who must act next and why, and narration.

`view(state, None)` is everything the log knows (the referee's view); `view(state, seat)` hides what that
seat may not see: other players' hands, disks and map pieces (only how many), the order of both piles and
the unused disks. A card or disk the log itself never saw is `?`.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from ...knowledge import Zone
from ...model import Due, Outcome, turn_dues
from ...text import plural
from ...views import common
from ...views import waiting_on as _waiting_on
from .components import MAP_LIMIT
from .state import State, gold, pile_size, turn

_DRAW_WHY = {
    "refill": "the refill to {size} at the end of the turn",
    "skull": "a new hand after the Skull",
    "deal": "replacing the Hurricane dealt",
    "replace": "replacing the card {current} drew blind",
}
_STORM_WHY = {
    "start": "drew the Hurricane at the start of the turn",
    "refill": "drew the Hurricane in the end-of-turn refill",
    "skull": "drew the Hurricane in the Skull redraw",
    "deal": "was dealt the Hurricane",
    "replace": "drew the Hurricane replacing the card taken blind",
}


def _shown(zone: Zone, visible: bool) -> list[str]:
    if not visible:
        return ["?"] * zone.size
    return sorted(zone.known, key=_order) + ["?"] * zone.unknown


def _order(card: str) -> tuple[int, int | str]:
    return (0, int(card)) if card.isdigit() else (1, card)


def _storm_consequence(state: State) -> str:
    drawer = state.seats[state.storm_seat] if state.storm_seat >= 0 else "?"
    case = state.storm
    if case == "start":
        return f"{drawer} has lost the turn"
    if case == "replace" and state.players[state.storm_seat].forfeit:
        return f"{drawer} draws again and, being next to play, forfeits that turn"
    if case == "deal":
        first = state.players[0].forfeit
        return "each player dealt a Hurricane draws a replacement" + (
            f"; {state.seats[0]} loses the first turn" if first else ""
        )
    return f"{drawer} draws a card to replace it"


class Obligation(msgspec.Struct, frozen=True, kw_only=True):
    """An open obligation (the view's `pending`): what must be done, by whom (a seat or `table`), and why."""

    obligation: str
    by: str
    why: str


class SplicePlayer(msgspec.Struct, frozen=True, kw_only=True):
    """A player's entry: disk (`?` when hidden or unknown), hand, coin sets in play, Doubles, gold, map pieces,
    Black Spots, whether the next turn is lost."""

    name: str
    disk: str
    hand: list[str]
    sets: list[str]
    doubles: int
    gold: int
    map_pieces: list[str]
    black_spots: int
    loses_next_turn: bool


class Hurricanes(msgspec.Struct, frozen=True, kw_only=True):
    in_play: int
    in_centre: int


class Stall(msgspec.Struct, frozen=True, kw_only=True):
    quiet_turns: int
    limit: int


class SpliceView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat sees (`core.views.View`), its keys in the order `--json` has always printed them."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    turn: int
    to_act: str
    expected: str
    current: str
    pending: Obligation | None
    draw_pile: int
    map_pile: int
    unused_disks: list[str]
    colours: dict[str, str]
    hurricanes: Hurricanes
    stall: Stall
    final_round: bool
    map_laid: list[str]
    players: list[SplicePlayer]
    outcome: Outcome | None
    seq: int | UnsetType = UNSET
    fingerprint: str | None | UnsetType = UNSET


def obligation(state: State) -> Obligation | None:
    """The open obligation, who owes it and why (None while a player is simply to draw or play)."""
    phase = state.phase
    current = state.player_name
    if phase == "storm":
        drawer = state.seats[state.storm_seat] if state.storm_seat >= 0 else "?"
        return Obligation(
            obligation="shuffle the gemstone disks",
            by="table",
            why=f"Hurricane: {drawer} {_STORM_WHY.get(state.storm, 'drew it')}; then {_storm_consequence(state)}",
        )
    if phase == "draw":
        head = state.owed[0]
        count = min(head.count, pile_size(state.pile))
        why = _DRAW_WHY[head.case].format(size=state.hand_size, current=current)
        return Obligation(obligation=f"draw {plural(count, 'card')}", by=state.seats[head.seat], why=why)
    if phase == "pick":
        source = state.seats[state.pick_from]
        what = (
            f"the card {current} draws blind from {source}'s hand"
            if state.pick == "hand"
            else f"the map piece {current} takes from {source} by Piracy"
        )
        return Obligation(obligation="pick a card at random", by="table", why=what)
    if phase == "discard":
        excess = state.player.hand.size - state.hand_size
        return Obligation(
            obligation=f"discard {plural(excess, 'card')}",
            by=current,
            why=f"the hand is over {state.hand_size} at the end of the turn",
        )
    if phase == "maps":
        excess = state.player.maps.size - MAP_LIMIT
        return Obligation(
            obligation=f"return {plural(excess, 'map piece')}", by=current, why=f"more than {MAP_LIMIT} map pieces"
        )
    if phase == "reveal":
        who = next(name for name, p in zip(state.seats, state.players) if not p.revealed)
        return Obligation(
            obligation="show disk and map pieces",
            by=who,
            why=f"the game ended without a map ({state.ended}), no-map=most-matching",
        )
    return None


def view(state: State, seat: str | None) -> SpliceView:
    """What `seat` may see (None: everything the log knows)."""
    players = []
    box = state.box
    # at the end of a game decided by most-matching every player has shown disk and pieces
    shown_all = state.phase == "over" and state.ended != "map" and state.no_map == "most-matching"
    for index, (name, p) in enumerate(zip(state.seats, state.players)):
        mine = seat is None or seat == name or shown_all
        shown = mine or p.revealed or index == state.winner  # a laid map shows its owner's disk
        disk = p.disk if shown and p.disk is not None else "?"
        players.append(
            SplicePlayer(
                name=name,
                disk=disk,
                hand=_shown(p.hand, seat is None or seat == name),  # shown to no one else, at the end neither
                sets=list(p.sets),
                doubles=p.doubles,
                gold=gold(state, p),
                map_pieces=_shown(p.maps, mine or p.revealed),
                black_spots=p.spots,
                loses_next_turn=p.forfeit or p.spots > 0,
            )
        )
    return SpliceView(
        **common("splice", state.mode, seat, state.phase, turn(state), to_act(state), outcome(state)),
        current=state.player_name,
        pending=obligation(state),
        draw_pile=pile_size(state.pile),
        map_pile=pile_size(state.map_pile),
        unused_disks=_shown(state.unused, seat is None),
        colours={c: n for c, n in zip(box.colours, box.names)},
        hurricanes=Hurricanes(in_play=state.copies.get("hurricane", 0), in_centre=state.centre),
        stall=Stall(quiet_turns=state.quiet, limit=state.stall_rounds * len(state.seats)),
        final_round=state.end_seat >= 0,
        map_laid=list(state.laid),
        players=players,
    )


def _matching(state: State, index: int) -> int:
    seat = state.players[index]
    if seat.disk is None:
        return 0
    return sum(1 for piece in seat.maps.known if piece[0] == seat.disk)


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    seats = state.seats
    pieces = {name: p.maps.size for name, p in zip(seats, state.players)}
    if state.ended == "map":
        winner = seats[state.winner]
        colour = state.box.colour_name(state.players[state.winner].disk or "?")
        return Outcome(
            scores={name: int(name == winner) for name in seats},
            winners=[winner],
            reason=f"{winner} laid down a completed {colour} map",
            details={"ended": "map", "colour": colour, "map_pieces": pieces},
            ended="map",
        )
    why = (
        "every map piece was bought and nobody laid down a map"
        if state.ended == "all-bought"
        else (f"the game stalled: {state.stall_rounds} rounds without a map piece bought or taken")
    )
    if state.no_map == "draw":
        return Outcome(
            scores=dict.fromkeys(seats, 0),
            winners=[],
            reason=f"{why}: a draw",
            details={"ended": state.ended, "map_pieces": pieces},
            ended=state.ended,
        )
    scores = {name: _matching(state, i) for i, name in enumerate(seats)}
    best = max(scores.values())
    winners = [name for name in seats if scores[name] == best] if best else []
    if not winners:
        reason = f"{why}; nobody holds a piece of their own colour: a draw"
    elif len(winners) == 1:
        reason = f"{why}; {winners[0]} holds the most map pieces of their own colour ({best})"
    else:
        reason = f"{why}; {', '.join(winners)} tie with {best} map pieces of their own colour: a shared victory"
    return Outcome(
        scores=scores,
        winners=winners,
        reason=reason,
        details={"ended": state.ended, "map_pieces": pieces},
        ended=state.ended,
    )


def to_act(state: State) -> tuple[str, str]:
    phase = state.phase
    current = state.player_name
    if phase == "over":
        result = outcome(state)
        return "nobody", f"the game is over ({result.reason if result else state.ended})"
    if (
        state.hands_owed
    ):  # a seated seat's hand or disk the setup or a reshuffle left to it: nothing else is played before
        owed = state.hands_owed
        if state.redrawn:
            return owed[
                0
            ], f"{', '.join(owed)} to name their own disk drawn again after the Hurricane (PLAYER: hand disk COLOUR)"
        disks = any(state.players[state.seats.index(name)].disk is None for name in owed)
        return (
            owed[0],
            f"{', '.join(owed)} to name their own dealt hand{' and gemstone disk' if disks else ''}"
            f" (PLAYER: hand CARD ...{' disk COLOUR' if disks else ''})",
        )
    if phase == "setup":
        if state.mode == "open":
            return "table", "tally must deal: the gemstone disks, the Map Pile and the hands"
        if state.stage == "setup":
            return "table", "the table must choose gemstone disks first: every player draws one face down (`disks`)"
        return "table", (
            f"the table must shuffle the Map Pile and deal {state.hand_size} cards each "
            "(`deal`, or `deal hurricane PLAYER` for each Hurricane dealt)"
        )
    if phase == "storm":
        found = obligation(state)
        how = "tally shuffles them" if state.mode == "open" else "enter `reshuffle`"
        return (
            "table",
            f"the gemstone disks must be shuffled and drawn again before anything else ({how}): {found.why if found else 'Hurricane'}",
        )
    if phase == "pick":
        found = obligation(state)
        return "table", f"tally picks {found.why if found else 'a card'} at random"
    if phase == "start":
        if state.pile:
            return (
                current,
                f"{current} must draw: the top card of the Draw Pile (`draw`) or a card blind from another hand (`draw from PLAYER`)",
            )
        return (
            current,
            f"{current} must draw a card blind from another hand (`draw from PLAYER`): the Draw Pile is empty",
        )
    if phase == "play":
        rest = "discard one card" if state.player.hand.size > state.hand_size else "pass"
        return current, f"{current} to play coin sets, one Special Card, buy map pieces or lay down a map; or {rest}"
    found = obligation(state)
    assert found is not None
    return found.by, f"{found.by} must {found.obligation}: {found.why}"


def waiting_on(state: State) -> tuple[str, ...]:
    """The seats the table waits on: each seated seat still to name its hand or its disk drawn again, else the
    seat to act."""
    return _waiting_on(to_act(state), state.hands_owed if state.phase != "over" else ())


def _hand_owed(state: State, name: str) -> str:
    """What a seated seat still names of what was left to it: its dealt hand (how many cards), its disk, or both."""
    if state.redrawn:
        return "the disk drawn again after the Hurricane"
    seat = state.players[state.seats.index(name)]
    parts = [f"the dealt hand ({seat.hand.unknown} cards)"] if seat.hand.unknown else []
    if seat.disk is None:
        parts.append("the gemstone disk drawn")
    return " and ".join(parts) or "the dealt hand"


def owed(state: State) -> tuple[Due, ...]:
    """Who owes what: each seated seat still to name its dealt hand and disk, or its disk drawn again after a
    Hurricane, a seated seat the cards it draws (typed: too many to list), a seat its disk and map pieces at the end
    (typed: the log cannot list what it has not seen); else the turn's move or the table's entry (listed, from any
    seat's device: Splice has no dealer)."""
    if state.hands_owed and state.phase != "over":
        return tuple(
            Due(seat=name, what=_hand_owed(state, name), form="PLAYER: hand CARD ... [disk COLOUR]")
            for name in state.hands_owed
        )
    found = obligation(state)
    if state.phase == "draw" and found is not None and found.by in state.seated and state.mode == "table":
        # a seat that names its cards drawn: the ways to draw several are too many to list
        return (
            Due(
                seat=found.by,
                what=f"the cards of the {found.obligation.removeprefix('draw ')} drawn ({found.why})",
                form="draw CARD ...",
            ),
        )
    if state.phase == "reveal" and found is not None:  # the log cannot list what it has not seen
        return (Due(seat=found.by, what="the disk and map pieces, shown", form="reveal COLOUR PIECES"),)
    return turn_dues(to_act(state), waiting_on(state))


def pending(state: State) -> str | None:
    """What must be settled before play goes on (a Hurricane's reshuffle, cards owed, a discard, map pieces to
    return, a reveal, the table's setup), in words; None while a player is simply to draw or play."""
    if state.phase in ("start", "play", "over") or (state.phase == "setup" and state.mode == "open"):
        return None
    return to_act(state)[1]


def _lost_turns(before: State, after: State) -> list[str]:
    """Turns passed over in one step: a Black Spot's, a Hurricane forfeit's (the first deal's too)."""
    ended = after.turns - before.turns
    if ended <= 0 or after.phase == "over" and after.ended == "map":
        return []
    n = len(after.seats)
    if before.stage == "deal":
        lost = list(range(ended))  # the first seat's first turn, and any seat after it
    else:
        lost = [(before.current + k) % n for k in range(1, ended)]
    notes = []
    for index in lost:
        old = before.players[index]
        why = "a Hurricane forfeit" if old.forfeit else "the Black Spot"
        notes.append(f"{after.seats[index]} loses the turn ({why})")
    return notes


def narrate(before: State, after: State) -> list[str]:
    """What followed from an event without being an event itself: Hurricanes, lost turns, refills, the end."""
    notes: list[str] = []
    if after.centre > before.centre:
        notes.append("Hurricane! play stops until the gemstone disks are shuffled")
    if before.centre and not after.centre:
        lost = f"; {before.seats[before.storm_seat]} has lost the turn" if before.storm == "start" else ""
        notes.append(f"the Hurricane goes to the bottom of the Draw Pile{lost}")
    if before.played == "skull" and not after.played:
        notes.append("the Skull goes to the bottom of the Draw Pile")
    notes.extend(_lost_turns(before, after))
    if after.end_seat >= 0 > before.end_seat:
        notes.append("the Map Pile is empty: the round is finished, then the game ends")
    new_debt = after.owed and (
        not before.owed or (before.owed[0].seat, before.owed[0].case) != (after.owed[0].seat, after.owed[0].case)
    )
    if new_debt and after.owed[0].case in ("refill", "replace"):
        head = after.owed[0]
        notes.append(f"{after.seats[head.seat]} owes {plural(head.count, 'card')} ({head.case})")
    if after.phase == "play" and after.fresh is None and before.current != after.current and after.acted == "":
        notes.append(f"{after.player_name} cannot draw: the Draw Pile is empty and no other hand holds a card")
    if after.phase == "over" and before.phase != "over":
        result = outcome(after)
        notes.append(f"game over: {result.reason}" if result else "game over")
    elif after.phase == "reveal" and before.phase != "reveal":
        notes.append(f"the game ends without a map ({after.ended}): every player shows disk and map pieces")
    elif (after.current != before.current or after.turns > before.turns) and after.phase in ("start", "play"):
        notes.append(f"{after.player_name}'s turn")
    return notes


__all__ = [
    "Hurricanes",
    "Obligation",
    "SplicePlayer",
    "SpliceView",
    "Stall",
    "narrate",
    "obligation",
    "outcome",
    "pending",
    "to_act",
    "view",
]
