"""Split's notation: a move that cannot be read says what kind of problem it has (invalid, ambiguous or
unknown), which callers decide by instead of the message's words."""

from __future__ import annotations

import pytest

from support.split_helpers import standard
from tally.core.games.split import SPLIT
from tally.core.model import NotationError


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("draw 7HL 7DR", "invalid", "draw takes no card, or the one the recorder saw"),
        ("match 7HL", "invalid", "match names two halves"),
        ("take ZZ", "unknown", "unknown card 'ZZ'"),
        ("cy: draw", "unknown", "no player 'cy' at this table"),
        ("jump", "unknown", "unknown move 'jump'"),
    ],
)
def test_split_notation_error_kinds(text: str, kind: str, message: str) -> None:
    error = SPLIT.parse(standard().state, text)
    assert isinstance(error, NotationError)
    assert (error.kind, error.message, error.text) == (kind, message, text)


def test_split_reads_no_prefix_so_nothing_is_ambiguous() -> None:
    """Split reads a card by its whole code and a verb by its whole word: a prefix that several cards or verbs
    share is an unknown code, never an ambiguous one (the kind says which the game can tell apart)."""
    game = standard()
    for text in ("take 7H", "matc 7HL 7DR", "d"):
        error = SPLIT.parse(game.state, text)
        assert isinstance(error, NotationError)
        assert error.kind == "unknown", text


def test_split_upgrade_with_the_second_half_missing_says_so() -> None:
    # issue 17: `upgrade 7HR over` said "unknown card 'over'"
    error = SPLIT.parse(standard().state, "upgrade 7HR over")
    assert isinstance(error, NotationError)
    assert (error.kind, error.message) == ("invalid", "upgrade '7HR' over what? the half it goes over is missing")
    assert error.expected == ["upgrade CARD over CARD"]
