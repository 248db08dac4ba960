"""An automated accessibility audit in the browser tests: axe-core, a pinned version fetched from the npm registry
with npm itself (`npm pack`), its tarball checked against the registry's integrity hash and kept in a cache
(`$XDG_CACHE_HOME/tally/`, else `~/.cache/tally/`), so that it is fetched once per machine. Without npm or the
registry the audits are skipped, except under CI (`CI` set), where they fail: CI reaches the npm registry."""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shutil
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

import pytest

AXE_VERSION = "4.10.3"
AXE_INTEGRITY = "sha512-Xm7bpRXnDSX2YE2YFfBk2FnF0ep6tmG7xPh8iHee8MIcrgq762Nkce856dYtJYLkuIoYZvGfTs/PbZhideTcEg=="
SERIOUS = ("serious", "critical")


def _cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tally" / f"axe-core-{AXE_VERSION}"


def _unavailable(why: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"axe-core {AXE_VERSION} could not be fetched from the npm registry: {why}")
    pytest.skip(f"no axe-core here ({why}): the accessibility audits need npm and the npm registry")


def _is_intact(tarball: bytes) -> bool:
    algorithm, _, expected = AXE_INTEGRITY.partition("-")
    return base64.b64encode(hashlib.new(algorithm, tarball).digest()).decode() == expected


def axe_source() -> str:
    """axe.min.js of the pinned version, from the cache, else fetched with `npm pack` and cached."""
    kept = _cache() / "axe.min.js"
    if kept.exists():
        return kept.read_text(encoding="utf-8")
    npm = shutil.which("npm")
    if npm is None:
        _unavailable("npm is not installed")
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [npm, "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", folder, "--silent"],
            capture_output=True,
            text=True,
            timeout=300,
        )
        packed = list(Path(folder).glob("axe-core-*.tgz"))
        if done.returncode != 0 or not packed:
            _unavailable((done.stderr.strip().splitlines() or ["npm pack failed"])[-1])
        tarball = packed[0].read_bytes()
    if not _is_intact(tarball):
        pytest.fail(f"axe-core {AXE_VERSION}'s tarball does not match the registry's integrity hash")
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:gz") as archive:
        member = archive.extractfile("package/axe.min.js")
        assert member is not None
        source = member.read().decode("utf-8")
    kept.parent.mkdir(parents=True, exist_ok=True)
    partial = kept.with_suffix(".tmp")
    partial.write_text(source, encoding="utf-8")
    partial.replace(kept)  # whole or not at all: another test run may read it meanwhile
    return source


def audit(page: Any, source: str) -> list[str]:
    """Every serious or critical violation axe finds on the page now (WCAG 2.1 A and AA, and axe's best practices),
    one line each: the rule, its impact and the first elements it names. The page's context must bypass the page's
    Content-Security-Policy (`bypass_csp=True`), which allows no script but the page's own."""
    page.add_script_tag(content=source)
    found = page.evaluate("""async () => {
      const result = await axe.run(document, {runOnly: {type: "tag",
        values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]}});
      return result.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
                                            nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" "))}));
    }""")
    return [f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}" for v in found if v["impact"] in SERIOUS]
