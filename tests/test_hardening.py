"""Issue 16's findings, each reproduced as a real `tally` process: a repair that verifies, torn ends that are
recognised whatever shape the crash left, no input that ends in exit 4, anchors, and look-alike names."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support import ROOT



def _lines(path: Path) -> list[bytes]:
    return path.read_bytes()[:-1].split(b"\n")


def _joined(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _with_unit(line: bytes, unit: int) -> bytes:
    """`line` with a `unit` field written where tally writes it (after the envelope's prev)."""
    event = json.loads(line)
    envelope = {key: event.pop(key) for key in ("type", "seq", "at", "prev") if key in event}
    event.pop("unit", None)
    return json.dumps({**envelope, "unit": unit, **event}, ensure_ascii=False, separators=(",", ":")).encode()


def _splendor(tmp_path: Path, tally: Any, name: str = "g.jsonl") -> Path:
    path = tmp_path / name
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "1").exit_code == 0
    for move in ("take r g b", "take w w", "take r g b"):
        assert tally("move", str(path), move).exit_code == 0
    return path


def _unchanged_refusal(tally: Any, path: Path, before: bytes) -> str:
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 3, repaired
    assert path.read_bytes() == before and not Path(f"{path}.torn-1").exists(), "a refused repair changes nothing"
    assert repaired.stderr.count("\n") == 1 and "nothing was changed" in repaired.stderr
    return repaired.stderr


# --------------------------------------------------------------------------- 1. repair trusts no unit count


def test_finding_1_repair_refuses_when_a_corrupt_unit_count_would_cut_verified_lines(tmp_path: Path, tally: Any) -> None:
    path = _splendor(tmp_path, tally)
    lines = _lines(path)
    assert b'"unit":2' in lines[0]
    forged = _joined([lines[0].replace(b'"unit":2', b'"unit":6', 1)] + lines[1:])  # one bit
    path.write_bytes(forged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and f"{path}:2: prev does not match" in checked.stderr, checked
    message = _unchanged_refusal(tally, path, forged)
    assert f"{path}:2: prev does not match" in message


def test_finding_1_a_unit_of_1000_in_a_long_split_log_cuts_nothing(tmp_path: Path, tally: Any) -> None:
    games = tmp_path / "games"
    assert tally("simulate", "split", "--games", "1", "--seed", "1", "--out", str(games)).exit_code == 0
    lines = _lines(next(games.glob("*.jsonl")))
    assert len(lines) >= 52 and b'"unit"' not in lines[9]
    path = tmp_path / "split.jsonl"
    forged = _joined(lines[:9] + [_with_unit(lines[9], 1000)] + lines[10:])
    path.write_bytes(forged)
    message = _unchanged_refusal(tally, path, forged)
    assert f"{path}:11: prev does not match" in message
    assert tally("check", str(path)).exit_code == 3  # still damaged: never passes as a valid shorter log


# --------------------------------------------------------------------------- 4. zero-filled blocks in the last unit


def _table_reveal(tmp_path: Path, tally: Any) -> tuple[Path, bytes, bytes]:
    """A table-mode log whose last command wrote three lines in one unit: (path, bytes before it, its bytes)."""
    path = tmp_path / "table.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben").exit_code == 0
    before = path.read_bytes()
    assert tally("move", str(path), "reveal w4b4 b3g3r3 r4k4").exit_code == 0
    return path, before, path.read_bytes()[len(before):]


@pytest.mark.parametrize("where", ["first line", "across a newline", "last line", "to the end"])
def test_finding_4_a_zero_filled_block_inside_the_last_unit_is_torn_and_repairs(tmp_path: Path, tally: Any, where: str) -> None:
    path, before, unit = _table_reveal(tmp_path, tally)
    first_end = unit.index(b"\n")
    start, end = {"first line": (10, 30), "across a newline": (first_end - 5, first_end + 20),
                  "last line": (len(unit) - 30, len(unit) - 5), "to the end": (len(unit) - 30, len(unit))}[where]
    damaged = before + unit[:start] + bytes(end - start) + unit[end:]
    path.write_bytes(damaged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and checked.stderr.count("\n") == 1, checked
    assert "zero bytes" in checked.stderr or "torn last line" in checked.stderr, checked.stderr
    assert "verify from line 1" in checked.stderr
    moved = tally("move", str(path), "reveal 1k0-w1b1g1r1")
    assert moved.exit_code == 3 and path.read_bytes() == damaged  # no writer appends after a torn end
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 0, repaired
    assert "kept lines 1-1" in repaired.stdout
    assert path.read_bytes() == before and Path(f"{path}.torn-1").read_bytes() == damaged[len(before):]
    assert tally("check", str(path)).exit_code == 0


def test_finding_4_zero_bytes_before_a_later_write_are_damage_not_torn(tmp_path: Path, tally: Any) -> None:
    path, before, unit = _table_reveal(tmp_path, tally)
    assert tally("move", str(path), "reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3 1r0-w3").exit_code == 0  # a later unit
    data = path.read_bytes()
    damaged = data[: len(before) + 10] + bytes(20) + data[len(before) + 30:]
    path.write_bytes(damaged)
    assert tally("check", str(path)).exit_code == 3
    _unchanged_refusal(tally, path, damaged)


# --------------------------------------------------------------------------- 6. "intact" only after verifying


def test_finding_6_a_torn_tail_after_a_damaged_line_reports_the_damage(tmp_path: Path, tally: Any) -> None:
    path = _splendor(tmp_path, tally)
    lines = _lines(path)
    damaged = _joined(lines[:2] + [lines[2].replace(b'"seq":3', b'"seq":9', 1)] + lines[3:])[:-7]
    path.write_bytes(damaged)
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and f"{path}:3: expected seq 3, found 9" in checked.stderr, checked
    said = checked.stderr.split(f"{path}:3: ", 1)[1]
    assert "intact" not in said and "torn" not in said
    _unchanged_refusal(tally, path, damaged)


def test_finding_6_a_torn_tail_names_the_lines_that_verify(tmp_path: Path, tally: Any) -> None:
    path = _splendor(tmp_path, tally)
    path.write_bytes(path.read_bytes()[:-7])
    checked = tally("check", str(path))
    assert checked.exit_code == 3 and "torn last line" in checked.stderr and "lines 1-4 verify from line 1" in checked.stderr
    repaired = tally("repair", str(path))
    assert repaired.exit_code == 0 and "kept lines 1-4" in repaired.stdout, repaired


# --------------------------------------------------------------------------- 2. deep nesting never ends in exit 4


def _deep(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


GAMES = sorted(p.name for p in (ROOT / "core" / "games").iterdir() if (p / "__init__.py").exists())


@pytest.mark.parametrize("game", GAMES)
def test_finding_2_a_line_nested_1000_deep_is_exit_3_for_every_reader(tmp_path: Path, tally: Any, game: str) -> None:
    path = tmp_path / f"{game}.jsonl"
    assert tally("new", game, str(path), "-p", "ana", "-p", "ben").exit_code == 0
    lines = _lines(path)
    deep = ('{"type":"noted","seq":%d,"at":"2026-01-01T00:00:00.000Z","prev":"%s","text":%s}'
            % (len(lines) + 1, "0" * 64, _deep(1000))).encode()
    path.write_bytes(_joined(lines + [deep]))
    damaged = path.read_bytes()
    for command in (["check"], ["moves"], ["state"], ["replay"], ["repair"], ["move", "note hi"], ["note", "hi"]):
        result = tally(command[0], str(path), *command[1:])
        assert result.exit_code == 3, (command, result)
        assert f"{path}:{len(lines) + 1}: nested more than 32 levels deep" in result.stderr, (command, result.stderr)
    assert path.read_bytes() == damaged
    ingested = tally("ingest", str(path), "--db", str(tmp_path / "library.duckdb"))
    assert ingested.exit_code == 3 and "internal" not in ingested.stderr and "nested more than 32" in ingested.stderr, ingested


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_finding_2_a_manifest_nested_1000_deep_is_a_usage_error(tmp_path: Path, tally: Any, suffix: str) -> None:
    manifest = tmp_path / f"deep{suffix}"
    if suffix == ".json":
        manifest.write_text('{"id":"x","cards":' + _deep(1000) + "}")
    else:
        manifest.write_text('id = "x"\ncards = ' + _deep(1000) + "\n")
    result = tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", "ana", "-p", "ben", "--manifest", str(manifest))
    assert result.exit_code == 2 and "nested more than 30 levels deep" in result.stderr, result
    dotted = tmp_path / "dotted.toml"  # nesting without a bracket
    dotted.write_text("id = 'x'\n" + ".".join(f"k{i}" for i in range(1000)) + " = 1\n")
    result = tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", "ana", "-p", "ben", "--manifest", str(dotted))
    assert result.exit_code == 2 and "nested more than 30 levels deep" in result.stderr, result
    assert not (tmp_path / "g.jsonl").exists()


# --------------------------------------------------------------------------- 11. anchors


def _fingerprints(tally: Any, path: Path) -> list[str]:
    import hashlib

    return [hashlib.sha256(line).hexdigest() for line in _lines(path)]


def test_anchors_hold_for_the_log_they_were_taken_from(tmp_path: Path, tally: Any) -> None:
    path = _splendor(tmp_path, tally)
    prints = _fingerprints(tally, path)
    checked = tally("check", str(path), "--expect", f"3:{prints[2][:8]}", "--expect", f"5:{prints[4].upper()}")
    assert checked.exit_code == 0 and f"fingerprint {prints[-1]}" in checked.stdout, checked


@pytest.mark.parametrize("tamper", ["cut", "rewritten", "forked"])
def test_an_anchor_detects_what_the_chain_cannot(tmp_path: Path, tally: Any, tamper: str) -> None:
    path = _splendor(tmp_path, tally)
    prints = _fingerprints(tally, path)
    lines = _lines(path)
    if tamper == "cut":  # the last two lines removed: a valid, shorter log
        path.write_bytes(_joined(lines[:3]))
    else:
        other = _splendor(tmp_path, tally, "other.jsonl") if tamper == "forked" else None
        if other is not None:  # another branch from line 4 on: ben took other gems
            path.write_bytes(_joined(lines[:3]))
            assert tally("move", str(path), "take k k").exit_code == 0
            assert tally("move", str(path), "take r g b").exit_code == 0
        else:  # a careful forger rewrites a note into line 3 and chains everything after it anew
            import hashlib

            events = [json.loads(line) for line in lines]
            events[2]["gems"] = ["r", "g", "k"]
            rewritten = []
            for event in events:
                if rewritten:
                    event["prev"] = hashlib.sha256(rewritten[-1]).hexdigest()
                rewritten.append(json.dumps(event, separators=(",", ":")).encode())
            path.write_bytes(_joined(rewritten))
    assert tally("check", str(path)).exit_code in (0, 1)  # the chain alone accepts it
    checked = tally("check", str(path), "--expect", f"5:{prints[4][:8]}")
    assert checked.exit_code == 3 and checked.stderr.count("\n") == 1, checked
    assert "anchor 5:" in checked.stderr and ("ends at line 3" if tamper == "cut" else "fingerprint is now") in checked.stderr
    doc = json.loads(tally("check", str(path), "--expect", f"5:{prints[4][:8]}", "--json").stdout)
    assert doc["ok"] is False and doc["error"] == "damaged"


@pytest.mark.parametrize("bad", ["5", "5:abc", "x:12345678", "0:12345678", "5:1234567g", "5:" + "0" * 65])
def test_an_anchor_must_name_a_line_and_8_hex_digits(tmp_path: Path, tally: Any, bad: str) -> None:
    path = _splendor(tmp_path, tally)
    checked = tally("check", str(path), "--expect", bad)
    assert checked.exit_code == 2 and "--expect" in checked.stderr, checked


def test_times_that_go_backwards_are_warnings_of_check(tmp_path: Path, tally: Any) -> None:
    import hashlib

    path = _splendor(tmp_path, tally)
    events = [json.loads(line) for line in _lines(path)]
    events[3]["at"] = "2020-01-01T00:00:00.000Z"
    rewritten: list[bytes] = []
    for event in events:
        if rewritten:
            event["prev"] = hashlib.sha256(rewritten[-1]).hexdigest()
        rewritten.append(json.dumps(event, separators=(",", ":")).encode())
    path.write_bytes(_joined(rewritten))
    checked = tally("check", str(path))
    assert checked.exit_code == 0, checked
    assert "#4 warning: recorded at 2020-01-01T00:00:00.000Z, before line 3" in checked.stdout
    assert "[log.at-backwards]" in checked.stdout and "#5" not in checked.stdout
    doc = json.loads(tally("check", str(path), "--json").stdout)
    assert [w["seq"] for w in doc["warnings"] if w["rule"] == "log.at-backwards"] == [4]


def test_tail_anchor_is_the_verified_anchor_read_from_the_end_only(tmp_path: Path) -> None:
    from tally.store.logs import anchors
    from tally.store.logs import log as logfile

    for fixture in sorted((ROOT / "fixtures" / "games").glob("*.jsonl")):
        log = logfile.read(fixture)
        assert anchors.tail_anchor(fixture) == log.anchor == (len(log.events), log.fingerprint)
        assert all(log.fingerprint_at(seq) == log.events[seq].prev for seq in range(1, len(log.events)))
    long_line = tmp_path / "long.jsonl"  # a last line longer than the first chunk read from the end
    from tally.store.recording import record

    record.new_game(long_line, "splendor", ["ana", "ben"], seed=1)
    record.note(long_line, "x" * 200_000)
    assert anchors.tail_anchor(long_line) == logfile.read(long_line).anchor


# --------------------------------------------------------------------------- 10. look-alike names


@pytest.mark.parametrize("pair", [("lan", "Ian"), ("Ivy", "lvy"), ("arn", "am"), ("Vern", "vem"), ("bob", "b0b")])
def test_finding_10_look_alike_names_are_refused_at_one_table(tmp_path: Path, tally: Any, pair: tuple[str, str]) -> None:
    path = tmp_path / "g.jsonl"
    result = tally("new", "splendor", str(path), "-p", pair[0], "-p", pair[1])
    assert result.exit_code == 2 and "look alike" in result.stderr, result
    assert not path.exists()


@pytest.mark.parametrize("pair", [("ian", "lan"), ("ana", "ama"), ("mia", "nia")])
def test_finding_10_names_that_only_share_a_reading_sit_together(tmp_path: Path, tally: Any, pair: tuple[str, str]) -> None:
    assert tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", pair[0], "-p", pair[1]).exit_code == 0


def test_events_after_line_1_are_typed_all_the_way_down() -> None:
    """The reader decodes lines 2.. before measuring their depth (docs/format.md, "Limits"): safe only while no
    event type holds a field of any type (`Any`), where the typed decoder would follow the nesting."""
    import msgspec

    from tally.core import registry
    from tally.core.model import SHARED_EVENTS, GameStarted

    def walk(info: Any, seen: set[int]) -> None:
        assert not isinstance(info, msgspec.inspect.AnyType), info
        if id(info) in seen:
            return
        seen.add(id(info))
        for name in ("item_type", "key_type", "value_type"):
            if hasattr(info, name):
                walk(getattr(info, name), seen)
        for item in getattr(info, "item_types", ()) or getattr(info, "types", ()):
            walk(item, seen)
        for field in getattr(info, "fields", ()):
            walk(field.type, seen)

    for spec in registry.specs():
        for kind in [*SHARED_EVENTS, *spec.events]:
            if kind is not GameStarted:
                walk(msgspec.inspect.type_info(kind), set())


def test_finding_4_zero_bytes_in_a_line_followed_by_other_commands_lines_are_damage(tmp_path: Path, tally: Any) -> None:
    # a zeroed line whose unit size is unknown: the single-line moves after it were acknowledged one by one
    # (each has its own `at`), so they are not the rest of its write and nothing may be cut
    path = tmp_path / "open.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "7").exit_code == 0
    for move in ("take r g b", "take w k r", "take r g b", "take w k r", "take r g b"):
        result = tally("move", str(path), move)
        if result.exit_code != 0:
            break
    lines = _lines(path)
    moves = [index for index, line in enumerate(lines) if b'"unit"' not in line and index > 0]
    assert len(moves) >= 4, lines
    target = moves[-4]
    damaged = _joined(lines[:target] + [lines[target][:10] + bytes(10) + lines[target][20:]] + lines[target + 1:])
    path.write_bytes(damaged)
    assert tally("check", str(path)).exit_code == 3
    _unchanged_refusal(tally, path, damaged)
