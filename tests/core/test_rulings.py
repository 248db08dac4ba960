"""The disputed-ruling corpora: `tally rule LOG MOVE [--at SEQ]` on every case in fixtures/rulings/<game>/.

Each case (built through the CLI by the game's fixtures/make_rulings*.py) is a real log, a disputed move, an
optional `--at` seq, and the verdict the game's rulebook gives (`.expect`). The test checks the verdict and the rule
id against `.expect`, the exit code, stdout/stderr shape, that nothing is recorded, and snapshots both the
JSON ruling and the human text. A snapshot is a reviewed ruling: when one changes, re-read the rulebook
before running `pytest --snapshot-update`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from syrupy.extensions.json import JSONSnapshotExtension

from support import FIXTURES, invoke, run_tally

CORPORA = FIXTURES / "rulings"
MINIMUM = {"splendor": 30, "split": 30, "array": 30, "splice": 40}  # cases each corpus holds at least
# a case is "<game>-<name>": its files are fixtures/rulings/<game>/<name>.*
CASES = sorted(
    f"{folder.name}-{path.stem}" for folder in CORPORA.iterdir() if folder.is_dir() for path in folder.glob("*.move")
)


def _where(case: str) -> tuple[Any, str]:
    game, _, name = case.partition("-")
    return CORPORA / game, name


EXIT_FOR = {"legal": 0, "unverifiable": 0, "illegal": 1, "unreadable": 2, "usage-error": 2}


def _args(case: str) -> list[str]:
    folder, name = _where(case)
    move = (folder / f"{name}.move").read_text(encoding="utf-8").rstrip("\n")
    args = ["rule", str(folder / f"{name}.jsonl"), move]
    at = folder / f"{name}.at"
    if at.exists():
        args += ["--at", at.read_text().strip()]
    return args


def _expect(case: str) -> tuple[str, str | None]:
    folder, name = _where(case)
    verdict, _, rule = (folder / f"{name}.expect").read_text().strip().partition(" ")
    return verdict, rule or None


def _local(text: str) -> str:
    """Paths in messages, relative to the corpus folder (the snapshot must not depend on the checkout)."""
    for folder in CORPORA.iterdir():
        text = text.replace(f"{folder}/", "")
    return text


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


@pytest.mark.parametrize("game", sorted(p.name for p in CORPORA.iterdir() if p.is_dir()))
def test_each_corpus_has_its_minimum_of_cases(game: str) -> None:
    from tally.core import registry

    assert game in registry.names(), f"fixtures/rulings/{game}/ is not a game"
    folder = CORPORA / game
    names = sorted(path.stem for path in folder.glob("*.move"))
    assert len(names) >= MINIMUM.get(game, 30), names
    for name in names:
        assert (folder / f"{name}.jsonl").is_file(), name
        assert (folder / f"{name}.expect").is_file(), name
    stray = {p.stem for p in folder.iterdir()} - set(names)
    assert not stray, f"files without a .move: {sorted(stray)}"


def test_every_case_log_is_a_legal_log() -> None:
    from tally.store.recording import record

    for case in CASES:
        folder, name = _where(case)
        report = record.check(folder / f"{name}.jsonl")
        assert report.ok, (case, report)


@pytest.mark.parametrize("case", CASES)
def test_ruling_json(case: str, snapshot_json) -> None:  # type: ignore[no-untyped-def]
    folder, name = _where(case)
    log = folder / f"{name}.jsonl"
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
            assert len(result.stderr.splitlines()) == 1, result
        else:  # a verdict is the answer, not a failure: nothing on stderr, even when the move is illegal
            assert result.stderr == "", result
    assert _localised(document) == snapshot_json


@pytest.mark.parametrize("case", CASES)
def test_ruling_text(case: str, snapshot_json) -> None:  # type: ignore[no-untyped-def]
    result = invoke(*_args(case))
    assert "Traceback" not in result.stderr
    verdict, rule = _expect(case)
    assert result.exit_code == EXIT_FOR[verdict], result
    if rule is not None:
        assert f"[{rule}]" in result.stdout + result.stderr
    if verdict in ("legal", "unverifiable", "illegal"):  # the verdict on stdout, first word first
        assert result.stdout.startswith(f"{verdict}: ") and result.stderr == "", result
        assert "next:" not in result.stdout, "a ruling records nothing, so nothing comes next"
    text = {"exit_code": result.exit_code, "stdout": _local(result.stdout), "stderr": _local(result.stderr)}
    assert text == snapshot_json
