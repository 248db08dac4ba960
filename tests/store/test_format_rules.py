"""One test per reading rule of docs/format.md (section 6): each rule's damage, written into a real log,
is refused by the reader with exit 3 and one line naming the file, the line and the rule's message;
and the rules the document lists are exactly the rules tested here, so the spec and the reader agree."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest
from typer.testing import CliRunner

from support import ROOT
from tally.cli.main import app
from tally.store import library
from tally.store.logs import log as logfile
from tally.store.recording import record

FORMAT_DOC = ROOT / "docs" / "format.md"
_RUNNER = CliRunner()


def _log(folder: Path) -> list[bytes]:
    """A real log's lines: a seeded start (lines 1-2, one unit), two takes, a note, a reserve, a buy."""
    path = folder / "source.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    assert record.move(path, "take r g b").accepted
    assert record.move(path, "ben: take w w").accepted
    assert record.note(path, "ana's cat walked over the board").events
    assert record.move(path, "ana: reserve 1b0-w1k2").accepted
    return path.read_bytes()[:-1].split(b"\n")


def _compact(event: dict[str, Any]) -> bytes:
    return json.dumps(event, ensure_ascii=False, separators=(",", ":")).encode()


def _rechain(lines: list[bytes], start: int) -> list[bytes]:
    """Give lines[start:] the prev their new predecessors call for (a careful forger's log)."""
    out = list(lines)
    for i in range(max(start, 1), len(out)):
        event = json.loads(out[i])
        event["prev"] = hashlib.sha256(out[i - 1]).hexdigest()
        out[i] = _compact(event)
    return out


def _edit(lines: list[bytes], index: int, change: Callable[[dict[str, Any]], dict[str, Any]]) -> list[bytes]:
    return lines[:index] + [_compact(change(json.loads(lines[index])))] + lines[index + 1 :]


def _joined(lines: list[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


# rule -> (the damaged bytes from the log's lines, the line to blame, what the message says)
CASES: dict[str, Callable[[list[bytes]], tuple[bytes, int | None, str]]] = {
    "empty": lambda lines: (b"", None, "empty file: a log starts with a game_started line"),
    "bom": lambda lines: (b"\xef\xbb\xbf" + _joined(lines), 1, "the file starts with a byte order mark"),
    "carriage-return": lambda lines: (_joined(lines)[:-1] + b"\r\n", 6, "a carriage return (\\r)"),
    "depth": lambda lines: (
        _joined(lines[:4] + [b"[" * 40 + b"]" * 40] + lines[5:]),
        5,
        "nested more than 32 levels deep",
    ),
    "empty-line": lambda lines: (
        _joined(lines[:3] + [b""] + lines[3:]),
        4,
        "empty line: expected one JSON event per line",
    ),
    "utf8": lambda lines: (
        _joined(lines[:3] + [lines[3].replace(b'"ben"', b'"b\xc0\xafn"')] + lines[4:]),
        4,
        "Invalid UTF-8",
    ),
    "first-line": lambda lines: (_joined(lines[2:]), 1, "expected a game_started line"),
    "event": lambda lines: (
        _joined(_edit(lines, 2, lambda e: {**e, "colour": "red"})),
        3,
        "not a splendor event: Object contains unknown field `colour`",
    ),
    "lone-surrogate": lambda lines: (
        _joined(lines[:4] + [lines[4].replace(b"cat", b"c\\ud800t")] + lines[5:]),
        5,
        "lone surrogate",
    ),
    "object-alone": lambda lines: (
        _joined(lines[:2] + [lines[2] + b" "] + lines[3:]),
        3,
        "not in canonical form: bytes (whitespace?) before or after the JSON object",
    ),
    "compact": lambda lines: (
        _joined(lines[:2] + [json.dumps(json.loads(lines[2])).encode()] + lines[3:]),
        3,
        "not in canonical form: whitespace between the JSON tokens",
    ),
    "duplicate-key": lambda lines: (
        _joined(lines[:2] + [lines[2][:-1] + b',"player":"ana"}'] + lines[3:]),
        3,
        "not in canonical form: the key 'player' appears twice in one object",
    ),
    "key-order": lambda lines: (
        _joined(_edit(lines, 2, lambda e: {"type": e["type"], "player": e["player"], **e})),
        3,
        "not in canonical form: the fields are not in tally's order (type, seq, at, prev, player, gems)",
    ),
    "default-omitted": lambda lines: (
        _joined(_edit(lines, 4, lambda e: {**e, "player": None})),
        5,
        "not in canonical form: the field 'player' holds its default value",
    ),
    "escapes": lambda lines: (
        _joined(lines[:3] + [lines[3].replace(b'"ben"', b'"\\u0062en"')] + lines[4:]),
        4,
        "not in canonical form: a value written differently from tally",
    ),
    "seq": lambda lines: (_joined(_edit(lines, 2, lambda e: {**e, "seq": 7})), 3, "expected seq 3, found 7"),
    "prev": lambda lines: (
        _joined(_edit(lines, 4, lambda e: {**e, "text": "no cat at all"})),
        6,
        "prev does not match the SHA-256 of line 5: line 5 was edited, or lines were reordered",
    ),
    "at": lambda lines: (
        _joined(_edit(lines, 2, lambda e: {**e, "at": "2026-13-01T00:00:00.000Z"})),
        3,
        "at '2026-13-01T00:00:00.000Z': expected the UTC time of recording as YYYY-MM-DDTHH:MM:SS.mmmZ",
    ),
    "start": lambda lines: (
        _joined(_rechain(_edit(lines, 0, lambda e: {**e, "seats": ["solo"]}), 1)),
        1,
        "game_started is not a valid start: Splendor needs 2-4 players, got 1",
    ),
    "salt": lambda lines: (
        _joined(
            _rechain(
                _edit(
                    lines,
                    2,
                    lambda e: {
                        **{k: v for k, v in e.items() if k not in ("player", "gems")},
                        "salt": "not-random",
                        "player": e["player"],
                        "gems": e["gems"],
                    },
                ),
                3,
            )
        ),
        3,
        "salt 'not-random': expected at least 32 lowercase hex digits",
    ),
    "by": lambda lines: (
        _joined(
            _rechain(
                _edit(
                    lines,
                    2,
                    lambda e: {
                        **{k: v for k, v in e.items() if k not in ("player", "gems")},
                        "by": "zed",
                        "player": e["player"],
                        "gems": e["gems"],
                    },
                ),
                3,
            )
        ),
        3,
        "by 'zed': expected the seat whose device entered the line, one of ana, ben",
    ),
    "unit-size": lambda lines: (
        _joined(
            _edit(
                lines,
                2,
                lambda e: {
                    **{k: v for k, v in e.items() if k not in ("player", "gems")},
                    "unit": 0,
                    "player": e["player"],
                    "gems": e["gems"],
                },
            )
        ),
        3,
        "unit 0: a unit has at least 2 lines",
    ),
    "unit-nested": lambda lines: (
        _joined(
            _rechain(
                _edit(
                    lines,
                    1,
                    lambda e: {
                        **{k: v for k, v in e.items() if k not in ("salt", "nobles", "decks")},
                        "unit": 2,
                        **({"salt": e["salt"]} if "salt" in e else {}),
                        "nobles": e["nobles"],
                        "decks": e["decks"],
                    },
                ),
                2,
            )
        ),
        2,
        "a unit begins inside the unit of lines 1-2: units do not nest",
    ),
    "zero-block": lambda lines: (
        _joined(lines[:-1] + [lines[-1][:20] + bytes(30) + lines[-1][50:]]),
        6,
        "zero bytes in line 6, inside the last write",
    ),
    "torn-unit": lambda lines: (
        _joined(lines[:1]),
        1,
        "torn unit: line 1 begins 2 lines appended together by one command, but the log ends after 1 of them",
    ),
    "torn-tail": lambda lines: (_joined(lines)[:-5], 6, "torn last line"),
}


def _documented_rules() -> list[str]:
    section = FORMAT_DOC.read_text(encoding="utf-8").split("## 6. Reading", 1)[1].split("## 7.", 1)[0]
    return re.findall(r"^\| `([a-z0-9-]+)` \|", section, flags=re.M)


def test_the_format_doc_lists_exactly_the_rules_tested_here() -> None:
    documented = _documented_rules()
    assert len(documented) == len(set(documented))
    assert documented == list(CASES), (
        "docs/format.md section 6 and tests/store/test_format_rules.py must list the same rules in the same order"
    )


@pytest.mark.parametrize("rule", list(CASES))
def test_format_rule(tmp_path: Path, rule: str) -> None:
    damaged, line, message = CASES[rule](_log(tmp_path))
    path = tmp_path / "game.jsonl"
    path.write_bytes(damaged)
    with pytest.raises(logfile.LogError) as caught:
        logfile.read(path)
    assert caught.value.line == line and message in caught.value.message, str(caught.value)
    assert caught.value.rule == f"log.{rule}"
    result = _RUNNER.invoke(app, ["check", str(path)])
    assert result.exit_code == 3 and result.stdout == ""
    where = f"{path}:{line}: " if line else f"{path}: "
    assert result.stderr.startswith(f"tally: {where}") and result.stderr.count("\n") == 1, result.stderr
    moved = _RUNNER.invoke(app, ["move", str(path), "ben: take k k"])  # a damaged log is never appended to
    assert moved.exit_code == 3 and path.read_bytes() == damaged
    assert moved.stderr == result.stderr
    summary = library.ingest(tmp_path / "library.duckdb", [path])  # the library refuses it with the same message
    assert [(r.path, r.line, r.kind, r.message) for r in summary.rejected] == [
        (str(path), line, "damaged", caught.value.message)
    ]


def test_every_line_tally_writes_is_canonical(tmp_path: Path) -> None:
    """The other side of the rules: what the writer produced reads back, and re-encodes to the same bytes."""
    lines = _log(tmp_path)
    log = logfile.read(tmp_path / "source.jsonl")
    assert [logfile.encode(event) for event in log.events] == lines
    assert json.loads(lines[0])["unit"] == 2 and all("unit" not in json.loads(line) for line in lines[1:])


def test_every_log_refusal_id_the_store_raises_is_documented() -> None:
    """The ids programs read (`LogError.rule`) are the rule names of section 6 or the ids listed beside them."""
    doc = FORMAT_DOC.read_text(encoding="utf-8")
    documented = {f"log.{name}" for name in _documented_rules()} | set(
        re.findall(r"^\| `(log\.[a-z-]+)` \|", doc, flags=re.M)
    )
    raised: set[str] = set()
    for source in (ROOT / "store").rglob("*.py"):
        raised |= set(re.findall(r"\"(log\.[a-z][a-z-]*)\"", source.read_text(encoding="utf-8")))
    assert raised and "log.torn-tail" in raised
    assert raised - {"log.damaged"} <= documented, sorted(raised - documented)
