"""The disputed-ruling corpus: `tally rule LOG MOVE [--at SEQ]` on every case in fixtures/rulings/splendor/.

Each case (built through the CLI by fixtures/make_rulings.py) is a real log, a disputed move, an optional
`--at` seq, and the verdict the Splendor rulebook gives (`.expect`). The test checks the verdict and the rule
id against `.expect`, the exit code, stdout/stderr shape, that nothing is recorded, and snapshots both the
JSON ruling and the human text. A snapshot is a reviewed ruling: when one changes, re-read the rulebook
before running `pytest --snapshot-update`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from conftest import FIXTURES, Result, run_tally

CASES_DIR = FIXTURES / "rulings" / "splendor"
CASES = sorted(path.stem for path in CASES_DIR.glob("*.move"))
EXIT_FOR = {"legal": 0, "unverifiable": 0, "illegal": 1, "unreadable": 2, "usage-error": 2}


def invoke(*args: str) -> Result:
    """The CLI in-process (faster than a process; the JSON test runs the real process)."""
    from typer.testing import CliRunner

    from tally.cli.main import app

    outcome = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    return Result(outcome.exit_code, outcome.stdout, outcome.stderr)


def _args(case: str) -> list[str]:
    move = (CASES_DIR / f"{case}.move").read_text(encoding="utf-8").rstrip("\n")
    args = ["rule", str(CASES_DIR / f"{case}.jsonl"), move]
    at = CASES_DIR / f"{case}.at"
    if at.exists():
        args += ["--at", at.read_text().strip()]
    return args


def _expect(case: str) -> tuple[str, str | None]:
    verdict, _, rule = (CASES_DIR / f"{case}.expect").read_text().strip().partition(" ")
    return verdict, rule or None


def _local(text: str) -> str:
    """Paths in messages, relative to the corpus folder (the snapshot must not depend on the checkout)."""
    return text.replace(f"{CASES_DIR}/", "")


def _localised(document: Any) -> Any:
    if isinstance(document, str):
        return _local(document)
    if isinstance(document, list):
        return [_localised(item) for item in document]
    if isinstance(document, dict):
        return {key: _localised(value) for key, value in document.items()}
    return document


@pytest.fixture
def snapshot_json(snapshot):  # type: ignore[no-untyped-def]
    return snapshot.use_extension(JSONSnapshotExtension)


def test_the_corpus_has_at_least_30_cases() -> None:
    assert len(CASES) >= 30, CASES
    for case in CASES:
        assert (CASES_DIR / f"{case}.jsonl").is_file(), case
        assert (CASES_DIR / f"{case}.expect").is_file(), case
    stray = {p.stem for p in CASES_DIR.iterdir()} - set(CASES)
    assert not stray, f"files without a .move: {sorted(stray)}"


def test_every_case_log_is_a_legal_log() -> None:
    from tally.store import record

    for case in CASES:
        report = record.check(CASES_DIR / f"{case}.jsonl")
        assert report.ok, (case, report)


@pytest.mark.parametrize("case", CASES)
def test_ruling_json(case: str, snapshot_json) -> None:  # type: ignore[no-untyped-def]
    log = CASES_DIR / f"{case}.jsonl"
    before = log.read_bytes()
    result = run_tally(*_args(case), "--json")
    assert log.read_bytes() == before, "tally rule must record nothing"
    assert "Traceback" not in result.stderr
    verdict, rule = _expect(case)
    assert result.exit_code == EXIT_FOR[verdict], result
    if verdict == "usage-error":
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1, result
        document: Any = {"exit_code": result.exit_code, "stderr": _local(result.stderr)}
    else:
        document = json.loads(result.stdout)  # exactly one JSON document
        assert document["verdict"] == verdict, document
        assert document["accepted"] is (verdict in ("legal", "unverifiable"))
        if rule is not None:
            deciding = [r["rule"] for r in document["rulings"] if r["verdict"] == verdict]
            assert deciding and deciding[0] == rule, document
        if verdict == "unreadable":
            assert document["notation_error"] and document["rulings"] == []
        if result.exit_code:
            assert len(result.stderr.splitlines()) == 1, result
        else:
            assert result.stderr == ""
    assert _localised(document) == snapshot_json


@pytest.mark.parametrize("case", CASES)
def test_ruling_text(case: str, snapshot_json) -> None:  # type: ignore[no-untyped-def]
    result = invoke(*_args(case))
    assert "Traceback" not in result.stderr
    verdict, rule = _expect(case)
    assert result.exit_code == EXIT_FOR[verdict], result
    if rule is not None:
        assert f"[{rule}]" in result.stdout + result.stderr
    text = {"exit_code": result.exit_code, "stdout": _local(result.stdout), "stderr": _local(result.stderr)}
    assert text == snapshot_json
