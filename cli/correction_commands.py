"""Corrections (undo, amend): registered on the app. Both append (the log stays append-only): `voided`
for the last effective event, `amended` for any earlier one or a replacement (docs/format.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, List, Optional

import typer

from .app import (
    EXIT_RULE,
    EXIT_USAGE,
    ExpectFingerprintOption,
    ExpectSeqOption,
    JsonOption,
    app,
    fail,
    fingerprint_prefix,
    handled,
    move_json,
    rule_texts,
    say,
)
from .store_option import StoreOption, log_for


@app.command("undo")
@handled
def undo_command(
    log: Path = typer.Argument(..., help="The game log."),
    why: Optional[List[str]] = typer.Argument(None, help="Why the event is voided (kept in the log), quoted or not."),
    reason: Optional[str] = typer.Option(None, "--reason", help="The same, as an option."),
    turn: bool = typer.Option(
        False, "--turn", help="Void the whole last turn (a buy and its refill, say), newest first."
    ),
    event: Optional[int] = typer.Option(
        None,
        "--event",
        metavar="SEQ",
        help="Void event SEQ, any effective one: refused if an event after it would become illegal.",
    ),
    expect_seq: Optional[int] = ExpectSeqOption,
    expect_fingerprint: Optional[str] = ExpectFingerprintOption,
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Void the last effective event (or the last turn). The log stays append-only: `voided` events are added."""
    from tally.store.recording import record

    text = reason if reason is not None else " ".join(why or [])
    if not text.strip():
        raise fail(EXIT_USAGE, "say why the event is voided: tally undo LOG REASON (the reason is kept in the log)")
    if event is not None and turn:
        raise fail(EXIT_USAGE, "--event SEQ voids one event; --turn the last turn: give one of them")
    expected = fingerprint_prefix(expect_fingerprint)
    log = log_for(log, store)
    if event is not None:
        result = record.correct(log, event, text, None, expect_seq, expected)
    else:
        result = record.undo(log, text, turn, expect_seq, expected)
    _report_correction(result, as_json)


@app.command("amend")
@handled
def amend_command(
    log: Path = typer.Argument(..., help="The game log."),
    event: int = typer.Argument(..., metavar="SEQ", help="The event to replace, as `tally replay` numbers it."),
    move: str = typer.Argument(..., help="What happened instead, in the game's notation (quoted if several words)."),
    why: Optional[List[str]] = typer.Argument(None, help="Why it is corrected (kept in the log), quoted or not."),
    reason: Optional[str] = typer.Option(None, "--reason", help="The same, as an option."),
    expect_seq: Optional[int] = ExpectSeqOption,
    expect_fingerprint: Optional[str] = ExpectFingerprintOption,
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Replace event SEQ by the events of MOVE. Appends an `amended` correction; every later event is judged
    again, and if one would become illegal nothing is appended and the refusal names it."""
    from tally.store.recording import record

    text = reason if reason is not None else " ".join(why or [])
    if not text.strip():
        raise fail(EXIT_USAGE, "say why the event is corrected: tally amend LOG SEQ MOVE REASON (the reason is kept)")
    result = record.correct(log_for(log, store), event, text, move, expect_seq, fingerprint_prefix(expect_fingerprint))
    _report_correction(result, as_json)


def _report_correction(result: Any, as_json: bool) -> None:
    if as_json:
        move_json(result)
    if result.notation is not None:
        raise fail(EXIT_USAGE, f"{result.path}:{result.seq}: {result.notation.render()}")
    if not result.accepted:
        if not as_json:
            for line in rule_texts(result.rulings):
                say(line.strip())
        raise fail(EXIT_RULE, f"{result.path}:{result.seq}: " + "; ".join(result.messages))
    if not as_json:
        for event, line in zip(result.events, result.lines):
            say(f"#{event.seq} recorded: {line}")
        say(f"next: {result.to_act[1]}")
