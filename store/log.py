"""The game log file (docs/format.md): reading with full integrity checks, and the append-only writer.

Guarantees: an exclusive lock around the whole read-check-append, one `write` per append,
`fsync` before success, a SHA-256 chain (`prev`) over the exact bytes of every line, and a
torn last line (a crash mid-write) detected and recoverable without losing its bytes.
"""

from __future__ import annotations

import fcntl
import os
import stat
from pathlib import Path
from typing import Any, Union

import msgspec

from tally.core import registry
from tally.core.model import SHARED_EVENTS, Event, GameSpec, GameStarted

try:  # the builtin module imports in a fraction of hashlib's OpenSSL binding, which `tally move` would pay for
    from _sha256 import sha256 as _sha256  # Python 3.11
except ImportError:  # pragma: no cover - other Pythons
    try:
        from _sha2 import sha256 as _sha256  # Python 3.12+
    except ImportError:
        from hashlib import sha256 as _sha256


class LogError(Exception):
    """A damaged or unreadable log (exit code 3): names the file, the line and what was expected."""

    def __init__(self, path: Path | str, line: int | None, message: str):
        self.path = str(path)
        self.line = line
        self.message = message
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class TornTail(LogError):
    """The last line has no newline: a write was cut short. `tally repair` moves its bytes aside."""

    def __init__(self, path: Path | str, line: int, torn: bytes, keep: int):
        self.torn = torn
        self.keep = keep  # byte length of the intact part
        super().__init__(
            path,
            line,
            f"torn last line ({len(torn)} bytes without a newline, a write cut short); "
            f"the {line - 1} lines before it are intact; run `tally repair {path}` to move the torn bytes "
            "to a side file and keep the intact lines",
        )


class NothingToRepair(LogError):
    """`repair` on a log whose last line is complete (a usage error, not damage)."""


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegular(LogError):
    """A path that is not a regular file: a directory, FIFO, device or socket is never read as a log."""

    def __init__(self, path: Path | str, mode: int, what: str = "a log"):
        kind = next((name for test, name in _KINDS if test(mode)), "not a regular file")
        super().__init__(path, None, f"{kind}, not a regular file: {what} is a regular file")


def open_regular(path: Path | str, flags: int, what: str = "a log") -> int:
    """`os.open` that never blocks and opens regular files only: O_NONBLOCK makes a FIFO open at once
    (instead of waiting for a writer), and `fstat` then refuses it, like a directory or a device.
    Raises NotRegular, or OSError (no such file, no permission) naming the path."""
    try:
        fd = os.open(path, flags | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except IsADirectoryError:
        raise NotRegular(path, stat.S_IFDIR, what) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, mode, what)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, limit: int | None = None, what: str = "a log") -> bytes:
    """The bytes of a regular file (at most `limit`), read without blocking on a FIFO or a device."""
    fd = open_regular(path, os.O_RDONLY, what)
    try:
        size = os.fstat(fd).st_size
        return os.pread(fd, size if limit is None else min(size, limit), 0)
    finally:
        os.close(fd)


def _cannot(path: Path | str, error: OSError, doing: str) -> LogError:
    if isinstance(error, FileNotFoundError):
        return LogError(path, None, "no such log file")
    return LogError(path, None, f"cannot {doing} it: {error.strerror or error}")


def sha256_hex(line: bytes) -> str:
    return _sha256(line).hexdigest()


_DECODERS: dict[str, msgspec.json.Decoder] = {}
_ENCODER = msgspec.json.Encoder()
_START_DECODER = msgspec.json.Decoder(GameStarted)


def decoder_for(spec: GameSpec) -> msgspec.json.Decoder:
    decoder = _DECODERS.get(spec.name)
    if decoder is None:
        union = Union[tuple(SHARED_EVENTS + spec.events)]  # type: ignore[valid-type]
        decoder = _DECODERS[spec.name] = msgspec.json.Decoder(union)
    return decoder


def encode(event: Event) -> bytes:
    return _ENCODER.encode(event)


def now() -> str:
    """The recording time, ISO-8601 UTC to the millisecond (time, not datetime: cheaper to import on `tally move`)."""
    import time

    moment = time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(moment)) + f".{int(moment * 1000) % 1000:03d}Z"


class Log(msgspec.Struct):
    """A log read and verified: its events, the hash of its last line, its size and last line's length in bytes."""

    path: str
    spec: Any
    events: list[Event]
    last_hash: str
    size: int
    last_line: int

    @property
    def started(self) -> GameStarted:
        return self.events[0]  # type: ignore[return-value]

    @property
    def fingerprint(self) -> str:
        return self.last_hash


def _upcast(spec: GameSpec, line: bytes, error: msgspec.DecodeError) -> Event:
    """An old event version: decode loosely and let the game's upcasters bring it to the current shape.

    A changed event carries a required `v` field, so its old lines fail the fast typed decode and
    land here; old logs are upcast on every read and never rewritten.
    """
    upcasters = spec.upcasters
    if not upcasters:
        raise error
    try:
        raw = msgspec.json.decode(line)
    except msgspec.DecodeError:
        raise error from None
    if not isinstance(raw, dict):
        raise error
    seen: set[tuple[Any, Any]] = set()
    try:
        key = (raw.get("type"), raw.get("v", 1))
        if key not in upcasters:
            raise error
        while key in upcasters:
            if key in seen:
                raise ValueError(f"the upcasters loop at {key[0]} v{key[1]}")
            seen.add(key)
            raw = upcasters[key](raw)
            key = (raw.get("type"), raw.get("v", 1))
    except msgspec.DecodeError:
        raise
    except Exception as failed:  # an old line its upcaster cannot read (or an unhashable type/v) is a damaged line
        raise msgspec.DecodeError(f"{error}; upcasting it failed: {type(failed).__name__}: {failed}") from None
    try:
        return msgspec.convert(raw, Union[tuple(SHARED_EVENTS + spec.events)])  # type: ignore[return-value]
    except msgspec.ValidationError:
        raise error from None


def parse_lines(path: str, data: bytes) -> Log:
    """Verify and decode a whole log's bytes (see docs/format.md for each check)."""
    if not data:
        raise LogError(path, None, "empty file: a log starts with a game_started line")
    if not data.endswith(b"\n"):
        keep = data.rfind(b"\n") + 1
        raise TornTail(path, data.count(b"\n") + 1, data[keep:], keep)
    lines = data.split(b"\n")
    lines.pop()
    try:
        started = _START_DECODER.decode(lines[0])
    except msgspec.DecodeError as error:
        raise LogError(path, 1, f"expected a game_started line: {error}") from None
    if started.seq != 1 or started.prev is not None:
        raise LogError(path, 1, "the first line must have seq 1 and no prev")
    try:
        spec = registry.get(started.game)
    except registry.UnknownGame as error:
        raise LogError(path, 1, str(error)) from None
    problems = spec.check_started(started)
    if problems:
        raise LogError(path, 1, "game_started is not a valid start: " + "; ".join(problems))
    decode = decoder_for(spec).decode
    events: list[Event] = [started]
    append = events.append
    prev = sha256_hex(lines[0])
    seq = 1
    for line in lines[1:]:
        seq += 1
        try:
            event = decode(line)
        except msgspec.DecodeError as error:
            if not line.strip():
                raise LogError(path, seq, "empty line: expected one JSON event per line") from None
            try:
                event = _upcast(spec, line, error)
            except msgspec.DecodeError as final:
                raise LogError(path, seq, f"not a {spec.name} event: {final}") from None
        if event.seq != seq:
            raise LogError(path, seq, f"expected seq {seq}, found {event.seq}")
        if event.prev != prev:
            raise LogError(
                path,
                seq,
                f"prev does not match the SHA-256 of line {seq - 1}: line {seq - 1} was edited, or lines were reordered",
            )
        prev = sha256_hex(line)
        append(event)
    return Log(path, spec, events, prev, len(data), len(lines[-1]) + 1)


def read(path: Path | str) -> Log:
    """Read and verify a log under a shared lock: a writer appends under the exclusive lock, and a
    reader that did not wait for it could see the first part of a line being written (a page at a
    time) and report a torn tail that is not there."""
    try:
        fd = open_regular(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            data = os.pread(fd, os.fstat(fd).st_size, 0)
        finally:
            os.close(fd)
    except LogError:
        raise
    except OSError as error:
        raise _cannot(path, error, "read") from None
    return parse_lines(str(path), data)


def stamp(events: list[Event], after_seq: int, after_hash: str | None, at: str) -> tuple[list[Event], bytes]:
    """Give events their envelope (seq, at, prev) and encode them as the bytes of one append."""
    stamped = []
    chunks = []
    prev = after_hash
    seq = after_seq
    replace = msgspec.structs.replace
    for event in events:
        seq += 1
        event = replace(event, seq=seq, at=at, prev=prev)
        line = _ENCODER.encode(event)
        prev = sha256_hex(line)
        stamped.append(event)
        chunks.append(line)
        chunks.append(b"\n")
    return stamped, b"".join(chunks)


def _write_all(fd: int, payload: bytes) -> None:
    written = os.write(fd, payload)
    if written != len(payload):  # a short write on a regular file means the disk is full: never leave it torn
        os.ftruncate(fd, os.lseek(fd, 0, os.SEEK_END) - written)
        raise OSError("short write: the disk is full; nothing was appended")


def create(path: Path | str, events: list[Event]) -> tuple[list[Event], str]:
    """Write a new log (refusing to overwrite); return the stamped events and the fingerprint."""
    stamped, payload = stamp(events, 0, None, now())
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        raise FileExistsError(f"{path}: already exists; a log is never overwritten") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _write_all(fd, payload)
        os.fsync(fd)
    finally:
        os.close(fd)
    _fsync_dir(Path(path))
    return stamped, sha256_hex(payload.rstrip(b"\n").rsplit(b"\n", 1)[-1])


def _fsync_dir(path: Path) -> None:
    fd = os.open(path.resolve().parent, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class Appended(msgspec.Struct):
    events: list[Event]
    fingerprint: str
    last_line: int  # byte length of the new last line, newline included


class Locked:
    """An open log under an exclusive lock: read it, decide, append once. Two writers never interleave."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        try:
            self.fd = open_regular(self.path, os.O_RDWR | os.O_APPEND)
        except LogError:
            raise
        except OSError as error:
            raise _cannot(path, error, "open for writing") from None
        fcntl.flock(self.fd, fcntl.LOCK_EX)

    def read(self) -> Log:
        size = os.fstat(self.fd).st_size
        data = os.pread(self.fd, size, 0)
        return parse_lines(self.path, data)

    def append(self, after_seq: int, after_hash: str, events: list[Event]) -> Appended:
        """Append events after the tail (seq, hash) in a single write, then fsync."""
        stamped, payload = stamp(events, after_seq, after_hash, now())
        _write_all(self.fd, payload)
        os.fsync(self.fd)
        last = payload[payload.rfind(b"\n", 0, len(payload) - 1) + 1 :]
        return Appended(stamped, sha256_hex(last[:-1]), len(last))

    def close(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)

    def __enter__(self) -> "Locked":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def repair(path: Path | str) -> tuple[Path, int]:
    """Move a torn last line into `<log>.torn-N` and cut the log back to its intact lines."""
    with Locked(path) as locked:
        data = os.pread(locked.fd, os.fstat(locked.fd).st_size, 0)
        if not data or data.endswith(b"\n"):
            raise NothingToRepair(path, None, "nothing to repair: the last line is complete")
        keep = data.rfind(b"\n") + 1
        n = 1
        while Path(f"{path}.torn-{n}").exists():
            n += 1
        side = Path(f"{path}.torn-{n}")
        with open(side, "xb") as handle:
            handle.write(data[keep:])
            handle.flush()
            os.fsync(handle.fileno())
        os.ftruncate(locked.fd, keep)
        os.fsync(locked.fd)
        if keep:
            parse_lines(str(path), data[:keep])  # the rest must now verify
        return side, len(data) - keep

