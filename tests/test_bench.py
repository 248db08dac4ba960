"""The benchmark scripts still run (a smoke run: behaviour only, never a timing assertion)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from support import ROOT


def test_spine_benchmark_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_spine.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for line in ("ratio warm / typer", "session move at 300 events", "simulate moves/s", "check events/s"):
        assert line in done.stdout


def test_fold_benchmark_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_fold.py"), "--quick", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for game in ("splendor", "split", "array", "splice"):
        assert f"{game}: fold events/s compiled" in done.stdout and f"{game}: check events/s compiled" in done.stdout
    assert "splendor: reducer._apply_take (_seat_done): plain helper / copy" in done.stdout, done.stdout
    summary = json.loads(done.stdout.splitlines()[-1])
    assert set(summary["games"]) == {"splendor", "split", "array", "splice"}
    assert all(figures["fold_plain_over_compiled"] > 0 for figures in summary["games"].values())


def test_serve_benchmark_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_serve.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for line in (
        "move round trip at 300 events p50",
        "arrival on another stream p50",
        "0 errors",
        "logs exact: True",
        "memory per open game",
        "seat read, no stream open",
        "seat read, 200 idle streams",
        "idling",
        "a seat's move p50",
        "a seat's rule p99",
        "log, salted",
        "club night, folder, 1 table",
        "club night, folder, 3 tables + 30 watchers",
        "arrival on the other phones",
        "memory per open game (the",
    ):
        assert line in done.stdout, done.stdout
    if shutil.which("chromium"):  # the table's page, in the browser its tests use
        assert "page first load, phone, 300 events" in done.stdout and "tap to another page's redraw p50" in done.stdout
    else:
        assert "the table's page: skipped (no chromium)" in done.stdout


def test_length_benchmark_runs(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_length.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    for line in (
        "the server's CPU time, ms, for the first request about a game after start",
        "library game page",
        "stream resume",
        "largest answer, KB",
        "first read of each game on this machine",
        "catching up on one move",
        "read 1  judged 1",
    ):
        assert line in done.stdout, done.stdout


def test_instructions_benchmark_runs(tmp_path: Path) -> None:
    # this environment's install as both sides, one command: counted by callgrind where valgrind is installed (CI
    # installs it), else run without counting (`--tool none`)
    tool = "callgrind" if shutil.which("valgrind") else "none"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "bench_instructions.py"),
            *("--side", sys.executable, "--side", sys.executable),
            *("--only", "check-splendor", "--tool", tool, "--json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "check splendor-4p" in done.stderr and "same" in done.stderr, done.stderr
    summary = json.loads(done.stdout)
    [row] = summary["commands"]
    assert row["name"] == "check-splendor" and row["same_output"]
    counts = list(row["instructions"].values())
    if tool == "callgrind":
        assert all(count > 10_000_000 for count in counts), counts
        assert abs(counts[1] / counts[0] - 1) < 0.01, counts  # the same install counts the same, to a few thousand
    else:
        assert counts == [None, None]
