"""The exceptions of `tally.store`, apart from the modules that raise them so that any of them may raise any
without importing the others: a usage error, a log that holds an illegal event, and an append that lost the race.
A refusal of a move is never one of them: it is a value (`MoveResult`, `core.model.Ruling`)."""

from __future__ import annotations

from tally.core.model import Ruling


class UsageError(Exception):
    """Bad arguments (exit code 2)."""

    rule = "core.usage"


class IllegalLog(Exception):
    """The log itself holds an event that a rule forbids (exit code 1): nothing is appended to it."""

    def __init__(self, path: str, seq: int, ruling: Ruling):
        self.path, self.seq, self.ruling = path, seq, ruling
        super().__init__(f"{path}:{seq}: the log already holds an illegal event: {ruling.render()}")


class StaleAppend(Exception):
    """An append after a seq that is no longer the log's tail (another writer got there first): nothing appended."""

    def __init__(self, name: str, seq: int):
        self.name, self.seq = name, seq
        super().__init__(f"{name}: the log no longer ends at #{seq}; nothing was appended")
