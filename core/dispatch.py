"""The fold's fast path: a game's `Guards` and `Reducers` compiled into what a fold runs for each event.

`referee.py` says what a ruling is and `engine.Table` how a log folds, each written to be read. A fold judges and
applies every event of every log read (`tally check`, a replay, the library's ingest), so this module writes the
same work out for speed, and decides nothing of its own: `tests/core/test_dispatch.py` holds it to the plain path over
random playouts of every game, legal moves and moves judged where they were not made.

- `judges(spec, state)`: kind -> phase -> one function judging that kind in that phase as `Guards.check` does,
  answering as a guard does (None, a ruling or a list): the game over, else the turn's steps that can answer the
  kind in the phase (worked out once, when first met, not for every event), then the kind's guards (its one guard
  called directly, the usual case), with the kernel's `OutOfTurn` asked inline when it ends the turn.
- `reducers_of(apply, kinds)`: each kind's reducer, `Reducers.apply` without its own call.
- `fold(table, events, ...)`: `engine.judge`'s loop with `Table.check` and `Table.apply` written out for a game's
  own events, the table's state and last seq kept in locals.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Protocol

from .model import SHARED_EVENTS, Amended, Event, GameSpec, Ruling, Voided, illegal
from .referee import ALLOWED, Allowed, Found, Guards, OutOfTurn, Pending, Reducers, TurnStep, can_answer

_SHARED = frozenset(SHARED_EVENTS)

# one function judging one kind in one phase, as a guard answers: None, a ruling or a list of rulings
Judge = Callable[[Any, Event], Found]
Step = Callable[[Any, Event], "Ruling | Allowed | None"]


def guards_of(check: Callable[[Any, Event], list[Ruling]]) -> Guards[Any] | None:
    """The kernel's `Guards` whose `check` a game's `check` is (every registered game's), else None (a `check` of
    its own, which nothing here compiles)."""
    owner = getattr(check, "__self__", None)
    if isinstance(owner, Guards) and getattr(check, "__func__", None) is Guards.check:
        return owner
    return None


def compiles(spec: GameSpec) -> bool:
    """Whether a fold of `spec`'s logs takes the fast path: its `check` is the kernel's `Guards.check`."""
    return guards_of(spec.check) is not None


def reducers_of(
    apply: Callable[[Any, Event], Any], kinds: Iterable[type[Event]]
) -> dict[type[Event], Callable[[Any, Any], Any]]:
    """The reducer of each of `kinds` that a game's `apply` calls: its `Reducers`' own when `apply` is that
    kernel's `apply`, else `apply` itself for every kind (a game whose `apply` does more after the reducer)."""
    owner = getattr(apply, "__self__", None)
    if isinstance(owner, Reducers) and getattr(apply, "__func__", None) is Reducers.apply:
        return owner.by_kind
    return dict.fromkeys(kinds, apply)


# --------------------------------------------------------------------------- one judge per kind and phase


class _Phases(dict[str, Judge]):
    """phase -> the judge of one kind in it, each made when first asked for."""

    __slots__ = ("_make", "_kind")

    def __init__(self, make: Callable[[type[Event], str], Judge], kind: type[Event]):
        super().__init__()
        self._make, self._kind = make, kind

    def __missing__(self, phase: str) -> Judge:
        judge = self[phase] = self._make(self._kind, phase)
        return judge


class Judges(dict[type[Event], _Phases]):
    """kind -> phase -> the function judging that kind in that phase: two lookups in C."""

    __slots__ = ("_make",)

    def __init__(self, guards: Guards[Any], seated: bool):
        super().__init__()
        self._make: Callable[[type[Event], str], Judge] = lambda kind, phase: _judge_of(guards, kind, phase, seated)

    def __missing__(self, kind: type[Event]) -> _Phases:
        phases = self[kind] = _Phases(self._make, kind)
        return phases


# each game's judges (its `Guards`, made once at import), for its folds with a seat seated and without (a log's
# seats never change); a step about seated seats may answer fewer kinds while nobody is seated (`answers_unseated`),
# so only such a game keeps the second
_JUDGES: dict[Guards[Any], tuple[Judges, Judges | None]] = {}


def judges(spec: GameSpec, state: Any) -> Judges:
    """What judges each kind in each phase in a fold whose states are seated as `state` is: `judges(spec, state)
    [kind][phase](state, event)` finds what `spec.check(state, event)` finds, as a guard does (None, a ruling or a
    list of rulings). `spec`'s check must be the kernel's (`compiles`)."""
    guards = guards_of(spec.check)
    assert guards is not None, f"{spec.name}'s check is its own: nothing to compile"
    made = _JUDGES.get(guards)
    if made is None:
        about_seats = any(getattr(step, "unseated_kinds", None) is not None for step in guards.turn)
        made = _JUDGES[guards] = (Judges(guards, True), Judges(guards, False) if about_seats else None)
    seated, unseated = made
    return unseated if unseated is not None and not state.seated else seated


def _judge_of(guards: Guards[Any], kind: type[Event], phase: str, seated: bool) -> Judge:
    """One function judging `kind` in `phase`: the game over, else the turn's steps that can answer it, then the
    kind's guards."""
    if phase == "over":

        def over(state: Any, event: Event) -> list[Ruling]:
            return guards.with_the_moves_own([guards.game_over(state)], state, event)

        return over
    steps = [step for step in guards.turn if can_answer(step, kind, phase, seated)]
    own = guards.by_kind[kind]
    guard: Judge = own[0] if len(own) == 1 else guards.judge_kind
    if not steps:
        return guard
    last = steps[-1]
    if isinstance(last, OutOfTurn):  # the step most events reach: asked inline, without its call
        return _then_whose_turn(guards, tuple(_step(guards, step) for step in steps[:-1]), last, guard)
    return _turn_then(guards, tuple(_step(guards, step) for step in steps), guard)


def _step(guards: Guards[Any], step: TurnStep[Any]) -> Step:
    """A step of the turn as one function, decided here once rather than by isinstance on every event."""
    if isinstance(step, OutOfTurn):
        rule, words = guards.out_of_turn_rule, step.words

        def out_of_turn(state: Any, event: Event) -> Ruling | None:
            player = getattr(event, "player", "")
            current = state.player_name
            if player != current:
                return illegal(rule, words(state, player), player=player, current=current)
            return None

        return out_of_turn
    if isinstance(step, Pending):
        pending = step

        def unsettled(state: Any, event: Event) -> Ruling | None:  # made only for `pending.phases` (`can_answer`)
            if not pending.settles(state, event):
                return illegal(pending.rule, pending.words(state, event), **pending.facts(state))
            return None

        return unsettled
    return step


def _turn_then(guards: Guards[Any], steps: tuple[Step, ...], guard: Judge) -> Judge:
    refuse = guards.with_the_moves_own

    def judge(state: Any, event: Event) -> Found:
        for step in steps:
            found = step(state, event)
            if found is not None:
                if found is ALLOWED or isinstance(found, Allowed):
                    break
                return refuse([found], state, event)
        return guard(state, event)

    return judge


def _then_whose_turn(guards: Guards[Any], before: tuple[Step, ...], last: OutOfTurn[Any], guard: Judge) -> Judge:
    refuse, rule, words = guards.with_the_moves_own, guards.out_of_turn_rule, last.words

    def judge_then_whose_turn(state: Any, event: Event) -> Found:
        for step in before:
            found = step(state, event)
            if found is not None:
                if found is ALLOWED or isinstance(found, Allowed):
                    return guard(state, event)
                return refuse([found], state, event)
        player = getattr(event, "player", "")
        current = state.player_name
        if player != current:
            return refuse([illegal(rule, words(state, player), player=player, current=current)], state, event)
        return guard(state, event)

    return judge_then_whose_turn


def check_of(spec: GameSpec, state: Any) -> Callable[[Any, Event], list[Ruling]]:
    """`spec.check` for a loop over the states of one log seated as `state` is (a correction judging every later
    event again): through the judges where `spec` compiles, else `spec.check` itself."""
    if not compiles(spec):
        return spec.check
    table = judges(spec, state)

    def check(state: Any, event: Event) -> list[Ruling]:
        found = table[type(event)][state.phase](state, event)
        return [] if found is None else [found] if isinstance(found, Ruling) else found

    return check


# --------------------------------------------------------------------------- the fold


class Folding(Protocol):
    """What `fold` asks of the engine's `Table`."""

    spec: GameSpec
    state: Any
    last_seq: int
    _undo: list[tuple[int, Any, Event]]

    def check(self, event: Event) -> list[Ruling]: ...

    def apply(self, event: Event) -> None: ...

    floor: int

    def keep_undo(self, events: list[Event], stop: Event) -> None: ...

    def reaches_below(self, event: Event) -> bool: ...


# what `fold` found: the seq of the first illegal event (None: none), the rulings forbidding it, the notes on the way,
# and the seq a correction would take back below a resumed fold's floor (`engine.Judgement.reaches`)
Folded = tuple["int | None", list[Ruling], list[tuple[int, Ruling]], "int | None"]


def fold(
    table: Folding,
    events: list[Event],
    after: list[Event],
    watch: Callable[[Event, Any, Any], None] | None,
    kept: list[tuple[Event, Any, Any]] | None,
    undoable: bool,
) -> Folded:
    """`engine.judge` of a game that `compiles`, on `table` (the log's `events` folded up to `after`, the events
    still to fold): the same answer, the table left as the plain loop leaves it. A game's own kinds go straight to their judge and reducer, the table's state
    and last seq kept in locals; the shared events go through the table."""
    spec = table.spec
    warnings: list[tuple[int, Ruling]] = []
    check, apply, undo = table.check, table.apply, table._undo
    reduce = reducers_of(spec.apply, spec.events)
    judge = judges(spec, table.state)
    state = table.state
    last = table.last_seq
    keeping = undoable
    for event in after:
        kind = type(event)
        if kind in _SHARED:
            if not keeping and (kind is Voided or kind is Amended):
                table.keep_undo(events, event)
                keeping = True
            table.state, table.last_seq = state, last
            if table.floor and table.reaches_below(event):
                target = event.target if isinstance(event, (Voided, Amended)) else table.floor
                return event.seq, [], warnings, min(target, table.floor)
            rulings = check(event)
            if any(r.verdict == "illegal" for r in rulings):
                return event.seq, rulings, warnings, None
            warnings.extend((event.seq, r) for r in rulings)
            before = state
            apply(event)
            state, last = table.state, event.seq
        else:
            found = judge[kind][state.phase](state, event)
            if found:  # None or no ruling (a guard's empty list): legal, nothing to note
                rulings = [found] if isinstance(found, Ruling) else found
                if any(r.verdict == "illegal" for r in rulings):
                    table.state, table.last_seq = state, last
                    return event.seq, rulings, warnings, None
                warnings.extend((event.seq, r) for r in rulings)
            before = state
            last = event.seq
            if keeping:
                undo.append((last, before, event))
            state = reduce[kind](before, event)
        if watch is not None:
            watch(event, before, state)
        if kept is not None:
            kept.append((event, before, state))
    table.state, table.last_seq = state, last
    return None, [], warnings, None
