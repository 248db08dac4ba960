"""The type checker passes over core/: the pinned mypy, configured in pyproject.toml's [tool.mypy]."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_mypy_passes_over_core() -> None:
    api = pytest.importorskip("mypy.api")
    out, err, status = api.run(["--config-file", str(ROOT / "pyproject.toml"), "--no-incremental", str(ROOT / "core")])
    assert status == 0, out + err
