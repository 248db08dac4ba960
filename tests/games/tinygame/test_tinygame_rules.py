"""Ten, the test-only game: one test per rule id (as for every game), and the kernel's registration refusing a
game that leaves an event kind without a guard or a reducer, when it is imported."""

from __future__ import annotations

import pytest

from support.tinygame import SPEC, NumberSaid, State
from tally.core.engine import Table
from tally.core.model import Event, GameStarted, Ruling
from tally.core.referee import Guards, IncompleteGame, Reducers


def table(target: int = 10) -> Table:
    started = GameStarted(
        seq=1,
        game="tinygame",
        rules="1",
        seats=["ann", "ben"],
        mode="open",
        options={"target": str(target)},
        manifest="ten",
    )
    assert SPEC.check_started(started) == []
    return Table(SPEC, started)


def said(tab: Table, *amounts: int) -> Table:
    for amount in amounts:
        event = NumberSaid(seq=tab.last_seq + 1, player=tab.state.player_name, amount=amount)
        assert tab.step(event).is_legal
    return tab


def refusal(tab: Table, event: Event) -> Ruling:
    rulings = tab.check(event)
    assert len(rulings) == 1 and rulings[0].verdict == "illegal", rulings
    return rulings[0]


def test_tinygame_turn_order() -> None:
    tab = said(table(), 1)
    assert tab.state.player_name == "ben" and SPEC.to_act(tab.state) == ("ben", "ben says 1 or 2")
    assert SPEC.turn(tab.state) == 2


def test_tinygame_turn_out_of_turn() -> None:
    ruling = refusal(table(), NumberSaid(player="ben", amount=1))
    assert (ruling.rule, ruling.message) == ("tinygame.turn.out-of-turn", "it is ann's turn, not ben's")


def test_tinygame_turn_game_over() -> None:
    tab = said(table(3), 2, 1)
    ruling = refusal(tab, NumberSaid(player="ben", amount=1))
    assert (ruling.rule, ruling.message) == ("tinygame.turn.game-over", "the game is over: no more moves")


def test_tinygame_say_one_or_two() -> None:
    assert refusal(table(), NumberSaid(player="ann", amount=3)).rule == "tinygame.say.one-or-two"
    assert SPEC.permit(table().state, NumberSaid(player="ann", amount=2)).rule == "tinygame.say.one-or-two"


def test_tinygame_say_past_target() -> None:
    tab = said(table(4), 2, 1)
    assert refusal(tab, NumberSaid(player="ann", amount=2)).rule == "tinygame.say.past-target"


def test_tinygame_end_target() -> None:
    tab = said(table(4), 2, 1)
    assert SPEC.permit(tab.state, NumberSaid(player="ann", amount=1)).rule == "tinygame.end.target"
    said(tab, 1)
    result = SPEC.outcome(tab.state)
    assert result is not None and result.winners == ["ann"] and result.ended == "target"


def test_the_guards_run_in_their_fixed_order() -> None:
    """3 is neither 1 nor 2 and would also pass the target: the first guard registered is the one that says so."""
    tab = said(table(4), 2)
    assert refusal(tab, NumberSaid(player="ben", amount=3)).rule == "tinygame.say.one-or-two"


class Unguarded(Event, tag="unguarded", frozen=True):
    player: str = ""


def test_a_kind_without_a_guard_or_a_reducer_fails_when_the_game_is_imported() -> None:
    guards = Guards[State]("tinygame", (NumberSaid, Unguarded), turn=())
    guards.on(NumberSaid, lambda state, event: None)
    with pytest.raises(IncompleteGame, match="no guard for Unguarded"):
        guards.seal()
    reducers = Reducers[State]("tinygame", (NumberSaid, Unguarded))
    reducers.on(NumberSaid, lambda state, event: state)
    with pytest.raises(IncompleteGame, match="no reducer for Unguarded"):
        reducers.seal()
    with pytest.raises(IncompleteGame, match="registered twice"):
        reducers.on(NumberSaid, lambda state, event: state)
    with pytest.raises(IncompleteGame, match="registers no guard"):
        guards.on(Unguarded)


def test_every_real_game_registers_a_guard_and_a_reducer_for_each_of_its_kinds() -> None:
    from tally.core import registry

    for spec in registry.specs():
        package = type(spec).__module__
        rules = __import__(f"{package}.rules", fromlist=["GUARDS"])
        reducer = __import__(f"{package}.reducer", fromlist=["REDUCERS"])
        assert rules.GUARDS.events == spec.events and reducer.REDUCERS.events == spec.events
        rules.GUARDS.seal()  # sealed at import already: sealing again finds nothing missing
        reducer.REDUCERS.seal()
