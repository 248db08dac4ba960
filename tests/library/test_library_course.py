"""A stored game's page reads its chart's course off the replay it folds for its steps (`library_page._course`):
for every log, with notes, voids or corrections or without, it is the course folded again (`core.history.course`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tally.core import registry
from tally.core.history import course
from tally.store.logs import log as logfile
from tally.store.library.page import _course
from tally.store.recording.record import replay_log
from tally.store.recording.simulate import simulate

from support import ROOT

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))


def logs(folder: Path) -> list[Path]:
    return FIXTURES + [Path(p) for game in registry.names() for p in simulate(game, 2, 17, folder / game).files]


def test_the_course_read_off_the_replay_is_the_course_folded_again(tmp_path: Path) -> None:
    kinds = set()
    for path in logs(tmp_path):
        log = logfile.parse_lines(str(path), path.read_bytes())
        pos, frames = replay_log(log)
        kinds |= {type(event).__name__ for event in log.events}
        assert _course(pos, frames) == course(pos.spec, log.started, pos.table.effective), path
    assert {"Noted", "Voided"} <= kinds  # logs with a note and with a void were among them


@pytest.mark.parametrize("fixture", [p for p in FIXTURES if b'"type":"voided"' in p.read_bytes()][:1])
def test_a_corrected_log_is_folded_again(fixture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tally.core import history

    folded: list[int] = []
    original = history.course
    monkeypatch.setattr(history, "course", lambda *args: folded.append(1) or original(*args))
    log = logfile.parse_lines(str(fixture), fixture.read_bytes())
    _course(*replay_log(log))
    assert folded == [1]
