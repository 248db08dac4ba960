"""Crash tests in SQLite's manner: the disk after a power cut inside the last write (blocks written in any
order, some not at all, one partly), and a fake file layer that fails `write` and `fsync`. Every case must
end in a log that checks with every acknowledged event, or in a clear refusal that changed nothing."""

from __future__ import annotations

import errno
import os
import random
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from tally.cli.main import app
from tally.core import registry
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.logs.repair import repair
from tally.store.recording.simulate import simulate

BLOCK = 64  # a "page" far smaller than a disk's, so that one unit spans many of them
_RUNNER = CliRunner()


def _game(tmp_path: Path, game: str) -> tuple[bytes, list[int]]:
    """A simulated open game's bytes, and the byte offset where each unit (one command's write) begins."""
    simulate(game, 1, 3, tmp_path / "sim")
    data = next((tmp_path / "sim").rglob("*.jsonl")).read_bytes()
    starts, offset, unit_end = [], 0, 0
    for seq, line in enumerate(data[:-1].split(b"\n"), 1):
        if seq > unit_end:
            starts.append(offset)
            unit_end = seq + logfile._envelope(line).unit - 1  # type: ignore[union-attr]
        offset += len(line) + 1
    return data, starts


def _after_power_cut(data: bytes, start: int, end: int, rng: random.Random) -> bytes:
    """The file after a power cut while the write of data[start:end] was reaching the disk block by block, in
    any order: the length is anything from `start` to `end` (the file's size may reach the disk first), each
    block after `start` is written, not written (zeros), or written only in part."""
    length = rng.choice([end, rng.randint(start, end)])
    out = bytearray(data[:length])
    first = start // BLOCK
    for block in range(first, (length + BLOCK - 1) // BLOCK):
        low, high = max(block * BLOCK, start), min((block + 1) * BLOCK, length)
        fate = rng.random()
        if fate < 0.3:
            out[low:high] = bytes(high - low)
        elif fate < 0.4:
            cut = rng.randint(low, high)
            out[cut:high] = bytes(high - cut)
    return bytes(out)


@pytest.mark.parametrize("game", registry.names())
def test_a_power_cut_inside_the_last_write_never_loses_an_acknowledged_event(tmp_path: Path, game: str) -> None:
    data, starts = _game(tmp_path, game)
    rng = random.Random(f"{game}-crash")
    units = [(s, e) for s, e in zip(starts, [*starts[1:], len(data)])]
    counts = {"complete": 0, "repaired": 0}
    for start, end in rng.sample(units, min(12, len(units))):
        acknowledged = logfile.parse_lines("before", data[:start]) if start else None
        for trial in range(25):
            crashed = _after_power_cut(data, start, end, rng)
            path = tmp_path / f"crash-{start}-{trial}.jsonl"
            path.write_bytes(crashed)
            try:
                log = logfile.read(path)
            except logfile.Torn:
                done = repair(path)
                assert Path(done.side).read_bytes() == crashed[done.kept_bytes:]
                if acknowledged is None:  # the first command itself was cut short
                    assert done.removed and not path.exists()
                    continue
                log = logfile.read(path)
                assert path.read_bytes() == data[:start], (start, trial)
                counts["repaired"] += 1
            else:  # every block of the write reached the disk: the whole unit is there, never a part of it
                assert crashed == data[:end] or crashed == data[:start], (start, trial)
                counts["complete"] += 1
            if acknowledged is not None:
                assert log.events[: len(acknowledged.events)] == acknowledged.events
                assert len(log.events) in (len(acknowledged.events), data[:end].count(b"\n"))
            assert record.check(path).ok
    assert counts["repaired"] > 100, counts


# --------------------------------------------------------------------------- a fake file layer


class FakeDisk:
    """Wraps `os.write` and `os.fsync` for one file: fails them on request, as a full or failing disk does."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, target: Path):
        self.target = os.path.realpath(target)
        self.real_write, self.real_fsync = os.write, os.fsync
        self.on_write: Callable[[int, bytes], int] | None = None
        self.on_fsync: Callable[[int], None] | None = None
        monkeypatch.setattr(os, "write", self.write)
        monkeypatch.setattr(os, "fsync", self.fsync)

    def _ours(self, fd: int) -> bool:
        try:
            return os.readlink(f"/proc/self/fd/{fd}") == self.target
        except OSError:
            return False

    def write(self, fd: int, data: Any) -> int:
        if self.on_write is not None and self._ours(fd):
            return self.on_write(fd, bytes(data))
        return self.real_write(fd, data)

    def fsync(self, fd: int) -> None:
        if self.on_fsync is not None and self._ours(fd):
            return self.on_fsync(fd)
        return self.real_fsync(fd)


def _fail(code: int) -> Callable[..., Any]:
    def raise_it(*args: Any) -> Any:
        raise OSError(code, os.strerror(code))

    return raise_it


@pytest.fixture
def table(tmp_path: Path) -> Path:
    path = tmp_path / "g.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    assert record.move(path, "take r g b").accepted
    return path


pytestmark = pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="the fake disk finds files through /proc")


@pytest.mark.parametrize("failure", ["write EIO", "write ENOSPC", "short write", "half then EIO"])
def test_a_failing_write_appends_nothing_and_says_so(monkeypatch: pytest.MonkeyPatch, table: Path, failure: str) -> None:
    before = table.read_bytes()
    disk = FakeDisk(monkeypatch, table)

    def short(fd: int, data: bytes) -> int:
        return disk.real_write(fd, data[: len(data) // 2])

    def half_then_eio(fd: int, data: bytes) -> int:
        disk.real_write(fd, data[: len(data) // 2])  # the kernel wrote part, then the device failed
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    disk.on_write = {"write EIO": _fail(errno.EIO), "write ENOSPC": _fail(errno.ENOSPC), "short write": short,
                     "half then EIO": half_then_eio}[failure]
    result = _RUNNER.invoke(app, ["move", str(table), "ben: take w w"])
    assert result.exit_code == 3 and result.stderr.count("\n") == 1 and "internal error" not in result.stderr, result.stderr
    disk.on_write = None
    if table.read_bytes() != before:  # the part the kernel took is a torn tail: recovered without judgement
        assert failure == "half then EIO"
        assert _RUNNER.invoke(app, ["check", str(table)]).exit_code == 3
        assert _RUNNER.invoke(app, ["repair", str(table)]).exit_code == 0
    assert table.read_bytes() == before
    assert record.check(table).ok and record.move(table, "ben: take w w").accepted


@pytest.mark.parametrize("lost", [False, True])
def test_a_failing_fsync_is_reported_and_the_log_still_checks(monkeypatch: pytest.MonkeyPatch, table: Path, lost: bool) -> None:
    before = table.read_bytes()
    disk = FakeDisk(monkeypatch, table)

    def fsync_fails(fd: int) -> None:
        if lost:  # the device dropped the dirty pages: what was written is gone
            os.ftruncate(fd, len(before))
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    disk.on_fsync = fsync_fails
    result = _RUNNER.invoke(app, ["move", str(table), "ben: take w w"])
    assert result.exit_code == 3 and "Input/output error" in result.stderr and result.stderr.count("\n") == 1
    disk.on_fsync = None
    report = record.check(table)  # not acknowledged: the move may or may not be there, the log checks either way
    assert report.ok and report.events in (before.count(b"\n"), before.count(b"\n") + 1)
    assert table.read_bytes().startswith(before)


def test_a_failing_fsync_of_the_side_file_leaves_the_log_as_it_was(monkeypatch: pytest.MonkeyPatch, table: Path) -> None:
    torn = table.read_bytes() + b'{"type":"gems_ta'
    table.write_bytes(torn)
    disk = FakeDisk(monkeypatch, Path(f"{table}.torn-1"))
    disk.on_fsync = _fail(errno.EIO)
    result = _RUNNER.invoke(app, ["repair", str(table)])
    assert result.exit_code == 3 and result.stderr.count("\n") == 1
    assert table.read_bytes() == torn  # the log is cut only after its torn bytes are safe elsewhere
    disk.on_fsync = None
    assert _RUNNER.invoke(app, ["repair", str(table)]).exit_code == 0
    assert Path(f"{table}.torn-2").read_bytes() == b'{"type":"gems_ta' and record.check(table).ok
