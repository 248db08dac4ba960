"""A stored game's page reads its chart's course off the steps it folds (`library_page._course`, through
`core.history.course_of_steps`): for every log without a void or a correction, with notes or without, it is the
course folded again (`core.history.course`); a log with a void or a correction is folded again instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from support import ROOT
from tally.core import registry
from tally.core.engine import judge
from tally.core.history import course, course_of_steps
from tally.core.model import Amended, Noted, Voided
from tally.store.logs import log as logfile
from tally.store.recording.simulate import simulate

FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))


def logs(folder: Path) -> list[Path]:
    return FIXTURES + [Path(p) for game in registry.names() for p in simulate(game, 2, 17, folder / game).files]


def test_the_course_read_off_the_steps_is_the_course_folded_again(tmp_path: Path) -> None:
    kinds = set()
    for path in logs(tmp_path):
        log = logfile.parse_lines(str(path), path.read_bytes())
        kinds |= {type(event).__name__ for event in log.events}
        steps: list[Any] = []
        judgement, table = judge(log.spec, log.events, kept=steps)
        assert judgement.ok, path
        if any(type(step[0]) in (Voided, Amended) for step in steps):
            continue  # `_course` folds these again with `course` itself
        read_off = course_of_steps(log.spec, log.started, [s for s in steps if type(s[0]) is not Noted], table.state)
        assert read_off == course(log.spec, log.started, table.effective), path
    assert {"Noted", "Voided"} <= kinds  # logs with a note and with a void were among them
