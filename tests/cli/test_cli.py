"""The CLI contract (DESIGN.md sections 5 and 8, docs/cli.md): exit codes, `--json` documents with their
documented keys, one clear line on stderr, never a traceback, and what each command promises.

Most tests run the CLI in-process (typer's CliRunner, the same app); the fuzz and a few others run the real
process, the way users do.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import string
import subprocess
import sys
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from support import FIXTURES, Result, run_tally
from support.logs import start_log, stderr_line
from tally.cli.docs import ERROR_JSON_KEYS, EXIT_CODES, JSON_KEYS
from tally.core.games.splendor import SPLENDOR
from tally.store.recording import record

RULINGS = FIXTURES / "rulings" / "splendor"
DAMAGED_KEYS = set(next(keys for title, keys in ERROR_JSON_KEYS.items() if title.startswith("damaged log")))
ILLEGAL_LOG_KEYS = set(next(keys for title, keys in ERROR_JSON_KEYS.items() if title.startswith("illegal log")))


def cli(*args: str) -> Result:
    """`tally ARGS` in-process; an exception escaping the CLI (a traceback for a user) fails the test."""
    from typer.testing import CliRunner

    from tally.cli.main import app

    outcome = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise AssertionError(f"tally {args!r} raised {outcome.exception!r}") from outcome.exception
    return Result(outcome.exit_code, outcome.stdout, outcome.stderr)


def one_document(result: Result) -> dict[str, Any]:
    """stdout holds exactly one JSON document (an object)."""
    document = json.loads(result.stdout)  # raises on zero or several documents
    assert isinstance(document, dict), result
    return document


def one_line(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("tally: "), result
    return lines[0]


def failed(result: Result, code: int) -> str:
    """The result has exit `code` and one clear line on stderr; returns that line."""
    assert result.exit_code == code, result
    assert "Traceback" not in result.stderr
    return one_line(result)


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A fresh open game (seed 1): ann to act; level 1 face up 1g1-k4 1w0-b1g2r1k1 1b0-w1k2 1w0-b1g1r1k1."""
    path = tmp_path / "game.jsonl"
    result = cli("new", "splendor", str(path), "-p", "ann", "-p", "ben", "--seed", "1")
    assert result.exit_code == 0, result
    return path


@pytest.fixture
def table(tmp_path: Path) -> Path:
    """A table-mode game whose setup is still being revealed."""
    path = tmp_path / "table.jsonl"
    assert cli("new", "splendor", str(path), "-p", "ann", "-p", "ben", "-p", "cal").exit_code == 0
    assert cli("move", str(path), "reveal w4b4 b4g4 r4k4 g4r4 1w0-b3").exit_code == 0
    return path


def copy_case(case: str, folder: Path) -> Path:
    target = folder / f"{case}.jsonl"
    shutil.copyfile(RULINGS / f"{case}.jsonl", target)
    return target


# --------------------------------------------------------------------------- games and new


def test_games_lists_splendor_with_its_options() -> None:
    text = cli("games")
    assert text.exit_code == 0 and text.stderr == ""
    assert "\nsplendor  Splendor, 2-4 players" in "\n" + text.stdout
    for key in ("take-fewer=when-short|never|always", "stuck=pass|end", "target=integer"):
        assert f"--option {key}" in text.stdout
    document = one_document(cli("games", "--json"))
    (splendor,) = [g for g in document["games"] if g["name"] == "splendor"]
    assert splendor["players"] == [2, 4]
    assert sorted(splendor["modes"]) == ["open", "table"]
    options = {o["key"]: o for o in splendor["options"]}
    assert options["take-fewer"]["default"] == "when-short"
    assert options["take-fewer"]["choices"] == ["when-short", "never", "always"]
    assert options["stuck"]["default"] == "pass"
    assert options["target"]["default"] == "15" and options["target"]["choices"] == []
    assert all(o["help"] for o in splendor["options"])


NEW_ERRORS = [
    (["--option", "colour=red"], "unknown option 'colour'"),
    (["--option", "take-fewer=sometimes"], "option take-fewer='sometimes': expected one of when-short, never, always"),
    (["--option", "stuck=wait"], "option stuck='wait': expected one of pass, end"),
    (["--option", "target=many"], "option target='many': expected an integer"),
    (["--option", "target=0"], "expected an integer >= 1"),
    (["--option", "target=100"], "expected an integer <= 99"),
    (["--option", "take-fewer"], "expected KEY=VALUE"),
    (["--option", "=never"], "expected KEY=VALUE"),
    (["--mode", "closed"], "unknown mode 'closed'"),
    (["--mode", "table", "--seed", "3"], "--seed deals the setup, which needs --mode open"),
]


@pytest.mark.parametrize(("extra", "message"), NEW_ERRORS, ids=[" ".join(e) for e, _ in NEW_ERRORS])
def test_new_refuses_each_bad_option_with_exit_2(tmp_path: Path, extra: list[str], message: str) -> None:
    log = tmp_path / "g.jsonl"
    line = failed(cli("new", "splendor", str(log), "-p", "ann", "-p", "ben", *extra), 2)
    assert message in line
    assert not log.exists(), "a refused `new` creates nothing"


PLAYER_ERRORS = [
    (["ann"], "needs 2-4 players, got 1"),
    (["a", "b", "c", "d", "e"], "needs 2-4 players, got 5"),
    (["ann", "ann"], "'ann' twice: names at one table must differ"),
    (["ann", "Ann"], "'Ann' and 'ann' look alike"),
    (["ann", "b:c"], "name 'b:c' contains ':'"),
    (["ann", "table"], "'table' cannot be a player's name"),
    (["ann", "no body"], "name 'no body' contains a space"),
]


@pytest.mark.parametrize(("players", "message"), PLAYER_ERRORS, ids=["-".join(p) for p, _ in PLAYER_ERRORS])
def test_new_refuses_bad_players_with_exit_2(tmp_path: Path, players: list[str], message: str) -> None:
    log = tmp_path / "g.jsonl"
    args = [arg for name in players for arg in ("-p", name)]
    assert message in failed(cli("new", "splendor", str(log), *args), 2)
    assert not log.exists()


def test_new_refuses_an_unknown_game_and_an_existing_file(tmp_path: Path, game: Path) -> None:
    log = tmp_path / "chess.jsonl"
    assert "unknown game 'chess'" in failed(cli("new", "chess", str(log), "-p", "a", "-p", "b"), 2)
    assert not log.exists()
    before = game.read_bytes()
    assert str(game) in failed(cli("new", "splendor", str(game), "-p", "a", "-p", "b", "--seed", "2"), 2)
    assert game.read_bytes() == before, "a log is never overwritten"


def test_new_defaults_to_table_mode_and_seed_means_open(tmp_path: Path) -> None:
    table = one_document(cli("new", "splendor", str(tmp_path / "t.jsonl"), "-p", "a", "-p", "b", "--json"))
    assert table["mode"] == "table" and table["events"] == 1 and table["to_act"] == "table"
    dealt = one_document(
        cli("new", "splendor", str(tmp_path / "o.jsonl"), "-p", "a", "-p", "b", "--seed", "5", "--json")
    )
    assert dealt["mode"] == "open" and dealt["events"] == 2 and dealt["to_act"] == "a"


# --------------------------------------------------------------------------- exit codes


def test_exit_0_for_a_legal_move_1_for_an_illegal_one_2_for_bad_notation(game: Path) -> None:
    assert cli("rule", str(game), "take r g b").exit_code == 0
    refused = cli("rule", str(game), "take r r b")  # a verdict, on stdout: not a failure of the command
    assert (
        refused.exit_code == 1 and refused.stderr == "" and refused.stdout.startswith("illegal: ann cannot take r r b")
    )
    verdict, text = refused.stdout.splitlines()  # the ruling, then what its rule says
    assert verdict.endswith("[splendor.take.three-different]")
    assert text == "  rule splendor.take.three-different: Take 3 gem tokens of different colours."
    line = failed(cli("rule", str(game), "take r q b"), 2)
    assert "unknown token 'q'" in line and "expected one of" in line
    assert failed(cli("move", str(game), "take y r b"), 1).endswith("[splendor.take.no-gold]")
    assert "unknown card '9x9-w1'" in failed(cli("move", str(game), "buy 9x9-w1"), 2)
    assert cli("move", str(game), "take r g b").exit_code == 0
    assert failed(cli("rule", str(game), "take w w", "--at", "99"), 2) == "tally: --at 99: the log has events 1..3"


def test_exit_3_for_a_missing_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere.jsonl")
    for args in (
        ["check", missing],
        ["moves", missing],
        ["state", missing],
        ["replay", missing],
        ["rule", missing, "take r g b"],
        ["move", missing, "take r g b"],
        ["undo", missing, "--reason", "x"],
        ["note", missing, "hi"],
    ):
        assert missing in failed(cli(*args), 3)
        document = one_document(cli(*args, "--json"))
        assert set(document) == DAMAGED_KEYS and document["ok"] is False
    assert not Path(missing).exists(), "no command but `new` creates a log"


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


def _compact(document: dict[str, Any]) -> bytes:
    return json.dumps(document, separators=(",", ":")).encode()


def damaged_logs(game: Path) -> dict[str, bytes]:
    """Variants of a 3-line log (start, deal, ann takes), each damaged in one way."""
    lines = _lines(game)
    third = json.loads(lines[2])
    first = json.loads(lines[0])

    def with_third(**changes: Any) -> bytes:
        return b"\n".join(lines[:2] + [_compact({**third, **changes})]) + b"\n"

    return {
        "bad-json": b"\n".join(lines[:2]) + b"\n{not json\n",
        "broken-prev-chain": with_third(prev="0" * 64),
        "seq-gap": with_third(seq=7),
        "unknown-field": with_third(colour="red"),
        "unknown-event-type": with_third(type="gems_stolen"),
        "torn-last-line": b"\n".join(lines) + b"\n" + lines[2][:20],
        "unknown-game": _compact({**first, "game": "chess"}) + b"\n",
        "empty-file": b"",
        "no-game-started": lines[2] + b"\n",
        "not-utf8": b"\xff\xfe\xfd\n",
        "a-json-array": b"[1, 2, 3]\n",
        "edited-middle-line": b"\n".join([lines[0], lines[1].replace(b'"b4g4"', b'"w4b4"'), lines[2]]) + b"\n",
    }


DAMAGE = [
    "bad-json",
    "broken-prev-chain",
    "seq-gap",
    "unknown-field",
    "unknown-event-type",
    "torn-last-line",
    "unknown-game",
    "empty-file",
    "no-game-started",
    "not-utf8",
    "a-json-array",
    "edited-middle-line",
]
READERS = [
    ["check"],
    ["moves"],
    ["state"],
    ["replay"],
    ["rule", "take w w"],
    ["move", "take w w"],
    ["undo", "--reason", "x"],
    ["note", "hello"],
]


@pytest.mark.parametrize("damage", DAMAGE)
def test_exit_3_for_a_damaged_log_from_every_command(tmp_path: Path, game: Path, damage: str) -> None:
    cli("move", str(game), "take r g b")
    log = tmp_path / f"{damage}.jsonl"
    log.write_bytes(damaged_logs(game)[damage])
    before = log.read_bytes()
    for command in READERS:
        args = [command[0], str(log), *command[1:]]
        line = failed(cli(*args), 3)
        assert str(log) in line, line
        document = one_document(cli(*args, "--json"))
        assert set(document) == DAMAGED_KEYS and document["ok"] is False and document["error"] == "damaged"
    assert log.read_bytes() == before, "nothing already recorded is ever changed"


def test_a_log_holding_an_illegal_event_is_exit_1(tmp_path: Path, game: Path) -> None:
    cli("move", str(game), "take r g b")
    lines = _lines(game)
    forged = {
        "type": "gems_taken",
        "seq": 4,
        "at": "2026-01-01T00:00:00.000Z",
        "prev": hashlib.sha256(lines[-1]).hexdigest(),
        "player": "ann",
        "gems": ["w", "b", "k"],
    }
    log = tmp_path / "forged.jsonl"
    log.write_bytes(game.read_bytes() + _compact(forged) + b"\n")
    line = failed(cli("check", str(log)), 1)
    assert line == f"tally: {log}:4: it is ben's turn, not ann's [splendor.turn.out-of-turn]"
    report = one_document(cli("check", str(log), "--json"))
    assert set(report) == set(JSON_KEYS["check"])
    assert (report["ok"], report["seq"], report["rule"]) == (False, 4, "splendor.turn.out-of-turn")
    for command in READERS[1:]:
        args = [command[0], str(log), *command[1:]]
        assert "[splendor.turn.out-of-turn]" in failed(cli(*args), 1)
        document = one_document(cli(*args, "--json"))
        assert set(document) == ILLEGAL_LOG_KEYS and document["seq"] == 4


def test_exit_codes_match_the_documented_table() -> None:
    from tally.cli import app

    assert (app.EXIT_OK, app.EXIT_RULE, app.EXIT_USAGE, app.EXIT_DAMAGED, app.EXIT_INTERNAL, app.EXIT_BUSY) == (
        0,
        1,
        2,
        3,
        4,
        5,
    )
    assert sorted(EXIT_CODES) == [0, 1, 2, 3, 4, 5]


def test_usage_errors_from_argument_parsing_are_exit_2(game: Path) -> None:
    for args in (
        ["bogus"],
        ["new", "splendor"],
        ["rule", str(game)],
        ["moves", str(game), "--at", "x"],
        ["state", str(game), "--colour"],
        ["undo", str(game)],
        ["simulate", "splendor", "--games", "2"],
    ):
        result = run_tally(*args)
        assert result.exit_code == 2, (args, result)
        assert "Traceback" not in result.stderr and result.stdout == ""
        assert result.stderr.strip(), "a usage error says what is wrong"


@pytest.mark.parametrize(
    "args",
    [
        ("moves", "{game}", "--at", "x"),
        ("move", "{game}"),
        ("rule", "{game}", "-0"),
        ("state", "{game}", "--bogus"),
        ("nope",),
    ],
)
def test_usage_errors_from_argument_parsing_are_one_line(game: Path, args: tuple[str, ...]) -> None:
    result = run_tally(*(a.format(game=game) for a in args))
    assert result.exit_code == 2, result
    one_line(result)


# --------------------------------------------------------------------------- --json: one document, documented keys


def _opened(folder: Path) -> Path:
    opened = folder / "open.jsonl"
    if not opened.exists():
        assert cli("new", "splendor", str(opened), "-p", "ann", "-p", "ben", "--seed", "1").exit_code == 0
        assert cli("move", str(opened), "take r g b").exit_code == 0
    return opened


def _copy(folder: Path, name: str, data: bytes = b"") -> Path:
    path = folder / name
    path.write_bytes(_opened(folder).read_bytes() + data)
    return path


def _library(folder: Path) -> Path:
    db = folder / "library.duckdb"
    assert cli("ingest", str(_opened(folder)), "--db", str(db)).exit_code == 0
    return db


# a successful invocation of every command that reports, each on files made for it in a fresh folder
JSON_INVOCATIONS: dict[str, Any] = {
    "games": lambda f: ["games"],
    "new": lambda f: ["new", "splendor", str(f / "new.jsonl"), "-p", "ann", "-p", "ben", "--seed", "2"],
    "move": lambda f: ["move", str(_copy(f, "moved.jsonl")), "take w w"],
    "rule": lambda f: ["rule", str(_opened(f)), "take w w"],
    "moves": lambda f: ["moves", str(_opened(f))],
    "state": lambda f: ["state", str(_opened(f)), "--as", "ben"],
    "replay": lambda f: ["replay", str(_opened(f))],
    "check": lambda f: ["check", str(_opened(f))],
    "undo": lambda f: ["undo", str(_copy(f, "undone.jsonl")), "--reason", "misheard"],
    "amend": lambda f: ["amend", str(_copy(f, "amended.jsonl")), "3", "take w b k", "misheard"],
    "note": lambda f: ["note", str(_copy(f, "noted.jsonl")), "ben asked about gold"],
    "rules": lambda f: ["rules", "splendor", "take"],
    "repair": lambda f: ["repair", str(_copy(f, "torn.jsonl", b'{"type":"gems_ta'))],
    "simulate": lambda f: [
        "simulate",
        "splendor",
        "--games",
        "1",
        "--seed",
        "4",
        "--players",
        "2",
        "--out",
        str(f / "sim"),
    ],
    "ingest": lambda f: ["ingest", str(_opened(f)), "--db", str(f / "fresh.duckdb")],
    "sql": lambda f: ["sql", "SELECT count(*) AS games FROM games", "--db", str(_library(f))],
    "stats": lambda f: ["stats", "--db", str(_library(f))],
    "export": lambda f: ["export", "--to", str(f / "exported"), "--db", str(_library(f))],
    "import": lambda f: ["import", str(_opened(f)), "--store", str(f), "--id", "imported"],
    "chart": lambda f: ["chart", str(_opened(f)), "--svg", str(f / "chart.svg")],
    "alias": lambda f: ["alias", "ann", "Ann B.", "--db", str(_library(f))],
}


SERVING = {"serve"}  # runs until stopped: its one --json line is checked against JSON_KEYS in test_serve_seats.py


@pytest.mark.parametrize("command", sorted(set(JSON_KEYS) - SERVING))
def test_json_output_has_exactly_the_documented_keys(tmp_path: Path, command: str) -> None:
    result = cli(*JSON_INVOCATIONS[command](tmp_path), "--json")
    assert result.exit_code == 0, result
    assert result.stderr == ""
    assert result.stdout.count("\n") == 1, "one document, one line"
    document = one_document(result)
    documented = {key for key, meaning in JSON_KEYS[command].items() if not meaning.startswith("with `--notation`")}
    assert set(document) == documented, f"tally {command} --json keys differ from cli/docs.py"


def test_every_reporting_command_is_covered() -> None:
    from tally.cli.docs import commands, has_json

    reporting = {name for name, command in commands() if has_json(command)}
    assert reporting == set(JSON_INVOCATIONS) | SERVING, "add an invocation for the new --json command"


def test_refused_and_unreadable_moves_still_print_one_document(game: Path) -> None:
    for move, code, verdict in (("take r r b", 1, "illegal"), ("grab", 2, "unreadable"), ("take r g b", 0, "legal")):
        for command in ("rule", "move"):
            result = cli(command, str(game), move, "--json")
            assert result.exit_code == code, result
            document = one_document(result)
            assert set(document) == set(JSON_KEYS[command]) and document["verdict"] == verdict
            if code and not (command == "rule" and verdict == "illegal"):  # a ruling's verdict is no failure
                one_line(result)
    undone = cli("undo", str(game), "--reason", "x", "--json")
    assert undone.exit_code == 0 and set(one_document(undone)) == set(JSON_KEYS["undo"])


# --------------------------------------------------------------------------- never a traceback: fuzzing

COMMANDS = [
    "games",
    "new",
    "move",
    "rule",
    "moves",
    "state",
    "replay",
    "check",
    "undo",
    "amend",
    "note",
    "repair",
    "simulate",
    "ingest",
    "sql",
    "stats",
    "export",
    "import",
    "chart",
    "alias",
    "rules",
]
OPTIONS = [
    "--json",
    "--at",
    "--to",
    "--as",
    "--seed",
    "--player",
    "-p",
    "--option",
    "-o",
    "--mode",
    "--games",
    "--players",
    "--out",
    "--reason",
    "--db",
    "--format",
    "--game",
    "--top",
    "--max-rows",
    "--help",
    "--",
    "-",
    "--store",
    "--svg",
    "--csv",
    "--simulated",
    "--id",
    "--forget",
    "--notation",
    "--step",
]
VALUES = [
    "splendor",
    "chess",
    "ann",
    "ben",
    "table",
    "open",
    "0",
    "1",
    "2",
    "3",
    "-1",
    "99999999999999999999",
    "take-fewer=never",
    "target=0",
    "x=y",
    "=",
    "take r g b",
    "reserve deck 1",
    "buy 1b0-w1k2",
    "LOG",
    "LOG",
    "new.jsonl",
    "out",
    ".",
    "",
    " ",
    "ann:",
    "noble w4b4",
    "return y",
    "lib.duckdb",
    "json",
    "csv",
    "parquet",
    "SELECT * FROM games",
    "SELECT",
    "DROP TABLE games",
    "postgresql://127.0.0.1:1/nowhere",
    "pics",
    "x.svg",
    "bgstats",
]
SMALL_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=12)
ARGV = st.lists(st.one_of(st.sampled_from(COMMANDS + OPTIONS + VALUES), SMALL_TEXT), max_size=8)
COMMAND_ARGV = st.tuples(st.sampled_from(COMMANDS), ARGV).map(lambda t: [t[0], *t[1]])
ANY_ARGV = st.one_of(COMMAND_ARGV, ARGV)


@contextmanager
def sandbox(case: str = "return-pending-take-again") -> Iterator[Path]:
    """A temporary working folder holding a copy of a real log as LOG (fuzzed commands may write)."""
    with tempfile.TemporaryDirectory() as folder:
        here = Path(folder)
        shutil.copyfile(RULINGS / f"{case}.jsonl", here / "LOG")
        old = os.getcwd()
        os.chdir(here)
        try:
            yield here
        finally:
            os.chdir(old)


def _bounded(argv: list[str]) -> bool:
    """Leave out what would run away or reach outside the sandbox: a simulation of an astronomical number of
    games, and paths outside the working folder (`ingest /` would read the whole disk, `new /x` write to it)."""
    if "simulate" in argv and "99999999999999999999" in argv:
        return False
    return not any(arg.startswith(("/", "~")) or ".." in arg for arg in argv)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=ANY_ARGV)
def test_fuzz_arguments_in_process(argv: list[str]) -> None:
    assume(_bounded(argv))
    with sandbox():
        result = cli(*argv)  # raises if anything escapes the CLI
    assert result.exit_code in (0, 1, 2, 3), (argv, result)
    if result.exit_code:
        assert result.stderr.strip(), (argv, result)
    if "--json" in argv and result.exit_code in (0, 1, 3) and result.stdout and not ("--help" in argv or "--" in argv):
        document = json.loads(result.stdout)  # raises on zero or several documents
        # `tally check` of several logs or a folder prints one list, a report per log (docs/cli.md)
        is_check_list = argv[0] == "check" and isinstance(document, list) and all(isinstance(d, dict) for d in document)
        assert isinstance(document, dict) or is_check_list, (argv, result)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(argv=COMMAND_ARGV)
def test_fuzz_arguments_as_a_real_process(argv: list[str]) -> None:
    assume(_bounded(argv))
    with sandbox() as here:
        result = run_tally(*argv, cwd=here)
    assert "Traceback" not in result.stderr, (argv, result)
    assert result.exit_code in (0, 1, 2, 3), (argv, result)


MOVE_WORDS = [
    "take",
    "reserve",
    "buy",
    "return",
    "noble",
    "pass",
    "reveal",
    "deck",
    "as",
    "pay",
    "nothing",
    "gold",
    "ann:",
    "ben:",
    "zed:",
    ":",
    "w",
    "b",
    "g",
    "r",
    "k",
    "y",
    "q",
    "1",
    "2",
    "3",
    "4",
    "0",
    "-1",
    "r2",
    "y9",
    "1b0-w1k2",
    "1g1-k4",
    "2w2-r5",
    "3k4-r7",
    "1k0-w1b1g1r1",
    "w4b4",
    "b4g4",
    "r4k4",
    "w3b3k3",
    "1w0-b3",
]
MOVE_TEXT = st.one_of(
    st.lists(st.sampled_from(MOVE_WORDS), max_size=6).map(" ".join),
    st.text(alphabet=string.printable, max_size=20),
    st.text(max_size=20).filter(lambda s: "\x00" not in s),
)
POSITIONS = [
    "take-two-same-colour-with-four-left",
    "return-pending-take-again",
    "noble-pending-take-gems-instead",
    "table-gap-reveal-a-card-already-face-up",
    "buy-an-unseen-blind-reserve-in-table-mode",
    "table-setup-incomplete-take-gems",
    "after-the-game-ended-take-gems",
    "reserve-blind-from-an-empty-deck",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(position=st.sampled_from(POSITIONS), move=MOVE_TEXT, as_json=st.booleans())
def test_fuzz_move_texts(position: str, move: str, as_json: bool) -> None:
    log = RULINGS / f"{position}.jsonl"
    before = log.read_bytes()
    result = cli("rule", str(log), *(["--json"] if as_json else []), "--", move)  # `--`: a move may start with '-'
    assert log.read_bytes() == before
    assert result.exit_code in (0, 1, 2), (move, result)
    if result.exit_code == 2:
        one_line(result)
    elif result.exit_code == 1:  # illegal: the verdict on stdout, nothing on stderr
        assert result.stderr == "" and (as_json or result.stdout.startswith("illegal: ")), result
    if as_json:
        document = one_document(result)
        assert set(document) == set(JSON_KEYS["rule"])
        assert document["verdict"] in ("legal", "unverifiable", "illegal", "unreadable")
        assert (document["verdict"] == "unreadable") == (result.exit_code == 2)


# --------------------------------------------------------------------------- moves, rule, undo, simulate


def _moves_in_process(log: Path, at: int | None = None) -> list[str]:
    from tally.store.recording import record

    position = record.position(log, at)
    return [SPLENDOR.format(m) for m in SPLENDOR.legal_moves(position.table.state)]


@pytest.mark.parametrize("case", POSITIONS)
def test_moves_lists_the_legal_moves_in_a_fixed_order(case: str) -> None:
    log = RULINGS / f"{case}.jsonl"
    document = one_document(cli("moves", str(log), "--json"))
    assert document["moves"] == _moves_in_process(log)
    text = cli("moves", str(log), "--all")
    listed = [line.split(". ", 1)[1] for line in text.stdout.splitlines()[1:] if ". " in line]
    assert listed == document["moves"]
    shown = cli("moves", str(log)).stdout.splitlines()
    assert len(shown) <= 22 and max(map(len, shown)) <= 80, "a long listing fits a terminal, summarised"
    for line in shown[1:]:  # every move it shows has the number `tally move LOG N` records it by
        number, dot, move = line.strip().partition(". ")
        if dot and number.isdigit():
            assert document["moves"][int(number) - 1] == move, line
    for move in document["moves"][:25]:  # every listed move is one `tally rule` accepts
        assert cli("rule", str(log), move).exit_code == 0, move


def test_a_long_listing_is_summarised_by_kind_and_listed_whole_on_request() -> None:
    """`tally moves` of a position with hundreds of legal moves fits a terminal: each kind's first and last move
    with how many lie between, numbered as the whole listing; `--kind KIND` lists one kind, `--all` every move."""
    log = FIXTURES / "games" / "split-table-4p.jsonl"
    every = one_document(cli("moves", str(log), "--at", "148", "--json"))["moves"]
    assert len(every) > 200
    shown = cli("moves", str(log), "--at", "148").stdout.splitlines()
    assert len(shown) <= 22 and max(map(len, shown)) <= 80, shown
    assert shown[1] == f"{len(every)} legal moves, summarised by kind (one kind: --kind KIND, every one: --all):"
    kinds = {move.split(": ", 1)[1].split()[0] for move in every}
    for kind in kinds:
        numbers = [i for i, move in enumerate(every, 1) if move.split(": ", 1)[1].startswith(kind + " ")]
        assert (
            f"{numbers[0]:3d}. {every[numbers[0] - 1]}" in shown
            and f"{numbers[-1]:3d}. {every[numbers[-1] - 1]}" in shown
        )
        assert any(line.strip().startswith(f"... {len(numbers) - 2} more {kind} (") for line in shown), kind
    discards = cli("moves", str(log), "--at", "148", "--kind", "discard").stdout.splitlines()[1:]
    assert discards == [f"{i:3d}. {move}" for i, move in enumerate(every, 1) if ": discard " in move]
    listed = cli("moves", str(log), "--at", "148", "--all").stdout.splitlines()[1:]
    assert listed == [f"{i:3d}. {move}" for i, move in enumerate(every, 1)]
    none = cli("moves", str(log), "--at", "148", "--kind", "take").stdout.splitlines()
    assert none[1].startswith("  (no legal move of kind take: the kinds now are ")


def test_moves_is_the_same_in_every_process(game: Path) -> None:
    cli("move", str(game), "take r g b")
    first, second = run_tally("moves", str(game), "--json"), run_tally("moves", str(game), "--json")
    assert first.exit_code == 0 and first.stdout == second.stdout
    table = RULINGS / "table-setup-incomplete-take-gems.jsonl"  # reveals: candidates drawn from sets of cards
    assert run_tally("moves", str(table)).stdout == run_tally("moves", str(table)).stdout
    assert one_document(run_tally("moves", str(table), "--json"))["moves"] == _moves_in_process(table)
    assert one_document(cli("moves", str(game), "--at", "2", "--json"))["moves"] == _moves_in_process(game, 2)


def test_rule_records_nothing(game: Path, table: Path) -> None:
    for log, move, at in (
        (game, "take r g b", None),
        (game, "take r r b", None),
        (game, "grab", None),
        (game, "reserve deck 1", "2"),
        (table, "reveal 1b0-k3", None),
        (table, "take r g b", None),
    ):
        before, stamp = log.read_bytes(), log.stat().st_mtime_ns
        args = ["rule", str(log), move, *(["--at", at] if at else [])]
        assert cli(*args).exit_code in (0, 1, 2)
        assert cli(*args, "--json").exit_code in (0, 1, 2)
        assert log.read_bytes() == before and log.stat().st_mtime_ns == stamp
    before = game.read_bytes()
    assert run_tally("rule", str(game), "take r g b").exit_code == 0
    assert game.read_bytes() == before


def test_undo_appends_a_voided_event_and_restores_the_state(game: Path) -> None:
    before = one_document(cli("state", str(game), "--json"))
    assert cli("move", str(game), "reserve 1b0-w1k2").exit_code == 0
    assert one_document(cli("state", str(game), "--json")) != before
    size = len(_lines(game))
    result = cli("undo", str(game), "--reason", "ann misspoke")
    assert result.exit_code == 0 and "void #3" in result.stdout
    lines = [json.loads(line) for line in _lines(game)]
    assert len(lines) == size + 1, "append-only: the voided line stays"
    assert lines[2]["type"] == "card_reserved"
    assert {k: lines[-1][k] for k in ("type", "seq", "target", "reason")} == {
        "type": "voided",
        "seq": 4,
        "target": 3,
        "reason": "ann misspoke",
    }
    after = one_document(cli("state", str(game), "--json"))
    assert {**after, "seq": None, "fingerprint": None} == {**before, "seq": None, "fingerprint": None}
    assert after["seq"] == 4
    checked = one_document(cli("check", str(game), "--json"))
    assert checked["ok"] is True and after["fingerprint"] == checked["fingerprint"]
    assert cli("move", str(game), "take r g b").exit_code == 0, "play goes on from the restored state"


def test_undo_needs_a_reason_and_something_to_void(game: Path, tmp_path: Path) -> None:
    before = game.read_bytes()
    said = "tally: say why the event is voided: tally undo LOG REASON (the reason is kept in the log)"
    assert failed(cli("undo", str(game), "--reason", "  "), 2) == said
    assert failed(cli("undo", str(game)), 2) == said
    assert run_tally("undo", str(game)).exit_code == 2
    assert game.read_bytes() == before
    fresh = tmp_path / "fresh.jsonl"
    cli("new", "splendor", str(fresh), "-p", "ann", "-p", "ben")  # table mode: nothing has happened yet
    line = failed(cli("undo", str(fresh), "--reason", "x"), 1)
    assert line.endswith("[core.void.nothing]")
    document = one_document(cli("undo", str(fresh), "--reason", "x", "--json"))
    assert document["accepted"] is False and document["rulings"][0]["rule"] == "core.void.nothing"


def test_undo_cannot_void_the_deal_of_an_open_game(game: Path) -> None:
    before = game.read_bytes()
    assert failed(cli("undo", str(game), "--reason", "oops"), 1).endswith("[core.void.dealt]")
    assert game.read_bytes() == before


def test_repair_of_an_intact_log_is_a_usage_error(game: Path) -> None:
    before = game.read_bytes()
    assert "nothing to repair" in failed(cli("repair", str(game)), 2)
    assert game.read_bytes() == before


def test_simulate_writes_checkable_logs_and_the_same_seed_gives_the_same_bytes(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    summary = one_document(
        run_tally(
            "simulate", "splendor", "--games", "3", "--seed", "1", "--players", "2", "--out", str(first), "--json"
        )
    )
    assert summary["games"] == 3 and summary["game"] == "splendor"
    assert (
        run_tally(
            "simulate", "splendor", "--games", "3", "--seed", "1", "--players", "2", "--out", str(second)
        ).exit_code
        == 0
    )
    names = sorted(p.name for p in first.iterdir())
    assert len(names) == 3 and names == sorted(p.name for p in second.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
        report = one_document(cli("check", str(first / name), "--json"))
        assert report["ok"] is True, report
        assert json.loads(_lines(first / name)[0])["seats"] == ["p1", "p2"]
    assert summary["events"] == sum(len(_lines(first / n)) for n in names)
    third = tmp_path / "third"
    cli("simulate", "splendor", "--games", "3", "--seed", "2", "--players", "2", "--out", str(third))
    assert any((first / n).read_bytes() != (third / n.replace("-s1-", "-s2-")).read_bytes() for n in names)


def test_simulate_refuses_bad_arguments(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert "at least 1" in failed(cli("simulate", "splendor", "--games", "0", "--seed", "1", "--out", str(out)), 2)
    assert "needs 2-4 players" in failed(
        cli("simulate", "splendor", "--games", "1", "--seed", "1", "--players", "5", "--out", str(out)), 2
    )
    assert "unknown game" in failed(cli("simulate", "chess", "--games", "1", "--seed", "1", "--out", str(out)), 2)
    assert "unknown option" in failed(
        cli("simulate", "splendor", "--games", "1", "--seed", "1", "--out", str(out), "-o", "x=1"), 2
    )


# --------------------------------------------------------------------------- what reaches the terminal (issue 7)


def run_bytes(*args: bytes, timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """`tally ARGS` with raw bytes as arguments (not UTF-8, as a shell can pass them)."""
    return subprocess.run(
        [sys.executable.encode(), b"-c", b"from tally.cli.main import main; main()", *args],
        capture_output=True,
        timeout=timeout,
        env=dict(os.environ, COLUMNS="100", NO_COLOR="1"),
    )


def test_finding_4_control_characters_in_notes_reasons_and_names_never_reach_the_terminal(
    tmp_path: Path, tally: Any
) -> None:
    path = tmp_path / "g.jsonl"
    assert tally("new", "splendor", str(path), "-p", "ana", "-p", "ben", "--seed", "1").exit_code == 0
    hostile = "\x1b]0;title\x07\x1b[2J"
    assert tally("note", str(path), hostile).exit_code == 0
    assert tally("move", str(path), "take r g b").exit_code == 0
    undone = tally("undo", str(path), "--reason", "\x1b[31moops\u202e\nfake line")
    assert undone.exit_code == 0 and undone.stdout.count("\n") == 2
    outputs = [undone.stdout]
    for command in (
        ["replay", str(path)],
        ["replay", str(path), "--json"],
        ["state", str(path)],
        ["check", str(path)],
        ["moves", str(path)],
    ):
        result = tally(*command)
        assert result.exit_code == 0, result
        outputs.append(result.stdout)
    text = "".join(outputs)
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in text
    replay = outputs[1]
    assert "note: \\x1b]0;title\\x07\\x1b[2J" in replay
    assert "void #4: \\x1b[31moops\\u202e\\nfake line" in replay
    doc = json.loads(outputs[2])  # JSON escapes them, and decodes to the very text recorded
    assert [s["text"] for s in doc["steps"]][2:4] == [f"note: {hostile}", "ana: take r g b"]

    db = tmp_path / "library.duckdb"
    assert tally("ingest", str(path), "--db", str(db)).exit_code == 0
    for command in (
        ["sql", "SELECT line, payload FROM events", "--db", str(db)],
        ["stats", "--db", str(db)],
        ["sql", "SELECT payload->>'text' FROM events WHERE type = 'noted'", "--db", str(db), "--json"],
    ):
        result = tally(*command)
        assert result.exit_code == 0 and "\x1b" not in result.stdout and "\x07" not in result.stdout, result
    shown = tally("sql", "SELECT payload->>'text' AS t FROM events WHERE type = 'noted'", "--db", str(db))
    assert "\\x1b]0;title\\x07\\x1b[2J" in shown.stdout


def test_finding_4_a_log_from_elsewhere_with_an_escape_in_a_name_is_refused_without_printing_it(
    tmp_path: Path, tally: Any
) -> None:
    path = start_log(tmp_path / "g.jsonl", seats=["\x1b[31mred", "ben"])
    for command in ("state", "replay", "check"):
        result = tally(command, str(path))
        assert result.exit_code == 3 and "U+001B" in stderr_line(result) and "\x1b" not in result.stderr + result.stdout


def test_finding_5_an_argument_that_is_not_utf8_is_a_usage_error(tmp_path: Path) -> None:
    path = tmp_path / "g.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    before = path.read_bytes()
    noted = run_bytes(b"note", str(path).encode(), b"bad \xff byte")
    assert noted.returncode == 2, noted
    assert noted.stderr == (
        b"tally: argument 3 (b'bad \\xff byte') is not valid UTF-8 (byte 0xff at offset 4): "
        b"tally reads its arguments as UTF-8 text; rename a file whose name is not UTF-8\n"
    )
    assert path.read_bytes() == before
    new = run_bytes(b"new", b"splendor", str(tmp_path / "x.jsonl").encode(), b"-p", b"\xff", b"-p", b"ben")
    assert new.returncode == 2 and new.stderr.count(b"\n") == 1 and b"argument 5" in new.stderr
    assert not (tmp_path / "x.jsonl").exists()
