"""The referee's plumbing, written once for every game: guards and reducers registered per event kind.

A game states, for each of its event kinds, the guards that may forbid it (in their fixed order) and the reducer
that applies it, each typed on that event's class, so a guard reads `event.gems` with no cast. `Guards.check` judges
every event in one shape: the game over first (read off the state's phase), then the game's turn (its steps in
order, among them the kernel's own decisions: `OutOfTurn`, whether the event's player is the one to act, and
`Pending`, whether something is pending that the event does not settle; the game gives only their words), then the
kind's own guards. A kind left without a guard or a reducer is an error when the game is imported.

This is the plain path, written to be read. A fold runs the same rules compiled (`dispatch.py`), held to these.
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


def can_answer(step: TurnStep[Any], kind: type[Event], phase: str, seated: bool) -> bool:
    """Whether a step of the turn can answer an event of `kind` in `phase`, in a game where some seat is `seated`
    (or none is): a `Pending` only in its phases, a step only for the kinds it `concerns`, and a step about seated
    seats, while none is, only for the kinds it `answers_unseated`."""
    if isinstance(step, Pending) and phase not in step.phases:
        return False
    kinds = getattr(step, "kinds", None)
    if kinds is not None and kind not in kinds:
        return False
    unseated = getattr(step, "unseated_kinds", None)
    return seated or unseated is None or kind in unseated


def no_rule_of_its_own(state: object, event: Event) -> None:
    """The guard of a kind whose every rule is the turn guard's (a `done`, a bonus let go): nothing more to
    check. Registering it says so; a kind without any guard is refused at import."""
    return None


class Guards(Generic[S]):
    """The guards of one game's event kinds, and `check`, every game's `check`.

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
        self.game, self.events, self.turn = game, tuple(events), tuple(turn)
        self.over_rule, self.out_of_turn_rule = f"{game}.turn.game-over", f"{game}.turn.out-of-turn"
        self.over_words, self.over_facts, self.supposing = over_words, over_facts, supposing
        self.by_kind: dict[type[Event], tuple[Callable[[S, Any], Found], ...]] = {}  # each kind's guards, in order

    def on(self, kind: type[E], *guards: Callable[[S, E], Found]) -> None:
        """`kind`'s guards, in the order they run (the first illegal ruling stops the rest)."""
        if not guards:
            raise IncompleteGame(f"{self.game}: {kind.__name__} registers no guard")
        if kind in self.by_kind:
            raise IncompleteGame(f"{self.game}: {kind.__name__}'s guards are registered twice")
        self.by_kind[kind] = guards

    def seal(self) -> Guards[S]:
        """Every kind of the game's events has its guards (else IncompleteGame); called once, at import."""
        _missing("guard", self.game, self.events, self.by_kind)
        return self

    def check(self, state: S, event: Event) -> list[Ruling]:
        """The rulings that forbid `event` now: empty when legal, or only unverifiable notes. When the game over or
        the turn refuses it, that ruling comes first (it decides) and the rules of the move itself follow, judged
        where the game's `Supposing` allows it."""
        if state.phase == "over":
            return self.with_the_moves_own([self.game_over(state)], state, event)
        refused = self.judge_turn(state, event)
        if refused is not None:
            return self.with_the_moves_own([refused], state, event)
        return self.judge_kind(state, event)

    def game_over(self, state: S) -> Ruling:
        return illegal(self.over_rule, f"{self.over_words(state)}: no more moves", **self.over_facts(state))

    def judge_turn(self, state: S, event: Event) -> Ruling | None:
        """The ruling of the game's turn on `event`: the first refusal of the steps that can answer it, or None
        when it fits (every step passed, or one said `ALLOWED`)."""
        kind, phase, seated = type(event), state.phase, bool(getattr(state, "seated", ()))
        for step in self.turn:
            if can_answer(step, kind, phase, seated):
                found = self.ask(step, state, event)
                if isinstance(found, Allowed):
                    return None
                if found is not None:
                    return found
        return None

    def ask(self, step: TurnStep[S], state: S, event: Event) -> Ruling | Allowed | None:
        """One step's answer: the game's own step is called; the kernel's two decisions are made here."""
        if isinstance(step, OutOfTurn):
            player, current = getattr(event, "player", ""), state.player_name
            if player != current:
                return illegal(self.out_of_turn_rule, step.words(state, player), player=player, current=current)
            return None
        if isinstance(step, Pending):
            if not step.settles(state, event):
                return illegal(step.rule, step.words(state, event), **step.facts(state))
            return None
        return step(state, event)

    def judge_kind(self, state: S, event: Event) -> list[Ruling]:
        """The kind's own guards in their order, the first illegal finding stopping the rest (a later guard may
        assume what an earlier one checked)."""
        notes: list[Ruling] = []
        for guard in self.by_kind[type(event)]:
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

    def with_the_moves_own(self, refused: list[Ruling], state: S, event: Event) -> list[Ruling]:
        """`refused` (the turn's ruling), then what the move's own guards forbid on the supposed state. Only a
        refused event pays for this, never a legal one."""
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
        self.game, self.events = game, tuple(events)
        self.by_kind: dict[type[Event], Callable[[R, Any], R]] = {}

    def on(self, kind: type[E], reduce: Callable[[R, E], R]) -> None:
        if kind in self.by_kind:
            raise IncompleteGame(f"{self.game}: {kind.__name__}'s reducer is registered twice")
        self.by_kind[kind] = reduce

    def seal(self) -> Reducers[R]:
        """Every kind of the game's events has its reducer (else IncompleteGame); called once, at import."""
        _missing("reducer", self.game, self.events, self.by_kind)
        return self

    def apply(self, state: R, event: Event) -> R:
        """The state after `event`; trusts its input (the guards have judged it)."""
        return self.by_kind[type(event)](state, event)
