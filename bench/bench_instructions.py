"""Instruction counts of whole `tally` processes, two or more installs side by side (issue 33 item 8: check, replay,
state, move and simulate no slower than before).

    python bench/bench_instructions.py [--side SPEC]... [--only NAME]... [--keep DIR] [--tool callgrind|none] [--json]

1. The sides: each `--side` is a Python executable of an environment where tally is installed, or a git revision of
   this repository, built here into a wheel (non-editable) and installed with its own `requirements.lock` into a
   fresh environment under `--cache` (default: `~/.cache/tally-bench/instructions/COMMIT/`, kept for the next run),
   or `worktree`: the checkout's tracked files as they are now (built each run, in a temporary folder). The default
   sides are `0f440b9` (before issue 33) and `worktree`; every ratio is a side's count over the first side's.
2. The commands (`COMMANDS`): `tally check --help` (the floor: start-up and no log read), check, replay and state of
   bundled games, a move (a Splendor table game's whole setup revealed in one line, on a new log written here) and
   `tally simulate splendor --games 20`. Every side runs each in the same folder, on the same files, copied afresh
   before each run (the fixtures from this checkout, an empty state cache, `PYTHONHASHSEED=0`), its `tally`
   console script under `valgrind --tool=callgrind` (the whole process, start-up included), once, after one run
   without valgrind (so that no module is compiled in the run counted): the counts repeat to a few thousand
   instructions. The table marks a command whose standard output differs between sides.
3. `--keep DIR` keeps each run's callgrind file (`DIR/SIDE.NAME.out`) for `callgrind_annotate`; `--tool none` runs
   the commands without valgrind (no counts: what the smoke test in tests/test_bench.py runs where valgrind is
   not installed).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "games"
DEFAULT_SIDES = ["0f440b9", "worktree"]

# a new Splendor table game for three (the first line of a log, fixed so that every side reads the same bytes)
NEW_GAME = (
    '{"type":"game_started","seq":1,"at":"2026-01-01T12:00:00.000Z","game":"splendor","rules":"1",'
    '"seats":["ana","ben","cy"],"mode":"table","options":{"take-fewer":"when-short","stuck":"pass","target":"15"},'
    '"manifest":"splendor-base-2014"}\n'
)
# the setup of fixtures/games/splendor-table-3p.jsonl, revealed in one line
SETUP = (
    "reveal b3g3r3 w3b3k3 r4k4 w3b3g3 1g1-k4 1r0-b2g1 1w0-b2g2k1 1g0-w1b1r1k1 2w2-r5k3 2g2-g5 2k2-g5r3 2b1-b2g3k3 "
    "3g3-w5b3r3k3 3r4-b3g6r3 3w4-k7 3r3-w3b5g3k3"
)


@dataclass(frozen=True)
class Command:
    name: str
    label: str
    argv: tuple[str, ...]  # after `tally`; WORK stands for the run's folder


COMMANDS = [
    Command("floor", "check --help (the floor: start-up, no log read)", ("check", "--help")),
    Command("check-splendor", "check splendor-4p", ("check", "WORK/splendor-4p.jsonl")),
    Command("check-split", "check split-3p", ("check", "WORK/split-3p.jsonl")),
    Command("check-splice", "check splice-open-4p", ("check", "WORK/splice-open-4p.jsonl")),
    Command("check-array", "check array-open-4p", ("check", "WORK/array-open-4p.jsonl")),
    Command("replay-splendor", "replay splendor-4p", ("replay", "WORK/splendor-4p.jsonl")),
    Command("state-splice", "state splice-open-4p", ("state", "WORK/splice-open-4p.jsonl")),
    Command("move", "move (Splendor setup reveal, new table game)", ("move", "WORK/new.jsonl", SETUP)),
    Command(
        "simulate",
        "simulate splendor, 20 games",
        ("simulate", "splendor", "--games", "20", "--seed", "1", "--out", "WORK/sim"),
    ),
]


@dataclass
class Side:
    spec: str
    python: Path
    commit: str | None


# --------------------------------------------------------------------------- the installs


def run(argv: list[str | Path], cwd: Path | None = None) -> str:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTHON", "VIRTUAL_ENV"))}
    done = subprocess.run([str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(map(str, argv))}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def install(source: Path, into: Path, log: Any) -> Path:
    """Build `source` into a wheel and install it, with its lock's pins, into a fresh environment `into`."""
    dist = into / "dist"
    print(f"  building {source.name} into {into} ...", file=log, flush=True)
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, source], cwd=into)
    [wheel] = dist.glob("tally-*.whl")
    run([sys.executable, "-m", "venv", into / "venv"])
    python = into / "venv" / "bin" / "python"
    run([python, "-m", "pip", "install", "-q", "-c", source / "requirements.lock", wheel], cwd=into)
    return python


def side(spec: str, cache: Path, scratch: Path, log: Any) -> Side:
    if spec == "worktree":
        source = scratch / "worktree" / "src"
        listed = run(["git", "ls-files", "-z"], cwd=ROOT).split("\0")
        for name in filter(None, listed):
            if (ROOT / name).is_file():
                (source / name).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / name, source / name)
        return Side(spec, install(source, source.parent, log), None)
    if Path(spec).is_file():
        return Side(spec, Path(spec).absolute(), None)
    commit = run(["git", "rev-parse", "--verify", f"{spec}^{{commit}}"], cwd=ROOT).strip()
    home = cache / commit
    python = home / "venv" / "bin" / "python"
    if not (home / "done").exists():
        shutil.rmtree(home, ignore_errors=True)
        source = home / "src"
        source.mkdir(parents=True)
        archive = subprocess.run(["git", "archive", commit], cwd=ROOT, capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", source], input=archive, check=True)
        install(source, home, log)
        shutil.rmtree(source)
        (home / "done").write_text(commit + "\n")
    return Side(spec, python, commit)


# --------------------------------------------------------------------------- the runs


def prepare(work: Path) -> None:
    """The run's folder as every run starts it: the fixtures read, the new game, an empty state cache."""
    shutil.rmtree(work, ignore_errors=True)
    (work / "cache").mkdir(parents=True)
    for name in ("splendor-4p", "split-3p", "splice-open-4p", "array-open-4p"):
        shutil.copyfile(FIXTURES / f"{name}.jsonl", work / f"{name}.jsonl")
    (work / "new.jsonl").write_text(NEW_GAME)


COLLECTED = re.compile(r"Collected : (\d+)")


def measure(side: Side, command: Command, work: Path, tool: str, keep: Path | None) -> dict[str, Any]:
    prepare(work)
    tally = side.python.parent / "tally"
    argv = [str(side.python), str(tally), *(part.replace("WORK", str(work)) for part in command.argv)]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(work),
        "LANG": "C.UTF-8",
        "COLUMNS": "100",
        "TERM": "dumb",
        "PYTHONHASHSEED": "0",
        "TALLY_CACHE_DIR": str(work / "cache"),
    }
    out_file = "/dev/null"
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        label = re.sub(r"[^A-Za-z0-9._-]", "_", side.spec)
        out_file = str((keep / f"{label}.{command.name}.out").absolute())
    if tool == "callgrind":  # a plain run first: any module not yet compiled is compiled then, not counted
        subprocess.run(argv, cwd=work, env=env, capture_output=True)
        prepare(work)
        argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out_file}", *argv]
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"{side.spec}: {command.label} exited {done.returncode}\n{done.stderr.decode()[-3000:]}")
    found = COLLECTED.findall(done.stderr.decode()) if tool == "callgrind" else []
    return {
        "instructions": int(found[-1]) if found else None,
        "stdout_sha256": hashlib.sha256(done.stdout).hexdigest(),
    }


def millions(count: int | None) -> str:
    return "-" if count is None else f"{count / 1e6:.1f}M"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument(
        "--side",
        action="append",
        help="a Python executable, a git revision or `worktree` (repeat; the first is the base)",
    )
    parser.add_argument(
        "--only", action="append", help="run only this command (repeat): " + ", ".join(c.name for c in COMMANDS)
    )
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "tally-bench" / "instructions")
    parser.add_argument("--keep", type=Path, default=None, help="keep each run's callgrind file in this folder")
    parser.add_argument("--tool", choices=("callgrind", "none"), default="callgrind")
    parser.add_argument("--json", action="store_true", help="print one JSON document at the end")
    args = parser.parse_args()
    specs = args.side or DEFAULT_SIDES
    commands = [c for c in COMMANDS if not args.only or c.name in args.only]
    unknown = set(args.only or ()) - {c.name for c in COMMANDS}
    if unknown:
        parser.error(f"unknown command {sorted(unknown)}")
    if args.tool == "callgrind" and shutil.which("valgrind") is None:
        parser.error("valgrind is not installed (--tool none runs the commands without counting)")
    log = sys.stderr if args.json else sys.stdout

    with tempfile.TemporaryDirectory(prefix="tally-bench-instructions-") as scratch_name:
        scratch = Path(scratch_name)
        sides = [side(spec, args.cache, scratch, log) for spec in specs]
        for number, one in enumerate(sides):  # a side named twice (a smoke run) is told apart by its place
            if any(other.spec == one.spec for other in sides[:number]):
                one.spec = f"{one.spec} ({number + 1})"
        work = scratch / "work"  # one folder for every side: the paths in argv are the same bytes
        rows = []
        for command in commands:
            found = {}
            for one in sides:
                print(f"  {command.label}: {one.spec} ...", file=log, flush=True)
                found[one.spec] = measure(one, command, work, args.tool, args.keep)
            base = found[sides[0].spec]["instructions"]
            rows.append(
                {
                    "name": command.name,
                    "label": command.label,
                    "instructions": {spec: figures["instructions"] for spec, figures in found.items()},
                    "ratios": {
                        spec: (
                            None if base is None or figures["instructions"] is None else figures["instructions"] / base
                        )
                        for spec, figures in found.items()
                    },
                    "same_output": len({figures["stdout_sha256"] for figures in found.values()}) == 1,
                }
            )

    heads = [
        f"{s.spec}" + (f" ({s.commit[:7]})" if s.commit and not s.spec.startswith(s.commit[:7]) else "") for s in sides
    ]
    print(f"\ninstructions ({args.tool}), whole process, PYTHONHASHSEED=0", file=log)
    header = ["command", *heads, *(f"{h} / {heads[0]}" for h in heads[1:]), "output"]
    table = [header]
    for row in rows:
        counts = [millions(row["instructions"][s.spec]) for s in sides]
        ratios = ["-" if row["ratios"][s.spec] is None else f"{row['ratios'][s.spec]:.3f}" for s in sides[1:]]
        table.append([row["label"], *counts, *ratios, "same" if row["same_output"] else "DIFFERS"])
    widths = [max(len(line[i]) for line in table) for i in range(len(header))]
    for line in table:
        print(
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width) for i, (cell, width) in enumerate(zip(line, widths))
            ),
            file=log,
        )
    if args.json:
        document = {
            "tool": args.tool,
            "sides": [{"spec": s.spec, "commit": s.commit} for s in sides],
            "commands": rows,
        }
        print(json.dumps(document))


if __name__ == "__main__":
    main()
