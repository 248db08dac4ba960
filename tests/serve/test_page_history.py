"""Issue 35 on the table's page, in a real browser (Debian's chromium through Playwright, as tests/test_page.py):
the table's history with undo and amend that show what they do before they are done, answers that are true (each
on the phone that acted, cleared by the next event, echoing exactly the events recorded), a phone whose Wi-Fi drops
mid-game, and the board in words with an automated accessibility audit (axe-core) of the game, list and library
pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.axe_helpers import audit, axe_source
from support.page_helpers import GAMES, PHONE, cut_log, join, open_page, serving, tap, wait_seq
from tally.store.logs import log as logfile
from tally.store.recording.results import check

DESKTOP = {"width": 1280, "height": 800}


def lines_of(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def open_history(page: Any) -> None:
    page.click("#history summary")
    page.locator("#history-list li").first.wait_for()


def row(page: Any, seq: int) -> Any:
    return page.locator(f"#history-list li[data-seq='{seq}']")


# --------------------------------------------------------------------------- the table's history


def test_a_seat_undoes_and_amends_its_own_events_from_the_history_after_a_preview(browser: Any, tmp_path: Path) -> None:
    """The issue's case: ana's phone entered the reveal #40 after ben's buy #39. Ben's phone offers no undo of it (it
    is ana's entry) and its plain undo is about ben's own buy, which the reveal depends on: refused, nothing recorded.
    Ana's phone undoes #40 from the history: it first says "this voids #40 reveal 1g0-w1b3g1, entered by ana" and asks
    once. Then ben's plain undo previews and voids his own buy; ben taps a take and amends it from the history; the
    answers name old and new, and the history marks what was voided and replaced."""
    log = cut_log("splendor-table-3p", 39, tmp_path, "game")
    with serving(tmp_path) as served:
        code = served.join_code("game")
        ana, ben = open_page(browser, served, "game"), open_page(browser, served, "game")
        join(ana, "ana", code)
        join(ben, "ben", code)
        tap(ana, "reveal 1g0-w1b3g1")
        for page in (ana, ben):
            wait_seq(page, 40)
        assert lines_of(log)[-1]["by"] == "ana"

        open_history(ben)
        assert "entered by ana" in row(ben, 40).inner_text()
        assert row(ben, 40).locator("button").count() == 0  # not ben's to correct
        assert row(ben, 39).locator("[data-undo='39']").count() == 1  # his buy
        ben.click("#corrections summary")
        ben.fill("#undo-reason", "wrong card")
        ben.click("#undo-form button[type=submit]")
        ben.locator("#said.bad").wait_for()
        assert "correcting #39 would make #40 illegal" in ben.inner_text("#said")
        assert ben.locator("#confirm").is_hidden()
        assert len(lines_of(log)) == 40

        open_history(ana)
        ana.click("[data-undo='40']")
        ana.locator("#confirm .what").wait_for()
        assert ana.inner_text("#confirm .what") == "This voids #40 reveal 1g0-w1b3g1, entered by ana."
        assert len(lines_of(log)) == 40  # the preview records nothing
        ana.fill("#confirm-reason", "mistyped the card")
        ana.click("#confirm-yes")
        wait_seq(ana, 41)
        assert ana.inner_text("#said") == "Recorded: #41 void #40: reveal 1g0-w1b3g1 (mistyped the card)"
        row(ana, 40).locator("text=voided by #41").wait_for()

        wait_seq(ben, 41)
        ben.fill("#undo-reason", "bought the wrong card")
        ben.click("#undo-form button[type=submit]")
        ben.locator("#confirm .what").wait_for()
        assert ben.inner_text("#confirm .what") == "This voids #39 ben: buy 1w0-b2g2k1 pay b2 g2 k1."
        ben.click("#confirm-yes")
        wait_seq(ben, 42)
        assert ben.inner_text("#said").startswith("Recorded: #42 void #39: ben: buy 1w0-b2g2k1")

        tap(ben, "ben: take w b g")
        wait_seq(ben, 43)
        row(ben, 43).locator("[data-amend='43']").click()
        ben.fill("#amend-move", "ben: take w b k")
        ben.fill("#amend-reason", "misheard the colour")
        ben.click("#amend-form button[type=submit]")
        ben.locator("#confirm .what").wait_for()
        assert ben.inner_text("#confirm .what") == "This replaces #43 ben: take w b g, with ben: take w b k."
        ben.click("#confirm-yes")
        wait_seq(ben, 44)
        assert (
            ben.inner_text("#said")
            == "Recorded: #44 amend #43: ben: take w b g -> ben: take w b k (misheard the colour)"
        )
        row(ben, 44).locator("text=ben: take w b k").wait_for()
        assert "replaced by #44" in row(ben, 43).inner_text()
        assert ana.errors == [] and ben.errors == []
    kinds = [line["type"] for line in lines_of(log)[39:]]
    assert kinds == ["card_revealed", "voided", "voided", "gems_taken", "amended"], kinds
    assert [line.get("by") for line in lines_of(log)[39:]] == ["ana", "ana", "ben", "ben", "ben"]
    assert check(log).ok


def test_the_history_is_paged_newest_first(browser: Any, tmp_path: Path) -> None:
    cut_log("splendor-table-3p", 75, tmp_path, "game")
    with serving(tmp_path) as served:
        host = open_page(browser, served, "game", DESKTOP, host=True)
        open_history(host)
        seqs = [int(s) for s in host.locator("#history-list li").evaluate_all("els => els.map(e => e.dataset.seq)")]
        assert seqs == list(range(75, 45, -1))
        assert all(host.locator(f"[data-undo='{seq}']").count() == 1 for seq in (75, 74))  # the host corrects any
        host.click("#history-older")
        host.locator("#history-list li[data-seq='16']").wait_for()
        seqs = [int(s) for s in host.locator("#history-list li").evaluate_all("els => els.map(e => e.dataset.seq)")]
        assert seqs == list(range(75, 15, -1))
        assert host.locator("#undo-button").text_content() == "Undo the last move"


# --------------------------------------------------------------------------- answers that are true


def test_an_answer_echoes_exactly_what_was_recorded_and_clears_at_the_next_event(browser: Any, tmp_path: Path) -> None:
    """A three-card reveal is echoed as three reveals, each once; the box is the tapping phone's alone, and the next
    event (another phone's move) clears it."""
    cut_log("splendor-table-3p", 5, tmp_path, "game")  # the nobles laid out: the level-1 cards are next
    with serving(tmp_path) as served:
        code = served.join_code("game")
        ana, ben = open_page(browser, served, "game"), open_page(browser, served, "game")
        join(ana, "ana", code)
        join(ben, "ben", code)
        ana.fill("#move-text", "reveal 1g1-k4 1r0-b2g1 1w0-b2g2k1")
        ana.click("#typed button[type=submit]")
        wait_seq(ana, 8)
        assert ana.inner_text("#said") == "Recorded: #6 reveal 1g1-k4; #7 reveal 1r0-b2g1; #8 reveal 1w0-b2g2k1"
        wait_seq(ben, 8)
        assert ben.locator("#said").is_hidden()  # the answer is ana's phone's
        ben.fill("#move-text", "reveal 1g0-w1b1r1k1")
        ben.click("#typed button[type=submit]")
        wait_seq(ana, 9)
        ana.locator("#said").wait_for(state="hidden")  # the next event: ana's answer is old news
        assert ben.inner_text("#said") == "Recorded: #9 reveal 1g0-w1b1r1k1"
        assert ana.errors == [] and ben.errors == []


# --------------------------------------------------------------------------- flaky Wi-Fi


def test_a_tap_made_offline_is_sent_when_the_connection_returns(browser: Any, tmp_path: Path) -> None:
    """Mid-game, ben's phone loses the network: the page says so; his tap is kept and, once back, sent with the seq
    it was made against and recorded. Offline again, a tap made while the table moves on (the host notes something)
    is sent on return and answered with the 409 redraw, recording nothing; meanwhile the stream resumed after the last
    event it had seen and brought ana's move."""
    log = cut_log("splendor-2p", 40, tmp_path, "game")  # ben to act after event 40
    with serving(tmp_path) as served:
        code = served.join_code("game")
        ana, ben = open_page(browser, served, "game"), open_page(browser, served, "game")
        join(ana, "ana", code)
        join(ben, "ben", code)
        wait_seq(ben, 40)
        ben.context.set_offline(True)
        tap(ben, "ben: take w b g")
        ben.locator("#offline").wait_for()
        assert "Offline" in ben.inner_text("#offline") and "1 tap is kept" in ben.inner_text("#offline")
        assert ben.locator("body").get_attribute("data-kept") == "1"
        assert len(lines_of(log)) == 40
        ben.context.set_offline(False)
        wait_seq(ben, 41)
        ben.locator("#offline").wait_for(state="hidden")
        assert lines_of(log)[-1]["gems"] == ["w", "b", "g"] and lines_of(log)[-1]["by"] == "ben"
        assert ben.inner_text("#said").startswith("Recorded: #41 ben: take w b g")
        wait_seq(ana, 41)

        status, listing = served.api("GET", "/api/games/game/moves")
        tap(ana, next(move for move in listing["moves"] if move.startswith("ana: take")))  # ben's stream brings it
        wait_seq(ben, 42)
        ben.context.set_offline(True)
        status, _ = served.api("POST", "/api/games/game/notes", {"text": "a break for tea", "expected_seq": 42})
        assert status == 201
        late = ben.locator("#moves button[data-move^='ben: take']").first.get_attribute("data-move")
        tap(ben, late)
        ben.locator("#offline").wait_for()
        ben.context.set_offline(False)
        ben.locator("#said", has_text="The table moved on (now #43)").wait_for()
        wait_seq(ben, 43)
        assert f'"{late}" was not recorded' in ben.inner_text("#said")
        assert ben.locator("#offline").is_hidden()
        assert ben.errors == [] and ana.errors == []
    assert len(lines_of(log)) == 43 and lines_of(log)[-1]["type"] == "noted"
    assert check(log).ok


# --------------------------------------------------------------------------- screen readers


def audited_page(browser: Any, url: str, size: dict[str, int] = PHONE) -> Any:
    """A page in a context that lets the audit's script in past the page's Content-Security-Policy."""
    context = browser.new_context(viewport=size, bypass_csp=True)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(url)
    return page


@pytest.mark.parametrize("fixture", ["splendor-table-3p", "split-table-4p", "array-table-3p", "splice-open-4p"])
def test_every_board_is_also_a_labelled_list_and_the_game_page_passes_an_audit(
    browser: Any, tmp_path: Path, fixture: str
) -> None:
    source = axe_source()
    cut_log(fixture, 60, tmp_path, "game")
    with serving(tmp_path) as served:
        page = audited_page(browser, f"{served.url}/games/game")
        page.locator("body[data-seq]").wait_for(state="attached")
        join(page, "ana", served.join_code("game"))
        wait_seq(page, 60)
        page.locator("#board-words-list[data-seq='60']").wait_for(state="attached")
        words = page.locator("#board-words")
        assert words.get_attribute("aria-labelledby") == "board-words-heading"
        players = page.locator("#board-words ul[aria-label='players'] > li")
        seats = logfile.read(GAMES / f"{fixture}.jsonl").started.seats
        assert [item.split("\n")[0].split(",")[0] for item in players.all_inner_texts()] == list(seats)
        assert page.locator("#board-words ul[aria-label='the table'] > li").count() > 0
        assert "Whose turn: " in page.locator("#board-words-list").text_content()
        tree = words.aria_snapshot()  # what assistive technology is given: a region, its heading, the labelled lists
        assert 'heading "The board in words"' in tree and 'list "players"' in tree, tree
        page.click("#history summary")
        page.locator("#history-list li").first.wait_for()
        assert audit(page, source) == []
        assert page.errors == []


def test_the_list_and_library_pages_pass_an_audit(browser: Any, tmp_path: Path) -> None:
    from tally.store import library

    source = axe_source()
    cut_log("splendor-2p", 40, tmp_path, "tuesday")
    db = tmp_path / "club.duckdb"
    assert not library.ingest(db, [GAMES / "splendor-2p.jsonl", GAMES / "split-3p.jsonl"], jobs=1).rejected
    (tmp_path / "tables").mkdir()
    cut_log("splendor-2p", 40, tmp_path / "tables", "tuesday")
    with serving(tmp_path / "tables", "--db", str(db)) as served:
        listing = audited_page(browser, f"{served.url}/#token={served.token}")
        listing.locator("#games li").first.wait_for()
        listing.locator("#start:not([hidden])").wait_for()
        assert audit(listing, source) == []
        shelf = audited_page(browser, f"{served.url}/library#token={served.token}", DESKTOP)
        shelf.locator("#library-games li").first.wait_for()
        shelf.locator(".chart svg").first.wait_for()
        assert audit(shelf, source) == []
        game = shelf.locator("#library-games li a").first.get_attribute("href")
        shelf.goto(f"{served.url}{game}")  # the same browser: it holds the host's token
        shelf.locator("#board svg").first.wait_for()
        assert audit(shelf, source) == []
        # the control: the audit sees a serious fault when there is one (a button no screen reader can name)
        shelf.evaluate("document.body.append(document.createElement('button'))")
        assert any(found.startswith("button-name (critical)") for found in audit(shelf, source))
        assert listing.errors == [] and shelf.errors == []
