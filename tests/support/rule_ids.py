"""The rule ids a game's code names: read off its string literals, so a test can hold them against the rules
the game declares, the tests named after them and the texts `tally rules` shows."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from support import ROOT


def rule_ids_used(prefix: str, where: Path = ROOT / "core") -> set[str]:
    """Every string literal in `where` (`core/`) that reads as a rule id starting with `prefix` (`split.take.playable`)."""
    pattern = re.compile(rf"^{re.escape(prefix)}(\.[a-z0-9-]+)+$")
    found = set()
    for path in where.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.match(node.value):
                found.add(node.value)
    return found
