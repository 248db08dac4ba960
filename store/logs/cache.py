"""A disposable cache of a log's folded state, so `tally move` need not re-judge the whole log.

The log stays the truth. A cache entry is trusted only while the file has the same inode, size,
modification time and inode-change time (ctime: unlike mtime it cannot be set back, so an edit
in place followed by `touch -d` to restore the mtime is still seen), and its last line still
hashes to the recorded fingerprint; anything else (an edit, a torn tail, a repair, another
version of tally) falls back to a full read and check. Entries live under `$TALLY_CACHE_DIR`
(default `$XDG_CACHE_HOME/tally` or `~/.cache/tally`).
"""

import os
from pathlib import Path
from typing import Any

import msgspec

from tally.core.model import GameSpec, GameStarted
from tally.store.logs import log as logfile

FORMAT = 2  # 2: entries record the log's ctime


class Entry(msgspec.Struct):
    format: int
    path: str
    inode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    last_seq: int
    last_hash: str
    last_line: int  # byte length of the last line, newline included
    started: bytes
    state: bytes


def folder() -> Path:
    """Where the cache lives (the state cache, the listings, and the checkpoints of `checkpoints.py`)."""
    configured = os.environ.get("TALLY_CACHE_DIR")
    if configured:
        return Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tally"


def _file_for(path: str) -> Path:
    key = logfile.sha256_hex(os.path.realpath(path).encode())[:32]
    return folder() / f"{key}.state"


_ENTRY = msgspec.msgpack.Decoder(Entry)
_ENCODER = msgspec.msgpack.Encoder()


def load(path: str, fd: int, spec_for: Any) -> tuple[GameSpec, GameStarted, Any, Entry] | None:
    """The cached (spec, started, state, entry) for the open log `fd`, or None if it cannot be trusted."""
    try:
        entry = _ENTRY.decode(_file_for(path).read_bytes())
    except (OSError, msgspec.DecodeError):
        return None
    info = os.fstat(fd)
    if (
        entry.format != FORMAT
        or entry.inode != info.st_ino
        or entry.size != info.st_size
        or entry.mtime_ns != info.st_mtime_ns
        or entry.ctime_ns != info.st_ctime_ns
        or entry.last_line > entry.size
    ):
        return None
    tail = os.pread(fd, entry.last_line, entry.size - entry.last_line)
    if not tail.endswith(b"\n") or logfile.sha256_hex(tail[:-1]) != entry.last_hash:
        return None
    try:
        started = msgspec.msgpack.decode(entry.started, type=GameStarted)
        spec = spec_for(started.game)
        if spec.check_started(started):  # judged by an older tally: the reader now refuses that log
            return None
        state = msgspec.msgpack.decode(entry.state, type=spec.state_type)
    except Exception:  # a cache from another version of tally: ignore it, the log is the truth
        return None
    return spec, started, state, entry


def save(path: str, fd: int, started: GameStarted, last_seq: int, last_hash: str, last_line: int, state: Any) -> None:
    """Record the state after the log's last line. Best effort: a cache that cannot be written is skipped."""
    info = os.fstat(fd)
    entry = Entry(
        FORMAT,
        os.path.realpath(path),
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        last_seq,
        last_hash,
        last_line,
        _ENCODER.encode(started),
        _ENCODER.encode(state),
    )
    target = _file_for(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.tmp")
        temporary.write_bytes(_ENCODER.encode(entry))
        os.replace(temporary, target)
    except OSError:
        pass


# --------------------------------------------------------------------------- the listing a move number refers to


class Listing(msgspec.Struct):
    """The legal moves `tally moves` last showed for a log: at which seq and fingerprint, how many, and how
    the listing was numbered in words (`1-23`, `none: the game is over`). `tally move LOG N` reads N
    against it, so a number always means the move its user saw."""

    format: int
    path: str
    seq: int
    fingerprint: str
    count: int
    shown: str


_LISTING = msgspec.msgpack.Decoder(Listing)


def remember_listing(path: str, seq: int, fingerprint: str, count: int, shown: str) -> None:
    """Best effort, like the state: without it a number means the listing at the log's tail."""
    target = _file_for(path).with_suffix(".moves")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_suffix(f".{os.getpid()}.mtmp")
        temporary.write_bytes(_ENCODER.encode(Listing(FORMAT, os.path.realpath(path), seq, fingerprint, count, shown)))
        os.replace(temporary, target)
    except OSError:
        pass


def listed(path: str) -> Listing | None:
    """The listing last shown for the log at `path`, or None."""
    try:
        entry = _LISTING.decode(_file_for(path).with_suffix(".moves").read_bytes())
    except (OSError, msgspec.DecodeError):
        return None
    if entry.format != FORMAT or entry.path != os.path.realpath(path):
        return None
    return entry
