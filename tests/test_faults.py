"""The fault run's fast part (bench/bench_faults.py --quick): power cuts, kill -9 of writers and of an ingest,
hostile logs, over every game; 0 events lost, 0 exit 4, 0 orphaned processes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from support import ROOT


def test_the_quick_fault_run_loses_nothing_and_never_exits_4(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_faults.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    total = done.stdout.splitlines()[-1]
    assert total.startswith("all") and "events lost 0  exit 4 0  orphaned processes 0" in total, done.stdout
    assert int(total.split("cases")[1].split()[0]) >= 200
