"""Random playouts (store.simulate) and their table-mode transcripts."""

from __future__ import annotations

import random
from pathlib import Path

from tally.core.engine import judge
from tally.core.games.splendor import SPLENDOR, CardReserved, CardRevealed, SetupDealt
from tally.store.recording import record
from tally.store.recording.simulate import playout, simulate


def test_table_transcript_is_judged_legal_with_the_same_outcome() -> None:
    blind = 0
    for index in range(25):
        events, state = playout("splendor", 2 + index % 3, random.Random(f"transcript:{index}"))
        transcript = SPLENDOR.table_transcript(events)
        judgement, table = judge(SPLENDOR, transcript)
        assert judgement.ok, (index, judgement)
        assert SPLENDOR.outcome(table.state) == SPLENDOR.outcome(state)
        assert transcript[0].mode == "table" and not any(isinstance(e, SetupDealt) for e in transcript)
        reveals = [e for e in transcript if isinstance(e, CardRevealed)]
        assert len(reveals) >= 12  # the face-up setup, then every refill
        hidden = [e for e in transcript if isinstance(e, CardReserved) and e.level is not None]
        assert all(e.card is None for e in hidden)  # the recorder never saw a blind reserve
        blind += len(hidden)
        # what hinges on a card the recorder never saw is unverifiable, never illegal
        assert {r.rule for _, r in judgement.warnings} <= {"splendor.buy.blind-reserve", "splendor.stuck.pass"}
        assert all(r.verdict == "unverifiable" for _, r in judgement.warnings)
    assert blind > 0, "the sample must include blind reserves"


def test_simulate_table_mode_writes_logs_that_check_accepts(tmp_path: Path) -> None:
    summary = simulate("splendor", 4, 11, tmp_path, players=3, mode="table")
    assert summary.finished == 4
    for path in summary.files:
        report = record.check(path)
        assert report.ok and report.outcome is not None, report
    again = simulate("splendor", 4, 11, tmp_path / "again", players=3, mode="table")
    assert [Path(p).read_bytes() for p in summary.files] == [Path(p).read_bytes() for p in again.files]


def test_simulated_lines_are_stamped_one_minute_apart(tmp_path: Path) -> None:
    """The playout writer's looked-up time stamps are each event's time formatted in full, one minute apart from
    a start at odd milliseconds late in the day (so they cross midnight), and its lines read back as a log."""
    from datetime import datetime, timedelta, timezone

    import msgspec

    from tally.store.logs import log as logfile
    from tally.store.recording.simulate import _stamp_fast, units

    events, _ = playout("splendor", 3, random.Random("stamps"))
    start = datetime(2026, 3, 31, 23, 17, 4, 321_000, tzinfo=timezone.utc)
    marks = units(SPLENDOR, events)
    lines, prev = [], None
    for seq, event in enumerate(events, 1):
        at = (start + timedelta(minutes=seq)).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        lines.append(logfile.encode(msgspec.structs.replace(event, seq=seq, at=at, prev=prev, unit=marks[seq - 1])))
        prev = logfile.sha256_hex(lines[-1])
    written = _stamp_fast(events, start, marks)
    assert written == b"\n".join(lines) + b"\n"
    assert b'"at":"2026-04-01T' in written and len(events) > 60
    path = tmp_path / "stamped.jsonl"
    path.write_bytes(written)
    assert logfile.read(path).fingerprint == prev


def test_a_playouts_draws_are_the_generators_own() -> None:
    """The playout's `below` and shuffle draw what `rng.randrange` and `random.shuffle` would, in the same order, so
    a seed plays the same games as when they were called."""
    from tally.store.recording.service import shuffler
    from tally.store.recording.simulate import draws

    for seed in range(50):
        ours, theirs = random.Random(seed), random.Random(seed)
        below, shuffle = draws(ours)
        for n in (1, 2, 3, 7, 8, 25, 90, 1000, 2**40 + 3):
            assert below(n) == theirs.randrange(n)
        assert shuffle(list(range(90))) == shuffler(theirs)(list(range(90)))
        assert shuffle(["only"]) == ["only"] and shuffle([]) == []
        assert ours.random() == theirs.random()


def test_a_generator_that_draws_otherwise_is_asked_itself() -> None:
    from tally.store.recording.simulate import draws

    class Counted(random.Random):
        def _randbelow(self, n: int) -> int:
            return 0

    below, _ = draws(Counted(1))
    assert below(5) == 0


def test_wins_are_reported_by_the_names_the_logs_give_the_seats(tmp_path: Path) -> None:
    """`tally simulate`'s wins by seat use the logs' own player names (p1, p2, ...), counted from the logs."""
    from typer.testing import CliRunner

    from tally.cli.main import app

    done = CliRunner().invoke(app, ["simulate", "splendor", "--games", "6", "--seed", "3", "--out", str(tmp_path)])
    assert done.exit_code == 0, done.output
    counted: dict[str, int] = {}
    for path in sorted(tmp_path.glob("*.jsonl")):
        report = record.check(path)
        assert report.outcome is not None
        for winner in report.outcome.winners:
            counted[winner] = counted.get(winner, 0) + 1
    assert counted and all(name.startswith("p") for name in counted)
    said = done.output.splitlines()[1]
    assert said == "wins by seat: " + ", ".join(f"{name} {counted[name]}" for name in sorted(counted)), said
