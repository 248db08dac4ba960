"""docs/api.md is generated from `tally serve`'s route table and structs, and stays so."""

from __future__ import annotations

from support import ROOT
from tally.serve import docs
from tally.serve.app import ROUTES


def test_api_md_is_the_generated_one() -> None:
    assert (ROOT / "docs" / "api.md").read_text(encoding="utf-8") == docs.render(), (
        "run: python -m tally.serve.docs > docs/api.md"
    )


def test_every_route_of_the_api_is_documented() -> None:
    text = docs.render()
    for route in ROUTES:
        api = getattr(getattr(route, "endpoint", None), "api", None)
        if api is not None:
            assert f"### `{api[0]} {api[1]}`" in text
    for name in ("MoveReport", "GameSummary", "EventsReport", "Error", "NewGame", "Joined"):
        assert f"### `{name}`" in text


def test_the_threat_model_is_written_down_and_linked() -> None:
    """Reproduction: nothing said whom `tally serve` trusts, what plain HTTP shows, or how to serve HTTPS. Now
    docs/security.md does, with the sections the judging and the hash chain are described in, linked from the README
    and the page's doc; the README's own `--host 0.0.0.0` example says what the network sees; and the host's page
    says it shows every hidden card."""
    security = (ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    for heading in (
        "## The callers",
        "## What plain HTTP shows",
        "## Serving HTTPS",
        "## What the server refuses",
        "## How a seat's moves are judged",
        "## The hash chain",
    ):
        assert f"\n{heading}\n" in security, heading
    assert "--ssl-certfile" in security and "reverse_proxy" in security
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/security.md" in readme and "docs/security.md" in (ROOT / "docs" / "page.md").read_text(
        encoding="utf-8"
    )
    example = readme.index("--host 0.0.0.0")
    assert "in the clear" in readme[example : example + 600]
    host_page = (ROOT / "serve" / "static" / "game.html").read_text(encoding="utf-8")
    assert "shows every seat's hidden cards" in host_page
