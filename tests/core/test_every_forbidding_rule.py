"""A dispute hears every rule that forbids the move (issue 17, item 2): when the game over or the turn refuses an
event, its ruling still comes first and decides, and the move's own rules follow, judged as if it were that player's
turn with nothing pending (the game's `Supposing`). The verdict of every event is what it was: a property over
random playouts holds the first ruling to the kernel's answer before this change (the turn, then the kind's
guards, stopping at the first refusal)."""

from __future__ import annotations

import json
import random
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_game_contract import started_for

from support import invoke
from support.splendor_helpers import open_game as splendor_game
from support.split_helpers import standard
from tally.core import registry
from tally.core.model import Event, Ruling
from tally.core.referee import Guards, Supposing


def rules_of(rulings: list[Ruling]) -> list[str]:
    return [r.rule for r in rulings]


def test_a_match_while_a_bonus_is_pending_is_also_judged_as_a_match() -> None:
    game = standard().do("draw", "match 2HL 2HR")  # ann's perfect match: its bonus is pending
    assert rules_of(game.rule("match 7HL 7DR")) == ["split.bonus.pending"], "a match that would be legal"
    assert rules_of(game.rule("match 7HL 9SL")) == ["split.bonus.pending", "split.match.same-number"]
    assert rules_of(game.rule("match 3SL 3SR")) == ["split.bonus.pending", "split.hand.not-held"], "ben's cards"
    game.reject("match 7HL 9SL", "split.bonus.pending")  # the first still decides, and nothing changes


def test_a_move_out_of_turn_is_judged_as_that_players_move() -> None:
    game = splendor_game()
    assert rules_of(game.rule("ben: take r g b")) == ["splendor.turn.out-of-turn"]
    assert rules_of(game.rule("ben: take y r b")) == ["splendor.turn.out-of-turn", "splendor.take.no-gold"]
    # ben's own tokens, not ann's, decide what ben may buy
    assert "splendor.buy.cannot-afford" in rules_of(game.rule(f"ben: buy {game.state.board[2][0]}"))


def test_a_turn_step_refusal_of_another_kind_adds_nothing() -> None:
    game = standard().do("draw", "match 2HL 2HR")
    assert rules_of(game.rule("done")) == ["split.round.first-turn-out"], "no supposed step for a `done`"


def test_a_guard_that_cannot_judge_the_supposed_state_adds_nothing() -> None:
    # guard the guard: a guard that raises on the supposed state is no crash, and its ruling is not invented
    spec = registry.get("split")
    game = standard().do("draw", "match 2HL 2HR")
    event = game.event("match 7HL 9SL")
    real: Guards[Any] = import_module("tally.core.games.split.rules").GUARDS

    def broken(state: Any, event: Event) -> None:
        raise KeyError("a precondition the supposed state lacks")

    fragile = Guards[Any]("split", spec.events, turn=real.turn, supposing=real.supposing)
    for kind in spec.events:
        fragile.on(kind, broken)
    assert rules_of(fragile.check(game.state, event)) == ["split.bonus.pending"]
    with pytest.raises(KeyError):  # on a real turn the guard's exception is a bug, shown as one
        fragile.check(standard().do("draw").state, event)


def test_supposing_names_the_player_and_the_step() -> None:
    game = standard().do("draw", "match 2HL 2HR")
    event = game.event("ben: match 3SL 3SR")
    supposed = Supposing({type(event): "play"}, cleared={"bonus": -1}).state(game.state, event)
    assert (supposed.phase, supposed.player_name, supposed.bonus) == ("play", "ben", -1)
    assert Supposing({}).state(game.state, event) is None, "a kind not named is not judged"
    assert Supposing({type(event): "play"}, not_in=("bonus",)).state(game.state, event) is None
    assert Supposing({type(event): "play"}, seated=lambda state, seat: False).state(game.state, event) is None


def test_tally_move_and_rule_report_every_forbidding_rule(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    assert invoke("new", "splendor", str(log), "-p", "ana", "-p", "ben", "--seed", "3").exit_code == 0
    before = log.read_bytes()
    refused = invoke("move", str(log), "ben: take y r b")
    assert refused.exit_code == 1 and log.read_bytes() == before
    assert "[splendor.turn.out-of-turn]; " in refused.stderr and refused.stderr.rstrip().endswith(
        "[splendor.take.no-gold]"
    )
    assert [line.split(":")[0] for line in refused.stdout.splitlines()] == [
        "rule splendor.turn.out-of-turn",
        "rule splendor.take.no-gold",
    ]
    document = json.loads(invoke("move", str(log), "ben: take y r b", "--json").stdout)
    assert [r["rule"] for r in document["rulings"]] == ["splendor.turn.out-of-turn", "splendor.take.no-gold"]
    assert document["verdict"] == "illegal" and all(r["text"] for r in document["rulings"])
    asked = invoke("rule", str(log), "ben: take y r b")
    verdicts = [line for line in asked.stdout.splitlines() if not line.startswith("  rule ")]
    assert asked.exit_code == 1 and len(verdicts) == 2, asked
    assert verdicts[0] == "illegal: it is ana's turn, not ben's [splendor.turn.out-of-turn]"
    assert verdicts[1].startswith("illegal: ben ") and verdicts[1].endswith("[splendor.take.no-gold]")


# --------------------------------------------------------------------------- the verdict stays what it was


def first_answer(guards: Guards[Any], state: Any, event: Event) -> list[Ruling]:
    """The kernel's answer before every forbidding rule was reported: the game over, the turn's first refusal,
    or the kind's guards (the first illegal one stopping the rest)."""
    if state.phase == "over":
        return [guards.game_over(state)]
    ruling = guards.judge_turn(state, event)
    if ruling is not None:
        return [ruling]
    return guards.judge_kind(state, event)


def positions(game: str, seed: int, length: int) -> tuple[list[Any], list[Event]]:
    """The states and the moves of a random open game of `length` events at most (its chance dealt)."""
    from tally.store.recording.record import dealt

    spec = registry.get(game)
    rng = random.Random(seed)
    started = started_for(spec, [f"p{i + 1}" for i in range(rng.choice([spec.min_seats, spec.max_seats]))])
    _, state = dealt(spec, spec.start(started), rng)
    states, moves = [state], []
    for _ in range(length):
        legal = spec.legal_moves(state)
        if not legal:
            break
        move = legal[rng.randrange(len(legal))]
        state = spec.apply(state, move)
        _, state = dealt(spec, state, rng)
        states.append(state)
        moves.append(move)
    return states, moves


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=st.sampled_from(registry.names()), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_the_first_ruling_is_the_kernels_answer_before(game: str, seed: int, data: st.DataObject) -> None:
    spec = registry.get(game)
    guards: Guards[Any] = import_module(f"tally.core.games.{game}.rules").GUARDS
    states, moves = positions(game, seed, 80)
    # every move of the playout judged at positions it was not made in: out of turn, at another step, pending
    for _ in range(25):
        state = states[data.draw(st.integers(0, len(states) - 1))]
        event = moves[data.draw(st.integers(0, len(moves) - 1))] if moves else None
        if event is None:
            continue
        now, before = spec.check(state, event), first_answer(guards, state, event)
        assert now[:1] == before[:1], (spec.format(event), now, before)
        if any(r.verdict == "illegal" for r in before):
            assert now[0].verdict == "illegal" and all(r.verdict == "illegal" for r in now[1:])
            assert len({r.rule for r in now}) == len(now)
        else:
            assert now == before, "a move the turn allows is judged exactly as before"
