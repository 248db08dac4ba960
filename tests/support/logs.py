"""Logs written and rewritten by hand, a byte at a time: what fault campaigns made to damage, forge or tear a log,
and the one line a refused `tally` command writes on stderr."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

START = {
    "type": "game_started",
    "seq": 1,
    "at": "2026-11-30T10:00:00.000Z",
    "game": "splendor",
    "rules": "1",
    "seats": ["ana", "ben"],
    "mode": "table",
    "options": {"take-fewer": "when-short", "stuck": "pass", "target": "15"},
    "manifest": "splendor-base-2014",
}


def stderr_line(result: Any) -> str:
    """The one line a refused command writes on stderr: never a traceback, never an internal error."""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("tally: "), result
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    return str(result.stderr)


def line_of(event: dict[str, Any]) -> bytes:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


def start_log(path: Path, **changes: Any) -> Path:
    """A log whose only line is a Splendor `game_started` with `changes` (the campaign's hand-made logs)."""
    path.write_bytes(line_of({**START, **changes}) + b"\n")
    return path


def log_lines(path: Path) -> list[bytes]:
    return path.read_bytes()[:-1].split(b"\n")


def joined_lines(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def with_unit(line: bytes, unit: int) -> bytes:
    """`line` with a `unit` field written where tally writes it (after the envelope's prev)."""
    event = json.loads(line)
    envelope = {key: event.pop(key) for key in ("type", "seq", "at", "prev") if key in event}
    event.pop("unit", None)
    return json.dumps({**envelope, "unit": unit, **event}, ensure_ascii=False, separators=(",", ":")).encode()


def splendor_log(tmp_path: Path, tally: Any, name: str = "g.jsonl") -> Path:
    """An open Splendor game of three moves, recorded through the real `tally`."""
    path = tmp_path / name
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "1").exit_code == 0
    for move in ("take r g b", "take w w", "take r g b"):
        assert tally("move", str(path), move).exit_code == 0
    return path


def nested(depth: int) -> str:
    """A JSON list nested `depth` deep."""
    return "[" * depth + "1" + "]" * depth
