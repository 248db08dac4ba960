"""docs/api.md is generated from `tally serve`'s route table and structs, and stays so."""

from __future__ import annotations

from pathlib import Path

from tally.serve import docs
from tally.serve.app import ROUTES

ROOT = Path(__file__).resolve().parent.parent


def test_api_md_is_the_generated_one() -> None:
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == docs.render(), "run: python -m tally.serve.docs > docs/api.md"


def test_every_route_of_the_api_is_documented() -> None:
    text = docs.render()
    for route in ROUTES:
        api = getattr(getattr(route, "endpoint", None), "api", None)
        if api is not None:
            assert f"### `{api[0]} {api[1]}`" in text
    for name in ("MoveReport", "GameSummary", "EventsReport", "Error", "NewGame", "Joined"):
        assert f"### `{name}`" in text
