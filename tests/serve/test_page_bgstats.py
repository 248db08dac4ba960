"""A finished game's page (issue 35): "Log in BG Stats", the link that logs the play there, and a QR code of it for
the phone that has BG Stats; in a real browser at a phone's width, dated in the phone's own time zone."""

from __future__ import annotations

import json
import re
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from zoneinfo import ZoneInfo

from support.bgstats import CREATE_PLAY, check_play
from support.page_helpers import GAMES, WAIT, cut_log, serving


def phone(browser: Any, url: str, zone: str) -> Any:
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, timezone_id=zone)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    page.goto(url)
    page.locator("body[data-seq]").wait_for(state="attached")
    return page


def test_a_finished_games_page_logs_the_play_in_bg_stats(browser: Any, tmp_path: Path) -> None:
    import segno

    shutil.copy(GAMES / "splendor-2p.jsonl", tmp_path / "friday.jsonl")
    cut_log("splendor-2p", 40, tmp_path, "saturday")
    with serving(tmp_path) as served:
        page = phone(browser, f"{served.url}/games/friday", "America/Los_Angeles")
        page.locator("#bgstats-link").wait_for(state="visible")
        link = page.locator("#bgstats-link")
        assert link.inner_text() == "Log in BG Stats"
        href = link.get_attribute("href")
        assert href and href.startswith(CREATE_PLAY)
        play = json.loads(unquote(href[len(CREATE_PLAY) :]))
        check_play(play)
        first = json.loads((GAMES / "splendor-2p.jsonl").read_text().splitlines()[0])
        began = datetime.fromisoformat(first["at"].replace("Z", "+00:00")).astimezone(ZoneInfo("America/Los_Angeles"))
        assert play["playDate"] == began.strftime("%Y-%m-%d %H:%M:%S"), "dated in the phone's own time zone"
        assert play["game"]["bggId"] == 148228 and play["sourceName"] == "tally"
        note = page.locator("#bgstats-note").inner_text()
        assert "America/Los_Angeles" in note and play["playDate"] in note
        qr = page.locator("#bgstats-qr svg.qr")
        box = qr.bounding_box()
        assert box and box["width"] >= 200 and box["x"] >= 0 and box["x"] + box["width"] <= 390, box
        drawn = re.search(r' d="([^"]+)"', qr.evaluate("svg => svg.outerHTML"))
        expected = re.search(r' d="([^"]+)"', segno.make(href, error="l").svg_inline(scale=4, border=2))
        assert drawn and expected and drawn.group(1) == expected.group(1), "the QR code holds the link"
        assert qr.get_attribute("aria-label") == "the play's link for BG Stats as a QR code"
        assert not page.errors

        playing = phone(browser, f"{served.url}/games/saturday", "America/Los_Angeles")
        assert playing.locator("#bgstats").is_hidden(), "a game not over has no play yet"
