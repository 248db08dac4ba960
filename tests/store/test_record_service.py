"""The record service: one move path, and appends that name what their caller saw (optimistic concurrency).

Every test here runs `tally` as real processes, the way users at one table with several terminals do.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from support import run_tally
from tally.store.recording import record
from tally.store.recording.service import STALE, GameRecord

TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _at_once(commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Start every command before waiting for any, so they race for the log's lock."""
    env = dict(os.environ, COLUMNS="100", NO_COLOR="1")
    running = [
        subprocess.Popen([*TALLY, *c], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for c in commands
    ]
    done = []
    for process in running:
        out, err = process.communicate(timeout=120)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def _splice_at_ana_draw(tmp_path: Path) -> Path:
    """Splice, seed 1, three players, after ben's draw: ana must draw from the pile or blind from a hand."""
    log = tmp_path / "splice.jsonl"
    assert run_tally("new", "splice", str(log), "-p", "ana", "-p", "ben", "-p", "cy", "--seed", "1").exit_code == 0
    assert run_tally("move", str(log), "ben: draw 5").exit_code == 0
    return log


# --------------------------------------------------------------------------- chance between the parts of a line


def test_open_mode_deals_the_chance_between_the_parts_of_a_line(tmp_path: Path) -> None:
    log = _splice_at_ana_draw(tmp_path)
    done = run_tally("move", str(log), "ana: draw from ben + ana: discard 9")  # the blind draw is chance tally deals
    assert done.exit_code == 0, done
    recorded = done.stdout.splitlines()
    assert recorded[0] == "#5 recorded: ana: draw from ben" and recorded[1].startswith("#6 recorded: tally picks ")
    assert recorded[2] == "#7 recorded: ana: discard 9"
    assert len(_lines(log)) == 7
    assert run_tally("check", str(log)).exit_code == 0


def test_the_issues_line_is_judged_after_the_card_tally_picked(tmp_path: Path) -> None:
    # `ana: play 3-3` is legal only when the card picked from ben's hand is his 3: either way the line is judged
    # after the pick (seq 7), never refused for a pick that was not dealt
    log = _splice_at_ana_draw(tmp_path)
    done = run_tally("move", str(log), "ana: draw from ben + ana: play 3-3")
    if done.exit_code == 0:
        assert "#6 recorded: tally picks 3" in done.stdout and "#7 recorded: ana: play 3-3" in done.stdout
    else:
        assert (
            done.exit_code == 1
            and done.stderr.startswith(f"tally: {log}:7: ")
            and "[splice.play.in-hand]" in done.stderr
        )
        assert len(_lines(log)) == 4, "a refused line appends nothing"


def test_a_refused_part_of_a_long_line_names_its_own_seq(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    assert run_tally("new", "splendor", str(log), "-p", "ana", "-p", "ben", "--seed", "3").exit_code == 0
    parts = ["take r g b", "ben: take w b k", "ana: take r g b", "ben: take w b k", "ana: take k k k"]
    done = run_tally("move", str(log), " + ".join(parts), "--json")
    assert done.exit_code == 1 and done.stderr.startswith(f"tally: {log}:7: "), done  # the fifth part, at seq 3 + 4
    assert json.loads(done.stdout)["seq"] == 7
    assert len(_lines(log)) == 2


# --------------------------------------------------------------------------- stale appends


def test_an_append_that_saw_an_older_log_is_refused_as_stale(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    assert run_tally("move", str(log), "take r g b", "--expect-seq", "2").exit_code == 0
    size = log.stat().st_size
    fingerprint = record.check(log).fingerprint
    for command in (
        ["move", str(log), "ben: take w b k"],
        ["undo", str(log), "--reason", "oops"],
        ["note", str(log), "hi"],
    ):
        done = run_tally(*command, "--expect-seq", "2", "--json")
        assert done.exit_code == 1, done
        document = json.loads(done.stdout)
        assert document["accepted"] is False and [r["rule"] for r in document["rulings"]] == [STALE]
        assert "#3" in done.stderr and fingerprint in done.stderr and "[core.append.stale]" in done.stderr
        assert log.stat().st_size == size, "a stale append appends nothing"
    assert run_tally("move", str(log), "ben: take w b k", "--expect-seq", "3").exit_code == 0


def test_a_move_number_means_the_listing_it_was_shown_in(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    listing = json.loads(run_tally("moves", str(log), "--json").stdout)["moves"]
    assert run_tally("move", str(log), listing[0]).exit_code == 0  # the log moves on
    stale = run_tally("move", str(log), "1")  # number 1 of the listing at #2, not of the table now
    assert stale.exit_code == 1 and "[core.append.stale]" in stale.stderr and "#2" in stale.stderr, stale
    assert len(_lines(log)) == 3
    again = json.loads(run_tally("moves", str(log), "--json").stdout)["moves"]
    done = run_tally("move", str(log), "1")
    assert done.exit_code == 0 and done.stdout.startswith(f"#4 recorded: {again[0]}"), done


def test_sixteen_concurrent_moves_by_number_append_exactly_one(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    assert run_tally("moves", str(log)).exit_code == 0
    done = _at_once([["move", str(log), "1", "--json"] for _ in range(16)])
    codes = sorted(d.returncode for d in done)
    assert codes == [0] + [1] * 15, [d.stderr for d in done]
    refused = [json.loads(d.stdout) for d in done if d.returncode == 1]
    assert all([r["rule"] for r in document["rulings"]] == [STALE] for document in refused)
    assert len(_lines(log)) == 3 and record.check(log).ok


def test_four_concurrent_undos_that_saw_the_same_seq_void_exactly_one_event(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    for move in ("take r g b", "ben: take w b k", "take r g b"):
        assert record.move(log, move).accepted
    done = _at_once([["undo", str(log), "--reason", f"undo {i}", "--expect-seq", "5"] for i in range(4)])
    assert sorted(d.returncode for d in done) == [0, 1, 1, 1], [d.stderr for d in done]
    assert sum("[core.append.stale]" in d.stderr for d in done) == 3
    kinds = [line["type"] for line in _lines(log)]
    assert kinds.count("voided") == 1 and len(kinds) == 6 and record.check(log).ok


def test_the_service_refuses_a_stale_append_without_touching_its_fold(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    game = GameRecord.open(log)
    seen = (game.seq, game.last_hash)
    assert record.move(log, "take r g b").accepted  # another writer
    refused = game.append("take r g b", *seen)
    assert refused.is_stale and game.seq == 3 and len(_lines(log)) == 3  # brought up to the file, nothing appended
    assert game.append("ben: take w b k", game.seq, game.last_hash).accepted
    assert [e.seq for e in game.events_after(2)] == [3, 4] and game.wait_after(4, 0.01) == []


def test_a_damaged_log_under_json_names_a_reading_rule_never_null(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    log.write_bytes(log.read_bytes() + b'{"type":"noted","seq":3')  # a torn last line
    for command in (["check"], ["state"], ["replay"], ["move", "take r g b"], ["undo", "--reason", "r"]):
        done = run_tally(command[0], str(log), *command[1:], "--json")
        assert done.exit_code == 3, done
        document = json.loads(done.stdout)
        assert (
            document["error"] == "damaged" and isinstance(document["rule"], str) and document["rule"].startswith("log.")
        ), document


def test_rule_by_number_means_the_listing_it_was_shown_in(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    listing = json.loads(run_tally("moves", str(log), "--json").stdout)["moves"]
    asked = run_tally("rule", str(log), "1")
    assert asked.exit_code == 0 and asked.stdout.startswith("legal: "), asked
    assert run_tally("move", str(log), listing[0]).exit_code == 0  # the log moves on
    stale = run_tally("rule", str(log), "1", "--json")
    assert stale.exit_code == 1 and "[core.append.stale]" in stale.stderr and "#2" in stale.stderr, stale
    assert [r["rule"] for r in json.loads(stale.stdout)["rulings"]] == [STALE]
    assert run_tally("rule", str(log), "1", "--at", "2").exit_code == 0  # --at: the listing at that event
    assert run_tally("moves", str(log)).exit_code == 0
    assert run_tally("rule", str(log), "1").exit_code == 0
    assert len(_lines(log)) == 3


def test_an_append_may_name_the_fingerprint_it_saw_by_a_prefix(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    seen = record.check(log).fingerprint
    assert run_tally("move", str(log), "take r g b", "--expect-fingerprint", seen[:8].upper()).exit_code == 0
    size = log.stat().st_size
    for command in (
        ["move", str(log), "ben: take w b k"],
        ["undo", str(log), "--reason", "oops"],
        ["note", str(log), "hi"],
    ):
        done = run_tally(*command, "--expect-fingerprint", seen[:10])
        assert done.exit_code == 1 and "[core.append.stale]" in done.stderr, done
        for bad in (seen[:7], "z" * 8):
            refused = run_tally(*command, "--expect-fingerprint", bad)
            assert refused.exit_code == 2 and "8 to 64 hex digits" in refused.stderr, refused
        assert log.stat().st_size == size
    now = record.check(log).fingerprint
    assert run_tally("note", str(log), "hi", "--expect-fingerprint", now).exit_code == 0
