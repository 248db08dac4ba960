"""A game folded through `Table.step` for the hypothesis properties: what every game's playout shares.

It keeps every event stepped, mirrors the table's undo stack (the state before each effective event), runs
hooks after each event (a property watching the game go by), and takes the detours a real log takes: voiding
the last effective event, and notes that change nothing.
"""

from __future__ import annotations

from typing import Any

import msgspec

from tally.core.engine import Table
from tally.core.model import Event, GameSpec, GameStarted, Noted, Voided


class Recorder:
    def __init__(self, spec: GameSpec, started: GameStarted, *, voids: bool = False, notes: bool = False):
        self.spec = spec
        self.started = started
        self.table = Table(spec, started)
        self.events: list[Event] = [started]
        self.undo: list[Any] = []  # the state before each effective event
        self.effective: list[Event] = []  # those events
        self.voids, self.notes, self.voided = voids, notes, 0
        self.hooks: list[Any] = []

    @property
    def state(self) -> Any:
        return self.table.state

    def record(self, event: Event) -> list[Any]:
        """Step a move that must not be illegal; returns its rulings (unverifiable notes)."""
        event = msgspec.structs.replace(event, seq=self.events[-1].seq + 1)
        before = self.state
        step = self.table.step(event)
        assert step.is_legal, f"{self.spec.format(event)} refused: {[r.render() for r in step.rulings]}"
        self.events.append(event)
        if isinstance(event, Voided):
            self.undo.pop()
            self.effective.pop()
        elif not isinstance(event, Noted):
            self.undo.append(before)
            self.effective.append(event)
        for hook in self.hooks:
            hook(self, event)
        return step.rulings

    def reject(self, event: Event) -> list[Any]:
        """Step a move that must be refused, and show that the refusal changed nothing."""
        event = msgspec.structs.replace(event, seq=self.events[-1].seq + 1)
        before, last, effective = self.state, self.table.last_seq, self.table.last_effective_seq
        step = self.table.step(event)
        assert not step.is_legal, f"{self.spec.format(event)} was accepted in phase {before.phase}"
        assert self.table.state is before and self.table.state == before
        assert (self.table.last_seq, self.table.last_effective_seq) == (last, effective)
        return step.rulings

    def can_void(self) -> bool:
        """Whether the last effective event may be voided (a deal tally made itself may not)."""
        return bool(self.effective) and self.spec.is_voidable(self.effective[-1])

    def void_last(self) -> None:
        """Void the last effective event: the state is the one before it again."""
        before = self.undo[-1]
        self.record(Voided(target=self.table.last_effective_seq, reason="x"))
        assert self.state == before
        self.voided += 1

    def note(self, text: str, player: str | None) -> None:
        """A note changes nothing."""
        state = self.state
        self.record(Noted(text=text, player=player))
        assert self.state is state
