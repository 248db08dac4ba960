"""The README starts with exactly two commands, and CI runs the second one."""

from __future__ import annotations

import re

from support import ROOT


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first_block = re.search(r"```sh\n(.*?)```", text, re.S)
    assert first_block, "README must start with a sh code block"
    assert text.index(first_block.group(0)) < text.index("\n\n", text.index("# tally") + 8) + 2, (
        "the commands come first"
    )
    return [line for line in first_block.group(1).splitlines() if line.strip()]


def test_readme_starts_with_two_commands() -> None:
    commands = readme_commands()
    assert len(commands) == 2
    assert "tally replay fixtures/" in commands[0]
    assert "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] in ci.splitlines()


def test_the_main_job_replays_a_bundled_game() -> None:
    target = readme_commands()[0].rsplit("tally replay ", 1)[1].strip()
    assert (ROOT / target).is_file(), f"{target} must be a bundled fixture"
