"""A table of phones from the first tap (issue 34): the games tally can start, a game started by the host's page,
each seat's one-time link (a QR code on the host's screen), a lost phone's seat given again, a seat moved to another
phone; the join code the same after a reload."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec

from support.serve_helpers import AUTH, bearer, client, run
from tally.store.logs import log as logfile
from tally.store.recording.results import games
from tally.store.recording.service import UsageError, start_event


def test_the_catalog_is_what_tally_games_lists(tmp_path: Path) -> None:
    """`GET /api/catalog` is `tally games --json`, from the same code: every game, its players, modes and options,
    an integer option with its bounds."""
    listed = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()", "games", "--json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout

    async def scenario() -> Any:
        async with client(tmp_path) as http:
            return await http.get("/api/catalog")

    answer = run(scenario())
    assert answer.status_code == 200 and answer.json() == json.loads(listed) == msgspec.to_builtins(games())
    numbers = [o for g in answer.json()["games"] for o in g["options"] if not o["choices"]]
    assert numbers and all(o["minimum"] is not None and o["maximum"] is not None for o in numbers)


def test_the_host_starts_a_game_as_tally_new_would(tmp_path: Path) -> None:
    """No id: the game's name and the first free number; a number where an option is a number (issue 35's snag);
    a refusal in `tally new`'s own words; only the host starts games."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            body = {"game": "split", "players": ["ana", "ben", "cy"], "mode": "table", "seated": ["ana", "ben", "cy"]}
            first = await http.post("/api/games", json=body, headers=AUTH)
            second = await http.post("/api/games", json=body, headers=AUTH)
            assert (first.status_code, second.status_code) == (201, 201), first.text
            assert (first.json()["log"], second.json()["log"]) == ("split-1.jsonl", "split-2.jsonl")
            array = await http.post(
                "/api/games",
                json={
                    "game": "array",
                    "players": ["ana", "ben"],
                    "id": "friday",
                    "options": {"hands": 2, "end": "hands"},
                },
                headers=AUTH,
            )
            assert array.status_code == 201, array.text
            assert logfile.read(tmp_path / "friday.jsonl").started.options["hands"] == "2"
            wrong = await http.post("/api/games", json={"game": "split", "players": ["ana"]}, headers=AUTH)
            try:
                start_event("split", ["ana"], {}, "table")
            except UsageError as error:
                said = str(error)
            assert wrong.status_code == 400 and wrong.json()["message"] == said
            seat = await http.post("/api/games", json=body)
            assert seat.status_code == 403 and seat.json()["error"] == "serve.host-only"

    run(scenario())


def test_a_seats_one_time_link_gives_the_seat_once_and_shuts_the_old_phone_out(tmp_path: Path) -> None:
    """The host makes a seat's link (its QR code with it); the phone that opens it holds the seat; the link works
    once; the host gives the seat again (a lost phone): the new phone holds it and the old one's token is refused;
    a seat moves itself to another phone the same way; only the host or the seat itself makes a seat's link."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post(
                "/api/games",
                json={"game": "split", "players": ["ana", "ben", "cy"], "id": "g", "seated": ["ana", "ben", "cy"]},
                headers=AUTH,
            )
            made = await http.post("/api/games/g/seats/ana/link", headers=AUTH)
            assert made.status_code == 201, made.text
            link = made.json()["link"]
            assert link.startswith("/games/g#seat=") and made.json()["qr"].startswith("<svg")
            secret = link.split("#seat=", 1)[1]
            listed = (await http.get("/api/games/g/seats", headers=AUTH)).json()
            assert [(s["seat"], s["taken"], s["link"]) for s in listed["seats"]] == [
                ("ana", False, link),
                ("ben", False, None),
                ("cy", False, None),
            ]
            phone = await http.post("/api/games/g/claim", json={"link": secret})
            assert phone.status_code == 201 and phone.json()["seat"] == "ana"
            old = bearer(phone.json()["token"])
            assert (await http.get("/api/games/g", headers=old)).json()["viewer"] == "ana"
            again = await http.post("/api/games/g/claim", json={"link": secret})
            assert again.status_code == 403 and again.json()["error"] == "serve.link.unknown"
            listed = (await http.get("/api/games/g/seats", headers=AUTH)).json()
            assert listed["seats"][0]["taken"] and listed["seats"][0]["link"] is None
            lost = (await http.post("/api/games/g/seats/ana/link", headers=AUTH)).json()["link"]
            new_phone = await http.post("/api/games/g/claim", json={"link": lost.split("#seat=", 1)[1]})
            assert new_phone.status_code == 201
            assert (await http.get("/api/games/g", headers=old)).status_code == 401  # the lost phone is shut out
            moved = await http.post("/api/games/g/seats/ana/link", headers=bearer(new_phone.json()["token"]))
            assert moved.status_code == 201
            other = await http.post("/api/games/g/seats/ben/link", headers=bearer(new_phone.json()["token"]))
            assert other.status_code == 403
            seats = await http.get("/api/games/g/seats", headers=bearer(new_phone.json()["token"]))
            assert seats.status_code == 403  # the seats' links are the host's to see

    run(scenario())


def test_the_join_code_is_shown_again_after_a_reload(tmp_path: Path) -> None:
    """Issue 34: after a reload the host's page showed "none yet" though a code existed, and a code made through
    the API was never shown. The host's seats answer holds the code this server made last, while it works."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post("/api/games", json={"game": "splendor", "players": ["ana", "ben"], "id": "g"}, headers=AUTH)
            assert (await http.get("/api/games/g/seats", headers=AUTH)).json()["code"] is None
            code = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            assert (await http.get("/api/games/g/seats", headers=AUTH)).json()["code"] == code
            newer = (await http.post("/api/games/g/code", headers=AUTH)).json()["code"]
            assert (await http.get("/api/games/g/seats", headers=AUTH)).json()["code"] == newer != code

    run(scenario())


def test_wrong_links_count_as_guesses(tmp_path: Path) -> None:
    """A link's secret is 256 bits, and wrong ones count with wrong join codes against the address that sends them."""

    async def scenario() -> None:
        async with client(tmp_path) as http:
            await http.post("/api/games", json={"game": "splendor", "players": ["ana", "ben"], "id": "g"}, headers=AUTH)
            answers = [
                (await http.post("/api/games/g/claim", json={"link": f"guess{i}"})).status_code for i in range(7)
            ]
            assert answers[:5] == [403] * 5 and answers[5:] == [429, 429]

    run(scenario())


def test_serve_json_names_the_host_link(tmp_path: Path) -> None:
    """`tally serve --json` prints the host link beside the address and the token: the page that holds the token,
    as the text output prints it."""
    import httpx

    process = subprocess.Popen(
        [str(Path(sys.executable).parent / "tally"), "serve", str(tmp_path), "--port", "0", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert process.stdout is not None
        started = json.loads(process.stdout.readline())
        assert set(started) == {"url", "token", "host_link"}
        assert started["host_link"] == f"{started['url']}/#token={started['token']}"
        page = httpx.get(started["host_link"].split("#")[0], timeout=10)
        assert page.status_code == 200 and "tally" in page.text
    finally:
        process.kill()
        process.wait(30)
        if process.stdout is not None:
            process.stdout.close()
