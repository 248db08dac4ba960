"""A finished game as a play of BG Stats (issue 35): the link `createPlay.html?data=<URL-encoded JSON>` that BG Stats
takes a pushed play by, made once (store/library/bgstats.py) for `tally export --format bgstats` and for a finished
game's page; each link decoded and held to the fields and types BG Stats documents.

BG Stats' page "Push plays to BG Stats from other apps or websites" (bgstatsapp.com/support/...) documents the play
as JSON with these fields (written out here, from that page, so that the code is held to the document and not to
itself): `sourceName` (string, required), `sourcePlayId` (string), `playDate` (string `YYYY-MM-DD HH:MM:SS`,
required), `durationMin` (number of minutes), `game` (required: `name` string, required; `sourceGameId` string,
required; `bggId` the BoardGameGeek id, a number; `highestWins` and `noPoints` booleans) and `players` (required, a
list: `name` string, required; `sourcePlayerId` string, required; `score` a number; `winner` boolean; `rank` a
number; `startPlayer` boolean). tally always gives the booleans, never a `null` (the Android app is known to fail on
a value it does not expect).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from support import FIXTURES
from support.bgstats import check_play, decoded
from tally.store import library
from tally.store.library import bgstats

BGG = {"splendor": 148228}  # the BoardGameGeek ids the research holds (shared/research): Splendor's alone
TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]
GAMES = sorted((FIXTURES / "games").glob("*.jsonl"))


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled games and one whose first line has no valid time (a clock that wrote nonsense)."""
    folder = tmp_path_factory.mktemp("bgstats")
    for path in GAMES:
        shutil.copy(path, folder / path.name)
    undated(GAMES[0], folder / "undated.jsonl")
    target = folder / "tally.duckdb"
    summary = library.ingest(target, sorted(folder.glob("*.jsonl")), jobs=1)
    assert not summary.rejected
    return target


def undated(source: Path, target: Path) -> None:
    """`source` with its first line's `at` no time at all, the chain made whole again."""
    from test_fuzz import rechain

    lines = source.read_bytes().splitlines()
    first = json.loads(lines[0])
    first["at"] = "2026-02-30T19:30:00.000Z"  # written as a time is, but February has no 30th
    lines[0] = json.dumps(first, separators=(",", ":")).encode()
    target.write_bytes(b"\n".join(rechain(lines, 1)) + b"\n")


def test_the_export_writes_each_plays_link_and_json_in_bgstats_fields(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "bg"
    done = subprocess.run(
        [
            *TALLY,
            "export",
            "--db",
            str(db),
            "--to",
            str(out),
            "--format",
            "bgstats",
            "--timezone",
            "Europe/Copenhagen",
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    finished = {
        gid: (game, at, winners)
        for gid, game, at, winners in library.query(
            db, "SELECT game_id, game, started_at, winners FROM games WHERE finished AND NOT simulated"
        ).rows()
    }
    undated_id = next(gid for gid, (_, at, _) in finished.items() if at is None)
    assert report["timezone"] == "Europe/Copenhagen" and report["games"] == len(finished) - 1
    assert report["skipped"] == [
        {"game_id": undated_id, "why": "its first line's `at` is not a valid time, so it has no play date"}
    ]
    assert f"warning: {undated_id} skipped" in done.stderr, "the skipped game is told"
    assert sorted(p.name for p in out.iterdir()) == sorted(
        f"{gid}{suffix}" for gid in finished if gid != undated_id for suffix in (".json", ".link")
    )
    for gid, (game, at, winners) in finished.items():
        if gid == undated_id:
            continue
        link = (out / f"{gid}.link").read_text()
        assert link.endswith("\n") and link.count("\n") == 1
        play = decoded(link.strip())
        assert play == json.loads((out / f"{gid}.json").read_text()), "the JSON kept is the link's"
        check_play(play)
        assert play["sourceName"] == "tally" and play["sourcePlayId"] == gid
        assert play["game"]["sourceGameId"] == game and play["game"].get("bggId") == BGG.get(game)
        assert play["playDate"] == at.astimezone(ZoneInfo("Europe/Copenhagen")).strftime("%Y-%m-%d %H:%M:%S")
        assert sorted(p["sourcePlayerId"] for p in play["players"] if p["winner"]) == sorted(winners)
        assert all(p["rank"] == 1 for p in play["players"] if p["winner"])
        seats = library.query(db, f"SELECT player, score FROM seats WHERE game_id = '{gid}' ORDER BY seat").rows()
        assert [(p["sourcePlayerId"], p.get("score")) for p in play["players"]] == [tuple(row) for row in seats]


def test_a_score_the_game_does_not_know_is_left_out_never_null() -> None:
    done = bgstats.Finished(
        "0123456789abcdef",
        "split",
        datetime.fromisoformat("2026-12-04T19:30:00+00:00"),
        None,
        ["Ana P.", "ben", "cy"],
        ["ana", "ben", "cy"],
        [12, None, 5],
        [True, False, False],
    )
    made = bgstats.pushed(done, ZoneInfo("UTC"))
    assert isinstance(made, bgstats.Pushed)
    play = decoded(made.link)
    check_play(play)
    assert [("score" in p, "rank" in p) for p in play["players"]] == [(True, True), (False, False), (True, True)]
    assert [p.get("rank") for p in play["players"]] == [1, None, 2] and "durationMin" not in play
    assert "bggId" not in play["game"] and play["game"]["noPoints"] is False
    assert play["players"][0]["name"] == "Ana P." and play["players"][0]["sourcePlayerId"] == "ana"
    unknown = bgstats.pushed(
        bgstats.Finished(
            done.game_id, "split", done.started_at, None, done.people, done.seats, [None, None, None], done.won
        ),
        ZoneInfo("UTC"),
    )
    assert isinstance(unknown, bgstats.Pushed) and decoded(unknown.link)["game"]["noPoints"] is True
    skipped = bgstats.pushed(
        bgstats.Finished(done.game_id, "split", None, None, done.people, done.seats, done.scores, done.won),
        ZoneInfo("UTC"),
    )
    assert isinstance(skipped, bgstats.Skipped)


def test_the_time_zone_is_the_machines_unless_chosen(db: Path, tmp_path: Path) -> None:
    """Without --timezone the plays are dated in the machine's zone (here $TZ), and the output says which."""
    env = {**os.environ, "TZ": "America/New_York"}
    done = subprocess.run(
        [*TALLY, "export", "--db", str(db), "--to", str(tmp_path / "ny"), "--format", "bgstats"],
        capture_output=True,
        text=True,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    assert "dated in America/New_York" in done.stdout
    gid, at = next(
        iter(
            library.query(
                db,
                "SELECT game_id, started_at FROM games WHERE finished AND NOT simulated "
                "AND started_at IS NOT NULL ORDER BY game_id",
            ).rows()
        )
    )
    play = json.loads((tmp_path / "ny" / f"{gid}.json").read_text())
    assert play["playDate"] == at.astimezone(ZoneInfo("America/New_York")).strftime("%Y-%m-%d %H:%M:%S")
    wrong = subprocess.run(
        [
            *TALLY,
            "export",
            "--db",
            str(db),
            "--to",
            str(tmp_path / "x"),
            "--format",
            "bgstats",
            "--timezone",
            "Mars/Olympus",
        ],
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2 and "not a time zone" in wrong.stderr and not (tmp_path / "x").exists()
    assert (
        subprocess.run(
            [*TALLY, "export", "--db", str(db), "--to", str(tmp_path / "y"), "--timezone", "UTC"],
            capture_output=True,
            text=True,
        ).returncode
        == 2
    ), "--timezone dates plays only"


def test_the_page_and_the_export_make_the_same_link(db: Path, tmp_path: Path) -> None:
    """A finished game's page asks `GET /api/games/ID/bgstats`: the very link the export writes for that game, and a
    QR code of it; an unfinished game has none (409)."""
    import segno

    from support.serve_helpers import client, run

    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(FIXTURES / "games" / "splendor-2p.jsonl", served / "friday.jsonl")
    lines = (FIXTURES / "games" / "split-3p.jsonl").read_bytes().splitlines(keepends=True)
    (served / "unfinished.jsonl").write_bytes(b"".join(lines[:40]))
    out = tmp_path / "bg"
    assert (
        subprocess.run(
            [*TALLY, "export", "--db", str(db), "--to", str(out), "--format", "bgstats", "--timezone", "Asia/Tokyo"],
            capture_output=True,
            text=True,
        ).returncode
        == 0
    )

    async def asked() -> tuple[Any, Any, Any]:
        async with client(served) as http:
            return (
                await http.get("/api/games/friday/bgstats?timezone=Asia/Tokyo"),
                await http.get("/api/games/unfinished/bgstats"),
                await http.get("/api/games/friday/bgstats?timezone=nowhere"),
            )

    finished, unfinished, nowhere = run(asked())
    assert finished.status_code == 200, finished.text
    answer = finished.json()
    gid = answer["play"]["sourcePlayId"]
    assert answer["link"] == (out / f"{gid}.link").read_text().strip() and answer["timezone"] == "Asia/Tokyo"
    assert decoded(answer["link"]) == answer["play"] and answer["play"]["game"]["bggId"] == 148228
    check_play(answer["play"])
    drawn = re.search(r' d="([^"]+)"', answer["qr"])
    expected = re.search(r' d="([^"]+)"', segno.make(answer["link"], error="l").svg_inline(scale=4, border=2))
    assert drawn and expected and drawn.group(1) == expected.group(1), "the QR code is the link's"
    assert unfinished.status_code == 409 and unfinished.json()["error"] == "serve.game.unfinished"
    assert nowhere.status_code == 400 and nowhere.json()["error"] == "serve.timezone"
