"""A recording session at the table: one log kept open, its fold in memory, every move appended as entered.

`tally record` is a loop around this: the log is read and judged once, then each move is judged against
the fold in memory and appended (one write, fsync) under the log's lock, so a move costs a parse, the
rule checks and a write, not a re-read. Another process may write to the log meanwhile (a second recorder,
`tally move` in another terminal): every append names the seq and fingerprint the session last saw, so the
record service refuses it as stale and re-reads the log, and a move is never judged against a table the
recorder has not seen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tally.core.engine import Table
from tally.core.model import Event, GameSpec

from .service import GameRecord, MoveResult, is_move_number, seat_moves


class LogChanged(Exception):
    """Another process wrote to the log since the session last saw it: it was re-read, and the move was not
    judged against a table the recorder has not seen (enter it again)."""

    def __init__(self, path: str, new_events: int):
        self.path, self.new_events = path, new_events
        super().__init__(f"{path}: the log changed on disk ({new_events:+d} events); it was re-read, nothing was recorded")


class Session:
    """One log at the table. `changed()` says whether another process wrote to it since the session last
    read or wrote it; `refresh()` re-reads it; `move`, `ask`, `undo` and `note` act as the single commands do."""

    def __init__(self, path: Path | str, viewer: str | None = None):
        self.record = GameRecord.open(path)
        self.path = self.record.path
        self.viewer = viewer  # the seat recording (`tally record --as`): the board, listing and completion are its

    @property
    def table(self) -> Table:
        return self.record.fold

    @property
    def spec(self) -> GameSpec:
        return self.record.spec

    @property
    def state(self) -> Any:
        return self.record.state

    @property
    def seq(self) -> int:
        return self.record.seq

    def changed(self) -> bool:
        """Whether the file is no longer what the session last read or wrote (another process wrote to it)."""
        return self.record.changed()

    def refresh(self) -> int:
        """Re-read the log; the number of events that are new to the session (negative if it shrank)."""
        before = self.seq
        self.record.reload()
        return self.seq - before

    def _checked(self, before: int, result: MoveResult) -> MoveResult:
        if result.is_stale:
            raise LogChanged(self.path, self.seq - before)
        return result

    # ------------------------------------------------------------------ acting

    def ask(self, text: str) -> MoveResult:
        """A ruling on `text` now, recording nothing (`?MOVE` in the session, `tally rule`)."""
        return self.record.propose(text)

    def moves(self) -> list[Event]:
        """The legal moves now as the session's seat knows the table (all the log knows, with no seat)."""
        return seat_moves(self.spec, self.state, self.viewer)

    def move(self, text: str) -> MoveResult:
        """Append the move(s) `text` if legal (and chance tally deals in open mode); else the ruling."""
        seq, fingerprint = self.seq, self.record.last_hash
        if self.viewer is not None and is_move_number(text.strip()):
            text = self._seat_move(text.strip())
        return self._checked(seq, self.record.append(text, seq, fingerprint, history=True))

    def _seat_move(self, number: str) -> str:
        """A move number of the seat's listing as the move's notation, judged as typed (the log's own listing
        may number its moves otherwise when the log knows cards the seat does not)."""
        moves = self.moves()
        index = int(number) - 1
        return self.spec.format(moves[index]) if 0 <= index < len(moves) else number

    def undo(self, reason: str, turn: bool = False) -> MoveResult:
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(seq, self.record.undo(reason, turn, seq, fingerprint))

    def correct(self, target: int, reason: str, move: str | None = None) -> MoveResult:
        """Void event `target` (any effective one), or with `move` replace it (`undo #N`, `amend #N MOVE`)."""
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(seq, self.record.correct(target, reason, move, seq, fingerprint))

    def note(self, text: str) -> MoveResult:
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(seq, self.record.note(text, None, seq, fingerprint))
