"""Lines mean what they say (issue 17, items 6 and 7): a ` + ` line never rolls into another player's turn, a
bare number in the session is a move of the listing it last showed, `replay --step` and the session's `step`
show one event at a time, `replay ID` finds the library through $TALLY_DB, `check` takes many logs, and
`repair --json` reports a clean log."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT, run_tally
from tally.cli.session import Recorder, run
from tally.core.notation import CROSSES_TURN
from tally.store.recording import record
from tally.store.recording.session import Session

GAMES = ROOT / "fixtures" / "games"
TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


@pytest.fixture
def game(tmp_path: Path) -> Path:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    return log


def lines_of(log: Path) -> int:
    return len(log.read_bytes().splitlines())


def scripted(log: Path, *typed: str) -> tuple[int, list[str]]:
    """A session fed `typed` line by line (no terminal): its exit code and what it printed."""
    import io

    from rich.console import Console

    out = Console(file=io.StringIO(), width=100, markup=False, highlight=False, color_system=None)
    recorder = Recorder(Session(log), out, interactive=False)
    for line in typed:
        recorder.run_line(line)
    return recorder.refused, out.file.getvalue().splitlines()  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- chains


def test_core_chain_crosses_turn(game: Path) -> None:
    """A ` + ` part that names no player and would be the next player's move is refused; named, it is read."""
    size = lines_of(game)
    assert [r.rule for r in record.rule(game, "take r g b + take w b k").rulings] == [CROSSES_TURN]
    assert record.rule(game, "take r g b + ben: take w b k").accepted
    assert lines_of(game) == size


def test_a_chain_that_would_cross_into_the_next_players_turn_is_refused_everywhere(game: Path) -> None:
    size = lines_of(game)
    moved = record.move(game, "take r g b + take w b k")
    assert not moved.accepted and [r.rule for r in moved.rulings] == [CROSSES_TURN], moved.messages
    assert "would be read as ben's move" in moved.messages[0] and "`ben: take w b k`" in moved.messages[0]
    assert moved.to_act[0] == "ana", "who acts is read off the real table, not the one the first part left"
    assert moved.seq == 4, "the refused part's seq"
    ruled = record.rule(game, "take r g b + take w b k")
    assert not ruled.accepted and ruled.rulings[0].rule == CROSSES_TURN
    refused, out = scripted(game, "take r g b + take w b k")
    assert refused == 1 and out[-2].startswith("illegal: 'take w b k' would be read as ben's move")
    assert out[-1].startswith(f"  rule {CROSSES_TURN}: "), "the ruling carries its rule's text"
    done = run_tally("move", str(game), "take r g b", "+", "take", "w", "b", "k", "--json")
    assert done.exit_code == 1 and json.loads(done.stdout)["rulings"][0]["rule"] == CROSSES_TURN
    assert f"[{CROSSES_TURN}]" in done.stderr
    assert lines_of(game) == size, "a refused line appends nothing"


def test_a_part_that_names_its_player_may_go_on_into_their_turn(game: Path) -> None:
    moved = record.move(game, "take r g b + ben: take w b k + ana: take r g b")
    assert moved.accepted and [line.split(":")[0] for line in moved.lines] == ["ana", "ben", "ana"]


def test_the_tables_own_entries_belong_to_no_players_turn(tmp_path: Path) -> None:
    log = tmp_path / "t.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"])
    for text in (
        "reveal w4b4 b3g3r3 r4k4",
        "reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3 1r0-w3",
        "reveal 2w1-g3r2k2 2b2-b5 2g2-g5 2r2-k5",
        "reveal 3w4-k7 3b4-w7 3g4-b7 3r4-g7",
        "take r g b",
    ):
        assert record.move(log, text).accepted, text
    moved = record.move(log, "ben: reserve 1k0 + reveal 1k0-w2g2")  # the refill is the table's, not ana's turn
    assert moved.accepted, moved.messages
    crossing = record.move(log, "take w b k + reveal 1k0-w2g2 + take w b k")
    assert not crossing.accepted and crossing.rulings[0].rule != CROSSES_TURN  # nothing waits to be revealed
    crossing = record.move(log, "take w b k + take r g b")
    assert crossing.rulings[0].rule == CROSSES_TURN


# --------------------------------------------------------------------------- the session's numbers


def test_a_bare_number_is_the_move_of_the_listing_the_session_last_showed(game: Path) -> None:
    session = Session(game)
    listed = session.listing()
    assert session.move("2").lines == [listed.moves[1]]
    stale = session.move("2")  # the listing was shown before that move: the number no longer means anything
    assert stale.is_stale and "the listing `moves` showed at #2" in stale.messages[0]
    assert "it is now at #3" in stale.messages[0] and lines_of(game) == 3
    assert session.ask("2").is_stale, "a ruling on a number is asked about the listing shown too"
    again = session.listing()
    assert session.move(str(len(again.moves) + 1)).notation is not None
    assert session.move("1").lines == [again.moves[0]]


def test_before_any_listing_a_number_means_the_listing_now(game: Path) -> None:
    session = Session(game)
    assert session.move("1").lines == [record.moves(game, 2).moves[0]]


def test_the_session_shows_a_stale_refusal_with_where_the_log_is_now(game: Path) -> None:
    import io

    from rich.console import Console

    out = Console(file=io.StringIO(), width=100, markup=False, highlight=False, color_system=None)
    recorder = Recorder(Session(game), out, interactive=False)
    recorder.run_line("moves")
    assert record.move(game, "take r g b").accepted  # another terminal
    recorder.run_line("1")
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert "stale: the log moved on" in text and "it is now at #3" in text and "[core.append.stale]" in text
    assert "the log changed on disk" not in text
    assert recorder.session.seq == 3, "the refusal re-read the log"


# --------------------------------------------------------------------------- stepping


def test_the_session_steps_through_the_game_one_event_at_a_time(game: Path) -> None:
    assert record.move(game, "take r g b").accepted
    refused, out = scripted(game, "step #2", "", "q", "moves")
    text = "\n".join(out)
    assert "#2 deal " in text and "#3 ana: take r g b" in text and "the last event: stepping ends" in text
    assert text.count("Splendor after #") == 2 and "after #3: ben to take gems" in text
    refused, out = scripted(game, "step", "q", "step #9")
    assert "#1 splendor" in "\n".join(out) and "#2 deal" not in "\n".join(out)
    assert out[-1] == "step #9: the log has events 1..3" and refused == 1


def test_replay_steps_with_enter_and_stops_at_q(game: Path) -> None:
    done = subprocess.run(
        [*TALLY, "replay", str(game), "--step"], input="\nq\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stderr == ""
    assert [line for line in done.stdout.splitlines() if line.startswith("#")] == [
        "#1 splendor (open mode, rules 1) for ana, ben; take-fewer=when-short stuck=pass target=15",
        next(line for line in done.stdout.splitlines() if line.startswith("#2 deal")),
    ]
    whole = subprocess.run(
        [*TALLY, "replay", str(GAMES / "splendor-2p.jsonl"), "--step"],
        input="\n" * 100,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert whole.returncode == 0 and whole.stdout.count("Splendor after #") == 61
    assert whole.stdout.splitlines()[-1].startswith("scores: ") and "the last event: stepping ends" in whole.stdout
    assert run_tally("replay", str(game), "--step", "--json").exit_code == 2


def test_replay_of_a_library_game_honours_tally_db(tmp_path: Path) -> None:
    shutil.copy(GAMES / "splendor-2p.jsonl", tmp_path / "g.jsonl")
    db = tmp_path / "lib.duckdb"
    env = dict(os.environ, TALLY_DB=str(db))
    assert subprocess.run([*TALLY, "ingest", str(tmp_path / "g.jsonl")], env=env, capture_output=True).returncode == 0
    listed = subprocess.run(
        [*TALLY, "sql", "SELECT game_id FROM games", "--json"], env=env, capture_output=True, text=True
    )
    game_id = json.loads(listed.stdout)["rows"][0]["game_id"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run([*TALLY, "replay", game_id, "--json"], env=env, cwd=elsewhere, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["seq"] == 61
    without = subprocess.run(
        [*TALLY, "replay", game_id],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "TALLY_DB"},
    )
    assert without.returncode == 3 and "no such log file" in without.stderr


# --------------------------------------------------------------------------- check, many logs


def test_check_takes_several_logs_and_folders_and_exits_with_the_worst(tmp_path: Path, game: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    for name in ("splendor-2p", "split-3p"):
        shutil.copy(GAMES / f"{name}.jsonl", folder / f"{name}.jsonl")
    (folder / "notes.txt").write_text("not a log")
    done = run_tally("check", str(folder), str(game))
    assert done.exit_code == 0 and done.stderr == ""
    names = [line.split(": ")[0] for line in done.stdout.splitlines() if ": ok: " in line]
    assert names == [str(folder / "splendor-2p.jsonl"), str(folder / "split-3p.jsonl"), str(game)]
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text('{"broken\n')
    worst = run_tally("check", str(game), str(damaged), str(folder), "--json")
    assert worst.exit_code == 3 and worst.stderr.count("\n") == 1 and worst.stderr.startswith(f"tally: {damaged}:")
    reports = json.loads(worst.stdout)
    assert [r["log"] for r in reports] == [
        str(game),
        str(damaged),
        *(str(folder / n) for n in ("splendor-2p.jsonl", "split-3p.jsonl")),
    ]
    assert [r["ok"] for r in reports] == [True, False, True, True] and reports[1]["error"] == "damaged"
    single = json.loads(run_tally("check", str(game), "--json").stdout)
    assert isinstance(single, dict) and "log" not in single, "one log: its report alone, as before"
    assert run_tally("check", str(tmp_path / "empty-folder-x")).exit_code == 3
    (tmp_path / "empty").mkdir()
    assert run_tally("check", str(tmp_path / "empty")).exit_code == 2
    assert run_tally("check", str(folder), "--expect", "1:00000000").exit_code == 2


def test_check_of_a_log_with_an_illegal_event_among_others_exits_1(tmp_path: Path, game: Path) -> None:
    from tally.store.logs import log as logfile

    illegal = tmp_path / "illegal.jsonl"
    shutil.copy(game, illegal)
    with logfile.Locked(illegal) as locked:  # written past the referee: ben's move in ana's turn
        log = locked.read()
        table = record.judged(log)
        events = log.spec.parse(table.state, "ben: take r g b")
        assert isinstance(events, list)
        locked.append(len(log.events), log.last_hash, events)
    done = run_tally("check", str(game), str(illegal))
    assert done.exit_code == 1 and done.stderr.startswith(f"tally: {illegal}:3: ") and "out-of-turn" in done.stderr
    assert f"{game}: ok: " in done.stdout


def test_repair_json_reports_a_clean_log(game: Path) -> None:
    done = run_tally("repair", str(game), "--json")
    assert done.exit_code == 2 and "nothing to repair" in done.stderr
    report = json.loads(done.stdout)
    assert report == {
        "log": str(game),
        "torn_bytes": 0,
        "saved_to": "",
        "removed": False,
        "kept_lines": 2,
        "why": "log.nothing-to-repair",
    }


def test_run_reads_a_scripted_session_from_lines(game: Path) -> None:
    assert run(Session(game), interactive=False, lines=["moves", "1", "quit"]) == 0
    assert lines_of(game) == 3
