"""What `tally` does before a command runs: the app whose command modules are imported when they are needed,
the one command's app that parses a run, and the check that the arguments are text.

A run of one command builds the click tree of that command alone (`single_command_app`) and imports only the
module that registers it, so `tally move` pays for no other command; whoever reads the whole app (`tally
--help`, `docs/cli.md`, a test's `CliRunner`) gets every command, in the order they are registered.
"""

from __future__ import annotations

import sys
import threading
from importlib import import_module
from types import ModuleType
from typing import Any

import typer


class App(typer.Typer):
    """A typer app some of whose commands live in modules imported on first need (`register_lazily`)."""

    def __init__(self, **settings: Any):
        self._lazy: dict[str, str] = {}  # command name -> the module that registers it, not imported yet
        self._slots: dict[str, int] = {}  # command name -> its place in the app, as declared (eager or lazy)
        self._adding = False
        super().__init__(**settings)

    @property
    def registered_commands(self) -> list[Any]:
        """Every command: reading the list (as typer does to build the app) imports the lazy modules first."""
        if self._lazy and not self._adding:
            self._import(list(dict.fromkeys(self._lazy.values())))
            # in the order declared, however early a module was imported (a test importing one of them first)
            self._commands.sort(key=lambda info: self._slots.get(info.name or "", len(self._slots)))
        return self._commands

    @registered_commands.setter
    def registered_commands(self, commands: list[Any]) -> None:
        self._commands = commands

    def command(self, *args: Any, **kwargs: Any) -> Any:
        register = super().command(*args, **kwargs)

        def decorator(function: Any) -> Any:
            self._slots.setdefault(args[0] if args else kwargs.get("name") or "", len(self._slots))
            self._adding = True  # appending a command is not reading the list
            try:
                return register(function)
            finally:
                self._adding = False

        return decorator

    def register_lazily(self, module: str, *commands: str) -> None:
        """`module` (relative to this package) registers `commands`: it is imported when one of them runs or
        when the whole app is read."""
        for name in commands:
            self._lazy[name] = module
            self._slots.setdefault(name, len(self._slots))

    def _import(self, modules: list[str]) -> None:
        for module in modules:
            for name in [n for n, m in self._lazy.items() if m == module]:
                del self._lazy[name]
            import_module(module, __package__)

    def single_command_app(self, name: str) -> typer.Typer | None:
        """An app holding only the command `name`, named `tally NAME` (None for a name no module declares).

        Building the click tree converts every command's signature; for one command that is a tenth
        of the cost, and usage, help and errors read exactly the same.
        """
        if name in self._lazy:
            self._import([self._lazy[name]])
        for info in self._commands:
            if info.name == name:
                single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
                single.registered_commands.append(info)
                return single
        return None


def begin_process() -> None:
    """What the `tally` program does once, before its command runs, in a process that ends after it.

    msgspec imports `typing_extensions`, when it is installed, only to read `typing_extensions`' TypedDict
    qualifiers (a TypedDict field marked `ReadOnly`); tally decodes no TypedDict, and without the module msgspec
    reads type hints with `typing`'s own, as it does wherever `typing_extensions` is not installed. Importing
    msgspec as if it were absent spares every command a tenth of typer's own import (about 12 M instructions);
    a later `import typing_extensions` (a test, a server's library) gets the real module.

    The objects made so far (typer, msgspec, this package: about two thirds of a move's) live until the process
    ends: frozen, the cyclic collector never scans them again, neither in the collections a command's own imports
    set off nor in the full one at exit (about 30 M instructions of a move). New objects are collected as ever,
    so a long-running command (`tally serve`, `tally record`) frees its garbage as before.
    """
    import gc

    if "msgspec" not in sys.modules and "typing_extensions" not in sys.modules:
        sys.modules["typing_extensions"] = None  # type: ignore[assignment]  # an import of it fails
        try:
            _defer_unread_modules_of_msgspec()
            import msgspec  # noqa: F401
        finally:
            del sys.modules["typing_extensions"]
    gc.freeze()


UNREAD_MSGSPEC_MODULES = ("inspect", "toml", "yaml")


class _Deferred(ModuleType):
    """A module whose code runs on the first read of a name it defines, in this very module object.

    `importlib.util.LazyLoader` would run it on the import statement itself (the import system reads the
    module's `__spec__`, which here is set from the start)."""

    _running = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        with _Deferred._running:
            if type(self) is _Deferred:
                self.__class__ = ModuleType  # type: ignore[assignment]
                self.__spec__.loader.exec_module(self)  # type: ignore[union-attr]
        return getattr(self, name)


def _defer_unread_modules_of_msgspec() -> None:
    """msgspec's package imports `msgspec.inspect`, `msgspec.toml` and `msgspec.yaml` with itself; tally reads
    none of them on a command's path (`inspect` alone builds some forty classes: 6 M instructions, a fifth of
    what a move adds to typer's start-up). Each is put in place deferred: whoever reads a name of one runs it
    then, and sees no difference."""
    from importlib.machinery import PathFinder
    from importlib.util import find_spec, module_from_spec

    package = find_spec("msgspec")
    if package is None or not package.submodule_search_locations:
        return
    for name in UNREAD_MSGSPEC_MODULES:
        spec = PathFinder.find_spec(f"msgspec.{name}", package.submodule_search_locations)
        if spec is None or spec.loader is None:
            continue
        module = module_from_spec(spec)
        module.__class__ = _Deferred
        sys.modules[spec.name] = module


def end_process() -> None:
    """Before the `tally` program exits: every object is frozen, so the interpreter's exit runs no full
    collection over them (about 2.5 M instructions of a move, after `begin_process`). What exit
    frees is freed as ever; an object left in a cycle at exit is not finalized, as Python never promises it is,
    and nothing tally writes waits for it: a log line and a cache entry are written, and the line synced,
    before the command reports."""
    import gc

    gc.freeze()


def check_utf8(arguments: list[str], fail: Any, exit_usage: int) -> None:
    """Arguments are UTF-8 text: one that is not (Python keeps its bad bytes as lone surrogates) is a usage
    error named by its position and bytes, before anything can try to print, store or encode it."""
    for number, argument in enumerate(arguments, 1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError as error:
            raw = argument.encode("utf-8", "surrogateescape")
            offset = len(argument[: error.start].encode("utf-8", "surrogateescape"))
            shown = repr(raw if len(raw) <= 40 else raw[:36] + b"...")
            fail(
                exit_usage,
                f"argument {number} ({shown}) is not valid UTF-8 (byte 0x{raw[offset]:02x} at offset {offset}): "
                "tally reads its arguments as UTF-8 text; rename a file whose name is not UTF-8",
            )
            sys.exit(exit_usage)
