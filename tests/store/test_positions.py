"""Positions of a log folded from the checkpoint before them (issue 36): what the whole log gives, event for event and
state for state (a void reaching back before a checkpoint included), never another history's checkpoint, and an
illegal event after one refused as a whole read refuses it."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import msgspec
import pytest

from support.playout import Recorder
from tally.core import registry
from tally.core.engine import judge
from tally.core.model import Noted, Voided
from tally.store.logs import checkpoints
from tally.store.logs import log as logfile
from tally.store.logs.logstore import JsonlStore
from tally.store.recording import positions, record
from tally.store.recording.service import IllegalLog, shuffler, start_event
from tally.store.recording.simulate import _stamp_fast, units


def stamped(path: Path, events: list[Any]) -> Path:
    spec = registry.get(events[0].game)
    from datetime import datetime, timezone

    path.write_bytes(_stamp_fast(events, datetime(2025, 1, 1, tzinfo=timezone.utc), units(spec, events)))
    return path


def whole_fold(path: Path) -> tuple[Any, list[tuple[Any, Any, Any]]]:
    """The log judged from line 1, as `tally check` does: the last state and every step."""
    log = logfile.read(path)
    kept: list[tuple[Any, Any, Any]] = []
    judgement, table = judge(log.spec, log.events, kept=kept)
    assert judgement.ok
    return table.state, kept


def corrected_game(seed: int) -> list[Any]:
    """A random open Splendor game with voids and notes along the way (what a table's log holds)."""
    spec = registry.get("splendor")
    _, started = start_event("splendor", ["ana", "ben", "cy"], {}, "open")
    rng = random.Random(seed)
    shuffle = shuffler(rng)
    recorder = Recorder(spec, msgspec.structs.replace(started, seq=1), voids=True, notes=True)
    for event in dealt(spec, recorder, shuffle):
        recorder.record(event)
    while len(recorder.events) < 160:
        moves = spec.legal_moves(recorder.state)
        if not moves:
            break
        roll = rng.random()
        if roll < 0.08 and recorder.can_void():
            recorder.record(Voided(target=recorder.table.last_effective_seq or 0, reason="misread"))
        elif roll < 0.12:
            recorder.record(Noted(text="a note"))
        else:
            recorder.record(moves[rng.randrange(len(moves))])
            for event in dealt(spec, recorder, shuffle):
                recorder.record(event)
    return recorder.events


def dealt(spec: Any, recorder: Recorder, shuffle: Any) -> list[Any]:
    from tally.core.engine import dealt as deal

    events, _ = deal(spec, recorder.state, shuffle)
    return events


# --------------------------------------------------------------------------- positions from checkpoints


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_position_folded_from_a_checkpoint_is_the_whole_logs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    """With a checkpoint every 8 lines, any page of steps of a log with voids and notes (a void reaching back before
    a checkpoint included) is the whole fold's, event for event and state for state, and so is its tail."""
    monkeypatch.setattr(checkpoints, "SPACING", 8)
    path = stamped(tmp_path / "g.jsonl", corrected_game(seed))
    assert any(isinstance(e, Voided) for e in logfile.read(path).events)
    state, steps = whole_fold(path)
    lines = JsonlStore(path)
    assert positions.reach(lines).table.state == state  # the first read folds it all and keeps the checkpoints
    assert len(checkpoints.saved(positions.key_of(lines.first_line()))) >= len(steps) // 8 - 2
    assert positions.reach(lines).table.state == state
    rng = random.Random(seed)
    for _ in range(30):
        after = rng.randrange(1, len(steps))
        upto = min(len(steps) + 1, after + rng.randrange(1, 40))
        assert positions.steps(lines, after, upto) == steps[after - 1 : upto - 1]


def test_a_checkpoint_of_another_history_is_never_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two logs with the same first line (a game and a fork of it, a log restored from another backup) share a
    folder of checkpoints: each is folded from its own history's."""
    monkeypatch.setattr(checkpoints, "SPACING", 8)
    one, other = corrected_game(7), corrected_game(7)
    fork = other[:60]
    spec = registry.get("splendor")
    recorder = Recorder(spec, fork[0])
    for event in fork[1:]:
        recorder.record(event)
    rng = random.Random(99)
    while len(recorder.events) < 140 and spec.legal_moves(recorder.state) and not spec.shuffles(recorder.state):
        moves = spec.legal_moves(recorder.state)
        recorder.record(moves[rng.randrange(len(moves))])
    first = stamped(tmp_path / "one.jsonl", one)
    forked = stamped(tmp_path / "fork.jsonl", recorder.events)
    assert first.read_bytes().split(b"\n")[0] == forked.read_bytes().split(b"\n")[0]
    assert recorder.events[60:] != one[60 : len(recorder.events)]
    positions.reach(JsonlStore(first))
    state, steps = whole_fold(forked)
    assert positions.reach(JsonlStore(forked)).table.state == state
    assert positions.steps(JsonlStore(forked), 100, 130) == steps[99:129]


def test_an_illegal_event_after_a_checkpoint_is_refused_as_a_whole_read_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoints, "SPACING", 8)
    events = corrected_game(3)
    path = stamped(tmp_path / "g.jsonl", events)
    positions.reach(JsonlStore(path))
    bad = stamped(tmp_path / "bad.jsonl", [*events, Voided(target=1, reason="the start is no event to void")])
    with pytest.raises(IllegalLog):
        positions.reach(JsonlStore(bad))
    with pytest.raises(IllegalLog):
        record.position(bad)
