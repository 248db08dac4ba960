"""A stored game's page reads its chart's course off one fold of the whole game (`library_page._course`), kept beside
the game's checkpoints: for every log, with notes, voids or corrections or without, it is the course folded again
(`core.history.course`), sampled as the chart draws it; once kept it is read back, the game not folded again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tally.core import registry
from tally.core.engine import judge
from tally.core.history import course
from tally.store import library
from tally.store.library.charts import sampled
from tally.store.library.folding import game_id_of
from tally.store.library.page import StoredLines, _course, _stored
from tally.store.logs import log as logfile
from tally.store.recording.simulate import simulate

from support import ROOT

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))


def logs(folder: Path) -> list[Path]:
    return FIXTURES + [Path(p) for game in registry.names() for p in simulate(game, 2, 17, folder / game).files]


def stored(db: Path, path: Path) -> StoredLines:
    """The stored game whose log is at `path`."""
    gid = game_id_of(path.read_bytes().split(b"\n", 1)[0])
    found = _stored(db, gid, with_row=False)
    assert found is not None, path
    return found[1]


def folded_again(path: Path) -> object:
    log = logfile.parse_lines(str(path), path.read_bytes())
    judgement, table = judge(log.spec, log.events)
    assert judgement.ok
    return sampled(course(log.spec, log.started, table.effective))


def test_the_course_of_a_stored_game_is_the_course_folded_again(tmp_path: Path) -> None:
    every = logs(tmp_path)
    db = tmp_path / "club.duckdb"
    assert not library.ingest(db, every, jobs=1).rejected
    kinds = set()
    for path in every:
        kinds |= {type(event).__name__ for event in logfile.parse_lines(str(path), path.read_bytes()).events}
        assert _course(stored(db, path)) == folded_again(path), path
    assert {"Noted", "Voided"} <= kinds  # logs with a note and with a void were among them


@pytest.mark.parametrize("fixture", [p for p in FIXTURES if b'"type":"voided"' in p.read_bytes()][:1])
def test_a_corrected_log_is_folded_again_once_then_read_back(fixture: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from tally.core import history
    from tally.store.recording import positions

    db = tmp_path / "club.duckdb"
    assert not library.ingest(db, [fixture], jobs=1).rejected
    folded: list[int] = []
    original = history.course
    monkeypatch.setattr(history, "course", lambda *args: folded.append(1) or original(*args))
    first = _course(stored(db, fixture))
    assert folded == [1]  # a log with a void: its effective events folded again, once

    def refold(*args: object, **kwargs: object) -> None:
        raise AssertionError("the kept course was not read back")

    monkeypatch.setattr(positions, "reach", refold)
    assert _course(stored(db, fixture)) == first and folded == [1]
