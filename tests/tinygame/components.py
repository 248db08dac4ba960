"""Ten's fixed quantities, and its manifest check."""

from __future__ import annotations

from typing import Any

from .data import MANIFEST

AMOUNTS = (1, 2)  # what a player may say


def check_manifest(manifest: str | dict[str, Any]) -> list[str]:
    return [] if manifest == MANIFEST else [f"unknown manifest {manifest!r}: Ten knows only {MANIFEST!r}"]
