"""Property tests over random playouts of Splice.

Every choice of a playout -- the seats, the options, every shuffle, each move -- is drawn from hypothesis
data, so a failing playout shrinks. Moves come from `SPLICE.legal_moves(state)`, reordered so that the
simplest choice (index 0) makes progress (lay a map, buy, play coins, ...); past `PATIENCE` events a playout
plays index 0, and options keep stalled games short, so every playout ends.

After every event the playout checks what must always hold: every card, map piece and disk is somewhere,
exactly once; the gold shown is what the sets in play are worth; no player holds more than 5 map pieces
when a turn begins; a purchase pays the price with no set to spare. At sampled positions it checks that a
player's view does not change when everything hidden from that player is scrambled.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Union

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tally.core.engine import Table, fold, judge
from tally.core.games.splice import (
    SPLICE,
    CardPicked,
    CoinsPlayed,
    DisksDealt,
    MapLaid,
    MapsBought,
    SetupDealt,
    State,
)
from tally.core.knowledge import Zone
from tally.core.model import SHARED_EVENTS, Event, GameStarted

NAMES = ("ann", "ben", "cal", "dee")
MAX_EVENTS = 3000
PATIENCE = 900
PLAYOUTS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
DECODER = msgspec.json.Decoder(Union[tuple(SHARED_EVENTS) + tuple(SPLICE.events)])  # type: ignore[valid-type]
PRIORITY = {
    "MapLaid": 0,
    "MapsBought": 1,
    "CoinsPlayed": 2,
    "PiracyPlayed": 3,
    "TradePlayed": 4,
    "SkullPlayed": 5,
    "BlackSpotPlayed": 6,
}


# --------------------------------------------------------------------------- independent oracles


def set_value(form: str) -> int:
    return sum(int(part.lstrip("w")) for part in form.split("-"))


def gold_of(forms: tuple[str, ...], doubles: int, stack: bool) -> int:
    total = sum(set_value(f) for f in forms)
    return total * (2**doubles if stack else 2) if doubles else total


def everything(state: State) -> tuple[Counter[str], int]:
    """Known cards everywhere, and how many cards the log does not know."""
    known: Counter[str] = Counter()
    unknown = 0
    for seat in state.players:
        known.update(seat.hand.known)
        unknown += seat.hand.unknown
        for form in seat.sets:
            known.update("wild" if part[0] == "w" else part for part in form.split("-"))
        known["double"] += seat.doubles
        known["spot"] += seat.spots
    for segment in state.pile:
        known.update(segment.known)
        unknown += segment.unknown
    known["hurricane"] += state.centre
    if state.played:
        known[state.played] += 1
    known.update(p for p in state.laid if p[0] == "x")  # wild map pieces of the map laid down
    return +known, unknown


def check_conserved(state: State) -> None:
    if state.phase == "setup":
        return
    known, unknown = everything(state)
    total = sum(state.copies.values())
    assert sum(known.values()) + unknown == total, (known, unknown, total)
    if state.mode == "open":
        assert unknown == 0 and known == Counter(state.copies)
    pieces = (
        [z for seat in state.players for z in (seat.maps,)]
        + list(state.map_pile)
        + [Zone(tuple(p for p in state.laid if p[0] != "x"))]
    )
    assert sum(z.size for z in pieces) == len(state.box.pieces)
    if state.mode == "open":
        assert Counter(p for z in pieces for p in z.known) == Counter(state.box.pieces)
        assert sorted([s.disk for s in state.players] + list(state.unused.known)) == sorted(state.box.colours)  # type: ignore[type-var]
    else:
        assert len(state.players) + state.unused.size == len(state.box.colours)


def check_gold(state: State) -> None:
    view = SPLICE.view(state, None)
    for entry, seat in zip(view.players, state.players):
        assert entry.gold == gold_of(seat.sets, seat.doubles, state.stack)


def check_purchase(before: State, event: MapsBought) -> None:
    paid = gold_of(tuple(event.paid), event.doubles, before.stack)
    price = 20 * event.count
    assert paid >= price
    for i in range(len(event.paid)):
        rest = tuple(event.paid[:i] + event.paid[i + 1 :])
        assert gold_of(rest, event.doubles, before.stack) < price, "a set was not needed"
    if event.doubles:
        assert gold_of(tuple(event.paid), event.doubles - 1, before.stack) < price, "a Double was not needed"
    seat = before.players[before.current]
    left = list(seat.sets)
    for form in event.paid:
        left.remove(form)


def scrambled(state: State, seat: int) -> State:
    """The state with everything `seat` may not see replaced by something else of the same size."""
    players = []
    colours = state.box.colours
    for i, p in enumerate(state.players):
        if i == seat:
            players.append(p)
            continue
        players.append(
            msgspec.structs.replace(
                p,
                hand=Zone(("skull",) * p.hand.known.__len__(), p.hand.unknown),
                maps=Zone(("y4",) * len(p.maps.known), p.maps.unknown),
                disk=colours[(colours.index(p.disk) + 1) % len(colours)]
                if p.disk and not p.revealed and i != state.winner
                else p.disk,
            )
        )
    pile = tuple(Zone(tuple(reversed(z.known)), z.unknown) for z in reversed(state.pile))
    maps = tuple(Zone(tuple(reversed(z.known)), z.unknown) for z in reversed(state.map_pile))
    unused = Zone(tuple(reversed(state.unused.known)), state.unused.unknown)
    return msgspec.structs.replace(state, players=tuple(players), pile=pile, map_pile=maps, unused=unused, fresh=None)


def check_views(state: State) -> None:
    if state.phase == "reveal" or (state.phase == "over" and state.ended != "map" and state.no_map == "most-matching"):
        return  # everyone shows disk and map pieces to decide the game
    for index, name in enumerate(state.seats):
        assert SPLICE.view(state, name) == SPLICE.view(scrambled(state, index), name), name


# --------------------------------------------------------------------------- the playout


def ordered(moves: list[Event]) -> list[Event]:
    return sorted(moves, key=lambda m: PRIORITY.get(type(m).__name__, 9))


def deal_chance(data: st.DataObject, state: State) -> list[Event]:
    events: list[Event] = []
    while piles := SPLICE.shuffles(state):
        shuffled = {name: data.draw(st.permutations(pile), label=name) for name, pile in piles.items()}
        for event in SPLICE.deal(state, shuffled):
            state = SPLICE.apply(state, event)
            events.append(event)
    return events


@st.composite
def games(draw: Any) -> dict[str, Any]:
    seats = draw(st.integers(2, 4))
    options = {
        "hurricanes": draw(st.sampled_from(["1", "2"])),
        "double-stack": draw(st.sampled_from(["no", "yes"])),
        "hand-size": draw(st.sampled_from(["5", "5", "4", "6"])),
        "stall-rounds": draw(st.sampled_from(["3", "8", "20"])),
        "all-bought": draw(st.sampled_from(["end", "play-on"])),
        "no-map": draw(st.sampled_from(["draw", "most-matching"])),
    }
    return {"seats": list(NAMES[:seats]), "options": options}


def playout(data: st.DataObject, setup: dict[str, Any], views: bool = True) -> tuple[list[Event], Table]:
    started = GameStarted(
        seq=1,
        game="splice",
        rules="1",
        seats=setup["seats"],
        mode="open",
        options=SPLICE.resolved_options(setup["options"]),
        manifest=SPLICE.manifest,
    )
    table = Table(SPLICE, started)
    events: list[Event] = [started]

    def step(event: Event) -> None:
        event = msgspec.structs.replace(event, seq=table.last_seq + 1)
        before = table.state
        result = table.step(event)
        assert result.is_legal, (SPLICE.format(event), result.rulings)
        events.append(event)
        state = table.state
        if type(event) is MapsBought:
            check_purchase(before, event)  # type: ignore[arg-type]
        check_conserved(state)
        if state.turns != before.turns and state.phase in ("start", "play"):
            assert all(p.maps.size <= 5 for p in state.players)
        if type(event) is not CardPicked and type(event) is not DisksDealt and type(event) is not SetupDealt:
            assert SPLICE.parse(before, SPLICE.format(event)) == [msgspec.structs.replace(event, seq=0)], SPLICE.format(
                event
            )

    for event in deal_chance(data, table.state):
        step(event)
    count = 0
    while table.state.phase != "over" and len(events) < MAX_EVENTS:
        moves = ordered(SPLICE.legal_moves(table.state))
        assert moves, table.state.phase
        patient = len(events) > PATIENCE
        index = 0 if patient or len(moves) == 1 else data.draw(st.integers(0, len(moves) - 1), label="move")
        step(moves[index])
        count += 1
        if count % 7 == 0:
            check_gold(table.state)
            if views:
                check_views(table.state)
        for event in deal_chance(data, table.state):
            step(event)
    if views:
        check_views(table.state)  # the end shows the winner's disk and map, nothing else hidden
    return events, table


# --------------------------------------------------------------------------- properties


@PLAYOUTS
@given(st.data(), games())
def test_playouts_conserve_cards_pieces_and_disks_and_views_leak_nothing(
    data: st.DataObject, setup: dict[str, Any]
) -> None:
    events, table = playout(data, setup)
    assert table.state.phase == "over", "every playout ends (a map, every piece bought, or a stall)"
    assert SPLICE.outcome(table.state) is not None
    # the log as written reads back to the same events and the same judgement
    lines = [msgspec.json.encode(e) for e in events]
    assert [DECODER.decode(line) for line in lines] == events
    judgement, again = judge(SPLICE, events)
    assert judgement.ok and judgement.warnings == []
    assert again.state == table.state == fold(SPLICE, events).state


@PLAYOUTS
@given(st.data(), games())
def test_table_transcripts_are_legal_with_the_same_outcome(data: st.DataObject, setup: dict[str, Any]) -> None:
    events, table = playout(data, setup, views=False)
    transcript = SPLICE.table_transcript(events)
    judgement, seen = judge(SPLICE, transcript)
    assert judgement.ok, (judgement.failed_seq, judgement.rulings)
    assert SPLICE.outcome(seen.state) == SPLICE.outcome(table.state)
    assert {r.rule for _, r in judgement.warnings} <= {"splice.map.next-turn"}
    assert all(r.verdict == "unverifiable" for _, r in judgement.warnings)
    # what the table cannot see stays unseen, every conservation still holds
    assert not any(e.card for e in transcript if isinstance(e, CardPicked))  # type: ignore[attr-defined]
    state = seen.state
    check_conserved(state)
    hidden = sum(p.hand.unknown for p in state.players) + sum(s.unknown for s in state.pile)
    assert hidden > 0 or state.phase == "over"
    for e in transcript:
        if isinstance(e, (CoinsPlayed, MapLaid)):
            assert e.player in setup["seats"]


@settings(max_examples=30, deadline=None)
@given(st.data(), games())
def test_chance_and_undo_leave_no_trace(data: st.DataObject, setup: dict[str, Any]) -> None:
    """Voiding the last move restores the position exactly; chance tally dealt cannot be voided."""
    started = GameStarted(
        seq=1,
        game="splice",
        rules="1",
        seats=setup["seats"],
        mode="table",
        options=SPLICE.resolved_options(setup["options"]),
        manifest=SPLICE.manifest,
    )
    table = Table(SPLICE, started)
    from tally.core.model import Voided

    for _ in range(data.draw(st.integers(2, 40), label="moves")):
        moves = SPLICE.legal_moves(table.state)
        if not moves:
            break
        before = table.state
        move = moves[data.draw(st.integers(0, len(moves) - 1), label="move")]
        assert table.step(msgspec.structs.replace(move, seq=table.last_seq + 1)).is_legal
        if data.draw(st.booleans(), label="undo"):
            assert table.step(Voided(seq=table.last_seq + 1, target=table.last_effective_seq, reason="typo")).is_legal
            assert table.state == before
            assert table.step(msgspec.structs.replace(move, seq=table.last_seq + 1)).is_legal


def test_long_random_games_meet_every_interrupt_and_keep_every_invariant() -> None:
    """Seeded random games (`tally simulate`'s playouts, uniform over the legal moves) reach every kind of
    Hurricane, the map limit, Skulls, blind draws and Piracy; every position keeps the invariants."""
    import random

    from tally.store.recording.simulate import playout as simulated

    seen: Counter[str] = Counter()
    for index in range(8):
        events, state = simulated("splice", 2 + index % 3, random.Random(f"props:{index}"), {"hurricanes": "2"})
        table = Table(SPLICE, events[0])  # type: ignore[arg-type]
        for event in events[1:]:
            before = table.state
            table.apply(event)
            after = table.state
            check_conserved(after)
            if after.centre > before.centre:
                seen[f"hurricane:{after.storm}"] += 1
            if after.phase == "maps":
                seen["map limit"] += 1
            seen[type(event).__name__] += 1
            if type(event) is MapsBought:
                check_purchase(before, event)  # type: ignore[arg-type]
        assert state.phase == "over"
        seen[f"ended:{state.ended}"] += 1
    for wanted in (
        "hurricane:start",
        "hurricane:refill",
        "hurricane:skull",
        "hurricane:deal",
        "hurricane:replace",
        "map limit",
        "SkullPlayed",
        "BlindDrawn",
        "PiracyPlayed",
        "TradePlayed",
        "BlackSpotPlayed",
        "MapLaid",
        "MapsReturned",
    ):
        assert seen[wanted], (wanted, seen)
