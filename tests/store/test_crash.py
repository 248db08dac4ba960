"""Crash tests in SQLite's manner: the disk after a power cut inside the last write (blocks written in any
order, some not at all, one partly), and a fake file layer that fails `write` and `fsync`. Every case must
end in a log that checks with every acknowledged event, or in a clear refusal that changed nothing."""

from __future__ import annotations

import errno
import json
import os
import random
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from support.logs import joined_lines, log_lines, splendor_log, stderr_line, with_unit
from tally.cli.main import app
from tally.core import registry
from tally.store.logs import log as logfile
from tally.store.logs.repair import repair
from tally.store.recording import record
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
                assert Path(done.side).read_bytes() == crashed[done.kept_bytes :]
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
def test_a_failing_write_appends_nothing_and_says_so(
    monkeypatch: pytest.MonkeyPatch, table: Path, failure: str
) -> None:
    before = table.read_bytes()
    disk = FakeDisk(monkeypatch, table)

    def short(fd: int, data: bytes) -> int:
        return disk.real_write(fd, data[: len(data) // 2])

    def half_then_eio(fd: int, data: bytes) -> int:
        disk.real_write(fd, data[: len(data) // 2])  # the kernel wrote part, then the device failed
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    disk.on_write = {
        "write EIO": _fail(errno.EIO),
        "write ENOSPC": _fail(errno.ENOSPC),
        "short write": short,
        "half then EIO": half_then_eio,
    }[failure]
    result = _RUNNER.invoke(app, ["move", str(table), "ben: take w w"])
    assert result.exit_code == 3 and result.stderr.count("\n") == 1 and "internal error" not in result.stderr, (
        result.stderr
    )
    disk.on_write = None
    if table.read_bytes() != before:  # the part the kernel took is a torn tail: recovered without judgement
        assert failure == "half then EIO"
        assert _RUNNER.invoke(app, ["check", str(table)]).exit_code == 3
        assert _RUNNER.invoke(app, ["repair", str(table)]).exit_code == 0
    assert table.read_bytes() == before
    assert record.check(table).ok and record.move(table, "ben: take w w").accepted


@pytest.mark.parametrize("lost", [False, True])
def test_a_failing_fsync_is_reported_and_the_log_still_checks(
    monkeypatch: pytest.MonkeyPatch, table: Path, lost: bool
) -> None:
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


def test_a_failing_fsync_of_the_side_file_leaves_the_log_as_it_was(
    monkeypatch: pytest.MonkeyPatch, table: Path
) -> None:
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


# --------------------------------------------------------------------------- torn ends and repair (issues 7, 16)


def test_finding_8_a_power_cut_inside_one_commands_lines_is_a_torn_unit(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "table.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben").exit_code == 0
    before = path.read_bytes()
    assert tally("move", str(path), "reveal w4b4 b3g3r3 r4k4").exit_code == 0
    data = path.read_bytes()
    added = data[len(before) : -1].split(b"\n")
    assert len(added) == 3 and json.loads(added[0])["unit"] == 3
    for cut in (1, 2):  # the disk kept one or two of the three lines, each whole
        torn = tmp_path / f"cut-{cut}.jsonl"
        torn.write_bytes(before + b"".join(line + b"\n" for line in added[:cut]))
        checked = tally("check", str(torn))
        assert checked.exit_code == 3, checked
        assert stderr_line(checked).startswith(
            f"tally: {torn}:2: torn unit: line 2 begins 3 lines appended together by one command, but the log ends after {cut} of them"
        )
        assert tally("move", str(torn), "reveal w4b4").exit_code == 3
        repaired = tally("repair", str(torn))
        assert repaired.exit_code == 0 and torn.read_bytes() == before, repaired
        assert Path(f"{torn}.torn-1").read_bytes() == b"".join(line + b"\n" for line in added[:cut])
        assert tally("check", str(torn)).exit_code == 0


def test_finding_8_new_seed_writes_the_start_and_the_deal_as_one_unit(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "g.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "7").exit_code == 0
    data = path.read_bytes()
    first, second = data[:-1].split(b"\n")
    assert json.loads(first)["unit"] == 2 and "unit" not in json.loads(second)
    path.write_bytes(first + b"\n")  # the power cut kept line 1 only
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and "torn unit: line 1 begins 2 lines" in stderr_line(checked)
    again = tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "7")
    assert again.exit_code == 2 and "already exists" in again.stderr  # never overwritten...
    repaired = tally("repair", str(path), "--json")
    assert repaired.exit_code == 0 and json.loads(repaired.stdout)["removed"] is True
    assert not path.exists() and Path(f"{path}.torn-1").read_bytes() == first + b"\n"  # ...but repaired, nothing lost
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "7").exit_code == 0


def _unchanged_refusal(tally: Any, path: Path, before: bytes) -> str:
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 3, repaired
    assert path.read_bytes() == before and not Path(f"{path}.torn-1").exists(), "a refused repair changes nothing"
    assert repaired.stderr.count("\n") == 1 and "nothing was changed" in repaired.stderr
    return repaired.stderr


def test_finding_1_repair_refuses_when_a_corrupt_unit_count_would_cut_verified_lines(
    tmp_path: Path, tally: Any
) -> None:
    path = splendor_log(tmp_path, tally)
    lines = log_lines(path)
    assert b'"unit":2' in lines[0]
    forged = joined_lines([lines[0].replace(b'"unit":2', b'"unit":6', 1)] + lines[1:])  # one bit
    path.write_bytes(forged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and f"{path}:2: prev does not match" in checked.stderr, checked
    message = _unchanged_refusal(tally, path, forged)
    assert f"{path}:2: prev does not match" in message


def test_finding_1_a_unit_of_1000_in_a_long_split_log_cuts_nothing(tmp_path: Path, tally: Any) -> None:
    games = tmp_path / "games"
    assert tally("simulate", "split", "--games", "1", "--seed", "1", "--out", str(games)).exit_code == 0
    lines = log_lines(next(games.glob("*.jsonl")))
    assert len(lines) >= 52 and b'"unit"' not in lines[9]
    path = tmp_path / "split.jsonl"
    forged = joined_lines(lines[:9] + [with_unit(lines[9], 1000)] + lines[10:])
    path.write_bytes(forged)
    message = _unchanged_refusal(tally, path, forged)
    assert f"{path}:11: prev does not match" in message
    assert tally("check", str(path)).exit_code == 3  # still damaged: never passes as a valid shorter log


def _table_reveal(tmp_path: Path, tally: Any) -> tuple[Path, bytes, bytes]:
    """A table-mode log whose last command wrote three lines in one unit: (path, bytes before it, its bytes)."""
    path = tmp_path / "table.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben").exit_code == 0
    before = path.read_bytes()
    assert tally("move", str(path), "reveal w4b4 b3g3r3 r4k4").exit_code == 0
    return path, before, path.read_bytes()[len(before) :]


@pytest.mark.parametrize("where", ["first line", "across a newline", "last line", "to the end"])
def test_finding_4_a_zero_filled_block_inside_the_last_unit_is_torn_and_repairs(
    tmp_path: Path, tally: Any, where: str
) -> None:
    path, before, unit = _table_reveal(tmp_path, tally)
    first_end = unit.index(b"\n")
    start, end = {
        "first line": (10, 30),
        "across a newline": (first_end - 5, first_end + 20),
        "last line": (len(unit) - 30, len(unit) - 5),
        "to the end": (len(unit) - 30, len(unit)),
    }[where]
    damaged = before + unit[:start] + bytes(end - start) + unit[end:]
    path.write_bytes(damaged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and checked.stderr.count("\n") == 1, checked
    assert "zero bytes" in checked.stderr or "torn last line" in checked.stderr, checked.stderr
    assert "verify from line 1" in checked.stderr
    moved = tally("move", str(path), "reveal 1k0-w1b1g1r1")
    assert moved.exit_code == 3 and path.read_bytes() == damaged  # no writer appends after a torn end
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 0, repaired
    assert "kept lines 1-1" in repaired.stdout
    assert path.read_bytes() == before and Path(f"{path}.torn-1").read_bytes() == damaged[len(before) :]
    assert tally("check", str(path)).exit_code == 0


def test_finding_4_zero_bytes_before_a_later_write_are_damage_not_torn(tmp_path: Path, tally: Any) -> None:
    path, before, unit = _table_reveal(tmp_path, tally)
    assert tally("move", str(path), "reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3 1r0-w3").exit_code == 0  # a later unit
    data = path.read_bytes()
    damaged = data[: len(before) + 10] + bytes(20) + data[len(before) + 30 :]
    path.write_bytes(damaged)
    assert tally("check", str(path)).exit_code == 3
    _unchanged_refusal(tally, path, damaged)


def test_finding_4_zero_bytes_in_a_line_followed_by_other_commands_lines_are_damage(tmp_path: Path, tally: Any) -> None:
    # a zeroed line whose unit size is unknown: the single-line moves after it were acknowledged one by one
    # (each has its own `at`), so they are not the rest of its write and nothing may be cut
    path = tmp_path / "open.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "7").exit_code == 0
    for move in ("take r g b", "take w k r", "take r g b", "take w k r", "take r g b"):
        result = tally("move", str(path), move)
        if result.exit_code != 0:
            break
    lines = log_lines(path)
    moves = [index for index, line in enumerate(lines) if b'"unit"' not in line and index > 0]
    assert len(moves) >= 4, lines
    target = moves[-4]
    damaged = joined_lines(lines[:target] + [lines[target][:10] + bytes(10) + lines[target][20:]] + lines[target + 1 :])
    path.write_bytes(damaged)
    assert tally("check", str(path)).exit_code == 3
    _unchanged_refusal(tally, path, damaged)


def test_finding_6_a_torn_tail_after_a_damaged_line_reports_the_damage(tmp_path: Path, tally: Any) -> None:
    path = splendor_log(tmp_path, tally)
    lines = log_lines(path)
    damaged = joined_lines(lines[:2] + [lines[2].replace(b'"seq":3', b'"seq":9', 1)] + lines[3:])[:-7]
    path.write_bytes(damaged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and f"{path}:3: expected seq 3, found 9" in checked.stderr, checked
    said = checked.stderr.split(f"{path}:3: ", 1)[1]
    assert "intact" not in said and "torn" not in said
    _unchanged_refusal(tally, path, damaged)


def test_finding_6_a_torn_tail_names_the_lines_that_verify(tmp_path: Path, tally: Any) -> None:
    path = splendor_log(tmp_path, tally)
    path.write_bytes(path.read_bytes()[:-7])
    checked = tally("check", str(path))
    assert (
        checked.exit_code == 3
        and "torn last line" in checked.stderr
        and "lines 1-4 verify from line 1" in checked.stderr
    )
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 0 and "kept lines 1-4" in repaired.stdout, repaired
