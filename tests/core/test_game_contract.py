"""Every game in the registry fulfils the game contract of docs/architecture.md, in the one-folder shape.

The contract is read from the document itself, so the document, `core.model.CONTRACT` and every
game's spec cannot drift apart; `store/` and `cli/` name no game. The checks of a spec and its folder
also take a game that is not in the registry: Ten (`tests/support/tinygame/`), which proves the "Adding a game"
checklist (its documents, corpus and fixtures, steps 5, 7 and 8, are the registry's games' alone).
"""

from __future__ import annotations

import ast
import inspect
import random
import re
from importlib import import_module
from pathlib import Path
from typing import Any

import msgspec
import pytest

from support import ROOT, tinygame
from support.rule_ids import rule_ids_used
from tally.core import registry
from tally.core.engine import Table
from tally.core.history import History
from tally.core.model import BINDINGS, CONTRACT, LATE, OPTIONAL, SHARED_EVENTS, Due, Event, GameSpec, GameStarted

ARCHITECTURE = ROOT / "docs" / "architecture.md"
GAME_TESTS_DIR = ROOT / "tests" / "games"  # tests/games/<game>/: the tests of one game
MODULES = (
    "__init__",
    "data",
    "components",
    "events",
    "state",
    "rules",
    "reducer",
    "moves",
    "notation",
    "view",
    "history",
    "transcript",
    "picture",
    "naming",
)
VIEW_KEYS = {"game", "mode", "viewer", "phase", "turn", "to_act", "expected", "players", "outcome"}
GAMES = registry.names()
TEST_ONLY: dict[str, GameSpec] = {"tinygame": tinygame.SPEC}
SPECS = GAMES + list(TEST_ONLY)  # the games whose spec and folder are checked


def spec_of(game: str) -> GameSpec:
    return TEST_ONLY[game] if game in TEST_ONLY else registry.get(game)


def folder_of(game: str) -> Path:
    """The game's package folder: `core/games/<game>/`, or wherever a test-only game lives."""
    return Path(inspect.getfile(type(spec_of(game)))).parent


def started_for(spec: GameSpec, seats: list[str]) -> GameStarted:
    """An open game's `game_started` with every option at its default, as `tally new` writes it."""
    started = GameStarted(
        seq=1,
        game=spec.name,
        rules=spec.rules_version,
        seats=seats,
        mode="open",
        options=spec.resolved_options({}),
        manifest=spec.manifest,
    )
    assert spec.check_started(started) == [], spec.check_started(started)
    return started


def random_playout(spec: GameSpec, players: int, rng: random.Random) -> tuple[list[Event], object]:
    """A random legal game from the deal to the end, through the spec alone (store's playout asks the registry)."""
    from tally.store.recording.record import dealt

    started = started_for(spec, [f"p{i + 1}" for i in range(players)])
    events, state = dealt(spec, spec.start(started), rng)
    for _ in range(20000):
        moves = spec.legal_moves(state)
        if not moves:
            break
        move = moves[rng.randrange(len(moves))]
        assert spec.check(state, move) == [] or all(r.verdict == "unverifiable" for r in spec.check(state, move))
        state = spec.apply(state, move)
        events.append(move)
        chance, state = dealt(spec, state, rng)
        events.extend(chance)
    return [started, *events], state


def documented(table_heading: str) -> list[list[str]]:
    """The rows of the first table after `table_heading` in docs/architecture.md, cells without backticks."""
    text = ARCHITECTURE.read_text(encoding="utf-8").split(table_heading, 1)[1]
    rows = []
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
            if not set(cells[0]) <= {"-"}:
                rows.append(cells)
        elif rows:
            break
    return rows[1:]  # without the header


def test_the_documented_contract_is_the_kernels() -> None:
    rows = documented("## The game contract")
    members = [row[0] for row in rows]
    assert members == list(CONTRACT)
    where = {row[0]: row[1] for row in rows}
    assert all(where[member] == module for member, (module, _) in BINDINGS.items()), "the doc and BINDINGS disagree"
    for member in CONTRACT:
        assert hasattr(GameSpec, member) or member in GameSpec.__annotations__, member


def test_the_documented_folder_is_the_one_every_game_has() -> None:
    names = [row[0].removesuffix(".py") for row in documented("## A game is one folder")]
    assert names == list(MODULES)


def test_the_registry_is_the_one_list_of_games() -> None:
    folders = sorted(p.name for p in (ROOT / "core" / "games").iterdir() if (p / "__init__.py").exists())
    assert folders == GAMES
    assert len(set(registry.GAMES)) == len(registry.GAMES)
    with pytest.raises(registry.UnknownGame):
        registry.get("no-such-game")


@pytest.mark.parametrize("game", SPECS)
def test_every_game_binds_every_member(game: str) -> None:
    spec = spec_of(game)
    assert isinstance(spec, GameSpec) and spec.name == game
    for member in CONTRACT:
        assert hasattr(spec, member), f"{game} lacks {member}"
        base = GameSpec.__dict__.get(member)
        if inspect.isfunction(base) and member not in OPTIONAL:  # the kernel's placeholder raises: a game binds its own
            assert getattr(type(spec), member) is not base, f"{game} does not bind {member}"
    assert isinstance(spec.history, History)
    assert spec.min_seats <= spec.max_seats and set(spec.modes) <= {"open", "table"}
    assert spec.rules and len({r.id for r in spec.rules}) == len(spec.rules)
    assert all(r.id.startswith(f"{game}.") for r in spec.rules)


def bindings_unlike_the_table(cls: type, package: str) -> list[str]:
    """Where a spec class binds a member of `BINDINGS` to another function than the table names (`package`
    is the game's folder): each member but the `LATE` ones must be stated in the class itself, and every one
    must end up as the very function (or object) the table names; an optional member (`OPTIONAL`) whose module
    or function the folder lacks is left to `GameSpec`'s default, and must then be that default."""
    wrong = []
    for member, (module, function) in BINDINGS.items():
        expected = _named(package, module, function)
        if expected is None:
            if member not in OPTIONAL:
                wrong.append(f"{member}: no {module}.{function} in the folder")
            elif member in cls.__dict__ and member not in LATE or getattr(cls, member) is not _default(member):
                wrong.append(f"{member}: not GameSpec's default, though the folder has no {module}.{function}")
        elif member not in LATE and member not in cls.__dict__:
            wrong.append(f"{member}: not stated in {cls.__name__}")
        elif getattr(cls, member) is not expected:
            wrong.append(f"{member}: not {module}.{function}")
    return wrong


def _named(package: str, module: str, function: str) -> Any:
    try:
        return getattr(import_module(f"{package}.{module}"), function, None)
    except ModuleNotFoundError as missing:
        if missing.name != f"{package}.{module}":
            raise
        return None


def _default(member: str) -> Any:
    return getattr(GameSpec, member)


def bindings_written(source: str, class_name: str) -> dict[str, tuple[str, str]]:
    """The bindings a game's `__init__` writes in its spec class, `check = staticmethod(_rules.check)` read as
    member -> (module, function); those stated for the type checker only (`if TYPE_CHECKING:`) count too."""
    tree = ast.parse(source)
    modules = {
        alias.asname or alias.name: alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1 and not node.module
        for alias in node.names
    }
    spec = next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name)
    written = {}
    for node in ast.walk(spec):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "staticmethod":
                value = value.args[0]
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id in modules:
                written[node.targets[0].id] = (modules[value.value.id], value.attr)
    return written


@pytest.mark.parametrize("game", SPECS)
def test_every_games_bindings_are_the_ones_the_table_names(game: str) -> None:
    cls = type(spec_of(game))
    assert bindings_unlike_the_table(cls, cls.__module__) == []
    written = bindings_written((folder_of(game) / "__init__.py").read_text(encoding="utf-8"), cls.__name__)
    stated = {
        member: where
        for member, where in BINDINGS.items()
        if _named(cls.__module__, *where) is not None or member not in OPTIONAL
    }
    assert written == stated, f"{game}'s spec class writes bindings the table does not name"


def test_the_binding_check_sees_a_member_bound_to_another_function() -> None:
    # guard the guard: a spec that states `permit` as `rules.check`, or leaves `view` to the kernel, is caught
    cls = type(tinygame.SPEC)
    rules = import_module(f"{cls.__module__}.rules")
    members = {name: value for name, value in cls.__dict__.items() if not name.startswith("__")}
    wrong = type("Wrong", (GameSpec,), {**members, "permit": staticmethod(rules.check)})
    unstated = type("Unstated", (GameSpec,), {name: value for name, value in members.items() if name != "view"})
    assert bindings_unlike_the_table(wrong, cls.__module__) == ["permit: not rules.permit"]
    assert "view: not stated in Unstated" in bindings_unlike_the_table(unstated, cls.__module__)
    source = (folder_of("tinygame") / "__init__.py").read_text(encoding="utf-8")
    misread = source.replace("picture = staticmethod(_picture.draw)", "picture = staticmethod(_view.draw)")
    assert misread != source and bindings_written(misread, cls.__name__)["picture"] == ("view", "draw")


@pytest.mark.parametrize("game", SPECS)
def test_every_game_has_the_same_modules(game: str) -> None:
    folder = folder_of(game)
    assert folder.name == game
    # a module that only holds optional members may be left out (the test game has no transcript); every game of the
    # registry has them all, so that a reader who knows one game knows where everything is in the others
    optional = {
        module
        for module in MODULES
        if all(member in OPTIONAL for member, (where, _) in BINDINGS.items() if where == module)
        and any(where == module for where, _ in BINDINGS.values())
    }
    needed = MODULES if game in GAMES else tuple(m for m in MODULES if m not in optional)
    missing = [m for m in needed if not (folder / f"{m}.py").exists()]
    assert not missing, f"core/games/{game}/ lacks {missing}"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_its_rules_document_corpus_and_fixtures(game: str) -> None:
    # what the document must say is checked by tests/core/test_rules_documents.py and tests/games/<game>/test_<game>_docs.py
    assert (ROOT / "docs" / "rules" / f"{game}.md").exists(), f"docs/rules/{game}.md is missing"
    assert (GAME_TESTS_DIR / game / f"test_{game}_docs.py").exists(), (
        f"tests/games/{game}/test_{game}_docs.py is missing"
    )
    corpus = ROOT / "fixtures" / "rulings" / game
    assert corpus.is_dir() and any(corpus.iterdir()), f"fixtures/rulings/{game}/ is missing or empty"
    games = sorted((ROOT / "fixtures" / "games").glob(f"{game}-*.jsonl"))
    assert len(games) >= 2, f"fewer than two recorded {game} games in fixtures/games/"
    assert any('"mode":"table"' in p.read_text(encoding="utf-8").split("\n", 1)[0] for p in games), (
        f"no {game} fixture recorded in table mode"
    )


# the test files every game has, `tests/games/<game>/test_<game>_<part>.py` (docs/architecture.md's "Adding a game")
GAME_TESTS = ("docs", "fixtures", "history", "notation", "properties", "rules")


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_the_same_test_files(game: str) -> None:
    found = sorted(
        path.stem.removeprefix(f"test_{game}_") for path in (GAME_TESTS_DIR / game).glob(f"test_{game}_*.py")
    )
    assert found == sorted(GAME_TESTS), f"tests/games/{game}/test_{game}_*.py: {found}, not {sorted(GAME_TESTS)}"


def names_of_tests(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def named_after(rule: str) -> str:
    """`split.turn.out-of-turn` -> `test_split_turn_out_of_turn`."""
    return "test_" + rule.replace(".", "_").replace("-", "_")


@pytest.mark.parametrize("game", SPECS)
def test_every_rule_id_of_a_game_is_declared_and_has_its_own_test(game: str) -> None:
    spec = spec_of(game)
    declared = {rule.id for rule in spec.rules}
    used = rule_ids_used(game, ROOT / "core" if game in GAMES else folder_of(game))
    assert used, f"no rule id of {game} found in its code"
    assert used - declared == set(), f"rule ids used in core/ but missing from {game}'s rules.RULES"
    assert all(rule.text.strip() for rule in spec.rules)
    tests = names_of_tests(GAME_TESTS_DIR / game / f"test_{game}_rules.py")
    missing = sorted(rule for rule in declared if named_after(rule) not in tests)
    assert missing == [], (
        f"rule ids without a test named after them in tests/games/{game}/test_{game}_rules.py: {missing}"
    )


def test_every_kernel_rule_id_has_its_own_test() -> None:
    used = rule_ids_used("core")
    assert {"core.void.nothing", "core.log.one-start"} <= used, "the scan for rule ids found nothing"
    tests = set().union(*(names_of_tests(path) for path in (ROOT / "tests").rglob("test_*.py")))
    missing = sorted(rule for rule in used if named_after(rule) not in tests)
    assert missing == [], f"kernel rule ids without a test named after them: {missing}"


@pytest.mark.parametrize("game", SPECS)
def test_every_games_history_tables_are_its_own(game: str) -> None:
    history = spec_of(game).history
    for table, columns in history.tables.items():
        assert table.startswith(f"{game}_"), table
        assert columns[0] == ("game_id", "VARCHAR"), table
    for report in history.reports:
        assert "{where}" in report.sql and report.columns


@pytest.mark.parametrize("game", SPECS)
def test_every_event_kind_is_annotated_with_real_types(game: str) -> None:
    # msgspec compiles every string annotation of a Struct and its bases when it builds a log's decoder, for each
    # event kind again: events and their base keep real types (core/model.py says what it costs otherwise)
    for kind in (*SHARED_EVENTS, *spec_of(game).events):
        for cls in kind.__mro__:
            strings = [name for name, hint in vars(cls).get("__annotations__", {}).items() if isinstance(hint, str)]
            assert strings == [], f"{cls.__module__}.{cls.__qualname__}: postponed annotations {strings}"


@pytest.mark.parametrize("game", SPECS)
def test_every_view_has_the_common_keys(game: str) -> None:
    from tally.store.recording.record import dealt

    spec = spec_of(game)
    seats = [f"p{i + 1}" for i in range(spec.min_seats)]
    started = started_for(spec, seats)
    state = spec.start(started)
    for event in dealt(spec, spec.start(started), random.Random(1))[0]:
        state = spec.apply(state, event)
    for viewer in (None, seats[0]):
        view = spec.view(state, viewer)
        assert isinstance(view, msgspec.Struct) and view.__struct_config__.frozen, type(view)  # a value, typed
        keys = msgspec.to_builtins(view)
        assert VIEW_KEYS <= set(keys), VIEW_KEYS - set(keys)
        assert view.game == game and view.viewer == viewer
        assert all("name" in entry for entry in keys["players"])
        assert not {"seq", "fingerprint"} & set(keys)  # the read model places a view in a log, not the game
    assert isinstance(started, GameStarted)


@pytest.mark.parametrize("game", SPECS)
def test_every_game_draws_its_view_through_the_contract(game: str) -> None:
    import xml.etree.ElementTree as ET

    from tally.store.recording.record import dealt

    spec = spec_of(game)
    seats = [f"p{i + 1}" for i in range(spec.min_seats)]
    state = spec.start(started_for(spec, seats))
    for event in dealt(spec, state, random.Random(1))[0]:
        state = spec.apply(state, event)
    for viewer in (None, seats[0]):
        picture = spec.picture(spec.view(state, viewer))
        root = ET.fromstring(picture)
        assert root.tag == "{http://www.w3.org/2000/svg}svg" and root.attrib["aria-label"], game
        assert picture == spec.picture(spec.view(state, viewer))  # the same view, the same bytes


# a game's name may also be an ordinary word of code or prose (pyarrow's `pa.array`, `str.split`, "a string
# array"): what counts is naming the game, in code (an import of its package, a string that is or starts with
# its name, a variable or an attribute called after it that is not a method call) or by its title in a comment
# or docstring
FOREIGN_MODULES = {"pa", "pyarrow", "np", "numpy", "str", "re", "os", "shlex"}


def _names_a_game(path: Path, games: list[str]) -> list[str]:
    import io
    import tokenize

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    titles = {registry.get(game).title: game for game in games}
    title = re.compile(r"\b(" + "|".join(map(re.escape, titles)) + r")\b")
    code = re.compile(r"^(" + "|".join(map(re.escape, games)) + r")(?:$|[._-])", re.IGNORECASE)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                docstrings.add(id(first.value))
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}  # `text.split()`, `pa.array(...)`
    found = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if isinstance(node, ast.Import):
                parts = [part for alias in node.names for part in alias.name.split(".")[1:]]
            else:  # `from tally.core.games import x`: the names imported from tally's own packages count too
                module = node.module or ""
                parts = module.split(".")[1:]
                if node.level or module.startswith("tally"):
                    parts += [alias.name for alias in node.names]
            if any(part.lower() in games for part in parts):
                found.append(f"{line}: imports a game")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) in docstrings:
                if title.search(node.value):
                    found.append(f"{line}: docstring names {title.search(node.value).group(0)}")  # type: ignore[union-attr]
            elif code.search(node.value.strip()):
                found.append(f"{line}: string {node.value.strip()[:40]!r}")
        elif isinstance(node, ast.Name) and node.id.lower() in games:
            found.append(f"{line}: name {node.id}")
        elif isinstance(node, ast.Attribute) and node.attr.lower() in games and id(node) not in called:
            owner = node.value.id if isinstance(node.value, ast.Name) else ""
            if owner not in FOREIGN_MODULES:
                found.append(f"{line}: attribute .{node.attr}")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and title.search(token.string):
            found.append(f"{token.start[0]}: comment names {title.search(token.string).group(0)}")  # type: ignore[union-attr]
    return found


def test_store_and_cli_name_no_game() -> None:
    found = []
    boards = {ROOT / "cli" / "boards" / f"{game}.py" for game in GAMES}
    for layer in ("store", "cli"):
        for path in sorted((ROOT / layer).rglob("*.py")):
            if path not in boards:
                found.extend(f"{path.relative_to(ROOT)}:{where}" for where in _names_a_game(path, GAMES))
    assert not found, "store/ and cli/ reach games through the registry only:\n" + "\n".join(found)


def test_the_guard_sees_a_game_named_in_store_or_cli(tmp_path: Path) -> None:
    # guard the guard: each way of naming a game is caught, and ordinary words that happen to be a game's name are not
    sample = tmp_path / "sample.py"
    game = GAMES[0]
    title = registry.get(game).title
    sample.write_text(
        f'"""Reads {title} logs."""\n'
        f"from tally.core.games import {game}\n"
        f"# only for {title}\n"
        f"kind = {game!r}\n"
        f"table = '{game}_turns'\n"
        f"spec = games.{game}\n"
        "import pyarrow as pa\n"
        "column = pa.array([1])  # a string array, split in two\n"
        "words = 'a b'.split()\n",
        encoding="utf-8",
    )
    found = _names_a_game(sample, GAMES)
    assert sorted(int(f.split(":")[0]) for f in found) == [1, 2, 3, 4, 5, 6], found


def test_boards_are_only_for_known_games_and_draw_from_a_view() -> None:
    boards = sorted(p.stem for p in (ROOT / "cli" / "boards").glob("*.py") if p.stem not in ("__init__", "generic"))
    assert set(boards) <= set(GAMES), f"a board for no game: {set(boards) - set(GAMES)}"
    for name in boards:
        path = ROOT / "cli" / "boards" / f"{name}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"))
        typing_only = {
            node.lineno
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and ast.unparse(block.test) == "TYPE_CHECKING"
            for node in ast.walk(block)
            if isinstance(node, ast.stmt)
        }
        imported = [(node.lineno, node.module or "") for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        imported += [
            (node.lineno, alias.name) for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        ]
        # the one thing a board takes from core: its game's view types, for the type checker (it reads their attributes)
        found = [
            module
            for line, module in imported
            if module.startswith(("tally.store", "tally.core"))
            and not (module == f"tally.core.games.{name}.view" and line in typing_only)
        ]
        assert not found, f"cli/boards/{name}.py draws from a view only: {found}"


@pytest.mark.parametrize("game", SPECS)
def test_every_game_says_what_ended_it_and_what_is_pending(game: str) -> None:
    spec = spec_of(game)
    for seed in range(3):
        events, state = random_playout(spec, spec.min_seats, random.Random(f"contract:{seed}"))
        transcript = spec.table_transcript(events)[0]
        assert isinstance(transcript, GameStarted) and transcript.mode == "table"
        result = spec.outcome(state)
        if result is not None:  # `games.ended` in the library, documented in docs/rules/<game>.md
            assert result.ended
            if game in GAMES:
                assert result.ended in (ROOT / "docs" / "rules" / f"{game}.md").read_text(encoding="utf-8")
        pending = spec.pending(state)
        assert pending is None or isinstance(pending, str)


@pytest.mark.parametrize("game", SPECS)
def test_every_game_says_who_owes_what_as_its_seats_are_waited_on(game: str) -> None:
    """At every step of random games, open and as a seated table records them: `owed` names exactly the seats
    `waiting_on` names (and the table's entry, its `by` a seat), each form one of the game's documented notation
    forms, and nothing once the game is over."""
    spec = spec_of(game)
    forms = {form.form for form in spec.notation}
    for seed in range(2):
        events, _ = random_playout(spec, spec.min_seats + seed, random.Random(f"owed:{seed}"))
        seats = tuple(events[0].seats)  # type: ignore[attr-defined]
        for log in (events, spec.table_transcript(events, seated=seats if game in GAMES else ())):
            started = log[0]
            assert isinstance(started, GameStarted)
            table = Table(spec, msgspec.structs.replace(started, seq=1))
            for seq, event in enumerate(log[1:], 2):
                table.apply(msgspec.structs.replace(event, seq=seq))
                owed, state = spec.owed(table.state), table.state
                assert {due.seat for due in owed} - {"table"} == set(spec.waiting_on(state)), (seq, owed)
                assert all(due.form is None or due.form in forms for due in owed), (seq, owed)
                assert all(due.by is None or (due.seat == "table" and due.by in seats) for due in owed), (seq, owed)
                assert (owed == ()) == (spec.to_act(state)[0] == "nobody"), (seq, owed)


def test_a_game_may_leave_every_optional_member_to_the_kernel() -> None:
    """Ten leaves every optional member out (`OPTIONAL`): each is GameSpec's default, and the game still plays, is
    judged, conceals nothing and is transcribed as it is."""
    cls = type(tinygame.SPEC)
    assert OPTIONAL.isdisjoint(cls.__dict__) or all(getattr(cls, m) is getattr(GameSpec, m) for m in OPTIONAL)
    spec = tinygame.SPEC
    started = GameStarted(
        seq=1,
        game="tinygame",
        rules="1",
        seats=["ann", "ben"],
        mode="open",
        options={"target": "5"},
        manifest=spec.manifest,
    )
    from tally.core.engine import playout

    events, state = playout(spec, started, lambda n: 0, lambda pile: pile, 100)
    assert spec.outcome(state) is not None and spec.conceal(state, "ann") is state and spec.pending(state) is None
    assert spec.waiting_on(spec.start(started)) == ("ann",) and spec.check_manifest("other") != []
    begun = spec.start(started)
    assert spec.owed(begun) == (Due(seat="ann", what=spec.to_act(begun)[1]),) and spec.owed(state) == ()
    assert [type(e) for e in spec.table_transcript(events)] == [type(e) for e in events]
