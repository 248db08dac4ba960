"""Splice's notation (docs/rules/splice.md, "Move notation"): each move optionally prefixed `PLAYER:`.

    draw | draw ? hurricane | draw from ben [as 5]        the draw that starts a turn, or cards owed
    play 5-5 2-3-4 double | play w5-5 | play double        coin sets and Double Your Gold cards
    piracy ben 5-5 | piracy ben double | piracy ben map [as r3]
    skull ben | spot ben | trade red [with ben|unused]
    buy [N] pay 5-5 4-5-6 [double] [as r3 ?]              map pieces, paid with sets in play
    lay r1 r2 x3 r4 | discard 7 | discard ? | pass | return r3 | reveal red r1 r2
    disks | deal [hurricane ben] | reshuffle              the table's entries (table mode)
    disks ana r | deal | ana 5 7 9 wild piracy | reshuffle ana g   ... naming a seated seat's own disk and hand

`parse` reads text into events, or a NotationError listing what would have been valid; `format_event`
writes an event back so that parsing it yields the same event. No input makes either raise.
"""

from __future__ import annotations

from typing import Callable

from ...model import Event, NotationError
from ...notation import Unreadable, by_prefix, player_of, read_count, read_move, seat_or_refuse, suggestions
from ...text import quote
from .components import MAP_LIMIT, MAX_VALUE, PRICE, SINGLES, read_set
from .events import (
    BlackSpotPlayed,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    DisksChosen,
    DisksDealt,
    DisksRedrawn,
    HandNamed,
    HoldingsRevealed,
    MapLaid,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .state import State, disk_holder, known_top, open_draw, payment_value, pile_size
from .turn import actor

# a verb's reader: (state, who, the words after the verb, the whole move) -> its events, or Unreadable
Reader = Callable[[State, str, list[str], str], list[Event]]
MAX_WORDS = 40  # no move needs more; longer input is refused before it is read word by word
VERBS = (
    "draw",
    "play",
    "piracy",
    "skull",
    "trade",
    "spot",
    "buy",
    "lay",
    "discard",
    "pass",
    "return",
    "reveal",
    "disks",
    "deal",
    "reshuffle",
    "hand",
)
USAGE = {
    "draw": "draw | draw ? hurricane | draw from PLAYER",
    "play": "play 5-5 2-3-4 double",
    "piracy": "piracy PLAYER 5-5|double|map",
    "skull": "skull PLAYER",
    "trade": "trade COLOUR [with PLAYER|unused]",
    "spot": "spot PLAYER",
    "buy": "buy [N] pay SETS [double] [as PIECES]",
    "lay": "lay r1 r2 x3 r4",
    "discard": "discard CARD | discard ?",
    "pass": "pass",
    "return": "return PIECE | return ?",
    "reveal": "reveal COLOUR PIECES",
    "disks": "disks [PLAYER COLOUR ...]",
    "deal": "deal [hurricane PLAYER] [| PLAYER CARD ...]",
    "reshuffle": "reshuffle [PLAYER COLOUR ...]",
    "hand": "PLAYER: hand CARD ... [disk COLOUR]",
}
ALIASES = {"black-spot": "spot", "blackspot": "spot", "black_spot": "spot", "dyg": "double", "certificate": "trade"}


def _is_piece(word: str, state: State) -> bool:
    """A map piece id: a colour letter (or `x`, wild) and a position."""
    return len(word) == 2 and word[1] in "1234" and (word[0] == "x" or word[0] in state.box.colours)


def _card(word: str, state: State) -> str | None:
    """A card id (`5`, `wild`, `x2`, `r3`), None for `?`, or why the word is not a card."""
    if word == "?":
        return None
    if word.isdigit():
        value = read_count(word, MAX_VALUE)
        if value is None or value not in state.box.values:
            raise Unreadable(f"there is no coin card {quote(word)}", [str(v) for v in state.box.values], "unknown")
        return str(value)
    word = ALIASES.get(word, word)
    if _is_piece(word, state):
        return word
    found = by_prefix(word, SINGLES)
    if len(found) == 1:
        return found[0]
    codes = list(SINGLES) + [f"x{p}" for p in range(1, 5)] + [str(v) for v in state.box.values]
    raise Unreadable(f"unknown card {quote(word)}", suggestions(word, codes), "ambiguous" if found else "unknown")


def _piece(word: str, state: State) -> str | None:
    if word == "?":
        return None
    if _is_piece(word, state):
        return word
    raise Unreadable(
        f"unknown map piece {quote(word)} (a colour letter and a position 1-4, e.g. r3; x3 is wild)",
        suggestions(word, list(state.box.pieces) + [f"x{p}" for p in range(1, 5)]),
        "unknown",
    )


def _colour(word: str, state: State) -> str:
    box = state.box
    if word in box.colours:
        return word
    found = by_prefix(word, box.names)
    if len(found) == 1:
        return box.colours[box.names.index(found[0])]
    raise Unreadable(
        f"unknown colour {quote(word)}",
        [f"{c} ({n})" for c, n in zip(box.colours, box.names)],
        "ambiguous" if found else "unknown",
    )


def _seat(word: str, state: State) -> str:
    return seat_or_refuse(word, state.seats)


def _form(word: str, state: State) -> str | None:
    """A coin set as typed: values joined by `-`, each optionally `w` (a wild card as that value). Whether it is
    a pair or a run is for the rules to say; a set that is one is written in its normal form."""
    parts = word.split("-")
    if len(parts) > 6:
        return None
    out = []
    for part in parts:
        wild = part[:1] in ("w", "*")
        value = read_count(part[1:] if wild else part, MAX_VALUE)
        if value is None:
            return None
        out.append(f"w{value}" if wild else str(value))
    form = "-".join(out)
    found = read_set(form, state.box.values)
    return form if isinstance(found, str) else found.form


def _set_forms(words: list[str], state: State) -> tuple[list[str], int]:
    forms: list[str] = []
    doubles = 0
    for word in words:
        if by_prefix(word, ("double",)) == ["double"] or word == "dyg":
            doubles += 1
            continue
        form = _form(word, state)
        if form is None:
            raise Unreadable(
                f"{quote(word)} is not a coin set (values joined by `-`, a wild card as `w5`)",
                ["5-5", "2-3-4", "w5-5", "double"],
            )
        forms.append(form)
    return forms, doubles


def parse(state: State, text: str) -> list[Event] | NotationError:
    raw = text.strip()
    if len(raw) > 400 or len(raw.split()) > MAX_WORDS:
        return NotationError(raw[:60], f"a move is at most {MAX_WORDS} words", [USAGE[v] for v in VERBS])
    return read_move(raw, lambda raw: _parse_one(state, raw))


def _parse_one(state: State, raw: str) -> list[Event]:
    split = player_of(raw, state.seats)
    if isinstance(split, NotationError):
        raise Unreadable(split.message, split.expected, split.kind)
    who, body = split
    words = body.lower().split()
    if not words:
        raise Unreadable("empty move", [USAGE[v] for v in VERBS])
    verb, args = words[0], words[1:]
    if who is None:
        acting = actor(state)
        who = state.seats[acting] if acting >= 0 else state.seats[state.current]
    handler = _VERBS.get(verb)
    if handler is None:
        found = by_prefix(verb, VERBS)
        hint = f"unknown move {quote(verb)}" + (f" (did you mean {found[0]}?)" if len(found) == 1 else "")
        raise Unreadable(hint, [USAGE[v] for v in (found or VERBS)], "ambiguous" if len(found) > 1 else "unknown")
    return handler(state, who, args, raw)


# --------------------------------------------------------------------------- one reader per verb


def _draw(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if args[:1] == ["from"]:
        if len(args) not in (2, 4) or (len(args) == 4 and args[2] != "as"):
            raise Unreadable("a blind draw names one player", ["draw from PLAYER", "draw from PLAYER as CARD"])
        source = _seat(args[1], state)
        card = None
        if len(args) == 4:
            card = _card(args[3], state)
        return [BlindDrawn(player=who, source=source, card=card)]
    if args:
        cards = _cards_of(state, args, raw)
        return [CardsDrawn(player=who, cards=cards)]
    return [CardsDrawn(player=who, cards=_default_draw(state, who))]


def _default_draw(state: State, who: str) -> list[str | None]:
    """The cards `draw` stands for: one card to start a turn, or every card owed; known cards named (open mode)."""
    count = 1
    if state.phase == "draw" and state.seats[state.owed[0].seat] == who:
        count = min(state.owed[0].count, pile_size(state.pile))
    if state.mode != "open":
        return [None] * count
    return [*open_draw(state.pile, count)]


def _play(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if not args:
        raise Unreadable("play what?", ["play 5-5", "play 2-3-4 w6-6", "play double"])
    found = _set_forms(args, state)
    forms, doubles = found
    return [CoinsPlayed(player=who, sets=forms, doubles=doubles)]


def _piracy(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    usage = ["piracy PLAYER 5-5", "piracy PLAYER double", "piracy PLAYER map", "piracy PLAYER map as r3"]
    if len(args) < 2:
        raise Unreadable("Piracy names a player and what to take", usage)
    target = _seat(args[0], state)
    words = args[1:]
    piece = None
    if "as" in words:
        at = words.index("as")
        if at != 1 or len(words) != 3 or words[0] != "map":
            raise Unreadable("only the map piece Piracy takes is named, with `as` after `map`", usage)
        piece = _piece(words[2], state)
        words = words[:1]
    plunders = []
    for word in words:
        form = word if word in ("map", "double") else _form(word, state)
        if form is None:
            raise Unreadable(f"Piracy takes a coin set, `double` or `map`, not {quote(word)}", usage)
        plunders.append(form)
    # several plunders are read, so that the rules refuse them under the Piracy rule (one thing is taken)
    return [PiracyPlayed(player=who, target=target, plunder=" ".join(plunders), piece=piece)]


def _targeted(event: type[SkullPlayed] | type[BlackSpotPlayed], verb: str) -> Reader:
    def read(state: State, who: str, args: list[str], raw: str) -> list[Event]:
        if len(args) != 1:
            raise Unreadable(f"{verb} names one player", [f"{verb} {seat}" for seat in state.seats if seat != who])
        target = _seat(args[0], state)
        return [event(player=who, target=target)]

    return read


def _trade(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    usage = [
        "trade COLOUR",
        "trade COLOUR with PLAYER",
        "trade COLOUR with unused",
        "trade COLOUR with PLAYER giving COLOUR",
    ]
    if len(args) not in (1, 3, 5) or (len(args) >= 3 and args[1] != "with") or (len(args) == 5 and args[3] != "giving"):
        raise Unreadable("a trade calls out one colour", usage)
    colour = _colour(args[0], state)
    if len(args) >= 3:
        partner = "unused" if args[2] == "unused" else _seat(args[2], state)
        given = _colour(args[4], state) if len(args) == 5 else None
        return [TradePlayed(player=who, colour=colour, partner=partner, given=given)]
    holder = disk_holder(state, colour)
    if holder is not None:
        return [TradePlayed(player=who, colour=colour, partner=holder)]
    if colour in state.unused.known or state.mode == "open":
        return [TradePlayed(player=who, colour=colour, partner="unused")]
    raise Unreadable(
        f"the log does not know who holds {state.box.colour_name(colour)}: say who traded",
        [f"trade {args[0]} with {seat}" for seat in state.seats if seat != who] + [f"trade {args[0]} with unused"],
    )


def _buy(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    usage = ["buy 1 pay 10-10", "buy pay 5-5 4-5-6 double", "buy 2 pay 8-9-w10 10-10 as r3 ?"]
    count = None
    if args and args[0] != "pay":
        count = read_count(args[0], 99)
        if count is None:
            raise Unreadable(f"{quote(args[0])} is not a number of map pieces", usage)
        args = args[1:]
    if not args or args[0] != "pay":
        raise Unreadable("a purchase says what it pays with: `pay` and the sets", usage)
    args = args[1:]
    pieces_words: list[str] | None = None
    if "as" in args:
        at = args.index("as")
        args, pieces_words = args[:at], args[at + 1 :]
    found = _set_forms(args, state)
    forms, doubles = found
    if not forms:
        raise Unreadable("pay with at least one coin set in play", usage)
    if count is None:  # as many pieces as the sets pay for (a form that is no set is the rules' to judge)
        sets = [form for form in forms if not isinstance(read_set(form, state.box.values), str)]
        count = max(1, payment_value(state, sets, doubles) // PRICE)
    pieces: list[str | None]
    if pieces_words is not None:
        pieces = _pieces_of(state, pieces_words, raw)
    elif state.mode == "open":
        pieces = [*known_top(state.map_pile, count)]
    else:
        pieces = [None] * count
    return [MapsBought(player=who, count=count, paid=forms, doubles=doubles, pieces=pieces)]


def _cards_of(state: State, args: list[str], raw: str) -> list[str | None]:
    cards: list[str | None] = []
    for word in args:
        card = _card(word, state)
        cards.append(card)
    return cards


def _pieces_of(state: State, args: list[str], raw: str) -> list[str | None]:
    """Map pieces as typed, `?` for one the recorder did not see."""
    return [_piece(word, state) for word in args]


def _named_pieces(state: State, args: list[str], raw: str) -> list[str]:
    """Map pieces shown on the table: every one named."""
    pieces: list[str] = []
    for word in args:
        piece = _piece(word, state)
        if piece is None:
            raise Unreadable("name every piece", ["lay r1 r2 x3 r4"])
        pieces.append(piece)
    return pieces


def _lay(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if not args:
        raise Unreadable("lay down which pieces?", ["lay r1 r2 x3 r4"])
    pieces = _named_pieces(state, args, raw)
    return [MapLaid(player=who, pieces=pieces)]


def _discard(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if not args:
        if state.mode == "open":
            raise Unreadable("discard which card?", ["discard CARD"])
        acting = state.seats.index(who)
        excess = max(1, state.players[acting].hand.size - state.hand_size)
        return [CardsDiscarded(player=who, cards=[None] * excess)]
    cards = _cards_of(state, args, raw)
    return [CardsDiscarded(player=who, cards=cards)]


def _return(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if not args:
        if state.mode == "open":
            raise Unreadable("return which map piece?", ["return r3"])
        excess = max(1, state.players[state.seats.index(who)].maps.size - MAP_LIMIT)
        return [MapsReturned(player=who, pieces=[None] * excess)]
    pieces = _pieces_of(state, args, raw)
    return [MapsReturned(player=who, pieces=pieces)]


def _reveal(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    if not args:
        raise Unreadable("reveal a disk colour and the map pieces", ["reveal red r1 r2 b3"])
    colour = _colour(args[0], state)
    pieces = _named_pieces(state, args[1:], raw)
    return [HoldingsRevealed(player=who, disk=colour, pieces=pieces)]


def _bare(event: type[TurnPassed], verb: str) -> Reader:
    def read(state: State, who: str, args: list[str], raw: str) -> list[Event]:
        if args:
            raise Unreadable(f"{verb} takes no arguments", [verb])
        return [event(player=who)]

    return read


def _named_disks(state: State, args: list[str], verb: str) -> dict[str, str]:
    """`ana r ben blue`: the disks seated seats drew, each a player's name and a colour."""
    words = " ".join(args).replace(":", " ").split()
    if len(words) % 2:
        raise Unreadable(f"{verb} names each seat's disk as a player and a colour", [verb, f"{verb} ana red"])
    disks: dict[str, str] = {}
    for name, colour in zip(words[::2], words[1::2]):
        seat = _seat(name, state)
        if seat in disks:
            raise Unreadable(f"{seat}'s disk is named twice", [f"{verb} {seat} COLOUR"])
        disks[seat] = _colour(colour, state)
    return disks


def _disks(event: type[DisksChosen] | type[DisksRedrawn], verb: str) -> Reader:
    def read(state: State, who: str, args: list[str], raw: str) -> list[Event]:
        return [event(disks=_named_disks(state, args, verb))]

    return read


def _deal(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    """`deal [hurricane PLAYER ...] [| ana CARD ...]`: the hands dealt, and those of seated seats by name."""
    first, *parts = " ".join(args).split("|")
    args = first.split()
    names: list[str] = []
    if args:
        if args[0] not in ("hurricane", "hurricanes") or len(args) < 2:
            raise Unreadable(
                "deal, then `hurricane` and each player dealt a Hurricane", ["deal", "deal hurricane PLAYER"]
            )
        for word in args[1:]:
            if word in ("hurricane", "hurricanes", "and"):
                continue
            seat = _seat(word, state)
            names.append(seat)
    hands: dict[str, list[str]] = {}
    for part in parts:
        words = part.replace(":", " ").split()
        if not words:
            raise Unreadable("a hand is a player's name and their cards", ["deal | ana 5 7 9 wild piracy"])
        seat = _seat(words[0], state)
        if seat in hands:
            raise Unreadable(f"{seat}'s hand is named twice", [f"deal | {seat} CARD ..."])
        cards = [_card(word, state) for word in words[1:]]
        hands[seat] = [card for card in cards if card is not None]
        if len(hands[seat]) < len(cards):
            raise Unreadable(f"{seat} names every card of their own hand: no `?`", [f"deal | {seat} CARD ..."])
    return [CardsDealt(hurricanes=names, hands=hands)]


def _hand(state: State, who: str, args: list[str], raw: str) -> list[Event]:
    """`ana: hand 5 7 9 wild piracy [disk r]`: a seated seat's own hand, and its disk, left to it by the setup."""
    disk = None
    if "disk" in args:
        at = args.index("disk")
        if len(args) != at + 2:
            raise Unreadable("the disk comes last, one colour", [USAGE["hand"]])
        args, disk = args[:at], _colour(args[at + 1], state)
    cards = [_card(word, state) for word in args]
    if None in cards:
        raise Unreadable(f"{who} names every card of their own hand: no `?`", [USAGE["hand"]])
    return [HandNamed(player=who, cards=[card for card in cards if card is not None], disk=disk)]


_VERBS: dict[str, Reader] = {
    "draw": _draw,
    "play": _play,
    "piracy": _piracy,
    "skull": _targeted(SkullPlayed, "skull"),
    "spot": _targeted(BlackSpotPlayed, "spot"),
    "black-spot": _targeted(BlackSpotPlayed, "spot"),
    "trade": _trade,
    "buy": _buy,
    "lay": _lay,
    "discard": _discard,
    "pass": _bare(TurnPassed, "pass"),
    "return": _return,
    "reveal": _reveal,
    "disks": _disks(DisksChosen, "disks"),
    "deal": _deal,
    "reshuffle": _disks(DisksRedrawn, "reshuffle"),
    "hand": _hand,
}


# --------------------------------------------------------------------------- formatting


def _items(cards: list[str | None]) -> str:
    return " ".join("?" if c is None else c for c in cards)


def format_event(event: Event) -> str:
    player = getattr(event, "player", None)
    prefix = f"{player}: " if player else ""
    if isinstance(event, CardsDrawn):  # no card: a draw listed for a seat that cannot see the pile (open mode)
        return prefix + " ".join(["draw", _items(event.cards)] if event.cards else ["draw"])
    if isinstance(event, BlindDrawn):
        seen = f" as {event.card}" if event.card else ""
        return prefix + f"draw from {event.source}{seen}"
    if isinstance(event, CoinsPlayed):
        return prefix + "play " + " ".join(list(event.sets) + ["double"] * event.doubles)
    if isinstance(event, PiracyPlayed):
        seen = f" as {event.piece}" if event.piece else ""
        return prefix + f"piracy {event.target} {event.plunder}{seen}"
    if isinstance(event, SkullPlayed):
        return prefix + f"skull {event.target}"
    if isinstance(event, BlackSpotPlayed):
        return prefix + f"spot {event.target}"
    if isinstance(event, TradePlayed):
        given = f" giving {event.given}" if event.given else ""
        partner = f" with {event.partner}" if event.partner else ""  # "": whoever holds it (a seat's open listing)
        return prefix + f"trade {event.colour}{partner}{given}"
    if isinstance(event, MapsBought):
        paid = " ".join(list(event.paid) + ["double"] * event.doubles)
        pieces = event.pieces
        seen = f" as {_items(pieces)}" if any(p is not None for p in pieces) else ""
        return prefix + f"buy {event.count} pay {paid}{seen}"
    if isinstance(event, MapLaid):
        return prefix + "lay " + " ".join(event.pieces)
    if isinstance(event, CardsDiscarded):
        return prefix + "discard " + _items(event.cards)
    if isinstance(event, TurnPassed):
        return prefix + "pass"
    if isinstance(event, MapsReturned):
        return prefix + "return " + _items(event.pieces)
    if isinstance(event, HoldingsRevealed):
        return prefix + f"reveal {event.disk} " + " ".join(event.pieces)
    if isinstance(event, (DisksChosen, DisksRedrawn)):
        verb = "disks" if isinstance(event, DisksChosen) else "reshuffle"
        return " ".join([verb] + [f"{name} {colour}" for name, colour in event.disks.items()])
    if isinstance(event, CardsDealt):
        names = event.hurricanes
        hands = "".join(f" | {name} {' '.join(cards)}" for name, cards in event.hands.items())
        return "deal" + (" hurricane " + " ".join(names) if names else "") + hands
    if isinstance(event, HandNamed):
        disk = ["disk", event.disk] if event.disk is not None else []
        return prefix + " ".join(["hand", *event.cards, *disk])
    if isinstance(event, SetupDealt):
        return (
            f"tally deals: disks {' '.join(event.disks)} (unused {' '.join(event.unused) or 'none'}); "
            f"the Map Pile ({len(event.maps)} pieces) and the deck ({len(event.deck)} cards) shuffled"
        )
    if isinstance(event, DisksDealt):
        return f"tally shuffles the disks: {' '.join(event.disks)} (unused {' '.join(event.unused)})"
    if isinstance(event, CardPicked):
        return f"tally picks {event.card}"
    return type(event).__name__


# --------------------------------------------------------------------------- the notation as data

# imported here, beside the data it types, so this block stays apart from the reader above
from ...model import NotationForm  # noqa: E402

# every form of the notation with its meaning and examples (`tally rules splice --notation`); the notation table of
# docs/rules/splice.md agrees with it, and every example parses (tests/core/test_notation_forms.py)
NOTATION: tuple[NotationForm, ...] = (
    NotationForm(
        "draw",
        "the draw that starts a turn, or every card owed (refill, Skull, replacement); open mode names the known cards",
        ("draw",),
    ),
    NotationForm(
        "draw CARD ...",
        "cards drawn from the top, each a code or `?` (unseen); a Hurricane is the last",
        ("draw ?", "draw 7", "draw ? hurricane", "draw hurricane"),
    ),
    NotationForm(
        "draw from PLAYER [as CARD]",
        "the draw that starts a turn, blind from another player's hand",
        ("draw from ben", "draw from ben as 5"),
    ),
    NotationForm(
        "play SETS [double ...]",
        "lay down coin sets and Double Your Gold cards",
        ("play 5-5", "play 2-3-4 w6-6", "play 5-5 double", "play double"),
    ),
    NotationForm("piracy PLAYER SET", "Piracy: take a coin set", ("piracy ben 5-5",)),
    NotationForm("piracy PLAYER double", "Piracy: take a Double Your Gold card", ("piracy ben double",)),
    NotationForm(
        "piracy PLAYER map [as PIECE]", "Piracy: take a map piece blind", ("piracy ben map", "piracy ben map as r3")
    ),
    NotationForm("skull PLAYER", "play the Skull on a player", ("skull ben",)),
    NotationForm("spot PLAYER", "play the Black Spot on a player (also `black-spot`)", ("spot ben",)),
    NotationForm(
        "trade COLOUR [with PLAYER|unused]",
        "Trade Certificate; open mode fills in who held it",
        ("trade red", "trade b with ben", "trade yellow with unused"),
    ),
    NotationForm(
        "trade COLOUR with PLAYER giving COLOUR",
        "table mode: a Trade Certificate with a seat that enters its own cards, naming the disk it received",
        ("trade b with ben giving r",),
    ),
    NotationForm(
        "buy [N] pay SETS [double] [as PIECES]",
        "buy N map pieces (default: as many as the payment covers)",
        ("buy 1 pay 10-10", "buy 2 pay 8-9-w10 10-10", "buy pay 5-5 double", "buy 1 pay 10-10 as r2"),
    ),
    NotationForm("lay PIECES", "lay down a completed map", ("lay r1 r2 x3 r4",)),
    NotationForm(
        "discard CARD ...",
        "the turn without a play, or the discard down to 5; `?` unseen (table mode: `discard` alone)",
        ("discard 7", "discard ?"),
    ),
    NotationForm("pass", "a turn without a play and nothing to discard", ("pass",)),
    NotationForm("return PIECE ...", "return map pieces over 5 to the Map Pile; `?` unseen", ("return r3", "return ?")),
    NotationForm(
        "reveal COLOUR PIECES",
        "table mode, `no-map=most-matching`: show disk and map pieces at the end",
        ("reveal red r1 r3",),
    ),
    NotationForm(
        "disks [PLAYER COLOUR ...]",
        "table mode: every player drew a gemstone disk (naming the disk of each seat that enters its own cards)",
        ("disks", "disks ben red"),
    ),
    NotationForm(
        "deal [hurricane PLAYER ...] [| PLAYER CARD ...]",
        "table mode: the hands were dealt (naming each player dealt a Hurricane, and the hand of each seat that enters its own cards)",
        ("deal", "deal hurricane ben", "deal | ben 5 7 9 wild piracy"),
    ),
    NotationForm(
        "reshuffle [PLAYER COLOUR ...]",
        "table mode: the disks were shuffled and drawn again after a Hurricane (naming a seated seat's new disk, or leaving it to the seat)",
        ("reshuffle", "reshuffle ben g"),
    ),
    NotationForm(
        "PLAYER: hand CARD ... [disk COLOUR]",
        "table mode: a seated seat names its own dealt hand (and its disk) which `deal` (and `disks` or `reshuffle`) left to it",
        ("ben: hand 5 7 9 wild piracy", "ben: hand 5 7 9 wild piracy disk r"),
    ),
)
