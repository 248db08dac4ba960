"""Anchors: a log's fingerprint at a line, written down at the table and checked later (docs/format.md,
"Anchors"), and the warnings `tally check` gives about times that go backwards.

The chain proves that every line follows from the one before it, but anyone who can write the file can
cut its end or write another history and chain it anew; only a fingerprint kept outside the file tells.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from tally.core.text import quote
from tally.store.logs.log import Log, LogError, _cannot, _envelope, open_regular, parse_lines, read_regular, sha256_hex


class AnchorBroken(LogError):
    """`tally check --expect SEQ:FINGERPRINT` on a log that no longer holds that line: cut, rewritten, or forked."""

    rule = "log.anchor"


MIN_ANCHOR = (
    8  # hex digits: 32 bits, enough that a rewrite matching a written-down prefix by chance is one in 4 billion
)


def parse_anchor(text: str) -> tuple[int, str]:
    """`SEQ:FINGERPRINT` (a prefix of at least 8 hex digits) as (seq, lower-case prefix); ValueError says why not."""
    seq, sep, digits = text.strip().partition(":")
    if not sep or not seq.strip().isascii() or not seq.strip().isdigit() or int(seq) < 1:
        raise ValueError(
            f"--expect {quote(text)}: expected SEQ:FINGERPRINT, a line number and its fingerprint (`12:3f9a0c1e`)"
        )
    try:
        return int(seq), parse_fingerprint(digits)
    except ValueError:
        raise ValueError(
            f"--expect {quote(text)}: the fingerprint is {MIN_ANCHOR} to 64 hex digits, as `tally check` prints it"
        ) from None


def parse_fingerprint(text: str, option: str = "--expect") -> str:
    """A fingerprint as written down at the table (a prefix of at least 8 hex digits), lower-cased;
    ValueError says why not."""
    digits = text.strip().lower()
    if not MIN_ANCHOR <= len(digits) <= 64 or not all(c in "0123456789abcdef" for c in digits):
        raise ValueError(
            f"{option} {quote(text)}: the fingerprint is {MIN_ANCHOR} to 64 hex digits, as `tally check` prints it"
        )
    return digits


def check_anchor(log: Log, seq: int, prefix: str) -> AnchorBroken | None:
    """The refusal when `log` no longer holds line `seq` with a fingerprint starting with `prefix`, else None."""
    found = log.fingerprint_at(seq)
    anchor = f"anchor {seq}:{prefix}"
    if found is None:
        return AnchorBroken(
            log.path,
            None,
            f"{anchor}: the log ends at line {len(log.events)}: lines were cut from its "
            "end, or the anchor belongs to another log",
        )
    if not found.startswith(prefix):
        return AnchorBroken(
            log.path,
            seq,
            f"{anchor}: line {seq}'s fingerprint is now {found[: len(prefix)]}: the log "
            f"was rewritten at or before line {seq}, or it is another branch of the game (a fork)",
        )
    return None


def clock_warnings(log: Log) -> list[tuple[int, str]]:
    """(seq, why) for each line recorded at a time before the line above it: the clock went back, or someone
    edited `at`. Not damage (clocks are set by people), so a warning of `tally check`."""
    warnings = []
    events = log.events
    for before, event in zip(events, events[1:]):
        if event.at < before.at:  # the fixed-width ISO form sorts as text
            warnings.append(
                (
                    event.seq,
                    f"recorded at {event.at}, before line {before.seq} ({before.at}): the clock "
                    "went back, or the time was edited",
                )
            )
    return warnings


def tail_anchor(path: Path | str) -> tuple[int, str]:
    """(seq, fingerprint) of a log's last line, read from its end only (not verified: `read` does that); for a
    board or prompt to show cheaply. Raises LogError when the file does not end with a line."""
    try:
        fd = open_regular(path, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            size = os.fstat(fd).st_size
            chunk = 1 << 16
            while True:
                data = os.pread(fd, min(size, chunk), max(0, size - chunk))
                start = data.rfind(b"\n", 0, len(data) - 1)
                if start >= 0 or chunk >= size:
                    break
                chunk *= 4
        finally:
            os.close(fd)
    except LogError:
        raise
    except OSError as error:
        raise _cannot(path, error, "read") from None
    line = data[start + 1 : -1]
    envelope = _envelope(line) if data.endswith(b"\n") else None
    if envelope is None or type(envelope.seq) is not int:
        return parse_lines(str(path), data if size <= len(data) else read_regular(path)).anchor
    return envelope.seq, sha256_hex(line)
