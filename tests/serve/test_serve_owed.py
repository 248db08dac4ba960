"""Every seat knows what it owes (issue 34, item 4): at a seated table each phone's listing (`GET .../moves`) says
what that seat must enter and what the table enters from the dealer's phone (`owed`), every seat still owing is
named, and a bare move typed on a seat's phone is that seat's move (`hand ...` on cy's phone is cy's hand), whoever
the game would read a bare move as."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import ROOT, array_helpers, split_helpers
from support.serve_helpers import AUTH, bearer, client, run, write_log
from tally.store.logs import log as logfile
from tally.store.recording.results import check

SPLIT_CY = ["6CL", "6CR", "8DL", "8DR", "JSL", "JSR", "10HL", "10HR", "KCL"]  # none of ana's or ben's (split_helpers)


async def seats(http: Any, *names: str) -> dict[str, dict[str, str]]:
    found = {}
    for name in names:
        joined = await http.post("/api/games/g/join", json={"seat": name}, headers=AUTH)
        assert joined.status_code == 201, joined.text
        found[name] = bearer(joined.json()["token"])
    return found


async def owed(http: Any, headers: dict[str, str]) -> list[dict[str, Any]]:
    listing = await http.get("/api/games/g/moves", headers=headers)
    assert listing.status_code == 200, listing.text
    return list(listing.json()["owed"])


async def move(http: Any, headers: dict[str, str], text: str, seq: int) -> Any:
    return await http.post("/api/games/g/moves", json={"move": text, "expected_seq": seq}, headers=headers)


def test_at_a_seated_split_deal_each_phone_is_told_what_it_owes(tmp_path: Path) -> None:
    """Split, three seated phones, cy deals: every phone (and the host) is told the table owes the deal, from cy's
    phone, in the documented form; cy enters it; then every phone owes its own hand, each named in the listing,
    and each phone's bare `hand ...` is its own, in any order (cy's while ana is the one the game names first)."""
    hands = {"ana": split_helpers.ANN, "ben": split_helpers.BEN, "cy": SPLIT_CY}

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "split", "players": ["ana", "ben", "cy"], "seated": ["ana", "ben", "cy"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            phones = await seats(http, "ana", "ben", "cy")
            deal = {
                "seat": "table",
                "what": "the deal of round 1: the card that starts the discard row",
                "form": "deal CARD | PLAYER CARDS ...",
                "by": "cy",
            }
            for headers in (*phones.values(), AUTH):
                assert await owed(http, headers) == [deal]
            dealt = await move(http, phones["cy"], "deal QSR", 1)
            assert dealt.status_code == 201, dealt.text
            due = [
                {"seat": name, "what": "the dealt hand (9 cards)", "form": "PLAYER: hand CARDS", "by": None}
                for name in ("ana", "ben", "cy")
            ]
            for headers in (*phones.values(), AUTH):
                assert await owed(http, headers) == due
            assert (await http.get("/api/games/g/moves", headers=phones["cy"])).json()["to_act"] == "ana"
            asked = await http.post(
                "/api/games/g/rule", json={"move": "hand " + " ".join(SPLIT_CY)}, headers=phones["cy"]
            )
            assert asked.status_code == 200 and asked.json()["rulings"][0]["message"] == "cy names their own dealt hand"
            typo = await move(http, phones["cy"], "hand " + " ".join(SPLIT_CY[:-1] + ["JSX"]), 2)
            assert typo.status_code == 400 and "JSX" in typo.json()["notation_error"]  # cy's own move's error
            assert "ana" not in typo.json()["notation_error"]  # not read as ana's
            named = await move(http, phones["cy"], "hand " + " ".join(SPLIT_CY), 2)
            assert named.status_code == 201, named.text
            assert named.json()["events"][0]["text"] == "cy: hand " + " ".join(SPLIT_CY)
            assert [d["seat"] for d in await owed(http, phones["ana"])] == ["ana", "ben"]
            for seq, name in enumerate(("ben", "ana"), 3):
                answer = await move(http, phones[name], "hand " + " ".join(hands[name]), seq)
                assert answer.status_code == 201, answer.text
            listing = (await http.get("/api/games/g/moves", headers=phones["ana"])).json()
            assert listing["owed"] == [{"seat": "ana", "what": listing["expected"], "form": None, "by": None}]
            assert listing["moves"]  # play has begun: ana's draw is listed

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok


def test_a_splatter_to_a_seated_phone_is_named_by_that_phone(tmp_path: Path) -> None:
    """Array, two seated phones: ana's page offers the Splatter to ben (it names no card); ben's listing then says he
    owes the cards he picked up, in the documented form, and nothing else is played; his bare `pick up ...` is his;
    ana never reads the cards."""
    ana_hand, ben_hand = array_helpers.ANN, array_helpers.BEN

    async def scenario() -> None:
        async with client(tmp_path) as http:
            made = await http.post(
                "/api/games",
                json={"id": "g", "game": "array", "players": ["ana", "ben"], "seated": ["ana", "ben"]},
                headers=AUTH,
            )
            assert made.status_code == 201, made.text
            phones = await seats(http, "ana", "ben")
            assert [d["seat"] for d in await owed(http, phones["ben"])] == ["ana", "ben"]
            seq = 1
            for name, hand in (("ben", ben_hand), ("ana", ana_hand)):
                assert (await move(http, phones[name], "hand " + " ".join(hand), seq)).status_code == 201
                seq += 1
            assert await owed(http, phones["ana"]) == [
                {"seat": "table", "what": "the starting card of round 1", "form": None, "by": "ben"}
            ]  # ben deals the first round
            for text, who in (("start br", "ben"), ("splice bor@1.b oy ry", "ana"), ("splice gr@1.r", "ben")):
                answer = await move(http, phones[who], text, seq)
                assert answer.status_code == 201, answer.text
                seq += len(answer.json()["events"])
            listed = (await http.get("/api/games/g/moves", headers=phones["ana"])).json()["moves"]
            assert "ana: s3 ben" in listed
            given = await move(http, phones["ana"], "s3 ben", seq)
            assert given.status_code == 201, given.text
            seq += 1
            pickup = [
                {
                    "seat": "ben",
                    "what": "the 3 cards picked up after the Splatter",
                    "form": "PLAYER: pick up CARD ...",
                    "by": None,
                }
            ]
            assert await owed(http, phones["ana"]) == pickup == await owed(http, phones["ben"])
            early = await move(http, phones["ben"], "splice gy@3.y", seq)
            assert early.status_code == 422 and "array.pickup.owed" in early.text
            picked = await move(http, phones["ben"], "pick up bg go gy", seq)
            assert picked.status_code == 201, picked.text
            assert picked.json()["events"][0]["text"] == "ben: pick up bg go gy"
            seen = (await http.get("/api/games/g/events?after=0", headers=phones["ana"])).json()["events"]
            assert seen[-1]["text"] == "ben: picked_up (hidden)"

    run(scenario())
    assert check(tmp_path / "g.jsonl").ok
    assert logfile.read(tmp_path / "g.jsonl").events[-1].salt is not None  # ben's cards: a salted line


def test_a_seated_splice_seat_is_told_exactly_what_it_names(tmp_path: Path) -> None:
    """Splice, every seat naming its own cards (`disks` and `deal` left them out): each seat owes its dealt hand and
    the disk it drew, said so (it said "the disk, if `disks` left it out", which a player cannot know); once named,
    the hand and the disk leave the words of the seats still owing."""
    events = list(logfile.read(ROOT / "fixtures" / "games" / "phones" / "splice-3p.jsonl").events)

    async def scenario() -> None:
        write_log(tmp_path / "g.jsonl", events[:3])
        async with client(tmp_path) as http:
            phones = await seats(http, "ana", "ben", "cy")
            said = {due["seat"]: due["what"] for due in await owed(http, phones["ana"])}
            assert said == dict.fromkeys(("ana", "ben", "cy"), "the dealt hand (5 cards) and the gemstone disk drawn")
            listing = (await http.get("/api/games/g/moves", headers=phones["cy"])).json()
            assert "`disks`" not in listing["expected"] and "and gemstone disk" in listing["expected"]
            names = (await http.get("/api/games/g/names", headers=phones["cy"])).json()["namings"]
            assert [n["words"] for n in names] == ["cy's dealt hand: 5 cards, and cy's gemstone disk"]

    run(scenario())
