"""Checkpoints of a log's fold: the state after some of its lines, kept on disk beside the state cache, so that a
position of a long log (the state after line 9,000, the events after it as a seat sees them, the tail after a
restart) is folded from a checkpoint near it, not from line 1. Disposable, like the state cache: the log stays the
truth, and a checkpoint is used only where the log still holds the line it was taken after.

A checkpoint is taken after a line that ends a unit, once in every `SPACING` lines (the unit that holds line 256,
512, ... of the log), by whatever folds past it after judging every line before it: a writer's append, a server
reading a log, the library's replay. It holds the seq of that line, its SHA-256 (the next line's `prev`, or the
fingerprint when it is the last), where the next line begins in the log's bytes, the `game_started` and the state.
Checkpoints are kept by the content of a log, not by its name: under the first 16 hex digits of the SHA-256 of its
first line (the history library's game id), so that a game's file, its copy in a PostgreSQL store and its copy in
the library share them; the prefix a checkpoint stands for is named by the hash of its line, which the `prev` chain
ties to every line before it. A reader that resumes at a checkpoint checks that the next line names it in its
`prev` (or, at the log's end, that the last line hashes to it): a log rewritten, restored from another backup or
forked never meets a checkpoint of another history.

Entries live under `$TALLY_CACHE_DIR/points/` (the state cache's folder).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any, Callable

import msgspec

from tally.core.model import GameSpec, GameStarted
from tally.store.logs import cache

FORMAT = 1
SPACING = 256  # lines between checkpoints: a position is folded from at most this many lines before it (plus a unit)


class Point(msgspec.Struct):
    """The fold after line `seq` of a log: where a reader may resume."""

    format: int
    seq: int
    line_hash: str  # the SHA-256 of line `seq`: line seq+1's `prev`
    offset: int  # the log's bytes through line `seq`, its newline included: where line seq+1 begins in a file
    last_line: int  # line `seq`'s length in bytes, newline included
    started: bytes  # `game_started` (msgpack)
    state: bytes  # the state after line `seq` (msgpack of the game's state type)


class Resumable(msgspec.Struct):
    """A checkpoint decoded: the game, its start and the state after line `seq`."""

    spec: Any
    started: GameStarted
    state: Any
    seq: int
    line_hash: str
    offset: int
    last_line: int


_point_decoder = functools.cache(lambda: msgspec.msgpack.Decoder(Point))  # made on the first checkpoint read
_ENCODER = msgspec.msgpack.Encoder()


def _thread() -> int:
    import threading  # not on `tally move`'s path until a checkpoint is due

    return threading.get_ident()


def key_of(first_line_hash: str) -> str:
    """The folder of a log's checkpoints: the first 16 hex digits of its first line's SHA-256 (a library game id)."""
    return first_line_hash[:16]


def _folder(key: str) -> Path:
    return cache.folder() / "points" / key


def is_due(first: int, last: int) -> bool:
    """Whether a checkpoint is taken after a unit of lines `first`..`last`: it holds a multiple of `SPACING`."""
    return last // SPACING > (first - 1) // SPACING


class Kept(msgspec.Struct, frozen=True, order=True):
    """A checkpoint's name: the seq of its line, the first 16 hex digits of the line's hash, and the log's bytes
    through that line (so that a reader skips, unread, those past the end of the log it reads)."""

    seq: int
    prefix: str
    offset: int


def saved(key: str) -> set[Kept]:
    """Every checkpoint kept under `key`."""
    try:
        names = os.listdir(_folder(key))
    except OSError:
        return set()
    found = set()
    for name in names:
        parts = name[: -len(".point")].split("-") if name.endswith(".point") else []
        if len(parts) == 3 and parts[0].isdigit() and parts[2].isdigit():
            found.add(Kept(int(parts[0]), parts[1], int(parts[2])))
    return found


def candidates(key: str, at_most: int | None = None, seqs: int | None = None, size: int | None = None) -> list[Kept]:
    """The checkpoints kept under `key`, latest first, none after line `at_most`, nor past a log of `seqs` lines and
    `size` bytes (when known)."""
    return sorted(
        (
            point
            for point in saved(key)
            if (at_most is None or point.seq <= at_most)
            and (seqs is None or point.seq <= seqs)
            and (size is None or point.offset <= size)
        ),
        reverse=True,
    )


def _file(key: str, seq: int, line_hash: str, offset: int) -> Path:
    return _folder(key) / f"{seq:09d}-{line_hash[:16]}-{offset}.point"


def save(key: str, seq: int, line_hash: str, offset: int, last_line: int, started: GameStarted, state: Any) -> None:
    """Keep the fold after line `seq`. Best effort: a checkpoint that cannot be written is skipped."""
    target = _file(key, seq, line_hash, offset)
    if target.exists():
        return
    point = Point(FORMAT, seq, line_hash, offset, last_line, _ENCODER.encode(started), _ENCODER.encode(state))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.{_thread()}.tmp")  # a server's threads may race
        temporary.write_bytes(_ENCODER.encode(point))
        os.replace(temporary, target)
    except OSError:
        pass


def load(key: str, kept: Kept, spec_for: Callable[[str], GameSpec]) -> Resumable | None:
    """The checkpoint `kept` names, or None when it cannot be read (written by another version of tally, half gone):
    the caller takes an earlier one."""
    try:
        point = _point_decoder().decode(_file(key, kept.seq, kept.prefix, kept.offset).read_bytes())
        if (
            point.format != FORMAT
            or point.seq != kept.seq
            or not point.line_hash.startswith(kept.prefix)
            or point.offset != kept.offset
        ):
            return None
        started = msgspec.msgpack.decode(point.started, type=GameStarted)
        spec = spec_for(started.game)
        if spec.check_started(started):
            return None
        state: Any = msgspec.msgpack.decode(point.state, type=spec.state_type)
    except Exception:  # a cache from another version of tally, or no file: the log is the truth
        return None
    return Resumable(spec, started, state, point.seq, point.line_hash, point.offset, point.last_line)


def derived(key: str, name: str) -> bytes | None:
    """What was worked out once from a log and kept beside its checkpoints under `name` (a library game's course,
    under its fingerprint), or None."""
    try:
        return (_folder(key) / f"{name}.kept").read_bytes()
    except OSError:
        return None


def keep_derived(key: str, name: str, data: bytes) -> None:
    """Keep `data` beside a log's checkpoints under `name`. Best effort."""
    target = _folder(key) / f"{name}.kept"
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.{_thread()}.tmp")
        temporary.write_bytes(data)
        os.replace(temporary, target)
    except OSError:
        pass
