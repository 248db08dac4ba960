"""No dead ends at a table of phones (issue 34, item 7): every game played seated, every seat entering its own hidden
cards from its own device, never reaches a position where the seat that must act has neither a move it is offered
(`GET .../moves` as that seat: the listing it is shown) nor a documented form to type (its entry of `owed`, one of the
game's notation forms); and every move of the game can be made from the device of the seat that owes it (its own
move, or the table's entry from the device `owed` asks), as a listed move or typed in that form.

The games searched: every bundled fixture that tally dealt (open mode), played again seated (the game's
`table_transcript` with every seat seated, each seat naming its own dealt hand: no device knows another's), and
random seated playouts of each game."""

from __future__ import annotations

from typing import Any, Callable, Iterator

import msgspec
import pytest

from support import array_helpers, splice_helpers, split_helpers
from support.page_helpers import GAMES as FIXTURES
from support.serve_helpers import transcript
from tally.core import registry
from tally.core.engine import Table
from tally.core.model import TABLE, Due, Event, GameStarted, Noted
from tally.store.logs import log as logfile
from tally.store.recording.judging import payload, propose
from tally.store.recording.service import judged, seat_moves, seat_reading, table_known_to

GAMES = registry.names()
# a deal naming every seated hand is no one device's to enter: each seat names its own (`hand_named`)
BY_SEAT: dict[str, Callable[[list[Event]], list[Event]]] = {
    "split": split_helpers.hands_by_seat,
    "array": array_helpers.hands_by_seat,
    "splice": splice_helpers.hands_by_seat,
}


def by_phones(game: str, events: list[Event]) -> list[Event]:
    """A seated transcript as a table of phones records it."""
    return BY_SEAT[game](events) if game in BY_SEAT else events


def played_seated(game: str) -> Iterator[tuple[str, list[Event]]]:
    """Every bundled game tally dealt, played again with every seat seated, and three random seated playouts."""
    spec = registry.get(game)
    for path in sorted(FIXTURES.glob(f"{game}-*.jsonl")):
        log = logfile.read(path)
        started = log.started
        if started.mode == "open":  # its effective events: what it means after its corrections
            effective = [e for e in judged(log).effective if not isinstance(e, Noted)]
            seated = spec.table_transcript([started, *effective], seated=tuple(started.seats))
            yield path.stem, by_phones(game, seated)
    for seed in (1, 2, 3):
        yield f"seed {seed}", by_phones(game, transcript(game, seed=seed))


def is_mine(text: str, seat: str, seats: list[str]) -> bool:
    """A listed move a seat's page offers it: its own, or the table's entry (a move that names no player)."""
    head, colon, _ = text.partition(":")
    return not colon or " " in head or head not in seats or head == seat


def typed_form(form: str) -> str:
    """A documented form as a seat's page types it: without `PLAYER: `, a bare move being the seat's own."""
    return form.removeprefix("PLAYER: ")


def dues_of(spec: Any, state: Any, seat: str) -> list[Due]:
    """What `seat` owes, as its listing says (`owed` on the table as it knows it): its own, and the table's entry it
    is asked to make (or any seat is)."""
    owed = spec.owed(spec.conceal(state, seat))
    return [due for due in owed if due.seat == seat or (due.seat == TABLE and due.by in (seat, None))]


def devices_owing(spec: Any, state: Any) -> list[str]:
    """The seats whose devices the table waits on: every seat owing, and the seat asked to make the table's entry
    (the first seat, when any seat may)."""
    seats = list(state.seats)
    found = []
    for due in spec.owed(state):
        found.append(due.seat if due.seat != TABLE else due.by or seats[0])
    return list(dict.fromkeys(found))


def check_position(spec: Any, state: Any, forms: set[str], where: str) -> None:
    """Every seat the table waits on is offered a move of its own or has a documented form to type, and `owed`
    names the seats `waiting_on` does."""
    owed = spec.owed(state)
    assert {due.seat for due in owed} - {TABLE} == set(spec.waiting_on(state)), (where, owed)
    assert all(due.form is None or due.form in forms for due in owed), (where, owed)
    for seat in devices_owing(spec, state):
        listed = [spec.format(move) for move in seat_moves(spec, state, seat)]
        offered = [text for text in listed if is_mine(text, seat, list(state.seats))]
        typed = [due.form for due in dues_of(spec, state, seat) if due.form is not None]
        assert offered or typed, (
            f"{where}: {seat} must act ({spec.to_act(state)[1]}) but is offered nothing to tap or type"
        )


def device_of(spec: Any, state: Any, event: Event) -> str:
    """The seat whose device makes `event`: its player, or for the table's entry the seat `owed` asks (the first
    seat, where any may)."""
    player = getattr(event, "player", None)
    if player is not None:
        return str(player)
    table = [due for due in spec.owed(state) if due.seat == TABLE]
    assert table, f"{spec.format(event)} is the table's entry, but the table owes nothing"
    return table[0].by or state.seats[0]


def check_move(spec: Any, table: Table, event: Event, forms: set[str], where: str) -> str:
    """`event` can be made from its device: listed there, or typed bare in one of the game's documented forms (`forms`)
    and accepted from that device. Returns how: `tapped` or `typed`."""
    state = table.state
    seat = device_of(spec, state, event)
    text = spec.format(event)
    if text in [spec.format(move) for move in seat_moves(spec, state, seat)]:
        return "tapped"
    bare = text.removeprefix(f"{seat}: ")
    assert any(bare.split()[0] == typed_form(form).split()[0] for form in forms), (
        f"{where}: {seat} cannot tap {text!r} and no documented form types it (owed: {spec.owed(state)})"
    )
    answer = propose(spec, table_known_to(table, seat), bare, seat_reading(table, seat))
    assert answer.accepted, (where, seat, bare, answer.messages)
    assert [payload(e) for e in answer.events] == [payload(event)], (where, bare, answer.events)
    return "typed"


@pytest.mark.parametrize("game", GAMES)
def test_no_seated_position_leaves_the_seat_that_must_act_without_a_move(game: str) -> None:
    spec = registry.get(game)
    forms = {form.form for form in spec.notation}
    searched = typed = 0
    for name, events in played_seated(game):
        started = events[0]
        assert isinstance(started, GameStarted) and started.seated == started.seats
        table = Table(spec, msgspec.structs.replace(started, seq=1))
        for seq, event in enumerate(events[1:], 2):
            where = f"{name} #{seq - 1}"
            check_position(spec, table.state, forms, where)
            typed += check_move(spec, table, event, forms, where) == "typed"
            table.apply(msgspec.structs.replace(event, seq=seq))
            searched += 1
        check_position(spec, table.state, forms, f"{name} at its end")
    assert searched > 500, searched
    if game != "splendor":  # every other game has a hand to name
        assert typed > 0
