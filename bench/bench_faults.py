"""Fault run: power cuts, kill -9 and hostile input over all four games; counts what must stay zero.

    python bench/bench_faults.py [--games 4] [--cuts 200] [--kills 20] [--seed 1] [--quick]

For every game in the registry:

1. **Power cuts.** Simulated open games; for sampled units (one command's write), the file as a power cut
   inside that write can leave it: a length anywhere from the unit's start to its end, each block of 64
   bytes written, not written (zeros) or written in part, in any order. Each is read; a torn end is
   repaired (`tally.store.logs.repair`); then the log must hold every event before the unit (acknowledged),
   and either all of the unit or none of it, and check.
2. **kill -9 of writers.** A real `tally move` (and `tally note`) killed after a random delay; the log
   must then check with every event acknowledged before it, after at most one `tally repair`.
3. **Hostile input.** Lines nested 1,000 deep, a corrupt `unit` count and zero blocks before a later
   write, through `tally check` and `tally repair` as real processes: never exit 4, never a changed log
   on a refusal.
4. **kill -9 of `tally ingest --jobs 2`**: no process of it may survive.

It prints the counts: cases run, events lost, exit-4 runs, orphaned processes (all three must be 0; the
script exits 1 otherwise). `--quick` is the suite's fast part (tests/test_faults.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tally.core import registry
from tally.store.logs import log as logfile
from tally.store.logs.repair import repair
from tally.store.recording import record
from tally.store.recording.simulate import simulate

BLOCK = 64
TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


class Counts:
    def __init__(self) -> None:
        self.cases = self.lost = self.exit4 = self.orphans = self.repaired = self.refused = 0

    def line(self, what: str) -> str:
        return (
            f"{what:<28} cases {self.cases:>6}  repaired {self.repaired:>5}  refused {self.refused:>4}  "
            f"events lost {self.lost}  exit 4 {self.exit4}  orphaned processes {self.orphans}"
        )


def _units(data: bytes) -> list[tuple[int, int]]:
    starts, offset, unit_end = [], 0, 0
    for seq, line in enumerate(data[:-1].split(b"\n"), 1):
        if seq > unit_end:
            starts.append(offset)
            envelope = logfile._envelope(line)
            unit_end = seq + (envelope.unit if envelope is not None else 1) - 1
        offset += len(line) + 1
    return list(zip(starts, [*starts[1:], len(data)]))


def _cut(data: bytes, start: int, end: int, rng: random.Random) -> bytes:
    length = rng.choice([end, rng.randint(start, end)])
    out = bytearray(data[:length])
    for block in range(start // BLOCK, (length + BLOCK - 1) // BLOCK):
        low, high = max(block * BLOCK, start), min((block + 1) * BLOCK, length)
        fate = rng.random()
        if fate < 0.3:
            out[low:high] = bytes(high - low)
        elif fate < 0.4:
            cut = rng.randint(low, high)
            out[cut:high] = bytes(high - cut)
    return bytes(out)


def power_cuts(folder: Path, game: str, games: int, cuts: int, rng: random.Random, counts: Counts) -> None:
    simulate(game, games, rng.randint(1, 10_000), folder / "sim")
    for source in sorted((folder / "sim").rglob("*.jsonl")):
        data = source.read_bytes()
        units = _units(data)
        for n in range(cuts):
            start, end = rng.choice(units)
            crashed = _cut(data, start, end, rng)
            path = folder / f"cut-{n}.jsonl"
            path.write_bytes(crashed)
            counts.cases += 1
            before = data[:start].count(b"\n")
            try:
                try:
                    log = logfile.read(path)
                except logfile.Torn:
                    done = repair(path)
                    counts.repaired += 1
                    if done.removed:
                        counts.lost += before
                        continue
                    log = logfile.read(path)
                kept = len(log.events)
                if kept < before or path.read_bytes() not in (data[:start], data[:end]):
                    counts.lost += max(0, before - kept) or 1
                if not record.check(path).ok:
                    counts.lost += 1
            except logfile.LogError:
                counts.refused += 1  # a refusal is a value: it must also never lose what was acknowledged
                counts.lost += before
            except Exception:  # noqa: BLE001 - what would be exit 4
                counts.exit4 += 1
            finally:
                for side in folder.glob("cut-*"):
                    side.unlink()
        source.unlink()


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*TALLY, *args], capture_output=True, text=True, timeout=120)


def kills(folder: Path, game: str, n: int, rng: random.Random, counts: Counts) -> None:
    path = folder / f"kill-{game}.jsonl"
    assert _run("new", game, str(path), "-p", "ana", "-p", "ben", "--seed", str(rng.randint(1, 999))).returncode == 0
    for _ in range(n):
        acknowledged = path.read_bytes()
        moves = _run("moves", str(path), "--json")
        counts.cases += 1
        try:
            listed = json.loads(moves.stdout)
        except ValueError:
            listed = None
        command = ["move", str(path), "1"] if listed and listed.get("moves") else ["note", str(path), "x" * 5000]
        proc = subprocess.Popen([*TALLY, *command], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.0, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        checked = _run("check", str(path))
        if checked.returncode == 4:
            counts.exit4 += 1
        if checked.returncode == 3:
            repaired = _run("repair", str(path))
            counts.repaired += 1
            counts.exit4 += repaired.returncode == 4
            checked = _run("check", str(path))
        if checked.returncode not in (0, 1) or not path.read_bytes().startswith(acknowledged):
            counts.lost += 1


def hostile(folder: Path, game: str, counts: Counts) -> None:
    path = folder / f"hostile-{game}.jsonl"
    assert _run("new", game, str(path), "-p", "ana", "-p", "ben", "--seed", "3").returncode == 0
    lines = path.read_bytes()[:-1].split(b"\n")
    deep = (
        '{"type":"noted","seq":%d,"at":"2026-01-01T00:00:00.000Z","prev":"%s","text":%s}'
        % (len(lines) + 1, "0" * 64, "[" * 1000 + "]" * 1000)
    ).encode()
    first = json.loads(lines[0])
    first["unit"] = 40
    cases = [
        lines + [deep],
        [json.dumps(first, separators=(",", ":")).encode()] + lines[1:],
        lines[:-1] + [lines[-1][:10] + bytes(20) + lines[-1][30:]] + lines[-1:],
    ]
    for damaged in cases:
        data = b"".join(line + b"\n" for line in damaged)
        for command in ("check", "repair", "state", "replay"):
            path.write_bytes(data)
            result = _run(command, str(path))
            counts.cases += 1
            counts.exit4 += result.returncode == 4
            if result.returncode == 3 and command == "repair" and path.read_bytes() != data:
                counts.lost += 1
            for side in folder.glob(f"{path.name}.torn-*"):
                side.unlink()


def _session(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == pid and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def ingest_kills(folder: Path, n: int, rng: random.Random, counts: Counts) -> None:
    logs = folder / "ingest"
    for game in registry.names():
        simulate(game, 20, 1, logs / game)
    for trial in range(n):
        proc = subprocess.Popen(
            [*TALLY, "ingest", str(logs), "--db", str(folder / f"lib-{trial}.duckdb"), "--jobs", "2"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.3, 2.0))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        counts.cases += 1
        deadline = time.monotonic() + 5
        while _session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        left = _session(proc.pid)
        counts.orphans += len(left)
        for pid in left:
            os.kill(pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--cuts", type=int, default=200)
    parser.add_argument("--kills", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="the suite's fast part")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.cuts, args.kills = 1, 40, 2
    rng = random.Random(args.seed)
    total = Counts()
    with tempfile.TemporaryDirectory(prefix="tally-faults-") as tmp:
        folder = Path(tmp)
        for game in registry.names():
            counts = Counts()
            power_cuts(folder / game, game, args.games, args.cuts, rng, counts)
            kills(folder / game, game, args.kills, rng, counts)
            hostile(folder / game, game, counts)
            print(counts.line(game), flush=True)
            for name in ("cases", "lost", "exit4", "orphans", "repaired", "refused"):
                setattr(total, name, getattr(total, name) + getattr(counts, name))
        if Path("/proc/self/stat").exists():
            counts = Counts()
            ingest_kills(folder, max(1, args.kills // 4), rng, counts)
            print(counts.line("kill -9 of ingest --jobs 2"), flush=True)
            total.cases += counts.cases
            total.orphans += counts.orphans
    print(total.line("all"))
    return 0 if total.lost == total.exit4 == total.orphans == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
