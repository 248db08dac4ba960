"""What the tests of the bundled games (`fixtures/games/*.jsonl`) share: the log's lines, the CLI run as a real
process from the project root with relative paths (strict: exit 0, nothing on stderr, no traceback, no path of
this machine), and snapshots kept as plain text files (the `text_snapshot` fixture of conftest.py).
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from support import ROOT


class TextSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "txt"


class SvgSnapshot(SingleFileSnapshotExtension):
    """A picture kept as an `.svg` file, so a reviewer can open the golden picture itself."""

    _write_mode = WriteMode.TEXT
    file_extension = "svg"


def rel(name: str) -> str:
    return f"fixtures/games/{name}.jsonl"


def lines(name: str) -> list[dict[str, Any]]:
    with open(ROOT / rel(name), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def machine_paths() -> list[str]:
    """Absolute paths of this machine that must never appear in the output."""
    found = {str(ROOT), str(Path.home()), tempfile.gettempdir(), os.environ.get("TALLY_CACHE_DIR", "")}
    return sorted(p for p in found if p and p != "/")


def run(tally, *args: str) -> str:  # type: ignore[no-untyped-def]
    """Run the CLI from the project root; it must succeed cleanly and print no machine path."""
    result = tally(*args, cwd=ROOT)
    assert result.exit_code == 0, result
    assert result.stderr == "", result
    assert "Traceback" not in result.stdout
    for path in machine_paths():
        assert path not in result.stdout, (path, result.stdout)
    return result.stdout


def run_json(tally, *args: str) -> Any:  # type: ignore[no-untyped-def]
    return json.loads(run(tally, *args, "--json"))
