"""Boards: each game's own board where there is one, else the generic board of its view."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import msgspec
import pytest
from rich.console import Console

from support import ROOT
from tally.cli.boards import board_for, generic
from tally.core import registry
from tally.store.recording.record import dealt, start_event


def started_view(game: str) -> Any:
    spec = registry.get(game)
    seats = [f"p{i + 1}" for i in range(spec.min_seats)]
    _, started = start_event(game, seats, {}, "open")
    state = spec.start(started)
    for event in dealt(spec, spec.start(started), random.Random(3))[0]:
        state = spec.apply(state, event)
    return msgspec.structs.replace(spec.view(state, None), seq=2)


def foreign(keys: dict[str, Any]) -> Any:
    """A view of a game no board knows, holding `keys` in their order (a Struct made for it, as a game's own view
    is one): the generic board draws it from its keys alone."""
    placed = [(key, Any, msgspec.UNSET) for key in ("seq", "fingerprint")]
    fields = [(key, Any) for key in keys if key not in ("seq", "fingerprint")]
    return msgspec.defstruct("Foreign", [*fields, *placed], frozen=True, kw_only=True)(**keys)


def drawn(draw, view: Any) -> str:
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
    assert text.startswith(f"{game} after #2, turn {view.turn}")
    for entry in view.players:
        assert entry.name in text
    for key in msgspec.to_builtins(view):
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


# --------------------------------------------------------------------------- every board fits 80x24

TERMINAL = (80, 24)
FIXTURES = sorted((ROOT / "fixtures" / "games").glob("*.jsonl"))


def rows(text: str) -> int:
    """How many rows of an 80-column terminal `text` takes: a line longer than that wraps onto the next."""
    return sum(max(1, -(-len(line) // TERMINAL[0])) for line in text.splitlines())


def screens(path: Path):  # type: ignore[no-untyped-def]
    """What the session shows after each event of a log, as an 80-column terminal shows it: the board, then
    the line that says what was recorded, what is due next, and the prompt (the session prints these without
    folding them: the terminal wraps a long one)."""
    from tally.cli.render import print_view
    from tally.cli.session import prompt_for, screen
    from tally.store.recording import record
    from tally.store.recording.results import frame_board

    def terminal(width: int = TERMINAL[0]) -> Console:
        return Console(file=io.StringIO(), width=width, markup=False, highlight=False, color_system=None)

    pos, frames = record.replay(path)
    for frame in frames:
        shown = frame_board(pos, frame)
        # the board drawn on a wider console (a wide terminal, or `tally state` piped at 100 columns) must still
        # keep within 80: no line of it is left to the console to fold
        board, whole = terminal(200), terminal()
        print_view(shown.view, board, footer=False)
        screen(whole, shown, [(f"#{frame.seq} recorded: {frame.text}", "bold")])
        whole.print(prompt_for(shown))
        yield frame.seq, board.file.getvalue(), whole.file.getvalue()  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_every_board_fits_80x24_at_every_step_of_every_fixture(path: Path) -> None:
    for seq, board, whole in screens(path):
        assert all(len(line) <= TERMINAL[0] for line in board.splitlines()), (path.name, seq, board)
        assert whole.startswith(board) and rows(whole) <= TERMINAL[1], (path.name, seq, whole)


def test_a_view_no_board_knows_is_drawn_by_the_generic_board() -> None:
    keys = {
        "game": "ten",
        "mode": "open",
        "viewer": None,
        "phase": "play",
        "turn": 3,
        "to_act": "p1",
        "expected": "p1 says 1 or 2",
        "total": 4,
        "players": [{"name": "p1", "said": [1, 2]}, {"name": "p2"}],
        "outcome": None,
        "seq": 5,
        "fingerprint": "0123456789abcdef",
    }
    text = drawn(board_for("ten"), foreign(keys))
    assert text.splitlines()[:2] == ["ten after #5 01234567, turn 3 (open mode)", "total: 4"], text
    assert "player  said" in text and "p1      1 2" in text and "p2      -" in text, text


def test_the_check_sees_a_board_too_tall_or_too_wide() -> None:
    keys = msgspec.to_builtins(started_view("split"))
    tall = dict(keys, pad={"rows": [{"name": f"r{i}", "boxes": [0, 5]} for i in range(30)], "minus": [0]})
    out = Console(file=io.StringIO(), width=TERMINAL[0], markup=False, highlight=False, color_system=None)
    generic.draw(foreign({**tall, **{f"key{i}": i for i in range(30)}}), out)
    assert out.file.getvalue().count("\n") > TERMINAL[1]  # type: ignore[attr-defined]


def test_a_split_board_folds_the_rows_nobody_marked_and_keeps_every_match() -> None:
    view = started_view("split")
    text = drawn(board_for("split"), view)
    assert "score pads: boxes marked per row (none yet in A 2 3 4 5 6 7 8 9 10 J Q K)" in text
    assert len(text.splitlines()) <= 20


def test_an_array_too_big_for_its_trees_is_drawn_as_its_open_cards() -> None:
    from tally.cli.boards import array
    from tally.store.recording import record

    pos, frames = record.replay(next(p for p in FIXTURES if p.stem == "array-open-4p"), 105)
    view = pos.spec.view(frames[-1].state, None)
    trees = array.arrays(view, view.colours, 1000)
    assert len(trees) > 20 and any(" ─" in line.plain and "─ #" in line.plain[6:] for line in trees)
    short = array.arrays(view, view.colours, 10)
    assert short[0].plain.startswith("open segments in [ ]") and len(short) <= 10
    for entry in view.arrays:
        assert f"array {entry.root} ({entry.size}):" in " ".join(line.plain for line in short)
        for card in entry.cards:
            if card.open:
                assert f"#{card.n}" in " ".join(line.plain for line in short)
    assert "open segments" in array.arrays(view, view.colours, 2)[0].plain
