"""Property tests over random playouts of Array.

Every choice of a playout -- the seat count, the options, each round's shuffle, each move, each undo -- is drawn
from hypothesis data, so a failing playout shrinks to a short one. Moves are picked from `ARRAY.legal_moves`,
whose first entries lay cards (Splice 1 first, then Splice 2 before `done`), so the simplest choice (index 0)
makes progress and shrunk playouts end. The table-mode variant of each playout is its transcript (what a
recorder who cannot see the hands logs), judged from scratch.

The properties: cards are conserved; every join joins two segments of the same colour, both ways; every array
is connected (a tree: one join fewer than cards); a slice leaves exactly one array more, its two sides apart;
the scores equal an independent recomputation from the events; views leak no hidden card; every listed move
is legal and reads back from its notation; a transcript is judged with the same outcome; undo restores. And in
table mode, over random positions of random boxes, a draw by a hand the log has not seen is judged as a brute force
over every hand it may be judges it.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, combinations_with_replacement
from math import comb

import hypothesis
import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.array_helpers import Game
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
    TimeCalled,
    TurnEnded,
    TurnPassed,
    arrays,
    is_action,
    points,
)
from tally.core.games.array.components import ACTIONS, MIN_COLOUR_CARDS, check_manifest
from tally.core.games.array.state import (
    colours_on_table,
    joins,
    open_colours,
    open_segments,
    packing,
    unlocated_copies,
)
from tally.core.knowledge import Zone
from tally.core.model import Event, GameStarted, Voided
from tally.store.recording.record import start_event

PLAYOUTS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
OPTIONS = st.sampled_from(
    [
        {},
        {"threshold": "50"},
        {"threshold": "200"},
        {"end": "hands", "hands": "2"},
        {"end": "time"},
        {"blocked": "all-score", "threshold": "50"},
    ]
)
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
        assert not [r for r in self.table.check(event) if r.verdict != "legal"], (
            ARRAY.format(event),
            self.table.check(event),
        )
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
    from tally.store.recording.simulate import playout

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
    from tally.store.recording.simulate import playout

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


# --------------------------------------------------------------------------- table mode: a draw by an unseen hand
#
# Random table-mode games of random boxes the game accepts, played by a recorder who names every card laid or given
# (a copy the log has not located) and lets players draw where the guard allows it. At the end the player to act
# holds `unseen` cards the log has not seen, each a different unlocated copy. The brute force tries every hand of
# that many unlocated copies (each code at most its unlocated copies), gives it to the player in full, and asks the
# game's own listing (`ARRAY.legal_moves`) whether that hand has a move besides the draw or pass: the guard must
# call the draw illegal when every such hand has a move, legal (no ruling) when none has, unverifiable otherwise.
# The boxes are small (few kinds of card, many copies), so that the hands are few enough to try them all.

UNSEEN_HANDS = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
LETTERS = "abcdefghijklmnopqrtuvwxyz"  # s names Splatter cards
MOVES = (4, 3, 6, 2, 9, 1, 14, 0)  # events recorded after the starting card: few leave more copies without a move
HANDS = 2500  # hands the brute force tries at most: a hand size with more is lowered until it has no more


@st.composite
def boxes(draw: st.DrawFn) -> dict[str, object]:
    """A manifest the game accepts: 2-8 colours (any letters but s), 1-8 kinds of colour card with 2-4 colours each,
    copies so that the box holds the 36 colour cards a deal needs, and 0-2 kinds of action card. Cards of two
    colours are likeliest: the table then leaves more copies without a move."""
    size = draw(st.sampled_from([5, 5, 4, 6, 6, 3, 7, 8, 2]), label="colour count")
    colours = draw(st.lists(st.sampled_from(LETTERS), min_size=size, max_size=size, unique=True), label="colours")

    def code(letters: list[str]) -> str:
        return "".join(sorted(letters, key=colours.index))

    # often every card shares one colour, the hub: a card laid on the hub closes it, and the cards left with it
    # and no open colour give no move alone, but two of them slice
    hub = colours[:1] if size > 2 and draw(st.sampled_from([False, False, True]), label="hub") else []
    others = [colour for colour in colours if colour not in hub]
    possible = sum(comb(len(others), n - len(hub)) for n in (2, 3, 4))
    kinds = min(possible, draw(st.sampled_from([6, 5, 7, 4, 8, 3, 2, 1]), label="kinds"))
    codes = draw(
        st.lists(
            st.sampled_from([2, 2, 2, 3, 3, 4])
            .flatmap(
                lambda n: st.lists(
                    st.sampled_from(others),
                    min_size=min(n, size) - len(hub),
                    max_size=min(n, size) - len(hub),
                    unique=True,
                )
            )
            .map(lambda letters: code(hub + letters)),
            min_size=kinds,
            max_size=kinds,
            unique=True,
        ),
        label="codes",
    )
    copies = draw(st.lists(st.integers(1, 30), min_size=len(codes), max_size=len(codes)), label="copies")
    for index in range(MIN_COLOUR_CARDS - sum(copies)):  # the cards a deal needs, spread over the kinds
        copies[index % len(copies)] += 1
    actions = draw(st.lists(st.sampled_from(ACTIONS), max_size=2, unique=True), label="actions")
    cards = dict(zip(codes, copies))
    cards.update({code: draw(st.integers(1, 3), label=code) for code in actions})
    manifest = {"id": "drawn", "colours": {letter: f"colour-{letter}" for letter in colours}, "cards": cards}
    assert check_manifest(manifest) == [], check_manifest(manifest)
    return manifest


def candidates(state: State) -> list[Event]:
    """What a recorder might enter now: every card the log has not located laid on every open segment of its
    colour, slices with two such cards, action cards given, the end of a move, the draw or pass."""
    who = state.player_name
    pool = unlocated_copies(state)
    colour_cards = [card for card in pool if card not in ACTIONS]
    found: list[Event] = []
    if state.phase == "splice":
        found += [
            CardSpliced(player=who, card=card, to=anchor, colour=colour)
            for anchor in state.anchors
            for colour in open_colours(state, anchor)
            for card in colour_cards
            if colour in card
        ]
        return found + [TurnEnded(player=who)]
    found += [
        CardSpliced(player=who, card=card, to=number, colour=colour)
        for number, colour in open_segments(state)
        for card in colour_cards
        if colour in card
    ]
    if state.first_done:
        for a, b, colour in joins(state):
            holders = [card for card in colour_cards if colour in card]
            found += [
                Sliced(player=who, cut=[a, b], cards=[x, y]) for x in holders for y in holders if x != y or pool[x] >= 2
            ]
        others = [state.seats[s] for s in state.playing if s != state.current]
        found += [
            ActionGiven(player=who, card=card, target=other) for card in pool if card in ACTIONS for other in others
        ]
    found.append(CardDrawn(player=who) if state.deck_size else TurnPassed(player=who))
    return found


def position(data: st.DataObject) -> Game:
    """A random table-mode position of a random box, the player to act in the middle of a round's turn."""
    manifest = data.draw(boxes(), label="box")
    seats = data.draw(st.integers(2, 4), label="seats")
    game = Game(("ann", "ben", "cy", "dee")[:seats], "table", manifest=manifest)
    pool = unlocated_copies(game.state)
    starters = [card for card in pool if card not in ACTIONS]
    shared = set(game.state.box.colours).intersection(*starters)  # the colours on every colour card
    game.do(f"start {data.draw(st.sampled_from(starters), label='starting card')}")
    for _ in range(data.draw(st.sampled_from(MOVES), label="moves")):
        allowed = [
            event
            for event in candidates(game.state)
            if not any(r.verdict == "illegal" for r in game.table.check(msgspec.structs.replace(event, seq=game.seq)))
        ]
        if not allowed:
            break
        # often a move ended after Splice 1, and a card laid on the last open segment of its colour, opening no
        # colour the table lacks (a colour on every card of the box, likeliest): the colour is then only joined,
        # and the copies with it and no open colour give no move alone, but two of them slice
        segments = Counter(colour for _, colour in open_segments(game.state))
        lays = [event for event in allowed if isinstance(event, CardSpliced)]
        closing = [lay for lay in lays if segments[lay.colour] == 1]
        tidy = [lay for lay in closing if set(lay.card) - {lay.colour} <= set(segments)]
        hub = [lay for lay in closing if lay.colour in shared]
        if game.state.phase == "splice" and data.draw(st.sampled_from([True, True, False]), label="done"):
            allowed = [TurnEnded(player=game.state.player_name)]
        elif closing and data.draw(st.sampled_from([True, True, False]), label="closing"):
            allowed = data.draw(st.sampled_from([group for group in (tidy, hub, closing) if group]), label="which")
        game.do(data.draw(st.sampled_from(allowed), label="move"))
        if game.state.phase not in ("play", "splice"):
            break
    if game.state.phase == "splice":
        game.do("done")
    return game


def hands(pool: dict[str, int], size: int) -> list[tuple[str, ...]]:
    """Every hand of `size` copies of `pool` (each code at most its copies), each once, in a fixed order."""
    codes = sorted(pool)
    found: list[tuple[str, ...]] = []

    def extend(index: int, left: int, hand: tuple[str, ...]) -> None:
        if left == 0:
            found.append(hand)
            return
        if index == len(codes):
            return
        code = codes[index]
        for n in range(min(left, pool[code]), -1, -1):
            extend(index + 1, left - n, hand + (code,) * n)

    extend(0, size, ())
    return found


def moves_with(state: State, known: tuple[str, ...], hand: tuple[str, ...]) -> bool:
    """Whether the player to act, holding exactly `known` and `hand`, has a move other than the draw or pass:
    the game's own listing of a hand it sees in full."""
    seen = msgspec.structs.replace(
        state,
        hands=tuple(Zone(known + hand, 0) if seat == state.current else zone for seat, zone in enumerate(state.hands)),
    )
    return any(type(move) not in (CardDrawn, TurnPassed, TimeCalled) for move in ARRAY.legal_moves(seen))


def brute_verdict(state: State) -> str:
    """The verdict every hand the player may hold gives: illegal (each has a move), legal (none has) or
    unverifiable (some have, some do not)."""
    hand = state.hand
    moving = stuck = False
    for cards in hands(unlocated_copies(state), hand.unknown):
        if moves_with(state, hand.known, cards):
            moving = True
        else:
            stuck = True
        if moving and stuck:
            return "unverifiable"
    return "illegal" if not stuck else "legal"


def verdict(state: State) -> str:
    """The guard's verdict on the draw (the pass, the pickup deck empty) of the player to act."""
    event = CardDrawn(player=state.player_name) if state.deck_size else TurnPassed(player=state.player_name)
    rulings = [r for r in ARRAY.check(state, event) if r.rule in ("array.draw.only-if-stuck", "array.first.draw")]
    assert len(rulings) <= 1, rulings
    return rulings[0].verdict if rulings else "legal"


def holding(state: State, known: tuple[str, ...], unseen: int) -> State:
    """The position with the player to act holding `known` and `unseen` cards the log has not seen."""
    return msgspec.structs.replace(
        state,
        hands=tuple(Zone(known, unseen) if seat == state.current else zone for seat, zone in enumerate(state.hands)),
    )


def judged(state: State) -> None:
    """The guard's verdict on the draw or pass is the brute force's, and the listing offers it unless illegal."""
    expected = brute_verdict(state)
    pool = unlocated_copies(state)
    idle = [card for card in pool if not moves_with(state, state.hand.known, (card,))]
    clash = any(
        moves_with(state, state.hand.known, (x, y))
        for x, y in combinations_with_replacement(idle, 2)
        if x != y or pool[x] >= 2
    )
    hypothesis.event(f"{expected}, {'two copies giving no move alone may slice' if clash else 'no two slice'}")
    assert verdict(state) == expected, (state.placed, state.links, state.hand, unlocated_copies(state), expected)
    listed = [move for move in ARRAY.legal_moves(state) if type(move) in (CardDrawn, TurnPassed)]
    assert bool(listed) == (expected != "illegal"), "the listing offers the draw or pass exactly when it may be right"


def largest_stuck(state: State, cap: int) -> int:
    """The most unlocated copies a hand without a move (by the game's listing) holds beside the known cards, `cap`
    at most. It only picks the hand sizes to try, where the verdict turns, so it grows only hands without a move (a
    card more never takes a move away); the verdict at a size is still the brute force's over every hand."""
    pool = unlocated_copies(state)
    codes = sorted(pool)
    best = 0

    def grow(index: int, hand: tuple[str, ...]) -> None:
        nonlocal best
        best = max(best, len(hand))
        for at in range(index, len(codes)):
            code = codes[at]
            if best < cap and hand.count(code) < pool[code] and not moves_with(state, state.hand.known, hand + (code,)):
                grow(at, hand + (code,))

    grow(0, ())
    return best


@UNSEEN_HANDS
@given(st.data())
def test_a_draw_by_an_unseen_hand_is_judged_as_every_hand_it_may_be_would_judge_it(data: st.DataObject) -> None:
    game = position(data)
    state = game.state
    if state.phase != "play":
        return
    # a hand the log knows in part (a seat's own cards, say) or not at all; the known cards give no move alone
    pool = unlocated_copies(state)
    size = data.draw(st.sampled_from([0, 0, 1, 2]), label="known cards")
    known = data.draw(st.sampled_from(hands(pool, size) or [()]), label="known")
    if moves_with(state, known, ()):
        known = ()
    state = holding(state, known, 0)
    pool = unlocated_copies(state)
    # the hand the player holds, or one of another size (draws and Splatters could have made it): the sizes where
    # the verdict turns, the largest hand without a move and one card more, likeliest
    most = largest_stuck(state, 9)
    # steered to positions where the copies that give no move alone carry many sets of colours of joins (none
    # open): which of them a hand without a move may hold together is then a question
    open_, joined = colours_on_table(state)
    closed = joined - open_
    carried = {frozenset(closed.intersection(card)) for card in pool if not moves_with(state, known, (card,))}
    hypothesis.target(float(len(carried - {frozenset()})), label="sets of joined colours on copies giving no move")
    sizes = [game.state.hand.unknown, 1, 2, 3, most, most, most + 1, most + 1]
    unseen = min(data.draw(st.sampled_from(sizes), label="unseen"), sum(pool.values()))
    while unseen and len(hands(pool, unseen)) > HANDS:
        unseen -= 1
    judged(holding(state, known, unseen))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.integers(1, 255), st.integers(1, 3), max_size=9))
def test_packing_is_the_most_cards_that_pairwise_share_no_joined_colour(masks: dict[int, int]) -> None:
    # the joined colours of each kind of card as bits of 8 colours, with its copies: two copies of a kind share
    # its colours, so a packing holds each kind at most once
    kinds = list(masks)
    best = max(
        len(chosen)
        for size in range(len(kinds) + 1)
        for chosen in combinations(kinds, size)
        if all(not a & b for a, b in combinations(chosen, 2))
    )
    assert packing(masks) == best


def test_the_brute_force_tries_every_hand_of_unlocated_copies_once() -> None:
    found = hands({"ab": 2, "bc": 1, "s1": 3}, 3)
    assert len(found) == len(set(found)) == 6  # (ab ab bc) (ab ab s1) (ab bc s1) (ab s1 s1) (bc s1 s1) (s1 s1 s1)
    assert all(len(hand) == 3 for hand in found)
    assert {hand for hand in combinations(("ab", "ab", "bc", "s1", "s1", "s1"), 3)} == set(found)
