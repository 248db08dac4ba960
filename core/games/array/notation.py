"""Array's notation (docs/rules/array.md, "Move notation"), each move optionally prefixed `PLAYER:`.

Moves a recorder types:
  splice bry@3 bo oy        Splice 1 (bry against card #3) then Splice 2 (bo, oy onto bry); the move ends
  slice 3/5 bry bo, bgo go  cut the join #3/#5, lay bry against #3 and bgo against #5, then Splice 2 on each
  s3 ben | slam ben         give an action card;  draw;  pass;  done;  time
  start CARD ...            table mode: the card(s) turned over for the starting card
  show CARD ...             table mode: cards left in hand at the end of a round
  deal ana: CARD x7         table mode: the hand of a seat that enters its own cards, before the starting card
Steps, as the log shows them (and as they may also be typed, to record a move in parts):
  lay bo@8.b                one card laid;  cut 3/5 bry bgo   the slice itself;  done   the end of a move

A card is its colour letters in any order (`ob` = `bo`), or `s1`-`s5`, `slam`. A lay is `CARD@TARGET.COLOUR`:
the target is a card number or the code of a card on the table (or laid earlier in the same move), and
the colour of the touching segments may be left out when only one fits.

`parse` reads text into events (or a NotationError listing what would have been valid); `format_event`
writes an event back so that parsing it yields the same event.
"""

from __future__ import annotations

from ...model import Event, NotationError
from ...notation import Unreadable, player_of, read_count, read_move, seat_or_refuse, suggestions
from ...text import quote
from .components import ACTIONS, Box, canonical, is_action
from .events import (
    PLAYER_EVENTS,
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    HandNamed,
    PickedUp,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    TurnEnded,
    TurnPassed,
)
from .state import State, cards_picked_up, join_colour, open_segments

USAGE = {
    "splice": "splice CARD@TARGET[.COLOUR] [CARD[.COLOUR] ...]",
    "slice": "slice A/B CARD [CARD ...], CARD [CARD ...]",
    "lay": "lay CARD@TARGET.COLOUR",
    "cut": "cut A/B CARD CARD",
    "done": "done",
    "draw": "draw",
    "pass": "pass",
    "give": "s1..s5 PLAYER | slam PLAYER",
    "start": "start CARD ...",
    "show": "show CARD ...",
    "time": "time",
    "hand": "PLAYER: hand CARD ...",
    "pick": "PLAYER: pick up CARD ...",
}
MAX_NUMBER = 9999


# --------------------------------------------------------------------------- words


SHOWN = 8  # entries of a list of valid forms shown before it is cut


def cut_list(forms: list[str], limit: int = SHOWN) -> list[str]:
    """`forms`, or its first `limit` and a last entry saying how many more were left out."""
    if len(forms) <= limit:
        return forms
    return forms[:limit] + [f"… ({len(forms) - limit} more)"]


def _suggest(word: str, codes: list[str]) -> list[str]:
    """The codes closest to `word`; when they are simply the first codes of the box, the list says it is cut."""
    found = suggestions(word, codes, len(codes))
    return cut_list(found)


def _card(box: Box, word: str, laid: bool = False) -> str:
    """A card code from what was typed: colour letters in any order, s1-s5, slam, splatter3. Where a card is
    `laid`, only colour cards are suggested (an action card is never spliced)."""
    if word in ACTIONS:
        return word
    if word.startswith("splatter") and word[8:] in "12345" and len(word) == 9:
        return "s" + word[8:]
    code = canonical(word, box) if 2 <= len(word) <= 4 else None
    if code is not None and box.count(code):
        return code
    codes = [c for c, _ in box.copies if not (laid and is_action(c))]
    if code is not None:
        raise Unreadable(f"this box has no card {code}", _suggest(code, codes), "unknown")
    raise Unreadable(
        f"unknown card {quote(word)}: a card is 2-4 colour letters of {box.colours}, or s1-s5, slam",
        _suggest(word, codes),
        "unknown",
    )


def _colour(box: Box, word: str) -> str:
    if len(word) == 1 and word in box.colours:
        return word
    for letter, name in zip(box.colours, box.names):
        if word == name.lower():
            return letter
    raise Unreadable(
        f"unknown colour {quote(word)}",
        [f"{letter} ({name})" for letter, name in zip(box.colours, box.names)],
        "unknown",
    )


def _seat(state: State, word: str) -> str:
    return seat_or_refuse(word, state.seats)


# --------------------------------------------------------------------------- the table as the move goes on


class _Table:
    """The cards on the table and their open segments, updated lay by lay while a move is read."""

    def __init__(self, state: State):
        self.state = state
        self.placed = list(state.placed)
        self.open = set(open_segments(state))

    def lay(self, card: str, to: int, colour: str) -> int:
        self.open.discard((to, colour))
        self.placed.append(card)
        number = len(self.placed)
        self.open.update((number, c) for c in card if c != colour)
        return number

    def target(self, word: str, card: str) -> int:
        """A card number, or the card on the table (or laid this move) with that code."""
        if word.isdigit() or (word.isascii() and word[:1] == "#"):
            number = read_count(word.lstrip("#"), MAX_NUMBER)
            if number is None:
                raise Unreadable(
                    f"{quote(word)} is not a card number (#1-#{len(self.placed)})",
                    cut_list([f"#{n} {c}" for n, c in enumerate(self.placed, 1)]),
                )
            return number
        code = _card(self.state.box, word)
        found = [n for n, c in enumerate(self.placed, 1) if c == code]
        if not found:
            raise Unreadable(f"no {code} on the table", cut_list([f"#{n} {c}" for n, c in enumerate(self.placed, 1)]))
        if len(found) > 1:
            fitting = [n for n in found if any((n, c) in self.open for c in card)]
            if len(fitting) == 1:
                return fitting[0]
            raise Unreadable(
                f"{len(found)} cards {code} lie on the table: name one by number",
                [f"{card}@{n}" for n in found],
                "ambiguous",
            )
        return found[0]

    def colour_for(self, card: str, to: int, given: str | None) -> str:
        """The touching colour: as given, else the one colour `card` shares with an open segment of #`to`."""
        if given is not None:
            return given
        shared = [c for c in card if (to, c) in self.open]
        if len(shared) == 1:
            return shared[0]
        if shared:
            raise Unreadable(
                f"{card} can touch #{to} on {' or '.join(self.state.box.name(c) for c in shared)}: name the colour",
                [f"{card}@{to}.{c}" for c in shared],
                "ambiguous",
            )
        if 1 <= to <= len(self.placed):  # no open segment fits: the ruling explains which is closed or missing
            common = [c for c in card if c in self.placed[to - 1]]
            return common[0] if common else card[0]
        return card[0]

    def anywhere(self, card: str) -> tuple[int, str]:
        """Splice 1 without a target: the only open segment `card` fits."""
        fits = sorted((n, c) for n, c in self.open if c in card)
        if len(fits) == 1:
            return fits[0]
        if not fits:
            colours = ", ".join(self.state.box.name(c) for c in card)
            raise Unreadable(f"{card} fits no open segment on the table (it has {colours})")
        raise Unreadable(
            f"{card} fits {len(fits)} open segments: say where", [f"{card}@{n}.{c}" for n, c in fits], "ambiguous"
        )

    def among(self, card: str, anchors: list[int], colour: str | None) -> int:
        """Splice 2 without a target: the card just laid that `card` can touch (on `colour`, if given)."""
        if len(anchors) == 1:
            return anchors[0]
        fitting = [a for a in anchors if any((a, c) in self.open for c in (colour or card))]
        if len(fitting) == 1:
            return fitting[0]
        raise Unreadable(
            f"{card} could be spliced onto {' or '.join(f'#{a}' for a in anchors)}: say which",
            [f"{card}@{a}" for a in anchors],
            "ambiguous",
        )

    def is_open(self, numbers: list[int]) -> bool:
        return any(n == a for n, _ in self.open for a in numbers)


def _split_lay(box: Box, token: str) -> tuple[str, str | None, str | None]:
    """`bry@3.r`, `bry.r@3`, `bry@3`, `bry` -> (card, target word or None, colour or None)."""
    head, at, tail = token.partition("@")
    colour = None
    if "." in head:
        head, _, word = head.partition(".")
        colour = _colour(box, word)
    target = None
    if at:
        target, dot, word = tail.partition(".")
        if dot:
            other = _colour(box, word)
            if colour is not None and other != colour:
                raise Unreadable(f"{quote(token)} names two colours")
            colour = other
        if not target:
            raise Unreadable(f"{quote(token)}: name the card after @", ["bo@3", "bo@3.b"])
    if not head:
        raise Unreadable(f"{quote(token)}: name the card laid", ["bo@3"])
    return _card(box, head, laid=True), target, colour


# --------------------------------------------------------------------------- moves


def _lays(state: State, who: str, tokens: list[str], table: _Table, anchors: list[int]) -> list[Event]:
    """Lays onto `anchors` (Splice 2) unless a target is named; with no anchors the first lay is Splice 1."""
    events: list[Event] = []
    for token in tokens:
        card, target, colour = _split_lay(state.box, token)
        if is_action(card):
            # read as the lay it says, so that the rules refuse it under the colour-card rule
            to = table.target(target, card) if target is not None else (anchors[0] if anchors else 1)
            if colour is None:
                colour = table.placed[to - 1][0] if 1 <= to <= len(table.placed) else state.box.colours[0]
            events.append(CardSpliced(player=who, card=card, to=to, colour=colour))
            continue
        if target is not None:
            to = table.target(target, card)
        elif not anchors:
            to, found = table.anywhere(card)
            colour = colour or found
        else:
            to = table.among(card, anchors, colour)
        colour = table.colour_for(card, to, colour)
        events.append(CardSpliced(player=who, card=card, to=to, colour=colour))
        number = table.lay(card, to, colour)
        if not anchors:
            anchors = [number]
    return events


def _then_done(state: State, who: str, table: _Table, anchors: list[int], laid: int) -> list[Event]:
    """`done` when the move would go on: the cards just laid still have an open segment and cards remain in hand."""
    hand = state.hands[state.seats.index(who)]  # `who` is a seat: named (player_of) or the one to act
    if hand.size - laid > 0 and table.is_open(anchors):
        return [TurnEnded(player=who)]
    return []


def _splice(state: State, who: str, args: list[str], finish: bool) -> list[Event]:
    if not args:
        raise Unreadable("splice what?", [USAGE["splice"], "splice bo@1"])
    table = _Table(state)
    anchors = list(state.anchors) if state.phase == "splice" and who == state.player_name else []
    events = _lays(state, who, args, table, anchors)
    if not anchors:
        anchors = [len(state.placed) + 1]
    return events + (_then_done(state, who, table, anchors, len(events)) if finish else [])


def _cut(state: State, word: str) -> list[int]:
    head, slash, tail = word.partition("/")
    if not slash or not head or not tail:
        raise Unreadable(f"{quote(word)} is not a join: name its two cards as A/B", ["3/5", "slice 3/5 bo ry"])
    table = _Table(state)
    return [table.target(head, ""), table.target(tail, "")]


def _slice(state: State, who: str, args: list[str], finish: bool) -> list[Event]:
    if not args:
        raise Unreadable("slice which join?", [USAGE["slice"]])
    cut = _cut(state, args[0])
    groups: list[list[str]] = [[]]
    for word in args[1:]:
        if word == ",":
            groups.append([])
        else:
            groups[-1].append(word)
    if len(groups) > 2:
        raise Unreadable("a slice has two sides: at most one comma", [USAGE["slice"]])
    if len(groups) == 2:
        firsts = [g[0] for g in groups if g]
        rests = [g[1:] for g in groups]
    else:
        firsts = groups[0][:2]
        rests = [groups[0][2:], []]
    cards = []
    for token in firsts:
        card, target, colour = _split_lay(state.box, token)
        if target is not None:
            raise Unreadable(
                f"{quote(token)}: the first card of each side is laid against the cut, without @", [USAGE["slice"]]
            )
        cards.append((card, colour))
    if len(cards) < 2 or any(len(g) == 0 for g in groups):
        return [Sliced(player=who, cut=cut, cards=[c for c, _ in cards])]  # the ruling says what a slice needs
    events: list[Event] = [Sliced(player=who, cut=cut, cards=[c for c, _ in cards])]
    count = len(state.placed)
    a, b = cut
    sliced = None
    if 1 <= a <= count and 1 <= b <= count:
        sliced = join_colour(state, a, b)
    if sliced is None:
        return events  # no such join: the ruling explains
    for card, colour in cards:
        if colour is not None and colour != sliced:
            raise Unreadable(
                f"the cut separates two {state.box.name(sliced)} segments: {card} is laid against them on "
                f"{state.box.name(sliced)}, not {state.box.name(colour)}"
            )
    table = _Table(state)
    table.open.discard((a, sliced))  # reopened by the cut, closed again at once by the two cards
    table.open.discard((b, sliced))
    first = table.lay(cards[0][0], a, sliced)
    second = table.lay(cards[1][0], b, sliced)
    if len(groups) == 2:
        events += _lays(state, who, rests[0], table, [first]) + _lays(state, who, rests[1], table, [second])
    else:
        events += _lays(state, who, rests[0], table, [first, second])
    if finish:
        events += _then_done(state, who, table, [first, second], len(events) + 1)
    return events


def _give(state: State, who: str, card: str, args: list[str]) -> list[Event]:
    if args[:1] == ["to"]:
        args = args[1:]
    if not args:
        others = [s for s in state.seats if s != who]
        raise Unreadable(f"give {card} to whom?", [f"{card} {s}" for s in others])
    target = _seat(state, args[0])
    rest = args[1:]
    if rest and rest[0] in ("draws", "drawing"):
        drawn = [_card(state.box, word) for word in rest[1:]]
    elif rest:
        raise Unreadable(f"unexpected {quote(rest[0])} after the player", [f"{card} {target}"])
    else:
        drawn = cards_picked_up(state, card)
    return [ActionGiven(player=who, card=card, target=target, drawn=drawn)]


def _seated_hands(state: State, args: list[str]) -> RoundDealt:
    """Table mode: `deal ana: CARD x7 | ben: ...`, the hands of the seats that enter their own cards."""
    hands: dict[str, list[str]] = {}
    for part in " ".join(args).split("|"):
        words = part.replace(":", " ").split()
        if len(words) < 2:
            raise Unreadable("a hand is a player's name and their cards", ["deal ana: bo ry gy s3 ob rg yb"])
        name = _seat(state, words[0])
        if name in hands:
            raise Unreadable(f"{name}'s hand is named twice", [f"deal {name}: ..."])
        hands[name] = [_card(state.box, word) for word in words[1:]]
    return RoundDealt(hands=hands)


def _default_player(state: State) -> str:
    """Whose move a move without `PLAYER:` is: the seat owing the cards a Splatter made it pick up, else the first
    with cards to show at a round's end, else the player whose turn it is."""
    if state.picking:
        return state.picking
    owing = state.owing  # (empty outside phase show)
    return state.seats[owing[0]] if owing else state.player_name


def _parse(state: State, raw: str) -> list[Event]:
    split = player_of(raw, state.seats)
    if isinstance(split, NotationError):
        raise Unreadable(split.message, split.expected, split.kind)
    named, body = split
    who = named or _default_player(state)
    words = body.replace(",", " , ").lower().split()
    if not words:
        raise Unreadable("empty move", list(USAGE.values()))
    verb, args = words[0], words[1:]
    if verb in ("splice", "lay"):
        return _splice(state, who, args, finish=verb == "splice")
    if verb in ("slice", "cut"):
        return _slice(state, who, args, finish=verb == "slice")
    if verb in ("done", "pass", "time"):
        if args:
            raise Unreadable(f"{verb} takes nothing after it", [verb])
        if verb == "time":
            return [TimeCalled()]
        return [TurnEnded(player=who) if verb == "done" else TurnPassed(player=who)]
    if verb == "draw":
        if len(args) > 1:
            raise Unreadable("draw takes at most the card drawn", ["draw", "draw bo"])
        if args:
            return [CardDrawn(player=who, card=_card(state.box, args[0]))]
        top = state.deck[0] if state.mode == "open" and state.deck else None
        return [CardDrawn(player=who, card=top)]
    if verb == "give":
        if not args:
            raise Unreadable("give which action card?", [USAGE["give"]])
        verb, args = args[0], args[1:]
    if verb == "splatter" and args and args[0] in ("1", "2", "3", "4", "5"):
        verb, args = "s" + args[0], args[1:]
    if verb in ACTIONS or verb.startswith("splatter"):
        return _give(state, who, _card(state.box, verb), args)
    if verb == "deal":
        return [_seated_hands(state, args)]
    if verb == "hand":
        if not args:
            raise Unreadable("a hand is the cards dealt to the player", [USAGE["hand"]])
        return [HandNamed(player=who, cards=[_card(state.box, word) for word in args])]
    if verb == "pick" and args[:1] == ["up"]:
        verb, args = "pickup", args[1:]
    if verb == "pickup":
        if not args:
            raise Unreadable("pick up which cards?", [USAGE["pick"]])
        return [PickedUp(player=who, cards=[_card(state.box, word) for word in args])]
    if verb == "start":
        if not args:
            raise Unreadable("start with which card?", ["start bo"])
        return [StarterTurned(card=_card(state.box, word)) for word in args]
    if verb == "show":
        if not args:
            raise Unreadable("show which cards?", ["show bo s3"])
        return [CardShown(player=who, card=_card(state.box, word)) for word in args]
    raise Unreadable(f"unknown move {quote(verb)}", list(USAGE.values()), "unknown")


def parse(state: State, text: str) -> list[Event] | NotationError:
    return read_move(text.strip(), lambda raw: _parse(state, raw))


# --------------------------------------------------------------------------- events back to notation


def format_event(event: Event) -> str:
    prefix = f"{getattr(event, 'player', '')}: " if isinstance(event, PLAYER_EVENTS) else ""
    if isinstance(event, CardSpliced):
        return prefix + f"lay {event.card}@{event.to}.{event.colour}"
    if isinstance(event, Sliced):
        cut = "/".join(str(n) for n in event.cut)
        return prefix + f"cut {cut} {' '.join(event.cards)}".rstrip()
    if isinstance(event, TurnEnded):
        return prefix + "done"
    if isinstance(event, CardDrawn):
        return prefix + ("draw" if event.card is None else f"draw {event.card}")
    if isinstance(event, ActionGiven):
        drawn = f" draws {' '.join(event.drawn)}" if event.drawn else ""
        return prefix + f"{event.card} {event.target}{drawn}"
    if isinstance(event, TurnPassed):
        return prefix + "pass"
    if isinstance(event, CardShown):
        return prefix + f"show {event.card}"
    if isinstance(event, HandNamed):
        return prefix + "hand " + " ".join(event.cards)
    if isinstance(event, PickedUp):
        return prefix + "pick up " + " ".join(event.cards)
    if isinstance(event, StarterTurned):
        return f"start {event.card}"
    if isinstance(event, TimeCalled):
        return "time"
    if isinstance(event, RoundDealt):
        hands = " | ".join(f"{name}: {' '.join(cards)}" for name, cards in event.hands.items())
        if not event.turned:  # table mode: the hands of the seats that enter their own cards
            return f"deal {hands}"
        turned = " ".join(event.turned)
        return f"deal {hands} | start {turned} | pickup deck {len(event.deck)}"
    return type(event).__name__


# --------------------------------------------------------------------------- the notation as data

# imported here, beside the data it types, so this block stays apart from the reader above
from ...model import NotationForm  # noqa: E402

# every form of the notation with its meaning and examples (`tally rules array --notation`); the notation table of
# docs/rules/array.md agrees with it, and every example parses (tests/core/test_notation_forms.py)
NOTATION: tuple[NotationForm, ...] = (
    NotationForm(
        "splice LAY [LAY ...]",
        "a whole Splice: the first lay is Splice 1, the others Splice 2 onto the card just laid; then the move ends",
        ("splice gy@5", "splice gy@gr", "splice bgy@5 by.b oy", "splice bry@ry"),
    ),
    NotationForm(
        "slice A/B CARD [LAY ...], CARD [LAY ...]",
        "a whole Slice and Splice: cut the join between cards A and B, lay the first card against A's freed segment "
        "and the card after the comma against B's, each followed by its Splice 2 cards; then the move ends",
        ("slice 2/4 bry, gry", "slice 2/4 bry by.b, gry gy.g", "slice 1/5 bry gry"),
    ),
    NotationForm(
        "s1-s5 PLAYER, slam PLAYER",
        "give an action card (also `splatter 3 ben`, `give s3 to ben`); in open mode tally names the cards picked up",
        ("s3 ben", "splatter 3 ben", "slam ben", "slam to ben"),
    ),
    NotationForm("draw", "draw the top card of the pickup deck (open mode: tally names it)", ("draw", "ben: draw")),
    NotationForm("pass", "the pickup deck is empty and nothing else is possible", ("pass",)),
    NotationForm("time", "variant `end=time`: the table calls time; this round is the last", ("time",)),
    NotationForm(
        "start CARD ...",
        "table mode: the card turned over for the starting card (an action card first, if one came up)",
        ("start br", "start slam br"),
    ),
    NotationForm(
        "PLAYER: hand CARD ...",
        "table mode: a seated seat names its own hand dealt this round (7 cards), before the starting card",
        ("ann: hand bor oy ry bry gry s3 slam",),
    ),
    NotationForm(
        "PLAYER: pick up CARD ...",
        "table mode: a seated seat names the cards a Splatter made it pick up (also `pickup`)",
        ("ben: pick up bo gy ry",),
    ),
    NotationForm("show CARD ...", "table mode, end of a round: the cards left in the player's hand", ("show bo s3",)),
    NotationForm("lay LAY ...", "steps: lay cards without ending the move", ("lay bry@3.y",)),
    NotationForm("cut A/B CARD CARD", "step: the slice itself, without ending the move", ("cut 2/4 bry gry",)),
    NotationForm("done", "step: end the move, leaving the open segments open", ("done",)),
)
