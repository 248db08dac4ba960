"""Property-based bad input: no input makes tally fail with an internal error (exit 4).

For every game in `core/registry.py` (so a game added later is fuzzed without touching this file),
hypothesis generates logs (real ones mutated field by field, and `game_started` values of every type and
size), move strings (any Unicode, digits of every script, huge numbers, control characters), player
names and notes, component manifest files (the game's own and its documented examples, changed value by
value), and SQL text, runs the CLI on them in-process, and asserts what every run must give:

- an exit code from 0 to 3;
- on failure exactly one line on stderr, starting `tally: `, naming the log (and the line) when the
  failure is about the log (the verdict of `tally rule` on an illegal move is its answer, on stdout);
- output (stdout and stderr) proportional to the input, and free of raw control and invisible
  characters (they are shown as escapes), whatever the players typed.

The CLI runs in-process with a strict UTF-8 stdout (as a terminal has), so an unencodable string fails
here as it would for a user. Example counts keep the whole module to a minute or two on 2 cores; in CI
(CI=true) the examples are derandomized, so a run there never fails on an input no one has seen.
TALLY_FUZZ_SCALE=20 multiplies the examples for a longer hunt.
"""

from __future__ import annotations

import copy
import importlib
import io
import itertools
import json
import os
import random
import re
import sys
import tomllib
import unicodedata
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import ROOT
from tally.cli.main import main
from tally.core import registry
from tally.store import library
from tally.store.logs import log as logfile
from tally.store.recording.simulate import simulate

GAMES = registry.names()
SCALE = float(os.environ.get("TALLY_FUZZ_SCALE", "1"))  # e.g. 20 for a long hunt on a developer's machine
FUZZ = settings(
    max_examples=int(50 * SCALE),
    deadline=None,
    derandomize=os.environ.get("CI") == "true",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
MANY = settings(FUZZ, max_examples=int(120 * SCALE))
_FILES = itertools.count()

# --------------------------------------------------------------------------- running the CLI


class Run:
    def __init__(self, args: list[str], code: int, stdout: str, stderr: str):
        self.args, self.code, self.stdout, self.stderr = args, code, stdout, stderr

    def __repr__(self) -> str:
        return f"Run({self.args!r}, exit={self.code}, stdout={self.stdout[:300]!r}, stderr={self.stderr[:300]!r})"


def tally(*args: str) -> Run:
    """`tally ARGS` in-process, with stdout and stderr that encode UTF-8 strictly."""
    out, err = io.BytesIO(), io.BytesIO()
    stdout = io.TextIOWrapper(out, encoding="utf-8", errors="strict", write_through=True)
    stderr = io.TextIOWrapper(err, encoding="utf-8", errors="strict", write_through=True)
    saved = sys.argv, sys.stdout, sys.stderr
    sys.argv, sys.stdout, sys.stderr = ["tally", *args], stdout, stderr
    code: Any = 0
    try:
        main()
    except SystemExit as stop:
        code = stop.code
    finally:
        sys.argv, sys.stdout, sys.stderr = saved
    stdout.flush()
    stderr.flush()
    return Run(list(args), code if isinstance(code, int) else 1, out.getvalue().decode(), err.getvalue().decode())


_HIDDEN = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def assert_sane(run: Run, size: int, log: Path | None = None) -> Run:
    """What every run must give (see the module's docstring); `size` is the input's size in characters."""
    assert run.code in (0, 1, 2, 3), run
    if run.code == 1 and run.args[0] == "rule" and not run.stderr:  # a verdict is the answer: on stdout
        assert run.stdout.startswith(("illegal: ", "{")), run
    elif run.code:
        assert run.stderr.startswith("tally: ") and run.stderr.endswith("\n"), run
        if run.args[0] != "ingest":
            assert run.stderr.count("\n") == 1, run
        if log is not None and run.code == 3 and run.args[0] != "ingest":
            assert run.stderr.startswith(f"tally: {log}:") or run.stderr.startswith(f"tally: {log}: "), run
    else:
        assert run.stderr == "", run
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run
    assert len(run.stdout) + len(run.stderr) <= 40 * size + 200_000, (len(run.stdout), len(run.stderr), size)
    shown = run.stdout + run.stderr
    if not shown.isprintable():
        bad = {c for c in shown if c != "\n" and unicodedata.category(c) in _HIDDEN}
        assert not bad, (run, bad)
    return run


def fresh(folder: Path, data: bytes) -> Path:
    path = folder / f"fuzz-{next(_FILES)}.jsonl"
    path.write_bytes(data)
    return path


# --------------------------------------------------------------------------- real logs of every game


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[bytes]]:
    """A few simulated games of each game, open and table mode, as bytes."""
    found: dict[str, list[bytes]] = {}
    for game in GAMES:
        out = tmp_path_factory.mktemp(f"logs-{game}")
        simulate(game, 2, 3, out / "open")
        simulate(game, 1, 4, out / "table", mode="table")
        found[game] = [path.read_bytes() for path in sorted(out.rglob("*.jsonl"))]
    return found


def unit_ends(data: bytes) -> list[int]:
    """Byte offsets where a prefix of the log is a whole, valid log (after a complete unit)."""
    ends, offset, unit_end, seq = [], 0, 0, 0
    for line in data[:-1].split(b"\n"):
        seq += 1
        offset += len(line) + 1
        if seq > unit_end:
            unit_end = seq + json.loads(line).get("unit", 1) - 1
        if seq == unit_end:
            ends.append(offset)
    return ends


@st.composite
def log_prefix(draw: Any, logs: dict[str, list[bytes]], game: str) -> bytes:
    data = draw(st.sampled_from(logs[game]))
    ends = unit_ends(data)
    return data[: draw(st.sampled_from(ends[: min(len(ends), 60)]))]


# --------------------------------------------------------------------------- strategies

# digits of other scripts, super- and subscripts, circled and fractions: isdigit() or isnumeric(), not ASCII
ODD_DIGITS = "٣۴५৬੭૮୯௧౨೩൪๕໖༧၈႙០᠑²³¹⁴₅①⑩⓪Ⅻ½¾〇一二三３９𝟘𝟡"
CONTROLS = "\x00\x07\x08\t\n\r\x1b\x7f\x85\x9b\u200b\u200e\u202e\u2066\u2028\ufeff\U000e0001"
HUGE = st.integers(min_value=10**5, max_value=10**40).map(str)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
    | st.text(alphabet=CONTROLS + ODD_DIGITS + "ab", min_size=1, max_size=5000),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)


def legal_texts(data: bytes) -> tuple[list[str], list[str]]:
    """The legal moves after a log's bytes, in notation, and the words they are made of."""
    from tally.core.engine import fold

    log = logfile.parse_lines("x", data)
    spec = log.spec
    state = fold(spec, log.events).state
    moves = [spec.format(move) for move in spec.legal_moves(state)[:300]]
    words = sorted({word for text in moves for word in text.replace(":", " : ").split()})
    return moves, words or ["pass"]


@st.composite
def move_text(draw: Any, data: bytes) -> str:
    """A legal move with some of its words spoiled (odd digits, huge numbers, controls, other words of
    the notation), or any words of the notation, or any text at all."""
    moves, words = legal_texts(data)
    kind = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 0]))  # (hypothesis starts from the first)
    if kind == 0 or not moves:
        return draw(st.text(max_size=60))
    if kind == 1:
        return draw(st.sampled_from(moves))  # legal as it is: recorded, or judged legal
    base = (
        draw(st.sampled_from(moves)).split()
        if kind < 7
        else draw(st.lists(st.sampled_from(words), min_size=1, max_size=8))
    )
    spoiled = []
    for word in base:
        how = draw(st.integers(0, 9))
        if how == 1 and any(c.isdigit() for c in word):
            digit = draw(st.sampled_from(ODD_DIGITS))
            word = "".join(digit if c.isdigit() else c for c in word)
        elif how == 2:
            word = draw(HUGE)
        elif how == 3:
            word = word + draw(st.sampled_from(CONTROLS)) + word[:2]
        elif how == 4:
            word = word + draw(HUGE)
        elif how == 5:
            word = draw(st.sampled_from(words))
        elif how == 6:
            spoiled.append(draw(st.sampled_from(words)))
        spoiled.append(word)
    return " ".join(spoiled)


def plausible(original: Any, strings: list[str]) -> st.SearchStrategy[Any]:
    """A value like `original` (same type, values from the log) most of the time, so that a mutation gets
    past the typed decoding to the rules and reducers; else a JSON value of any type and size."""
    if isinstance(original, bool) or original is None:
        like: st.SearchStrategy[Any] = st.sampled_from(strings) | st.integers(-3, 200) | st.booleans()
    elif isinstance(original, int):
        like = (
            st.integers(-3, 200)
            | st.integers(min_value=-(2**64), max_value=2**64)
            | st.sampled_from([0, 1, 2, 3, 2**31, 2**63 - 1])
        )
    elif isinstance(original, str):
        like = (
            st.sampled_from(strings)
            | st.text(max_size=12)
            | st.sampled_from(strings).map(lambda s: "".join(ODD_DIGITS[int(c)] if c.isdigit() else c for c in s))
        )
    elif isinstance(original, list):
        items = [plausible(item, strings) for item in original[:3]] or [st.sampled_from(strings)]
        like = st.lists(st.one_of(items), max_size=8) | st.permutations(original)
    elif isinstance(original, dict):
        like = st.fixed_dictionaries({key: plausible(value, strings) for key, value in list(original.items())[:6]})
    else:
        like = JSON_VALUES
    return st.one_of(like, like, like, JSON_VALUES)


def strings_of(data: bytes) -> list[str]:
    """Every string value in a log (names, card ids, tokens...): the vocabulary of plausible mutations."""
    found: set[str] = set()

    def walk(value: Any) -> None:
        if isinstance(value, str) and len(value) < 40:
            found.add(value)
        elif isinstance(value, list):
            for item in value:
                walk(item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)

    for line in data[:-1].split(b"\n"):
        walk(json.loads(line))
    return sorted(found)


def rechain(lines: list[bytes], start: int) -> list[bytes]:
    """Give the lines from `start` on the prev their predecessors' bytes call for, so a mutation reaches
    the checks after the hash chain (a careful forger's log)."""
    out = list(lines)
    for i in range(max(start, 1), len(out)):
        try:
            event = msgspec.json.decode(out[i])
        except msgspec.DecodeError:
            continue
        if isinstance(event, dict) and "prev" in event:
            event["prev"] = logfile.sha256_hex(out[i - 1])
            out[i] = msgspec.json.encode(event)
    return out


# --------------------------------------------------------------------------- the properties


@pytest.mark.parametrize("game", GAMES)
def test_move_strings_never_crash(tmp_path: Path, logs: dict[str, list[bytes]], game: str) -> None:
    @MANY
    @given(st.data())
    def check(data: Any) -> None:
        prefix = data.draw(log_prefix(logs, game))
        text = data.draw(move_text(prefix))
        path = fresh(tmp_path, prefix)
        size = len(text) + 200
        for command in ("rule", "move"):
            run = assert_sane(tally(command, str(path), text), size)
            if run.code in (1, 2) and run.stderr:
                # a move that reads as an option (`-0`) is a usage error about the arguments, as for any command
                assert (
                    run.stderr.startswith(f"tally: {path}:")
                    or "argument" in run.stderr
                    or "No such option" in run.stderr
                ), run

    check()


HEX = st.text(alphabet="0123456789abcdefABCDEF", min_size=0, max_size=70)


@st.composite
def newer_command(draw: Any, prefix: bytes, path: Path) -> list[str]:
    """One of the newer inputs: a move with --expect-seq / --expect-fingerprint (right, wrong or junk), a
    ` + ` chain of moves (legal ones, spoiled ones, or another player's), `amend N MOVE`, `undo --event N`,
    `check --expect SEQ:FINGERPRINT`, `tally rules GAME [ID] [--notation]`, or a seat (`--as NAME` on `moves`,
    `state` and a new table-mode game)."""
    log = logfile.parse_lines("x", prefix)
    seq, fingerprint = len(log.events), log.last_hash
    moves, _ = legal_texts(prefix)
    number = (
        st.sampled_from([seq, seq - 1, seq + 1, 0, 1]).map(str)
        | st.integers(-5, 10**6).map(str)
        | HUGE
        | st.text(max_size=6)
    )
    hex_text = st.sampled_from([fingerprint[:8], fingerprint, fingerprint[:7], fingerprint[8:16]]) | HEX
    reason = st.text(max_size=20) | st.sampled_from(["misread", ""])
    kind = draw(st.sampled_from(["expect", "chain", "amend", "undo", "check", "rules", "seat", "listing"]))
    game, seats = log.started.game, list(log.started.seats)
    if kind == "listing":  # a long listing summarised, one kind of it, all of it; the game drawn in the terminal
        if draw(st.booleans()):
            return ["chart", str(path)]
        words = sorted({text.split()[0] for text in moves if text.split()})
        flags = draw(st.lists(st.sampled_from(["--all", "--json"]), max_size=2, unique=True))
        if draw(st.booleans()):
            flags += ["--kind", draw(st.sampled_from(words or ["take"]) | st.text(max_size=6))]
        return ["moves", str(path), *flags]
    if kind == "rules":
        ids = [rule.id for rule in registry.get(game).rules]
        args = ["rules", draw(st.sampled_from([game, game.upper()]) | st.text(max_size=8))]
        if draw(st.booleans()):
            args.append(
                draw(
                    st.sampled_from(ids)
                    | st.sampled_from(ids).map(lambda i: i.rsplit(".", 1)[0])
                    | st.text(max_size=12)
                )
            )
        return args + draw(st.lists(st.sampled_from(["--notation", "--json"]), max_size=2, unique=True))
    if kind == "seat":
        name = draw(st.sampled_from(seats) | st.sampled_from(seats).map(str.upper) | st.text(max_size=6))
        if draw(st.booleans()):
            return [draw(st.sampled_from(["moves", "state"])), str(path), "--as", name]
        return [
            "new",
            game,
            str(path.with_name("seated-" + path.name)),
            *[a for s in seats for a in ("-p", s)],
            "--mode",
            draw(st.sampled_from(["table", "open"])),
            "--as",
            name,
        ]
    if kind == "expect":
        flags = draw(
            st.lists(st.sampled_from(["--expect-seq", "--expect-fingerprint"]), min_size=1, max_size=2, unique=True)
        )
        args = [draw(st.sampled_from(["move", "note", "undo"])), str(path)]
        args += [draw(move_text(prefix))] if args[0] == "move" else [draw(reason) or "x"]
        for flag in flags:
            args += [flag, draw(number if flag == "--expect-seq" else hex_text)]
        return args
    if kind == "chain":
        parts = draw(st.lists(move_text(prefix) | st.sampled_from(moves or ["pass"]), min_size=2, max_size=4))
        return [draw(st.sampled_from(["move", "rule"])), str(path), " + ".join(parts)]
    if kind == "amend":
        return ["amend", str(path), draw(number), draw(move_text(prefix)), draw(reason) or "misheard"]
    if kind == "undo":
        return ["undo", str(path), "--event", draw(number), draw(reason) or "misread"]
    return ["check", str(path), "--expect", f"{draw(number)}:{draw(hex_text)}"]


@pytest.mark.parametrize("game", GAMES)
def test_the_newer_inputs_never_crash_and_a_refusal_appends_nothing(
    tmp_path: Path, logs: dict[str, list[bytes]], game: str
) -> None:
    @FUZZ
    @given(st.data())
    def check(data: Any) -> None:
        prefix = data.draw(log_prefix(logs, game))
        path = fresh(tmp_path, prefix)
        args = data.draw(newer_command(prefix, path))
        run = assert_sane(tally(*args), sum(map(len, args)) + 200)
        if run.code or args[0] in ("rule", "check", "rules", "moves", "state", "new", "chart"):
            assert path.read_bytes() == prefix, (run, "a refusal, a question or a check appends nothing")
        else:
            assert path.read_bytes().startswith(prefix) and len(path.read_bytes()) > len(prefix), run

    check()


@pytest.mark.parametrize("game", GAMES)
def test_logs_mutated_field_by_field_never_crash(tmp_path: Path, logs: dict[str, list[bytes]], game: str) -> None:
    @MANY
    @given(st.data())
    def check(data: Any) -> None:
        prefix = data.draw(log_prefix(logs, game))
        lines = prefix[:-1].split(b"\n")
        # mostly a later line's payload (line 1 has a test of its own; the envelope is checked early)
        index = data.draw(st.integers(min(1, len(lines) - 1), len(lines) - 1) | st.integers(0, len(lines) - 1))
        event = json.loads(lines[index])
        how = data.draw(st.integers(0, 9))
        payload = [key for key in event if key not in ("type", "seq", "at", "prev", "unit")]
        field = data.draw(
            st.sampled_from(payload) if payload and data.draw(st.integers(0, 5)) else st.sampled_from(list(event))
        )
        if how < 6:  # a field of the event gets another value, like it or of any type and size
            event[field] = data.draw(plausible(event[field], strings_of(prefix)))
        elif how == 6:
            del event[field]
        elif how == 7:
            event[data.draw(st.text(max_size=8))] = data.draw(JSON_VALUES)  # a field the event does not have
        elif how == 8:
            event = data.draw(JSON_VALUES)  # the whole line
        else:  # another line's payload under this line's envelope
            other = json.loads(data.draw(st.sampled_from(lines)))
            event = {
                **{k: event[k] for k in ("type", "seq", "at", "prev") if k in event},
                **{k: v for k, v in other.items() if k not in ("type", "seq", "at", "prev", "unit")},
            }
        lines[index] = msgspec.json.encode(event)
        if data.draw(st.integers(0, 3)):
            lines = rechain(lines, index + 1)
        mutated = b"".join(line + b"\n" for line in lines)
        path = fresh(tmp_path, mutated)
        size = len(mutated)
        for command in (["check"], ["replay"], ["state"], ["moves"], ["undo", "--reason", "r"], ["note", "x"]):
            assert_sane(tally(command[0], str(path), *command[1:]), size, path)
        moves = legal_texts(prefix)[0]
        if moves:
            assert_sane(tally("move", str(path), data.draw(st.sampled_from(moves))), size, path)
        if data.draw(st.integers(0, 7)) == 0:  # the library takes the same logs (fewer: each ingest opens DuckDB)
            run = assert_sane(tally("ingest", str(path), "--db", str(tmp_path / f"lib-{next(_FILES)}.duckdb")), size)
            if run.code:
                assert all(line.startswith(f"tally: rejected {path}") for line in run.stderr.splitlines()), run

    check()


@pytest.mark.parametrize("game", GAMES)
def test_game_started_of_every_type_and_size_never_crashes(
    tmp_path: Path, logs: dict[str, list[bytes]], game: str
) -> None:
    start = json.loads(logs[game][0].split(b"\n", 1)[0])
    keys = [key for key in start if key not in ("type", "seq", "at", "unit")]

    @FUZZ
    @given(
        changes=st.dictionaries(st.sampled_from(keys + ["extra"]), JSON_VALUES, max_size=3),
        dropped=st.sets(st.sampled_from(keys), max_size=2),
        seats=st.lists(st.text(max_size=30), max_size=12),
        option=st.text(max_size=20),
        use=st.integers(0, 3),
    )
    def check(changes: dict[str, Any], dropped: set[str], seats: list[str], option: str, use: int) -> None:
        first = {k: v for k, v in start.items() if k not in dropped and k != "unit"}
        first.update(changes)
        if use == 1:
            first["seats"] = seats
        elif use == 2 and isinstance(start.get("options"), dict) and start["options"]:
            first["options"] = {**start["options"], sorted(start["options"])[0]: option}
        data = msgspec.json.encode(first) + b"\n"
        path = fresh(tmp_path, data)
        for command in ("check", "state", "replay", "moves"):
            run = assert_sane(tally(command, str(path)), len(data), path)
            assert run.code in (0, 3), run
        if use == 3:
            assert_sane(tally("ingest", str(path), "--db", str(tmp_path / f"lib-{next(_FILES)}.duckdb")), len(data))

    check()


def manifest_examples(game: str) -> list[dict[str, Any]]:
    """Whole manifests of a game: its default components (`DEFAULT_MANIFEST`, where the game has inline
    manifests) and the manifest files its rules document shows (TOML blocks under "## Components")."""
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
    components = text.split("\n## Components\n", 1)[-1].split("\n## ", 1)[0]
    found = [tomllib.loads(block) for block in re.findall(r"```toml\n(.*?)```", components, re.S)]
    default = getattr(importlib.import_module(f"tally.core.games.{game}"), "DEFAULT_MANIFEST", None)
    return found + ([json.loads(json.dumps(default))] if default else []) or [{}]


def places(value: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) inside a manifest, to change one of them."""
    found: list[tuple[Any, Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, child in items:
        found.append((value, key))
        found.extend(places(child))
    return found


@st.composite
def mutated_manifest(draw: Any, base: dict[str, Any]) -> dict[str, Any]:
    """A manifest near a documented one: a few values replaced by values of every type and size, keys and
    list entries dropped or repeated, keys added."""
    manifest = copy.deepcopy(base)
    for _ in range(draw(st.sampled_from([1, 1, 1, 2, 3]))):
        spots = places(manifest)
        if not spots or draw(st.integers(0, 4)) == 4:  # hypothesis leans to small draws: adding a key is rare
            manifest[draw(st.text(max_size=10))] = draw(JSON_VALUES)
            continue
        leaves = [(c, k) for c, k in spots if not isinstance(c[k], (dict, list))]
        container, key = draw(st.sampled_from(leaves if leaves and draw(st.integers(0, 3)) else spots))
        action = draw(st.sampled_from(["number", "value", "drop", "repeat", "value"]))
        if action == "value":
            container[key] = draw(JSON_VALUES)
        elif action == "number":
            container[key] = draw(
                st.integers(1, 120) | st.integers(-3, 0) | st.integers(min_value=10**4, max_value=10**18)
            )
        elif action == "drop":
            del container[key]
        elif isinstance(container[key], list):
            container[key] = container[key] * draw(st.integers(2, 40))
        else:
            container[key] = [container[key]] * draw(st.integers(0, 3))
    return manifest


@pytest.mark.parametrize("game", GAMES)
def test_manifest_files_never_crash(tmp_path: Path, game: str) -> None:
    # a manifest file is the one input that reshapes the components every later check relies on

    @MANY
    @given(data=st.data(), mode=st.sampled_from(["open", "open", "table"]))
    def check(data: Any, mode: str) -> None:
        manifest = data.draw(st.sampled_from(manifest_examples(game)).flatmap(mutated_manifest), label="manifest")
        file = tmp_path / f"manifest-{next(_FILES)}.json"
        file.write_bytes(msgspec.json.encode(manifest))
        path = tmp_path / f"new-{next(_FILES)}.jsonl"
        seed = ["--seed", "1"] if mode == "open" else []
        size = file.stat().st_size + 200
        run = assert_sane(
            tally("new", game, str(path), "-p", "ana", "-p", "ben", "--mode", mode, *seed, "--manifest", str(file)),
            size,
        )
        assert run.code in (0, 2), run
        if run.code:
            assert not path.exists()
            return
        size += path.stat().st_size
        for _ in range(3):  # the first legal moves, by number, as a recorder would pick them
            assert_sane(tally("rule", str(path), "1"), size, path)
            assert assert_sane(tally("move", str(path), "1"), size, path).code in (0, 1, 2)
            size = path.stat().st_size + 200
        for command in (["state"], ["state", "--json"], ["moves"], ["replay"], ["check"]):
            assert assert_sane(tally(command[0], str(path), *command[1:]), size, path).code == 0

    check()


NAME = (
    st.sampled_from(["ana", "ben", "cy", "dee", "Søren", "山田", "o'neil", "p1"])
    | st.text(alphabet="anbeAаɑαoо0-—_ .'\u0301\u200b\u202e\t\x1b", min_size=1, max_size=6)
    | st.text(max_size=30)
)


@pytest.mark.parametrize("game", GAMES)
def test_player_names_notes_and_reasons_never_crash_nor_reach_the_terminal(tmp_path: Path, game: str) -> None:
    spec = registry.get(game)

    keys = [option.key for option in spec.options] or ["x"]
    option = st.tuples(
        st.sampled_from(keys), st.sampled_from([o.default for o in spec.options] or ["1"]) | st.text(max_size=12)
    )

    @MANY
    @given(
        names=st.lists(NAME, min_size=spec.min_seats, max_size=spec.max_seats),
        options=st.lists(option.map("=".join), max_size=2) | st.lists(st.text(max_size=20), max_size=1),
        note=st.text(max_size=200) | st.text(alphabet=CONTROLS + "ab ", max_size=50),
        reason=st.text(max_size=100),
        mode=st.sampled_from(["open", "table", "open", "x"]),
    )
    def check(names: list[str], options: list[str], note: str, reason: str, mode: str) -> None:
        path = tmp_path / f"new-{next(_FILES)}.jsonl"
        args = ["new", game, str(path), "--mode", mode]
        for name in names:
            args.append(f"--player={name}")
        for option in options:
            args.append(f"--option={option}")
        size = sum(map(len, args)) + 100
        run = assert_sane(tally(*args), size)
        assert run.code in (0, 2), run
        if run.code:
            assert not path.exists()
            return
        size += path.stat().st_size
        assert_sane(tally("note", str(path), note), size + len(note), path)
        assert_sane(tally("undo", str(path), "--reason", reason), size + len(reason), path)
        size += len(note) + len(reason)
        for command in (["replay"], ["replay", "--json"], ["state"], ["state", "--json"], ["check"], ["moves"]):
            assert assert_sane(tally(command[0], str(path), *command[1:]), size, path).code == 0

    check()


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Files `tally serve --ssl-*` may be given: a certificate and its key, another key, junk, a folder, nothing."""
    import trustme

    folder = tmp_path_factory.mktemp("tls")
    authority = trustme.CA()
    issued, other = authority.issue_cert("127.0.0.1"), authority.issue_cert("localhost")
    issued.private_key_pem.write_to_path(str(folder / "key.pem"))
    issued.cert_chain_pems[0].write_to_path(str(folder / "cert.pem"))
    other.private_key_pem.write_to_path(str(folder / "other.pem"))
    (folder / "junk.pem").write_bytes(b"-----BEGIN CERTIFICATE-----\n\x00\xff\n")
    return {name: str(folder / name) for name in ("key.pem", "cert.pem", "other.pem", "junk.pem", "missing.pem")} | {
        "folder": str(folder)
    }


SERVE_NUMBERS = (
    st.sampled_from(
        [
            "0",
            "-1",
            "1",
            "10",
            "3600",
            "3601",
            "1e9",
            "nan",
            "inf",
            "-inf",
            "0.001",
            "1000000",
            "1000001",
            "99999999999999999999",
        ]
    )
    | st.floats().map(str)
    | st.integers(-(2**70), 2**70).map(str)
    | st.text(max_size=8)
)
SERVE_NAMES = (
    st.sampled_from(["tally.lan", "localhost", "[::1]", "127.0.0.1", "a..b", "-x", "x" * 300, "ünï.example", ""])
    | st.text(alphabet=CONTROLS + "ab.-:[]", max_size=12)
    | st.text(max_size=20)
)


@st.composite
def serve_options(draw: Any, files: dict[str, str]) -> list[str]:
    """Options of `tally serve`, each right, wrong or junk: timeouts, stream caps, host names, TLS files, a port."""
    options: list[str] = []
    for _ in range(draw(st.integers(0, 4))):
        option = draw(
            st.sampled_from(
                [
                    "--request-timeout",
                    "--max-streams",
                    "--max-streams-per-client",
                    "--allow-host",
                    "--ssl-keyfile",
                    "--ssl-certfile",
                    "--host",
                    "--port",
                ]
            )
        )
        if option in ("--ssl-keyfile", "--ssl-certfile"):
            value = draw(st.sampled_from(sorted(files.values())))
        elif option == "--allow-host":
            value = draw(SERVE_NAMES)
        elif option == "--host":
            value = draw(
                st.sampled_from(["127.0.0.1", "::1", "localhost", "127.0.0.2", "256.1.1.1", "", "[::1]"]) | SERVE_NAMES
            )
        elif option == "--port":
            value = draw(st.sampled_from(["0", "-1", "65536", "x"]))
        else:
            value = draw(SERVE_NUMBERS)
        options += [f"{option}={value}"]
    if draw(st.booleans()):  # a right pair now and then, so that HTTPS is started too
        options += [f"--ssl-keyfile={files['key.pem']}", f"--ssl-certfile={files['cert.pem']}"]
    return options


def test_serve_options_never_crash(tmp_path: Path, tls_files: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """`tally serve`'s options (the request timeout, the stream caps, the names a Host may carry, the TLS files, the
    address): exit 0 with its one JSON line (https when a certificate was given), or 2 with one line; the server
    itself is not run (uvicorn's `Server.run` only closes the socket it is handed)."""
    import uvicorn

    def not_served(self: Any, sockets: Any = None) -> None:
        for listening in sockets or []:
            listening.close()

    monkeypatch.setattr(uvicorn.Server, "run", not_served)
    monkeypatch.delenv("TALLY_HOST_TOKEN", raising=False)

    @FUZZ
    @given(options=serve_options(tls_files))
    def check(options: list[str]) -> None:
        run = assert_sane(
            tally("serve", str(tmp_path), "--port", "0", "--json", *options), sum(map(len, options)) + 200
        )
        assert run.code in (0, 2), run
        if run.code == 0:
            started = json.loads(run.stdout)
            given_pair = any(o.startswith("--ssl-certfile=") for o in options)
            assert started["url"].startswith("https://" if given_pair else "http://"), run

    check()


SQL_WORDS = [
    "SELECT",
    "FROM",
    "WHERE",
    "games",
    "events",
    "seats",
    "line",
    "payload",
    "*",
    "count(*)",
    ",",
    ";",
    "--",
    "/*",
    "*/",
    "'",
    '"',
    "(",
    ")",
    "range(10)",
    "read_csv('x')",
    "COPY",
    "ATTACH",
    "PRAGMA",
    "SET",
    "memory_limit",
    "=",
    "1",
    "99999999999999999999",
    "->>",
    "'text'",
    "::JSON",
    "DROP",
    "TABLE",
    "INSERT",
    "INTO",
    "VALUES",
    "UNION",
    "ALL",
    "ORDER",
    "BY",
    "LIMIT",
    "\x1b[2J",
    "'\x1b]0;x\x07'",
    "'\u202e'",
    "NULL",
    "list(range(1000))",
]


def test_sql_text_never_crashes(tmp_path: Path, logs: dict[str, list[bytes]]) -> None:
    db = tmp_path / "library.duckdb"
    paths = [fresh(tmp_path, data) for game in GAMES for data in logs[game]]
    assert not library.ingest(db, paths).rejected

    @FUZZ
    @given(
        text=st.lists(st.sampled_from(SQL_WORDS), max_size=12).map(" ".join) | st.text(max_size=80),
        format=st.sampled_from(["table", "csv", "json"]),
    )
    def check(text: str, format: str) -> None:
        run = tally(
            "sql",
            "--db",
            str(db),
            "--format",
            format,
            "--max-rows",
            "50",
            "--timeout",
            "5",
            "--memory-limit",
            "256MB",
            "--",
            text,
        )
        assert_sane(run, len(text) + 10_000)

    check()


@st.composite
def nested(draw: Any, brackets: tuple[str, str] = ("[", "{")) -> str:
    """A value nested up to thousands deep: arrays and objects, mixed, with strings that hold brackets."""
    depth = draw(st.integers(0, 3000) | st.integers(25, 40))
    kinds = draw(st.lists(st.sampled_from(brackets), min_size=depth, max_size=depth))
    opening = "".join('{"k":' if kind == "{" else "[" for kind in kinds)
    closing = "".join("}" if kind == "{" else "]" for kind in reversed(kinds))
    inner = draw(st.sampled_from(["1", '"[[{{"', "[]", "{}", '"x"']))
    return opening + inner + closing


@pytest.mark.parametrize("game", GAMES)
def test_deep_nesting_never_crashes_any_reader(tmp_path: Path, logs: dict[str, list[bytes]], game: str) -> None:
    """Every reader measures nesting before it parses: the log reader (any line, any field), the manifest
    reader (JSON and TOML) and the request-body check; none of them recurses into a RecursionError."""
    from tally.store.logs import limits
    from tally.store.recording import record

    lines = logs[game][-1][:-1].split(b"\n")

    @FUZZ
    @given(
        value=nested(),
        index=st.integers(0, 1000),
        field=st.sampled_from(["text", "prev", "seats", "zz"]),
        truncate=st.booleans(),
    )
    def check(value: str, index: int, field: str, truncate: bool) -> None:
        at = index % len(lines)
        event = json.loads(lines[at])
        event[field] = "@"
        line = json.dumps(event, separators=(",", ":")).replace('"@"', value).encode()
        data = b"".join(x + b"\n" for x in lines[:at] + [line] + lines[at + 1 :])
        if truncate:
            data = data[: len(data) - 3]
        try:
            logfile.parse_lines("fuzz.jsonl", data)
        except logfile.LogError as error:
            assert error.rule.startswith("log."), error
        body = value.encode()
        problem = limits.check_json_body(body)
        if problem is None:
            msgspec.json.decode(body)  # within the limit: safe to parse
        else:
            assert problem.rule == "limit.depth" and limits.json_depth(body) > limits.MAX_DEPTH
        for suffix, text in (
            (".json", '{"id":"x","cards":' + value + "}"),
            (".toml", 'id = "x"\ncards = ' + value + "\n"),
        ):
            file = tmp_path / f"deep-{next(_FILES)}{suffix}"
            file.write_text(text)
            try:
                record.read_manifest(file)
            except record.UsageError:
                pass

    check()


def test_the_fuzzer_sees_a_crash() -> None:
    """The harness itself: an exception inside a command is exit 4 and fails `assert_sane`."""
    from tally.core.games.splendor import notation

    real = notation.parse

    def broken(state: Any, text: str) -> Any:
        raise ValueError("boom")

    notation_module = sys.modules["tally.core.games.splendor"]
    try:
        notation_module.SPEC.__class__.parse = staticmethod(broken)  # type: ignore[method-assign]
        folder = Path(os.environ.get("TMPDIR", "/tmp"))
        path = folder / f"tally-fuzz-self-{os.getpid()}-{random.random()}.jsonl"
        from tally.store.recording import record

        record.new_game(path, "splendor", ["ana", "ben"], seed=1)
        run = tally("rule", str(path), "take r g b")
        assert run.code == 4
        with pytest.raises(AssertionError):
            assert_sane(run, 100)
        path.unlink()
    finally:
        notation_module.SPEC.__class__.parse = staticmethod(real)  # type: ignore[method-assign]
