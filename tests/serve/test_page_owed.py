"""Every seat knows what it owes, on the page (issue 34, item 4), in a real browser: Debian's chromium through
Playwright, three phones at a seated Split table (as tests/test_page.py drives the page). At the deal the banner of
every phone names the dealer, the dealer's page says what the table enters and how, the others what they wait for;
once dealt, every phone owes its own hand, the banner names every seat still owing, and each phone types its hand
bare, starting from the form's "Type it": the page sends what was typed, never another seat's name."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from support import split_helpers
from support.page_helpers import join, open_page, serving, wait_seq
from tally.store.recording.results import check

CY = ["6CL", "6CR", "8DL", "8DR", "JSL", "JSR", "10HL", "10HR", "KCL"]  # none of ana's or ben's
HANDS = {"ana": split_helpers.ANN, "ben": split_helpers.BEN, "cy": CY}


def sent_moves(page: Any) -> list[str]:
    """Every move this page posts, as sent (its request bodies), recorded as the page sends them."""
    sent: list[str] = []

    def seen(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/moves"):
            sent.append(json.loads(request.post_data)["move"])

    page.on("request", seen)
    return sent


def test_each_phone_is_told_what_it_owes_at_a_seated_deal(browser: Any, tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        status, made = served.api(
            "POST",
            "/api/games",
            {"id": "g", "game": "split", "players": ["ana", "ben", "cy"], "seated": ["ana", "ben", "cy"]},
        )
        assert status == 201, made
        code = served.join_code("g")
        pages = {seat: open_page(browser, served, "g") for seat in HANDS}
        sent = {seat: sent_moves(page) for seat, page in pages.items()}
        for seat, page in pages.items():
            join(page, seat, code)
            wait_seq(page, 1)
            assert page.get_attribute("#banner .owing", "data-owing") == "cy", seat  # cy deals the first round
        cy, ana = pages["cy"], pages["ana"]
        assert cy.get_attribute("#banner", "class") == "banner mine"
        assert cy.text_content("#owed") == (
            "For the table, yours to enter: the deal of round 1: the card that starts the "
            "discard row: tap its cards below, then Record. Or type it as deal CARD | PLAYER CARDS ...Type it"
        )
        for seat in ("ana", "ben"):
            assert pages[seat].get_attribute("#banner", "class") == "banner"
            assert pages[seat].locator("#owed").count() == 0
            assert pages[seat].inner_text("#moves") == (
                "No move of yours is due now: waiting for cy to enter the deal of "
                "round 1: the card that starts the discard row."
            )
        cy.click("#owed button[data-type]")
        assert cy.input_value("#move-text") == "deal "
        cy.type("#move-text", "QSR")
        cy.click("#typed button[type=submit]")
        for page in pages.values():
            wait_seq(page, 2)
        for seat, page in pages.items():
            assert page.get_attribute("#banner .owing", "data-owing") == "ana,ben,cy", seat
            assert page.get_attribute("#banner", "class") == "banner mine", seat
            assert (
                page.text_content("#owed")
                == "Yours to enter: the dealt hand (9 cards): tap its cards below, then Record. Or type it as hand CARDSType it"
            )
            assert page.get_attribute(f"#owed p[data-owed='{seat}']", "data-form") == "hand CARDS"
        seq = 2
        for seat in ("cy", "ana", "ben"):  # cy first, though the game names ana first
            page = pages[seat]
            page.click("#owed button[data-type]")
            assert page.input_value("#move-text") == "hand "
            page.type("#move-text", " ".join(HANDS[seat]))
            page.click("#typed button[type=submit]")
            seq += 1
            for other in pages.values():
                wait_seq(other, seq)
            # the echo is the event recorded (issue 35), which names whose hand the bare move was
            assert f"#{seq} {seat}: hand {' '.join(HANDS[seat])}" in page.inner_text("#said")
            assert page.locator("#owed").count() == 0
            if seat == "cy":
                assert ana.get_attribute("#banner .owing", "data-owing") == "ana,ben"
                assert cy.inner_text("#moves") == (
                    "No move of yours is due now: waiting for ana to enter the dealt hand "
                    "(9 cards); ben to enter the dealt hand (9 cards)."
                )
        for seat, page in pages.items():
            assert sent[seat] == (["deal QSR"] if seat == "cy" else []) + [f"hand {' '.join(HANDS[seat])}"]
            assert page.locator("#banner .owing").count() == 0  # ana to draw: the line says it already
            assert page.errors == []
        assert ana.get_attribute("#banner", "class") == "banner mine"
        assert ana.locator("#moves button[data-move], #moves .picker[data-kind=draw]").count() > 0  # her draw: a picker
    assert check(tmp_path / "g.jsonl").ok
