"""What `tally` imports before a command runs: a command of another module is registered lazily, yet the
whole app still lists it; the program imports msgspec without typing_extensions, and a query of the library DuckDB's
engine without the package and nothing that reads logs; the move separator split by hand splits as its regular
expression does."""

from __future__ import annotations

import random
import re
import subprocess
import sys

from tally.cli.main import app
from tally.store.recording.judging import MOVE_SEPARATOR, MOVE_SEPARATOR_PATTERN


def test_every_lazily_registered_command_is_in_the_app_and_registered_by_its_module():
    by_name = {info.name: info.callback.__module__ for info in app.registered_commands}
    declared = {
        "undo": "correction_commands",
        "amend": "correction_commands",
        "rules": "rules_command",
        "ingest": "library_commands",
        "sql": "library_commands",
        "stats": "library_commands",
        "export": "library_commands",
    }
    for name, module in declared.items():
        assert by_name[name] == f"tally.cli.{module}"
    assert not app._lazy  # reading the list imported every lazy module


def _modules_after(arguments: list[str], entry: str = "main") -> set[str]:
    where = "program" if entry == "run" else "main"  # the console script's entry, or the command line's
    script = (
        # printed at exit: a callback waiting for it keeps the interpreter's own exit (cli/program.py)
        f"import atexit, sys; from tally.cli.{where} import {entry}\nsys.argv = ['tally', *sys.argv[1:]]\n"
        "atexit.register(lambda: print(' '.join(sorted(sys.modules))))\n"
        f"try:\n    {entry}()\nexcept SystemExit:\n    pass\n"
    )
    done = subprocess.run([sys.executable, "-c", script, *arguments], capture_output=True, text=True, check=True)
    return set(done.stdout.split())


def test_a_move_imports_no_other_commands_module_and_the_full_help_imports_them(tmp_path):
    log = tmp_path / "game.jsonl"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from tally.cli.main import main; main()",
            "new",
            "splendor",
            str(log),
            "-p",
            "ana",
            "-p",
            "ben",
            "--seed",
            "1",
            "--mode",
            "open",
        ],
        check=True,
        capture_output=True,
    )
    moved = _modules_after(["move", str(log), "take r g b"])
    for module in ("correction_commands", "rules_command", "library_commands"):
        assert f"tally.cli.{module}" not in moved
    undone = _modules_after(["undo", "--help"])
    assert "tally.cli.correction_commands" in undone and "tally.cli.library_commands" not in undone
    helped = _modules_after(["--help"])
    assert {"tally.cli.correction_commands", "tally.cli.rules_command", "tally.cli.library_commands"} <= helped


def test_the_program_imports_msgspec_without_typing_extensions_and_freezes_what_start_up_made(tmp_path):
    log = tmp_path / "game.jsonl"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from tally.cli.program import run; run()",
            "new",
            "splendor",
            str(log),
            "-p",
            "ana",
            "-p",
            "ben",
            "--seed",
            "1",
            "--mode",
            "open",
        ],
        check=True,
        capture_output=True,
    )
    moved = _modules_after(["move", str(log), "take r g b", "--json"], entry="run")
    assert "msgspec" in moved and "typing_extensions" not in moved
    assert "typing_extensions" in _modules_after(["move", str(log), "take w b g"])  # main alone leaves msgspec be
    probe = (
        "import gc, sys; from tally.cli import startup\nstartup.begin_process()\n"
        "frozen = gc.get_freeze_count()\nimport msgspec, typing_extensions\n"
        "class Row(typing_extensions.TypedDict):\n    name: str\n"
        "print(frozen > 1000, typing_extensions.TypedDict is not None, msgspec.convert({'name': 'ana'}, Row))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split(maxsplit=2) == ["True", "True", "{'name': 'ana'}\n"]


def test_the_program_collects_nothing_while_start_up_runs_and_defers_what_msgspec_imports_unread(tmp_path):
    log = tmp_path / "game.jsonl"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "from tally.cli.program import run; run()",
            "new",
            "splendor",
            str(log),
            "-p",
            "ana",
            "-p",
            "ben",
            "--seed",
            "1",
            "--mode",
            "open",
        ],
        check=True,
        capture_output=True,
    )
    script = (
        "import gc, sys\ncollections = []\ngc.callbacks.append(lambda phase, info: collections.append(gc.get_freeze_count()))\n"
        "from tally.cli.program import run\nsys.argv = ['tally', *sys.argv[1:]]\n"
        "def report():\n"
        "    import msgspec\n    deferred = [type(sys.modules[f'msgspec.{name}']).__name__ for name in ('inspect', 'toml', 'yaml')]\n"
        "    print(gc.isenabled(), 'tally.cli.main' in sys.modules, collections.count(0), len(collections) > 0, *deferred)\n"
        "    print(msgspec.inspect.type_info(int), type(sys.modules['msgspec.inspect']).__name__, msgspec.toml.decode(b'a = 1'))\n"
        "import atexit\natexit.register(report)  # at exit: a callback waiting for it keeps the interpreter's own exit\n"
        "try:\n    run()\nexcept SystemExit:\n    pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, "move", str(log), "take r g b"], capture_output=True, text=True, check=True
    )
    assert done.stdout.splitlines()[-2:] == [
        "True True 0 True _Deferred _Deferred _Deferred",
        "IntType(gt=None, ge=None, lt=None, le=None, multiple_of=None) module {'a': 1}",
    ]


def test_a_query_of_the_library_imports_the_engine_alone_and_no_log_reading(tmp_path):
    from tally.store import library
    from tally.store.recording import record

    log, db = tmp_path / "game.jsonl", tmp_path / "library.duckdb"
    record.new_game(log, "splendor", ["ana", "ben"], seed=1)
    library.ingest(db, [log])
    for command in (["sql", "--db", str(db), "select count(*) from events"], ["stats", "--db", str(db)]):
        loaded = _modules_after(command, entry="run")
        assert "_duckdb" in loaded and "tally.store.library.read" in loaded
        assert not loaded & {
            "duckdb",
            "pyarrow",
            "typing_extensions",
            "tally.store.recording.service",
            "tally.core.engine",
        }


def test_the_move_separator_splits_as_its_pattern():
    pattern = re.compile(MOVE_SEPARATOR_PATTERN)
    rng = random.Random(21)
    alphabet = ["+", " ", "\t", "\n", "\u3000", "\x85", "a", "b"]
    for _ in range(20_000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10)))
        assert MOVE_SEPARATOR.split(text) == pattern.split(text), repr(text)
    assert MOVE_SEPARATOR.split("buy 1k0-w1b1g1r1 + reveal 1g0-w2b1") == ["buy 1k0-w1b1g1r1", "reveal 1g0-w2b1"]
    assert MOVE_SEPARATOR.split("match 5HL+5SR") == ["match 5HL+5SR"]


def test_the_program_ends_a_reporting_command_without_the_interpreters_exit_unless_something_waits_for_it(tmp_path):
    from support import FIXTURES

    log = str(FIXTURES / "games" / "splendor-4p.jsonl")
    ends = (
        "import atexit, sys\nif sys.argv[1] == 'wait':\n    atexit.register(print, 'atexit ran')\n"
        "sys.argv = ['tally', *sys.argv[2:]]\nfrom tally.cli.program import run\nrun()"
    )
    kept = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()", "check", log], capture_output=True, text=True
    )
    assert kept.returncode == 0 and kept.stdout.startswith("ok: 115 events")
    for waiting in ("none", "wait"):
        for arguments, code, out in ((["check", log], 0, kept.stdout), (["check", str(tmp_path / "no.jsonl")], 3, "")):
            done = subprocess.run([sys.executable, "-c", ends, waiting, *arguments], capture_output=True, text=True)
            assert done.returncode == code, done.stderr
            assert done.stdout == out + ("atexit ran\n" if waiting == "wait" else ""), done.stdout
