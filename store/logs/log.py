"""The game log file (docs/format.md): reading with full integrity checks, and the append-only writer.

Guarantees: an exclusive lock around the whole read-check-append, one `write` per append,
`fsync` before success, a SHA-256 chain (`prev`) over the exact bytes of every line, and a
torn last line (a crash mid-write) detected and recoverable without losing its bytes.
"""

from __future__ import annotations

import fcntl
import functools
import os
import re
import stat
from pathlib import Path
from typing import Any, Union

import msgspec

from tally.core import registry
from tally.core.model import SHARED_EVENTS, Event, GameSpec, GameStarted
from tally.core.text import quote
from tally.store.logs.canonical import canonical_problem
from tally.store.logs.limits import MAX_DEPTH, json_depth

try:  # the builtin module imports in a fraction of hashlib's OpenSSL binding, which `tally move` would pay for
    from _sha256 import sha256 as _sha256  # Python 3.11
except ImportError:  # pragma: no cover - other Pythons
    try:
        from _sha2 import sha256 as _sha256  # Python 3.12+
    except ImportError:
        from hashlib import sha256 as _sha256


class LogError(Exception):
    """A damaged or unreadable log (exit code 3): names the file, the line and what was expected.

    `rule` is a stable id, `log.<name>` with the name of the reading rule broken (docs/format.md section 6);
    `intact` is how many lines before the damage verify from line 1 (whole units), when the reader got that far."""

    rule: str = "log.damaged"

    def __init__(self, path: Path | str, line: int | None, message: str, rule: str | None = None):
        self.path = str(path)
        self.line = line
        self.message = message
        if rule is not None:
            self.rule = rule
        self.intact_lines: int | None = None
        self.unit_end: int | None = None
        where = f"{self.path}:{line}" if line else self.path
        super().__init__(f"{where}: {message}")


class Torn(LogError):
    """What a write cut short leaves at the end of a log: lines `1..lines` (bytes `0..intact`) verify from line 1,
    and the bytes after them are the part of one last write that reached the disk. `tally repair` moves them aside."""

    def __init__(self, path: Path | str, line: int, message: str, rule: str, intact: int, lines: int):
        self.intact = intact  # byte length of the lines that verify
        self.lines = lines
        super().__init__(path, line, message, rule)
        self.intact_lines = lines


def _repair_hint(path: Path | str, lines: int) -> str:
    return (f"lines 1-{lines} verify from line 1; " if lines else "no line before it verifies; ") + (
        f"run `tally repair {path}` to move the cut-short bytes to a side file and keep the lines that verify"
    )


class TornTail(Torn):
    """The last line has no newline: a write was cut short.

    `keep` is where the torn line begins; `intact` is where the verified part ends (before the torn line or,
    when the line belongs to a unit the log holds only part of, before that unit) and `lines` its lines."""

    def __init__(self, path: Path | str, line: int, torn: bytes, keep: int, intact: int, lines: int):
        self.torn = torn
        self.keep = keep  # byte length of the complete lines
        cut = (
            ""
            if intact == keep
            else (f" (with lines {lines + 1}-{line - 1}: appended together with it, they are cut short too)")
        )
        super().__init__(
            path,
            line,
            f"torn last line ({len(torn)} bytes without a newline, a write cut short){cut}; "
            + _repair_hint(path, lines),
            "log.torn-tail",
            intact,
            lines,
        )


class TornUnit(Torn):
    """The log ends inside a unit (lines appended by one command): a power cut stopped the write at a line
    boundary. `tally repair` moves the unit's lines aside."""

    def __init__(self, path: Path | str, start: int, size: int, have: int, intact: int):
        self.start, self.size, self.have = start, size, have
        super().__init__(
            path,
            start,
            f"torn unit: line {start} begins {size} lines appended together by one command, but the log ends "
            f"after {have} of them (a write cut short by a crash or power loss); " + _repair_hint(path, start - 1),
            "log.torn-unit",
            intact,
            start - 1,
        )


class ZeroBlock(Torn):
    """A block of zero bytes inside the last unit: the disk wrote the file's new length (or a later page of the
    write) before an earlier page when the power went. `tally repair` moves the unit aside."""

    def __init__(self, path: Path | str, line: int, intact: int, lines: int):
        super().__init__(
            path,
            line,
            f"zero bytes in line {line}, inside the last write (lines {lines + 1} on): a block the disk never "
            "wrote before a crash or power loss; " + _repair_hint(path, lines),
            "log.zero-block",
            intact,
            lines,
        )


class NothingToRepair(LogError):
    """`repair` on a log that verifies to its end (a usage error, not damage)."""

    rule = "log.nothing-to-repair"


class RepairRefused(LogError):
    """`repair` on a log damaged before its last verified line: cutting it would drop lines that were
    acknowledged, so nothing is changed (exit 3); the rule is the one the damage breaks."""


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
        super().__init__(path, None, f"{kind}, not a regular file: {what} is a regular file", "log.not-regular")


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
        return LogError(path, None, "no such log file", "log.missing")
    return LogError(path, None, f"cannot {doing} it: {error.strerror or error}", "log.unreadable")


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

    @property
    def anchor(self) -> tuple[int, str]:
        """(seq, fingerprint) of the last line: what a table writes down to check the log against later."""
        return len(self.events), self.last_hash

    def fingerprint_at(self, seq: int) -> str | None:
        """The fingerprint the log had when line `seq` was its last (the SHA-256 of that line); None past its end.
        The chain holds it already: line seq+1's `prev`."""
        if not 1 <= seq <= len(self.events):
            return None
        return self.last_hash if seq == len(self.events) else self.events[seq].prev


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
        return msgspec.convert(raw, Union[tuple(SHARED_EVENTS + spec.events)])
    except msgspec.ValidationError:
        raise error from None


_AT_FORMAT = (
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{3}Z"
)
_at_format = functools.cache(lambda: re.compile(_AT_FORMAT).fullmatch)  # compiled on a first full read, not per move
_BOM = b"\xef\xbb\xbf"


def _not_canonical(path: str, seq: int, line: bytes, event: Event | None) -> LogError:
    rule, problem = canonical_problem(line, event)
    return LogError(path, seq, "not in canonical form: " + problem, rule)


def _decode_rule(error: Exception) -> str:
    text = str(error)
    if "lone surrogate" in text:
        return "log.lone-surrogate"
    return "log.utf8" if "Invalid UTF-8" in text else "log.event"


class _Envelope(msgspec.Struct):
    """A line's seq and unit marker, read loosely (any other field ignored) to tell the lines of a torn write."""

    seq: Any = None
    unit: Any = 1
    at: Any = None


_envelope_decoder = functools.cache(lambda: msgspec.json.Decoder(_Envelope))  # only a torn tail needs it


def _envelope(line: bytes) -> _Envelope | None:
    if b"\0" in line or json_depth(line) > MAX_DEPTH:
        return None
    try:
        return _envelope_decoder().decode(line)
    except msgspec.DecodeError:
        return None


def _zero_block(path: str, lines: list[bytes], error: LogError, unit_end: int | None) -> ZeroBlock | None:
    """`error` as the zero-filled block of a write cut short, or None when it is damage (cutting would drop
    acknowledged events). Torn only if the failing line holds zero bytes (JSON escapes NUL) and no later line is
    of a later write: past the failing line's unit, or (its size unknown) a unit's start or a line not sharing
    one `at` and a run of seqs with the others (one command stamps all its lines with one `at`)."""
    line = error.line
    intact = error.intact_lines
    if line is None or intact is None or b"\0" not in lines[line - 1]:
        return None
    stamps: set[Any] = set()
    seqs: list[int] = []
    for later in lines[line:]:
        envelope = _envelope(later)
        if envelope is None or type(envelope.seq) is not int:
            if b"\0" in later:
                continue  # part of the same zero-filled block
            return None
        if unit_end is not None:
            if envelope.seq > unit_end:
                return None
            continue
        if envelope.unit != 1:
            return None
        stamps.add(envelope.at)
        seqs.append(envelope.seq)
    if seqs and (len(stamps) > 1 or seqs != list(range(seqs[0], seqs[0] + len(seqs)))):
        return None
    return ZeroBlock(path, line, sum(len(kept) + 1 for kept in lines[:intact]), intact)


def parse_lines(path: str, data: bytes) -> Log:
    """Verify and decode a whole log's bytes (see docs/format.md for each check, in this order).

    A torn end (a last line without its newline, a last unit cut short, zero bytes in the last unit) is reported
    only after every line before it verified from line 1: damage there is reported instead, since cutting
    the end would not mend it."""
    if not data:
        raise LogError(path, None, "empty file: a log starts with a game_started line", "log.empty")
    if data.startswith(_BOM):
        raise LogError(
            path, 1, "the file starts with a byte order mark (U+FEFF): a log is UTF-8 without one", "log.bom"
        )
    keep = data.rfind(b"\n") + 1
    complete = data if keep == len(data) else data[:keep]
    carriage = complete.find(b"\r")
    if carriage >= 0:
        raise LogError(
            path,
            complete.count(b"\n", 0, carriage) + 1,
            "a carriage return (\\r): lines end with \\n alone (was the log saved with CRLF line ends?)",
            "log.carriage-return",
        )
    lines = complete.split(b"\n")
    lines.pop()
    if keep == len(data):
        try:
            return _verify(path, lines, len(data))
        except Torn:
            raise
        except LogError as error:
            raise _zero_block(path, lines, error, error.unit_end) or error from None
    intact, count = keep, len(lines)
    if lines:
        try:
            _verify(path, lines, keep)
        except Torn as torn:
            intact, count = torn.intact, torn.lines
        except LogError as error:
            zeroed = _zero_block(path, lines, error, error.unit_end)
            if zeroed is None:
                raise
            intact, count = zeroed.intact, zeroed.lines
    raise TornTail(path, len(lines) + 1, data[keep:], keep, intact, count)


def _verify(path: str, lines: list[bytes], size: int) -> Log:
    """The checks of docs/format.md section 6 over complete lines, line by line. A failure carries how many
    lines before it verify as whole units (`intact_lines`) and the last seq of the unit it lies in (`unit_end`)."""
    try:
        return _verify_lines(path, lines, size)
    except LogError as error:
        if error.intact_lines is None:  # line 1 failed
            error.intact_lines = 0
        raise


def _verify_lines(path: str, lines: list[bytes], size: int) -> Log:
    started, spec = start_of(path, lines[0])
    events: list[Event] = [started]
    if started.unit < 1:
        raise LogError(path, 1, f"unit {started.unit}: a unit has at least 2 lines", "log.unit-size")
    seq, prev, unit_start, unit_end = _verify_run(
        path, lines, 1, spec, events, 1, sha256_hex(lines[0]), 1, started.unit, tuple(started.seats)
    )
    if unit_end > seq:
        intact = sum(len(line) + 1 for line in lines[: unit_start - 1])
        raise TornUnit(path, unit_start, unit_end - unit_start + 1, seq - unit_start + 1, intact)
    return Log(path, spec, events, prev, size, len(lines[-1]) + 1)


def start_of(path: str, first: bytes) -> tuple[GameStarted, GameSpec]:
    """Line 1 checked as docs/format.md says: a canonical `game_started` at seq 1 of a game tally knows."""
    if json_depth(first) > MAX_DEPTH:
        raise LogError(path, 1, _too_deep(), "log.depth")
    try:
        started = _START_DECODER.decode(first)
    except msgspec.DecodeError as error:
        if not first.strip():
            raise LogError(path, 1, "empty line: expected one JSON event per line", "log.empty-line") from None
        rule = _decode_rule(error)
        raise LogError(
            path, 1, f"expected a game_started line: {error}", "log.first-line" if rule == "log.event" else rule
        ) from None
    if started.seq != 1 or started.prev is not None:
        raise LogError(path, 1, "the first line must have seq 1 and no prev", "log.first-line")
    if _ENCODER.encode(started) != first:
        raise _not_canonical(path, 1, first, started)
    if started.by is not None:
        raise LogError(path, 1, "by: the start names no seat that entered it (the seats are not taken yet)", "log.by")
    if not _at_format()(started.at):
        raise LogError(
            path, 1, f"at {quote(started.at)}: expected the UTC time of recording as YYYY-MM-DDTHH:MM:SS.mmmZ", "log.at"
        )
    try:
        spec = registry.get(started.game)
    except registry.UnknownGame as error:
        raise LogError(path, 1, str(error), "log.start") from None
    problems = spec.check_started(started)
    if problems:
        raise LogError(path, 1, "game_started is not a valid start: " + "; ".join(problems), "log.start")
    return started, spec


def _verify_run(
    path: str,
    lines: list[bytes],
    begin: int,
    spec: GameSpec,
    events: list[Event],
    seq: int,
    prev: str,
    unit_start: int,
    unit_end: int,
    seats: tuple[str, ...],
) -> tuple[int, str, int, int]:
    """The lines `lines[begin:]` checked as the lines after seq `seq`, whose line hashes to `prev`, inside the unit of
    lines `unit_start`-`unit_end` (the unit the line at `seq` belongs to), of a game of `seats`; each event appended to
    `events`. Returns the
    last seq, its line's hash and the unit it lies in, whose end may lie past the lines given (a unit cut short)."""
    encode = _ENCODER.encode
    decode = decoder_for(spec).decode
    at_format = _at_format()
    append = events.append
    allowed = frozenset(seats)
    try:
        for line in lines[begin:] if begin else lines:
            seq += 1
            try:
                # safe to try before measuring: the events after line 1 are typed all the way down (no Any), so
                # the typed decoder stops at the first value of the wrong shape and never nests deeper than they do
                event = decode(line)
                canonical = encode(event) == line
            except RecursionError:  # the JSON a correction (`amended`) keeps raw is skipped by recursion,
                raise LogError(path, seq, _too_deep(), "log.depth") from None  # which msgspec bounds so
            except msgspec.DecodeError as error:
                if not line.strip():
                    raise LogError(
                        path, seq, "empty line: expected one JSON event per line", "log.empty-line"
                    ) from None
                if json_depth(line) > MAX_DEPTH:  # before the loose decoding of upcasting, which recurses
                    raise LogError(path, seq, _too_deep(), "log.depth") from None
                if b"\\ud" in line.lower():
                    error = msgspec.DecodeError(
                        f"{error} (a string holds a \\u escape of a lone surrogate, which is not a character)"
                    )
                try:
                    event = _upcast(spec, line, error)
                except msgspec.DecodeError as final:
                    raise LogError(path, seq, f"not a {spec.name} event: {final}", _decode_rule(final)) from None
                canonical = msgspec.json.encode(msgspec.json.decode(line)) == line  # as written by the old version
            if not canonical:
                raise _not_canonical(path, seq, line, event)
            if event.seq != seq:
                raise LogError(path, seq, f"expected seq {seq}, found {event.seq}", "log.seq")
            if event.prev != prev:
                raise LogError(
                    path,
                    seq,
                    f"prev does not match the SHA-256 of line {seq - 1}: line {seq - 1} was edited, or lines were reordered",
                    "log.prev",
                )
            if not at_format(event.at):
                raise LogError(
                    path,
                    seq,
                    f"at {quote(event.at)}: expected the UTC time of recording as YYYY-MM-DDTHH:MM:SS.mmmZ",
                    "log.at",
                )
            salt = event.salt
            if salt is not None and not (len(salt) >= 32 and _is_hex(salt)):
                raise LogError(
                    path,
                    seq,
                    f"salt {quote(salt)}: expected at least 32 lowercase hex digits (128 random bits)",
                    "log.salt",
                )
            if event.by is not None and event.by not in allowed:
                raise LogError(
                    path,
                    seq,
                    f"by {quote(event.by)}: expected the seat whose device entered the line, one of {', '.join(seats)}",
                    "log.by",
                )
            unit = event.unit
            if unit != 1:
                if unit < 1:
                    raise LogError(path, seq, f"unit {unit}: a unit has at least 2 lines", "log.unit-size")
                if seq <= unit_end:
                    raise LogError(
                        path,
                        seq,
                        f"a unit begins inside the unit of lines {unit_start}-{unit_end}: units do not nest",
                        "log.unit-nested",
                    )
            if seq > unit_end:
                unit_start, unit_end = seq, seq + unit - 1
            prev = sha256_hex(line)
            append(event)
    except LogError as error:
        inside = seq <= unit_end  # the failing line belongs to the unit begun before it
        error.intact_lines = unit_start - 1 if inside else seq - 1
        error.unit_end = unit_end if inside else None
        raise
    return seq, prev, unit_start, unit_end


class Continued(msgspec.Struct):
    """Lines verified as the continuation of a log from a known line (`continued`): their events, the last line's
    hash, each line's length in bytes (newline included), whether the last line ends a unit, and how many bytes
    followed the last newline (a line being written, or cut short)."""

    events: list[Event]
    last_hash: str
    sizes: list[int]
    whole: bool
    trailing: int

    @property
    def last_line(self) -> int:
        return self.sizes[-1] if self.sizes else 0

    @property
    def clean(self) -> bool:
        """Whether the lines end a log as a whole write leaves it: nothing after the last newline, the last unit whole."""
        return self.whole and not self.trailing


def continued(
    path: str, data: bytes, spec: GameSpec, seq: int, prev: str, unit_end: int | None = None, *, seats: tuple[str, ...]
) -> Continued:
    """The complete lines of `data` verified, as `parse_lines` verifies them, as the lines after line `seq` (which
    hashes to `prev` and ends a unit, or lies in the unit ending at line `unit_end`: line 1 of a game whose start
    was written with its deal); bytes after the last newline are left out. LogError at the first that is not
    (the caller reads the whole log to say exactly what is wrong: a log rewritten, damaged or cut short)."""
    keep = data.rfind(b"\n") + 1
    lines = data[:keep].split(b"\n")
    lines.pop()
    if not lines:
        return Continued([], prev, [], unit_end is None or unit_end <= seq, len(data))
    if b"\r" in data[:keep]:
        raise LogError(path, seq + 1, "a carriage return (\\r): lines end with \\n alone", "log.carriage-return")
    events: list[Event] = []
    last, last_hash, _, unit_end = _verify_run(
        path, lines, 0, spec, events, seq, prev, seq, seq if unit_end is None else unit_end, seats
    )
    return Continued(events, last_hash, [len(line) + 1 for line in lines], unit_end <= last, len(data) - keep)


_HEX = frozenset("0123456789abcdef")


def _is_hex(text: str) -> bool:
    return _HEX.issuperset(text)


def _too_deep() -> str:
    return f"nested more than {MAX_DEPTH} levels deep (arrays and objects inside each other): no event of tally is"


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
    stamped: list[Event] = []
    chunks: list[bytes] = []
    prev, seq = after_hash, after_seq
    replace = msgspec.structs.replace
    for index, event in enumerate(events):
        seq += 1
        # the first line of several says how many: a reader can then tell a whole append from a cut one
        unit = len(events) if index == 0 else 1
        event = replace(event, seq=seq, at=at, prev=prev, unit=unit)
        line = _ENCODER.encode(event)
        prev = sha256_hex(line)
        stamped.append(event)
        chunks.append(line)
        chunks.append(b"\n")
    return stamped, b"".join(chunks)


def line_sizes(payload: bytes) -> list[int]:
    """The byte length of each line of an append's bytes, newline included."""
    return [len(line) + 1 for line in payload.split(b"\n")[:-1]]


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
    sizes: list[int] = []  # byte length of each appended line, newline included


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
        return Appended(stamped, sha256_hex(last[:-1]), len(last), line_sizes(payload))

    def close(self) -> None:
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)

    def __enter__(self) -> "Locked":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
