"""A recording session at the table: one log kept open, its fold in memory, every move appended as entered.

`tally record` is a loop around this: the log is read and judged once, then each move is judged against
the fold in memory and appended (one write, fsync) under the log's lock, so a move costs a parse, the
rule checks and a write, not a re-read. Another process may write to the log meanwhile (a second recorder,
`tally move` in another terminal): every append names the seq and fingerprint the session last saw, so the
record service refuses it as stale and re-reads the log, and a move is never judged against a table the
recorder has not seen. Such a refusal (`core.append.stale`) is returned like any other, after the log is
re-read, so the recorder sees where the log is now.

A bare number means a move of the listing the session last showed (`moves`), as `tally move LOG N` means
one of the listing `tally moves` last showed: it is refused as stale once the log has moved on since (before
any listing is shown it means the listing now).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from tally.core.engine import Table
from tally.core.model import Event, GameSpec, NotationError
from tally.core.notation import read_count
from tally.core.text import quote
from tally.store.recording.service import (
    MOVE_SEPARATOR,
    GameRecord,
    MoveResult,
    is_move_number,
    listing_range,
    seat_moves,
    stale,
)

if TYPE_CHECKING:
    from tally.store.recording.results import ListingReport


class Shown(msgspec.Struct, frozen=True):
    """The listing a session last showed (`moves`): at which seq and fingerprint, and how many moves it held.
    A bare number the recorder types means the move numbered so there."""

    seq: int
    fingerprint: str
    count: int
    numbered: str  # how it was numbered, in words (`1-23`, `none: the game is over`)


class Session:
    """One log at the table. `changed()` says whether another process wrote to it since the session last
    read or wrote it; `refresh()` re-reads it; `move`, `ask`, `undo` and `note` act as the single commands do."""

    def __init__(self, path: Path | str, viewer: str | None = None):
        self.record = GameRecord.open(path)
        self.path = self.record.path
        self.viewer = viewer  # the seat recording (`tally record --as`): the board, listing and completion are its
        self.shown: Shown | None = None

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

    def numbered(self) -> "ListingReport":
        """The legal moves now, numbered, as the session's seat knows the table (all the log knows, with no seat)."""
        from tally.store.recording.results import listing, numbered

        if self.viewer is None:
            return listing(self.record)
        return numbered(self.spec, self.state, self.seq, self.moves(), self.viewer)

    def listing(self) -> "ListingReport":
        """`numbered`, remembered as the listing a bare number refers to."""
        listed = self.numbered()
        self.shown = Shown(
            self.seq, self.record.last_hash, len(listed.moves), listing_range(self.spec, self.state, len(listed.moves))
        )
        return listed

    def moves(self) -> list[Event]:
        """The legal moves now as the session's seat knows the table (all the log knows, with no seat)."""
        return seat_moves(self.spec, self.state, self.viewer)

    def _checked(self, result: MoveResult) -> MoveResult:
        if result.is_stale:  # another process wrote: the recorder is shown the table as it is now
            self.refresh()
        return result

    def _listed(self, text: str) -> MoveResult | None:
        """The refusal of a bare number that is not a move of the listing last shown, or was shown at another
        position than the log's now; None when it is one, when no listing was shown yet (then the number means
        the listing now, as for `tally move LOG N`), or when `text` starts with no number."""
        word = MOVE_SEPARATOR.split(text.strip())[0].strip()
        if not is_move_number(word):
            return None
        spec, state = self.spec, self.state
        if self.shown is None:  # as `tally move LOG N` without a remembered listing: the listing now
            return None
        if not read_count(word, self.shown.count):
            message = f"there is no move number {quote(word)} in the listing (`moves`: {self.shown.numbered})"
            return MoveResult(
                accepted=False,
                text=text,
                notation=NotationError(word, message, kind="unknown"),
                seq=self.seq + 1,
                to_act=spec.to_act(state),
                path=self.path,
            )
        if (self.shown.seq, self.shown.fingerprint) != (self.seq, self.record.last_hash):
            return stale(self.record, text, f"the listing `moves` showed at #{self.shown.seq}")
        return None

    # ------------------------------------------------------------------ acting

    def ask(self, text: str) -> MoveResult:
        """A ruling on `text` now, recording nothing (`?MOVE` in the session, `tally rule`)."""
        return self._listed(text) or self.record.propose(text)

    def move(self, text: str) -> MoveResult:
        """Append the move(s) `text` if legal (and chance tally deals in open mode); else the ruling."""
        refused = self._listed(text)
        if refused is not None:
            return refused
        seq, fingerprint = self.seq, self.record.last_hash
        if self.viewer is not None and is_move_number(text.strip()):
            text = self._seat_move(text.strip())
        return self._checked(self.record.append(text, seq, fingerprint, history=True))

    def _seat_move(self, number: str) -> str:
        """A move number of the seat's listing as the move's notation, judged as typed (the log's own listing
        may number its moves otherwise when the log knows cards the seat does not)."""
        moves = self.moves()
        index = int(number) - 1
        return self.spec.format(moves[index]) if 0 <= index < len(moves) else number

    def undo(self, reason: str, turn: bool = False) -> MoveResult:
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(self.record.undo(reason, turn, seq, fingerprint))

    def correct(self, target: int, reason: str, move: str | None = None) -> MoveResult:
        """Void event `target` (any effective one), or with `move` replace it (`undo #N`, `amend #N MOVE`)."""
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(self.record.correct(target, reason, move, seq, fingerprint))

    def note(self, text: str) -> MoveResult:
        seq, fingerprint = self.seq, self.record.last_hash
        return self._checked(self.record.note(text, None, seq, fingerprint))
