"""`tally simulate splice` writes logs that `tally check` accepts, for 2 to 4 players, in both modes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tally.core.games.splice import SPLICE
from tally.store import record
from tally.store.simulate import simulate


@pytest.mark.parametrize("players", [2, 3, 4])
def test_simulated_games_pass_check(tmp_path: Path, players: int) -> None:
    summary = simulate("splice", 2, 30 + players, tmp_path, players=players)
    assert summary.finished == 2
    for path in summary.files:
        report = record.check(path)
        assert report.ok and report.outcome is not None and report.warnings == [], report


def test_simulate_table_mode_through_the_cli(tmp_path: Path, tally: Any) -> None:
    result = tally("simulate", "splice", "--games", "3", "--seed", "9", "--out", str(tmp_path), "--mode", "table",
                   "--option", "no-map=most-matching", "--json")
    assert result.exit_code == 0, result
    summary = json.loads(result.stdout)
    assert summary["games"] == summary["finished"] == 3
    for path in sorted(tmp_path.glob("splice-*.jsonl")):
        checked = tally("check", str(path), "--json")
        report = json.loads(checked.stdout)
        assert checked.exit_code == 0 and report["ok"], report
        assert {w["rule"] for w in report["warnings"]} <= {"splice.map.next-turn"}
        first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
        assert first["mode"] == "table"


def test_too_many_players_for_the_disks_are_refused(tmp_path: Path, tally: Any) -> None:
    box = tmp_path / "two.json"
    box.write_text(json.dumps({"colours": {"r": "red", "b": "blue"}}), encoding="utf-8")
    result = tally("new", "splice", str(tmp_path / "g.jsonl"), "-p", "a", "-p", "b", "-p", "c", "--manifest", str(box))
    assert result.exit_code == 2 and "3 players need 3 gemstone disks; the manifest has 2" in result.stderr
    assert not (tmp_path / "g.jsonl").exists()
    assert SPLICE.min_seats == 2 and SPLICE.max_seats == 4
