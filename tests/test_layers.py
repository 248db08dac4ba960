"""The import direction cli -> store -> core, core's purity, and a light `tally move` path."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from support import ROOT

LAYERS = {"core": 0, "store": 1, "cli": 2}
SERVER = ("starlette", "uvicorn", "sse_starlette")  # imported only by serve/ and the command that runs it
# what core may import: pure standard library pieces and msgspec; no I/O, clock, randomness or UI
CORE_ALLOWED = {
    "__future__",
    "typing",
    "itertools",
    "functools",
    "collections",
    "dataclasses",
    "enum",
    "msgspec",
    "importlib",
    "abc",
    "math",
    "operator",
    "re",
    "unicodedata",
    "difflib",
}


def imports_of(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ".".join(("tally", *path.relative_to(root).with_suffix("").parts))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: -node.level]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def modules(layer: str, root: Path = ROOT) -> list[Path]:
    return sorted((root / layer).rglob("*.py"))


def upward_imports(layer: str, root: Path = ROOT) -> list[str]:
    problems = []
    for path in modules(layer, root):
        for line, name in imports_of(path, root):
            parts = name.split(".")
            if parts[0] == "tally" and len(parts) > 1 and parts[1] in LAYERS and LAYERS[parts[1]] > LAYERS[layer]:
                problems.append(f"{path.relative_to(root)}:{line} imports {name}")
    return problems


def impurities(root: Path = ROOT) -> list[str]:
    problems = []
    for path in modules("core", root):
        for line, name in imports_of(path, root):
            top = name.split(".")[0]
            if top == "tally":
                if not name.startswith("tally.core"):
                    problems.append(f"{path.relative_to(root)}:{line} imports {name}")
            elif top not in CORE_ALLOWED:
                problems.append(f"{path.relative_to(root)}:{line} imports {name}")
        source = path.read_text(encoding="utf-8")
        for call in ("open(", "print(", "input("):
            for number, text in enumerate(source.splitlines(), 1):
                stripped = text.strip()
                if stripped.startswith(("#", '"', "'")):
                    continue
                if f" {call}" in f" {stripped}" and f".{call}" not in stripped and f"_{call}" not in stripped:
                    problems.append(f"{path.relative_to(root)}:{number} calls {call[:-1]}")
    return problems


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_imports_only_go_downwards(layer: str) -> None:
    problems = upward_imports(layer)
    assert not problems, "imports must go cli -> store -> core:\n" + "\n".join(problems)


def test_core_is_pure() -> None:
    problems = impurities()
    assert not problems, "core must stay pure (no I/O, clock, randomness, UI):\n" + "\n".join(problems)


def test_the_checker_sees_a_violation(tmp_path: Path) -> None:
    # guard the guard: an upward import, an impure import and a print in core are all reported
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "probe.py").write_text(
        "from ..store import log\nimport random\nprint('x')\n", encoding="utf-8"
    )
    assert upward_imports("core", tmp_path) == ["core/probe.py:1 imports tally.store"]
    assert impurities(tmp_path) == [
        "core/probe.py:1 imports tally.store",
        "core/probe.py:2 imports random",
        "core/probe.py:3 calls print",
    ]


def test_move_path_stays_light(tmp_path: Path) -> None:
    from tally.store.recording import record

    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=4)
    probe = (
        "import sys\n"
        f"sys.argv = ['tally', 'move', {str(log)!r}, 'take r g b']\n"
        "from tally.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'duckdb', 'pyarrow', 'rich', 'pydantic', 'numpy',"
        " 'pandas', 'starlette', 'uvicorn', 'sse_starlette', 'anyio', 'httpx'})\n"
        "print('HEAVY', heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert "#3 recorded: ana: take r g b" in out.stdout, out
    assert "HEAVY []" in out.stdout, out.stdout


def test_the_game_folders_and_boards_are_among_the_checked_modules() -> None:
    # every game's folder is core (pure, importing nothing above core) and every board is cli
    from tally.core import registry

    core, cli = set(modules("core")), set(modules("cli"))
    for game in registry.names():
        folder = sorted((ROOT / "core" / "games" / game).glob("*.py"))
        assert folder and set(folder) <= core, game
    assert (ROOT / "cli" / "boards" / "generic.py") in cli


# --------------------------------------------------------------------------- the CLI renders what store computed


def type_checking_lines(tree: ast.AST) -> set[int]:
    """The lines of the statements under `if TYPE_CHECKING:`: what is imported for the type checker alone."""
    return {
        node.lineno
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
        for node in ast.walk(block)
        if isinstance(node, ast.stmt)
    }


def board_view_type(path: Path, root: Path, line: int, module: str) -> bool:
    """A board's import of its own game's view types (`cli/boards/<game>.py`: `tally.core.games.<game>.view`), for
    the type checker alone: the board reads the view's attributes, typed, and still draws from the view alone."""
    board = path.parent == root / "cli" / "boards"
    return (
        board
        and module == f"tally.core.games.{path.stem}.view"
        and line in type_checking_lines(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    )


def game_calls_in_cli(root: Path = ROOT) -> list[str]:
    """Imports of a game's modules (but a board's of its own game's view types, for the type checker), and calls
    of a `GameSpec` member on a spec (`spec.view(...)`, `pos.spec.to_act(...)`), anywhere under cli/: store gives
    the CLI what it renders."""
    from tally.core.model import CONTRACT

    members = set(CONTRACT)
    problems = []
    for path in modules("cli", root):
        name = path.relative_to(root)
        problems.extend(
            f"{name}:{line}: imports {module}"
            for line, module in imports_of(path, root)
            if module.startswith("tally.core.games") and not board_view_type(path, root, line, module)
        )
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in members):
                continue
            owner = node.func.value
            if (isinstance(owner, ast.Name) and owner.id == "spec") or (
                isinstance(owner, ast.Attribute) and owner.attr == "spec"
            ):
                problems.append(f"{name}:{node.lineno}: calls {ast.unparse(node.func)}")
    return problems


def test_the_cli_calls_no_game_function_and_imports_no_game() -> None:
    assert game_calls_in_cli() == []


def test_the_game_call_scan_finds_what_it_forbids(tmp_path: Path) -> None:
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "bad.py").write_text(
        "from tally.core.games.splendor import SPEC\n"
        "def show(pos, spec):\n    spec.view(pos.table.state, None)\n    return pos.spec.to_act(pos.table.state)\n"
        "def fine(text):\n    return '{}'.format(text)\n",
        encoding="utf-8",
    )
    (tmp_path / "cli" / "boards").mkdir()
    (tmp_path / "cli" / "boards" / "splendor.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from tally.core.games.splendor.state import State\n"  # the game's state: no board reads it
        "if TYPE_CHECKING:\n"
        "    from tally.core.games.splendor.view import SplendorView\n"  # its own view's type: allowed
        "    from tally.core.games.split.view import SplitView\n",
        encoding="utf-8",
    )  # another game's: not
    found = game_calls_in_cli(tmp_path)
    assert len(found) == 5 and "imports tally.core.games.splendor" in found[0], found
    assert found[1].endswith("calls spec.view") and found[2].endswith("calls pos.spec.to_act"), found
    assert found[3:] == [
        "cli/boards/splendor.py:2: imports tally.core.games.splendor.state",
        "cli/boards/splendor.py:5: imports tally.core.games.split.view",
    ], found


# --------------------------------------------------------------------------- the server is an interface beside the CLI


def serve_imports(root: Path = ROOT) -> list[str]:
    """`serve/` imports only store and core (never cli); only `cli/serve_command.py` imports `tally.serve`; the
    server's libraries are imported by those two alone."""
    problems = []
    for path in modules("serve", root):
        problems += [
            f"{path.relative_to(root)}:{line} imports {name}"
            for line, name in imports_of(path, root)
            if name.startswith("tally.cli")
        ]
    for layer in ("core", "store", "cli"):
        for path in modules(layer, root):
            allowed = path == root / "cli" / "serve_command.py"
            for line, name in imports_of(path, root):
                if not allowed and (name.startswith("tally.serve") or name.split(".")[0] in SERVER):
                    problems.append(f"{path.relative_to(root)}:{line} imports {name}")
    return problems


def test_only_the_serve_command_imports_the_server() -> None:
    assert serve_imports() == []


def test_the_serve_import_scan_finds_what_it_forbids(tmp_path: Path) -> None:
    for folder in ("serve", "store", "cli"):
        (tmp_path / folder).mkdir()
    (tmp_path / "serve" / "app.py").write_text("from tally.cli import main\n", encoding="utf-8")
    (tmp_path / "store" / "x.py").write_text("import starlette\n", encoding="utf-8")
    (tmp_path / "cli" / "y.py").write_text("from tally.serve.app import create_app\n", encoding="utf-8")
    (tmp_path / "cli" / "serve_command.py").write_text(
        "import uvicorn\nfrom tally.serve.app import create_app\n", encoding="utf-8"
    )
    assert serve_imports(tmp_path) == [
        "serve/app.py:1 imports tally.cli",
        "store/x.py:1 imports starlette",
        "cli/y.py:1 imports tally.serve.app",
    ]


# --------------------------------------------------------------------------- no import loop


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the project modules it imports, at the top or inside a function alike (a lazy import is still a
    dependency), but not for the type checker alone (`if TYPE_CHECKING:`). `from PACKAGE import NAME` is the module
    NAME when there is one, else the package."""
    known: dict[str, Path] = {}
    for layer in ("core", "store", "cli", "serve"):
        for path in modules(layer, root):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(("tally", *(parts[:-1] if parts[-1] == "__init__" else parts)))
            known[name] = path
    graph: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        checking = {
            id(node)
            for block in ast.walk(tree)
            if isinstance(block, ast.If) and isinstance(block.test, ast.Name) and block.test.id == "TYPE_CHECKING"
            for node in ast.walk(block)
        }
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in checking:
                continue
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]) if node.level else ""
                module = ".".join(part for part in (base, node.module or "") if part)
                found.update(
                    f"{module}.{alias.name}" if f"{module}.{alias.name}" in known else module for alias in node.names
                )
        graph[name] = {other for other in found if other in known and other != name}
    return graph


def import_loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected sets of modules with more than one module (Tarjan's algorithm): each an import loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            found = []
            while True:
                other = stack.pop()
                found.append(other)
                if other == node:
                    break
            if len(found) > 1:
                loops.append(sorted(found))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return loops


def test_no_module_of_tally_imports_one_that_imports_it_back() -> None:
    """No import loop in core, store, cli or serve, lazy imports included: a module that needs another's helpers
    takes them from a module below both (`cli/app.py`, `serve/http.py`, `store/errors.py`, a game's `state.py`), and a
    game's fast playout imports its moves, never the reverse."""
    graph = import_graph()
    assert {"tally.cli.app", "tally.serve.http", "tally.store.errors"} <= set(graph)
    assert import_loops(graph) == []


def test_the_loop_finder_sees_a_loop_through_a_lazy_import() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert import_loops(graph) == [["a", "b", "c"]]
    assert import_loops({"a": {"b"}, "b": set()}) == []
