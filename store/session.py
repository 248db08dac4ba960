"""A recording session at the table: one log kept open, its fold in memory, every move appended as entered.

`tally record` is a loop around this: the log is read and judged once, then each move is judged against
the fold in memory and appended (one write, fsync) under the log's lock, so a move costs a parse, the
rule checks and a write, not a re-read. Another process may write to the log meanwhile (a second recorder,
`tally move` in another terminal): the session compares the file with what it last wrote before every
move, and re-reads it when it changed, so a move is never judged against a table that is out of date.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from tally.core.engine import Table
from tally.core.model import GameSpec

from . import log as logfile
from .record import Outcome, fold, propose, submit, void, write_note


class LogChanged(Exception):
    """Another process wrote to the log since the session last saw it: it was re-read, and the move was not
    judged against a table the recorder has not seen (enter it again)."""

    def __init__(self, path: str, new_events: int):
        self.path, self.new_events = path, new_events
        super().__init__(f"{path}: the log changed on disk ({new_events:+d} events); it was re-read, nothing was recorded")


def _identity(info: os.stat_result) -> tuple[int, int, int, int]:
    return info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns


class Session:
    """One log at the table. `changed()` says whether another process wrote to it since the session last
    read or wrote it; `refresh()` re-reads it; `move`, `ask`, `undo` and `note` act as the single commands do."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self.table: Table
        self.last_hash = ""
        self.identity: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._reload()

    # ------------------------------------------------------------------ reading

    def _reload(self) -> None:
        # read and stat under the writer's lock: a write in between would pair an old fold with the new file
        with logfile.Locked(self.path) as locked:
            self._load(locked)

    def _load(self, locked: logfile.Locked) -> None:
        log = locked.read()
        self.table, self.last_hash, self.identity = fold(log), log.last_hash, _identity(os.fstat(locked.fd))

    @property
    def spec(self) -> GameSpec:
        return self.table.spec

    @property
    def state(self) -> Any:
        return self.table.state

    @property
    def seq(self) -> int:
        return self.table.last_seq

    def changed(self) -> bool:
        """Whether the file is no longer what the session last read or wrote (another process wrote to it)."""
        try:
            return _identity(os.stat(self.path)) != self.identity
        except OSError:
            return True

    def refresh(self) -> int:
        """Re-read the log; the number of events that are new to the session (negative if it shrank)."""
        before = self.seq
        self._reload()
        return self.seq - before

    def _locked(self) -> logfile.Locked:
        """The log under the writer's lock; LogChanged (after re-reading it) if another process wrote to it."""
        locked = logfile.Locked(self.path)
        try:
            if _identity(os.fstat(locked.fd)) != self.identity:
                before = self.seq
                self._load(locked)
                raise LogChanged(self.path, self.seq - before)
        except BaseException:
            locked.close()
            raise
        return locked

    # ------------------------------------------------------------------ acting

    def ask(self, text: str) -> Outcome:
        """A ruling on `text` now, recording nothing (`?MOVE` in the session, `tally rule`)."""
        result = propose(self.spec, self.table, text)
        result.path = self.path
        return result

    def move(self, text: str) -> Outcome:
        """Append the move(s) `text` if legal (and chance tally deals in open mode); else the ruling."""
        with self._locked() as locked:
            result = submit(locked, self.table, self.last_hash, text)
            self._wrote(locked, result)
        return result

    def undo(self, reason: str, turn: bool = False) -> Outcome:
        with self._locked() as locked:
            result = void(locked, self.table, self.last_hash, reason, turn)
            self._wrote(locked, result)
        return result

    def note(self, text: str) -> Outcome:
        with self._locked() as locked:
            result = write_note(locked, self.table, self.last_hash, text)
            self._wrote(locked, result)
        return result

    def _wrote(self, locked: logfile.Locked, result: Outcome) -> None:
        if result.accepted and result.fingerprint:
            self.last_hash = result.fingerprint
            self.identity = _identity(os.fstat(locked.fd))
