"""Splendor's notation: what a recorder types reads as documented, and a move that cannot be read says what
kind of problem it has (invalid, ambiguous or unknown), which callers decide by instead of the message's words."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from support.logs import stderr_line
from support.splendor_helpers import open_game
from tally.core.games.splendor import SPLENDOR
from tally.core.model import NotationError
from tally.store.recording import record


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("pass now", "invalid", "pass takes no arguments"),
        (
            "take r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r r",
            "invalid",
            "more than 40 tokens in one move",
        ),
        ("buy 1", "ambiguous", "'1' could be any of 4 cards: type more of it"),
        ("take r q", "unknown", "unknown token 'q'"),
        ("reserve 1k", "unknown", "unknown card '1k'"),
        ("cy: take r g b", "unknown", "no player 'cy' at this table"),
        ("tkae r g b", "unknown", "unknown move 'tkae'"),
    ],
)
def test_splendor_notation_error_kinds(text: str, kind: str, message: str) -> None:
    game = open_game()
    error = SPLENDOR.parse(game.state, text)
    assert isinstance(error, NotationError)
    assert (error.kind, error.message, error.text) == (kind, message, text)


def test_splendor_reveal_names_an_unknown_card_or_noble() -> None:
    """A reveal tries a card and then a noble: an unknown code is neither, an ambiguous one stays ambiguous."""
    from support.splendor_helpers import table_game

    game = table_game()
    game.do("ann: reserve 1w0-r2k1")
    unknown = SPLENDOR.parse(game.state, "reveal zz")
    assert isinstance(unknown, NotationError)
    assert (unknown.kind, unknown.message) == ("unknown", "unknown card or noble 'zz'")
    ambiguous = SPLENDOR.parse(game.state, "reveal 1")
    assert isinstance(ambiguous, NotationError)
    assert ambiguous.kind == "ambiguous" and ambiguous.message.startswith("'1' could be any of")


# --------------------------------------------------------------------------- unusual digits, huge numbers (issue 7)


@pytest.mark.parametrize(
    "move, message",
    [
        ("take r²", "count '²'"),
        ("buy 1k0-w²", "unknown card '1k0-w²'"),
        ("noble w²b4", "unknown noble 'w²b4'"),
        ("take 99999999999999999999 r", "count '99999999999999999999'"),
        ("take 100000000 r", "count '100000000': a count is a number from 1 to 10 in digits 0-9"),
        ("take ٣ r", "count '٣'"),
    ],
)
def test_finding_3_unusual_digits_and_huge_numbers_are_notation_errors(
    tmp_path: Path, tally: Any, move: str, message: str
) -> None:
    path = tmp_path / "g.jsonl"
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    before = path.read_bytes()
    for command in ("rule", "move"):
        began = time.perf_counter()
        result = tally(command, str(path), move)
        assert result.exit_code == 2, result
        assert time.perf_counter() - began < 30  # was 22 s and 2.5 GB; generous bound for a loaded machine
        assert stderr_line(result).startswith(f"tally: {path}:3: cannot read ") and message in result.stderr
        assert len(result.stderr) + len(result.stdout) < 1000  # was a 200 MB line
    assert path.read_bytes() == before
