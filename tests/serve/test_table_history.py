"""Issue 35 in the record service and the API: who entered each line (`by`), a seat's plain undo that takes back its
own last event and not another seat's, a correction's preview that records nothing and says what it would do, the
table's history as each caller may read it, and the board in words (`core/outline.py`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from support.page_helpers import GAMES, cut_log
from support.serve_helpers import AUTH, bearer, client, run
from tally.core.outline import outline
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.corrections import Correction, preview_text
from tally.store.recording.results import board_at, check
from tally.store.recording.service import GameRecord


async def seats(http: Any, *names: str) -> dict[str, dict[str, str]]:
    found = {}
    for name in names:
        joined = await http.post("/api/games/g/join", json={"seat": name}, headers=AUTH)
        found[name] = bearer(joined.json()["token"])
    return found


def lines(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def test_a_seats_plain_undo_takes_back_its_own_last_move_not_another_seats(tmp_path: Path) -> None:
    """The issue's case: after ben's buy (#39, entered by the host) ana's phone enters the reveal #40. Ben's undo no
    longer voids ana's entry: it is about his own buy, which the reveal depends on, and is refused naming #40. Ana's
    preview says what hers would void, and who entered it; it records nothing. Voided, ben's undo takes his buy."""
    log = cut_log("splendor-table-3p", 39, tmp_path, "g")

    async def scenario() -> None:
        async with client(tmp_path) as http:
            tokens = await seats(http, "ana", "ben", "cy")
            entered = await http.post(
                "/api/games/g/moves", json={"move": "reveal 1g0-w1b3g1", "expected_seq": 39}, headers=tokens["ana"]
            )
            assert entered.status_code == 201
            refused = await http.post(
                "/api/games/g/undo", json={"reason": "no", "expected_seq": 40}, headers=tokens["ben"]
            )
            assert refused.status_code == 422
            assert [r["rule"] for r in refused.json()["rulings"]] == ["core.amend.breaks-later"]
            assert "correcting #39 would make #40 illegal" in refused.json()["rulings"][0]["message"]
            other = await http.post(
                "/api/games/g/amend", json={"target": 40, "reason": "no", "expected_seq": 40}, headers=tokens["ben"]
            )
            assert other.status_code == 403 and "#40 (a table's entry ana entered)" in other.json()["message"]
            for who in (tokens["ana"], AUTH):
                shown = await http.post(
                    "/api/games/g/undo", json={"reason": "x", "expected_seq": 40, "preview": True}, headers=who
                )
                assert shown.status_code == 200, shown.text
                assert shown.json()["preview"] == "this voids #40 reveal 1g0-w1b3g1, entered by ana"
                assert shown.json()["corrections"] == [
                    {"target": 40, "old": "reveal 1g0-w1b3g1", "new": [], "by": "ana", "player": None}
                ]
            assert len(lines(log)) == 40  # a preview appends nothing
            done = await http.post(
                "/api/games/g/undo", json={"reason": "mistyped", "expected_seq": 40}, headers=tokens["ana"]
            )
            assert done.status_code == 201
            assert done.json()["events"] == [
                {"seq": 41, "type": "voided", "text": "void #40: reveal 1g0-w1b3g1 (mistyped)"}
            ]
            mine = await http.post(
                "/api/games/g/undo", json={"reason": "x", "expected_seq": 41, "preview": True}, headers=tokens["ben"]
            )
            assert mine.json()["preview"] == "this voids #39 ben: buy 1w0-b2g2k1 pay b2 g2 k1"
            swap = await http.post(
                "/api/games/g/amend",
                json={"target": 39, "move": "ben: take w b g", "reason": "x", "expected_seq": 41, "preview": True},
                headers=tokens["ben"],
            )
            assert swap.json()["preview"] == "this replaces #39 ben: buy 1w0-b2g2k1 pay b2 g2 k1, with ben: take w b g"
            assert swap.json()["expected"] == "ben must return 1 token (holds 11, limit 10)"

    run(scenario())
    assert [line.get("by") for line in lines(log)[38:]] == [None, "ana", "ana"]
    assert check(log).ok


def test_the_history_marks_what_was_voided_and_replaced_and_who_may_correct_it(tmp_path: Path) -> None:
    cut_log("splendor-table-3p", 39, tmp_path, "g")

    async def scenario() -> None:
        async with client(tmp_path) as http:
            tokens = await seats(http, "ana", "ben")
            await http.post(
                "/api/games/g/moves", json={"move": "reveal 1g0-w1b3g1", "expected_seq": 39}, headers=tokens["ana"]
            )
            await http.post("/api/games/g/undo", json={"reason": "mistyped", "expected_seq": 40}, headers=tokens["ana"])
            amended = await http.post(
                "/api/games/g/amend",
                json={"target": 39, "move": "ben: take w b g", "reason": "misheard", "expected_seq": 41},
                headers=AUTH,
            )
            assert (
                amended.json()["events"][0]["text"]
                == "amend #39: ben: buy 1w0-b2g2k1 pay b2 g2 k1 -> ben: take w b g (misheard)"
            )
            ben = (await http.get("/api/games/g/history?limit=4", headers=tokens["ben"])).json()
            assert [e["seq"] for e in ben["entries"]] == [42, 41, 40, 39] and ben["before"] == 39
            by_seq = {e["seq"]: e for e in ben["entries"]}
            assert by_seq[42]["replacement"] == ["ben: take w b g"] and by_seq[42]["may_correct"]
            assert (by_seq[40]["by"], by_seq[40]["undone_by"], by_seq[40]["replaced"]) == ("ana", 41, False)
            assert (by_seq[39]["undone_by"], by_seq[39]["replaced"], by_seq[39]["may_correct"]) == (42, True, False)
            assert ben["last_own"] == 42  # the host replaced ben's move: the replacement is ben's
            ana = (await http.get("/api/games/g/history?limit=4", headers=tokens["ana"])).json()
            assert not any(e["may_correct"] for e in ana["entries"])
            assert ana["entries"][0]["replacement"] == []  # the host's replacement of ben's move, not ana's to read
            watcher = (await http.get("/api/games/g/history?limit=200")).json()
            assert len(watcher["entries"]) == 42 and watcher["before"] is None and watcher["last_own"] is None
            assert watcher["entries"][-1]["type"] == "game_started"
            host = (await http.get("/api/games/g/history?before=39&limit=3", headers=AUTH)).json()
            assert [e["seq"] for e in host["entries"]] == [38, 37, 36] and all(
                e["may_correct"] for e in host["entries"]
            )
            for query in ("limit=201", "before=x", "limit=-1"):
                refused = await http.get(f"/api/games/g/history?{query}")
                assert refused.status_code == 400, query

    run(scenario())


def test_a_line_entered_by_a_seat_names_it_and_only_a_seat(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    recorded = GameRecord.open(path).append("ana: take r g b", seat="ana")
    assert recorded.accepted and recorded.events[0].by == "ana"
    noted = GameRecord.open(path).note("ana's cat", "ana", seat="ana")
    assert noted.events[0].by == "ana"
    assert [event.by for event in logfile.read(path).events] == [None, None, "ana", "ana"]
    nothing = GameRecord.open(path).undo("not mine", seat="ben", preview=True)
    assert not nothing.accepted and [r.rule for r in nothing.rulings] == ["core.seat.other"]
    assert (
        nothing.rulings[0].message == "ben has no move of their own to take back: the last, #3, is ana's; the host can"
    )
    assert len(logfile.read(path).events) == 4
    first = path.read_bytes().split(b"\n")[0]
    assert b'"unit":2,' in first
    forged = first.replace(b'"unit":2,', b'"unit":2,"by":"ana",', 1)  # where canonical order puts it
    damaged = tmp_path / "forged.jsonl"
    damaged.write_bytes(forged + b"\n")
    with pytest.raises(logfile.LogError) as caught:
        logfile.read(damaged)
    assert (caught.value.rule, caught.value.line) == ("log.by", 1)


def test_a_preview_says_who_entered_only_what_the_event_does_not_say() -> None:
    own = Correction(7, "ben: take w b g", [], "ben", "ben")
    entry = Correction(8, "reveal 1g0-w1b3g1", [], "ana", None)
    host = Correction(9, "ben: take w b g", ["ben: take w b k"], None, "ben")
    assert preview_text([own]) == "this voids #7 ben: take w b g"
    assert preview_text([entry]) == "this voids #8 reveal 1g0-w1b3g1, entered by ana"
    assert preview_text([host]) == "this replaces #9 ben: take w b g, with ben: take w b k"
    assert (
        preview_text([entry, own])
        == "this voids #8 reveal 1g0-w1b3g1, entered by ana; then this voids #7 ben: take w b g"
    )


# --------------------------------------------------------------------------- the board in words


def _leaves(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value] if isinstance(value, str) else []


def _labels(value: Any) -> set[str]:
    """The words of every key of a view: the outline's labels (`map pieces`, `draw pile`), not values."""
    if isinstance(value, dict):
        return {word for key, item in value.items() for word in str(key).split("_")} | {
            word for item in value.values() for word in _labels(item)
        }
    if isinstance(value, list):
        return {word for item in value for word in _labels(item)}
    return set()


def _said(items: list[Any]) -> str:
    return " ".join(item.text + " " + _said(item.items) for item in items)


@pytest.mark.parametrize(
    "fixture", ["splendor-table-3p", "split-table-4p", "array-table-3p", "splice-open-4p", "splendor-seated-3p"]
)
def test_the_board_in_words_says_every_name_the_view_holds_and_no_other(fixture: str) -> None:
    """Every card, piece and name a seat's view holds is in its outline (a hidden one said as hidden), each player is
    listed in turn order with whose turn it is, and no code of the box (a name with a digit in it) that the view does
    not hold is in it."""
    pos, frames = record.replay(GAMES / f"{fixture}.jsonl")
    spec = pos.spec
    box = {leaf for frame in frames for leaf in _leaves(msgspec.to_builtins(spec.view(frame.state, None)))}
    for frame in frames[10 :: max(1, len(frames) // 6)]:
        for seat in pos.log.started.seats:
            view = board_at(spec, frame.state, frame.seq, None, seat).view
            said = outline(view)
            words = _said(said.players) + " " + _said(said.table)
            fields = msgspec.to_builtins(view)
            said_elsewhere = (
                "game",
                "mode",
                "phase",
                "viewer",
                "to_act",
                "expected",
                "players",
                "outcome",
                "fingerprint",
            )
            held = [
                leaf for key, value in fields.items() if key not in said_elsewhere for leaf in _leaves(value)
            ] + _leaves(fields["players"])
            assert all((leaf in words) or leaf.startswith("?") for leaf in held if len(leaf) >= 2), seat
            assert [item.text.split(",")[0] for item in said.players] == list(pos.log.started.seats)
            assert said.turn == view.expected
            tokens = set(words.replace(",", " ").replace(";", " ").replace(":", " ").split()) - _labels(fields)
            codes = {leaf for leaf in box - set(held) if len(leaf) >= 3 and any(c.isdigit() for c in leaf)}
            assert not codes & tokens, (seat, codes & tokens)
