"""Property tests over random playouts of Array.

Every choice of a playout -- the seat count, the options, each round's shuffle, each move, each undo -- is drawn
from hypothesis data, so a failing playout shrinks to a short one. Moves are picked from `ARRAY.legal_moves`,
whose first entries lay cards (Splice 1 first, then Splice 2 before `done`), so the simplest choice (index 0)
makes progress and shrunk playouts end. The table-mode variant of each playout is its transcript (what a
recorder who cannot see the hands logs), judged from scratch.

The properties: cards are conserved; every join joins two segments of the same colour, both ways; every array
is connected (a tree: one join fewer than cards); a slice leaves exactly one array more, its two sides apart;
the scores equal an independent recomputation from the events; views leak no hidden card; every listed move
is legal and reads back from its notation; a transcript is judged with the same outcome; undo restores.
"""

from __future__ import annotations

import random
from collections import Counter

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tally.core.engine import Table, judge
from tally.core.games.array import (
    ARRAY,
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    RoundDealt,
    Sliced,
    State,
    TurnPassed,
    arrays,
    is_action,
    points,
)
from tally.core.model import Event, GameStarted, Voided
from tally.store.record import start_event

PLAYOUTS = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])
OPTIONS = st.sampled_from([
    {},
    {"threshold": "50"},
    {"threshold": "200"},
    {"end": "hands", "hands": "2"},
    {"end": "time"},
    {"blocked": "all-score", "threshold": "50"},
])
MAX_EVENTS = 4000


class Playout:
    """One game played from hypothesis data: the events (open mode) and the states after each."""

    def __init__(self, data: st.DataObject):
        self.data = data
        seats = data.draw(st.integers(2, 5), label="seats")
        options = data.draw(OPTIONS, label="options")
        _, self.started = start_event("array", ["ann", "ben", "cy", "dee", "eve"][:seats], options, "open")
        self.rng = data.draw(st.randoms(use_true_random=False), label="shuffles")
        self.table = Table(ARRAY, msgspec.structs.replace(self.started, seq=1))
        self.events: list[Event] = [self.table.started]
        self.states: list[State] = [self.table.state]
        self.play()

    def push(self, event: Event) -> None:
        event = msgspec.structs.replace(event, seq=len(self.events) + 1)
        assert not [r for r in self.table.check(event) if r.verdict != "legal"], (ARRAY.format(event), self.table.check(event))
        self.table.apply(event)
        self.events.append(event)
        self.states.append(self.table.state)

    def deal(self) -> None:
        while piles := ARRAY.shuffles(self.table.state):
            shuffled = {name: self.rng.sample(pile, len(pile)) for name, pile in piles.items()}
            for event in ARRAY.deal(self.table.state, shuffled):
                self.push(event)

    def play(self) -> None:
        self.deal()
        while len(self.events) < MAX_EVENTS:
            moves = ARRAY.legal_moves(self.table.state)
            if not moves:
                break
            patient = len(self.events) > 1500  # random play ends, but shrinking likes short games
            index = 0 if patient else self.data.draw(st.integers(0, len(moves) - 1), label="move")
            self.push(moves[index])
            self.deal()
        assert self.table.state.phase == "over", "a playout must end"


def playouts() -> st.SearchStrategy[Playout]:
    return st.builds(Playout, st.data())


# --------------------------------------------------------------------------- the table


def check_table(state: State) -> None:
    """Joins are symmetric and of equal colours; arrays partition the cards and are trees."""
    joined = 0
    for number, (code, links) in enumerate(zip(state.placed, state.links), 1):
        assert len(code) == len(links) and not is_action(code)
        for colour, other in zip(code, links):
            if other:
                joined += 1
                other_code = state.placed[other - 1]
                assert colour in other_code, (number, other, colour)
                assert state.links[other - 1][other_code.index(colour)] == number, "a join is seen from both cards"
    groups = arrays(state)
    cards = sorted(n for group in groups for n in group)
    assert cards == list(range(1, len(state.placed) + 1))
    assert joined // 2 == len(state.placed) - len(groups), "every array is a tree: one join fewer than its cards"
    for group in groups:
        members = set(group)
        for n in group:
            assert all(other in members for other in state.links[n - 1] if other)


def conserved(state: State) -> None:
    """Every card of the box is somewhere, once: hands, table, given, deck (open), or shown."""
    if state.phase in ("deal", "over"):
        return
    if state.mode == "open":
        where = Counter(state.placed) + Counter(state.played) + Counter(state.deck)
        for zone in state.hands:
            where.update(zone.known)
        for cards in state.left:
            where.update(cards)
        assert where == Counter(state.box.cards())
    total = sum(z.size for z in state.hands) + len(state.placed) + len(state.played) + state.deck_size
    total += sum(len(cards) for cards in state.left)
    assert total == state.box.total


@PLAYOUTS
@given(playouts())
def test_cards_are_conserved_and_joins_match_and_arrays_are_trees(game: Playout) -> None:
    for state in game.states:
        conserved(state)
        check_table(state)


@PLAYOUTS
@given(playouts())
def test_a_slice_yields_exactly_two_arrays(game: Playout) -> None:
    for before, event, after in zip(game.states, game.events[1:], game.states[1:]):
        if type(event) is not Sliced or after.round != before.round or len(after.results) != len(before.results):
            continue
        a, b = event.cut
        assert len(arrays(after)) == len(arrays(before)) + 1
        side = {n: i for i, group in enumerate(arrays(after)) for n in group}
        assert side[a] != side[b], "the cut leaves its two cards in two arrays"
        first = len(before.placed) + 1
        assert side[first] == side[a] and side[first + 1] == side[b]


def test_random_games_slice_and_each_slice_makes_one_more_array() -> None:
    # the property above, on fixed seeds, must actually see slices
    from tally.store.simulate import playout

    seen = 0
    for index in range(6):
        events, _ = playout("array", 2 + index % 4, random.Random(f"slices:{index}"))
        table = Table(ARRAY, events[0])  # type: ignore[arg-type]
        for event in events[1:]:
            before = table.state
            table.apply(event)
            if type(event) is Sliced and table.state.round == before.round and table.state.results == before.results:
                seen += 1
                assert len(arrays(table.state)) == len(arrays(before)) + 1
    assert seen >= 20, seen


def walk(game: list[Event], states: list[State]) -> tuple[dict[str, int], list[dict[str, int]]]:
    """Recompute every round's points from the events (the reducer's states only say who plays the next round)."""
    started = game[0]
    assert isinstance(started, GameStarted)
    options = ARRAY.resolved_options(started.options)
    seats = list(started.seats)
    table_mode = started.mode == "table"
    totals = dict.fromkeys(seats, 0)
    rounds: list[dict[str, int]] = []
    playing = list(seats)
    hands: dict[str, list[str]] = {p: [] for p in seats}
    sizes: dict[str, int] = {p: 7 if table_mode else 0 for p in seats}
    slams: dict[str, int] = {}
    shown: dict[str, list[str]] = {p: [] for p in seats}
    passes = 0
    ending: str | None = ""  # "" while the round runs; a name (went out) or None (blocked) once it is over

    def score() -> None:
        nonlocal ending, passes
        left = {p: (shown[p] if table_mode else hands[p]) for p in playing}
        value = {p: sum(points(c) for c in left[p]) for p in playing}
        low = min(value.values())
        scored = {}
        for p in playing:
            free = ending is None and options["blocked"] == "lowest-free" and value[p] == low
            scored[p] = (0 if free else value[p]) + slams.get(p, 0)
            totals[p] += scored[p]
        rounds.append(scored)
        ending, passes = "", 0
        slams.clear()

    for index, event in enumerate(game[1:], 1):
        kind = type(event)
        who = getattr(event, "player", None)
        if kind is RoundDealt:
            for p, cards in event.hands.items():
                hands[p] = list(cards)
                sizes[p] = 7
        elif kind is CardSpliced:
            sizes[who] -= 1
            if not table_mode:
                hands[who].remove(event.card)
        elif kind is Sliced:
            sizes[who] -= 2
            if not table_mode:
                for card in event.cards:
                    hands[who].remove(card)
        elif kind is CardDrawn:
            sizes[who] += 1
            if event.card:
                hands[who].append(event.card)
        elif kind is ActionGiven:
            sizes[who] -= 1
            if not table_mode:
                hands[who].remove(event.card)
            if event.card == "slam":
                slams[event.target] = slams.get(event.target, 0) + 10
            else:
                picked = min(int(event.card[1]), states[index - 1].deck_size)
                sizes[event.target] += picked
                hands[event.target].extend(event.drawn)
        elif kind is CardShown:
            shown[who].append(event.card)
            sizes[who] -= 1
        if kind is TurnPassed:
            passes += 1
        elif kind in (CardSpliced, Sliced, CardDrawn, ActionGiven):
            passes = 0
        if ending == "" and who is not None and kind is not CardShown:
            if sizes[who] == 0:
                ending = who
            elif passes >= len(playing):
                ending = None
        if ending != "" and (not table_mode or all(sizes[p] == 0 or p == ending for p in playing)):
            score()
            after = states[index]
            playing = [after.seats[s] for s in after.playing]
            for p in seats:
                hands[p], shown[p] = [], []
                sizes[p] = 7 if table_mode and p in playing else 0
    return totals, rounds


@PLAYOUTS
@given(playouts())
def test_scores_equal_a_recomputation_from_the_events(game: Playout) -> None:
    outcome = ARRAY.outcome(game.table.state)
    assert outcome is not None
    for events, states in ((game.events, game.states), transcript_and_states(game.events)):
        totals, rounds = walk(events, states)
        assert totals == outcome.scores
        assert rounds == outcome.details["round_points"]
        final = states[-1]
        winner = outcome.winners[0]
        threshold = final.threshold
        if outcome.details["ended"] == "last-standing":
            assert totals[winner] < threshold and sum(1 for t in totals.values() if t < threshold) == 1
        elif outcome.details["ended"] == "all-crossed":
            last = final.results[-1]
            assert all(totals[final.seats[s]] >= threshold for s in last.playing)
            assert totals[winner] == min(totals[final.seats[s]] for s in last.playing)


def transcript_and_states(events: list[Event]) -> tuple[list[Event], list[State]]:
    transcript = ARRAY.table_transcript(events)
    stamped = [msgspec.structs.replace(e, seq=i) for i, e in enumerate(transcript, 1)]
    table = Table(ARRAY, stamped[0])  # type: ignore[arg-type]
    states = [table.state]
    for event in stamped[1:]:
        assert not [r for r in table.check(event) if r.verdict == "illegal"], (ARRAY.format(event), table.check(event))
        table.apply(event)
        states.append(table.state)
    return stamped, states


@PLAYOUTS
@given(playouts())
def test_the_table_transcript_is_judged_legal_with_the_same_outcome(game: Playout) -> None:
    events, states = transcript_and_states(game.events)
    judgement, table = judge(ARRAY, events)
    assert judgement.ok, judgement
    assert ARRAY.outcome(table.state) == ARRAY.outcome(game.table.state)
    assert {r.rule for _, r in judgement.warnings} <= {"array.draw.only-if-stuck", "array.first.draw"}
    for state in states:
        conserved(state)
        check_table(state)
        assert all(not zone.known for zone in state.hands), "table mode never knows a hand"


@PLAYOUTS
@given(playouts(), st.data())
def test_views_leak_no_hidden_card_and_listed_moves_are_legal_and_read_back(game: Playout, data: st.DataObject) -> None:
    picks = data.draw(st.lists(st.integers(0, len(game.states) - 1), min_size=1, max_size=12), label="positions")
    for index in picks:
        state = game.states[index]
        for seat, name in enumerate(state.seats):
            view = ARRAY.view(state, name)
            for other, entry in enumerate(view.players):
                if other != seat:
                    assert set(entry.hand) <= {"?"}, "another player's hand is hidden"
                else:
                    assert entry.hand == list(state.hands[seat].known)
        table = Table.resume(ARRAY, game.table.started, state, index + 1)
        for move in ARRAY.legal_moves(state):
            assert not [r for r in table.check(move) if r.verdict == "illegal"]
            parsed = ARRAY.parse(state, ARRAY.format(move))
            assert parsed == [move], (ARRAY.format(move), parsed)


@PLAYOUTS
@given(playouts(), st.data())
def test_undo_restores_the_state_before_the_voided_event(game: Playout, data: st.DataObject) -> None:
    index = data.draw(st.integers(1, len(game.events) - 1), label="voided")
    table = Table(ARRAY, game.events[0])  # type: ignore[arg-type]
    for event in game.events[1 : index + 1]:
        table.apply(event)
    event = game.events[index]
    void = Voided(seq=index + 1, target=event.seq, reason="recorded by mistake")
    rulings = table.check(void)
    if type(event) is RoundDealt:
        assert [r.rule for r in rulings] == ["core.void.dealt"]
        return
    assert rulings == []
    table.apply(void)
    assert table.state == game.states[index - 1]


def test_a_simulated_playout_is_reproducible() -> None:
    from tally.store.simulate import playout

    first, state = playout("array", 3, random.Random("same"))
    again, _ = playout("array", 3, random.Random("same"))
    assert first == again and ARRAY.outcome(state) is not None


@PLAYOUTS
@given(playouts())
def test_every_state_survives_the_state_cache_and_every_view_is_json(game: Playout) -> None:
    import json

    for state in game.states[:: max(1, len(game.states) // 40)]:
        assert msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=State) == state
        json.dumps(msgspec.to_builtins(ARRAY.view(state, None)))
        json.dumps(msgspec.to_builtins(ARRAY.view(state, state.seats[0])))
