"""The type checker passes over core/, store/, cli/ and serve/: the pinned mypy with pyproject.toml's [tool.mypy], as is.

The folders are installed under other names (`store/` is `tally.store`); `typecheck/tally/` links them under those
names and the configuration checks the packages `tally.core`, `tally.store`, `tally.cli` and `tally.serve` through
it, so this test and a bare `mypy` from the project root check the same modules the same way.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support import ROOT

LAYERS = ("core", "store", "cli", "serve")
MOST_IGNORES = 20


def test_the_typecheck_tree_links_every_layer_under_its_installed_name() -> None:
    for layer in LAYERS:
        link = ROOT / "typecheck" / "tally" / layer
        assert link.is_symlink() and link.resolve() == ROOT / layer, link


def test_mypy_passes_over_every_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = pytest.importorskip("mypy.api")
    monkeypatch.chdir(tmp_path)  # nothing of the run lands in the checkout; the configuration finds the tree itself
    out, err, status = api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
        ]
    )
    assert status == 0, out + err
    checked = sum(1 for layer in LAYERS for _ in (ROOT / layer).rglob("*.py"))
    assert f"in {checked} source files" in out, out  # every module of the four layers, none left out


def test_few_type_ignores_in_every_layer() -> None:
    count = sum(
        path.read_text(encoding="utf-8").count("type: ignore")
        for layer in LAYERS
        for path in (ROOT / layer).rglob("*.py")
    )
    assert count <= MOST_IGNORES, f"{count} `type: ignore` in core/, store/, cli/ and serve/ (at most {MOST_IGNORES})"
