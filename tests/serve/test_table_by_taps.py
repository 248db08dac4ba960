"""A whole game played as a table by taps (issue 34, item 8), in Debian's chromium, for every game: the host's page
(desktop-sized) starts the game with the list page's form (the game, three players, everyone seated, table mode, the
transcript's options, a name); each of three phones at 390x844 opens its own seat link as the host's page shows it
(the link its QR code encodes); each phone enters its own hidden cards with the picker, the table its deal and
reveals (on the page of the seat asked to make the table's entry, else the host's); and the table plays a bundled
transcript (`fixtures/games/phones/`, see `fixtures/record_phone_games.py`) to its end, each move found on the page of
the seat that owes it as a button or a picker's choice: no API call, no typed card code. At the end every page shows
the result and its "Log in BG Stats", and the log holds exactly the transcript's events; one phone's Wi-Fi drops
for one of its taps, which is kept and sent when it returns.

The taps and typed characters each game took are printed (`-s` shows them) beside what the same game took typed:
every move's text and a join code per phone. With `TALLY_SCREENSHOTS=FOLDER` the phone-sized pages are saved there
as PNG: the start form, a seat's hand entry, mid-game and the end."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from test_page_picker import bare, page_moves

from support.page_helpers import GAMES, enter, serving, wait_seq
from tally.core import registry
from tally.core.model import Event
from tally.core.naming import kind_of
from tally.store.logs import log as logfile
from tally.store.recording.results import check

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
WAIT = 20_000
CODE = len("XXXX-XXXX-XXXX")  # a join code, as a phone typed it before the seat links


def transcript(game: str) -> list[Event]:
    return list(logfile.read(GAMES / "phones" / f"{game}-3p.jsonl").events)


class Count:
    """What a table did on its pages: taps and typed characters."""

    def __init__(self) -> None:
        self.taps = 0
        self.typed = 0

    def type(self, page: Any, selector: str, text: str) -> None:
        page.fill(selector, text)
        self.typed += len(text)

    def tap(self, page: Any, selector: str) -> None:
        page.click(selector)
        self.taps += 1


def shoot(page: Any, name: str) -> None:
    """The page as a phone shows it, kept where TALLY_SCREENSHOTS says (nothing is kept without it)."""
    folder = os.environ.get("TALLY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def start_on_the_form(host: Any, served: Any, started: Any, name: str, count: Count) -> None:
    """The host's list page, its start form filled as the transcript began: a tap or a few typed characters each."""
    host.goto(f"{served.url}/#token={served.token}")
    host.locator("#start:not([hidden])").wait_for()
    host.select_option("#start-game", started.game)
    count.taps += 1
    names = host.locator("#start-players input")
    while names.count() < len(started.seats):
        count.tap(host, "#add-player")
    for index, seat in enumerate(started.seats):
        count.type(host, f"#start-players label:nth-of-type({index + 1}) input", seat)
    assert host.input_value("#start-mode") == "table"  # the default
    seated = host.locator("#start-seated input:checked")
    assert seated.count() == len(started.seats) == len(started.seated)  # everyone, by default
    catalog = next(
        g for g in host.evaluate("() => start.catalog") if g["name"] == started.game
    )  # the form's own defaults
    for option in catalog["options"]:
        value = started.options[option["key"]]
        field = f"#start-options [data-option='{option['key']}']"
        if value == str(option["default"]):
            continue
        if option["choices"]:
            host.select_option(field, value)
            count.taps += 1
        else:
            count.type(host, field, value)
    count.type(host, "#start-name", name)
    host.set_viewport_size(PHONE)
    shoot(host, f"{started.game}-1-start-form")
    host.set_viewport_size(DESKTOP)
    count.tap(host, "#start-form button[type=submit]")
    host.wait_for_url(f"{served.url}/games/{name}")
    host.locator("body[data-viewer='host']").wait_for(state="attached")


def take_seats(browser: Any, host: Any, seats: list[str], count: Count) -> dict[str, Any]:
    """Each phone opens its seat's link as the host's page shows it for every free seat (what its QR code encodes):
    a tap to open it (a camera's scan)."""
    phones = {}
    for seat in seats:
        link = host.locator(f"[data-seat-link='{seat}']").get_attribute("href")  # shown without a tap
        qr = host.locator(f"li[data-seat='{seat}'] svg.qr")
        assert link and qr.count() == 1
        phone = browser.new_context(viewport=PHONE, device_scale_factor=1).new_page()
        phone.set_default_timeout(WAIT)
        errors: list[str] = []
        phone.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
        phone.errors = errors
        phone.goto(link)
        count.taps += 1
        phone.locator(f"body[data-viewer='{seat}']").wait_for(state="attached")
        phones[seat] = phone
    return phones


def owing_page(phones: dict[str, Any], host: Any) -> Any:
    """The page asked to make the table's entry: the phone whose page says "For the table, yours to enter", else the
    host's."""
    asked = [phone for phone in phones.values() if phone.locator("#owed p[data-owed='table']").count()]
    assert len(asked) <= 1
    return asked[0] if asked else host


def play_by_taps(browser: Any, tmp_path: Path, game: str) -> dict[str, int]:
    events = transcript(game)
    started = events[0]
    name = f"{game}-friday"
    count = Count()
    with serving(tmp_path) as served:
        host = browser.new_context(viewport=DESKTOP, device_scale_factor=1).new_page()
        host.set_default_timeout(WAIT)
        host.errors = []
        host.on("pageerror", lambda error: host.errors.append(str(error)))
        start_on_the_form(host, served, started, name, count)
        setup_taps, form_typed = count.taps, count.typed
        phones = take_seats(browser, host, list(started.seats), count)
        pages = [*phones.values(), host]
        moves = page_moves(game, events, 1, len(events))
        seq = 1
        shot_hand = shot_mid = False
        before = len(started.seats) * CODE
        for index, (player, move, recorded) in enumerate(moves):
            for page in pages:
                wait_seq(page, seq)
            page = phones[player] if player else owing_page(phones, host)
            if player and kind_of(move) == "hand" and not shot_hand:
                shoot(page, f"{game}-2-hand-entry")
                shot_hand = True
            if index == len(moves) // 2 and not shot_mid:
                shoot(phones[player or started.seats[0]], f"{game}-3-mid-game")
                shot_mid = True
            before += len(move) if page is host or player is None else len(move) - len(f"{player}: ")
            offline = index == len(moves) // 3 and page is not host  # Wi-Fi drops on that phone for one tap
            if offline:
                page.context.set_offline(True)
            try:
                count.taps += enter(page, move)
            except Exception as error:
                raise AssertionError(f"#{seq}: {move!r} on {player or 'the table'}'s page") from error
            if offline:
                page.locator("#offline", has_text="1 tap is kept").wait_for()  # said once the send failed
                page.context.set_offline(False)
                page.locator("#offline").wait_for(state="hidden")
            seq += recorded
        for page in pages:
            wait_seq(page, seq)
        for seat, phone in phones.items():
            assert phone.locator("#banner.over").count() == 1, phone.inner_text("#banner")
            phone.locator("#bgstats-link").wait_for()  # the play, to log in BG Stats from any phone
            assert phone.locator("#typed").is_hidden()  # no box to type a move in once no move is legal
            assert "Game over" in phone.inner_text("#banner") and "The game is over." in phone.inner_text("#moves")
            assert phone.errors == [], phone.errors
        shoot(phones[started.seats[0]], f"{game}-4-end")
        assert host.locator("#banner.over").count() == 1 and host.errors == []
        assert host.locator("#seat-list li.taken").count() == len(phones)  # the host sees every seat held
        assert all(not phone.locator("#move-text").input_value() for phone in phones.values())  # nothing typed
    log = logfile.read(tmp_path / f"{name}.jsonl")
    assert bare(log.events) == bare(events)
    assert check(tmp_path / f"{name}.jsonl").ok
    return {
        "moves": len(moves),
        "events": len(events),
        "setup taps": setup_taps,
        "taps": count.taps,
        "typed": count.typed,
        "form typed": form_typed,
        "before": before,
    }


@pytest.mark.parametrize("game", registry.names())
def test_a_whole_game_is_played_by_taps(browser: Any, tmp_path: Path, game: str) -> None:
    figures = play_by_taps(browser, tmp_path, game)
    print(f"\n{game}: {figures}")
    assert figures["typed"] == figures["form typed"]  # the players' names, the game's name, a number option: no move


def test_the_start_form_reads_on_a_phone(browser: Any, tmp_path: Path) -> None:
    """At 390 px the host's start form shows each "enters their own cards" box beside its player's name (the box
    stood alone in the middle of the row, its name at the far edge), thumb-sized, and the mode's choices whole (the
    table mode's words were cut off)."""
    with serving(tmp_path) as served:
        page = browser.new_context(viewport=PHONE, device_scale_factor=1).new_page()
        page.goto(f"{served.url}/#token={served.token}")
        page.locator("#start:not([hidden])").wait_for()
        page.select_option("#start-game", "split")
        page.click("#add-player")
        for index, seat in enumerate(("ana", "ben", "cy")):
            page.fill(f"#start-players label:nth-of-type({index + 1}) input", seat)
        places = page.eval_on_selector_all(
            "#start-seated label",
            """ls => ls.map((l) => {
                const box = l.querySelector('input').getBoundingClientRect();
                const range = document.createRange();
                range.selectNodeContents(l);
                range.setStartAfter(l.querySelector('input'));
                const text = range.getBoundingClientRect();
                return [l.textContent.trim(), box.width, box.height, text.left - box.right];
            })""",
        )
        assert [place[0] for place in places] == ["ana", "ben", "cy"]
        for name, width, height, gap in places:
            assert 44 <= width <= 60 and height >= 44 and 0 <= gap <= 24, (name, width, height, gap)
        fits = page.evaluate(
            """() => {
            const select = document.getElementById('start-mode');
            const style = getComputedStyle(select);
            const context = document.createElement('canvas').getContext('2d');
            context.font = `${style.fontSize} ${style.fontFamily}`;
            const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 24;
            return [...select.options].map((o) => [o.text, context.measureText(o.text).width <= room]);
        }"""
        )
        assert all(fit for _, fit in fits), fits
