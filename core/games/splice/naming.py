"""What a Splice seat names by tapping pieces (the card picker, `core/naming.py`): the deck's cards (the coins by
value, the wild and special cards, the wild map pieces), the map pieces by colour and the gemstone disks; and the
moves the listing cannot enumerate: a seat's own dealt hand (and its disk, when `disks` left it out), and a draw of
several cards named by a seat that names its own (a refill: too many ways to list).

Computed on the table as the caller knows it: the cards offered are the copies the caller cannot locate."""

from __future__ import annotations

from ...knowledge import can_reveal, unlocated
from ...naming import Naming, Piece, Slot, counted, hand
from .events import MapsBought
from .moves import purchases
from .notation import format_event
from .seating import draws
from .state import State, located_cards, located_disks, located_pieces, pile_size


def _card_group(code: str) -> list[str]:
    if code.isdigit():
        return ["coins"]
    if code.startswith("x"):
        return ["wild map pieces"]
    return ["other cards"]


def pieces(state: State) -> list[Piece]:
    """The deck's cards (coins by value, then the other cards, then the wild map pieces), the map pieces colour by
    colour, and the disks."""
    box = state.box
    cards = sorted(box.copies, key=lambda code: (not code.isdigit(), code.startswith("x"), code.zfill(3)))
    found = [Piece(code, _card_group(code)) for code in cards]
    found += [Piece(piece, ["map pieces", box.colour_name(piece[0])]) for piece in box.pieces]
    found += [Piece(colour, ["disks"]) for colour in box.colours]
    return found


def _cards_unlocated(state: State) -> dict[str, int]:
    return unlocated(state.box.copies, located_cards(state))


def _owed_hand(state: State, name: str) -> Naming | None:
    """A seat's dealt hand (the Hurricanes left out) with its disk when the log does not know it yet."""
    seat = state.players[state.seats.index(name)]
    if not seat.hand.unknown:
        return None  # only the disk is owed: the listing names each colour
    pool = {code: n for code, n in _cards_unlocated(state).items() if code != "hurricane"}
    named = hand(name, seat.hand.unknown, pool)
    if seat.disk is None:
        held = located_disks(state)
        disks = counted(colour for colour in state.box.colours if not held[colour])
        named = Naming(
            named.kind,
            named.player,
            named.head,
            f"{named.words}, and {name}'s gemstone disk",
            [*named.slots, Slot("disk", 0, 1, disks, "disk")],
        )
    return named


def _owed_draw(state: State) -> Naming | None:
    """A seated seat's draw of several cards the listing could not enumerate (a Hurricane ends a draw early)."""
    owed = state.owed[0]
    name = state.seats[owed.seat]
    count = min(owed.count, pile_size(state.pile))
    if state.mode != "table" or name not in state.seated or count < 2 or draws(state, count):
        return None
    pool = _cards_unlocated(state)  # every copy not located, a Hurricane among them: it ends the draw
    return Naming(
        "draw",
        name,
        f"{name}: draw",
        f"the {count} cards {name} draws ({owed.case}): a Hurricane last",
        [Slot("cards drawn", 1, count, pool)],
    )


def _pile_top(state: State, count: int) -> dict[str, int]:
    """The map pieces the top `count` of the Map Pile may be: those the log knows there, and any unlocated piece if
    some of them are unseen."""
    pieces: set[str] = set()
    unseen = False
    left = count
    for segment in state.map_pile:
        if left <= 0:
            break
        pieces.update(segment.known)
        unseen = unseen or segment.unknown > 0
        left -= len(segment.known) + segment.unknown
    if unseen:
        placed = located_pieces(state)
        pieces.update(p for p in state.box.pieces if can_reveal(p, state.box.piece_copies, placed))
    return counted(sorted(pieces))


def _purchases(state: State) -> list[Naming]:
    """A seated seat's purchases of several map pieces, naming the pieces it takes (one is listed for each piece it
    may be; several are too many ways to list), one naming per way to pay."""
    who = state.seats[state.current]
    seat = state.players[state.current]
    if state.mode != "table" or who not in state.seated or not seat.sets:
        return []
    found = []
    for count, paid in enumerate(purchases(state, seat)[: pile_size(state.map_pile)], 1):
        if count < 2:
            continue
        pool = _pile_top(state, count)
        for forms, used in paid:
            head = format_event(MapsBought(player=who, count=count, paid=forms, doubles=used, pieces=[None] * count))
            found.append(
                Naming(
                    "buy",
                    who,
                    head,
                    f"{head}: the {count} map pieces taken",
                    [Slot("map pieces", count, count, pool, "as")],
                )
            )
    return found


def naming(state: State) -> list[Naming]:
    """The hands owed by seats that name their own, a seated seat's draw of several cards and its purchases of
    several map pieces."""
    found: list[Naming | None] = []
    if state.hands_owed:
        found = [_owed_hand(state, name) for name in state.hands_owed]
    elif state.phase == "draw" and state.owed:
        found = [_owed_draw(state)]
    elif state.phase == "play":
        found = list(_purchases(state))
    return [named for named in found if named is not None]
