"""Component manifests resolved once: every game turns a checked manifest (its id, or an inline object read
from a manifest file) into its components the same way, through one memo keyed by the manifest's JSON.

Every state of a game refers to the one resolved object, so a fold never resolves a manifest twice.
"""

from __future__ import annotations

from typing import Any, Callable, Generic, TypeVar

import msgspec

T = TypeVar("T")
Manifest = str | dict[str, Any]
MEMO_LIMIT = 64  # a memo, not a registry: a long-running process meets few manifests


class Resolver(Generic[T]):
    """`resolver(manifest)`: the components of a manifest `check_manifest` accepted, resolved on first use."""

    def __init__(self, resolve: Callable[[Manifest], T]):
        self._resolve = resolve
        self._memo: dict[str, T] = {}

    def __call__(self, manifest: Manifest) -> T:
        key = manifest if isinstance(manifest, str) else msgspec.json.encode(manifest).decode()
        found = self._memo.get(key)
        if found is None:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            found = self._memo[key] = self._resolve(manifest)
        return found
