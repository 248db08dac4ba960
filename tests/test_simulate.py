"""Random playouts (store.simulate) and their table-mode transcripts."""

from __future__ import annotations

import random
from pathlib import Path

from tally.core.engine import judge
from tally.core.games.splendor import SPLENDOR, CardReserved, CardRevealed, SetupDealt
from tally.store import record
from tally.store.simulate import playout, simulate


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
