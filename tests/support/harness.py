"""A running fold of one game's log, built move by move: what every game's test helper (`<game>_helpers.Game`)
shares. A game's helper names its spec and default manifest and adds what reads its own position.

Moves are events or text in the game's notation (`"ben: take r g b"`); each is stamped with the next seq.
Verbs, each asserting what it says:
- `do(*moves)`: every move is legal (an unverifiable note is allowed); chainable;
- `accept(move)`: no ruling at all; the move is stepped; returns the ruling that permits it;
- `permits(move)`: as `accept`, leaving the position as it is;
- `refuse(move)`: exactly one ruling, illegal, and stepping changes nothing; returns it;
- `reject(move, rule)`: the first illegal ruling is `rule`, and stepping changes nothing; returns it;
- `doubtful(move)`: exactly one ruling, unverifiable; the move is stepped; returns it;
- `rule(move)`: the rulings as `tally rule` gives them (the move's events in turn, nothing kept).
"""

from __future__ import annotations

from typing import Any, ClassVar, Iterable, Iterator, Union

import msgspec

from tally.core.engine import Step, Table
from tally.core.model import Event, GameSpec, GameStarted, NotationError, Ruling

Move = Union[str, Event]
DEFAULT: Any = object()  # the helper's own manifest


class Harness:
    spec: ClassVar[GameSpec]
    manifest: ClassVar[Any] = None

    def __init__(
        self, seats: Iterable[str] = ("ann", "ben"), mode: str = "open", manifest: Any = DEFAULT, **options: object
    ):
        spec = self.spec
        self.started = GameStarted(
            seq=1,
            game=spec.name,
            rules=spec.rules_version,
            seats=list(seats),
            mode=mode,  # type: ignore[arg-type]
            options=spec.resolved_options({key.replace("_", "-"): str(value) for key, value in options.items()}),
            manifest=self.manifest if manifest is DEFAULT else manifest,
        )
        assert spec.check_started(self.started) == [], spec.check_started(self.started)
        self.table = Table(spec, self.started)
        self.played: list[Event] = []  # the events stepped, stamped, in order

    # ---------------------------------------------------------------- reading the position

    @property
    def state(self) -> Any:
        return self.table.state

    @property
    def seq(self) -> int:
        """The seq the next event gets."""
        return self.table.last_seq + 1

    def seat(self, name: str) -> Any:
        return self.state.players[self.state.seats.index(name)]

    def to_act(self) -> tuple[str, str]:
        return self.spec.to_act(self.state)

    def legal(self) -> list[str]:
        return [self.spec.format(m) for m in self.spec.legal_moves(self.state)]

    def view(self, seat: str | None = None) -> dict[str, Any]:
        return self.spec.view(self.state, seat)

    # ---------------------------------------------------------------- making events

    def events(self, move: Move) -> list[Event]:
        """The move's events, unstamped: an event as given, or the move in notation read on this position."""
        if not isinstance(move, str):
            return [move]
        parsed = self.spec.parse(self.state, move)
        if isinstance(parsed, NotationError):
            raise AssertionError(parsed.render())
        return list(parsed)

    def event(self, move: Move) -> Event:
        """The move's one event, stamped with the next seq."""
        found = self.events(move)
        assert len(found) == 1, f"{move!r} is {len(found)} events"
        return msgspec.structs.replace(found[0], seq=self.seq)

    # ---------------------------------------------------------------- judging and playing

    def check(self, move: Move) -> list[Ruling]:
        return self.table.check(self.event(move))

    def step(self, event: Event) -> Step:
        """Step `event` stamped with the next seq, whatever the rulings; return the step."""
        stamped = msgspec.structs.replace(event, seq=self.seq)
        step = self.table.step(stamped)
        if step.is_legal:
            self.played.append(stamped)
        return step

    def do(self, *moves: Move) -> Any:
        for move in moves:
            for event in self.events(move):
                step = self.step(event)
                if not step.is_legal:
                    shown = "; ".join(r.render() for r in step.rulings)
                    raise AssertionError(f"{self.spec.format(event)} was refused: {shown}")
        return self

    def accept(self, move: Move) -> Ruling:
        event = self.event(move)
        rulings = self.table.check(event)
        assert rulings == [], "; ".join(r.render() for r in rulings)
        permit = self.table.permit(event)
        assert permit.verdict == "legal"
        self.step(event)
        assert self.table.last_seq == event.seq
        return permit

    def permits(self, move: Move) -> Ruling:
        event = self.event(move)
        rulings = self.table.check(event)
        assert rulings == [], "; ".join(r.render() for r in rulings)
        return self.table.permit(event)

    def _unchanged_by(self, event: Event) -> None:
        before, seq = self.state, self.table.last_seq
        assert not self.table.step(event).is_legal
        assert self.state is before and self.table.last_seq == seq

    def refuse(self, move: Move) -> Ruling:
        event = self.event(move)
        rulings = self.table.check(event)
        # the first ruling decides; every other rule that forbids the move follows it, each illegal and cited once
        assert rulings and all(r.verdict == "illegal" for r in rulings), rulings
        assert len({r.rule for r in rulings}) == len(rulings), rulings
        ruling = rulings[0]
        assert ruling.render() == f"{ruling.message} [{ruling.rule}]"
        self._unchanged_by(event)
        return ruling

    def reject(self, move: Move, rule: str) -> Ruling:
        event = self.event(move)
        illegal = [r for r in self.table.check(event) if r.verdict == "illegal"]
        assert illegal, f"{self.spec.format(event)} was not refused"
        assert illegal[0].rule == rule, illegal[0].render()
        self._unchanged_by(event)
        return illegal[0]

    def doubtful(self, move: Move) -> Ruling:
        event = self.event(move)
        rulings = self.table.check(event)
        assert len(rulings) == 1 and rulings[0].verdict == "unverifiable", rulings
        self.step(event)
        return rulings[0]

    def rule(self, move: Move) -> list[Ruling]:
        saved = self.table.snapshot()
        found: list[Ruling] = []
        try:
            for event in self.events(move):
                rulings = self.table.check(msgspec.structs.replace(event, seq=self.seq))
                found.extend(rulings)
                if any(r.verdict == "illegal" for r in rulings):
                    break
                self.table.apply(msgspec.structs.replace(event, seq=self.seq))
        finally:
            self.table.restore(saved)
        return found


def concealed_names(state: Any, concealed: Any) -> set[str]:
    """The names a game's `conceal` took out of a state: the strings at the places where the concealed state holds
    less (a hand whose known cards became a count), compared place by place, so a name the state holds elsewhere too
    (the box's list of every card) does not hide it."""

    def removed(value: Any, kept: Any) -> set[str]:
        if value == kept:
            return set()
        if isinstance(value, dict) and isinstance(kept, dict) and value.keys() == kept.keys():
            return set().union(*(removed(value[key], kept[key]) for key in value))
        if isinstance(value, list) and isinstance(kept, list) and len(value) == len(kept):
            return set().union(*(removed(a, b) for a, b in zip(value, kept)))
        return set(strings_in(value)) - set(strings_in(kept))

    return removed(msgspec.to_builtins(state), msgspec.to_builtins(concealed)) - {""}


def strings_in(value: Any) -> Iterator[str]:
    """Every string a document holds, keys and values, nested lists, dicts and structs included: what a leak
    test searches for a name the reader may not know."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings_in(key)
            yield from strings_in(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, msgspec.Struct):
        yield from strings_in(msgspec.to_builtins(value))
