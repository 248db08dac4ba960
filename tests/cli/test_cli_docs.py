"""docs/cli.md is generated from the typer app (`python -m tally.cli.docs`) and must stay in sync with it."""

from __future__ import annotations

import subprocess
import sys

from support import ROOT
from tally.cli import docs

CLI_MD = ROOT / "docs" / "cli.md"
REGENERATE = "regenerate it: python -m tally.cli.docs > docs/cli.md"


def test_docs_cli_md_is_the_generated_text() -> None:
    assert CLI_MD.exists(), f"docs/cli.md is missing; {REGENERATE}"
    assert CLI_MD.read_text(encoding="utf-8") == docs.render(), f"docs/cli.md is out of date; {REGENERATE}"


def test_python_m_tally_cli_docs_prints_it() -> None:
    result = subprocess.run([sys.executable, "-m", "tally.cli.docs"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == docs.render()


def test_every_command_and_parameter_has_help_text() -> None:
    commands = docs.commands()
    assert len(commands) >= 12
    missing = [name for name, command in commands if not (command.help or "").strip()]
    assert not missing, f"commands without help text: {missing}"
    bare = [
        f"{name} {param.name}"
        for name, command in commands
        for param in command.params
        if not (getattr(param, "help", "") or "").strip()
    ]
    assert not bare, f"arguments or options without help text: {bare}"


def test_every_json_command_has_documented_keys() -> None:
    reporting = {name for name, command in docs.commands() if docs.has_json(command)}
    assert reporting == set(docs.JSON_KEYS), "document the top-level --json keys in cli/docs.py JSON_KEYS"
    assert all(docs.JSON_KEYS[name] for name in reporting)


def test_the_docs_cover_every_command_and_the_exit_codes() -> None:
    text = docs.render()
    for name, command in docs.commands():
        assert f"## `tally {name}`" in text
        for param in command.params:
            if param.name != "help" and param.param_type_name == "option":
                assert f"`{param.opts[0]}" in text or any(f"{opt}" in text for opt in param.opts), (name, param.opts)
    for code in docs.EXIT_CODES:
        assert f"\n| {code} | " in text


def test_the_commands_keep_their_order_whichever_module_is_imported_first() -> None:
    """A command module imported before the app is read (as a test or a server may) does not move its commands."""
    first = "import tally.cli.library_commands, tally.cli.history_commands; from tally.cli import docs; print(docs.render(), end='')"
    result = subprocess.run([sys.executable, "-c", first], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert result.stdout == CLI_MD.read_text(encoding="utf-8")
