"""The log file contract (DESIGN.md section 4, docs/format.md), proved on real files.

Writers: an exclusive lock around the whole read-check-append (real processes race for it), one
write, fsync before success, nothing appended on a rejection, `new` never overwrites. Readers: a
torn tail at any byte offset, any edited byte, reordered or deleted lines and every kind of
malformed line are reported (exit 3, `file:line: what was expected`), never a traceback or a
silent success with wrong data. Versioning: old lines are upcast on read and never rewritten.
"""

from __future__ import annotations

import fcntl
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Literal

import msgspec
import pytest
from typer.testing import CliRunner

from support import ROOT
from support.logs import joined_lines, line_of, log_lines, nested, splendor_log, stderr_line
from tally.cli.main import app
from tally.core import registry
from tally.core.games import splendor as sp
from tally.core.model import Event, Noted
from tally.store.logs import log as logfile
from tally.store.logs.repair import repair as repair_log
from tally.store.recording import record

FORMAT_DOC = ROOT / "docs" / "format.md"

# --------------------------------------------------------------------------- helpers


def sha(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def lines_of(data: bytes) -> list[bytes]:
    assert data.endswith(b"\n")
    return data[:-1].split(b"\n")


def starts_of(data: bytes) -> list[int]:
    """Byte offset where each line starts."""
    starts = [0]
    for i, byte in enumerate(data[:-1]):
        if byte == 0x0A:
            starts.append(i + 1)
    return starts


def make_log(path: Path) -> bytes:
    """A small real log: game_started, setup_dealt, two takes, a note (non-ASCII) and a reserve."""
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    assert record.move(path, "take r g b").accepted
    assert record.move(path, "ben: take w w").accepted
    assert record.note(path, "ana's cat walked over the board: ünïcode ♠").events
    assert record.move(path, "ana: reserve 1b0-w1k2").accepted
    data = path.read_bytes()
    assert len(lines_of(data)) == 6
    return data


_VARIANT = itertools.count()


def fresh(folder: Path, data: bytes) -> Path:
    """A new file holding `data`. The loops below write thousands of variants: rewriting one file in
    place (O_TRUNC) would make ext4 flush it on every close, at a few milliseconds each."""
    path = folder / f"variant-{next(_VARIANT)}.jsonl"
    path.write_bytes(data)
    return path


def chain_holds(data: bytes) -> None:
    """Check seq and prev independently of tally's reader."""
    previous = None
    for number, line in enumerate(lines_of(data), start=1):
        event = json.loads(line)
        assert event["seq"] == number
        assert event.get("prev") == (sha(previous) if previous is not None else None)
        previous = line


_RUNNER = CliRunner()


def cli(*args: str) -> Any:
    """The CLI in-process (fast enough to run hundreds of times); a traceback fails the test."""
    result = _RUNNER.invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"tally {' '.join(args)} raised {result.exception!r}")
    return result


def one_line(stderr: str) -> str:
    assert stderr.endswith("\n") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in stderr
    return stderr


# --------------------------------------------------------------------------- concurrent writers

WORKER = r"""
import json, random, sys, time
from pathlib import Path
from tally.store.recording import record

path, tag, notes, moves, seed, folder = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), Path(sys.argv[6])
(folder / f"ready-{tag}").touch()
while not (folder / "go").exists():
    time.sleep(0.002)
rng = random.Random(seed)
report = {"appended": [], "notes": [], "moves": 0, "rejected": []}
for i in range(max(notes, moves)):
    if i < notes:
        text = f"{tag}-{i}"
        out = record.note(path, text)
        report["appended"] += [e.seq for e in out.events]
        report["notes"].append(text)
    if i < moves:
        pos = record.position(path)  # read outside the writer's lock: the move may be stale when judged
        legal = pos.spec.legal_moves(pos.table.state)
        if legal:
            text = pos.spec.format(rng.choice(legal))
            out = record.move(path, text)
            if out.accepted:
                report["appended"] += [e.seq for e in out.events]
                report["moves"] += 1
            else:
                report["rejected"].append([text, out.messages])
print(json.dumps(report))
"""


def test_concurrent_writers_never_interleave_nor_lose_events(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    workers = 4
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(path), f"w{i}", "25", "12", str(i), str(tmp_path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(workers)
    ]
    deadline = time.monotonic() + 60
    while len(list(tmp_path.glob("ready-*"))) < workers and time.monotonic() < deadline:
        time.sleep(0.005)
    (tmp_path / "go").touch()  # all at once
    reports = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        assert err == ""
        reports.append(json.loads(out))

    data = path.read_bytes()
    chain_holds(data)  # every line whole, seq contiguous, prev chain intact
    log = logfile.read(path)
    appended = sorted(seq for r in reports for seq in r["appended"])
    assert appended == list(range(3, len(log.events) + 1))  # nothing lost, nothing written twice
    notes = [e.text for e in log.events if isinstance(e, Noted)]
    assert sorted(notes) == sorted(text for r in reports for text in r["notes"])
    assert len(notes) == workers * 25
    assert sum(r["moves"] for r in reports) > 0
    # every move was judged against the tail it was appended to: stale ones were refused, not appended
    assert record.check(path).ok
    for r in reports:
        for text, messages in r["rejected"]:
            assert messages, text


RACER = r"""
import json, sys
from tally.store.recording import record

print("ready", flush=True)
out = record.move(sys.argv[1], sys.argv[2])
print(json.dumps({"accepted": out.accepted, "seqs": [e.seq for e in out.events] if out.accepted else [],
                  "rules": [r.rule for r in out.rulings if r.verdict == "illegal"]}), flush=True)
"""


def _wait_for_blocked_writers(inode: int, count: int) -> None:
    """Until `count` processes are blocked on an flock of this inode (Linux /proc/locks marks them
    with '->'). Where /proc/locks says nothing, a second is ample for writers that said "ready"."""
    deadline = time.monotonic() + 10
    pattern = re.compile(rf"->\s+FLOCK\s+\S+\s+WRITE\s+\d+\s+[0-9a-f]+:[0-9a-f]+:{inode}\s")
    while time.monotonic() < deadline:
        try:
            if len(pattern.findall(Path("/proc/locks").read_text())) >= count:
                return
        except OSError:
            break
        time.sleep(0.005)
    time.sleep(1)


@pytest.mark.parametrize(
    "first, second",
    [("ana: take r g b", "ana: take w b k"), ("ana: take r r", "ana: take r r")],
    ids=["different-moves", "same-move"],
)
def test_writer_that_lost_the_race_rechecks_against_the_new_tail(tmp_path: Path, first: str, second: str) -> None:
    path = tmp_path / "game.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    before = path.read_bytes()
    holder = os.open(path, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)  # both writers will queue behind this lock, having read nothing yet
    try:
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", RACER, str(path), move],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for move in (first, second)
        ]
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        _wait_for_blocked_writers(os.fstat(holder).st_ino, 2)
        assert path.read_bytes() == before  # neither got past the lock
    finally:
        fcntl.flock(holder, fcntl.LOCK_UN)
        os.close(holder)
    results = []
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0 and err == "", err
        results.append(json.loads(out))
    won = [r for r in results if r["accepted"]]
    lost = [r for r in results if not r["accepted"]]
    assert len(won) == 1 and len(lost) == 1, results
    assert won[0]["seqs"] == [3]
    # the loser saw ana's move already recorded: now it is ben's turn (and a second `take r r` finds 2 red left)
    assert lost[0]["rules"][0] == "splendor.turn.out-of-turn"
    assert lost[0]["rules"][1:] == (["splendor.take.two-needs-four"] if first == second else [])
    data = path.read_bytes()
    assert len(lines_of(data)) == 3 and data.startswith(before)
    chain_holds(data)
    assert record.check(path).ok


def test_a_reader_waits_for_a_writer_instead_of_seeing_half_a_line(tmp_path: Path) -> None:
    """An append lands a page at a time; a reader must not report the half it saw as a torn tail."""
    path = tmp_path / "game.jsonl"
    make_log(path)
    log = logfile.read(path)
    _, payload = logfile.stamp([Noted(text="x" * 5000)], log.events[-1].seq, log.last_hash, logfile.now())
    fd = os.open(path, os.O_RDWR | os.O_APPEND)
    fcntl.flock(fd, fcntl.LOCK_EX)  # a writer in the middle of its append
    outcome: list[Any] = []

    def reader() -> None:
        try:
            outcome.append(logfile.read(path))
        except Exception as error:  # noqa: BLE001 - recorded for the assertion below
            outcome.append(error)

    try:
        os.write(fd, payload[:3000])
        thread = threading.Thread(target=reader)
        thread.start()
        thread.join(0.3)
        assert outcome == [], f"the reader did not wait for the writer's lock: {outcome}"
        os.write(fd, payload[3000:])
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
    thread.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], logfile.Log), outcome
    assert outcome[0].events[-1].text == "x" * 5000


# --------------------------------------------------------------------------- torn tails


def test_a_cut_at_every_offset_of_the_last_line_is_a_torn_tail_and_repairs(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    starts = starts_of(data)
    last = starts[-1]
    n = len(starts)
    for k in range(last + 1, len(data)):  # every cut inside the last line, up to its missing newline
        path = fresh(tmp_path, data[:k])
        side = Path(f"{path}.torn-1")
        with pytest.raises(logfile.TornTail) as caught:
            logfile.read(path)
        assert caught.value.line == n and caught.value.keep == last and caught.value.torn == data[last:k]
        assert str(caught.value).startswith(f"{path}:{n}: torn last line")

        done = repair_log(path)
        saved_to, size = Path(done.side), done.moved
        assert done.kept_lines == n - 1 and done.why == "log.torn-tail"
        assert saved_to == side and size == k - last
        assert side.read_bytes() == data[last:k]  # exactly the torn bytes, kept
        assert path.read_bytes() == data[:last]  # exactly the intact lines
        repaired = logfile.read(path)
        assert len(repaired.events) == n - 1 and repaired.fingerprint == sha(lines_of(data)[-2])
    path = fresh(tmp_path, data[:last])  # a cut at a line boundary is a shorter, valid log
    side = Path(f"{path}.torn-1")
    assert len(logfile.read(path).events) == n - 1
    with pytest.raises(logfile.LogError, match="nothing to repair"):
        repair_log(path)
    assert path.read_bytes() == data[:last] and not side.exists()


def test_cuts_in_earlier_lines_never_read_as_wrong_data(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    lines = lines_of(data)
    starts = starts_of(data)
    ends = [s + len(line) for s, line in zip(starts, lines)]  # offset of each line's newline
    offsets = sorted(
        {*range(1, starts[-1], 7), *(s for s in starts[1:]), *(s + 1 for s in starts), *(e for e in ends[:-1])}
    )
    units = [json.loads(line).get("unit", 1) for line in lines]
    assert units[:2] == [2, 1]  # `tally new --seed`: game_started and the deal are one unit
    for k in offsets:
        path = fresh(tmp_path, data[:k])
        whole = data[:k].count(b"\n")
        if data[k - 1 : k] == b"\n":  # a whole number of lines: the prefix of the game, exactly...
            if whole == 1:  # ...unless the cut falls inside a unit: then it is torn, not shorter
                with pytest.raises(logfile.TornUnit) as torn:
                    logfile.read(path)
                assert (torn.value.line, torn.value.size, torn.value.have) == (1, 2, 1)
                continue
            log = logfile.read(path)
            assert len(log.events) == whole and log.fingerprint == sha(lines[whole - 1])
            continue
        with pytest.raises(logfile.TornTail) as caught:
            logfile.read(path)
        assert caught.value.keep == data.rfind(b"\n", 0, k) + 1
        assert caught.value.intact == (0 if whole < 2 else caught.value.keep)  # a cut in the first unit spares nothing
    # a line cut short with the lines after it still in place: that line is damaged, not torn
    for number, (start, end) in enumerate(zip(starts, ends), start=1):
        for k in sorted({start, start + 1, (start + end) // 2, end - 1}):
            path = fresh(tmp_path, data[:k] + data[end:])
            with pytest.raises(logfile.LogError) as caught:
                logfile.read(path)
            assert not isinstance(caught.value, logfile.TornTail)
            assert caught.value.line == number, (k, str(caught.value))


def test_cli_check_reports_every_torn_offset_in_one_line(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    last = starts_of(data)[-1]
    n = len(lines_of(data))
    for k in range(last + 1, len(data)):
        path = fresh(tmp_path, data[:k])
        result = cli("check", str(path))
        assert result.exit_code == 3 and result.stdout == ""
        assert one_line(result.stderr).startswith(f"tally: {path}:{n}: torn last line")
    result = cli("check", str(path), "--json")
    assert result.exit_code == 3
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and doc["line"] == n and "torn last line" in doc["message"]


def test_repair_moves_nothing_when_the_lines_it_would_keep_are_damaged(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    starts = starts_of(data)
    edited = data[: starts[1]] + data[starts[1] :].replace(b'"seq":2', b'"seq":7', 1)  # damage before the torn tail
    path = fresh(tmp_path, edited[: starts[-1] + 5])
    before = path.read_bytes()
    with pytest.raises(logfile.LogError, match="expected seq 2"):
        repair_log(path)
    assert path.read_bytes() == before and not Path(f"{path}.torn-1").exists()


def test_repair_end_to_end_keeps_torn_bytes_in_numbered_side_files(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    data = make_log(path)
    last = starts_of(data)[-1]
    path.write_bytes(data[: last + 40])  # a crash 40 bytes into the last append
    torn = path.read_bytes()

    moved = tally("move", str(path), "ben: take r r")
    assert moved.exit_code == 3 and "torn last line" in one_line(moved.stderr) and f"{path}:6" in moved.stderr
    assert path.read_bytes() == torn  # nothing appended after a torn tail

    checked = tally("check", str(path))
    assert checked.exit_code == 3 and one_line(checked.stderr).startswith(f"tally: {path}:6: torn last line")
    assert f"tally repair {path}" in checked.stderr

    repaired = tally("repair", str(path), "--json")
    assert repaired.exit_code == 0, repaired
    doc = json.loads(repaired.stdout)
    assert doc == {
        "log": str(path),
        "torn_bytes": 40,
        "saved_to": f"{path}.torn-1",
        "removed": False,
        "kept_lines": 5,
        "why": "log.torn-tail",
    }
    assert Path(f"{path}.torn-1").read_bytes() == data[last : last + 40]
    assert path.read_bytes() == data[:last]
    checked = tally("check", str(path))
    assert checked.exit_code == 0 and "ok: 5 events" in checked.stdout
    assert f"fingerprint {sha(lines_of(data)[-2])}" in checked.stdout

    # play on, tear again: the second torn line goes to .torn-2 and .torn-1 stays as it was
    assert tally("move", str(path), "ana: take k k").exit_code == 0
    grown = path.read_bytes()
    path.write_bytes(grown[:-5])
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 0 and f"{path}.torn-2" in repaired.stdout
    assert Path(f"{path}.torn-2").read_bytes() == grown[len(data[:last]) : -5]
    assert Path(f"{path}.torn-1").read_bytes() == data[last : last + 40]
    assert tally("check", str(path)).exit_code == 0

    again = tally("repair", str(path))  # nothing torn: nothing moved, nothing written
    assert again.exit_code != 0 and "nothing to repair" in one_line(again.stderr)
    assert not Path(f"{path}.torn-3").exists()


# --------------------------------------------------------------------------- edits


def _flip(byte: int) -> int:
    char = chr(byte)
    if char.isdigit():
        return ord("7" if char != "7" else "3")
    if "a" <= char <= "z":
        return ord("q" if char != "q" else "z")
    flipped = byte ^ 0x01
    return flipped if flipped != 0x0A else byte ^ 0x02


def test_any_edited_byte_is_caught_at_its_line_or_the_next(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    lines = lines_of(data)
    starts = starts_of(data)
    n = len(lines)
    fingerprint = sha(lines[-1])
    caught_next = 0
    for number, (start, line) in enumerate(zip(starts, lines), start=1):
        for j in range(len(line)):
            edited = bytearray(data)
            edited[start + j] = _flip(edited[start + j])
            path = fresh(tmp_path, bytes(edited))
            try:
                log = logfile.read(path)
            except logfile.TornTail:  # pragma: no cover - the newline is never edited
                raise AssertionError("an edit inside a line read as a torn tail") from None
            except logfile.LogError as error:
                assert error.line in (number, number + 1), (number, j, str(error))
                if error.line == number + 1:
                    assert "prev does not match" in error.message
                    caught_next += 1
                continue
            # only an edit of the last line can still read: then the fingerprint says so
            assert number == n, (number, j)
            assert log.fingerprint != fingerprint and log.fingerprint == sha(lines_of(bytes(edited))[-1])
    assert caught_next > 100  # most edits leave valid JSON: the chain is what catches them


def _edit_at(line: bytes) -> bytes:
    """The same line with one digit of its `at` time changed: still a valid event."""
    i = line.index(b'"at":"') + len(b'"at":"') + 3  # the last digit of the year
    return line[:i] + (b"8" if line[i : i + 1] != b"8" else b"9") + line[i + 1 :]


def test_editing_a_line_breaks_the_chain_at_the_next_line(tmp_path: Path, tally: Any) -> None:
    data = make_log(tmp_path / "source.jsonl")
    lines = lines_of(data)
    path = tmp_path / "game.jsonl"
    for i in range(len(lines) - 1):
        edited = lines[:i] + [_edit_at(lines[i])] + lines[i + 1 :]
        path.write_bytes(b"\n".join(edited) + b"\n")
        result = cli("check", str(path))
        assert result.exit_code == 3
        assert one_line(result.stderr) == (
            f"tally: {path}:{i + 2}: prev does not match the SHA-256 of line {i + 1}: "
            f"line {i + 1} was edited, or lines were reordered\n"
        )
    # a payload edit, through the real CLI: ben took blue, not white
    edited = lines[:3] + [lines[3].replace(b'"gems":["w","w"]', b'"gems":["b","b"]')] + lines[4:]
    assert edited[3] != lines[3]
    path.write_bytes(b"\n".join(edited) + b"\n")
    result = tally("check", str(path))
    assert result.exit_code == 3 and one_line(result.stderr).startswith(f"tally: {path}:5: prev does not match")

    # the last line has no successor: an edit there shows in the fingerprint tally check prints
    original = tally("check", str(tmp_path / "source.jsonl"))
    assert original.exit_code == 0 and f"fingerprint {sha(lines[-1])}" in original.stdout
    edited = lines[:-1] + [_edit_at(lines[-1])]
    path.write_bytes(b"\n".join(edited) + b"\n")
    result = tally("check", str(path), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["ok"] is True and doc["fingerprint"] == sha(edited[-1]) != sha(lines[-1])


def test_reordered_and_deleted_lines_are_detected(tmp_path: Path) -> None:
    data = make_log(tmp_path / "source.jsonl")
    lines = lines_of(data)
    path = tmp_path / "game.jsonl"

    def check(new_lines: list[bytes]) -> str:
        path.write_bytes(b"\n".join(new_lines) + b"\n")
        result = cli("check", str(path))
        assert result.exit_code == 3
        return one_line(result.stderr)

    swapped = lines[:2] + [lines[3], lines[2]] + lines[4:]
    assert check(swapped) == f"tally: {path}:3: expected seq 3, found 4\n"
    assert check(lines[:2] + lines[3:]) == f"tally: {path}:3: expected seq 3, found 4\n"
    assert check(lines[1:]).startswith(f"tally: {path}:1: expected a game_started line")

    # deleting a line and renumbering the rest: the chain still knows
    renumbered = lines[:2]
    for line in lines[3:]:
        event = json.loads(line)
        event["seq"] -= 1
        renumbered.append(json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode())
    assert check(renumbered).startswith(f"tally: {path}:3: prev does not match the SHA-256 of line 2")
    # swapping two lines and fixing their seq: the same
    fixed = [json.loads(lines[3]), json.loads(lines[2])]
    fixed[0]["seq"], fixed[1]["seq"] = 3, 4
    swapped = lines[:2] + [json.dumps(e, separators=(",", ":")).encode() for e in fixed] + lines[4:]
    assert check(swapped).startswith(f"tally: {path}:3: prev does not match")


def _line(event: dict[str, Any]) -> bytes:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


def _malformed(lines: list[bytes], case: str) -> tuple[list[bytes], int, str]:
    """A damaged copy of the log, the line to blame, and what the message must say."""
    third = json.loads(lines[2])
    if case == "unknown-field":
        return lines[:2] + [_line({**third, "colour": "red"})] + lines[3:], 3, "unknown field `colour`"
    if case == "unknown-field-in-start":
        return [_line({**json.loads(lines[0]), "house": "yes"})] + lines[1:], 1, "unknown field `house`"
    if case == "unknown-event-type":
        return lines[:2] + [_line({**third, "type": "gems_stolen"})] + lines[3:], 3, "'gems_stolen'"
    if case == "non-json":
        return lines[:3] + [b"ana took red, green and blue"] + lines[4:], 4, "JSON is malformed"
    if case == "not-an-object":
        return lines[:3] + [b"[1, 2, 3]"] + lines[4:], 4, "Expected `object`, got `array`"
    if case == "bad-utf8":
        return lines[:3] + [lines[3].replace(b'"ben"', b'"b\xffn"')] + lines[4:], 4, "UTF-8"
    if case == "empty-line":
        return lines[:3] + [b""] + lines[3:], 4, "empty line: expected one JSON event per line"
    if case == "wrong-seq":
        return lines[:2] + [_line({**third, "seq": 7})] + lines[3:], 3, "expected seq 3, found 7"
    if case == "wrong-type-of-field":
        return lines[:2] + [_line({**third, "gems": "rgb"})] + lines[3:], 3, "Expected `array`, got `str`"
    if case == "missing-prev":
        return (
            lines[:2] + [_line({k: v for k, v in third.items() if k != "prev"})] + lines[3:],
            3,
            "prev does not match",
        )
    if case == "prev-on-line-1":
        first = {**json.loads(lines[0]), "prev": "0" * 64}
        return [_line(first)] + lines[1:], 1, "the first line must have seq 1 and no prev"
    if case == "missing-game-started":
        return lines[2:], 1, "expected a game_started line"
    if case == "unknown-game":
        first = {**json.loads(lines[0]), "game": "chess"}
        return [_line(first)] + lines[1:], 1, f"unknown game 'chess'; tally knows: {', '.join(registry.names())}"
    if case == "empty-file":
        return [], 0, "empty file: a log starts with a game_started line"
    raise AssertionError(case)


MALFORMED = [
    "unknown-field",
    "unknown-field-in-start",
    "unknown-event-type",
    "non-json",
    "not-an-object",
    "bad-utf8",
    "empty-line",
    "wrong-seq",
    "wrong-type-of-field",
    "missing-prev",
    "prev-on-line-1",
    "missing-game-started",
    "unknown-game",
    "empty-file",
]


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_logs_exit_3_naming_file_line_and_expectation(tmp_path: Path, tally: Any, case: str) -> None:
    data = make_log(tmp_path / "source.jsonl")
    damaged, number, expected = _malformed(lines_of(data), case)
    path = tmp_path / "game.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in damaged))
    before = path.read_bytes()
    result = tally("check", str(path))
    assert result.exit_code == 3, result
    assert result.stdout == ""
    where = f"{path}:{number}: " if number else f"{path}: "
    assert one_line(result.stderr).startswith(f"tally: {where}"), result.stderr
    assert expected in result.stderr
    as_json = cli("check", str(path), "--json")
    assert as_json.exit_code == 3
    doc = json.loads(as_json.stdout)
    assert doc["ok"] is False and doc["line"] == (number or None) and expected in doc["message"]
    moved = cli("move", str(path), "ana: take k k")  # a damaged log is never appended to
    assert moved.exit_code == 3 and expected in one_line(moved.stderr)
    assert path.read_bytes() == before


def _illegal_log(path: Path) -> tuple[bytes, int]:
    """A log whose last line is whole and chained but breaks a rule (ana plays on ben's turn)."""
    make_log(path)
    log = logfile.read(path)
    assert log.spec.to_act(record.position(path).table.state)[0] == "ben"
    _, payload = logfile.stamp(
        [sp.GemsTaken(player="ana", gems=["k", "k"])], log.events[-1].seq, log.last_hash, logfile.now()
    )
    with open(path, "ab") as handle:
        handle.write(payload)
    return path.read_bytes(), log.events[-1].seq + 1


def test_check_json_keys_for_ok_and_illegal_logs(tmp_path: Path, tally: Any) -> None:
    good = tmp_path / "good.jsonl"
    data = make_log(good)
    result = tally("check", str(good), "--json")
    assert result.exit_code == 0 and result.stderr == ""
    doc = json.loads(result.stdout)
    assert doc["ok"] is True and doc["events"] == 6 and doc["fingerprint"] == sha(lines_of(data)[-1])
    assert {"seq", "rule", "message"} <= doc.keys() and doc["seq"] is None and doc["rule"] is None
    text = tally("check", str(good))
    assert text.exit_code == 0 and text.stdout.splitlines()[-1] == f"fingerprint {doc['fingerprint']}"

    bad = tmp_path / "bad.jsonl"
    data, seq = _illegal_log(bad)
    result = tally("check", str(bad), "--json")
    assert result.exit_code == 1, result
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and doc["events"] == seq and doc["fingerprint"] == sha(lines_of(data)[-1])
    assert doc["seq"] == seq and doc["rule"] == "splendor.turn.out-of-turn" and "ben's turn" in doc["message"]
    assert one_line(result.stderr) == f"tally: {bad}:{seq}: {doc['message']} [{doc['rule']}]\n"
    # a log holding an illegal event is refused for appending (exit 1) and left as it is
    moved = tally("move", str(bad), "ben: take r r")
    assert moved.exit_code == 1 and f"{bad}:{seq}" in one_line(moved.stderr)
    assert bad.read_bytes() == data


# --------------------------------------------------------------------------- rejected input


def test_rejected_input_appends_nothing(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    make_log(path)
    before = path.read_bytes()
    attempts = [
        (("move", str(path), "ben: take r r r"), 1),  # ben to play, but three of one colour
        (("move", str(path), "ana: take r g b"), 1),  # out of turn
        (("move", str(path), "ben: take y"), 1),  # gold only comes with a reserve
        (("move", str(path), "ben: buy 3w5-w3k7"), 1),  # cannot afford
        (("move", str(path), "ben: fly to the moon"), 2),  # notation error
        (("move", str(path), "zed: take r g b"), 2),  # no such player
        (("move", str(path), "take"), 2),
        (("undo", str(path), "--reason", "   "), 2),  # a void needs a reason
        (("note", str(tmp_path / "missing.jsonl"), "hello"), 3),
    ]
    for args, code in attempts:
        result = tally(*args)
        assert result.exit_code == code, (args, result)
        one_line(result.stderr)
        assert path.read_bytes() == before, args
    assert not (tmp_path / "missing.jsonl").exists()

    table = tmp_path / "table.jsonl"  # table mode: nothing has happened yet, so nothing to undo
    assert tally("new", "splendor", str(table), "--player", "ana", "--player", "ben").exit_code == 0
    started = table.read_bytes()
    result = tally("undo", str(table), "--reason", "oops")
    assert result.exit_code == 1 and "nothing to void" in one_line(result.stderr)
    result = tally("move", str(table), "ana: take r g b")  # the setup must be revealed first
    assert result.exit_code == 1 and "setup" in one_line(result.stderr)
    assert table.read_bytes() == started


def test_new_never_overwrites(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    make_log(path)
    before = path.read_bytes()
    result = tally("new", "splendor", str(path), "--player", "ana", "--player", "ben", "--seed", "2")
    assert result.exit_code == 2 and "already exists" in one_line(result.stderr)
    assert path.read_bytes() == before
    with pytest.raises(FileExistsError):
        record.new_game(path, "splendor", ["cy", "dee"], seed=3)
    assert path.read_bytes() == before
    empty = tmp_path / "empty.jsonl"
    empty.touch()
    assert tally("new", "splendor", str(empty), "--player", "ana", "--player", "ben").exit_code == 2
    assert empty.read_bytes() == b""
    result = tally("new", "splendor", str(tmp_path / "x.jsonl"), "--player", "ana")  # usage: too few players
    assert result.exit_code == 2 and not (tmp_path / "x.jsonl").exists()


def test_one_write_then_fsync_before_success(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fsync cannot be observed from outside; in-process, os.write and os.fsync are watched instead."""
    real_write, real_fsync = os.write, os.fsync
    calls: list[tuple[str, str, int]] = []
    written: list[bytes] = []

    def name(fd: int) -> str:
        return os.readlink(f"/proc/self/fd/{fd}")

    def write_spy(fd: int, data: bytes) -> int:
        calls.append(("write", name(fd), len(data)))
        written.append(bytes(data))
        return real_write(fd, data)

    def fsync_spy(fd: int) -> None:
        calls.append(("fsync", name(fd), os.fstat(fd).st_size))
        real_fsync(fd)

    monkeypatch.setattr(os, "write", write_spy)
    monkeypatch.setattr(os, "fsync", fsync_spy)
    path = tmp_path / "game.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    target = os.path.realpath(path)
    size = path.stat().st_size
    # the whole new log in one write, on disk, and then its directory entry too
    assert calls == [
        ("write", target, size),
        ("fsync", target, size),
        ("fsync", os.path.realpath(tmp_path), calls[2][2]),
    ]

    for action in (
        lambda: record.move(path, "take r g b"),
        lambda: record.move(path, "ben: take w w"),
        lambda: record.note(path, "fsync me"),
        lambda: record.undo(path, "wrong gems"),
    ):
        calls.clear()
        written.clear()
        before = path.stat().st_size
        outcome = action()
        assert outcome.accepted
        after = path.stat().st_size
        # one write of the whole line (or lines), then one fsync that already sees them, then success
        assert [c for c in calls if c[1] == target] == [("write", target, after - before), ("fsync", target, after)]
        assert written == [path.read_bytes()[before:]] and written[0].endswith(b"\n")

    calls.clear()
    whole = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write(b'{"type":"noted"')
    repair_log(path)
    syncs = [c for c in calls if c[0] == "fsync"]
    # the side file, then its name in the folder, then the cut
    assert syncs == [
        ("fsync", f"{target}.torn-1", 15),
        ("fsync", os.path.realpath(tmp_path), syncs[1][2]),
        ("fsync", target, len(whole)),
    ]

    def failing(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError):  # no success is reported when the line may not be on disk
        record.move(path, "take r g b")


# --------------------------------------------------------------------------- upcasting


class GemsTakenV2(Event, tag="gems_taken", frozen=True, kw_only=True):
    """Version 2 of gems_taken: the field is `gems` (version 1 called it `colours`), and `v` is required."""

    v: Literal[2]
    player: str = ""
    gems: list[str] = []


def _gems_taken_v1_to_v2(old: dict[str, Any]) -> dict[str, Any]:
    new = {key: value for key, value in old.items() if key != "colours"}
    new["gems"] = old["colours"]
    new["v"] = 2
    return new


class UpcastSplendor(sp.Splendor):
    """Splendor whose gems_taken changed shape; the rules are the same, so it delegates with the old event."""

    name = "splendor-upcast-test"
    events = tuple(GemsTakenV2 if e is sp.GemsTaken else e for e in sp.EVENTS)
    upcasters = {("gems_taken", 1): _gems_taken_v1_to_v2}

    @staticmethod
    def _old(event: Event) -> Event:
        if type(event) is GemsTakenV2:
            return sp.GemsTaken(seq=event.seq, player=event.player, gems=event.gems)
        return event

    def check(self, state: Any, event: Event) -> list[Any]:
        return super().check(state, self._old(event))

    def permit(self, state: Any, event: Event) -> Any:
        return super().permit(state, self._old(event))

    def apply(self, state: Any, event: Event) -> Any:
        return super().apply(state, self._old(event))

    def format(self, event: Event) -> str:
        return super().format(self._old(event))

    def parse(self, state: Any, text: str) -> Any:
        parsed = super().parse(state, text)
        if isinstance(parsed, list):
            parsed = [GemsTakenV2(v=2, player=e.player, gems=e.gems) if type(e) is sp.GemsTaken else e for e in parsed]
        return parsed


@pytest.fixture
def upcast_game(monkeypatch: pytest.MonkeyPatch) -> UpcastSplendor:
    spec = UpcastSplendor()
    real_get = registry.get
    monkeypatch.setattr(registry, "get", lambda name: spec if name == spec.name else real_get(name))
    monkeypatch.setattr(logfile, "_DECODERS", {})  # decoders are cached by game name
    return spec


def _old_log(path: Path, spec: UpcastSplendor, gems_line: dict[str, Any]) -> bytes:
    """A log written by the old version: its third line is a version-1 gems_taken."""
    record.new_game(path, spec.name, ["ana", "ben"], seed=1)
    log = logfile.read(path)
    line = _line({"type": "gems_taken", "seq": 3, "at": "2019-05-04T20:15:00.000Z", "prev": log.last_hash, **gems_line})
    with open(path, "ab") as handle:
        handle.write(line + b"\n")
    return line


def test_old_lines_are_upcast_on_read_and_never_rewritten(tmp_path: Path, upcast_game: UpcastSplendor) -> None:
    path = tmp_path / "old.jsonl"
    old_line = _old_log(path, upcast_game, {"player": "ana", "colours": ["r", "g", "b"]})
    old_bytes = path.read_bytes()

    log = logfile.read(path)
    event = log.events[2]
    assert type(event) is GemsTakenV2 and event.v == 2 and event.gems == ["r", "g", "b"] and event.player == "ana"
    assert (event.seq, event.at, event.prev) == (3, "2019-05-04T20:15:00.000Z", sha(lines_of(old_bytes)[1]))
    assert log.fingerprint == sha(old_line)  # the chain is over the bytes on disk, not a re-encoding
    assert path.read_bytes() == old_bytes

    assert record.move(path, "take w w").accepted  # ben, judged on the upcast state
    assert record.move(path, "ana: take r g b").accepted  # second move resumes from the state cache
    data = path.read_bytes()
    assert data.startswith(old_bytes)  # the old line stays as it was written
    new = [json.loads(line) for line in lines_of(data)[3:]]
    assert [(e["v"], e["gems"], e["prev"]) for e in new][0] == (2, ["w", "w"], sha(old_line))
    assert all("colours" not in e for e in new)
    report = record.check(path)
    assert report.ok and report.events == 5 and report.fingerprint == sha(lines_of(data)[-1])
    # the upcast state is the one the old version would have folded: ana holds r g b
    state = record.position(path).table.state
    assert state.players[0].tokens[:5] == (0, 2, 2, 2, 0)  # w b g r k: r g b (the old line), then r g b again


def test_upcasting_failures_are_damaged_lines_not_crashes(
    tmp_path: Path, upcast_game: UpcastSplendor, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = {
        "v1-line-without-colours": {"player": "ana", "gems": ["r", "g", "b"]},  # its upcaster cannot read it
        "unhashable-version": {"player": "ana", "colours": ["r"], "v": [1]},
        "unknown-version": {"player": "ana", "gems": ["r"], "v": 7},
        "extra-field": {"player": "ana", "colours": ["r", "g", "b"], "house": 1},  # upcast, still not an event
    }
    for name, fields in cases.items():
        path = tmp_path / f"{name}.jsonl"
        _old_log(path, upcast_game, fields)
        with pytest.raises(logfile.LogError) as caught:
            logfile.read(path)
        assert caught.value.line == 3 and "not a splendor-upcast-test event" in caught.value.message, name

    calls = []

    def forgetful(old: dict[str, Any]) -> dict[str, Any]:  # a buggy upcaster that never bumps `v`
        calls.append(1)
        if len(calls) > 50:
            raise RuntimeError("looping")
        return {**old}

    monkeypatch.setattr(UpcastSplendor, "upcasters", {("gems_taken", 1): forgetful})
    path = tmp_path / "loop.jsonl"
    _old_log(path, upcast_game, {"player": "ana", "colours": ["r", "g", "b"]})
    with pytest.raises(logfile.LogError, match="loop") as caught:
        logfile.read(path)
    assert caught.value.line == 3 and len(calls) == 1

    monkeypatch.setattr(UpcastSplendor, "upcasters", {})  # without its upcaster an old line is unreadable
    with pytest.raises(logfile.LogError) as caught:
        logfile.read(path)
    assert caught.value.line == 3 and "unknown field `colours`" in caught.value.message


# --------------------------------------------------------------------------- docs/format.md


def _doc_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", FORMAT_DOC.read_text(encoding="utf-8"), flags=re.S)


def test_reference_verifier_in_format_doc_agrees_with_tally_check(tmp_path: Path, tally: Any) -> None:
    blocks = [b for b in _doc_blocks("python") if "def verify" in b]
    assert len(blocks) == 1, "docs/format.md must hold exactly one reference verifier"
    code = blocks[0]
    assert len(code.strip().splitlines()) <= 40
    path = tmp_path / "game.jsonl"
    make_log(path)
    checked = tally("check", str(path), "--json")
    assert checked.exit_code == 0

    def verify(target: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-c", code, str(target)], capture_output=True, text=True, timeout=60)

    ran = verify(path)
    assert ran.returncode == 0, ran.stderr
    assert f"fingerprint {json.loads(checked.stdout)['fingerprint']}" in ran.stdout.splitlines()
    assert "6 events" in ran.stdout

    # it must also fail where tally check fails on integrity
    data = path.read_bytes()
    lines = lines_of(data)
    damaged = {
        "edited": b"\n".join(lines[:2] + [_edit_at(lines[2])] + lines[3:]) + b"\n",
        "torn": data[:-10],
        "reordered": b"\n".join(lines[:2] + [lines[3], lines[2]] + lines[4:]) + b"\n",
        "not-json": b"\n".join(lines[:3] + [b"hello"] + lines[4:]) + b"\n",
    }
    for name, content in damaged.items():
        target = tmp_path / f"{name}.jsonl"
        target.write_bytes(content)
        assert tally("check", str(target)).exit_code == 3
        ran = verify(target)
        assert ran.returncode != 0 and "Traceback" not in ran.stderr and str(target) in ran.stderr, (name, ran)


def test_format_doc_examples_are_real_splendor_events() -> None:
    """Every example line in docs/format.md decodes as a splendor log line, with no unknown field."""
    decoder = logfile.decoder_for(registry.get("splendor"))
    examples = [line for block in _doc_blocks("json") for line in block.splitlines() if line.startswith('{"type":')]
    seen = set()
    for line in examples:
        event = decoder.decode(line.encode())
        seen.add(type(event).__struct_config__.tag)  # type: ignore[attr-defined]
        # each example is a line as tally writes it: re-encoding gives the same bytes
        assert msgspec.json.encode(event) == line.encode(), line
    wanted = {"game_started", "voided", "amended", "noted"} | {e.__struct_config__.tag for e in sp.EVENTS}  # type: ignore[attr-defined]
    assert seen == wanted


# --------------------------------------------------------------------------- what readers refuse (issues 7, 16)


def _rechained(lines: list[bytes]) -> bytes:
    """Lines given the prev chain their (rewritten) bytes call for, each ending in CRLF: the finding's forger."""
    out: list[bytes] = []
    for line in lines:
        event = json.loads(line)
        if out:
            event["prev"] = hashlib.sha256(out[-1]).hexdigest()
        out.append(line_of(event) + b"\r")  # the CR becomes part of the line's bytes, and of its hash
    return b"".join(line + b"\n" for line in out)


def test_finding_7_tampering_is_refused(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "source.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    assert record.move(path, "take r g b").accepted
    data = path.read_bytes()
    lines = data[:-1].split(b"\n")
    variants = {
        "crlf-last-line": (data[:-1] + b"\r\n", 3, "a carriage return (\\r)"),
        "duplicate-key": (
            b"\n".join(lines[:2] + [lines[2][:-1] + b',"player":"ben"}']) + b"\n",
            3,
            "the key 'player' appears twice",
        ),
        "trailing-whitespace": (
            b"\n".join(lines[:2] + [lines[2] + b"  "]) + b"\n",
            3,
            "before or after the JSON object",
        ),
        "crlf-rechained": (_rechained(lines), 1, "a carriage return (\\r)"),
    }
    for name, (content, line, message) in variants.items():
        target = tmp_path / f"{name}.jsonl"
        target.write_bytes(content)
        checked = tally("check", str(target))
        assert (
            checked.exit_code == 3
            and stderr_line(checked).startswith(f"tally: {target}:{line}: ")
            and message in checked.stderr
        ), (name, checked)
        moved = tally("move", str(target), "ben: take w w")  # nothing is appended to such a log
        assert moved.exit_code == 3 and target.read_bytes() == content, (name, moved)


def test_finding_8_logs_written_before_units_read_as_before(tally: Any) -> None:
    for fixture in sorted((ROOT / "fixtures" / "games").glob("*.jsonl")):
        assert b'"unit"' not in fixture.read_bytes()  # recorded before format 2
        assert tally("check", str(fixture)).exit_code == 0


def test_finding_9_special_files_are_refused_at_once(tmp_path: Path, tally: Any) -> None:
    fifo = tmp_path / "fifo.jsonl"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.jsonl"
    folder.mkdir()
    cases = [
        (fifo, "a FIFO (named pipe), not a regular file"),
        (folder, "a directory, not a regular file"),
        (Path("/dev/zero"), "a character device, not a regular file"),
    ]
    for path, message in cases:
        for command in (
            ["check", str(path)],
            ["move", str(path), "take r g b"],
            ["state", str(path)],
            ["replay", str(path)],
            ["note", str(path), "hi"],
            ["repair", str(path)],
        ):
            result = tally(*command)  # the subprocess timeout (120 s) would fail a blocked command
            assert result.exit_code == 3, (command, result)
            assert stderr_line(result) == f"tally: {path}: {message}: a log is a regular file\n", (command, result)
    ingested = tally("ingest", str(fifo), str(tmp_path), "--db", str(tmp_path / "library.duckdb"))
    assert ingested.exit_code == 3 and f"tally: rejected {fifo}: a FIFO" in ingested.stderr
    manifest = tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", "ana", "-p", "ben", "--manifest", str(fifo))
    assert manifest.exit_code == 2 and "a FIFO (named pipe)" in stderr_line(manifest)


GAMES = sorted(p.name for p in (ROOT / "core" / "games").iterdir() if (p / "__init__.py").exists())


@pytest.mark.parametrize("game", GAMES)
def test_finding_2_a_line_nested_1000_deep_is_exit_3_for_every_reader(tmp_path: Path, tally: Any, game: str) -> None:
    path = tmp_path / f"{game}.jsonl"
    assert tally("new", game, str(path), "-p", "ana", "-p", "ben").exit_code == 0
    lines = log_lines(path)
    deep = (
        '{"type":"noted","seq":%d,"at":"2026-01-01T00:00:00.000Z","prev":"%s","text":%s}'
        % (len(lines) + 1, "0" * 64, nested(1000))
    ).encode()
    path.write_bytes(joined_lines(lines + [deep]))
    damaged = path.read_bytes()
    for command in (["check"], ["moves"], ["state"], ["replay"], ["repair"], ["move", "note hi"], ["note", "hi"]):
        result = tally(command[0], str(path), *command[1:])
        assert result.exit_code == 3, (command, result)
        assert f"{path}:{len(lines) + 1}: nested more than 32 levels deep" in result.stderr, (command, result.stderr)
    assert path.read_bytes() == damaged
    ingested = tally("ingest", str(path), "--db", str(tmp_path / "library.duckdb"))
    assert ingested.exit_code == 3 and "internal" not in ingested.stderr and "nested more than 32" in ingested.stderr, (
        ingested
    )


def test_events_after_line_1_are_typed_all_the_way_down() -> None:
    """The reader decodes lines 2.. before measuring their depth (docs/format.md, "Limits"): safe only while no
    event type holds a field of any type (`Any`), where the typed decoder would follow the nesting."""
    import msgspec

    from tally.core import registry
    from tally.core.model import SHARED_EVENTS, GameStarted

    def walk(info: Any, seen: set[int]) -> None:
        assert not isinstance(info, msgspec.inspect.AnyType), info
        if id(info) in seen:
            return
        seen.add(id(info))
        for name in ("item_type", "key_type", "value_type"):
            if hasattr(info, name):
                walk(getattr(info, name), seen)
        for item in getattr(info, "item_types", ()) or getattr(info, "types", ()):
            walk(item, seen)
        for field in getattr(info, "fields", ()):
            walk(field.type, seen)

    for spec in registry.specs():
        for kind in [*SHARED_EVENTS, *spec.events]:
            if kind is not GameStarted:
                walk(msgspec.inspect.type_info(kind), set())


# --------------------------------------------------------------------------- anchors and times


def _fingerprints(tally: Any, path: Path) -> list[str]:
    import hashlib

    return [hashlib.sha256(line).hexdigest() for line in log_lines(path)]


def test_anchors_hold_for_the_log_they_were_taken_from(tmp_path: Path, tally: Any) -> None:
    path = splendor_log(tmp_path, tally)
    prints = _fingerprints(tally, path)
    checked = tally("check", str(path), "--expect", f"3:{prints[2][:8]}", "--expect", f"5:{prints[4].upper()}")
    assert checked.exit_code == 0 and f"fingerprint {prints[-1]}" in checked.stdout, checked


@pytest.mark.parametrize("tamper", ["cut", "rewritten", "forked"])
def test_an_anchor_detects_what_the_chain_cannot(tmp_path: Path, tally: Any, tamper: str) -> None:
    path = splendor_log(tmp_path, tally)
    prints = _fingerprints(tally, path)
    lines = log_lines(path)
    if tamper == "cut":  # the last two lines removed: a valid, shorter log
        path.write_bytes(joined_lines(lines[:3]))
    else:
        other = splendor_log(tmp_path, tally, "other.jsonl") if tamper == "forked" else None
        if other is not None:  # another branch from line 4 on: ben took other gems
            path.write_bytes(joined_lines(lines[:3]))
            assert tally("move", str(path), "take k k").exit_code == 0
            assert tally("move", str(path), "take r g b").exit_code == 0
        else:  # a careful forger rewrites a note into line 3 and chains everything after it anew
            import hashlib

            events = [json.loads(line) for line in lines]
            events[2]["gems"] = ["r", "g", "k"]
            rewritten = []
            for event in events:
                if rewritten:
                    event["prev"] = hashlib.sha256(rewritten[-1]).hexdigest()
                rewritten.append(json.dumps(event, separators=(",", ":")).encode())
            path.write_bytes(joined_lines(rewritten))
    assert tally("check", str(path)).exit_code in (0, 1)  # the chain alone accepts it
    checked = tally("check", str(path), "--expect", f"5:{prints[4][:8]}")
    assert checked.exit_code == 3 and checked.stderr.count("\n") == 1, checked
    assert (
        "anchor 5:" in checked.stderr
        and ("ends at line 3" if tamper == "cut" else "fingerprint is now") in checked.stderr
    )
    doc = json.loads(tally("check", str(path), "--expect", f"5:{prints[4][:8]}", "--json").stdout)
    assert doc["ok"] is False and doc["error"] == "damaged"


@pytest.mark.parametrize("bad", ["5", "5:abc", "x:12345678", "0:12345678", "5:1234567g", "5:" + "0" * 65])
def test_an_anchor_must_name_a_line_and_8_hex_digits(tmp_path: Path, tally: Any, bad: str) -> None:
    path = splendor_log(tmp_path, tally)
    checked = tally("check", str(path), "--expect", bad)
    assert checked.exit_code == 2 and "--expect" in checked.stderr, checked


def test_times_that_go_backwards_are_warnings_of_check(tmp_path: Path, tally: Any) -> None:
    import hashlib

    path = splendor_log(tmp_path, tally)
    events = [json.loads(line) for line in log_lines(path)]
    events[3]["at"] = "2020-01-01T00:00:00.000Z"
    rewritten: list[bytes] = []
    for event in events:
        if rewritten:
            event["prev"] = hashlib.sha256(rewritten[-1]).hexdigest()
        rewritten.append(json.dumps(event, separators=(",", ":")).encode())
    path.write_bytes(joined_lines(rewritten))
    checked = tally("check", str(path))
    assert checked.exit_code == 0, checked
    assert "#4 warning: recorded at 2020-01-01T00:00:00.000Z, before line 3" in checked.stdout
    assert "[log.at-backwards]" in checked.stdout and "#5" not in checked.stdout
    doc = json.loads(tally("check", str(path), "--json").stdout)
    assert [w["seq"] for w in doc["warnings"] if w["rule"] == "log.at-backwards"] == [4]


def test_tail_anchor_is_the_verified_anchor_read_from_the_end_only(tmp_path: Path) -> None:
    from tally.store.logs import anchors
    from tally.store.logs import log as logfile

    for fixture in sorted((ROOT / "fixtures" / "games").glob("*.jsonl")):
        log = logfile.read(fixture)
        assert anchors.tail_anchor(fixture) == log.anchor == (len(log.events), log.fingerprint)
        assert all(log.fingerprint_at(seq) == log.events[seq].prev for seq in range(1, len(log.events)))
    long_line = tmp_path / "long.jsonl"  # a last line longer than the first chunk read from the end
    from tally.store.recording import record

    record.new_game(long_line, "splendor", ["ana", "ben"], seed=1)
    record.note(long_line, "x" * 200_000)
    assert anchors.tail_anchor(long_line) == logfile.read(long_line).anchor
