"""Answers that do not grow with a game's length (issue 36): a served game opens from its checkpoints and catches up
on another writer's append by reading and judging only the new lines (counted, never timed); events and replay steps
come a page at a time, each page small however long the game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest

from support.long_games import write_long_game
from support.serve_helpers import AUTH, HOST, bearer, client, run
from tally.core import registry
from tally.core.engine import judge
from tally.serve.app import create_app
from tally.store.logs import checkpoints
from tally.store.logs import log as logfile
from tally.store.recording import positions, record
from tally.store.recording.secrecy import hidden_text, is_known_to
from tally.store.recording.service import describe, describe_start
from tally.store.serving.tables import MOST, PAGE, RECENT, Tables

LIMIT = 256 * 1024  # no answer is over 256 KB


def whole_fold(path: Path) -> tuple[Any, list[tuple[Any, Any, Any]]]:
    """The log judged from line 1, as `tally check` does: the last state and every step."""
    log = logfile.read(path)
    kept: list[tuple[Any, Any, Any]] = []
    judgement, table = judge(log.spec, log.events, kept=kept)
    assert judgement.ok
    return table.state, kept


# --------------------------------------------------------------------------- a served game


def all_events(http: httpx.AsyncClient, path: str, headers: dict[str, str], limit: int | None = None) -> Any:
    async def read() -> list[dict[str, Any]]:
        lines: list[dict[str, Any]] = []
        after: int | None = 0
        while after is not None:
            asked = f"{path}?after={after}" + (f"&limit={limit}" if limit else "")
            answer = await http.get(asked, headers=headers)
            assert answer.status_code == 200, answer.text
            assert len(answer.content) < LIMIT
            page = answer.json()
            assert len(page["events"]) <= (limit or PAGE)
            lines += page["events"]
            after = page["next"]
        return lines

    return read()


def test_a_long_game_s_events_come_a_page_at_a_time_as_each_caller_may_see_them(tmp_path: Path) -> None:
    """A served game of 3,000 events: its events in pages of at most 200 (or the `limit` asked), each answer small,
    every line as the caller may read it (a seat: another seat's cards hidden; the host: all)."""
    path = write_long_game(tmp_path / "long.jsonl", 3000)
    state, steps = whole_fold(path)
    spec = registry.get("splice")
    started = logfile.read(path).started

    def expected(viewer: str | None) -> list[dict[str, Any]]:
        shown = [{"seq": 1, "type": "game_started", "text": describe_start(started)}]
        for event, before, after in steps:
            known = viewer is None or is_known_to(spec, before, after, event, viewer)
            shown.append(
                {
                    "seq": event.seq,
                    "type": str(type(event).__struct_config__.tag),
                    "text": describe(spec, event) if known else hidden_text(event),
                }
            )
        return shown

    async def scenario() -> None:
        async with client(tmp_path) as http:
            seat = bearer((await http.post("/api/games/long/join", json={"seat": "p2"}, headers=AUTH)).json()["token"])
            assert await all_events(http, "/api/games/long/events", AUTH) == expected(None)
            mine = await all_events(http, "/api/games/long/events", seat, limit=MOST)
            assert mine == expected("p2") and any(line["text"].endswith("(hidden)") for line in mine)
            for wrong in ("0", "1001", "x", "-1"):
                answer = await http.get(f"/api/games/long/events?limit={wrong}")
                assert answer.status_code == 400 and answer.json()["error"] == "serve.seq"
            shown = await http.get("/api/games/long", headers=AUTH)
            assert shown.status_code == 200 and shown.json()["seq"] == len(steps) + 1

    run(scenario())


def counted(work: Any) -> tuple[int, int]:
    """(lines read, events judged) by folding from checkpoints and catching up while `work()` runs."""
    positions.Work.read = positions.Work.judged = 0
    work()
    return positions.Work.read, positions.Work.judged


@pytest.mark.parametrize("length", [100, 10_000])
def test_a_server_catching_up_on_a_move_reads_and_judges_only_the_move(tmp_path: Path, length: int) -> None:
    """`tally move` on a served log: the server reads and judges the move's lines alone, at 100 events as at 10,000;
    a server started again opens the game from its checkpoints and its state cache, reading no more than a spacing
    of checkpoints."""
    path = write_long_game(tmp_path / "g.jsonl", length)
    tables = Tables(tmp_path)
    game = tables.game("g")
    assert game is not None
    spec = registry.get("splice")
    before = game.record.seq
    move = spec.format(spec.legal_moves(game.record.state)[0])
    assert record.move(path, move).accepted  # another process's move: the server did not write it
    appended = len(logfile.read(path).events) - before
    read, judged = counted(lambda: game.sync())
    assert (read, judged) == (appended, appended)
    assert game.record.seq == before + appended and game.timeline.recent[-1][0].seq == game.record.seq
    restarted = Tables(tmp_path)
    read, judged = counted(lambda: restarted.game("g"))
    assert read <= checkpoints.SPACING + 16 and judged == read
    (Path(tmp_path) / "g.jsonl").rename(tmp_path / "h.jsonl")  # another name: no state cache, the checkpoints serve
    read, judged = counted(lambda: Tables(tmp_path).game("h"))
    assert read <= checkpoints.SPACING + 16 and judged == read


def test_a_timeline_keeps_only_its_newest_events(tmp_path: Path) -> None:
    path = write_long_game(tmp_path / "g.jsonl", 400)
    game = Tables(tmp_path).game("g")
    assert game is not None
    spec = registry.get("splice")
    for _ in range(RECENT + 10):
        moves = spec.legal_moves(game.record.state)
        result = game.record.append(spec.format(moves[0]))
        assert result.accepted
    assert len(game.timeline.recent) == RECENT
    assert game.timeline.recent[-1][0].seq == game.record.seq == len(logfile.read(path).events)


def test_a_page_of_the_history_costs_the_page_the_first_after_a_start_included(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The history is read from the log's tail back as far as pages ask, then kept up by every event the record takes
    on (this server's writes, another process's move, an undo): no page reads the whole log, and each page, the
    first after a server starts included, folds at most a checkpoint's spacing and the page (paging back, each page
    from where the last ended); every page is what a server reading the log afresh answers."""
    path = write_long_game(tmp_path / "g.jsonl", 3000)
    game = Tables(tmp_path).game("g")
    assert game is not None
    spec = registry.get("splice")
    read_whole: list[int] = []
    store = game.record.store
    reading = store.read
    monkeypatch.setattr(store, "read", lambda: read_whole.append(1) or reading())
    work = counted(lambda: game.history(None, None, 30))
    assert work[0] <= checkpoints.SPACING + 30 + 1 and work[1] <= work[0]
    assert game.record.append(spec.format(spec.legal_moves(game.record.state)[0])).accepted
    assert record.move(path, spec.format(spec.legal_moves(game.record.state)[0])).accepted
    game.sync()
    assert game.record.undo("misheard").accepted
    for viewer in (None, game.record.fold.started.seats[1]):
        pages: list[Any] = []
        before = None
        for _ in range(4):
            work = counted(lambda: pages.append(game.history(viewer, before, 30)))
            assert work[0] <= checkpoints.SPACING + 30 + 1 and work[1] <= work[0]
            before = pages[-1].before
        afresh = Tables(tmp_path).game("g")
        assert afresh is not None
        assert pages == [
            afresh.history(viewer, page.entries[0].seq + 1 if i else None, 30) for i, page in enumerate(pages)
        ]
        assert pages[0].entries[0].type == "voided" and pages[0].entries[1].undone_by == pages[0].seq
        assert [entry.seq for page in pages for entry in page.entries] == list(
            range(pages[0].seq, pages[0].seq - 120, -1)
        )
    assert read_whole == []


@pytest.mark.parametrize("length", [100, 10_000])
def test_a_server_catching_up_on_another_server_s_append_reads_only_it(
    pg_url: str, tmp_path: Path, length: int
) -> None:
    """Two servers on one PostgreSQL store: one appends a move, the other catches up reading and judging its lines
    alone, at 100 events as at 10,000."""
    from tally.store.logs.places import import_log

    path = write_long_game(tmp_path / "g.jsonl", length)
    import_log(path, pg_url, "g")
    one, other = Tables(pg_url), Tables(pg_url)
    mine, theirs = one.game("g"), other.game("g")
    assert mine is not None and theirs is not None
    spec = registry.get("splice")
    before = theirs.record.seq
    result = mine.record.append(spec.format(spec.legal_moves(mine.record.state)[0]))
    assert result.accepted
    read, judged = counted(lambda: theirs.sync())
    assert (read, judged) == (len(result.events), len(result.events))
    assert theirs.record.seq == before + len(result.events) == mine.record.seq
    assert theirs.record.state == mine.record.state


# --------------------------------------------------------------------------- the library


def test_a_long_stored_game_s_page_is_small_and_its_steps_come_a_page_at_a_time(tmp_path: Path) -> None:
    from tally.store import library
    from tally.store.recording.pictures import picture_of
    from tally.store.recording.results import frame_board, replay_report

    path = write_long_game(tmp_path / "long.jsonl", 3000)
    db = tmp_path / "club.duckdb"
    assert not library.ingest(db, [path], jobs=1).rejected
    (gid,) = [row[0] for row in library.query(db, "SELECT game_id FROM games").rows()]
    pos, frames = library.replay(db, gid)
    report = replay_report(pos, frames)

    async def scenario() -> None:
        app = create_app(tmp_path, HOST, db)
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http:
            detail = await http.get(f"/api/library/games/{gid}", headers=AUTH)
            assert detail.status_code == 200 and len(detail.content) < LIMIT
            body = detail.json()
            assert body["last"] == len(frames) and len(body["steps"]) == 100 and body["next"] == 100
            assert len({row[1] for row in body["chart"]["rows"]}) <= 120  # a long game's turns sampled
            steps, after = body["steps"], body["next"]
            while after is not None:
                page = await http.get(f"/api/library/games/{gid}/steps?after={after}&limit=1000", headers=AUTH)
                assert page.status_code == 200 and len(page.content) < LIMIT
                steps += page.json()["steps"]
                after = page.json()["next"]
            assert steps == msgspec.to_builtins(report.steps)
            for seq in (1, 2, 1500, len(frames)):
                step = (await http.get(f"/api/library/games/{gid}/steps/{seq}", headers=AUTH)).json()
                assert step["svg"] == picture_of(pos.spec, frame_board(pos, frames[seq - 1]).view)
                assert step["text"] == frames[seq - 1].text

    run(scenario())
