"""`tally repair`: move the torn end a crash left (docs/format.md, "Torn tails") into a side file, and keep
every line that verifies from line 1. It verifies, never trusts: what it cuts is only what a reader
reports as torn (`log.Torn`), so damage before the last verified line is refused and nothing changes."""

from __future__ import annotations

import os
from pathlib import Path

import msgspec

from tally.store.logs.log import Locked, LogError, NothingToRepair, RepairRefused, Torn, _fsync_dir, parse_lines


class Repaired(msgspec.Struct):
    """What `repair` did: the lines kept (they verify from line 1), the bytes moved to `side`, and why they were torn."""

    side: str
    moved: int  # bytes moved aside
    kept_lines: int
    kept_bytes: int
    why: str  # the rule id of the torn end: log.torn-tail, log.torn-unit or log.zero-block
    removed: bool  # nothing verified: the log was removed (its bytes are all in the side file)


def repair(path: Path | str) -> Repaired:
    """Move what a crash cut short into `<log>.torn-N` and cut the log back to the lines that verify from line 1.

    Verifies, never trusts: only a torn end (a last line without its newline, a last unit cut short, zero bytes
    in the last unit) after the last line that verifies is moved. Damage before it raises RepairRefused (exit 3)
    and changes nothing; a log that verifies to its end raises NothingToRepair. When nothing verifies (the first
    command was cut short), the log is removed: its bytes are all in the side file, and `tally new` can start again."""
    with Locked(path) as locked:
        data = os.pread(locked.fd, os.fstat(locked.fd).st_size, 0)
        try:
            parse_lines(str(path), data)
        except Torn as torn:
            cut = torn
        except LogError as error:
            refused = RepairRefused(
                path,
                error.line,
                f"{error.message}; nothing was changed: repair moves only the torn "
                "end of a write cut short, and this damage lies before it (restore the log from a copy)",
                error.rule,
            )
            refused.intact_lines = error.intact_lines
            raise refused from None
        else:
            raise NothingToRepair(
                path,
                None,
                "nothing to repair: every line verifies from line 1 and the log ends "
                "with a complete line and a complete unit",
            )
        keep = cut.intact
        n = 1
        while Path(f"{path}.torn-{n}").exists():
            n += 1
        side = Path(f"{path}.torn-{n}")
        with open(side, "xb") as handle:
            handle.write(data[keep:])
            handle.flush()
            os.fsync(handle.fileno())
        _fsync_dir(Path(path))  # the side file's name is durable before a byte of the log goes
        if keep:
            os.ftruncate(locked.fd, keep)
            os.fsync(locked.fd)
        else:
            os.unlink(path)
            _fsync_dir(Path(path))
        return Repaired(str(side), len(data) - keep, cut.lines, keep, cut.rule, not keep)
