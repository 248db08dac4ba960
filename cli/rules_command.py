"""`tally rules`: a game's rules with their English text, one rule or a group of them, or its move notation with
examples; registered on the app. The data is the game's own (`RULES`, `NOTATION`), read through the store's read
model, so an installed tally shows it without any document beside it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import typer

from .app import EXIT_RULE, EXIT_USAGE, JsonOption, app, emit, fail, handled, say

if TYPE_CHECKING:
    from tally.store.recording.results import NotationEntry


@app.command("rules")
@handled
def rules_command(
    game: str = typer.Argument(..., help="Game name (see `tally games`)."),
    rule: Optional[str] = typer.Argument(
        None,
        help="A rule id (splendor.take.two-needs-four) or a group of them on dot boundaries (splendor.take, "
        "or take); default: every rule.",
    ),
    notation: bool = typer.Option(False, "--notation", help="Print how moves are written, with examples, instead."),
    as_json: bool = JsonOption,
) -> None:
    """Print a game's rules (every rule id with its English text, one rule, or a group), or with --notation how its
    moves are written. An id or group the game does not have is refused (exit 1) with the closest ones."""
    from tally.store.recording import results

    if notation:
        if rule is not None:
            raise fail(EXIT_USAGE, "--notation prints the whole notation: give no rule id with it")
        written = results.notation_report(game)
        if as_json:
            emit(written)
            return
        say(f"{written.title}: how moves are written")
        for form in written.forms:
            _form(form)
        say()
        say("every game also reads:")
        for form in written.shared:
            _form(form)
        return
    report = results.rules_report(game, rule)
    if as_json:
        emit(report)
    if not report.ok:
        raise fail(EXIT_RULE, f"{report.message} [{report.rule}]")
    if as_json:
        return
    if report.selected is None:
        say(f"{report.title}, rules version {report.rules_version}: {len(report.rules)} rules")
    for number, entry in enumerate(report.rules):
        if number or report.selected is None:
            say()
        say(entry.id)
        _wrapped(entry.text, "  ")


def _form(form: NotationEntry) -> None:
    say()
    say(f"  {form.form}")
    _wrapped(form.meaning, "      ")
    for number, example in enumerate(form.examples):  # one per line: ` | ` could be read as notation itself
        say(("      e.g. " if number == 0 else "           ") + example)


def _wrapped(text: str, indent: str) -> None:
    """A text cut into lines that fit 80 columns, each indented (a rule's text is one long sentence or more)."""
    import textwrap

    for line in textwrap.wrap(
        text, 80, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False
    ):
        say(line)
