"""`tally serve`'s seats and secrets: tokens and join codes, what each seat may do, the leak test over every
game (each event kind, each seat), the security cases, and one real socket."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from support import array_helpers, splice_helpers, split_helpers
from support.harness import concealed_names, strings_in
from support.serve_helpers import AUTH, bearer, client, run, transcript, write_log
from tally.cli.docs import JSON_KEYS
from tally.core import registry
from tally.core.engine import Table
from tally.core.model import SHARED_RULES
from tally.store.logs import log as logfile
from tally.store.recording.results import check, move_report
from tally.store.recording.service import GameRecord, seat_moves
from tally.store.serving import seats as seating
from tally.store.serving.tables import WATCHER

GAMES = registry.names()


async def seat_token(http: Any, seat: str) -> str:
    joined = await http.post("/api/games/g/join", json={"seat": seat}, headers=AUTH)
    assert joined.status_code == 201, joined.text
    return str(joined.json()["token"])


def words(text: str) -> set[str]:
    return {w.strip("~?") for w in re.split(r"[\s,;:|+()=\[\]{}\"]+", text) if w}


def secrets_of(spec: Any, state: Any, viewer: str) -> set[str]:
    """What the log knows that `viewer` may not: every name the game's `conceal` takes out of the state, where it
    takes it out (another seat's hand, a blind reserve, a pile tally dealt), except a name the caller's own view
    (`tally state --as`, checked in test_seats.py) shows it elsewhere, such as another copy laid face up."""
    shown = {
        s.strip("~?")
        for s in strings_in(spec.view(spec.conceal(state, viewer) if viewer == WATCHER else state, viewer))
    }
    return {s.strip("~?") for s in concealed_names(state, spec.conceal(state, viewer))} - shown - prose(spec) - {""}


def counted(view: dict[str, Any]) -> set[str]:
    """The numbers a view's sentences count with (`p1 must draw 3 cards`): a card named by a number (Splice's coins)
    cannot be told from them there, so they are not looked for in them (the twin test of test_secrets.py compares
    every answer whole)."""
    sentences = (
        [view.get("expected"), *(view.get("pending") or {}).values()]
        if isinstance(view.get("pending"), dict)
        else [view.get("expected"), view.get("pending")]
    )
    return {word for text in sentences if isinstance(text, str) for word in words(text) if word.isdigit()}


def prose(spec: Any) -> set[str]:
    """The words of a game's rule texts: a card named like one (Array's `or`, orange and red) cannot be told from the
    word in an answer's English, so it is not looked for."""
    return set().union(*(words(rule.text.lower()) for rule in (*spec.rules, *SHARED_RULES)))


@pytest.mark.parametrize("game", GAMES)
def test_no_seat_ever_reads_another_seats_hidden_cards(tmp_path: Path, game: str) -> None:
    """Each event of a table-mode game whose seats enter their own hidden cards, appended one at a time: every
    seat's (and a watcher's) view, listing and event lines hold no name that the game's `conceal` hides from it."""
    _walk_every_seat(tmp_path, game, transcript(game, seed=7))


# the games whose table-mode deal may leave the seated hands (Splice: and disks) for each seat to name (`hand_named`)
BY_SEAT = {
    "split": split_helpers.hands_by_seat,
    "array": array_helpers.hands_by_seat,
    "splice": splice_helpers.hands_by_seat,
}


@pytest.mark.parametrize("game", sorted(BY_SEAT))
def test_no_seat_reads_a_hand_another_seat_named(tmp_path: Path, game: str) -> None:
    """The same walk where every deal leaves the hands out and each seat names its own (`hand_named`)."""
    events = BY_SEAT[game](transcript(game, seed=7))
    assert any(type(event).__name__ == "HandNamed" for event in events)
    if game == "splice":  # a Hurricane's reshuffle leaves every seat's new disk to that seat too
        assert any(type(event).__name__ == "DisksRedrawn" and not event.disks for event in events)
    _walk_every_seat(tmp_path, game, events)


def _walk_every_seat(tmp_path: Path, game: str, events: list[Any]) -> None:
    spec = registry.get(game)
    names = list(events[0].seats)
    write_log(tmp_path / "g.jsonl", events[:1])
    table = Table(spec, msgspec.structs.replace(events[0], seq=1))
    kinds: set[str] = set()
    looked: list[bool] = []  # for each seat and position: whether anything was hidden from it to look for

    async def scenario() -> None:
        async with client(tmp_path) as http:
            tokens = {name: bearer(await seat_token(http, name)) for name in names}
            tokens[WATCHER] = {}
            # what each caller knew already: what it named in its own moves (a Splatter's pick-up it named) and what
            # its view ever showed it (a card of its hand another seat then drew from it blind)
            entered: dict[str, set[str]] = {name: set() for name in tokens}
            for seq, event in enumerate(events[1:], 2):
                with logfile.Locked(tmp_path / "g.jsonl") as locked:  # another writer appends the next event
                    log = locked.read()
                    locked.append(seq - 1, log.last_hash, [msgspec.structs.replace(event, seq=seq)])
                table.apply(msgspec.structs.replace(event, seq=seq))
                kinds.add(type(event).__name__)
                if (
                    getattr(event, "player", None) in entered
                ):  # it knows what it entered (a Splatter's pick-up it named)
                    entered[event.player] |= words(spec.format(event))
                for viewer, headers in tokens.items():
                    hidden = secrets_of(spec, table.state, viewer) - entered[viewer]
                    looked.append(bool(hidden))
                    shown = (await http.get("/api/games/g", headers=headers)).json()
                    seen = spec.conceal(table.state, viewer) if viewer == WATCHER else table.state
                    assert shown == {
                        **msgspec.to_builtins(spec.view(seen, viewer)),
                        "seq": seq,
                        "fingerprint": shown["fingerprint"],
                    }
                    line = (await http.get(f"/api/games/g/events?after={seq - 1}", headers=headers)).json()["events"]
                    assert [e["seq"] for e in line] == [seq]
                    listing = (await http.get("/api/games/g/moves", headers=headers)).json()
                    # the seat's possible moves, from the table as it knows it (`tally moves --as`): every card it
                    # cannot place is listed alike, so naming one tells nothing
                    assert listing["moves"] == [spec.format(m) for m in seat_moves(spec, table.state, viewer)]
                    read = set().union(*(words(s) for s in strings_in([shown, line]))) - counted(shown)
                    leaked = hidden & read
                    assert not leaked, (viewer, seq, spec.format(event), leaked)
                    entered[viewer] |= set().union(*(words(s) for s in strings_in(shown)))

    run(scenario())
    assert len(kinds) >= 5, kinds
    # the walk bites: at many positions some card was hidden from the seat (a walk where nothing is hidden proves nothing)
    assert 6 * sum(looked) >= len(looked), (sum(looked), len(looked))


def test_a_seat_records_its_own_moves_only(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post(
                "/api/games",
                json={"id": "g", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 1},
                headers=AUTH,
            )
            ana, ben = bearer(await seat_token(http, "ana")), bearer(await seat_token(http, "ben"))
            listing = (await http.get("/api/games/g/moves", headers=ana)).json()
            move = {"move": listing["moves"][0], "expected_seq": listing["seq"]}
            other = await http.post("/api/games/g/moves", json=move, headers=ben)
            assert other.status_code == 403 and other.json()["error"] == "serve.seat.other"
            watcher = await http.post("/api/games/g/moves", json=move)
            assert watcher.status_code == 403 and watcher.json()["error"] == "serve.watcher"
            unknown = await http.post("/api/games/g/moves", json=move, headers=bearer("not-a-token"))
            assert unknown.status_code == 401 and unknown.json()["error"] == "serve.token.unknown"
            assert (await http.get("/api/games")).json()[0]["seq"] == listing["seq"]  # nothing appended
            assert (await http.post("/api/games/g/moves", json=move, headers=ana)).status_code == 201
            undo = await http.post(
                "/api/games/g/undo", json={"reason": "no", "expected_seq": listing["seq"] + 1}, headers=ben
            )
            assert undo.status_code == 403
            note = await http.post(
                "/api/games/g/notes", json={"text": "ben's remark", "expected_seq": listing["seq"] + 1}, headers=ben
            )
            assert note.status_code == 201
            assert logfile.read(tmp_path / "g.jsonl").events[-1].player == "ben"  # type: ignore[attr-defined]

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


def test_each_seat_names_its_own_dealt_hand_from_its_phone(tmp_path: Path) -> None:
    """Split with both seats seated: the host enters the deal's row card alone, each phone its own hand (another
    seat's refused, 403), play waits for both hands and then starts; neither reads the other's hand."""
    ana_hand, ben_hand = " ".join(split_helpers.ANN), " ".join(split_helpers.BEN)

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "split", "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            ana, ben = bearer(await seat_token(http, "ana")), bearer(await seat_token(http, "ben"))
            dealt = await http.post("/api/games/g/moves", json={"move": "deal QSR", "expected_seq": 1}, headers=AUTH)
            assert dealt.status_code == 201, dealt.text
            for headers in (ana, ben):
                listing = (await http.get("/api/games/g/moves", headers=headers)).json()
                assert "ana, ben to name their own dealt hand" in listing["expected"] and listing["moves"] == []
                assert listing["waiting_on"] == ["ana", "ben"]
            other = await http.post(
                "/api/games/g/moves", json={"move": f"ana: hand {ana_hand}", "expected_seq": 2}, headers=ben
            )
            assert other.status_code == 403 and other.json()["error"] == "serve.seat.other"
            early = await http.post(
                "/api/games/g/moves", json={"move": "ana: draw 8HL", "expected_seq": 2}, headers=ana
            )
            assert early.status_code == 422 and "core.seat.hand-owed" in early.text
            named = await http.post(
                "/api/games/g/moves", json={"move": f"ben: hand {ben_hand}", "expected_seq": 2}, headers=ben
            )
            assert named.status_code == 201, named.text
            listing = (await http.get("/api/games/g/moves", headers=ana)).json()
            assert listing["expected"].startswith("ana to name their own dealt hand")
            assert listing["waiting_on"] == ["ana"]
            seen_by_ana = json.dumps(
                [
                    (await http.get("/api/games/g", headers=ana)).json(),
                    (await http.get("/api/games/g/events?after=0", headers=ana)).json(),
                ]
            )
            assert "7CR" not in seen_by_ana and "9DR" not in seen_by_ana  # two of ben's cards
            named = await http.post(
                "/api/games/g/moves", json={"move": f"ana: hand {ana_hand}", "expected_seq": 3}, headers=ana
            )
            assert named.status_code == 201, named.text
            listing = (await http.get("/api/games/g/moves", headers=ana)).json()
            assert "ana: draw 8HL" in listing["moves"]
            drawn = await http.post(
                "/api/games/g/moves", json={"move": "ana: draw 8HL", "expected_seq": 4}, headers=ana
            )
            assert drawn.status_code == 201, drawn.text
            seen_by_ben = json.dumps(
                [
                    (await http.get("/api/games/g", headers=ben)).json(),
                    (await http.get("/api/games/g/events?after=0", headers=ben)).json(),
                ]
            )
            assert "7CR" in seen_by_ben  # his own, which he sees
            assert "7DR" not in seen_by_ben and "8HL" not in seen_by_ben  # two of ana's cards

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


# Array and Splice at a table of two phones: the table's entries by the host, each seat's own hand by that seat
SEAT_BY_SEAT = {
    "array": (
        [],
        [f"ana: hand {' '.join(array_helpers.ANN)}", f"ben: hand {' '.join(array_helpers.BEN)}"],
        ["start br"],
        "ana: draw",
        ("bor", "slam"),
        ("bgy", "s1"),
    ),
    "splice": (
        ["disks", "deal"],
        ["ana: hand 5 5 2 skull piracy disk r", "ben: hand 9 9 6 7 trade disk b"],
        [],
        "ana: draw",
        ("skull", "piracy"),
        ("trade",),
    ),
}


@pytest.mark.parametrize("game", sorted(SEAT_BY_SEAT))
def test_each_phone_names_its_own_dealt_hand(tmp_path: Path, game: str) -> None:
    """Both seats seated, the deal leaving their hands (Splice: and disks) out: each phone names its own (another
    seat's refused, 403), the listing of a seat still owing says how, nothing else is played until both have, and
    neither reads the other's hand."""
    setup, hands, entries, early_move, ana_secrets, ben_secrets = SEAT_BY_SEAT[game]

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": game, "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            seq = 1
            for move in setup:
                answer = await http.post("/api/games/g/moves", json={"move": move, "expected_seq": seq}, headers=AUTH)
                assert answer.status_code == 201, answer.text
                seq += 1
            ana, ben = bearer(await seat_token(http, "ana")), bearer(await seat_token(http, "ben"))
            for headers in (ana, ben):
                listing = (await http.get("/api/games/g/moves", headers=headers)).json()
                assert "ana, ben to name their own dealt hand" in listing["expected"] and listing["moves"] == []
                assert listing["waiting_on"] == ["ana", "ben"]  # both are due at once, whoever `to_act` names
            other = await http.post("/api/games/g/moves", json={"move": hands[0], "expected_seq": seq}, headers=ben)
            assert other.status_code == 403 and other.json()["error"] == "serve.seat.other"
            early = await http.post("/api/games/g/moves", json={"move": early_move, "expected_seq": seq}, headers=ana)
            assert early.status_code == 422 and "core.seat.hand-owed" in early.text
            named = await http.post("/api/games/g/moves", json={"move": hands[1], "expected_seq": seq}, headers=ben)
            assert named.status_code == 201, named.text
            seq += 1
            listing = (await http.get("/api/games/g/moves", headers=ana)).json()
            assert listing["expected"].startswith("ana to name their own dealt hand")
            assert listing["waiting_on"] == ["ana"]
            seen_by_ana = words(
                json.dumps(
                    [
                        (await http.get("/api/games/g", headers=ana)).json(),
                        (await http.get("/api/games/g/events?after=0", headers=ana)).json(),
                    ]
                )
            )
            assert not seen_by_ana & set(ben_secrets)
            named = await http.post("/api/games/g/moves", json={"move": hands[0], "expected_seq": seq}, headers=ana)
            assert named.status_code == 201, named.text
            seq += 1
            for move in entries:
                answer = await http.post("/api/games/g/moves", json={"move": move, "expected_seq": seq}, headers=AUTH)
                assert answer.status_code == 201, answer.text
                seq += 1
            listing = (await http.get("/api/games/g/moves", headers=ana)).json()
            assert listing["moves"] and "own dealt hand" not in listing["expected"]  # play has started
            assert listing["waiting_on"] == [listing["to_act"]] == ["ana"]
            seen_by_ben = words(
                json.dumps(
                    [
                        (await http.get("/api/games/g", headers=ben)).json(),
                        (await http.get("/api/games/g/events?after=0", headers=ben)).json(),
                    ]
                )
            )
            assert set(ben_secrets) <= seen_by_ben  # his own, which he sees
            assert not seen_by_ben & set(ana_secrets)

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


def test_a_line_that_tells_nothing_hidden_is_shown_in_full(tmp_path: Path) -> None:
    """Split with ana seated: her take of the row's card is read in full by ben and a watcher (they saw the card
    go), her draw named from the pile only as hidden; ben's own unseen draw is plain to all."""
    ana_hand = " ".join(split_helpers.ANN)

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "split", "players": ["ana", "ben"], "seated": ["ana"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            ben = bearer(await seat_token(http, "ben"))
            for seq, move in enumerate(
                [
                    "deal 9SR",
                    f"ana: hand {ana_hand}",
                    "ana: take 9SR",
                    "ana: match 9SL 9SR",
                    "ana: skip",
                    "ana: discard 2HL",
                    "ben: draw",
                    "ben: discard 4HL",
                    "ana: draw 8HL",
                ],
                1,
            ):
                answer = await http.post("/api/games/g/moves", json={"move": move, "expected_seq": seq}, headers=AUTH)
                assert answer.status_code == 201, (move, answer.text)
            for headers in (ben, {}):
                lines = {
                    line["seq"]: line["text"]
                    for line in (await http.get("/api/games/g/events?after=0", headers=headers)).json()["events"]
                }
                assert lines[4] == "ana: take 9SR" and lines[5] == "ana: match 9SL+9SR"
                assert lines[3] == "ana: hand_named (hidden)" and lines[10] == "ana: card_drawn (hidden)"
                assert lines[8] == "ben: draw"

    run(scenario())


def test_each_phone_names_its_own_disk_after_a_reshuffle(tmp_path: Path) -> None:
    """Splice, both seats seated: the host's reshuffle after a Hurricane leaves both new disks out; each phone names
    its own (another seat's refused, 403), nothing else is played until both have, and neither reads the other's."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "splice", "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            seq = 1
            for move in ("disks ana r ben b", "deal hurricane ben | ana 5 5 2 skull piracy | ben 9 9 6 7", "reshuffle"):
                answer = await http.post("/api/games/g/moves", json={"move": move, "expected_seq": seq}, headers=AUTH)
                assert answer.status_code == 201, answer.text
                seq += 1
            ana, ben = bearer(await seat_token(http, "ana")), bearer(await seat_token(http, "ben"))
            listing = (await http.get("/api/games/g/moves", headers=ben)).json()
            assert listing["expected"].startswith("ana, ben to name their own disk drawn again")
            # ben names his own, any colour he cannot place elsewhere (ana's is hidden from him): never ana's
            assert listing["moves"] == [f"ben: hand disk {colour}" for colour in "rbgyp"]
            assert listing["waiting_on"] == ["ana", "ben"]
            other = await http.post(
                "/api/games/g/moves", json={"move": "ana: hand disk g", "expected_seq": seq}, headers=ben
            )
            assert other.status_code == 403 and other.json()["error"] == "serve.seat.other"
            early = await http.post(
                "/api/games/g/moves", json={"move": "ben: draw 8", "expected_seq": seq}, headers=ben
            )
            assert early.status_code == 422 and "core.seat.hand-owed" in early.text
            named = await http.post(
                "/api/games/g/moves", json={"move": "ben: hand disk y", "expected_seq": seq}, headers=ben
            )
            assert named.status_code == 201, named.text
            seq += 1
            taken = await http.post(
                "/api/games/g/moves", json={"move": "ana: hand disk y", "expected_seq": seq}, headers=ana
            )
            # ben holds yellow, which ana cannot see: she is told only that her entry contradicts another seat's, and
            # the host sees which
            assert taken.status_code == 422 and taken.json()["rulings"][0]["rule"] == "core.seat.conflict", taken.text
            assert " ben" not in taken.text and "yellow" not in taken.text
            conflicts = (await http.get("/api/games/g/conflicts", headers=AUTH)).json()
            assert [(c["seat"], c["move"]) for c in conflicts] == [("ana", "ana: hand disk y")]
            assert conflicts[0]["rulings"][0]["rule"] == "splice.hurricane.reshuffle"
            assert (await http.get("/api/games/g/conflicts", headers=ana)).status_code == 403
            named = await http.post(
                "/api/games/g/moves", json={"move": "ana: hand disk g", "expected_seq": seq}, headers=ana
            )
            assert named.status_code == 201, named.text
            seq += 1
            for viewer, own, hidden in ((ana, "g", "y"), (ben, "y", "g")):
                shown = (await http.get("/api/games/g", headers=viewer)).json()
                line = (await http.get("/api/games/g/events?after=3", headers=viewer)).json()["events"]
                assert sorted(seat["disk"] for seat in shown["players"]) == ["?", own]
                assert hidden not in words(json.dumps(line)) and len(line) == 3
                assert f"hand disk {own}" in [event["text"].split(": ", 1)[-1] for event in line]  # its own in full
            listing = (await http.get("/api/games/g/moves", headers=ben)).json()
            assert listing["moves"] and "disk drawn again" not in listing["expected"]  # ben's replacement draw is next
            assert listing["waiting_on"] == ["ben"]
            drawn = await http.post(
                "/api/games/g/moves", json={"move": "ben: draw 8", "expected_seq": seq}, headers=ben
            )
            assert drawn.status_code == 201, drawn.text

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


def test_join_codes_tokens_on_disk_and_a_restart(tmp_path: Path) -> None:
    async def scenario() -> str:
        async with client(tmp_path) as http:
            await http.post(
                "/api/games",
                json={"id": "g", "game": "split", "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            assert len(seating.typed_code(code)) == seating.CODE_LENGTH
            assert (await http.post("/api/games/g/code")).status_code == 403  # only the host sees a code
            joined = await http.post("/api/games/g/join", json={"seat": "ANA", "code": code.lower()})
            assert joined.status_code == 201 and joined.json()["seat"] == "ana"
            token = joined.json()["token"]
            assert len(token) >= 43  # 32 random bytes
            nobody = await http.post("/api/games/g/join", json={"seat": "zed", "code": code})
            assert nobody.status_code == 400
            return str(token)

    token = run(scenario())
    side = (tmp_path / "g.seats.json").read_text()
    assert token not in side and seating.digest(token) in side  # the hash, never the token

    async def restarted() -> None:
        async with client(tmp_path) as http:
            shown = await http.get("/api/games/g", headers=bearer(token))
            assert shown.status_code == 200 and shown.json()["viewer"] == "ana"

    run(restarted())


def device(app: Any, address: str) -> httpx.AsyncClient:
    """A client of the app from its own address (a phone of the table's network)."""
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app, client=(address, 40000)), base_url="http://table")


def test_wrong_codes_hold_back_the_address_that_sent_them_not_the_game(tmp_path: Path) -> None:
    """Reproduction: any device sending 5 wrong codes a minute made the right code of every phone answer 429 (the
    limit was the game's). Now the limit is the address's: the guesser is refused (429, `Retry-After`), a phone of
    another address joins with the right code at once."""
    from support.serve_helpers import HOST
    from tally.serve.app import create_app
    from tally.serve.http import GUESSES

    app = create_app(tmp_path, HOST)

    async def scenario() -> None:
        async with device(app, "10.0.0.66") as guesser, device(app, "10.0.0.7") as phone:
            made = await guesser.post(
                "/api/games",
                json={"id": "g", "game": "split", "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            assert made.status_code == 201
            code = (await guesser.post("/api/games/g/code", headers=AUTH)).json()["code"]
            for _ in range(GUESSES):
                wrong = await guesser.post("/api/games/g/join", json={"seat": "ben", "code": "AAAA-AAAA-AAAA"})
                assert wrong.status_code == 403 and wrong.json()["error"] == "serve.join.code"
            limited = await guesser.post("/api/games/g/join", json={"seat": "ben", "code": code})
            assert limited.status_code == 429 and limited.json()["error"] == "serve.join.rate-limited"
            assert int(limited.headers["retry-after"]) > 0
            joined = await phone.post("/api/games/g/join", json={"seat": "ben", "code": code})
            assert joined.status_code == 201, joined.text

    run(scenario())


def test_a_join_code_is_long_enough_that_no_game_needs_a_limit(tmp_path: Path) -> None:
    """Reproduction: a join code was 8 letters (40 bits), guessable at a server's rate from many addresses without a
    limit per game. Now it is 12 letters of 32 (60 bits: 2^60 codes), shown in groups of 4."""
    seats = seating.FileSeats(tmp_path / "g.jsonl")
    for _ in range(20):
        code = seats.new_code()
        letters = seating.typed_code(code)
        assert len(letters) == 12 and set(letters) <= set(seating.CODE_ALPHABET) and code.count("-") == 2
        assert seats.join("ana", code.lower().replace("-", " ")) is not None  # typed in any case, any grouping
        seats = seating.FileSeats(tmp_path / f"g{_}.jsonl")
    assert len(seating.CODE_ALPHABET) ** seating.CODE_LENGTH >= 2**60


def test_a_taken_seat_and_a_wrong_code_get_one_answer(tmp_path: Path) -> None:
    """Reproduction: the right code for a seat a device held answered 409 `serve.join.taken`, a wrong code 403: a
    guesser learned when it had found the code. Now both answer the same status, id and message, and both count as
    a wrong code of the address."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post("/api/games", json={"id": "g", "game": "split", "players": ["ana", "ben"]}, headers=AUTH)
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            grouped = code.split("-")
            assert len(grouped) == 3 and all(len(group) == 4 for group in grouped)
            assert (
                await http.post("/api/games/g/join", json={"seat": "ana", "code": " " + "".join(grouped).lower()})
            ).status_code == 201  # typed without its dashes, in lower case
            taken = await http.post("/api/games/g/join", json={"seat": "ana", "code": code})
            wrong = await http.post("/api/games/g/join", json={"seat": "ben", "code": "AAAA-AAAA-AAAA"})
            assert (taken.status_code, taken.json()) == (wrong.status_code, wrong.json()) == (403, wrong.json())
            assert wrong.json()["error"] == "serve.join.code"

    run(scenario())


def test_a_body_not_sent_as_json_reaches_no_route(tmp_path: Path) -> None:
    """Reproduction: a page of any other site could make a phone's browser POST the join route (or any other) with
    a plain-text or form body, which a browser sends cross-site without asking: it took a seat with a code. Now a
    body whose type is not `application/json` is refused with 415 `serve.body.content-type`, before any route, and
    nothing is recorded; a request without a body, and JSON with a charset, pass."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post("/api/games", json={"id": "g", "game": "split", "players": ["ana", "ben"]}, headers=AUTH)
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            body = msgspec.json.encode({"seat": "ana", "code": code})
            for kind in (
                "text/plain",
                "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x",
                None,
                "application/jsonx",
            ):
                headers = {"Content-Type": kind} if kind else {}
                refused = await http.post("/api/games/g/join", content=body, headers=headers)
                assert refused.status_code == 415 and refused.json()["error"] == "serve.body.content-type", kind
                moved = await http.post(
                    "/api/games/g/notes", content=b'{"text": "x", "expected_seq": 1}', headers={**AUTH, **headers}
                )
                assert moved.status_code == 415, kind
            joined = await http.post(
                "/api/games/g/join", content=body, headers={"Content-Type": "Application/JSON; charset=utf-8"}
            )
            assert joined.status_code == 201, joined.text

    run(scenario())
    assert len(logfile.read(tmp_path / "g.jsonl").events) == 1  # nothing recorded by the refused notes


def test_refusals_are_json_with_a_stable_id_never_a_traceback(tmp_path: Path) -> None:
    logfile.create(tmp_path / "g.jsonl", [msgspec.structs.replace(transcript("splendor", 1)[0], seq=1)])
    (tmp_path / "secret.txt").write_text("x")

    async def scenario() -> None:
        async with client(tmp_path) as http:
            cases = [
                ("GET", "/nowhere", None, 404, "serve.route.unknown"),
                ("DELETE", "/api/games", None, 405, "serve.method"),
                ("GET", "/api/games/secret.txt", None, 404, "serve.game.unknown"),
                ("GET", "/api/games/..%2Fsecret", None, 404, "serve.route.unknown"),
                ("GET", "/api/games/..%2Fsecret/moves", None, 404, "serve.route.unknown"),
                ("GET", "/api/games/%2e%2e", None, 400, "serve.game.id"),
                ("GET", "/api/games/nope/moves", None, 404, "serve.game.unknown"),
                ("POST", "/api/games/g/notes", b"{not json", 400, "serve.json.malformed"),
                ("POST", "/api/games/g/notes", b'{"text": 3, "expected_seq": 1}', 400, "serve.body.invalid"),
                (
                    "POST",
                    "/api/games/g/notes",
                    b'{"text": "x", "expected_seq": 1, "extra": 1}',
                    400,
                    "serve.body.invalid",
                ),
                (
                    "POST",
                    "/api/games/g/notes",
                    b'{"text": "' + b"x" * 70_000 + b'", "expected_seq": 1}',
                    413,
                    "serve.body.too-large",
                ),
                ("GET", "/api/games/g/events?after=-1", None, 400, "serve.seq"),
            ]
            for method, path, body, status, error in cases:
                typed = {"Content-Type": "application/json"} if body is not None else {}
                answer = await http.request(method, path, content=body, headers={**AUTH, **typed})
                assert (answer.status_code, answer.json()["error"]) == (status, error), (path, answer.text)
                assert "Traceback" not in answer.text
            bad = await http.get("/api/games/g", headers={"Authorization": "Basic abc"})
            assert bad.status_code == 401 and bad.json()["error"] == "serve.token.malformed"
            preflight = await http.options(
                "/api/games", headers={"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
            )
            assert "access-control-allow-origin" not in preflight.headers  # no CORS
            assert preflight.status_code == 405

    run(scenario())
    assert len(logfile.read(tmp_path / "g.jsonl").events) == 1


def test_tally_serve_on_a_real_socket(tmp_path: Path) -> None:
    """`tally serve DIR --port 0 --json` on loopback: the line for scripts, a game made and a move recorded over
    HTTP, then the server killed: the acknowledged move is in the log."""
    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "tally"), "serve", str(tmp_path), "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        started = json.loads(process.stdout.readline())
        assert set(started) == set(JSON_KEYS["serve"])  # the keys docs/cli.md documents
        assert started["url"].startswith("http://127.0.0.1:") and len(started["token"]) >= 43
        with httpx.Client(base_url=started["url"], headers=bearer(started["token"]), timeout=30) as http:
            made = http.post(
                "/api/games", json={"id": "g", "game": "splendor", "players": ["ana", "ben"], "mode": "open", "seed": 3}
            )
            assert made.status_code == 201, made.text
            listing = http.get("/api/games/g/moves").json()
            moved = http.post("/api/games/g/moves", json={"move": listing["moves"][0], "expected_seq": listing["seq"]})
            assert moved.status_code == 201
        os.kill(process.pid, signal.SIGKILL)
        process.wait(30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(30)
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    log = logfile.read(tmp_path / "g.jsonl")
    assert log.fingerprint == moved.json()["fingerprint"] and check(tmp_path / "g.jsonl").ok


def test_tally_serve_refuses_what_it_cannot_serve(tmp_path: Path, tally: Any) -> None:
    missing = tally("serve", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "not a folder" in missing.stderr
    port = tally("serve", str(tmp_path), "--port", "70000")
    assert port.exit_code == 2 and "--port 70000" in port.stderr


def _with_secrets(spec: Any, events: list[Any], count: int) -> list[int]:
    """`count` positions (the number of events of a log cut there) spread over the game, each where some seat has
    cards hidden from it to look for."""
    table = Table(spec, msgspec.structs.replace(events[0], seq=1))
    found = []
    for seq, event in enumerate(events[1:], 2):
        table.apply(msgspec.structs.replace(event, seq=seq))
        if seq >= 10 and any(secrets_of(spec, table.state, name) for name in events[0].seats):
            found.append(seq)
    return [found[i * len(found) // count] for i in range(count)] if len(found) >= count else found


@pytest.mark.parametrize("game", GAMES)
def test_a_ruling_to_a_seat_names_nothing_hidden_from_it(tmp_path: Path, game: str) -> None:
    """The referee judges with every seat's cards; what it answers a seat about the seat's possible moves (legal,
    or refused for what another seat holds) names none of them."""
    spec = registry.get(game)
    # the first game from seed 3 on in which some card is hidden from a seat (in Splendor only a blind reserve is)
    events, checkpoints = next(
        (found, seqs)
        for seed in range(3, 40)
        for found in [transcript(game, seed=seed)]
        for seqs in [_with_secrets(spec, found, 4)]
        if seqs
    )
    names = list(events[0].seats)
    for seq in checkpoints:
        write_log(tmp_path / f"c{seq}.jsonl", events[:seq])
    asked = bitten = 0

    async def scenario() -> None:
        nonlocal asked, bitten
        async with client(tmp_path) as http:
            for seq in checkpoints:
                table = Table(spec, msgspec.structs.replace(events[0], seq=1))
                for number, event in enumerate(events[1:seq], 2):
                    table.apply(msgspec.structs.replace(event, seq=number))
                for name in names:
                    joined = await http.post(f"/api/games/c{seq}/join", json={"seat": name}, headers=AUTH)
                    headers = bearer(joined.json()["token"])
                    hidden = secrets_of(spec, table.state, name)
                    bitten += bool(hidden)
                    for move in seat_moves(spec, table.state, name)[:15]:
                        if getattr(move, "player", None) not in (name, None):
                            continue
                        ruled = await http.post(
                            f"/api/games/c{seq}/rule", json={"move": spec.format(move)}, headers=headers
                        )
                        assert ruled.status_code in (200, 422), ruled.text
                        asked += 1
                        said = set().union(*(words(s) for s in strings_in(ruled.json()))) - words(spec.format(move))
                        assert not hidden & said, (name, seq, spec.format(move), hidden & said)

    run(scenario())
    assert asked > 0
    assert bitten >= len(checkpoints) * len(names) // 2, bitten  # cards were hidden from the seats asking


@pytest.mark.parametrize("game", GAMES)
def test_a_question_about_another_seats_move_is_answered_from_what_the_asker_knows(tmp_path: Path, game: str) -> None:
    """Any seat (or a watcher) may ask whether another seat's move is legal; the answer is the referee's on the
    table as the asker knows it (the game's conceal), so it names none of the other seats' hidden cards, and it
    is what `GameRecord.propose(..., viewer=asker)` rules."""
    events = transcript(game, seed=5)
    spec = registry.get(game)
    names = list(events[0].seats)
    checkpoints = [seq for seq in (20, 60) if seq < len(events)]
    for seq in checkpoints:
        write_log(tmp_path / f"c{seq}.jsonl", events[:seq])
    asked = bitten = 0

    async def scenario() -> None:
        nonlocal asked, bitten
        async with client(tmp_path) as http:
            for seq in checkpoints:
                record = GameRecord.open(tmp_path / f"c{seq}.jsonl")
                for name in names:
                    joined = await http.post(f"/api/games/c{seq}/join", json={"seat": name}, headers=AUTH)
                    headers = bearer(joined.json()["token"])
                    hidden = secrets_of(spec, record.state, name)
                    bitten += bool(hidden)
                    for move in spec.legal_moves(record.state)[:10]:
                        if getattr(move, "player", None) in (name, None):
                            continue
                        text = spec.format(move)
                        ruled = await http.post(f"/api/games/c{seq}/rule", json={"move": text}, headers=headers)
                        assert ruled.status_code in (200, 422), ruled.text
                        asked += 1
                        # the question's own words (a card laid `gory@5.o` is named so in the answer too)
                        said = set().union(*(words(s) for s in strings_in(ruled.json()))) - words(
                            text.replace("@", " ")
                        )
                        assert not hidden & said, (name, seq, text, hidden & said)
                        expected = record.propose(text, viewer=name)
                        assert ruled.json()["verdict"] == move_report(expected).verdict, (name, seq, text)

    run(scenario())
    assert asked > 0
    assert bitten >= len(checkpoints) * len(names) // 2, bitten  # cards were hidden from the seats asking


@pytest.mark.parametrize("game", GAMES)
def test_a_seat_reads_its_own_moves_in_full(tmp_path: Path, game: str) -> None:
    """A seat's own events reach it as recorded (what it did and saw doing it), in open mode too, where tally
    dealt the chance its moves drew: never as `(hidden)`."""
    from tally.store.recording.service import describe
    from tally.store.serving.tables import Tables

    spec = registry.get(game)
    for mode, events in (("table", transcript(game, seed=11)), ("open", _open_game(game, seed=11))):
        write_log(tmp_path / f"{mode}.jsonl", events)
        served = Tables(tmp_path).game(mode)
        assert served is not None
        served.sync()
        for name in events[0].seats:
            lines = every_line(served.timeline, name)
            own = [line for line, event in zip(lines, events) if getattr(event, "player", None) == name]
            assert own, (mode, name)
            assert not [line for line in own if line.text.endswith("(hidden)")], (mode, name)
            assert [line.text for line in own] == [
                describe(spec, e) for e in events[1:] if getattr(e, "player", None) == name
            ]


def every_line(timeline: Any, viewer: str) -> list[Any]:
    """Every event line of a served log as `viewer` may see them, page by page."""
    lines: list[Any] = []
    while not lines or lines[-1].seq < timeline.seq:
        lines += timeline.lines(viewer, lines[-1].seq if lines else 0)
    return lines


def _open_game(game: str, seed: int, moves: int = 250) -> list[Any]:
    """A random legal game in open mode: tally deals every card, so each seat's draws are named in the log."""
    import random

    from tally.core.engine import play_out
    from tally.store.recording.service import shuffler, start_event

    spec = registry.get(game)
    names = [f"p{i + 1}" for i in range(max(spec.min_seats, min(3, spec.max_seats)))]
    rng = random.Random(seed)
    _, started = start_event(game, names, {}, "open")
    events, _ = play_out(spec, started, lambda legal: legal[rng.randrange(len(legal))], shuffler(rng), moves)
    return list(events)
