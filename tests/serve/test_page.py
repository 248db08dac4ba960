"""The table's page (issue 19) in a real browser: `tally serve` on loopback, Debian's chromium through Playwright.

For each game two phone-sized pages join two seats by the join code and tap a short game to its end, each seeing
the other's moves arrive (a whole game by taps is long: each starts from a bundled fixture's log cut a few moves
before its end, and taps the moves the fixture recorded; a seat without a phone is the host's to tap, on a shared
screen). A page whose stream dropped taps a stale move and is told (409), and nothing is recorded; a seat's page
holds no card of another seat's hidden hand anywhere in its DOM; a screenshot of each game's page at 390x844 is
kept as a golden file (`tests/golden/page-GAME.png`, rewritten with `--snapshot-update`) and compared with a
tolerance (a few pixels of font smoothing may differ).
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from support import array_helpers
from support.page_helpers import (
    GAMES,
    PHONE,
    ROOT,
    button_for,
    cut_log,
    enter,
    join,
    open_page,
    serving,
    small_targets,
    tap,
    wait_seq,
    walls,
)
from support.views import SHOWN
from tally.store.recording import record
from tally.store.recording.results import check

GOLDEN = ROOT / "tests" / "serve" / "golden"
DESKTOP = {"width": 1280, "height": 800}


def payloads(path: Path) -> list[dict[str, Any]]:
    """A log's events without the time of recording (and so without the hash chain over it), nor which device
    entered them (`by`)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in line.items() if k not in ("at", "prev", "salt", "by")} for line in lines]


# --------------------------------------------------------------------------- a short game to its end, by taps

ENDS = [  # fixture, moves tapped, the seats with a phone (the others' moves are the host's to tap)
    ("splendor-2p", 8, ("ana", "ben")),
    ("split-3p", 10, ("ana", "ben")),
    ("array-open-4p", 12, ("ana", "cy")),
    ("splice-open-2p", 12, ("ana", "ben")),
]


@pytest.mark.parametrize(("fixture", "taps", "phones"), ENDS, ids=[end[0].split("-")[0] for end in ENDS])
def test_two_phones_record_a_game_to_its_end(
    browser: Any, tmp_path: Path, fixture: str, taps: int, phones: tuple[str, str]
) -> None:
    pos, frames = record.replay(GAMES / f"{fixture}.jsonl")
    spec = pos.spec
    keep = len(frames) - taps
    assert [frame.seq for frame in frames[:keep]] == list(range(1, keep + 1))
    cut_log(fixture, keep, tmp_path, "game")
    with serving(tmp_path) as served:
        code = served.join_code("game")
        pages = {}
        for seat in phones:
            pages[seat] = open_page(browser, served, "game")
            join(pages[seat], seat, code)
            wait_seq(pages[seat], keep)
        assert small_targets(pages[phones[0]]) == []
        host = None
        if any(frame.event.player not in phones for frame in frames[keep:]):
            host = open_page(browser, served, "game", DESKTOP, host=True)
            board, controls = host.locator(".board-side").bounding_box(), host.locator(".act").bounding_box()
            assert board["x"] + board["width"] <= controls["x"], "a shared screen shows the board beside the controls"
        tapped = None
        for frame in frames[keep:]:
            move = spec.format(frame.event)
            tapped = pages.get(frame.event.player) or host
            wait_seq(tapped, frame.seq - 1)
            shown = button_for(tapped, move)
            tap(tapped, shown)
            for page in pages.values():  # the other phone redraws from the stream, the tapping one from its answer
                wait_seq(page, frame.seq)
            assert f"#{frame.seq} {shown}" in tapped.inner_text("#said")
        outcome = spec.outcome(frames[-1].state)
        assert outcome is not None
        for page in pages.values():
            banner = page.inner_text("#banner")
            assert f"Game over: {outcome.reason}" in banner
            assert all(f"{seat} {score}" in banner for seat, score in outcome.scores.items())
            assert page.locator("#moves button[data-move]").count() == 0
            assert page.errors == []
        assert "The game is over: " + outcome.reason in tapped.inner_text("#said")
    assert payloads(tmp_path / "game.jsonl") == payloads(GAMES / f"{fixture}.jsonl")
    assert check(tmp_path / "game.jsonl").ok


# --------------------------------------------------------------------------- the list, the host link, a watcher


def test_the_host_link_lists_the_games_and_leaves_no_token_behind(browser: Any, tmp_path: Path) -> None:
    cut_log("splendor-2p", 40, tmp_path, "tuesday")
    cut_log("split-3p", 30, tmp_path, "wednesday")
    with serving(tmp_path) as served:
        context = browser.new_context(viewport={"width": 360, "height": 640})
        page = context.new_page()
        page.goto(f"{served.url}/#token={served.token}")
        page.locator("#games li").nth(1).wait_for()
        assert served.token not in page.url and "token" not in page.url
        listed = page.inner_text("#games")
        assert "tuesday · splendor\nana, ben · open · #40 · ben to act" in listed
        assert "wednesday · split\nana, ben, cy · open · #30" in listed
        assert small_targets(page) == []
        page.click("text=tuesday")
        page.locator("body[data-viewer='host']").wait_for(state="attached")
        assert page.locator("#moves button[data-move]").count() > 0  # the host records for any seat
        assert page.locator("#host").is_visible()
        watcher = open_page(browser, served, "tuesday")
        assert watcher.locator("body").get_attribute("data-viewer") == "watcher"
        assert watcher.locator("#moves button[data-move]").count() == 0
        assert "Join a seat" in watcher.inner_text("#moves")
        status, body = served.api("GET", "/games/nowhere")
        assert status == 404 and body["error"] == "serve.game.unknown"


# --------------------------------------------------------------------------- the table moved on


def test_a_stale_page_is_told_and_its_move_is_not_recorded(browser: Any, tmp_path: Path) -> None:
    log = cut_log("splendor-2p", 40, tmp_path, "game")  # ben to act after event 40
    with serving(tmp_path) as served:
        ben = open_page(browser, served, "game")
        ben.route("**/api/games/game/stream", lambda route: route.abort())  # its stream dropped: it sees no news
        join(ben, "ben", served.join_code("game"))
        wait_seq(ben, 40)
        status, report = served.api("POST", "/api/games/game/moves", {"move": "ben: take w b g", "expected_seq": 40})
        assert status == 201, report
        tap(ben, "ben: take w b r")
        wait_seq(ben, 41)
        said = ben.inner_text("#said")
        assert said.startswith("The table moved on (now #41): the board is redrawn")
        assert '"ben: take w b r" was not recorded' in said
        assert "ben to take" not in ben.inner_text("#banner")  # the redraw: ana's turn now
        # once redrawn, the page records again against the new seq
        status, moves = served.api("GET", "/api/games/game/moves")
        assert status == 200 and moves["seq"] == 41
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 41 and json.loads(lines[-1])["gems"] == ["w", "b", "g"]


def test_a_page_reads_a_replaced_log_again(browser: Any, tmp_path: Path) -> None:
    """Reproduction: a log restored from an older backup while a phone's page was open left the page at the old
    position (its stream sent nothing: the seq it knew was past the log's). Now the stream's `resync` event makes the
    page say so and read the game again, at the restored seq; moves after it arrive as before."""
    import os

    cut_log("splendor-2p", 40, tmp_path, "game")
    (tmp_path / "backup").mkdir()
    backup = cut_log("splendor-2p", 30, tmp_path / "backup", "game")
    with serving(tmp_path) as served:
        ben = open_page(browser, served, "game")
        join(ben, "ben", served.join_code("game"))
        wait_seq(ben, 40)
        os.replace(backup, tmp_path / "game.jsonl")  # restored: another file, ten events shorter
        wait_seq(ben, 30)
        assert "log was replaced" in ben.inner_text("#said")
        status, listing = served.api("GET", "/api/games/game/moves")
        assert status == 200 and listing["seq"] == 30
        status, report = served.api("POST", "/api/games/game/moves", {"move": listing["moves"][0], "expected_seq": 30})
        assert status == 201, report
        wait_seq(ben, 31)
        assert ben.errors == []


def test_every_phone_owing_its_hand_is_told_it_is_due(browser: Any, tmp_path: Path) -> None:
    """Array with both seats seated: the deal leaves each its hand, and both are due at once (the listing's
    `waiting_on`), not only the first seat `to_act` names. Each is offered its own hand to tap (issue 34: the card
    picker) and no other's; ben taps his, ana types hers; once ben has, his page waits on ana."""
    with serving(tmp_path) as served:
        status, made = served.api(
            "POST", "/api/games", {"id": "g", "game": "array", "players": ["ana", "ben"], "seated": ["ana", "ben"]}
        )
        assert status == 201, made
        code = served.join_code("g")
        pages = {seat: open_page(browser, served, "g") for seat in ("ana", "ben")}
        for seat, page in pages.items():
            join(page, seat, code)
            wait_seq(page, 1)
            assert page.get_attribute("#banner", "class") == "banner mine", seat
            assert page.inner_text("#banner").startswith("#1 ") and "Your turn: ana, ben to name" in page.inner_text(
                "#banner"
            )
            assert (
                page.text_content("#owed")
                == "Yours to enter: the dealt hand of round 1 (7 cards): tap its cards below, then Record. Or type it as hand CARD ...Type it"
            )
            owed = page.eval_on_selector_all("#moves .picker", "ps => ps.map(p => [p.dataset.kind, p.dataset.player])")
            assert owed == [["hand", seat]], owed  # and the picker to tap it with: its own, no other seat's
        ana, ben = pages["ana"], pages["ben"]
        enter(ben, f"ben: hand {' '.join(array_helpers.BEN)}")
        for page in (ana, ben):
            wait_seq(page, 2)
        assert ben.get_attribute("#banner", "class") == "banner"
        assert (
            ben.inner_text("#moves")
            == "No move of yours is due now: waiting for ana to enter the dealt hand of round 1 (7 cards)."
        )
        assert ana.get_attribute("#banner", "class") == "banner mine"
        assert ana.text_content("#owed").startswith("Yours to enter:")
        assert ana.locator("#moves .picker[data-kind=hand]").count() == 1
        ana.fill("#move-text", f"ana: hand {' '.join(array_helpers.ANN)}")
        ana.click("#typed button[type=submit]")
        for page in (ana, ben):
            wait_seq(page, 3)
            # the starting card is the table's to turn over: any phone may enter it, the dealer's is asked to; 31 cards
            # may come up, so they are the picker's, not a wall of buttons
            assert page.locator('#moves .picker[data-kind=start] button[data-piece="br"]').count() == 1
            assert walls(page) == []
        assert ana.get_attribute("#banner", "class") == "banner" and "Waiting on ben" in ana.inner_text("#banner")
        assert ben.get_attribute("#banner", "class") == "banner mine"
        assert ben.text_content("#owed") == "For the table, yours to enter: the starting card of round 1."
        tap(ben, "start br")
        wait_seq(ana, 4)
        assert not ana.errors and not ben.errors
    assert check(tmp_path / "g.jsonl").ok


# --------------------------------------------------------------------------- disputes and corrections


def test_a_phone_disputes_undoes_amends_and_notes(browser: Any, tmp_path: Path) -> None:
    log = cut_log("splendor-2p", 40, tmp_path, "game")  # ben to act after event 40
    with serving(tmp_path) as served:
        ben = open_page(browser, served, "game")
        join(ben, "ben", served.join_code("game"))
        wait_seq(ben, 40)

        def typed(text: str, button: str) -> str:
            ben.fill("#move-text", text)
            ben.click(button)
            ben.locator("#said", has_text=text).wait_for()
            return str(ben.inner_text("#said"))

        said = typed("ben: take r r", "#dispute")  # is this legal? records nothing
        assert said.startswith('"ben: take r r" is illegal: nothing was recorded.')
        assert (
            "ben cannot take 2 red: 3 red left, needs at least 4 (splendor.take.two-needs-four: Taking 2 of one "
            "colour is only allowed if that pile holds at least 4 tokens before taking.)"
        ) in said
        said = typed("ben: take k k", "#dispute")
        assert said.startswith('"ben: take k k" is legal: nothing was recorded.')
        said = typed("ben: tkae w b g", "#typed button[type=submit]")
        assert said.startswith("Not readable, nothing recorded: ")
        assert len(log.read_text().splitlines()) == 40

        tap(ben, "ben: take w b g")
        wait_seq(ben, 41)
        ben.click("#corrections summary")
        ben.fill("#undo-reason", "took the wrong colours")
        ben.click("#undo-form button[type=submit]")
        assert ben.inner_text("#confirm .what") == "This voids #41 ben: take w b g."  # asked once, then done
        ben.click("#confirm-yes")
        wait_seq(ben, 42)
        assert ben.locator("#said").inner_text() == "Recorded: #42 void #41: ben: take w b g (took the wrong colours)"
        tap(ben, "ben: take w b r")
        wait_seq(ben, 43)
        ben.fill("#amend-seq", "43")
        ben.fill("#amend-move", "ben: take w b k")
        ben.fill("#amend-reason", "misheard the colour")
        ben.click("#amend-form button[type=submit]")
        assert ben.inner_text("#confirm .what") == "This replaces #43 ben: take w b r, with ben: take w b k."
        ben.click("#confirm-yes")
        wait_seq(ben, 44)
        assert (
            ben.inner_text("#said")
            == "Recorded: #44 amend #43: ben: take w b r -> ben: take w b k (misheard the colour)"
        )
        ben.fill("#note-text", "ben asked about the rule on ties")
        ben.click("#note-form button[type=submit]")
        wait_seq(ben, 45)
        assert ben.inner_text("#said") == "Noted at #45."
        assert ben.errors == []
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()[40:]]
    assert kinds == ["gems_taken", "voided", "gems_taken", "amended", "noted"], kinds
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert lines[41]["reason"] == "took the wrong colours" and lines[43]["reason"] == "misheard the colour"
    assert check(log).ok


# --------------------------------------------------------------------------- what a seat's page holds


SEATED = [
    ("splendor-seated-3p", ("ana", "ben")),
    ("split-seated-3p", ("ana", "ben")),
    ("array-seated-3p", ("ana", "cy")),
]


def words_of(text: str) -> set[str]:
    return set(re.findall(r"[\w@.+-]+", text))


def secrets(spec: Any, state: Any, seat: str) -> tuple[set[str], set[str]]:
    """The cards the log knows and `seat` may not see, and the cards only `seat` sees (not a watcher): codes of
    three or more characters (shorter ones, a coin's value, are also plain numbers in any text). A code the seat's
    view names anywhere is one it may see (a copy of a card another seat holds may lie in a round's public record,
    which the picture does not draw but the board in words lists)."""
    import msgspec

    full = SHOWN[spec.name](spec.view(state, None))[0]
    view = spec.view(state, seat)
    mine = SHOWN[spec.name](view)[0]
    public = SHOWN[spec.name](spec.view(spec.conceal(state, ""), ""))[0]
    named = words_of(json.dumps(msgspec.to_builtins(view)))
    return {c for c in full if len(c) >= 3} - set(mine) - named, {c for c in mine if len(c) >= 3} - set(public)


@pytest.mark.parametrize(("fixture", "seats"), SEATED, ids=[s[0].split("-")[0] for s in SEATED])
def test_a_seats_page_never_holds_another_seats_hidden_card(
    browser: Any, tmp_path: Path, fixture: str, seats: tuple[str, str]
) -> None:
    pos, frames = record.replay(GAMES / f"{fixture}.jsonl")
    spec = pos.spec
    seated = seats[0]  # the seat that enters its own hidden cards (`game_started`'s `seated`)
    assert pos.log.started.seated == (seated,) or list(pos.log.started.seated) == [seated]
    # from the middle on, the first position where the seated seat holds a card the log knows and the other may not see
    keep = next(frame.seq for frame in frames[len(frames) // 2 :] if secrets(spec, frame.state, seats[1])[0])
    state = frames[keep - 1].state
    cut_log(fixture, keep, tmp_path, "game")
    with serving(tmp_path) as served:
        code = served.join_code("game")
        for seat in seats:
            page = open_page(browser, served, "game")
            join(page, seat, code)
            wait_seq(page, keep)
            page.locator("#board svg").wait_for()
            hidden, own = secrets(spec, state, seat)
            found = words_of(page.content())
            assert not hidden & found, f"{seat}'s page holds {sorted(hidden & found)}"
            if seat == seated:
                assert own and own <= found, f"{seat}'s own hidden cards are on its page"
            else:
                assert hidden, f"{seat} may not see some card at #{keep}"


# --------------------------------------------------------------------------- the golden pages

SHOTS = [
    ("splendor-table-3p", 75, "ben"),
    ("split-table-4p", 240, "ana"),
    ("array-table-3p", 175, "ana"),
    ("splice-open-4p", 150, "cy"),
]

COMPARE = """async ([golden, shot]) => {
  const load = (src) => new Promise((ok, no) => { const i = new Image(); i.onload = () => ok(i); i.onerror = no; i.src = src; });
  const [a, b] = await Promise.all([load(golden), load(shot)]);
  if (a.width !== b.width || a.height !== b.height) return {size: [a.width, a.height, b.width, b.height], differ: -1};
  const pixels = (img) => { const c = document.createElement("canvas"); c.width = img.width; c.height = img.height;
    const g = c.getContext("2d"); g.drawImage(img, 0, 0); return g.getImageData(0, 0, img.width, img.height).data; };
  const p = pixels(a), q = pixels(b);
  let differ = 0;
  for (let i = 0; i < p.length; i += 4) {
    if (Math.abs(p[i] - q[i]) > 48 || Math.abs(p[i + 1] - q[i + 1]) > 48 || Math.abs(p[i + 2] - q[i + 2]) > 48) differ++;
  }
  return {size: [a.width, a.height], differ, total: p.length / 4};
}"""
TOLERANCE = 0.01  # at most 1% of the pixels differ by more than a faint shade


def differing(browser: Any, golden: bytes, shot: bytes) -> dict[str, Any]:
    """How many pixels of two PNGs differ, counted by the browser itself (no image library needed)."""
    page = browser.new_page()
    try:
        uri = "data:image/png;base64,"
        return page.evaluate(COMPARE, [uri + base64.b64encode(golden).decode(), uri + base64.b64encode(shot).decode()])  # type: ignore[no-any-return]
    finally:
        page.close()


@pytest.mark.parametrize(("fixture", "keep", "seat"), SHOTS, ids=[s[0].split("-")[0] for s in SHOTS])
def test_golden_page(
    browser: Any, request: pytest.FixtureRequest, tmp_path: Path, fixture: str, keep: int, seat: str
) -> None:
    cut_log(fixture, keep, tmp_path, "game")
    with serving(tmp_path) as served:
        page = open_page(browser, served, "game", {"width": 390, "height": 844})
        join(page, seat, served.join_code("game"))
        wait_seq(page, keep)
        page.locator("#board svg").wait_for()
        shot = page.screenshot(animations="disabled", caret="hide")
    golden = GOLDEN / f"page-{fixture.split('-')[0]}.png"
    if request.config.getoption("--snapshot-update", default=False):
        GOLDEN.mkdir(exist_ok=True)
        golden.write_bytes(shot)
    assert golden.exists(), f"no golden page {golden.name}: run pytest {__file__} --snapshot-update and look at it"
    compared = differing(browser, golden.read_bytes(), shot)
    assert compared["differ"] >= 0, f"the page's size changed: {compared['size']}"
    assert compared["differ"] <= TOLERANCE * compared["total"], compared


def test_a_seats_conflicting_entry_is_told_plainly_and_the_host_sees_both(browser: Any, tmp_path: Path) -> None:
    """Issue 32: p1's phone types a draw of a card p2 entered in its hand (someone mistyped). p1's page says only that
    the entry contradicts another seat's (no seat, no card) and nothing is recorded; the host's page, told by its
    stream, lists the conflict with the whole table's ruling, which names the card and where it is."""
    import test_secrets

    from tally.core import registry
    from tally.core.engine import Table
    from tally.store.recording.secrecy import salted

    events, _ = test_secrets._at_a_draw("split", "p1")
    spec = registry.get("split")
    table = Table(spec, events[0])  # type: ignore[arg-type]
    for event in events[1:]:
        table.apply(event)
    held = sorted(
        test_secrets.concealed_names(table.state, spec.conceal(table.state, "p1")) & test_secrets.names_in(events)
    )[0]
    from tally.store.logs import log as logfile

    started = events[0]
    logfile.create(
        tmp_path / "game.jsonl", [started, *salted(spec, started.seats, Table(spec, started).state, events[1:])]
    )  # type: ignore[arg-type, attr-defined]
    with serving(tmp_path) as served:
        code = served.join_code("game")
        phone = open_page(browser, served, "game")
        join(phone, "p1", code)
        wait_seq(phone, len(events))
        host = open_page(browser, served, "game", DESKTOP, host=True)
        wait_seq(host, len(events))
        assert host.locator("#conflicts").is_hidden()
        phone.fill("#move-text", f"p1: draw {held}")
        phone.click("#typed button[type=submit]")
        phone.locator("#said.bad").wait_for()
        said = phone.inner_text("#said")
        assert "contradicts what another seat entered" in said and "core.seat.conflict" in said
        ruled = said.split("\n", 1)[1]  # after the echo of what p1 typed
        assert held not in ruled and "p2" not in ruled and "p3" not in ruled
        host.locator("#conflicts li").wait_for()  # told by the host's stream, no reload
        listed = host.inner_text("#conflicts")
        assert f'p1 entered "p1: draw {held}"' in listed and held in listed.split(":", 1)[1]
        assert phone.errors == [] and host.errors == []
    assert len(logfile.read(tmp_path / "game.jsonl").events) == len(events)


def test_the_host_starts_a_game_on_the_page_and_each_phone_takes_its_seat_by_its_link(
    browser: Any, tmp_path: Path
) -> None:
    """Issue 34: no terminal and no typed code. The host's list page offers the games tally can start; the host fills
    the form (Split, three players, every seat entering its own cards) and lands on the game; the host's page shows
    each seat's one-time link as a QR code; a phone that opens a link holds that seat (the secret leaves the address
    bar); after a reload the host's page shows the same links and code; a lost phone's seat is given again; a seat
    asks before it is left."""
    with serving(tmp_path) as served:
        context = browser.new_context(viewport=DESKTOP)
        host = context.new_page()
        host.goto(f"{served.url}/#token={served.token}")
        host.locator("#start:not([hidden])").wait_for()
        host.select_option("#start-game", "split")
        names = host.locator("#start-players input")
        assert names.count() == 2  # Split's fewest players
        host.click("#add-player")
        for index, name in enumerate(("ana", "ben", "cy")):
            names.nth(index).fill(name)
        host.fill("#start-name", "friday")
        assert host.locator("#start-seated input:checked").count() == 3  # everyone enters their own cards by default
        host.click("#start-form button[type=submit]")
        host.wait_for_url(f"{served.url}/games/friday")
        host.locator("body[data-viewer='host']").wait_for(state="attached")
        assert "shows every seat's hidden cards" in host.inner_text("#host")
        host.locator("li[data-seat='ana'] svg.qr").wait_for()  # every free seat's link is shown without a tap
        link = host.locator("[data-seat-link='ana']").get_attribute("href")
        assert link is not None and link.startswith(f"{served.url}/games/friday#seat=")
        phone = browser.new_context(viewport=PHONE).new_page()
        phone.goto(link)
        phone.locator("body[data-viewer='ana']").wait_for(state="attached")
        assert "seat=" not in phone.url and "#" not in phone.url
        host.reload()
        host.locator("li[data-seat='ana'].taken").wait_for()
        host.locator("li[data-seat='ben'] svg.qr").wait_for()
        assert host.locator("li[data-seat='ana'] svg.qr").count() == 0  # a seat a phone holds shows no link
        code = host.inner_text("#join-code-shown")
        host.click("#new-code")
        host.wait_for_function(
            "(before) => document.getElementById('join-code-shown').textContent !== before", arg=code
        )
        code = host.inner_text("#join-code-shown")
        host.reload()
        host.locator("li[data-seat='ben'] svg.qr").wait_for()
        assert host.inner_text("#join-code-shown") == code
        host.click(
            "[data-give='ana']"
        )  # ana's phone is lost: a new link, and the old phone is let go once it is opened
        again = host.locator("[data-seat-link='ana']").get_attribute("href")
        other = browser.new_context(viewport=PHONE).new_page()
        other.goto(again)
        other.locator("body[data-viewer='ana']").wait_for(state="attached")
        status, _ = served.api(
            "GET",
            "/api/games/friday",
            token=json.loads(phone.evaluate("localStorage.getItem('tally.seat.friday')"))["token"],
        )
        assert status == 401
        other.click("#leave")
        assert other.locator("body").get_attribute("data-viewer") == "ana"  # the first tap only asks
        other.click("#leave")
        other.locator("body[data-viewer='watcher']").wait_for(state="attached")
        assert phone.evaluate("1") == 1  # the pages ran their scripts to the end
