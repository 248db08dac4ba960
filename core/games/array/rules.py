"""Array's rules: every rule id with its English text, the options, and the guards of each event kind, registered with the kernel.

`check` runs the guards in a fixed order (the game is over; the deal and what the table owes; whose turn
it is; then the move's own rules) and returns the rulings that forbid an event, or an unverifiable note
where the log cannot know (a draw from a hand it never saw); `permit` names the rule that allows a legal one.
"""

from __future__ import annotations

from collections import Counter

from ...model import Event, Option, RuleDoc, Ruling, illegal, legal, unverifiable
from ...referee import (
    ALLOWED,
    Allowed,
    Guards,
    OutOfTurn,
    Pending,
    Supposing,
    answers_unseated,
    concerns,
    no_rule_of_its_own,
)
from ...seated import hands_owed, seat_index, seat_names_own_cards
from ...text import plural, quote
from .components import ACTION_CODES, DEAL, SLAM_POINTS, card_text, is_action, is_colour_card
from .events import (
    EVENTS,
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
from .state import (
    SEGMENTS,
    State,
    Unseen,
    cards_picked_up,
    is_possible,
    join_colour,
    located,
    options_left,
    partner,
    picked_up,
    unlocated_copies,
    unnamed,
    unseen_cards,
)
from .view import to_act

# --------------------------------------------------------------------------- rules text

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "array.deal.hands",
        "Each round the dealer shuffles the whole deck and deals 7 cards face down to each player in the round; the rest of the deck, face down, is the pickup deck.",
    ),
    RuleDoc(
        "array.deal.starting-card",
        "The top card of the pickup deck is turned over and placed by itself in the centre: the starting card of the first array. If it is an action card, it goes back into the pickup deck and another card is turned over.",
    ),
    RuleDoc("array.deal.pending", "No one plays before the round is dealt and its starting card lies on the table."),
    RuleDoc(
        "array.turn.order",
        "Play begins with the player to the left of the dealer and goes to the left (seat order). A turn is one of four moves: Slice and Splice, Splice, Splatter or SLAM, or Draw.",
    ),
    RuleDoc(
        "array.turn.out-of-turn",
        "Only the player whose turn it is may move; a player who is eliminated, or sits out a sudden-death round, does not play.",
    ),
    RuleDoc(
        "array.turn.pending",
        "What the table owes comes first: at the end of a round in table mode, the cards left in the hands are shown before anything else.",
    ),
    RuleDoc("array.turn.game-over", "Once the game has ended no further moves are made."),
    RuleDoc(
        "array.first.splice",
        "First move of a round: the player to the left of the dealer splices a colour card (2, 3 or 4 colours) with one colour matching the starting card (Splice 1); in the same turn they may splice hand cards matching the rest of the colours on the card they just laid (Splice 2).",
    ),
    RuleDoc(
        "array.first.no-action",
        "An action card cannot be played on the first move of a round: not before the first card has been spliced to the starting card.",
    ),
    RuleDoc(
        "array.first.draw",
        "If the player making the first move has no card that fits the starting card, they pick up a card and it is the next player's turn, who then makes the first move.",
    ),
    RuleDoc(
        "array.splice.one-colour",
        "Splice 1: lay one colour card from your hand against a card on the table, matching exactly one colour: one segment of the new card touches one open segment of the same colour. Only one card is laid this way in a move.",
    ),
    RuleDoc(
        "array.splice.second",
        "Splice 2: in the same turn, splice hand cards matching the other colours of the card just laid, at most one card against each of its open segments. Leaving segments open is allowed (a missed opportunity). The move ends after Splice 2.",
    ),
    RuleDoc(
        "array.splice.colour-card",
        "Only colour cards (2, 3 or 4 colours) are spliced; action cards are given as Splatter or SLAM.",
    ),
    RuleDoc(
        "array.splice.done",
        "A Splice or Slice and Splice move ends when the player says so (done), when the cards just laid have no open segment left, or when the player's hand is empty; until then the player may only splice onto those cards.",
    ),
    RuleDoc(
        "array.join.same-colour",
        "A join is one segment of the card being laid against a segment of the same colour of a card on the table.",
    ),
    RuleDoc(
        "array.join.open",
        "A segment touches at most one segment of another card: a segment that already touches a card is closed.",
    ),
    RuleDoc(
        "array.join.target",
        "A card is laid against a card that lies on the table this round; cards are numbered in the order they were laid, #1 being the starting card.",
    ),
    RuleDoc(
        "array.card.held",
        "A player lays or gives only cards from their own hand. In table mode the hand is unknown, so the card must be possible: a copy of it exists that is not on the table, given or shown.",
    ),
    RuleDoc(
        "array.slice.join",
        "Slice: separate two touching segments of matching colour; the array they joined becomes two arrays, one on each side of the cut.",
    ),
    RuleDoc(
        "array.slice.two-cards",
        "A slice needs two cards with the sliced colour from the player's hand, one laid at once against each of the two freed segments of that colour.",
    ),
    RuleDoc(
        "array.slice.splice",
        "After a slice, splicing continues on the new cards: the player may splice hand cards matching the other colours of the two cards just laid (Splice 2 on each), then the move ends.",
    ),
    RuleDoc(
        "array.action.splatter",
        "Splatter N: instead of laying cards, give a Splatter card to another player, who picks up N cards from the pickup deck (all that are left, if fewer). Picking up because of a Splatter is not a turn.",
    ),
    RuleDoc(
        "array.action.slam",
        "SLAM: give the SLAM card to another player, who adds 10 points to their score for the round.",
    ),
    RuleDoc(
        "array.action.target",
        "An action card is given to another player who plays this round; it is then set aside and does not join the receiver's hand.",
    ),
    RuleDoc("array.action.next", "After an action card, play continues to the left of the player who gave it."),
    RuleDoc(
        "array.draw.only-if-stuck",
        "If a player cannot Slice and Splice, Splice, or play an action card, they must draw a card from the pickup deck, which ends their turn; a player who can do one of those may not draw. In table mode the hand is unknown, and each card of it the log has not seen is a different copy of the box that the log has not located. A hand without a move holds only copies that give no move on their own, and at most one card with each colour of a join (two would give a slice): a draw is illegal when the hand holds more unseen cards than the largest such hand, legal when every hand of that many copies is without a move, and is otherwise recorded as unverifiable.",
    ),
    RuleDoc(
        "array.draw.top",
        "A card drawn or picked up is the top card of the pickup deck: in open mode the log knows which card it is; in table mode it is not recorded, except by a seated player, who names the cards they draw or pick up, as many as they took, each a card with a copy the log has not located.",
    ),
    RuleDoc(
        "array.pickup.owed",
        "In table mode a seated player given a Splatter names the cards they pick up, from their own device (the giver, who does not see them, names none), before anything else is played.",
    ),
    RuleDoc(
        "array.pickup.not-owed", "Only the seated player whom a Splatter made pick up cards names them, and only once."
    ),
    RuleDoc(
        "array.draw.empty-deck",
        "When the pickup deck is empty, a player who would have to draw passes instead, and may pass only then.",
    ),
    RuleDoc(
        "array.round.end",
        "When a player has played all the cards in their hand the round is over; that player wins the round.",
    ),
    RuleDoc(
        "array.round.blocked",
        "When every player in the round has passed in turn (the pickup deck is empty and no one can play), the round is blocked and ends; variant `blocked` says who scores.",
    ),
    RuleDoc(
        "array.round.dealer",
        "The dealer role rotates to the left after each round, to the next player still in the game; play begins with the player to the left of the dealer.",
    ),
    RuleDoc(
        "array.score.cards",
        "Each card left in the hand of a losing player scores: a colour card 2, 3 or 4 points by its number of colours, a Splatter card its number (1-5), a SLAM card 10. The round's points, with the SLAMs received, are added to the player's total.",
    ),
    RuleDoc(
        "array.score.show",
        "In table mode, at the end of a round each player with cards left shows them one by one: exactly as many cards as the hand holds, each a card that can still be there.",
    ),
    RuleDoc(
        "array.game.threshold",
        "A player whose total reaches the threshold or more at the end of a round is eliminated (option `threshold`: 50, 100 or 200; default 100).",
    ),
    RuleDoc("array.game.last-standing", "The last player in the game, below the threshold, wins."),
    RuleDoc(
        "array.game.all-cross",
        "If the last players all reach the threshold at the end of the same round, the player with the lowest total wins.",
    ),
    RuleDoc(
        "array.game.sudden-death",
        "If the players who would win on the lowest total are tied, a sudden-death round is played between them; its winner wins the game.",
    ),
    RuleDoc(
        "array.game.hands",
        "Variant `end=hands`: the game ends after a fixed number of hands (option `hands`); the player with the fewest points wins.",
    ),
    RuleDoc(
        "array.game.time",
        "Variant `end=time`: the table calls time; the round being played is the last, and the player with the fewest points wins.",
    ),
)
RULE_IDS = frozenset(r.id for r in RULES)

OPTIONS: tuple[Option, ...] = (
    Option("threshold", "100", ("50", "100", "200"), help="points at which a player is eliminated"),
    Option(
        "end",
        "elimination",
        ("elimination", "hands", "time"),
        help="the game ends with the last player standing, after a number of hands, or when the table calls time",
    ),
    Option("hands", "5", (), 1, 99, help="hands played when end=hands"),
    Option(
        "blocked",
        "lowest-free",
        ("lowest-free", "all-score"),
        help="a blocked round: the lowest hands score nothing (lowest-free) or every hand scores (all-score)",
    ),
)


# --------------------------------------------------------------------------- helpers


def _expected(state: State) -> str:
    return to_act(state)[1]


def _cards(state: State, number: int) -> str:
    return f"#{number} {state.placed[number - 1]}"


def _on_table(count: int) -> str:
    """The cards lying on the table, counted: `5 cards lie on the table, #1-#5`."""
    if count == 1:
        return "1 card lies on the table, the starting card #1"
    return f"{count} cards lie on the table, #1-#{count}"


def _colour(state: State, letter: str) -> str:
    return state.box.name(letter) if len(letter) == 1 and letter in state.box.colours else quote(letter)


# --------------------------------------------------------------------------- guards before the move's own rules


@concerns(RoundDealt, StarterTurned, TimeCalled, CardShown)  # every other kind passes it untouched
def check_table_entry(state: State, event: Event) -> Ruling | Allowed | None:
    """The deal, the starting card, time called and the cards shown at a round's end only when each is expected
    (none of them is a turn's move)."""
    phase = state.phase
    kind = type(event)
    if kind is RoundDealt:
        if phase == "starter" and state.seated:  # seated seats' hands, before the starting card (check_dealt)
            return ALLOWED
        if phase != "deal" or state.mode != "open":
            return illegal("array.deal.hands", "tally records the deal at the start of each round in open mode only")
        return ALLOWED
    if kind is StarterTurned:
        if state.mode == "open":
            return illegal(
                "array.deal.starting-card", "in open mode tally turns the starting card over from the dealt deck"
            )
        if phase == "show":  # the cards left are owed first: the pending rule decides
            return None
        if phase != "starter":
            return illegal("array.deal.starting-card", f"no starting card is to be turned now; {_expected(state)}")
        return ALLOWED
    if kind is TimeCalled:
        if state.end != "time":
            return illegal("array.game.time", f"this table plays end={state.end}: time is called only with end=time")
        if state.time_called:
            return illegal("array.game.time", f"time was already called: round {state.round} is the last")
        return ALLOWED
    if kind is CardShown:
        if phase != "show":
            return illegal(
                "array.score.show", f"cards are shown only at the end of a round in table mode; {_expected(state)}"
            )
        return ALLOWED
    return None


def _out_of_turn(state: State, player: str) -> str:
    seat = seat_index(state.seats, player)
    if seat < 0:
        return f"{quote(player)} is not at this table: it is {state.player_name}'s turn"
    why = ""
    if seat in state.out and seat not in state.playing:
        why = f" ({player} is eliminated)"
    elif seat not in state.playing:
        why = f" ({player} sits out the sudden-death round)"
    return f"it is {state.player_name}'s turn, not {player}'s{why}"


# What the step of the turn allows: a move goes on until it is ended, and only a move with a card is ended. Two
# `Pending`s, each bound to its phase and the kinds it refuses there, not one step asked of every move: a splice,
# a slice, a give or a done they never refuse meets whose turn it is last, which the kernel asks without a call.
MOVE_UNDER_WAY = Pending[State](
    ("splice",),
    "array.splice.done",
    lambda state, event: f"{getattr(event, 'player', '')}'s move is not over: {_expected(state)}",
    facts=lambda state: {"anchors": list(state.anchors)},
    kinds=[kind for kind in EVENTS if kind is not CardSpliced and kind is not TurnEnded],
)
NO_MOVE_TO_END = Pending[State](
    ("play",),
    "array.splice.done",
    lambda state, event: f"{getattr(event, 'player', '')} has laid no card this turn: there is no move to end",
    kinds=[TurnEnded],
)


@answers_unseated(PickedUp)  # with nobody seated no pick-up is owed: only one named is answered (refused)
def check_pickup_owed(state: State, event: Event) -> Ruling | Allowed | None:
    """The cards a Splatter made a seated seat pick up, named by that seat before anything else is played."""
    picking = state.picking
    if type(event) is PickedUp:
        player = getattr(event, "player", "")
        if player != picking:
            whose = f"only {picking} names the cards they picked up" if picking else "no Splatter left cards to name"
            return illegal("array.pickup.not-owed", f"{player} has picked up no cards to name: {whose}", player=player)
        return ALLOWED
    if not picking:
        return None
    return illegal(
        "array.pickup.owed",
        f"{picking} first names the {plural(state.picks, 'card')} the Splatter made "
        f"them pick up ({picking}: pick up CARD ...)",
        player=picking,
        picks=state.picks,
    )


# the turn: the cards a Splatter made a seated seat pick up, named first; the seated hands owed before the starting card (kernel), the table's entries, a round not started or over
# (kernel), whose move it is (kernel), the step (the move under way, or none to end)
TURN = (
    check_pickup_owed,
    hands_owed(HandNamed, dealt=(RoundDealt,)),
    seat_names_own_cards(unnamed),
    check_table_entry,
    Pending[State](
        ("deal", "starter"),
        "array.deal.pending",
        lambda state, event: f"round {state.round} has not started: {_expected(state)}",
    ),
    Pending[State](
        ("show",), "array.turn.pending", lambda state, event: f"round {state.round} is over: {_expected(state)} first"
    ),
    OutOfTurn[State](_out_of_turn),
    MOVE_UNDER_WAY,
    NO_MOVE_TO_END,
)


# --------------------------------------------------------------------------- the deal


def check_dealt(state: State, event: RoundDealt) -> Ruling | None:
    if state.mode == "table":
        return _check_seated_hands(state, event)
    names = [state.seats[s] for s in state.playing]
    if sorted(event.hands) != sorted(names):
        return illegal(
            "array.deal.hands", f"round {state.round} is dealt to {', '.join(names)}", hands=sorted(event.hands)
        )
    for name, cards in event.hands.items():
        if len(cards) != DEAL:
            return illegal("array.deal.hands", f"{name} must be dealt {DEAL} cards, not {len(cards)}", player=name)
    turned = event.turned
    if not turned or not is_colour_card(turned[-1], state.box) or not all(is_action(c) for c in turned[:-1]):
        return illegal(
            "array.deal.starting-card",
            "cards are turned over until a colour card comes up: action cards first, then one colour card",
            turned=turned,
        )
    dealt = list(event.deck)
    dealt.extend(turned[-1:])
    for cards in event.hands.values():
        dealt.extend(cards)
    if sorted(dealt) != state.box.sorted_cards():
        return illegal(
            "array.deal.hands",
            "the hands, the starting card and the pickup deck must be the whole deck, each card once",
        )
    returned = turned[:-1]
    if any(event.deck.count(card) < returned.count(card) for card in set(returned)):
        return illegal("array.deal.starting-card", "an action card turned over goes back into the pickup deck")
    return None


def _check_seated_hands(state: State, event: RoundDealt) -> Ruling | None:
    """Table mode: the deal names only the hands of seated seats, each once a round, each card still possible."""
    waiting = [state.seats[s] for s in state.playing if state.seats[s] in state.seated and state.hands[s].unknown]
    if not event.hands or any(name not in waiting for name in event.hands) or event.turned or event.deck:
        return illegal(
            "array.deal.hands",
            "in table mode the deal names only the hands of seated players not yet "
            f"entered this round ({', '.join(waiting) or 'none'})",
            hands=sorted(event.hands),
        )
    for name, cards in event.hands.items():
        if len(cards) != DEAL:
            return illegal("array.deal.hands", f"{name} must be dealt {DEAL} cards, not {len(cards)}", player=name)
    named = Counter(card for cards in event.hands.values() for card in cards)
    placed = located(state)
    for card, count in named.items():
        if count > state.box.count(card) - placed[card]:
            return illegal(
                "array.deal.hands",
                f"the deal names {plural(count, 'copy', 'copies')} of {card}: "
                f"the box has {state.box.count(card)} and {placed[card]} are located elsewhere",
                card=card,
            )
    return None


def check_hand(state: State, event: HandNamed) -> Ruling | None:
    """A seated seat's own hand (it owes one: `hands_owed`), judged as the deal naming it alone would be."""
    return _check_seated_hands(state, RoundDealt(hands={event.player: event.cards}))


def check_picked_up(state: State, event: PickedUp) -> Ruling | None:
    """The cards a seated seat picked up (it owes them: `check_pickup_owed`): as many as it took, each possible."""
    return _check_picked(state, event.player, event.cards, state.picks)


def check_starter(state: State, event: StarterTurned) -> Ruling | None:
    card = event.card
    if state.box.count(card) == 0:
        return illegal("array.deal.starting-card", f"there is no card {quote(card)} in this box", card=card)
    if state.deck_size == 0 or not is_possible(state, card):
        return illegal(
            "array.deal.starting-card", f"{card} cannot be turned over: every copy is already located", card=card
        )
    return None


# --------------------------------------------------------------------------- laying cards


def _held(state: State, card: str, copies: int = 1) -> Ruling | None:
    """`card` (`copies` of it) can come out of the current player's hand."""
    hand = state.hand
    who = state.player_name
    known = hand.known.count(card)
    if known >= copies:
        return None
    missing = copies - known
    if hand.unknown < missing:
        what = card if copies == 1 else f"two {card}"
        return illegal("array.card.held", f"{who} does not hold {what}: {_hand_text(state)}", card=card)
    available = state.box.count(card) - _located_without_hand(state, card)
    if available < copies:
        return illegal(
            "array.card.held",
            f"{who} cannot hold {plural(copies, 'copy', 'copies')} of {card}: the box has "
            f"{state.box.count(card)} and {state.box.count(card) - available} are located elsewhere",
            card=card,
            copies=state.box.count(card),
        )
    return None


def _located_without_hand(state: State, card: str) -> int:
    return located(state)[card] - state.hand.known.count(card)


def _hand_text(state: State) -> str:
    hand = state.hand
    if not hand.known:
        return f"the hand holds {plural(hand.size, 'card')}"
    shown = " ".join(hand.known)
    return f"the hand holds {shown}" + (f" and {hand.unknown} unknown" if hand.unknown else "")


def check_lay(state: State, event: CardSpliced) -> Ruling | None:
    """Splice 1 (phase play) or Splice 2 (phase splice): the card, the target, the colour, the open segment."""
    card, to, colour = event.card, event.to, event.colour
    placed = state.placed
    # the usual case at once: a known colour card of the hand (a card of the box: a colour card unless an action
    # card) against an open segment of its colour; the guards below find nothing else to forbid, and explain the rest
    if 0 < to <= len(placed) and len(colour) == 1 and colour in card:
        target = placed[to - 1]
        if (
            colour in target
            and not state.links[to - 1][SEGMENTS[target][colour][0]]
            and card in state.hands[state.current].known
            and (state.phase == "play" or to in state.anchors)
            and card not in ACTION_CODES
        ):
            return None
    return _check_lay(state, event)


def _check_lay(state: State, event: CardSpliced) -> Ruling | None:
    card, to, colour, who = event.card, event.to, event.colour, event.player
    if not is_colour_card(card, state.box):
        if is_action(card):
            return illegal(
                "array.splice.colour-card",
                f"{card_text(card, state.box)} is an action card: it is given, not spliced",
                card=card,
            )
        return illegal("array.splice.colour-card", f"{quote(card)} is not a colour card of this box", card=card)
    ruling = _held(state, card)
    if ruling is not None:
        return ruling
    count = len(state.placed)
    if not 1 <= to <= count:
        return illegal("array.join.target", f"there is no card #{to} on the table: {_on_table(count)}", to=to)
    if state.phase == "splice" and to not in state.anchors:
        first = state.anchors[0]
        laid = " and ".join(f"#{a}" for a in state.anchors)
        if to < first:
            rule = "array.splice.one-colour" if len(state.anchors) == 1 else "array.slice.splice"
            return illegal(
                rule,
                f"{who} already laid {laid} this move: {card} may only be spliced onto {laid}, not #{to}",
                to=to,
                anchors=list(state.anchors),
            )
        rule = "array.splice.second" if len(state.anchors) == 1 else "array.slice.splice"
        return illegal(
            rule,
            f"the move ends after Splice 2: {card} may be spliced onto {laid}, not onto #{to}",
            to=to,
            anchors=list(state.anchors),
        )
    if len(colour) != 1 or colour not in card:
        return illegal(
            "array.join.same-colour", f"{card} has no {_colour(state, colour)} segment", card=card, colour=colour
        )
    joined = partner(state, to, colour)
    if joined is None:
        return illegal(
            "array.join.same-colour",
            f"{_cards(state, to)} has no {_colour(state, colour)} segment for {card} to touch",
            to=to,
            colour=colour,
        )
    if joined:
        return illegal(
            "array.join.open",
            f"the {_colour(state, colour)} segment of {_cards(state, to)} already touches #{joined}",
            to=to,
            colour=colour,
            touches=joined,
        )
    return None


def check_slice(state: State, event: Sliced) -> Ruling | None:
    cut, cards = event.cut, event.cards
    # the usual case at once, as a lay's: a join cut, and two known colour cards of the hand with its colour
    if len(cut) == 2 and len(cards) == 2:
        a, b = cut
        if 0 < a <= len(state.placed) and 0 < b <= len(state.placed) and b in state.links[a - 1]:
            colour = state.placed[a - 1][state.links[a - 1].index(b)]
            x, y = cards
            known = state.hands[state.current].known
            if (
                colour in x
                and colour in y
                and x not in ACTION_CODES
                and y not in ACTION_CODES
                and (known.count(x) >= 2 if x == y else x in known and y in known)
            ):
                return None
    return _check_slice(state, event)


def _check_slice(state: State, event: Sliced) -> Ruling | None:
    if len(event.cut) != 2:
        return illegal(
            "array.slice.join", "a slice names the two cards whose touching segments it separates", cut=event.cut
        )
    a, b = event.cut
    count = len(state.placed)
    for number in (a, b):
        if not 1 <= number <= count:
            return illegal(
                "array.join.target", f"there is no card #{number} on the table: {_on_table(count)}", to=number
            )
    colour = join_colour(state, a, b)
    if colour is None:
        return illegal(
            "array.slice.join",
            f"{_cards(state, a)} and {_cards(state, b)} do not touch: only a join can be sliced",
            cut=event.cut,
        )
    if len(event.cards) != 2:
        return illegal(
            "array.slice.two-cards",
            f"slicing the {_colour(state, colour)} join needs two cards with {_colour(state, colour)}, one for each side "
            f"({len(event.cards)} given)",
            cards=event.cards,
        )
    for card in event.cards:
        if not is_colour_card(card, state.box):
            what = "an action card" if is_action(card) else "not a colour card of this box"
            return illegal(
                "array.splice.colour-card", f"{quote(card)} is {what}: only colour cards are laid in a slice", card=card
            )
    x, y = event.cards
    ruling = _held(state, x, 2) if x == y else _held(state, x)
    if ruling is None and x != y:
        ruling = _held(state, y)
    if ruling is not None:
        return ruling
    for card in event.cards:
        if colour not in card:
            return illegal(
                "array.slice.two-cards",
                f"the cut separates two {_colour(state, colour)} segments: {card} has no {_colour(state, colour)} "
                f"to lay against them",
                card=card,
                colour=colour,
            )
    return None


# --------------------------------------------------------------------------- the other moves


def check_give(state: State, event: ActionGiven) -> Ruling | None:
    who, card = event.player, event.card
    if not is_action(card):
        return illegal(
            "array.action.splatter",
            f"{quote(card)} is not an action card: only Splatter and SLAM cards are given",
            card=card,
        )
    if not state.first_done:
        return illegal(
            "array.first.no-action",
            f"{who} cannot play {card} on the first move of round {state.round}: a card must be spliced to the "
            f"starting card first",
            card=card,
        )
    ruling = _held(state, card)
    if ruling is not None:
        return ruling
    target = seat_index(state.seats, event.target)
    if target < 0 or target == state.current or target not in state.playing:
        others = ", ".join(state.seats[s] for s in state.playing if s != state.current)
        return illegal(
            "array.action.target",
            f"{card} goes to another player of this round ({others}), not {quote(event.target)}",
            target=event.target,
        )
    if state.mode == "open":
        top = cards_picked_up(state, card)
        if event.drawn != top:
            return illegal(
                "array.draw.top",
                f"{event.target} picks up the top {plural(len(top), 'card')} of the pickup deck: "
                f"{' '.join(top) or 'none'}",
                drawn=event.drawn,
                top=top,
            )
    elif event.drawn and event.target not in state.seated:
        return illegal("array.draw.top", "in table mode the cards picked up are not recorded", drawn=event.drawn)
    elif event.drawn:
        return _check_picked(state, event.target, event.drawn, picked_up(state, card))
    return None


def _check_picked(state: State, who: str, cards: list[str], count: int) -> Ruling | None:
    """A seated seat names what it drew or picked up: `count` cards, each with a copy still unlocated."""
    if len(cards) != count:
        return illegal(
            "array.draw.top",
            f"{who} picks up {plural(count, 'card')} from the pickup deck, not {len(cards)}",
            drawn=cards,
        )
    placed = located(state)
    for card, copies in Counter(cards).items():
        if copies > state.box.count(card) - placed[card]:
            return illegal("array.draw.top", f"{who} cannot draw {card}: every copy is already located", card=card)
    return None


def _stuck(state: State, verb: str) -> Ruling | None:
    """A draw or pass is right only when nothing else is possible: checked on a known hand; on a hand the log has
    not seen in full, judged from the box's copy counts where they settle it, unverifiable otherwise."""
    who = state.player_name
    rule = "array.first.draw" if not state.first_done and verb == "draw" else "array.draw.only-if-stuck"
    hand = state.hand
    if hand.known:  # no card known, no move known
        possible = options_left(state, hand.known)
        if possible:
            could = possible[0] if len(possible) == 1 else ", ".join(possible[:-1]) + " or " + possible[-1]
            return illegal(rule, f"{who} cannot {verb}: {who} can {could}", could=possible)
    unseen = hand.unknown
    if not unseen:
        return None
    # each unseen card is a different copy the log has not located
    box = unseen_cards(state, hand.known, unlocated_copies(state))
    if box.all_stuck(unseen):
        return None
    if unseen > box.most:  # every hand of that many copies has a move
        return _no_stuck_hand(state, rule, verb, unseen, box)
    does = "draws" if verb == "draw" else "passes"
    return unverifiable(
        rule,
        f"{who} {does} with {plural(unseen, 'card')} the log has not seen; it cannot "
        f"confirm that {who} could not splice, slice or give an action card",
    )


def _no_stuck_hand(state: State, rule: str, verb: str, unseen: int, box: Unseen) -> Ruling:
    """The proof that a hand of `unseen` cards the log has not seen has a move, with the counts it rests on."""
    who = state.player_name
    lets = "splice, slice or give an action card" if state.first_done else "splice it onto the starting card"
    facts = {"unseen": unseen, "most": box.most, "idle": box.idle, "unjoined": box.unjoined, "packed": box.packed}
    held = f"{who} cannot {verb}: {who} holds {plural(unseen, 'card')} the log has not seen"
    if not box.joined:  # no idle copy has a joined colour: the copies one by one settle it
        copies = (
            "no unlocated copy" if box.idle == 0 else f"only {plural(box.idle, 'unlocated copy', 'unlocated copies')}"
        )
        return illegal(
            rule,
            f"{held}, and {copies} of the box would leave {who} without a move (any other copy lets {who} {lets})",
            **facts,
        )
    colours = [state.box.name(colour) for colour in box.joined]
    named = colours[0] if len(colours) == 1 else ", ".join(colours[:-1]) + " or " + colours[-1]
    joined = box.idle - box.unjoined
    if box.moving:
        idle = (
            f"{box.idle} of the {box.idle + box.moving} unlocated copies of the box give no move on their own "
            f"(any other lets {who} {lets})"
        )
    else:
        idle = f"all {box.idle} unlocated copies of the box give no move on their own"
    if box.unjoined:
        idle += f", {joined} of them with a colour of a join ({named})"
    else:
        idle += f", {'all of them' if box.moving else 'each'} with a colour of a join ({named})"
    besides = f", besides the {box.unjoined} without one" if box.unjoined else ""
    return illegal(
        rule,
        f"{held}, and a hand without a move holds at most {box.most} of them: {idle}; two cards "
        f"sharing a joined colour give a slice, so such a hand holds at most {box.packed} of those "
        f"{joined}{besides}",
        **facts,
    )


def can_stop(state: State) -> bool:
    """Whether the player to act may draw (or pass, the pickup deck empty) as far as the log can tell: the
    listing offers no draw or pass that the guard refuses."""
    ruling = _stuck(state, "draw" if state.deck_size else "pass")
    return ruling is None or ruling.verdict != "illegal"


def check_draw(state: State, event: CardDrawn) -> Ruling | None:
    if state.deck_size == 0:
        return illegal("array.draw.empty-deck", f"the pickup deck is empty: {event.player} cannot draw (pass instead)")
    if state.mode == "open":
        if event.card != state.deck[0]:
            return illegal(
                "array.draw.top",
                f"the top card of the pickup deck is {state.deck[0]}, not {quote(event.card)}",
                card=event.card,
                top=state.deck[0],
            )
    elif event.card is not None and event.player not in state.seated:
        return illegal(
            "array.draw.top", "in table mode the card drawn is not recorded (the others do not see it)", card=event.card
        )
    elif event.card is not None:
        found = _check_picked(state, event.player, [event.card], 1)
        if found is not None:
            return found
    return _stuck(state, "draw")


def check_pass(state: State, event: TurnPassed) -> Ruling | None:
    if state.deck_size:
        return illegal(
            "array.draw.empty-deck",
            f"{event.player} cannot pass: {plural(state.deck_size, 'card is', 'cards are')} left in the pickup deck",
            deck=state.deck_size,
        )
    return _stuck(state, "pass")


def check_show(state: State, event: CardShown) -> Ruling | None:
    who, card = event.player, event.card
    seat = seat_index(state.seats, who)
    if seat not in state.owing:
        name = who if seat >= 0 else quote(who)
        held = f" ({plural(state.hands[seat].size, 'card')} in hand)" if seat >= 0 else ""
        owing = ", ".join(f"{state.seats[s]} ({plural(state.hands[s].size, 'card')})" for s in state.owing)
        return illegal(
            "array.score.show", f"{name} has no cards left to show{held}; still to show: {owing}", player=who
        )
    if state.box.count(card) == 0:
        return illegal("array.score.show", f"there is no card {quote(card)} in this box", card=card)
    hand = state.hands[seat]
    if card in hand.known:
        return None
    if not hand.unknown:
        return illegal("array.score.show", f"{who}'s hand left is {' '.join(hand.known)}, not {card}", card=card)
    if not is_possible(state, card):
        return illegal("array.score.show", f"{who} cannot hold {card}: every copy is already located", card=card)
    return None


GUARDS = Guards[State](
    "array",
    EVENTS,
    turn=TURN,
    over_facts=lambda state: {"ended": state.ended},
    # a refused move is also judged by its own rules, as if it were that player's turn (a player of the round)
    # with no move under way
    supposing=Supposing(
        {CardSpliced: "play", Sliced: "play", CardDrawn: "play", ActionGiven: "play", TurnPassed: "play"},
        cleared={"anchors": (), "picking": "", "picks": 0},
        not_in=("deal", "starter", "over"),
        seated=lambda state, seat: seat in state.playing,
    ),
)
GUARDS.on(RoundDealt, check_dealt)
GUARDS.on(HandNamed, check_hand)
GUARDS.on(StarterTurned, check_starter)
GUARDS.on(CardSpliced, check_lay)
GUARDS.on(Sliced, check_slice)
GUARDS.on(TurnEnded, no_rule_of_its_own)
GUARDS.on(CardDrawn, check_draw)
GUARDS.on(ActionGiven, check_give)
GUARDS.on(PickedUp, check_picked_up)
GUARDS.on(TurnPassed, check_pass)
GUARDS.on(CardShown, check_show)
GUARDS.on(TimeCalled, no_rule_of_its_own)
check = GUARDS.seal().check


# --------------------------------------------------------------------------- the permit


def permit(state: State, event: Event) -> Ruling:
    """The rule that allows a legal event, read out at the table."""
    if isinstance(event, CardSpliced):
        where = f"{event.card} against the {state.box.name(event.colour)} segment of {_cards(state, event.to)}"
        if state.phase == "play":
            rule = "array.splice.one-colour" if state.first_done else "array.first.splice"
            return legal(rule, f"{event.player} may splice {where} (Splice 1)")
        rule = "array.splice.second" if len(state.anchors) == 1 else "array.slice.splice"
        return legal(rule, f"{event.player} may splice {where} (Splice 2)")
    if isinstance(event, Sliced):
        a, b = event.cut
        return legal(
            "array.slice.join",
            f"{event.player} may slice {_cards(state, a)} from {_cards(state, b)} and lay "
            f"{event.cards[0]} and {event.cards[1]} against the freed segments",
        )
    if isinstance(event, TurnEnded):
        return legal("array.splice.done", f"{event.player} ends the move")
    if isinstance(event, CardDrawn):
        if _stuck(state, "draw") is not None:  # unverifiable: only the draw itself is known to be right
            return legal("array.draw.top", f"{event.player} draws the top card of the pickup deck")
        rule = "array.first.draw" if not state.first_done else "array.draw.only-if-stuck"
        return legal(rule, f"{event.player} cannot play and draws a card")
    if isinstance(event, TurnPassed):
        if _stuck(state, "pass") is not None:
            return legal("array.draw.empty-deck", f"the pickup deck is empty: {event.player} passes instead of drawing")
        return legal(
            "array.draw.empty-deck", f"{event.player} cannot play and the pickup deck is empty: {event.player} passes"
        )
    if isinstance(event, ActionGiven):
        if event.card == "slam":
            return legal("array.action.slam", f"{event.player} may give SLAM to {event.target} (+{SLAM_POINTS} points)")
        n = picked_up(state, event.card)
        return legal(
            "array.action.splatter",
            f"{event.player} may give Splatter {event.card[1]} to {event.target}, who picks up {plural(n, 'card')}",
        )
    if isinstance(event, StarterTurned):
        card = event.card
        if is_action(card):
            return legal(
                "array.deal.starting-card",
                f"{card} is an action card: it goes back into the pickup deck; turn over another",
            )
        return legal("array.deal.starting-card", f"{card} is the starting card #1")
    if isinstance(event, CardShown):
        return legal("array.score.show", f"{event.player} shows {event.card}")
    if isinstance(event, TimeCalled):
        return legal("array.game.time", f"time is called: round {state.round} is the last")
    if isinstance(event, HandNamed):
        return legal("core.seat.hand-owed", f"{event.player} names their own dealt hand")
    if isinstance(event, PickedUp):
        return legal("array.pickup.owed", f"{event.player} names the {plural(len(event.cards), 'card')} they picked up")
    return legal("array.deal.hands", f"round {state.round} is dealt")


def is_voidable(event: Event) -> bool:
    """A deal that tally made itself (open mode) is chance, not a recorder's mistake: it cannot be undone."""
    return type(event) is not RoundDealt
