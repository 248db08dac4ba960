"""The referee's plumbing, written once for every game: guards and reducers registered per event kind.

A game states, for each of its event kinds, the guards that may forbid it (in their fixed order) and the
reducer that applies it, each typed on that event's class, so a guard reads `event.gems` with no cast. The
kernel then judges every event in one shape: the game over first (read off the state's phase), then the
game's turn (its steps in order, among them the kernel's own decisions: `OutOfTurn`, whether the event's
player is the one to act, and `Pending`, whether something is pending that the event does not settle; the game
gives only their words), then the kind's own guards. A kind of the game's `events` left without a guard or a reducer is an error when
the game is imported, never a silent pass at play.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, Iterable, Protocol, TypeVar

import msgspec

from .model import Event, Ruling, illegal


class Phased(Protocol):
    """A game's state says where the game stands by its `phase` (`over` once the game has ended) and whose turn
    it is by `player_name`."""

    @property
    def phase(self) -> str: ...

    @property
    def player_name(self) -> str: ...


S = TypeVar("S", bound=Phased)
R = TypeVar("R")  # a state, for the reducers (which ask it nothing)
E = TypeVar("E", bound=Event)

# what a guard finds: nothing, one ruling, or several (unverifiable notes, or an illegal ruling among them)
Found = Ruling | list[Ruling] | None


class IncompleteGame(TypeError):
    """A game's event kind has no guard or no reducer: raised when the game is imported."""


def _missing(what: str, game: str, events: Iterable[type[Event]], registered: Iterable[type[Event]]) -> None:
    done = set(registered)
    lacking = [kind.__name__ for kind in events if kind not in done]
    if lacking:
        raise IncompleteGame(f"{game}: no {what} for {', '.join(lacking)} (every event kind registers one)")


class Allowed:
    """A turn step's answer that the event fits the turn: the turn's later steps are skipped."""

    __slots__ = ()


ALLOWED = Allowed()


class OutOfTurn(Generic[S]):
    """The kernel's decision in a game's turn: an event whose `player` is not the state's `player_name` is refused
    under `<game>.turn.out-of-turn` (facts: `player`, `current`); `words(state, player)` is the game's message."""

    def __init__(self, words: Callable[[S, str], str]):
        self.words = words


class Pending(Generic[S]):
    """The kernel's decision in a game's turn: while the state's phase is one of `phases` something is pending,
    and an event that does not settle it (`settles`; by default none reaching this step does, an earlier step
    having allowed those) is refused under `rule` with the game's `words(state, event)` and `facts(state)`.
    `kinds`: the only kinds it can refuse (as `concerns` declares of a game's step); the others skip it."""

    def __init__(
        self,
        phases: Iterable[str],
        rule: str,
        words: Callable[[S, Event], str],
        *,
        facts: Callable[[S], dict[str, Any]] = lambda state: {},
        settles: Callable[[S, Event], bool] = lambda state, event: False,
        kinds: Iterable[type[Event]] | None = None,
    ):
        self.phases = frozenset(phases)
        self.rule, self.words, self.facts, self.settles = rule, words, facts, settles
        if kinds is not None:
            self.kinds = frozenset(kinds)


class Supposing:
    """Where the kernel may judge a kind's own guards although the turn refuses the event, so that a dispute hears
    every rule that forbids the move (is `10SL+10DL` a match, while a bonus is pending?), not only the turn's.

    The guards of a kind were written for the turn's preconditions (its phase, its player), so they are judged on
    the state as if it were the event's player's turn at the step where the kind is played and nothing pending:
    the same state with `phase` set to `phases[kind]`, `current` to the player's seat and the fields of
    `cleared` (what records an obligation) reset. Only the kinds named, by a seat at the table that `seated`
    admits, and not while the state's phase is one of `not_in` (a table not laid out yet), are judged so."""

    def __init__(
        self,
        phases: dict[type[Event], str],
        *,
        cleared: dict[str, Any] | None = None,
        not_in: Iterable[str] = (),
        seated: Callable[[Any, int], bool] = lambda state, seat: True,
    ):
        self.phases, self.cleared = dict(phases), dict(cleared or {})
        self.not_in, self.seated = frozenset(not_in), seated

    def state(self, state: Any, event: Event) -> Any | None:
        """The state the kind's own guards judge `event` on, or None when they cannot judge it."""
        phase = self.phases.get(type(event))
        player = getattr(event, "player", None)
        seats = state.seats
        if phase is None or state.phase in self.not_in or player not in seats:
            return None
        seat = seats.index(player)
        if not self.seated(state, seat):
            return None
        return msgspec.structs.replace(state, phase=phase, current=seat, **self.cleared)


StepT = TypeVar("StepT", bound=Callable[..., Any])


def concerns(*kinds: type[Event]) -> Callable[[StepT], StepT]:
    """Declares that a game's turn step can only answer events of `kinds` (it returns None for any other): the
    kernel then skips it for the rest, which matters because the turn runs once per event of every fold."""

    def declare(step: StepT) -> StepT:
        setattr(step, "kinds", frozenset(kinds))
        return step

    return declare


def answers_unseated(*kinds: type[Event]) -> Callable[[StepT], StepT]:
    """Declares that a turn step about seated seats can only answer events of `kinds` (none, if none is given)
    while no seat of the game is seated: the kernel then skips it for every other kind in the usual, unseated
    game, whose fold it would otherwise cost a call per event."""

    def declare(step: StepT) -> StepT:
        setattr(step, "unseated_kinds", frozenset(kinds))
        return step

    return declare


# a step of a game's turn: the game's own (a ruling, ALLOWED, or None to go on) or one of the kernel's decisions
TurnStep = Callable[[S, Event], Ruling | Allowed | None] | OutOfTurn[S] | Pending[S]


def no_rule_of_its_own(state: object, event: Event) -> None:
    """The guard of a kind whose every rule is the turn guard's (a `done`, a bonus let go): nothing more to
    check. Registering it says so; a kind without any guard is refused at import."""
    return None


# a turn step as the kernel runs it: the function, the phases it is limited to, the kinds it concerns, and
# those it concerns while nobody is seated
_Step = tuple[Callable[[S, Event], "Ruling | Allowed | None"], "frozenset[str] | None", "frozenset[type[Event]] | None",
              "frozenset[type[Event]] | None"]
# what judging one kind in one phase runs: the turn's steps that concern it, then the kind's guards
_Case = tuple[tuple[Callable[[S, Event], "Ruling | Allowed | None"], ...], tuple[Callable[[S, Any], "Found"], ...]]
# one function judging one kind in one phase, as a guard answers: None, a ruling or a list of rulings
Judge = Callable[[S, Event], "Found"]


class _Phases(dict[str, Any]):
    """phase -> the judge of one kind in it, each made when first asked for."""

    __slots__ = ("_make", "_kind")

    def __init__(self, make: Callable[[str, type[Event]], Any], kind: type[Event]):
        super().__init__()
        self._make, self._kind = make, kind

    def __missing__(self, phase: str) -> Any:
        judge = self[phase] = self._make(phase, self._kind)
        return judge


class Judges(dict[type[Event], _Phases], Generic[S]):
    """kind -> phase -> the function judging that kind in that phase (`Guards.judges`): two lookups in C."""

    __slots__ = ("_make",)

    def __init__(self, guards: "Guards[S]", cases: dict[type[Event], dict[str, _Case[S]]]):
        super().__init__()
        self._make = lambda phase, kind: guards._judge_of(phase, kind, cases)

    def __missing__(self, kind: type[Event]) -> _Phases:
        phases = self[kind] = _Phases(self._make, kind)
        return phases


class Guards(Generic[S]):
    """The guards of one game's event kinds, and `check`, the one entry point the engine calls.

    Once the state's phase is `over` the kernel refuses every event with `<game>.turn.game-over` and the
    message `<over_words(state)>: no more moves` (facts: `over_facts(state)`). `turn` is the game's turn: its
    steps in the order they run before the kind's own guards, the game's functions (the step of the turn, the
    table's entries) and the kernel's `OutOfTurn` and `Pending`; the first ruling refuses, `ALLOWED` ends the turn."""

    def __init__(
        self,
        game: str,
        events: Iterable[type[Event]],
        *,
        turn: Iterable[TurnStep[S]],
        over_words: Callable[[S], str] = lambda state: "the game is over",
        over_facts: Callable[[S], dict[str, Any]] = lambda state: {},
        supposing: Supposing | None = None,
    ):
        self.game = game
        self.events = tuple(events)
        self.over_rule = f"{game}.turn.game-over"
        self.out_of_turn_rule = f"{game}.turn.out-of-turn"
        self.turn = tuple(turn)
        self._whose_turn: dict[Callable[..., Any], Callable[[S, str], str]] = {}  # each OutOfTurn step: its words
        # each step as one function, decided here once rather than by isinstance on every event of every fold; a
        # `Pending` step belongs only to its phases and a game's step may concern only some kinds (`concerns`), so
        # the steps for each phase and kind are worked out once, when first met (`_steps_for`); a step about
        # seated seats may answer fewer kinds while nobody is seated (`answers_unseated`), so a game with such
        # steps keeps a second table for its unseated states
        self._steps: tuple[_Step[S], ...] = tuple(
            (self._step(step), step.phases if isinstance(step, Pending) else None, getattr(step, "kinds", None),
             getattr(step, "unseated_kinds", None))
            for step in self.turn)
        self._by_case: dict[type[Event], dict[str, _Case[S]]] = {}  # kind -> phase -> what to run
        self._by_case_unseated: dict[type[Event], dict[str, _Case[S]]] = {}  # the same, nobody seated
        self._seat_steps = any(unseated is not None for *_, unseated in self._steps)
        self._judges: Judges[S] | None = None  # built on first use, after every kind's guards are registered
        self._judges_unseated: Judges[S] | None = None
        self.over_words, self.over_facts = over_words, over_facts
        self.supposing = supposing
        self._guards: dict[type[Event], tuple[Callable[[S, Any], Found], ...]] = {}

    def on(self, kind: type[E], *guards: Callable[[S, E], Found]) -> None:
        """`kind`'s guards, in the order they run (the first illegal ruling stops the rest)."""
        if not guards:
            raise IncompleteGame(f"{self.game}: {kind.__name__} registers no guard")
        if kind in self._guards:
            raise IncompleteGame(f"{self.game}: {kind.__name__}'s guards are registered twice")
        self._guards[kind] = guards

    def seal(self) -> Guards[S]:
        """Every kind of the game's events has its guards (else IncompleteGame); called once, at import."""
        _missing("guard", self.game, self.events, self._guards)
        return self

    def game_over(self, state: S) -> Ruling:
        return illegal(self.over_rule, f"{self.over_words(state)}: no more moves", **self.over_facts(state))

    def _step(self, step: TurnStep[S]) -> Callable[[S, Event], Ruling | Allowed | None]:
        if isinstance(step, OutOfTurn):
            rule, words = self.out_of_turn_rule, step.words

            def out_of_turn(state: S, event: Event) -> Ruling | None:
                player = getattr(event, "player", "")
                current = state.player_name
                if player != current:
                    return illegal(rule, words(state, player), player=player, current=current)
                return None

            self._whose_turn[out_of_turn] = words  # a fold's judge asks it inline (`_judge_of`)
            return out_of_turn
        if isinstance(step, Pending):
            pending = step

            def unsettled(state: S, event: Event) -> Ruling | None:  # run only in `pending.phases` (`_steps_for`)
                if not pending.settles(state, event):
                    return illegal(pending.rule, pending.words(state, event), **pending.facts(state))
                return None

            return unsettled
        return step

    def _cases_of(self, state: S) -> dict[type[Event], dict[str, _Case[S]]]:
        return self._by_case_unseated if self._seat_steps and not getattr(state, "seated") else self._by_case

    def _case(self, phase: str, kind: type[Event], cases: dict[type[Event], dict[str, _Case[S]]]) -> _Case[S]:
        """The turn's steps that can answer `kind` in `phase` (in `cases`' states, seated or not), and the kind's
        guards: worked out once."""
        unseated = cases is self._by_case_unseated
        steps = tuple(step for step, phases, kinds, unseated_kinds in self._steps
                      if (phases is None or phase in phases) and (kinds is None or kind in kinds)
                      and not (unseated and unseated_kinds is not None and kind not in unseated_kinds))
        case = cases.setdefault(kind, {})[phase] = (steps, self._guards[kind])
        return case

    def judge_turn(self, state: S, event: Event) -> Ruling | None:
        """The ruling of the game's turn on `event`: the first refusal of its steps, or None when it fits."""
        cases, kind, phase = self._cases_of(state), type(event), state.phase
        for step in (cases.get(kind, {}).get(phase) or self._case(phase, kind, cases))[0]:
            found = step(state, event)
            if found is not None:
                return None if isinstance(found, Allowed) else found
        return None

    def check(self, state: S, event: Event) -> list[Ruling]:
        """The rulings that forbid `event` now: empty when legal, or only unverifiable notes. When the game over or
        the turn refuses it, that ruling comes first (it decides) and the rules of the move itself follow, judged
        where the game's `Supposing` allows it."""
        found = self.judges(state)[type(event)][state.phase](state, event)
        if found is None:
            return []
        return [found] if isinstance(found, Ruling) else found

    def judges(self, state: S) -> "Judges[S]":
        """What judges each kind in each phase in a fold whose states are seated as `state` is (a log's seats never
        change): `judges(state)[kind][phase](state, event)` finds what `check` finds, as a guard does (None, a
        ruling or a list of rulings). A fold looks its judge up so, once per event, and calls it: no call of
        `check` and nothing looked up on `self` for each event of every log read."""
        unseated = self._seat_steps and not getattr(state, "seated")
        judges = self._judges_unseated if unseated else self._judges
        if judges is None:
            judges = Judges(self, self._by_case_unseated if unseated else self._by_case)
            if unseated:
                self._judges_unseated = judges
            else:
                self._judges = judges
        return judges

    def _judge_of(self, phase: str, kind: type[Event], cases: dict[type[Event], dict[str, _Case[S]]]) -> Judge[S]:
        """One function judging `kind` in `phase`: the game over, else the turn's steps that can answer it, then
        the kind's guards (one called directly: the usual case)."""
        if phase == "over":
            def over(state: S, event: Event) -> list[Ruling]:
                return self._and_the_moves_own([self.game_over(state)], state, event)

            return over
        steps, guards = (cases.get(kind) or {}).get(phase) or self._case(phase, kind, cases)
        guard: Callable[[S, Any], Found] = guards[0] if len(guards) == 1 else self.judge_kind
        if not steps:
            return guard
        refuse = self._and_the_moves_own
        words = self._whose_turn.get(steps[-1])
        if words is None:
            def judge(state: S, event: Event) -> Found:
                for step in steps:
                    found = step(state, event)
                    if found is not None:
                        if found is ALLOWED or isinstance(found, Allowed):
                            break
                        return refuse([found], state, event)
                return guard(state, event)

            return judge
        # the turn ends with the kernel's `OutOfTurn`, the step most events reach: asked here, without its call
        rule, before = self.out_of_turn_rule, steps[:-1]

        def judge_then_whose_turn(state: S, event: Event) -> Found:
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

    def judge_kind(self, state: S, event: Event) -> list[Ruling]:
        """The kind's own guards in their order, the first illegal finding stopping the rest (a later guard may
        assume what an earlier one checked)."""
        guards = self._guards[type(event)]
        notes: list[Ruling] = []
        for guard in guards:
            found = guard(state, event)
            if found is None:
                continue
            if isinstance(found, Ruling):
                if found.verdict == "illegal":
                    return [found]
                notes.append(found)
                continue
            for ruling in found:
                if ruling.verdict == "illegal":
                    return found
            notes.extend(found)
        return notes

    def _and_the_moves_own(self, refused: list[Ruling], state: S, event: Event) -> list[Ruling]:
        """`refused` (the turn's ruling), then what the move's own guards forbid on the supposed state. Only a
        refused event pays for this, never a legal one: a fold judges at the same cost as before."""
        if self.supposing is None:
            return refused
        try:
            supposed = self.supposing.state(state, event)
            found = [] if supposed is None else self.judge_kind(supposed, event)
        except Exception:  # the supposed state is not one the guard was written for: it adds nothing, never a crash
            return refused
        cited = {ruling.rule for ruling in refused}
        return refused + [r for r in found if r.verdict == "illegal" and r.rule not in cited]


class Reducers(Generic[R]):
    """The reducer of each of one game's event kinds, and `apply`: the state after a checked event."""

    def __init__(self, game: str, events: Iterable[type[Event]]):
        self.game = game
        self.events = tuple(events)
        self._reducers: dict[type[Event], Callable[[R, Any], R]] = {}

    def on(self, kind: type[E], reduce: Callable[[R, E], R]) -> None:
        if kind in self._reducers:
            raise IncompleteGame(f"{self.game}: {kind.__name__}'s reducer is registered twice")
        self._reducers[kind] = reduce

    def seal(self) -> Reducers[R]:
        """Every kind of the game's events has its reducer (else IncompleteGame); called once, at import."""
        _missing("reducer", self.game, self.events, self._reducers)
        return self

    def apply(self, state: R, event: Event) -> R:
        """The state after `event`; trusts its input (the guards have judged it)."""
        return self._reducers[type(event)](state, event)

    def by_kind(self) -> dict[type[Event], Callable[[R, Any], R]]:
        """Each kind's reducer: `apply` without its own call, for a fold (the engine's `judge`, a game's `apply`
        that does more after the reducer), which pays that call once per event of every log it reads."""
        return self._reducers


def reducers_of(apply: Callable[[Any, Event], Any], kinds: Iterable[type[Event]]) -> dict[type[Event], Callable[[Any, Any], Any]]:
    """The reducer of each of `kinds` that a game's `apply` calls: its `Reducers`' own when `apply` is that
    kernel's `apply`, else `apply` itself for every kind (a game whose `apply` does more after the reducer)."""
    owner = getattr(apply, "__self__", None)
    if isinstance(owner, Reducers) and getattr(apply, "__func__", None) is Reducers.apply:
        return owner.by_kind()
    return dict.fromkeys(kinds, apply)


def guards_of(check: Callable[[Any, Event], list[Ruling]]) -> Guards[Any] | None:
    """The kernel's `Guards` whose `check` a game's `check` is (every registered game's), else None (a `check` of
    its own: a fold then calls it)."""
    owner = getattr(check, "__self__", None)
    if isinstance(owner, Guards) and getattr(check, "__func__", None) is Guards.check:
        return owner
    return None
