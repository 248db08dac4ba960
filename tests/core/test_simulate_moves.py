"""A playout's moves are built alone (`pick_move`) and applied unjudged: both are proved here for every game.

`pick_move(state, below)` must be `legal_moves(state)[below(n)]` for the n legal moves, drawing once, so the same
seed writes the same logs as drawing from the full list; a playout applied on trust must be the game the
referee judges, move by move, to the same final state; and a game's own playout (`play_drawn`, Splendor's folded
in place) must be the kernel's: the same events and final state from the same draws."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest

from tally.core.engine import judge, play_drawn, playout
from tally.core.model import Event
from tally.store.recording.service import shuffler, start_event

# (game, players, options): every game, and Splendor under each option that changes what is legal
TABLES = [
    ("splendor", 2, {}),
    ("splendor", 3, {"take-fewer": "always"}),
    ("splendor", 4, {"take-fewer": "never"}),
    ("splendor", 2, {"stuck": "end", "target": "30"}),
    ("splendor", 3, {"target": "5"}),
    ("split", 2, {}),
    ("split", 5, {}),
    ("array", 2, {}),
    ("array", 4, {}),
    ("array", 3, {"end": "time"}),
    ("splice", 2, {}),
    ("splice", 4, {}),
]
PLAYOUTS = {"splendor": 12, "split": 2, "array": 3, "splice": 2}
LIMIT = 1500  # a Splice playout runs to thousands of events: its first part says as much as the whole


def played(game: str, players: int, options: dict[str, str], seed: str) -> tuple[Any, list[Event], Any]:
    spec, started = start_event(game, [f"p{i + 1}" for i in range(players)], options, "open")
    rng = random.Random(seed)
    events, state = play_drawn(spec, started, rng.randrange, shuffler(rng), LIMIT)
    return spec, events, state


def picked(spec: Any, state: Any, index: int) -> tuple[Event | None, list[int]]:
    """What `pick_move` builds when the draw is `index`, and the counts it drew under."""
    draws: list[int] = []

    def below(count: int) -> int:
        draws.append(count)
        return index

    return spec.pick_move(state, below), draws


@pytest.mark.parametrize("game, players, options", TABLES)
def test_pick_move_builds_the_legal_move_at_the_drawn_index(game: str, players: int, options: dict[str, str]) -> None:
    states = 0
    for seed in range(PLAYOUTS[game]):
        spec, events, _ = played(game, players, options, f"pick:{game}:{players}:{seed}")
        state = spec.start(events[0])
        for event in events[1:]:
            state = spec.apply(state, event)
            legal = spec.legal_moves(state)
            if not legal:
                assert picked(spec, state, 0) == (None, [])
                continue
            for index in range(len(legal)):
                assert picked(spec, state, index) == (legal[index], [len(legal)]), (seed, event.seq, index)
            states += 1
    assert states > 50


@pytest.mark.parametrize("game, players, options", TABLES)
def test_a_playout_applied_on_trust_is_the_game_the_referee_judges(
    game: str, players: int, options: dict[str, str]
) -> None:
    for seed in range(min(PLAYOUTS[game], 4)):
        spec, events, state = played(game, players, options, f"trust:{game}:{players}:{seed}")
        numbered = [msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(events, 1)]
        judgement, table = judge(spec, numbered)
        assert judgement.ok, (seed, judgement.failed_seq, judgement.rulings)
        assert judgement.events == len(events)
        assert table.state == state


def test_splendor_playouts_reach_every_kind_of_move() -> None:
    """The counted path is exercised: takes of each size, reserves face up and blind, buys and returns."""
    kinds: set[str] = set()
    for seed in range(PLAYOUTS["splendor"]):
        for players, options in ((2, {}), (3, {"take-fewer": "always"})):
            _, events, _ = played("splendor", players, options, f"kinds:{seed}")
            for event in events:
                name = type(event).__name__
                if name == "GemsTaken":
                    name += f"{len(event.gems)}{'=' if len(event.gems) == 2 == len(set(event.gems)) * 2 else ''}"
                if name == "CardReserved":
                    name += "blind" if event.level else "up"
                kinds.add(name)
    assert {
        "GemsTaken3",
        "GemsTaken2=",
        "GemsTaken1",
        "GemsTaken2",
        "CardReservedup",
        "CardReservedblind",
        "CardBought",
        "TokensReturned",
    } <= kinds, kinds


def both_playouts(game: str, players: int, options: dict[str, str], seed: str, limit: int) -> tuple[Any, Any]:
    """The game's own playout and the kernel's from the same draws: (events, final state, the next draw) of each."""
    spec, started = start_event(game, [f"p{i + 1}" for i in range(players)], options, "open")
    results = []
    for play in (playout, play_drawn):  # the game's own where it has one (`spec.play_drawn`), and the kernel's loop
        rng = random.Random(seed)
        events, state = play(spec, started, rng.randrange, shuffler(rng), limit)
        results.append((events, state, rng.random()))
    return results[0], results[1]


@pytest.mark.parametrize("game, players, options", TABLES)
def test_a_games_own_playout_is_the_kernels(game: str, players: int, options: dict[str, str]) -> None:
    for seed in range(PLAYOUTS[game]):
        for limit in (LIMIT, 40 + 7 * seed):  # to the end, and cut off anywhere in the game
            own, kernels = both_playouts(game, players, options, f"own:{game}:{players}:{seed}", limit)
            assert own == kernels, (seed, limit)


def test_splendor_playouts_hand_the_rare_turns_to_the_kernel() -> None:
    """Splendor's own playout gives a pass, a choice of nobles and the end to the kernel's draw and reducer, and
    goes on from the state they leave: the sample holds each, and each playout is the kernel's."""
    kinds: set[str] = set()
    for seed in range(12):
        own, kernels = both_playouts("splendor", 4, {"take-fewer": "never"}, f"rare:{seed}", LIMIT)
        assert own == kernels, seed
        kinds.update(type(event).__name__ for event in own[0])
        kinds.add(own[1].ended)
    assert {"TurnPassed", "NobleChosen", "target"} <= kinds, kinds


@pytest.mark.parametrize("players, options", [(2, {}), (4, {}), (3, {"end": "time"})])
def test_array_segments_followed_move_by_move_are_the_tables(players: int, options: dict[str, str]) -> None:
    """Array's playout keeps the open segments and joins (`Segments`) from move to move: after every event of whole
    playouts, slices and new rounds among them, what it kept is what a walk of the table finds."""
    from tally.core.games.array.moves import Segments

    kinds: set[str] = set()
    for seed in range(PLAYOUTS["array"]):
        spec, events, _ = played("array", players, options, f"segments:{players}:{seed}")
        state = spec.start(events[0])
        table = Segments.of(state)
        for event in events[1:]:
            after = spec.apply(state, event)
            table = table.follow(state, event, after)
            walked = Segments.of(after)
            assert (table.open, table.joins, table.placed) == (walked.open, walked.joins, walked.placed), (seed, event)
            state = after
            kinds.add(type(event).__name__)
        kinds.add(f"rounds{min(sum(type(e).__name__ == 'RoundDealt' for e in events), 2)}")
    # a timed game may end in its first round; the others play several
    assert {"CardSpliced", "Sliced"} | ({"rounds2"} if not options else set()) <= kinds, kinds


def test_splice_coin_plays_leave_out_only_naturals_no_set_can_hold() -> None:
    """A hand's coin plays are memoised by the naturals some set could hold: the plays of the whole hand."""
    from tally.core.games.splice import moves
    from tally.core.games.splice.components import DEFAULT_BOX

    values = DEFAULT_BOX.values
    cards = [str(v) for v in values] * 3 + ["wild", "wild", "double", "double", "skull", "x1"]
    rng = random.Random(21)
    for _ in range(400):
        hand = tuple(rng.sample(cards, rng.randint(0, 8)))
        naturals = tuple(sorted(int(c) for c in hand if c.isdigit()))
        whole = moves._coin_plays(naturals, hand.count("wild"), hand.count("double"), values)
        assert moves.coin_plays(hand, values) == whole, hand


def test_splice_purchases_are_every_minimal_payment_of_each_count() -> None:
    """`purchases` lists, for each count of pieces, each payment whose every set and Double Your Gold card is
    needed, once: checked against every choice of sets."""
    from itertools import combinations as choose

    from tally.core.games.splice import moves
    from tally.core.games.splice.components import DEFAULT_BOX, PRICE, coin_set, multiplier

    values = DEFAULT_BOX.values
    forms = (
        [f"{v}-{v}" for v in values]
        + [f"{v}-w{v}" for v in values]
        + [f"{v}-{v + 1}-{v + 2}" for v in values if v + 2 in values]
    )
    rng = random.Random(22)
    listed = 0
    for _ in range(300):
        sets = tuple(rng.choice(forms) for _ in range(rng.randint(1, 7)))
        stack = rng.random() < 0.5
        doubles = rng.randint(0, 3) if stack else rng.randint(0, 1)
        worth = {form: coin_set(form, values).value for form in sets}
        by_count = moves._payments(sets, doubles, stack, values)
        assert len(by_count) == min(99, sum(worth[form] for form in sets) * multiplier(doubles, stack) // PRICE)
        for count, paid in enumerate(by_count, 1):
            price = PRICE * count
            expected = set()
            for used in range(doubles + 1):
                for k in range(1, len(sets) + 1):
                    for chosen in set(tuple(sorted(c)) for c in choose(sets, k)):
                        total = sum(worth[form] for form in chosen)
                        if (
                            total * multiplier(used, stack) >= price
                            and all((total - worth[form]) * multiplier(used, stack) < price for form in chosen)
                            and (not used or total * multiplier(used - 1, stack) < price)
                        ):
                            expected.add((chosen, used))
            got = [(tuple(sorted(forms_paid)), used) for forms_paid, used in paid]
            assert len(got) == len(set(got)) and set(got) == expected, (sets, doubles, stack, count)
            listed += len(got)
    assert listed > 300
