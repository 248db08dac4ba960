"""Split's notation: `draw [CARD]`, `take CARD`, `match CARD CARD`, `upgrade CARD over CARD`, `minus PLAYER`,
`swap MATCH for MATCH`, `skip`, `discard CARD`, `done`, `deal CARD [| PLAYER CARD x9 ...]`, `hand CARD x9`, each optionally
prefixed `PLAYER:` (docs/rules/split.md, "Move notation").

A card is its rank, suit and side (`7HL`, `10sr`: any case); a match is two cards joined by `+` (`7HL+7HR`),
or, where a match on the table is meant, any one of its two visible halves. `parse` reads text into events
(or a NotationError listing what would have been valid); `format_event` writes an event back so that
parsing it yields the same event. Suggestions for a mistyped card come from the whole box, never from a
hidden hand.
"""

from __future__ import annotations

from ...model import Event, NotationError
from ...notation import Unreadable, player_of, read_move, seat_or_refuse, suggestions
from ...text import quote
from .components import HAND, pair
from .events import (
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    HandNamed,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
)
from .state import State, find_match

# the verbs a refused move's suggestions list; `hand` (a seated seat's own dealt hand) is read too, but only a
# seat the deal left its hand to enters it, and the move's listing says so (`to_act`)
VERBS = ("draw", "take", "match", "upgrade", "minus", "swap", "skip", "discard", "done", "deal")
USAGE = {
    "draw": "draw | draw CARD",
    "take": "take CARD",
    "match": "match CARD CARD",
    "upgrade": "upgrade CARD over CARD",
    "minus": "minus PLAYER",
    "swap": "swap MATCH for MATCH",
    "skip": "skip",
    "discard": "discard CARD",
    "done": "done",
    "deal": "deal CARD | PLAYER CARD ...",
    "hand": "PLAYER: hand CARD ...",
}


def _card(state: State, word: str) -> str:
    card = word.upper() if word.isascii() else word
    if card in state.deck.info:
        return card
    # a card code is a few characters: a longer word gets no spelling suggestions (difflib is quadratic)
    close = suggestions(card, state.deck.cards) if len(card) <= 8 else list(state.deck.cards[:8])
    raise Unreadable(f"unknown card {quote(word)}", close, "unknown")


def _player(state: State, word: str) -> str:
    return seat_or_refuse(word, state.seats)


def _one(args: list[str], verb: str) -> str:
    if len(args) != 1:
        raise Unreadable(f"{verb} takes one card", [USAGE[verb]])
    return args[0]


def _pair(state: State, words: list[str], verb: str) -> list[str]:
    """`A B` or `A+B` as two cards, in the order tally writes a match."""
    if len(words) == 1 and "+" in words[0]:
        words = words[0].split("+")
    if len(words) != 2:
        raise Unreadable(f"{verb} names two halves", [USAGE[verb]])
    a, b = _card(state, words[0]), _card(state, words[1])
    return list(pair(state.deck, a, b)) if a != b else [a, b]


def _match(state: State, word: str) -> list[str]:
    """A match on the table: `A+B`, or one visible half of it."""
    if "+" in word:
        return _pair(state, [word], "swap")
    card = _card(state, word)
    where = find_match(state, card)
    if where is None:
        return [card]  # not on the table: the ruling, not the parser, says so
    owner, index = where
    return list(state.players[owner].matches[index][:2])


def _deal(state: State, body: str) -> Event:
    parts = [part.split() for part in body.split("|")]
    head = parts[0]
    if len(head) != 1:
        raise Unreadable("a deal names the one card that starts the discard row", [USAGE["deal"]])
    hands: dict[str, list[str]] = {}
    for part in parts[1:]:
        if not part:
            raise Unreadable("a hand is a player's name and their cards", [USAGE["deal"]])
        name = _player(state, part[0])
        if name in hands:
            raise Unreadable(f"{name}'s hand is named twice", [USAGE["deal"]])
        if len(part) - 1 != HAND:
            raise Unreadable(f"{name}'s hand must be the {HAND} cards dealt, not {len(part) - 1}", [USAGE["deal"]])
        hands[name] = [_card(state, word) for word in part[1:]]
    return RoundDealt(row=_card(state, head[0]), hands=hands)


def _read(state: State, who: str, verb: str, args: list[str], body: str) -> Event:
    if verb == "draw":
        if len(args) > 1:
            raise Unreadable("draw takes no card, or the one the recorder saw", [USAGE["draw"]])
        if args:
            return CardDrawn(player=who, card=_card(state, args[0]))
        return CardDrawn(player=who, card=state.pile[0] if state.pile else None)
    if verb == "take":
        return RowTaken(player=who, card=_card(state, _one(args, verb)))
    if verb == "match":
        return MatchPlayed(player=who, cards=_pair(state, args, verb))
    if verb == "upgrade":
        if len(args) == 3 and args[1].lower() == "over":
            args = [args[0], args[2]]
        elif len(args) == 2 and args[1].lower() == "over":  # not a card named `over`: the second half is missing
            raise Unreadable(
                f"upgrade {quote(args[0])} over what? the half it goes over is missing", [USAGE["upgrade"]]
            )
        if len(args) != 2:
            raise Unreadable("upgrade names the card from the hand and the half it goes over", [USAGE["upgrade"]])
        return MatchUpgraded(player=who, card=_card(state, args[0]), over=_card(state, args[1]))
    if verb == "minus":
        if len(args) != 1:
            raise Unreadable("minus names the player who marks a minus box", [f"minus {seat}" for seat in state.seats])
        return MinusMarked(player=who, target=_player(state, args[0]))
    if verb == "swap":
        if len(args) == 3 and args[1].lower() == "for":
            args = [args[0], args[2]]
        if len(args) != 2:
            raise Unreadable("swap names your match and the other player's", [USAGE["swap"]])
        return MatchesSwapped(player=who, mine=_match(state, args[0]), theirs=_match(state, args[1]))
    if verb == "discard":
        return CardDiscarded(player=who, card=_card(state, _one(args, verb)))
    if verb in ("skip", "done"):
        if args:
            raise Unreadable(f"{verb} takes nothing more", [verb])
        return BonusDeclined(player=who) if verb == "skip" else LayingDone(player=who)
    if verb == "deal":
        return _deal(state, " ".join(body.split(None, 1)[1:]))
    if verb == "hand":
        return HandNamed(player=who, cards=[_card(state, word) for word in args])
    raise Unreadable(f"unknown move {quote(verb)}", [USAGE[v] for v in VERBS], "unknown")


def parse(state: State, text: str) -> list[Event] | NotationError:
    named = player_of(text, state.seats)
    if isinstance(named, NotationError):
        return named
    who, body = named
    words = body.split()
    if not words:
        return NotationError(text.strip(), "empty move", [USAGE[v] for v in VERBS])
    verb = words[0].lower()
    if verb == "deal" and who is not None:
        return NotationError(text.strip(), "a deal is the table's, not a player's move", [USAGE["deal"]])
    return read_move(text.strip(), lambda _: [_read(state, who or state.player_name, verb, words[1:], body)])


def format_event(event: Event) -> str:
    if isinstance(event, RoundDealt):
        hands = "".join(f" | {name} {' '.join(cards)}" for name, cards in event.hands.items())
        pile = f" | pile of {len(event.pile)} cards" if event.pile else ""
        return f"deal {event.row}{hands}{pile}"
    who = f"{getattr(event, 'player', '')}: "
    if isinstance(event, CardDrawn):
        return who + ("draw" if event.card is None else f"draw {event.card}")
    if isinstance(event, RowTaken):
        return who + f"take {event.card}"
    if isinstance(event, MatchPlayed):
        return who + "match " + "+".join(event.cards)
    if isinstance(event, MatchUpgraded):
        return who + f"upgrade {event.card} over {event.over}"
    if isinstance(event, MinusMarked):
        return who + f"minus {event.target}"
    if isinstance(event, MatchesSwapped):
        return who + f"swap {'+'.join(event.mine)} for {'+'.join(event.theirs)}"
    if isinstance(event, BonusDeclined):
        return who + "skip"
    if isinstance(event, CardDiscarded):
        return who + f"discard {event.card}"
    if isinstance(event, LayingDone):
        return who + "done"
    if isinstance(event, HandNamed):
        return who + "hand " + " ".join(event.cards)
    return type(event).__name__


# --------------------------------------------------------------------------- the notation as data

# imported here, beside the data it types, so this block stays apart from the reader above
from ...model import NotationForm  # noqa: E402

# every form of the notation with its meaning and examples (`tally rules split --notation`); the notation table of
# docs/rules/split.md agrees with it, and every example parses (tests/core/test_notation_forms.py)
NOTATION: tuple[NotationForm, ...] = (
    NotationForm(
        "draw", "draw the pile's top card (open mode: tally names it; table mode: unseen)", ("draw", "ben: draw")
    ),
    NotationForm("draw CARD", "a draw the recorder saw (table mode), or the known top card (open mode)", ("draw 8HR",)),
    NotationForm("take CARD", "take that card from the discard row, with every card above it", ("take 7CR",)),
    NotationForm(
        "match CARD CARD",
        "play two halves of one number as a match (also `match A+B`)",
        ("match 7HL 7HR", "match 9SL+9CR"),
    ),
    NotationForm(
        "upgrade CARD over HALF",
        "play a card over a visible half of a match on the table (also without `over`)",
        ("upgrade 7DL over 7SL",),
    ),
    NotationForm("minus PLAYER", "perfect bonus: that player marks a minus box", ("minus ben",)),
    NotationForm(
        "swap MATCH for MATCH",
        "weak bonus: your match for another player's of the same type (a match by its two halves or one of them)",
        ("swap 5HL+5SR for 5DL+5CR", "swap 5HL for 5DL"),
    ),
    NotationForm("skip", "let the pending bonus go", ("skip",)),
    NotationForm("discard CARD", "discard a card, ending the turn", ("discard KSL",)),
    NotationForm("done", "after a first-turn out: finished laying matches", ("done",)),
    NotationForm(
        "deal CARD | PLAYER CARDS ...",
        "table mode: the card that starts the discard row, then any hand the recorder saw (9 cards)",
        ("deal 5SR", "deal 5SR | ann 3HL 3HR 7CL 8DL 9SR JDL QCR KHL KSL"),
    ),
    NotationForm(
        "PLAYER: hand CARDS",
        "table mode: a seated seat names its own dealt hand (9 cards), which the deal left to it",
        ("ann: hand 3HL 3HR 7CL 8DL 9SR JDL QCR KHL KSL",),
    ),
)
