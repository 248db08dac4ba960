"""Corrections of any past move (`amended`): the fold re-judges every later event, a correction that would
make a later event illegal is refused naming it, and folding a log with a correction equals folding the
same log with the event replaced (or removed), for every game."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from support import run_tally
from tally.core import registry
from tally.core.engine import judge, play_out
from tally.core.model import Amended, Event, Noted, Voided
from tally.store.recording import record
from tally.store.recording.judging import payload
from tally.store.recording.service import shuffler, start_event

SEATS = ["ann", "ben", "cy", "dee", "eve"]


def _played(game: str, seed: int, length: int) -> tuple[list[Event], object]:
    spec = registry.get(game)
    _, started = start_event(game, SEATS[: spec.min_seats], {}, "open")
    rng = random.Random(seed)
    events, _ = play_out(spec, msgspec.structs.replace(started, seq=1), rng.choice, shuffler(rng), length)
    return [msgspec.structs.replace(e, seq=i) for i, e in enumerate(events, 1)], spec


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(registry.names()),
    seed=st.integers(0, 10**6),
    length=st.integers(4, 60),
    pick=st.integers(0, 10**6),
    choice=st.integers(0, 10**6),
    void=st.booleans(),
)
def test_folding_a_correction_equals_folding_the_log_with_the_event_replaced(
    game: str, seed: int, length: int, pick: int, choice: int, void: bool
) -> None:
    events, spec = _played(game, seed, length)
    judgement, table = judge(spec, events)
    assert judgement.ok
    targets = [e.seq for e in table.effective if spec.is_voidable(e)]
    if not targets:
        return
    target = targets[pick % len(targets)]
    before = table.state_before(target)
    moves = spec.legal_moves(before)
    replacement = [] if void or not moves else [moves[choice % len(moves)]]
    seq = len(events) + 1
    amended = [*events, Amended(seq=seq, target=target, reason="misread", events=[payload(e) for e in replacement])]
    replaced = [*events[: target - 1], *(msgspec.structs.replace(e, seq=target) for e in replacement), *events[target:]]
    replaced = [msgspec.structs.replace(e, seq=i) for i, e in enumerate(replaced, 1)]
    expected, expected_table = judge(spec, replaced)
    got, got_table = judge(spec, amended)
    event(f"{game} {'refused' if not expected.ok else 'accepted'}")
    if expected.ok:
        assert got.ok, [r.render() for r in got.rulings]
        assert got_table.state == expected_table.state
        assert [payload(e) for e in got_table.effective] == [payload(e) for e in expected_table.effective]
    else:
        assert not got.ok and got.failed_seq == seq
        ruling = got.rulings[0]
        assert ruling.rule == "core.amend.breaks-later"
        # the first later event that breaks: the log without a voided event numbers it one lower
        assert ruling.facts["seq"] - (1 - len(replacement)) == expected.failed_seq


def _game(tmp_path: Path) -> Path:
    log = tmp_path / "g.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    for move in ("take r g b", "ben: take w b k", "take r g b", "ben: take w b k"):
        assert record.move(log, move).accepted
    return log


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    game=st.sampled_from(registry.names()),
    seed=st.integers(0, 10**6),
    length=st.integers(4, 60),
    cut=st.integers(0, 10**6),
    pick=st.integers(0, 10**6),
    fix=st.sampled_from(["void", "void at the end", "remove", "replace by itself", "note"]),
)
def test_a_fold_that_keeps_no_undo_stack_judges_every_log_alike(
    game: str, seed: int, length: int, cut: int, pick: int, fix: str
) -> None:
    """`judge(undoable=False)` (check, ingest) rebuilds the undo stack at a log's first void or correction: its
    verdict, end state and effective events are those of the fold that kept the stack all along, legal or not
    (the events after a void are often illegal once it is made)."""
    played, spec = _played(game, seed, length)
    noted = 1 + pick % len(played)  # a note somewhere before the correction: the rebuilt stack must skip it
    played = [
        msgspec.structs.replace(e, seq=i)
        for i, e in enumerate([*played[:noted], Noted(text="a remark before"), *played[noted:]], 1)
    ]
    at = 1 + cut % (len(played) - 1)
    head, tail = played[:at], played[at:]
    voidable = [e.seq for e in head[1:] if spec.is_voidable(e)] or [head[-1].seq]  # else refused: judged alike too
    target = head[-1].seq if fix.startswith("void") else voidable[pick % len(voidable)]
    fixes = {
        "void": Voided(seq=at + 1, target=target, reason="typo"),
        "remove": Amended(seq=at + 1, target=target, reason="misread"),
        "replace by itself": Amended(seq=at + 1, target=target, reason="misread", events=[payload(played[target - 1])]),
        "note": Noted(seq=at + 1, text="a remark"),
    }
    fixes["void at the end"] = fixes["void"]
    if fix == "void at the end":
        tail = []
    events = [*head, fixes[fix], *(msgspec.structs.replace(e, seq=i) for i, e in enumerate(tail, at + 2))]
    kept, kept_table = judge(spec, events)
    lazy, lazy_table = judge(spec, events, undoable=False)
    event(f"{fix} {'accepted' if kept.ok else 'refused'}")
    assert lazy == kept
    assert (lazy_table.state, lazy_table.last_seq) == (kept_table.state, kept_table.last_seq)
    if fix != "note":
        assert lazy_table._undo == kept_table._undo
        assert lazy_table.effective == kept_table.effective


def test_amend_replaces_a_past_move_and_check_replay_honour_it(tmp_path: Path) -> None:
    log = _game(tmp_path)
    done = run_tally("amend", str(log), "3", "take r g w", "ana", "took", "white")
    assert done.exit_code == 0, done
    assert done.stdout.startswith("#7 recorded: amend #3: ana: take r g b -> ana: take r g w (ana took white)")
    line = json.loads(log.read_text().splitlines()[-1])
    assert line["type"] == "amended" and line["target"] == 3
    assert line["events"] == [{"type": "gems_taken", "player": "ana", "gems": ["r", "g", "w"]}]
    assert run_tally("check", str(log)).exit_code == 0
    replay = json.loads(run_tally("replay", str(log), "--json").stdout)
    assert [step["seq"] for step in replay["steps"] if step["voided"]] == [3]
    state = record.position(log).table
    assert [e.seq for e in state.effective][-3:] == [7, 4, 5] or [e.seq for e in state.effective][-4:] == [7, 4, 5, 6]


def test_a_correction_that_breaks_a_later_event_is_refused_naming_it(tmp_path: Path) -> None:
    log = _game(tmp_path)
    size = log.stat().st_size
    voided = run_tally("undo", str(log), "--event", "4", "ben", "misread")
    assert voided.exit_code == 1 and "would make #5 illegal" in voided.stderr, voided
    assert "[splendor.turn.out-of-turn]" in voided.stderr and "[core.amend.breaks-later]" in voided.stderr
    illegal = run_tally("amend", str(log), "4", "ben: take r r", "--reason", "two red")
    assert illegal.exit_code == 1 and "[core.amend.illegal]" in illegal.stderr, illegal
    unreadable = run_tally("amend", str(log), "4", "ben: grab", "--reason", "x")
    assert unreadable.exit_code == 2, unreadable
    dealt = run_tally("undo", str(log), "--event", "2", "--reason", "x")
    assert dealt.exit_code == 1 and "[core.amend.dealt]" in dealt.stderr
    nothing = run_tally("undo", str(log), "--event", "99", "--reason", "x")
    assert nothing.exit_code == 1 and "[core.amend.not-effective]" in nothing.stderr
    both = run_tally("undo", str(log), "--event", "3", "--turn", "--reason", "x")
    assert both.exit_code == 2
    assert log.stat().st_size == size, "a refused correction appends nothing"


def test_corrections_are_guarded_by_the_seq_and_fingerprint_seen(tmp_path: Path) -> None:
    log = _game(tmp_path)
    size = log.stat().st_size
    for guard in (["--expect-seq", "5"], ["--expect-fingerprint", "0" * 8]):
        for command in (["amend", str(log), "6", "ben: take w b g", "x"], ["undo", str(log), "--event", "6", "x"]):
            done = run_tally(*command, *guard)
            assert done.exit_code == 1 and "[core.append.stale]" in done.stderr, done
    assert log.stat().st_size == size
    last = run_tally("undo", str(log), "--event", "6", "x", "--expect-seq", "6")  # the last: a plain void
    assert last.exit_code == 0 and json.loads(log.read_text().splitlines()[-1])["type"] == "voided"


def test_the_session_undoes_and_amends_any_event_by_its_number(tmp_path: Path) -> None:
    import subprocess
    import sys

    log = _game(tmp_path)
    script = "amend #3 take r g w\nundo #4 ben misread\namend #x take r\namend #3\nundo #6\nquit\n"
    done = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()", "record", str(log)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = done.stdout.splitlines()
    assert done.returncode == 1, done
    assert any(line.startswith("#7 recorded: amend #3: ana: take r g b -> ana: take r g w") for line in out), out
    assert any("would make #5 illegal" in line and "[core.amend.breaks-later]" in line for line in out), out
    assert any(line.startswith("'#x' is not an event number") for line in out), out
    assert any(line.startswith("amend which event, by what?") for line in out), out
    assert any(line.startswith("#8 recorded: void #6: ben: take w b k (undone at the table)") for line in out), out
    kinds = [json.loads(line)["type"] for line in log.read_text().splitlines()]
    assert kinds[-2:] == ["amended", "voided"] and record.check(log).ok


def test_a_correction_holding_deep_or_loose_json_is_refused_never_a_traceback(tmp_path: Path) -> None:
    from tally.store.logs import log as logfile

    log = _game(tmp_path)
    for events, code, rule in (
        (b"[" + b"[" * 5000 + b"]" * 5000 + b"]", 3, "log.depth"),
        (b'[{"type": "gems_taken","player":"ana","gems":["r","g","w"]}]', 1, "core.amend.event"),
        (b'[{"type":"gems_taken","player":"ana","gems":["r","g","w"],"seq":3}]', 1, "core.amend.event"),
        (b'[{"type":"noted","text":"x"}]', 1, "core.amend.event"),
    ):
        copy = tmp_path / "copy.jsonl"
        data = log.read_bytes()
        prev = logfile.sha256_hex(data.splitlines()[-1])
        line = (
            b'{"type":"amended","seq":7,"at":"2026-12-01T11:19:48.855Z","prev":"'
            + prev.encode()
            + b'","target":3,"reason":"x","events":'
            + events
            + b"}"
        )
        copy.write_bytes(data + line + b"\n")
        done = run_tally("check", str(copy), "--json")
        assert done.exit_code == code and "Traceback" not in done.stderr, done
        assert json.loads(done.stdout)["rule"] == rule, done


# --------------------------------------------------------------------------- one test per kernel rule id


def _table_and_take(tmp_path: Path, gems: list[str], player: str = "ana") -> tuple[object, msgspec.Raw]:
    from tally.core.games.splendor.events import GemsTaken

    table = record.position(_game(tmp_path)).table
    return table, payload(GemsTaken(player=player, gems=gems))


def _rules(table: object, event: Amended) -> list[str]:
    return [r.rule for r in table.check(event)]  # type: ignore[attr-defined]


def test_core_amend(tmp_path: Path) -> None:
    table, take = _table_and_take(tmp_path, ["r", "g", "w"])
    event = Amended(seq=7, target=3, reason="misread", events=[take])
    assert _rules(table, event) == [] and table.permit(event).rule == "core.amend"  # type: ignore[attr-defined]


def test_core_amend_breaks_later(tmp_path: Path) -> None:
    table, _ = _table_and_take(tmp_path, [])
    assert _rules(table, Amended(seq=7, target=4, reason="x")) == ["core.amend.breaks-later"]


def test_core_amend_dealt(tmp_path: Path) -> None:
    table, _ = _table_and_take(tmp_path, [])
    assert _rules(table, Amended(seq=7, target=2, reason="x")) == ["core.amend.dealt"]


def test_core_amend_event(tmp_path: Path) -> None:
    table, _ = _table_and_take(tmp_path, [])
    loose = msgspec.Raw(b'{"type": "gems_taken","player":"ana","gems":["r"]}')
    assert _rules(table, Amended(seq=7, target=3, reason="x", events=[loose])) == ["core.amend.event"]
    foreign = msgspec.Raw(b'{"type":"noted","text":"x"}')
    assert _rules(table, Amended(seq=7, target=3, reason="x", events=[foreign])) == ["core.amend.event"]


def test_core_amend_illegal(tmp_path: Path) -> None:
    table, take = _table_and_take(tmp_path, ["r", "r"], "ben")  # after ana's take: 3 red left
    assert _rules(table, Amended(seq=7, target=4, reason="x", events=[take])) == ["core.amend.illegal"]


def test_core_amend_not_effective(tmp_path: Path) -> None:
    table, _ = _table_and_take(tmp_path, [])
    for target in (1, 99):
        assert _rules(table, Amended(seq=7, target=target, reason="x")) == ["core.amend.not-effective"]


def test_core_amend_reason(tmp_path: Path) -> None:
    table, take = _table_and_take(tmp_path, ["r", "g", "w"])
    assert _rules(table, Amended(seq=7, target=3, reason="  ", events=[take])) == ["core.amend.reason"]


def test_the_library_holds_a_corrected_game_as_if_the_event_had_been_replaced(tmp_path: Path) -> None:
    # the projections come from the effective events (the correction's in place of its target) and the
    # events table marks the target voided; only the seq of the replacing event differs (it is the correction's)
    corrected, direct = tmp_path / "corrected.jsonl", tmp_path / "direct.jsonl"
    for path, second in ((corrected, "take w k r"), (direct, "take w g k")):
        assert run_tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "3").exit_code == 0
        for move in ("take r g b", second, "take r g b", "take w k g"):
            assert run_tally("move", str(path), move).exit_code == 0, move
    assert run_tally("amend", str(corrected), "4", "take w g k", "misread").exit_code == 0
    db = tmp_path / "l.duckdb"
    assert run_tally("ingest", str(corrected), str(direct), "--db", str(db)).exit_code == 0

    def rows(query: str) -> list[list[object]]:
        done = run_tally("sql", "--db", str(db), "--json", query)
        assert done.exit_code == 0, done
        return [list(row.values()) if isinstance(row, dict) else row for row in json.loads(done.stdout)["rows"]]

    turns = "select * exclude (game_id, seq) from splendor_turns where game_id = (select game_id from games where source like '%{}') order by turn"
    assert rows(turns.format("corrected.jsonl")) == rows(turns.format("direct.jsonl"))
    scores = "select player, score from seats join games using (game_id) where source like '%{}' order by 1"
    assert rows(scores.format("corrected.jsonl")) == rows(scores.format("direct.jsonl"))
    voided = rows("select seq from events join games using (game_id) where source like '%corrected.jsonl' and voided")
    assert voided == [[4]]
