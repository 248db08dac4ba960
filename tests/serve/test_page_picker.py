"""The card picker on a phone (issue 34, items 5 and 6), in Debian's chromium at 390x844: a table of three phones, every
seat naming its own hidden cards, enters the start of a bundled-style game by taps alone (a random game's table
transcript, each seat's hand named by its own phone): each hand, the table's reveals (Split's deal, Array's starting
card, Splendor's whole setup in one move) and the draws, through the picker; no card code is typed. Every page it
redraws shows no unfolded group of more than a dozen buttons, and once a seat holds cards the board shows its own
hand within the first 844 px. What was recorded is the transcript's events, as typed entries would have made them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from support.page_helpers import GAMES as GAMES_DIR
from support.page_helpers import (
    MOST_BUTTONS,
    enter,
    join,
    open_page,
    own_hand_bottom,
    pick_piece,
    serving,
    small_targets,
    wait_seq,
    walls,
)
from support.serve_helpers import seated, write_log
from tally.core import registry
from tally.core.engine import Table
from tally.core.model import Event
from tally.core.naming import kind_of
from tally.store.logs import log as logfile
from tally.store.recording.results import check

PHONE = {"width": 390, "height": 844}
GAMES = registry.names()


def page_moves(game: str, events: list[Event], start: int, end: int) -> list[tuple[str | None, str, int]]:
    """The moves a table's pages enter for `events[start:end]`: (whose page, the move, how many events it records).
    Splendor's setup is one move, every noble and card turned up in one `reveal` (its composed picker)."""
    spec = registry.get(game)
    moves: list[tuple[str | None, str, int]] = []
    index = start
    while index < end:
        event = events[index]
        player = getattr(event, "player", None) or None
        move = spec.format(event)
        if game == "splendor" and index == 1:  # the setup: the nobles and the twelve cards
            setup = [e for e in events[1:] if kind_of(spec.format(e)) == "reveal"][:16]
            moves.append((None, "reveal " + " ".join(spec.format(e).split(" ", 1)[1] for e in setup), len(setup)))
            index += len(setup)
            continue
        moves.append((player, move, 1))
        index += 1
    return moves


# Array's random tables never draw (a draw is the move of a seat that can lay nothing): its opening is one where p1's
# hand holds no colour of the starting card, so p1 names the card it draws
ARRAY_OPENING = [
    "p3: hand boy bo bry gy bgo gor gory",
    "p2: hand bo goy s1 goy s5 slam or",
    "p1: hand by oy by s2 s3 s4 oy",
    "start gr",
    "p1: draw bg",
]
OPENINGS = {"split": 6, "splice": 11, "splendor": 23}  # the transcript's hands, the table's first entries, a draw


def opening(game: str) -> list[Event]:
    """A seated table's opening, to be entered by taps: every hand, the table's first entries and a seat's draw."""
    events = seated(game)
    if game != "array":
        return events[: OPENINGS[game]]
    spec = registry.get(game)
    table = Table(spec, events[0])  # type: ignore[arg-type]
    found = [events[0]]
    for move in ARRAY_OPENING:
        parsed = spec.parse(table.state, move)
        assert isinstance(parsed, list) and len(parsed) == 1 and spec.check(table.state, parsed[0]) == [], move
        found.append(msgspec.structs.replace(parsed[0], seq=len(found) + 1))
        table.apply(parsed[0])
    return found


def play(
    browser: Any,
    folder: Path,
    game: str,
    ident: str,
    events: list[Event],
    start: int,
    end: int,
    taps: dict[str, list[int]],
) -> None:
    """`events[:start]` served as game `ident`; three phones join its seats and enter `events[start:end]` by taps
    (a table entry from the host's page, phone-sized too), each page checked after every redraw; `taps` gathers the
    taps each kind of move took."""
    write_log(folder / f"{ident}.jsonl", events[:start])
    seats = list(events[0].seats)  # type: ignore[attr-defined]
    with serving(folder) as served:
        code = served.join_code(ident)
        phones = {}
        for seat in seats:
            phones[seat] = open_page(browser, served, ident, PHONE)
            join(phones[seat], seat, code)
        host = open_page(browser, served, ident, PHONE, host=True)
        for phone in phones.values():  # the pickers' cards and tabs are thumb-sized too
            wait_seq(phone, start)
            assert small_targets(phone) == []
        seq = start
        for player, move, count in page_moves(game, events, start, end):
            page = phones[player] if player else host
            for phone in (*phones.values(), host):
                wait_seq(phone, seq)
                assert walls(phone) == [], f"{game} #{seq}: an unfolded group of more than {MOST_BUTTONS} buttons"
            taps.setdefault(kind_of(move), []).append(enter(page, move))
            seq += count
            for phone in (*phones.values(), host):
                wait_seq(phone, seq)
            assert f"#{seq - count + 1} " in page.inner_text("#said"), page.inner_text("#said")
        for seat, phone in phones.items():
            bottom = own_hand_bottom(phone, seat)
            assert bottom is not None and bottom <= PHONE["height"], f"{seat}'s own hand ends at {bottom}px"
            assert phone.locator("#move-text").input_value() == "" and phone.errors == []
    assert bare(logfile.read(folder / f"{ident}.jsonl").events) == bare(events[:end])
    assert check(folder / f"{ident}.jsonl").ok


def bare(events: list[Event]) -> list[dict[str, Any]]:
    """Events without the time of recording, the hash chain, the salts, how many were written together (a whole
    setup's reveal is one write) and whose device entered them."""
    return [
        {k: v for k, v in msgspec.to_builtins(e).items() if k not in ("at", "prev", "salt", "unit", "by")}
        for e in events
    ]


@pytest.mark.parametrize("game", GAMES)
def test_a_table_of_phones_enters_hands_reveals_and_draws_by_taps(browser: Any, tmp_path: Path, game: str) -> None:
    events = opening(game)
    taps: dict[str, list[int]] = {}
    play(browser, tmp_path, game, "opening", events, 1, len(events), taps)
    spec = registry.get(game)
    groups = {piece.code: piece.group for piece in spec.pieces(spec.start(events[0]))}  # type: ignore[arg-type]
    hands = [spec.format(e).split(" ")[2:] for e in events if kind_of(spec.format(e)) == "hand"]
    for cards, tapped in zip(hands, taps.get("hand", [])):
        named = [card for card in cards if card in groups]
        switches = sum(1 for a, b in zip([None, *named], named) if a is None or groups[a] != groups[b])
        # a tap per card, one per change of group (tapped in the transcript's order; suit by suit needs fewer)
        assert tapped <= len(named) + switches * len(groups[named[0]]) + 2, (cards, tapped)
    assert {"draw", "reserve"} & set(taps), taps
    if game == "splendor":
        assert taps["reveal"][0] <= 16 + 2 * 16 + 1, taps  # sixteen cards, their level and colour tabs, one Record


# --------------------------------------------------------------------------- no wall of buttons, anywhere

FIXTURES = {
    "split": "split-seated-3p",
    "splendor": "splendor-table-3p",
    "array": "array-table-3p",
    "splice": "splice-seated-3p",
}


def unoffered(page: Any, served: Any, ident: str) -> list[str]:
    """The host's legal moves its page offers in no way: neither a button nor a picker's choice, nor in a composed
    picker that takes its kind (each is on the page, once its group is opened)."""
    status, listing = served.api("GET", f"/api/games/{ident}/moves")
    assert status == 200
    status, names = served.api("GET", f"/api/games/{ident}/names")
    assert status == 200
    buttons = set(page.eval_on_selector_all("#moves button[data-move]", "bs => bs.map(b => b.dataset.move)"))
    heads = set(page.eval_on_selector_all("#moves .picker", "ps => ps.map(p => p.dataset.head)"))
    shown = [naming for naming in names["namings"] if naming["head"] in heads]
    chosen = {choice["move"] for naming in shown for choice in naming["choices"] or []}
    taken = {(naming["kind"], naming["player"]) for naming in shown if naming["takes_listed"]}

    def player(move: str) -> str | None:
        head, _, rest = move.partition(": ")
        return head if rest and " " not in head else None

    return [
        move
        for move in listing["moves"]
        if move not in buttons and move not in chosen and (kind_of(move), player(move)) not in taken
    ]


@pytest.mark.parametrize("game", GAMES)
def test_no_position_shows_a_wall_of_buttons(browser: Any, tmp_path: Path, game: str) -> None:
    """At positions spread over a bundled game, the host's page, phone-sized (it shows every seat's moves): no
    unfolded group of more than a dozen buttons, and every legal move is a button or a picker's choice."""
    lines = (GAMES_DIR / f"{FIXTURES[game]}.jsonl").read_bytes().splitlines(keepends=True)
    cuts = sorted({2, 3, 4, 6, 10, *range(12, len(lines) - 1, max(1, len(lines) // 6))})
    for cut in cuts:
        (tmp_path / f"at{cut}.jsonl").write_bytes(b"".join(lines[:cut]))
    with serving(tmp_path) as served:
        for cut in cuts:
            ident = f"at{cut}"
            host = open_page(browser, served, ident, PHONE, host=True)
            wait_seq(host, cut)
            assert walls(host) == [], (ident, walls(host))
            assert unoffered(host, served, ident) == [], ident
            assert host.errors == []
            host.context.close()


def test_what_a_phone_picked_survives_another_seats_move(browser: Any, tmp_path: Path) -> None:
    """p1 has tapped two cards of its hand when p3's hand arrives and redraws p1's page: the two are still picked, and
    p1 finishes its hand from there."""
    events = opening("split")
    write_log(tmp_path / "g.jsonl", events[:2])  # the deal: every seat owes its hand
    spec = registry.get("split")
    hands = {e.player: spec.format(e) for e in events if kind_of(spec.format(e)) == "hand"}  # type: ignore[attr-defined]
    with serving(tmp_path) as served:
        code = served.join_code("g")
        p1, p3 = (open_page(browser, served, "g", PHONE) for _ in range(2))
        join(p1, "p1", code)
        join(p3, "p3", code)
        cards = hands["p1"].split(" ")[2:]
        picker = p1.locator("#moves .picker[data-kind=hand]")
        for card in cards[:2]:
            pick_piece(p1, picker, card)
        enter(p3, hands["p3"])
        wait_seq(p1, 3)
        picker = p1.locator("#moves .picker[data-kind=hand]")
        assert picker.locator("[data-picked]").evaluate_all("bs => bs.map(b => b.dataset.picked)") == cards[:2]
        for card in cards[2:]:
            pick_piece(p1, picker, card)
        picker.locator(f'button[data-move="{hands["p1"]}"]').click()
        wait_seq(p3, 4)
        assert not p1.errors and not p3.errors


def test_a_seat_that_draws_twice_finds_its_picker_empty(browser: Any, tmp_path: Path) -> None:
    """Splice: ana draws a 6 with the picker, then draws again at once. The picker she is shown for the second draw
    holds nothing picked (it kept the 6, so that only another 6 could be picked, and the wild she drew could not)."""
    events = list(logfile.read(GAMES_DIR / "phones" / "splice-3p.jsonl").events)
    spec = registry.get("splice")
    assert [spec.format(e) for e in events[12:14]] == ["ana: draw 6", "ana: draw wild"]
    write_log(tmp_path / "g.jsonl", events[:12])
    with serving(tmp_path) as served:
        ana = open_page(browser, served, "g", PHONE)
        join(ana, "ana", served.join_code("g"))
        wait_seq(ana, 12)
        enter(ana, "ana: draw 6")
        wait_seq(ana, 13)
        picker = ana.locator("#moves .picker[data-head='ana: draw']")
        assert picker.locator("[data-picked]").count() == 0
        assert picker.locator("button.record").is_disabled()
        enter(ana, "ana: draw wild")
        wait_seq(ana, 14)
        assert ana.errors == []
    assert bare(logfile.read(tmp_path / "g.jsonl").events) == bare(events[:14])
