"""The table's page in a real browser: `tally serve` on a free loopback port, Debian's chromium driven by Playwright
(through `executable_path`: never a browser download), and what a player does on a page (join a seat by its code,
tap a move, wait for the redraw). Without chromium the browser tests are skipped, except under CI (`CI` set),
where its absence fails them: `.ci/run` installs it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support import ROOT

GAMES = ROOT / "fixtures" / "games"
PHONE = {"width": 360, "height": 640}
WAIT = 20_000  # ms: a redraw on a loaded machine with six test runs beside it


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def need_chromium() -> str:
    found = chromium_path()
    if found is None:
        if os.environ.get("CI"):
            pytest.fail("chromium is missing: .ci/run installs Debian's chromium package for the page's tests")
        pytest.skip("no chromium here (apt-get install chromium): the page's browser tests need it")
    return found


@dataclass
class Served:
    url: str
    token: str
    folder: Path

    def api(self, method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any]:
        """One call of the API, as a script would make it (the host's token unless another is given)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Authorization", f"Bearer {token or self.token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, json.loads(answer.read() or b"null")
        except urllib.error.HTTPError as error:
            with error:
                return error.code, json.loads(error.read() or b"null")

    def join_code(self, game: str) -> str:
        status, body = self.api("POST", f"/api/games/{game}/code")
        assert status == 201, body
        return str(body["code"])


@contextmanager
def serving(folder: Path, *options: str) -> Iterator[Served]:
    """`tally serve FOLDER --port 0 --json` (and `options`) as a user starts it, stopped (by its own process) afterwards."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "from tally.cli.main import main; main()",
            "serve",
            str(folder),
            "--port",
            "0",
            "--json",
            *options,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if not first:
            raise AssertionError(f"tally serve did not start: {proc.stderr.read() if proc.stderr else ''}")
        started = json.loads(first)
        served = Served(started["url"], started["token"], folder)
        ready(served)
        yield served
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def ready(served: Served, patience: float = 15.0) -> None:
    """Wait until the server answers (it prints its address once bound; it accepts once uvicorn listens)."""
    deadline = time.monotonic() + patience
    while True:
        try:
            served.api("GET", "/api/games")
            return
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def cut_log(fixture: str, keep: int, folder: Path, ident: str) -> Path:
    """A bundled game's log cut after its first `keep` events (a prefix keeps the hash chain whole)."""
    lines = (GAMES / f"{fixture}.jsonl").read_bytes().splitlines(keepends=True)
    target = folder / f"{ident}.jsonl"
    target.write_bytes(b"".join(lines[:keep]))
    return target


# --------------------------------------------------------------------------- what a player does on a page


def open_page(browser: Any, served: Served, game: str, size: dict[str, int] = PHONE, host: bool = False) -> Any:
    """A page of its own browser context (its own storage: one phone), at the game; the host's through the host link."""
    context = browser.new_context(viewport=size, device_scale_factor=1)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.errors = errors
    if host:
        page.goto(f"{served.url}/games/{game}#token={served.token}")
    else:
        page.goto(f"{served.url}/games/{game}")
    page.locator("body[data-seq]").wait_for(state="attached")
    return page


def join(page: Any, seat: str, code: str) -> None:
    """Take a seat as a phone does: pick it, type the code the host's screen shows, tap Join."""
    page.select_option("#join-seat", seat)
    page.fill("#join-code", code)
    page.click("#join button[type=submit]")
    page.locator(f"body[data-viewer='{seat}']").wait_for(state="attached")


def seq_of(page: Any) -> int:
    return int(page.locator("body").get_attribute("data-seq"))


def wait_seq(page: Any, seq: int) -> None:
    page.locator(f"body[data-seq='{seq}']").wait_for(state="attached")


def tap(page: Any, move: str) -> None:
    """Tap a legal move's button, opening its group first when it is folded away; a move a card picker makes (its
    group is long) is entered there (`enter`)."""
    assert '"' not in move and "\\" not in move, move
    page.locator("#moves").wait_for()
    if not page.locator(f'#moves button[data-move="{move}"]').count() and _picker_heads(page, move):
        enter(page, move)
        return
    button = page.locator(f'#moves button[data-move="{move}"]')
    button.wait_for(state="attached")
    if not button.is_visible():
        group = page.locator("#moves details").filter(has=page.locator(f'button[data-move="{move}"]'))
        group.locator("summary").click()
    button.click()


def button_for(page: Any, recorded: str) -> str:
    """The page's move that records `recorded` (a move as the log holds it): the same text, or, where this seat
    cannot see the card (a draw from the pile, which tally deals in open mode), the listed move it completes."""
    listed = [m for m in (b.get_attribute("data-move") for b in page.locator("#moves button[data-move]").all()) if m]
    if recorded in listed or _picker_heads(page, recorded):
        return recorded
    fits = [m for m in listed if recorded.startswith(m + " ")]
    assert fits, f"no button for {recorded!r} among {listed}"
    return max(fits, key=len)


def small_targets(page: Any) -> list[str]:
    """Every visible control smaller than a thumb (44 px either way)."""
    found = []
    for control in page.locator("button, input, select, summary, a").all():
        if not control.is_visible():
            continue
        box = control.bounding_box()
        if box and (box["height"] < 44 or box["width"] < 44):
            found.append(f"{control.evaluate('e => e.outerHTML')[:80]} {box['width']:.0f}x{box['height']:.0f}")
    return found


# --------------------------------------------------------------------------- the card picker (issue 34)

MOST_BUTTONS = 12  # no unfolded group of the page shows more move buttons than this


def opened(page: Any, node: Any) -> int:
    """Open every folded group around `node` (outermost first), as a thumb does: the taps it took."""
    taps = 0
    closed = node.evaluate(
        "n => { const out = []; for (let d = n.closest('details'); d; d = d.parentElement?.closest('details'))"
        " if (!d.open) out.unshift(d); out.forEach((d, i) => d.dataset.opening = String(i)); return out.length; }"
    )
    for index in range(closed):
        page.locator(f"#moves details[data-opening='{index}'] > summary").click()
        taps += 1
    page.evaluate("() => document.querySelectorAll('#moves [data-opening]').forEach(d => delete d.dataset.opening)")
    return taps


def _picker_heads(page: Any, move: str) -> list[str]:
    """The heads of the page's pickers that `move` starts with."""
    heads = page.eval_on_selector_all("#moves .picker", "ps => ps.map(p => p.dataset.head)")
    return [head for head in heads if move.startswith(head + " ")]


def _picker_for(page: Any, move: str) -> Any:
    """The picker whose move's head `move` starts with (the longest such head)."""
    heads = page.eval_on_selector_all("#moves .picker", "ps => ps.map(p => p.dataset.head)")
    fits = [head for head in heads if move.startswith(head + " ")]
    assert fits, f"no button and no picker for {move!r} (pickers: {heads})"
    head = max(fits, key=len)
    return page.locator("#moves .picker").nth(heads.index(head))


def pick_piece(page: Any, picker: Any, code: str) -> int:
    """Tap one piece in the picker: its group's tabs first, another place of the move if this one does not take it."""
    taps = 0
    group = page.evaluate("code => picking.pieces.get(code).group", code)
    for attempt in range(picker.locator("button.slot").count() + 1):
        for name in group:
            tab = picker.locator(f'button.tab[data-group="{name}"]')
            if tab.count() and "active" not in (tab.get_attribute("class") or ""):
                tab.click()
                taps += 1
        piece = picker.locator(f'.pieces button[data-piece="{code}"]')
        if piece.count():
            piece.click()
            return taps + 1
        picker.locator("button.slot").nth(attempt).click()
        taps += 1
    raise AssertionError(f"{code} cannot be picked")


def _picks(page: Any, head: str, move: str) -> list[str]:
    """The pieces a listed naming's choice picks for `move` (a card laid somewhere, `lay bgo@4.g`, picks `bgo`, and the
    move's button then tells the places apart); none when no listed naming offers it."""
    return page.evaluate(
        """([head, move]) => {
        for (const naming of table.namings) {
            if (naming.head !== head || !naming.choices) continue;
            const choice = naming.choices.find((c) => c.move === move);
            if (choice) return choice.picks.flat();
        }
        return [];
    }""",
        [head, move],
    )


def enter(page: Any, move: str) -> int:
    """Enter `move` as a player does, with no typing: its button, or its cards tapped in a picker and Record; the taps
    it took (a folded group opened counts)."""
    assert '"' not in move and "\\" not in move, move
    page.locator("#moves").wait_for()
    button = page.locator(f'#moves button[data-move="{move}"]:not(.record)')
    if button.count():
        taps = opened(page, button.first)
        button.first.click()
        return taps + 1
    picker = _picker_for(page, move)
    taps = opened(page, picker)
    head = picker.get_attribute("data-head")
    for word in _picks(page, head, move) or move[len(head) :].replace("+", " ").split():
        if page.evaluate("code => picking.pieces.has(code)", word):
            taps += pick_piece(page, picker, word)
    record = picker.locator(f'button[data-move="{move}"]')
    assert record.count() == 1, f"the picker does not make {move!r}: {picker.inner_text()}"
    record.click()
    return taps + 1


def walls(page: Any) -> list[int]:
    """The sizes of the groups of move buttons shown unfolded that are longer than a dozen (none, on a phone)."""
    return page.evaluate(
        """() => [...document.querySelectorAll('#moves .buttons')]
        .filter((b) => b.offsetParent !== null)
        .map((b) => [...b.querySelectorAll('button[data-move]')].filter((x) => x.offsetParent !== null).length)
        .filter((n) => n > %d)"""
        % MOST_BUTTONS
    )


def own_hand_bottom(page: Any, seat: str) -> float | None:
    """Where the page's picture ends the first card of `seat`'s own hand (or its first token, in a game without a
    hand), in CSS pixels from the top of the page; None when none is drawn."""
    return page.evaluate(
        """(seat) => {
        const titled = [...document.querySelectorAll('#board svg g')].filter((g) => {
            const t = g.querySelector(':scope > title');
            return t && (t.textContent.startsWith(`in ${seat}'s hand`) || t.textContent.startsWith(`${seat} holds`));
        });
        if (!titled.length) return null;
        const box = titled[0].getBoundingClientRect();
        return box.bottom + window.scrollY;
    }""",
        seat,
    )
