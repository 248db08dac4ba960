"""What every command of `tally` shares: the app, the exit codes, the common options, and how a command prints its
output and turns the store's exceptions into one line and an exit code. Each command module imports from here;
`cli/main.py` holds the core commands and registers the others (imported only when one of them runs).
"""

from __future__ import annotations

import contextlib
import functools
import sys
from typing import Any, Callable, Iterator, List, Optional, TypeVar, cast

import typer

from tally.core.text import json_escape, visible

from .startup import App

EXIT_OK, EXIT_RULE, EXIT_USAGE, EXIT_DAMAGED, EXIT_INTERNAL = 0, 1, 2, 3, 4

app = App(
    name="tally",
    help="Record tabletop card games move by move, referee disputes, replay and query them.",
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (commands run through single_command_app skip it)
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _show_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        print(f"tally {version('tally')}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_show_version, is_eager=True, help="Show tally's version and exit."
    ),
) -> None:
    """Record tabletop card games move by move, referee disputes, replay and query them."""


JsonOption = typer.Option(False, "--json", help="Print one JSON document on stdout instead of text.")
ExpectSeqOption = typer.Option(
    None,
    "--expect-seq",
    help="Record only if the log still ends at event SEQ (what you last saw); else refused as stale.",
)
ExpectFingerprintOption = typer.Option(
    None,
    "--expect-fingerprint",
    metavar="HEX",
    help="Record only if the log's fingerprint still starts with HEX (8 or more hex digits, as `tally check` "
    "printed it); else refused as stale.",
)


def fingerprint_prefix(text: str | None) -> str | None:
    """An --expect-fingerprint read like `tally check --expect`'s fingerprint (a usage error otherwise)."""
    if text is None:
        return None
    from tally.store.logs import anchors

    try:
        return anchors.parse_fingerprint(text, "--expect-fingerprint")
    except ValueError as error:
        raise fail(EXIT_USAGE, str(error)) from None


F = TypeVar("F", bound=Callable[..., Any])


def say(line: str = "") -> None:
    """One line of text output. Control and invisible characters in it (a player's note, a void's reason,
    a path) are shown as escapes (`core.text.visible`), so the line stays one line and cannot drive the
    terminal."""
    sys.stdout.write(visible(line) + "\n")


def fail(code: int, message: str) -> typer.Exit:
    """The one line on stderr for an error, made visible like every other line."""
    sys.stderr.write(f"tally: {visible(message)}\n")
    return typer.Exit(code)


def json_text(document: Any) -> str:
    """`document` as one line of JSON whose strings hold no character a terminal acts on or hides:
    JSON escapes the controls below U+0020; the rest (DEL, C1 controls, bidi overrides, separators, lone
    surrogates) become `\\uXXXX` escapes too, which decode to the same strings."""
    import json  # only commands that print JSON pay for it

    text = json.dumps(document, ensure_ascii=False, sort_keys=False)
    return text if text.isprintable() else json_escape(text)


def emit(document: Any) -> None:
    """One JSON document: a result of the store's read model (a msgspec Struct), or plain data."""
    import msgspec

    if isinstance(document, msgspec.Struct):
        document = msgspec.to_builtins(document)
    sys.stdout.write(json_text(document) + "\n")


def handled(command: F) -> F:
    """Turn the store's exceptions into one line on stderr and the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (typer.Exit, BrokenPipeError):
            raise
        except Exception as error:
            raise _failure(error, kwargs) from None

    return cast(F, wrapper)


def _failure(error: Exception, kwargs: dict[str, Any]) -> typer.Exit:
    """The line and exit code for an exception of the store (read only when one is raised, so a command that
    never reads a log, as `tally sql`, does not import the log's modules)."""
    from tally.store.logs import log as logfile
    from tally.store.recording.service import IllegalLog, UsageError

    if isinstance(error, logfile.NothingToRepair):
        return fail(EXIT_USAGE, str(error))
    if isinstance(error, IllegalLog):
        if kwargs.get("as_json"):
            from tally.store.recording.results import illegal_log_report

            emit(illegal_log_report(error))
        return fail(EXIT_RULE, str(error))
    if isinstance(error, logfile.LogError):
        if kwargs.get("as_json"):
            from tally.store.recording.results import damaged_log_report

            emit(damaged_log_report(error))
        return fail(EXIT_DAMAGED, str(error))
    if isinstance(error, (UsageError, FileExistsError)):
        return fail(EXIT_USAGE, str(error))
    if isinstance(error, OSError):
        where = getattr(error, "filename", None) or kwargs.get("log") or kwargs.get("db") or "tally"
        where = where[0] if isinstance(where, list) and where else where  # `check`'s logs
        return fail(EXIT_DAMAGED, f"{where}: {error.strerror or error}")
    # a bug in tally: still one line, never a traceback
    return fail(EXIT_INTERNAL, f"internal error ({type(error).__name__}: {error}); please report it")


def options_of(values: Optional[List[str]]) -> dict[str, str]:
    options = {}
    for item in values or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise fail(EXIT_USAGE, f"--option {item!r}: expected KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


def move_json(result: Any) -> None:
    from tally.store.recording.results import move_report

    emit(move_report(result))


def rule_texts(rulings: Any) -> list[str]:
    """What each ruling's rule says, one line each (`  rule ID: TEXT`), from the read model's lookup."""
    from tally.store.recording.results import ruling_lines

    return [
        f"  rule {line.rule}: {line.text}" if line.text else f"  rule {line.rule}" for line in ruling_lines(rulings)
    ]


WIDTH = 80  # a summary's lines are wrapped to a terminal this wide
LISTED = 20  # a listing of more legal moves than this is summarised by kind: it would scroll past the screen
FEW = 4  # a kind of this many moves or fewer is listed whole in a summary


def kind_of(move: str) -> str:
    """A move's kind: its first word after the player's name (`ana: lay or@3.r` is a `lay`)."""
    head, colon, rest = move.partition(": ")
    return (rest if colon and " " not in head else move).split(" ", 1)[0]


def listing(
    seq: int, expected: str, moves: list[str], kind: str | None = None, every: bool = False, how: str = ""
) -> list[str]:
    """The legal moves, numbered as a move number selects them (`tally moves`, `moves` in a session): every one
    when they are few (or with `every`), those of one `kind`, else a summary by kind, each kind's numbers and a
    few of its moves; `how` says how to list every move or one kind."""
    numbered = list(enumerate(moves, 1))
    if kind is not None:
        numbered = [(number, text) for number, text in numbered if kind_of(text) == kind]
        if not numbered:
            kinds = ", ".join(dict.fromkeys(map(kind_of, moves))) or "none"
            return [f"after #{seq}: {expected}", f"  (no legal move of kind {kind}: the kinds now are {kinds})"]
    head = [f"after #{seq}: {expected}"]
    if not numbered:
        return head + ["  (no legal moves)"]
    if every or kind is not None or len(numbered) <= LISTED:
        return head + [f"{number:3d}. {text}" for number, text in numbered]
    from .wrap import wrapped  # a summary only: `tally move` never pays for it

    return [line for said in head + _summary(numbered, how) for line in wrapped(said, WIDTH)]


def _summary(numbered: list[tuple[int, str]], how: str) -> list[str]:
    """A long listing by kind, in the listing's order: a kind of `FEW` moves or fewer whole, a larger one as its
    first and last move with how many lie between, numbered as the whole listing numbers them."""
    kinds: dict[str, list[tuple[int, str]]] = {}
    for number, text in numbered:
        kinds.setdefault(kind_of(text), []).append((number, text))
    lines = [f"{len(numbered)} legal moves, summarised by kind{f' ({how})' if how else ''}:"]
    for name, found in kinds.items():
        if len(found) <= FEW:
            lines += [f"{number:3d}. {text}" for number, text in found]
            continue
        (first, said), (last, ending) = found[0], found[-1]
        between = _ranges([number for number, _ in found[1:-1]])
        lines += [f"{first:3d}. {said}", f"     ... {len(found) - 2} more {name} ({between})", f"{last:3d}. {ending}"]
    return lines


def _ranges(numbers: list[int]) -> str:
    """Move numbers as ranges: 1-48, 52, 60-61."""
    spans: list[list[int]] = []
    for number in numbers:
        if spans and number == spans[-1][1] + 1:
            spans[-1][1] = number
        else:
            spans.append([number, number])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


# --------------------------------------------------------------------------- every command, in its place

# Every command, in the order `tally --help` and docs/cli.md list them, and the module that registers it: the core
# commands are main.py's (the program imports it first); a module of the others is imported only when one of its
# commands runs or the whole app is read (`tally --help`, the docs), so `tally move` does not pay for them. Declared
# here, the order holds whichever module is imported first. Adding a command module is one line here.
for _module, _names in (
    (".main", ("games", "new", "record", "move", "rule", "moves", "state", "replay", "check", "note", "repair")),
    (".simulate_command", ("simulate",)),
    (".correction_commands", ("undo", "amend")),
    (".rules_command", ("rules",)),
    (".serve_command", ("serve",)),  # starlette and uvicorn are imported only when it runs
    (".library_commands", ("ingest", "sql", "stats", "export", "import")),  # duckdb itself is imported later still
    (".history_commands", ("chart", "alias")),
):
    app.register_lazily(_module, *_names)


# --------------------------------------------------------------------------- the history library's commands

EXIT_BUSY = 5  # the library is being written by another tally: not damage, run the command again (docs/sql.md)


@contextlib.contextmanager
def busy_library(as_json: bool) -> Iterator[None]:
    """A library held by another tally's ingest past the busy timeout is exit 5, not a damaged file's 3."""
    from tally.store.library import LibraryBusy

    try:
        yield
    except LibraryBusy as error:
        if as_json:
            emit({"ok": False, "error": "busy", "rule": error.rule, "message": error.message})
        raise fail(EXIT_BUSY, str(error)) from None


def waits_for_library(command: F) -> F:
    """`busy_library` around a whole command."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with busy_library(bool(kwargs.get("as_json"))):
            return command(*args, **kwargs)

    return cast(F, wrapper)


DbOption = typer.Option(None, "--db", help="The history library (default: $TALLY_DB, else ./tally.duckdb).")
