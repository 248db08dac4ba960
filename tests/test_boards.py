"""Boards: each game's own board where there is one, else the generic board of its view."""

from __future__ import annotations

import io
import random

import pytest
from rich.console import Console

from tally.cli.boards import board_for, generic
from tally.core import registry
from tally.store.record import dealt, start_event


def started_view(game: str) -> dict:
    spec = registry.get(game)
    seats = [f"p{i + 1}" for i in range(spec.min_seats)]
    _, started = start_event(game, seats, {}, "open")
    state = spec.start(started)
    for event in dealt(spec, spec.start(started), random.Random(3))[0]:
        state = spec.apply(state, event)
    view = spec.view(state, None)
    view["seq"] = 2
    return view


def drawn(draw, view: dict) -> str:
    out = Console(file=io.StringIO(), width=100, markup=False, highlight=False, color_system=None)
    draw(view, out)
    return out.file.getvalue()  # type: ignore[attr-defined]


def test_a_game_without_its_own_board_is_drawn_generically() -> None:
    assert board_for("no-such-game") is generic.draw
    assert board_for("../../etc") is generic.draw


@pytest.mark.parametrize("game", registry.names())
def test_every_game_can_be_drawn_by_the_generic_board(game: str) -> None:
    view = started_view(game)
    text = drawn(generic.draw, view)
    assert text.startswith(f"{game} after #2, turn {view['turn']}")
    for entry in view["players"]:
        assert entry["name"] in text
    for key in view:
        if key not in generic.COMMON:
            assert f"{key.replace('_', ' ')}: " in text, key


@pytest.mark.parametrize("game", registry.names())
def test_every_game_is_drawn_by_its_own_board_when_it_has_one(game: str) -> None:
    draw = board_for(game)
    text = drawn(draw, started_view(game))
    assert "p1" in text and "p2" in text


def test_generic_cells_are_short_text() -> None:
    assert generic.cell(None) == "-" and generic.cell([]) == "-" and generic.cell(True) == "yes"
    assert generic.cell(["a", None, 3]) == "a - 3"
    assert generic.cell({"w": 1, "b": 0}) == "w=1 b=0"
    assert generic.cell({"rows": [[1, 2]]}) == '{"rows":[[1,2]]}'
