"""The fold's fast path (`core/dispatch.py`) decides nothing of its own: over random playouts of every game it finds
what the plain path finds (`referee.Guards.check`, and `engine.judge_plainly`, the fold as `Table.step` does it).

Logs are random legal games, open, recorded at a table (its unverifiable notes) and at a table whose seats enter
their own hidden cards (a seated fold takes its own table of judges), with the detours a real log takes (a move voided and entered again, a note, a
correction) and, at a random place, a move of the same game played somewhere else: mostly illegal there, so the
refusals are held to the plain path too, rulings and all."""

from __future__ import annotations

import random
from typing import Any

import msgspec
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tally.core import registry
from tally.core.dispatch import check_of, compiles, judges
from tally.core.engine import judge, judge_plainly, play_out
from tally.core.model import Amended, Event, GameSpec, Noted, Ruling, Voided
from tally.store.recording.judging import payload
from tally.store.recording.service import shuffler, start_event

OPTIONS = {"splendor": [{}, {"take-fewer": "always"}, {"take-fewer": "never", "stuck": "end"}, {"target": "5"}]}
LIMIT = 260  # events of a playout: a Splice game runs to thousands, and its first few hundred hold every kind


def playout(game: str, rng: random.Random, mode: str) -> tuple[GameSpec, list[Event]]:
    """A random legal game of `game`: open, as a table records it (`table`: the hidden cards unseen, which makes
    unverifiable notes), or with every seat entering its own hidden cards (`seated`, where the game lets its seats
    do so)."""
    spec = registry.get(game)
    names = [f"p{i + 1}" for i in range(rng.randint(spec.min_seats, min(spec.max_seats, 4)))]
    _, started = start_event(game, names, rng.choice(OPTIONS.get(game, [{}])), "open")
    events, _ = play_out(spec, started, lambda legal: legal[rng.randrange(len(legal))], shuffler(rng), LIMIT)
    if mode != "open":
        table = msgspec.structs.replace(started, mode="table", seated=names)
        seated = tuple(names) if mode == "seated" and not spec.check_started(table) else ()
        events = list(spec.table_transcript(events, seated=seated))
    return spec, numbered(events)


def numbered(events: list[Event]) -> list[Event]:
    return [msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(events, 1)]


def with_detours(spec: GameSpec, events: list[Event], rng: random.Random) -> list[Event]:
    """The log with moves voided and entered again, notes, corrections that put an event back in its place, and
    one move from elsewhere in the game, anywhere or nowhere (a third of the logs are legal to their end). Seqs
    follow the log; a void names the event just before it."""
    log: list[Event] = [events[0]]
    stranger, place = rng.choice(events[1:]), rng.randrange(1, len(events) * 3 // 2)
    for index, event in enumerate(events[1:], 1):
        log.append(msgspec.structs.replace(event, seq=len(log) + 1))
        roll = rng.random()
        if roll < 0.04 and spec.is_voidable(event):
            log.append(Voided(seq=len(log) + 1, target=log[-1].seq, reason="entered by mistake"))
            log.append(msgspec.structs.replace(event, seq=len(log) + 1))
        elif roll < 0.06:
            log.append(Noted(seq=len(log) + 1, text="a note", player=rng.choice([None, *events[0].seats])))
        elif roll < 0.07 and spec.is_voidable(event):
            log.append(Amended(seq=len(log) + 1, target=log[-1].seq, reason="the same again", events=[payload(event)]))
        if index == place:
            log.append(msgspec.structs.replace(stranger, seq=len(log) + 1))
    return log


def folded(fold: Any, spec: GameSpec, events: list[Event], **options: Any) -> tuple[Any, ...]:
    """Everything a fold tells its caller: the verdict, what a watcher saw, the frames kept, the table's end."""
    watched: list[tuple[Event, Any, Any]] = []
    kept: list[tuple[Event, Any, Any]] = []
    judgement, table = fold(spec, events, lambda *seen: watched.append(seen), kept, **options)
    return judgement, watched, kept, table.state, table.last_seq


GAMES = st.sampled_from(sorted(registry.names()))
MODES = st.sampled_from(["open", "table", "seated"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32 - 1), mode=MODES, undoable=st.booleans())
def test_the_compiled_fold_is_the_plain_fold(game: str, seed: int, mode: str, undoable: bool) -> None:
    rng = random.Random(seed)
    spec, events = playout(game, rng, mode)
    log = with_detours(spec, events, rng)
    assert compiles(spec)
    plain = folded(judge_plainly, spec, log)
    fast = folded(judge, spec, log, undoable=undoable)
    assert fast == plain, (fast[0], plain[0])
    reached = log[: fast[0].failed_seq or len(log)]
    if undoable or any(type(event) in (Voided, Amended) for event in reached):  # the table keeps what it must
        assert judge(spec, log, undoable=undoable)[1].effective == judge_plainly(spec, log)[1].effective


def answer(found: Any) -> list[Ruling]:
    """A judge's answer as `check` gives it: a guard's None, ruling or list, as a list."""
    return [] if found is None else [found] if isinstance(found, Ruling) else found


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game=GAMES, seed=st.integers(0, 2**32 - 1), mode=MODES, data=st.data())
def test_each_compiled_judge_is_the_plain_check(game: str, seed: int, mode: str, data: st.DataObject) -> None:
    """Every move of a playout judged where it was made (legal) and at positions it was not made in (out of turn,
    at another step, something pending, the game over): the kind's judge in the state's phase, and the check a
    correction runs, answer as `Guards.check` does."""
    spec, events = playout(game, random.Random(seed), mode)
    states, moves, state = [], [], spec.start(events[0])
    for event in events[1:]:
        states.append(state)
        moves.append(event)
        state = spec.apply(state, event)
    states.append(state)
    table, check = judges(spec, states[0]), check_of(spec, states[0])
    for index, (state, event) in enumerate(zip(states, moves)):
        assert answer(table[type(event)][state.phase](state, event)) == spec.check(state, event), index
    for _ in range(40):
        state = states[data.draw(st.integers(0, len(states) - 1))]
        event = moves[data.draw(st.integers(0, len(moves) - 1))]
        plain = spec.check(state, event)
        assert answer(table[type(event)][state.phase](state, event)) == plain, spec.format(event)
        assert check(state, event) == plain
