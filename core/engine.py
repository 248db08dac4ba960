"""Folding a game's events into its state: step = check then apply, with undo as a stack.

`Table` is the running fold of one log. It knows the shared events (`voided`, `amended`, `noted`)
and delegates every game event to the game's spec. A `voided` event may only void the last
effective game event, so the fold stays linear: voiding pops the state that event produced. An
`amended` event corrects any earlier effective event (replaces it, or with no events voids it): the
fold goes back to the state before its target and judges every later effective event again, so a
log without corrections folds exactly as before and a correction costs one pass over what followed.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Union

import msgspec

from .dispatch import check_of, compiles, reducers_of
from .dispatch import fold as fold_compiled
from .model import Amended, Event, GameSpec, GameStarted, Noted, Ruling, Voided, illegal, legal
from .text import quote

_SHARED = frozenset({GameStarted, Voided, Noted, Amended})
Undo = list[tuple[int, Any, Event]]  # (seq of an effective game event, the state before it, the event)


class Step(msgspec.Struct, frozen=True):
    """One event judged against the state before it."""

    event: Event
    rulings: list[Ruling]

    @property
    def is_legal(self) -> bool:
        return not any(r.verdict == "illegal" for r in self.rulings)


class Played(msgspec.Struct):
    """Events judged and applied once, in order (a move, the parts of a `+` line, the chance tally dealt).

    `refused` holds the rulings on the first event something forbids (nothing after it was tried) and
    `refused_seq` the seq it would have had."""

    events: list[Event] = []
    states: list[Any] = []  # the state after each of `events` (a server's timeline keeps them: no second fold)
    rulings: list[Ruling] = []  # the rules that permit the applied events, and unverifiable notes
    consequences: list[str] = []  # what followed without being an event: a noble's visit, the end
    refused: list[Ruling] = []
    refused_seq: int = 0


class Table:
    """The fold of one game's log so far. Mutable as an accumulator; every state in it is frozen."""

    __slots__ = ("spec", "started", "state", "_undo", "last_seq", "_amending", "floor")

    def __init__(self, spec: GameSpec, started: GameStarted):
        self.spec = spec
        self.started = started
        self.state: Any = spec.start(started)
        self._undo: Undo = []
        self.last_seq = started.seq
        self._amending: tuple[Amended, Undo, Any] | None = None  # the correction `check` just re-judged
        self.floor = 0  # the seq it was resumed at (`resume`): its undo stack holds only the effective events after it

    def check(self, event: Event) -> list[Ruling]:
        """Rulings that forbid `event` now (empty when it is legal), plus unverifiable notes."""
        if type(event) not in _SHARED:  # the common case, tested once
            return self.spec.check(self.state, event)
        if isinstance(event, Voided):
            return self._check_void(event)
        if isinstance(event, Amended):
            return self._check_amend(event)
        if isinstance(event, Noted):
            if event.player is not None and event.player not in self.started.seats:
                return [
                    illegal(
                        "core.note.player",
                        f"a note names {event.player!r}, who is not at this table",
                        player=event.player,
                    )
                ]
            return []
        if isinstance(event, GameStarted):
            return [illegal("core.log.one-start", "a game starts once: game_started may only be the first event")]
        return self.spec.check(self.state, event)

    def permit(self, event: Event) -> Ruling:
        """The ruling that allows a legal event (which rule permits it)."""
        if isinstance(event, Voided):
            return legal("core.void.last", f"event #{event.target} is voided: {event.reason}", target=event.target)
        if isinstance(event, Amended):
            what = "replaced" if event.events else "voided"
            return legal(
                "core.amend",
                f"event #{event.target} is {what}, and every later event is still legal: {event.reason}",
                target=event.target,
            )
        if isinstance(event, Noted):
            return legal("core.note", "a note changes nothing")
        return self.spec.permit(self.state, event)

    def apply(self, event: Event) -> None:
        """Trusting apply: the caller has checked the event (or is replaying a judged log)."""
        kind = type(event)
        if kind is Voided:
            self.state = self._undo.pop()[1]
        elif kind is Amended:
            self._amend(event)  # type: ignore[arg-type]
        elif kind is not Noted:
            self._undo.append((event.seq, self.state, event))
            self.state = self.spec.apply(self.state, event)
        self.last_seq = event.seq

    def advance(self, event: Event, played: "Played | None" = None) -> Event:
        """Apply a trusted event at the next seq, with what followed from it (`narrate`) added to `played`.

        Returns the event as applied (its seq set): the one fold a recorded move goes through."""
        seq = self.last_seq + 1
        if event.seq != seq:
            event = msgspec.structs.replace(event, seq=seq)
        before = self.state
        self.apply(event)
        if played is not None:
            played.events.append(event)
            played.states.append(self.state)
            if before is not self.state:
                played.consequences.extend(self.spec.narrate(before, self.state))
        return event

    def take(self, event: Event, played: "Played") -> bool:
        """Judge `event` now and, when nothing forbids it, apply it (`advance`) with the rule that permits it;
        otherwise note the rulings that forbid it and the seq it would have had in `played`, changing nothing."""
        found = self.check(event)
        refused = [r for r in found if r.verdict == "illegal"]
        if refused:
            played.refused, played.refused_seq = refused, self.last_seq + 1
            return False
        played.rulings.extend(found)
        played.rulings.append(self.permit(event))
        self.advance(event, played)
        return True

    def deal(self, shuffle: Callable[[list[str]], list[str]], played: "Played | None" = None) -> None:
        """Open mode: the chance due now (a setup, a new round, a reshuffle), as often as the game asks.

        `shuffle` (outside core: core draws nothing at random) orders each pile the game names; the game's
        `deal` turns the orders into events, applied here in turn."""
        while piles := self.spec.shuffles(self.state):
            shuffled = {name: shuffle(list(pile)) for name, pile in piles.items()}
            for event in self.spec.deal(self.state, shuffled):
                self.advance(event, played)

    def step(self, event: Event) -> Step:
        """Check, then apply only if nothing forbids it: a rejected step leaves the state unchanged."""
        rulings = self.check(event)
        result = Step(event, rulings)
        if result.is_legal:
            self.apply(event)
        return result

    def _amend(self, event: Amended) -> None:
        amending = self._amending
        if amending is None or amending[0] is not event:
            corrected = self._corrected(event)
            if isinstance(corrected, list):
                raise ValueError(f"apply of an illegal correction (event #{event.seq}): {corrected[0].render()}")
            amending = (event, *corrected)
        self._amending = None
        self._undo[:] = amending[1]
        self.state = amending[2]

    def _check_amend(self, event: Amended) -> list[Ruling]:
        corrected = self._corrected(event)
        if isinstance(corrected, list):
            self._amending = None
            return corrected
        self._amending = (event, *corrected)  # `apply` takes it over instead of judging it all again
        return []

    def replacement(self, event: Amended) -> list[Event] | Ruling:
        """The game events an `amended` puts in place of its target (each at the correction's seq), read
        as strictly as a log line: typed, no unknown field, in canonical form."""
        decoder = msgspec.json.Decoder(Union[tuple(self.spec.events)])
        events: list[Event] = []
        for raw in event.events:
            try:
                new = decoder.decode(raw)
            except msgspec.DecodeError as error:
                return illegal(
                    "core.amend.event",
                    f"the correction of #{event.target} holds something that is not "
                    f"an event of {self.spec.name}: {quote(str(error))}",
                    target=event.target,
                )
            if msgspec.json.encode(new) != bytes(raw):
                return illegal(
                    "core.amend.event",
                    f"the correction of #{event.target} holds an event that is not "
                    "in canonical form (as tally writes it: compact, fields in order, no defaults)",
                    target=event.target,
                )
            events.append(msgspec.structs.replace(new, seq=event.seq))
        return events

    def correction_steps(self, event: Amended) -> Undo:
        """The events a correction judges, each with the state it is judged on: its replacement's (at the
        correction's seq), then every later effective event, up to and including the first it would make illegal.
        A caller that may know less than the log judges them again on what it knows (`store.service`)."""
        steps: Undo = []
        self._corrected(event, steps)
        return steps

    def _corrected(self, event: Amended, steps: Undo | None = None) -> tuple[Undo, Any] | list[Ruling]:
        """The fold with `event`'s target replaced and every later effective event judged again after it:
        the new undo stack and state, or the rulings that forbid the correction (the first event that
        would become illegal, named by its seq). `steps`: filled with each event judged and its state."""
        target = event.target
        index = next((i for i, entry in enumerate(self._undo) if entry[0] == target), None)
        if index is None:
            return [
                illegal(
                    "core.amend.not-effective",
                    f"#{target} is not an effective game event now (not "
                    "recorded, a note, a correction, or already voided or replaced)",
                    target=target,
                )
            ]
        if not event.reason.strip():
            return [illegal("core.amend.reason", "a correction needs a reason")]
        if not self.spec.is_voidable(self._undo[index][2]):
            return [
                illegal(
                    "core.amend.dealt",
                    f"event #{target} is chance that tally dealt itself (open mode); it cannot be corrected",
                    target=target,
                )
            ]
        replacement = self.replacement(event)
        if isinstance(replacement, Ruling):
            return [replacement]
        state = self._undo[index][1]
        check, apply = check_of(self.spec, state), self.spec.apply  # every later event judged again: the fast path
        undo = self._undo[:index]
        for new in replacement:
            if steps is not None:
                steps.append((event.seq, state, new))
            refused = [r for r in check(state, new) if r.verdict == "illegal"]
            if refused:
                return [correction_refused(target, refused[0])]
            undo.append((event.seq, state, new))
            state = apply(state, new)
        for seq, _, later in self._undo[index + 1 :]:
            if steps is not None:
                steps.append((seq, state, later))
            refused = [r for r in check(state, later) if r.verdict == "illegal"]
            if refused:
                return [correction_refused(target, refused[0], seq)]
            undo.append((seq, state, later))
            state = apply(state, later)
        return undo, state

    def effective_event(self, seq: int) -> Event | None:
        return next((event for at, _, event in self._undo if at == seq), None)

    def state_before(self, seq: int) -> Any | None:
        """The state just before the effective game event `seq` (None when `seq` is not one)."""
        return next((before for at, before, _ in self._undo if at == seq), None)

    def state_after(self, seq: int) -> Any | None:
        """The state just after the effective game event `seq` (None when `seq` is not one)."""
        undo = self._undo
        for index, (at, _, _) in enumerate(undo):
            if at == seq:
                return undo[index + 1][1] if index + 1 < len(undo) else self.state
        return None

    @property
    def effective(self) -> list[Event]:
        """The effective game events in order: what the log means after its voids and corrections
        (a correction's events carry its seq)."""
        return [event for _, _, event in self._undo]

    @classmethod
    def resume(cls, spec: GameSpec, started: GameStarted, state: Any, last_seq: int) -> "Table":
        """A fold restored from a cached state: it can judge and apply, but holds no undo history before `last_seq`
        (its `floor`): the events applied from then on are undoable."""
        table = cls.__new__(cls)
        table.spec, table.started, table.state, table._undo, table.last_seq = spec, started, state, [], last_seq
        table._amending, table.floor = None, last_seq
        return table

    def reaches_below(self, event: Event) -> bool:
        """Whether a correction (`voided`, `amended`) would take back an event before the resumed fold's `floor`,
        which its undo stack does not hold: it can be judged only on a fold resumed earlier (or from the start)."""
        if isinstance(event, Voided):
            return not self._undo and self.floor > 0
        if isinstance(event, Amended):
            return event.target <= self.floor
        return False

    def snapshot(self) -> tuple[Any, int, list[tuple[int, Any, Event]]]:
        return self.state, self.last_seq, list(self._undo)  # a copy: a tentative void pops the stack

    def restore(self, snapshot: tuple[Any, int, list[tuple[int, Any, Event]]]) -> None:
        """Go back to a snapshot: tentative events (a question, not a record) leave no trace."""
        self.state, self.last_seq, undo = snapshot
        self._undo[:] = undo

    def keep_undo(self, events: list[Event], stop: Event) -> None:
        """The undo stack a fold keeping one would hold just before `stop` (of `events`, the log this table folds),
        rebuilt by the trusting `apply` of the events before it (they were judged): a fold that kept none meets a
        void or a correction."""
        table = Table(self.spec, self.started)
        for event in events[1:]:
            if event is stop:
                break
            table.apply(event)
        self._undo[:] = table._undo

    @property
    def last_effective_seq(self) -> int | None:
        return self._undo[-1][0] if self._undo else None

    @property
    def last_effective_event(self) -> Event | None:
        """The event a void would take back now."""
        return self._undo[-1][2] if self._undo else None

    def last_turn(self) -> list[int]:
        """The seqs of the last turn's effective events, newest first, as `tally undo --turn` voids them.

        The turn is the view's `turn` before the last effective event; the walk back stays in it, ends at
        chance that came before the turn's first player move (a setup reveal), and never passes an event
        that cannot be voided."""
        if not self._undo:
            return []
        spec = self.spec

        def turn_of(state: Any) -> Any:
            return spec.turn(state)

        turn = turn_of(self._undo[-1][1])
        seqs: list[int] = []
        played = False
        for seq, before, event in reversed(self._undo):
            if seqs and (turn_of(before) != turn or not spec.is_voidable(event)):
                break
            has_player = bool(getattr(event, "player", None))
            if played and not has_player:
                break
            played = played or has_player
            seqs.append(seq)
        return seqs

    def _check_void(self, event: Voided) -> list[Ruling]:
        last = self.last_effective_seq
        if last is None:
            return [illegal("core.void.nothing", "nothing to void: no game event has happened yet")]
        if event.target != last:
            return [
                illegal(
                    "core.void.last-only",
                    f"only the last effective event (#{last}) can be voided, not #{event.target}; "
                    "void back to it one event at a time",
                    target=event.target,
                    last=last,
                )
            ]
        if not event.reason.strip():
            return [illegal("core.void.reason", "a void needs a reason")]
        if not self.spec.is_voidable(self._undo[-1][2]):
            return [
                illegal(
                    "core.void.dealt",
                    f"event #{last} is chance that tally dealt itself (open mode); it cannot be voided",
                    target=event.target,
                )
            ]
        return []


def correction_refused(target: int, refused: Ruling, later: int | None = None) -> Ruling:
    """Why a correction of `target` is refused: its replacement is illegal there (`later` None), or it would make
    the later effective event at seq `later` illegal; `refused` is the ruling that forbids that event."""
    if later is None:
        return illegal(
            "core.amend.illegal",
            f"the correction of #{target} is illegal there: {refused.render()}",
            target=target,
            broken=refused.rule,
        )
    return illegal(
        "core.amend.breaks-later",
        f"correcting #{target} would make #{later} illegal: {refused.render()}",
        target=target,
        seq=later,
        broken=refused.rule,
    )


def _first(event: Event) -> GameStarted:
    """A log's first event, which the log reader guarantees is its `game_started`."""
    if not isinstance(event, GameStarted):
        raise ValueError(f"a fold starts at game_started, not {type(event).__name__}")
    return event


def fold(spec: GameSpec, events: Iterable[Event]) -> Table:
    """Fold a judged sequence of events (the first is game_started) without re-checking them."""
    iterator = iter(events)
    table = Table(spec, _first(next(iterator)))
    for event in iterator:
        table.apply(event)
    return table


def dealt(spec: GameSpec, state: Any, shuffle: Callable[[list[str]], list[str]]) -> tuple[list[Event], Any]:
    """`Table.deal` without a table: the chance events due in `state` and the state after them."""
    events: list[Event] = []
    while piles := spec.shuffles(state):
        shuffled = {name: shuffle(list(pile)) for name, pile in piles.items()}
        for event in spec.deal(state, shuffled):
            state = spec.apply(state, event)
            events.append(event)
    return events, state


def play_out(
    spec: GameSpec,
    started: GameStarted,
    choose: Callable[[list[Event]], Event],
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], Any]:
    """A game played from `started` by `choose` (one of the legal moves) until none is left or the log
    holds `limit` events, the chance it makes due dealt by `shuffle`; its events and final state."""
    legal_moves = spec.legal_moves

    def pick(state: Any, _: Any) -> Event | None:
        moves = legal_moves(state)
        return choose(moves) if moves else None

    return _played(spec, started, pick, None, shuffle, limit)


def playout(
    spec: GameSpec,
    started: GameStarted,
    below: Callable[[int], int],
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], Any]:
    """A whole playout from `started`, each move drawn by `below`: the game's own faster way (`spec.play_drawn`, its
    `playout.py`) where it has one, else the kernel's loop (`play_drawn`); the same events and state either way."""
    own = spec.play_drawn
    return (own or play_drawn)(spec, started, below, shuffle, limit)


def play_drawn(
    spec: GameSpec,
    started: GameStarted,
    below: Callable[[int], int],
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
) -> tuple[list[Event], Any]:
    """`play_out` choosing `legal_moves(state)[below(n)]`, each move built alone by the game's `pick_move`:
    the same draws give the same events as `play_out` choosing `moves[below(len(moves))]`."""
    return _played(spec, started, spec.pick_move, below, shuffle, limit)


def _played(
    spec: GameSpec,
    started: GameStarted,
    pick: Callable[[Any, Any], Event | None],
    below: Any,
    shuffle: Callable[[list[str]], list[str]],
    limit: int,
    moved: Callable[[Any, Event, Any], None] | None = None,
) -> tuple[list[Event], Any]:
    """The playout loop: `pick(state, below)` is each move. The moves come from the game's own move generator, so
    they are applied without being judged again (`tests/core/test_simulate_moves.py` judges such playouts of every
    game), and with no undo stack: a playout is written, never voided. `moved(before, move, after)`, if given, is
    told of each move (a game's playout that keeps an index of the table from move to move, as Array's does)."""
    chance, state = dealt(spec, spec.start(started), shuffle)
    events: list[Event] = [started, *chance]
    shuffles, append = spec.shuffles, events.append
    reduce = reducers_of(spec.apply, spec.events)  # spec.apply's own dispatch, done here: one call fewer per move
    while len(events) < limit:
        move = pick(state, below)
        if move is None:
            break
        if moved is None:
            state = reduce[type(move)](state, move)
        else:
            after = reduce[type(move)](state, move)
            moved(state, move, after)
            state = after
        append(move)
        if shuffles(state):  # a new round's deal, say: chance tally deals in an open game
            chance, state = dealt(spec, state, shuffle)
            events.extend(chance)
    return events, state


class Judgement(msgspec.Struct):
    """The verdict on a whole log: ok, how far it got, and the first ruling that forbids an event."""

    ok: bool
    events: int
    failed_seq: int | None = None
    rulings: list[Ruling] = []
    warnings: list[tuple[int, Ruling]] = []
    reaches: int | None = None  # a resumed fold's judgement stopped by a correction reaching before it (`judge`)


def judge(
    spec: GameSpec,
    events: list[Event],
    watch: Callable[[Event, Any, Any], None] | None = None,
    kept: list[tuple[Event, Any, Any]] | None = None,
    undoable: bool = True,
    start: Table | None = None,
) -> tuple[Judgement, Table]:
    """Check every event in order against the fold before it; stop at the first illegal one.

    `watch(event, before, after)` sees every applied event with the states around it (projections); `kept` gets
    the same `(event, before, after)` appended, without a call of Python per event (a replay's frames).

    `undoable=False`, for a caller that reads only the end of the fold (`tally check`, ingest): the table may keep
    no undo stack, so each state is let go as soon as the next is made, until a void or a correction needs the
    stack (`Table.keep_undo`). The table returned then knows its effective events only if the log has one.

    `start`: a fold resumed at some line (`Table.resume`, from a checkpoint), judged on: `events` are the events after
    it, no `game_started`. A correction that reaches before its `floor` (`Table.reaches_below`) stops the judgement
    there, not ok, with `reaches` set to the seq it would take back: judge again from a fold resumed before it.

    What it finds is `judge_plainly`'s; a game whose `check` is the kernel's `Guards.check` (every registered
    game) is folded by `dispatch.fold`, which writes the same loop out for speed.
    """
    if not compiles(spec):
        return judge_plainly(spec, events, watch, kept, start)
    table, after, undoable = _begun(spec, events, start, undoable)
    failed, rulings, warnings, reaches = fold_compiled(table, events, after, watch, kept, undoable)
    return Judgement(failed is None, len(events), failed, rulings, warnings, reaches), table


def _begun(spec: GameSpec, events: list[Event], start: Table | None, undoable: bool) -> tuple[Table, list[Event], bool]:
    """The table a judgement begins on and the events it folds: from the log's start, or resumed (then undoable)."""
    if start is None:
        return Table(spec, _first(events[0])), events[1:], undoable
    return start, events, True


def _reach(table: Table, event: Event) -> int:
    """The seq a correction reaching below a resumed fold's floor would take back (`Judgement.reaches`)."""
    target = event.target if isinstance(event, (Voided, Amended)) else table.floor
    return min(target, table.floor)


def judge_plainly(
    spec: GameSpec,
    events: list[Event],
    watch: Callable[[Event, Any, Any], None] | None = None,
    kept: list[tuple[Event, Any, Any]] | None = None,
    start: Table | None = None,
) -> tuple[Judgement, Table]:
    """`judge` as `Table.step` does it, event after event: what a fold means."""
    table, after, _ = _begun(spec, events, start, True)
    warnings: list[tuple[int, Ruling]] = []
    for event in after:
        before = table.state
        if table.floor and table.reaches_below(event):
            return Judgement(False, len(events), event.seq, [], warnings, _reach(table, event)), table
        rulings = table.check(event)
        if any(r.verdict == "illegal" for r in rulings):
            return Judgement(False, len(events), event.seq, rulings, warnings), table
        warnings.extend((event.seq, r) for r in rulings)
        table.apply(event)
        if watch is not None:
            watch(event, before, table.state)
        if kept is not None:
            kept.append((event, before, table.state))
    return Judgement(True, len(events), None, [], warnings), table
