"""Split's rules: every rule id with its English text, the options, and the guards of each event kind, registered with the kernel.

`check` runs the guards in a fixed order (the game over; the deal; whose turn it is; the step of the turn
and what is pending; then the move's own rules) and returns the rulings that forbid an event; `permit`
names the rule that allows a legal one. A ruling never names a card the table may not see.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from ...model import Event, Option, RuleDoc, Ruling, illegal, legal, unverifiable
from ...referee import ALLOWED, Allowed, Guards, OutOfTurn, Pending, Supposing, no_rule_of_its_own
from ...seated import hands_owed, seat_names_own_cards
from ...text import plural, quote
from .components import GRADES, HAND, PERFECT, STRONG, WEAK, grade, pair
from .events import (
    EVENTS,
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
from .state import (
    State,
    can_hold,
    find_match,
    find_others_match,
    find_own_match,
    located,
    partners_unseen,
    plays_with,
    unlocated,
    unnamed,
    upgraded,
    where_is,
)
from .view import BONUS_WORDS, to_act

# --------------------------------------------------------------------------- rules text

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "split.setup.deal",
        "Setup: the reference cards (four in the box) are set aside; the dealer shuffles the half-cards, deals 9 to each player, lays the rest face down as the draw pile and turns its top card face up beside it to start the discard row. In open mode tally deals and records every hand and the pile; in table mode the recorder enters the row's first card and any hand they saw (all 9 cards of it).",
    ),
    RuleDoc(
        "split.setup.dealer",
        "The oldest player deals the first round and sits last in the seat order, so the first seat, on the dealer's left, plays first; play passes to the left, in seat order.",
    ),
    RuleDoc("split.setup.incomplete", "No one plays before the round's deal is recorded."),
    RuleDoc(
        "split.deal.not-expected",
        "A deal is recorded only when a round is to be dealt: at the start of the game and after each round but the last.",
    ),
    RuleDoc(
        "split.turn.order",
        "Players take turns in seat order, starting with the player on the dealer's left; a turn belongs to one player from the draw to the discard.",
    ),
    RuleDoc(
        "split.turn.out-of-turn",
        "Only the player whose turn it is may act (or, after a first-turn out, the player laying matches).",
    ),
    RuleDoc(
        "split.turn.steps",
        "A turn is three steps in this order: first draw the top card of the pile or take from the discard row, exactly once; then play or upgrade as many matches as you like; last discard exactly one card, which ends the turn.",
    ),
    RuleDoc("split.turn.game-over", "After the last round is scored no further moves are made."),
    RuleDoc(
        "split.draw.top",
        "Drawing from the pile takes only its top card. In open mode the log knows which card that is; in table mode a card drawn by a player the recorder cannot see stays unknown, and a card the recorder saw must be one not yet located.",
    ),
    RuleDoc(
        "split.draw.last-card",
        "Whoever draws the last card of the pile (at the start of a turn or as a strong match's bonus) ends the round at once: the turn goes no further, and every player marks one minus box for each card in hand.",
    ),
    RuleDoc("split.row.missing", "Only a card lying in the discard row can be taken from it."),
    RuleDoc(
        "split.row.playable",
        "A card may be taken from the discard row only if the player can play it at once, in a match or an upgrade, with the cards taken with it and those in hand (keeping a card for the discard). In table mode, when that depends on cards in a hand the recorder could not see, the take is recorded as unverifiable, unless the box settles it: when the hidden hand holds more cards than there are unlocated halves that would not play it, one of them does, and the take is legal.",
    ),
    RuleDoc(
        "split.row.above",
        "Taking a card from the discard row takes every card above it (discarded after it) into the hand too; all of them are public.",
    ),
    RuleDoc(
        "split.row.play-first",
        "The card taken from the discard row must be played in the next match or upgrade, and before the discard.",
    ),
    RuleDoc(
        "split.hand.not-held",
        "A player can only play or discard cards from their own hand. A card from a hand the recorder could not see is a reveal: it must be a half-card the log has not located anywhere else.",
    ),
    RuleDoc(
        "split.hand.keep-one",
        "Every turn ends with a discard, so a match or an upgrade may not use the last card in hand.",
    ),
    RuleDoc(
        "split.match.same-number",
        "A match is always two halves of the same number (rank); halves of different numbers never match, and an upgrade never changes a match's number.",
    ),
    RuleDoc(
        "split.match.halves",
        "Option `halves`: a match joins a left half and a right half, and an upgrade replaces the half of the same side (default `left-right`, as the halves of a cut card fit together); with `any`, any two halves of one number match.",
    ),
    RuleDoc(
        "split.match.types",
        "A match is perfect when its two halves are identical (one suit), strong when they share number and colour but not suit, weak when they share only the number. Perfect is stronger than strong, strong than weak.",
    ),
    RuleDoc(
        "split.upgrade.stronger",
        "An upgrade plays a card from the hand over one half of a match on the table; only an upgrade that makes the match stronger is allowed, never one that leaves it as strong or makes it weaker.",
    ),
    RuleDoc(
        "split.upgrade.target",
        "The half played over must be a visible half of a match on the table. Option `upgrade-others`: a player may upgrade their own matches and other players' matches (default `take`, and `keep`); with `own-only`, only their own.",
    ),
    RuleDoc(
        "split.upgrade.take",
        "Option `upgrade-others`: upgrading another player's match takes it, and it lies in front of the upgrader from then on (default `take`); with `keep` it stays with its owner.",
    ),
    RuleDoc(
        "split.upgrade.replaced",
        "Option `replaced-half`: the half played over stays under the new one, out of play until the round ends (default `under`); with `hand` it goes to the upgrader's hand, with `discard` onto the top of the discard row.",
    ),
    RuleDoc(
        "split.upgrade.bonus",
        "Option `upgrade-bonus`: an upgraded match brings the bonus of its new type, as a new match does (default `yes`); with `no`, upgrades bring no bonus.",
    ),
    RuleDoc(
        "split.bonus.pending",
        "After making a match, complete its bonus action (or let it go) before the next match, upgrade, or the discard.",
    ),
    RuleDoc(
        "split.bonus.wrong-kind",
        "Each type of match has its own bonus: only the bonus of the match just made can be taken, and only while it is pending.",
    ),
    RuleDoc(
        "split.bonus.perfect",
        "Perfect match: you may choose another player, who marks a minus box on their score sheet.",
    ),
    RuleDoc("split.bonus.strong", "Strong match: you may draw the top card of the pile, but need not."),
    RuleDoc(
        "split.bonus.weak",
        "Weak match: you may exchange one of the matches in front of you for another player's match of the same type (never a stronger or weaker one).",
    ),
    RuleDoc("split.bonus.decline", "Every bonus is optional: the player may let it go (`skip`)."),
    RuleDoc(
        "split.discard.one",
        "Last, discard exactly one card from your hand face up on top of the discard row, so that the cards under it stay visible; this ends your turn.",
    ),
    RuleDoc(
        "split.round.out",
        "When a player discards the last card of their hand the round ends: every other player marks one minus box for each card left in hand.",
    ),
    RuleDoc(
        "split.round.first-turn-out",
        "If a player goes out on their first turn, every player who has not had a turn yet may, in turn order, lay matches from their hand before scoring, without bonus actions and nothing else (no upgrades); each says `done` when finished.",
    ),
    RuleDoc(
        "split.round.score",
        "When a round ends each player marks the score pad: for each match in front of them the first open box of the row of its number (as many boxes as the pad gives its type; one in the default pad), and one minus box for each card left in hand.",
    ),
    RuleDoc(
        "split.round.next-dealer",
        "All cards are shuffled and dealt again for the next round, and the player who went out deals it. Option `no-out-dealer`: when the round ended because the pile ran out, the deal passes to the left (default `left`), stays with the same dealer (`same`), or goes to the player who drew the last card (`drawer`).",
    ),
    RuleDoc("split.game.rounds", "The game lasts three rounds (option `rounds`)."),
    RuleDoc(
        "split.game.score",
        "At the end each player's score is the value of the first open box of every row of the upper half of their pad, summed, minus the value of the first open box of the lower half; a full row keeps its last box's value.",
    ),
    RuleDoc(
        "split.game.winner",
        "The highest score wins. Option `tie`: tied players share the victory (default `shared`), or the tied player with the fewest minus boxes wins (`fewest-minus`), sharing if still tied.",
    ),
    RuleDoc(
        "split.reveal.impossible",
        "A card the recorder names as dealt or drawn must exist and still be possible: each half-card exists once, so a card the log has already located elsewhere cannot turn up.",
    ),
)
RULE_IDS = frozenset(r.id for r in RULES)

OPTIONS: tuple[Option, ...] = (
    Option(
        "halves",
        "left-right",
        ("left-right", "any"),
        help="a match needs a left and a right half, or any two halves of one number",
    ),
    Option(
        "upgrade-others",
        "take",
        ("take", "keep", "own-only"),
        help="upgrading another player's match takes it, leaves it with them, or is not allowed",
    ),
    Option("replaced-half", "under", ("under", "hand", "discard"), help="where the half an upgrade covers goes"),
    Option("upgrade-bonus", "yes", ("yes", "no"), help="an upgraded match brings the bonus of its new type"),
    Option(
        "no-out-dealer",
        "left",
        ("left", "same", "drawer"),
        help="who deals next when the pile ran out and nobody went out",
    ),
    Option(
        "tie",
        "shared",
        ("shared", "fewest-minus"),
        help="a tie on the final score is shared, or the fewest minus boxes wins",
    ),
    Option("rounds", "3", (), 1, 9, help="rounds in a game"),
)

BONUS_EVENT = {PERFECT: MinusMarked, STRONG: CardDrawn, WEAK: MatchesSwapped}


# --------------------------------------------------------------------------- the guards of each event kind


def _expected(state: State) -> str:
    return to_act(state)[1]


def _card(state: State, card: object) -> bool:
    return isinstance(card, str) and card in state.deck.info


def check_deal(state: State, event: RoundDealt) -> list[Ruling]:
    if state.phase != "deal":
        return [illegal("split.deal.not-expected", f"no round is waiting to be dealt; {_expected(state)}")]
    deck = state.deck
    named = [event.row]
    for name, hand in event.hands.items():
        if name not in state.seats:
            return [
                illegal(
                    "split.setup.deal",
                    f"the deal names a hand for {quote(name)}, who is not at this table",
                    player=name,
                )
            ]
        if len(hand) != HAND:
            return [
                illegal(
                    "split.setup.deal", f"{name}'s hand must be the {HAND} cards dealt, not {len(hand)}", player=name
                )
            ]
        named.extend(hand)
    named.extend(event.pile)
    for card in named:
        if not _card(state, card):
            return [illegal("split.reveal.impossible", f"there is no half-card {quote(card)} in this box", card=card)]
    if len(set(named)) != len(named):
        twice = next(card for card, copies in Counter(named).items() if copies > 1)
        return [
            illegal("split.reveal.impossible", f"the deal names {twice} twice: each half-card exists once", card=twice)
        ]
    if state.mode == "open":
        if len(event.hands) != len(state.seats) or len(named) != deck.size:
            return [
                illegal(
                    "split.setup.deal",
                    f"an open-mode deal (tally deals it) names every hand and the whole pile: {deck.size} half-cards",
                )
            ]
    elif event.pile:
        return [illegal("split.setup.deal", "in table mode the pile is face down: the deal cannot name it")]
    return []


def check_hand(state: State, event: HandNamed) -> Ruling | None:
    """A seat's own dealt hand (its seat owes one: `hands_owed`): all of it, each card one the log has not located."""
    if len(event.cards) != HAND:
        return illegal(
            "split.setup.deal",
            f"{event.player}'s hand must be the {HAND} cards dealt, not {len(event.cards)}",
            player=event.player,
        )
    free = set(unlocated(state))
    for card in event.cards:
        if not _card(state, card):
            return illegal("split.reveal.impossible", f"there is no half-card {quote(card)} in this box", card=card)
        if card not in free:
            return illegal(
                "split.reveal.impossible",
                f"{card} cannot be in {event.player}'s hand: it is {where_is(state, card)}",
                card=card,
            )
        free.discard(card)
    return None


def _out_of_turn(state: State, player: str) -> str:
    who = player if player in state.seats else f"{quote(player)} (not at this table)"
    return f"it is {state.player_name}'s move, not {who}'s: {_expected(state)}"


def check_laying(state: State, event: Event) -> Ruling | Allowed | None:
    """After a first-turn out only matches are laid, then `done`; in a bonus, its own move or skipping it fits,
    another bonus's move is the wrong kind."""
    kind = type(event)
    player = getattr(event, "player", "")
    phase = state.phase
    if phase == "laying":
        if kind is MatchPlayed or kind is LayingDone:
            return ALLOWED
        return illegal(
            "split.round.first-turn-out", f"{player} may only lay matches (then `done`) before the round is scored"
        )
    if kind is LayingDone:
        return illegal(
            "split.round.first-turn-out", f"{player} is not laying matches after a first-turn out: {_expected(state)}"
        )
    if phase == "bonus":
        if kind is BONUS_EVENT[state.bonus] or kind is BonusDeclined:
            return ALLOWED
        if kind is MinusMarked or kind is MatchesSwapped or kind is CardDrawn:
            return illegal(
                "split.bonus.wrong-kind",
                f"the pending bonus is the {GRADES[state.bonus]} match's: {player} may {BONUS_WORDS[state.bonus]}, or skip it",
            )
    return None


def _bonus_pending(state: State, event: Event) -> str:
    player = getattr(event, "player", "")
    return (
        f"{player} must first complete the {GRADES[state.bonus]} match's bonus: {BONUS_WORDS[state.bonus]}, or skip it"
    )


def check_steps(state: State, event: Event) -> Ruling | None:
    """The steps of a turn: draw (from the pile or the row), then matches and upgrades (a card taken from the row
    played first), then the discard; a bonus move with no bonus pending."""
    kind = type(event)
    player = getattr(event, "player", "")
    phase = state.phase
    if kind is MinusMarked or kind is MatchesSwapped or kind is BonusDeclined:
        return illegal("split.bonus.wrong-kind", f"{player} has no bonus pending: {_expected(state)}")
    drawing = kind is CardDrawn or kind is RowTaken
    if phase == "draw":
        if drawing:
            return None
        return illegal("split.turn.steps", f"{player} must first draw from the pile or take from the discard row")
    if drawing:
        return illegal(
            "split.turn.steps",
            f"{player} has already drawn this turn: next come matches and upgrades, then the discard",
        )
    must = state.must_play
    if must is not None:
        if kind is CardDiscarded:
            return illegal(
                "split.row.play-first",
                f"{player} must play {must}, taken from the discard row, before discarding",
                card=must,
            )
        cards = event.cards if isinstance(event, MatchPlayed) else [getattr(event, "card", "")]
        if must not in cards:
            return illegal(
                "split.row.play-first",
                f"{player}'s next match or upgrade must use {must}, taken from the discard row",
                card=must,
            )
    return None


def check_draw(state: State, event: CardDrawn) -> list[Ruling] | None:
    if state.pile_size == 0:
        return [illegal("split.draw.top", f"{event.player} cannot draw: the pile is empty")]
    pile = state.pile
    if pile:
        if event.card != pile[0]:
            return [
                illegal(
                    "split.draw.top",
                    f"{event.player} draws the pile's top card, which the log knows in open mode; the move names another card",
                )
            ]
        return None
    if event.card is not None:
        if not _card(state, event.card):
            return [
                illegal(
                    "split.reveal.impossible", f"there is no half-card {quote(event.card)} in this box", card=event.card
                )
            ]
        if event.card in located(state):
            return [
                illegal(
                    "split.reveal.impossible",
                    f"{event.card} cannot be the pile's top card: it is {where_is(state, event.card)}",
                    card=event.card,
                )
            ]
    return None


def check_take(state: State, event: RowTaken) -> list[Ruling] | None:
    who, card = event.player, event.card
    if card not in state.row:
        return [
            illegal(
                "split.row.missing",
                f"{quote(card)} is not in the discard row ({' '.join(state.row) or 'it is empty'})",
                card=card,
            )
        ]
    seat = state.players[state.current]
    hand = seat.hand
    taken = state.row[state.row.index(card) :]
    size = len(hand.known) + hand.unknown + len(taken)
    if plays_with(state, card, hand.known + taken, size):
        return None
    if seat.hand.unknown and size - 2 >= 1:
        unseen = unlocated(state)
        partners = partners_unseen(state, card, unseen)
        if seat.hand.unknown > len(unseen) - len(partners):
            return None  # more hidden cards than unlocated halves that do not match it: one of them is a partner
        if partners:
            return [
                unverifiable(
                    "split.row.playable",
                    f"{who} takes {card}; no card the log knows plays it, so it can only be played with a card of {who}'s "
                    f"hidden hand ({len(partners)} unlocated halves would do): the log cannot confirm the take",
                    card=card,
                )
            ]
    above = f" (with the {plural(len(taken) - 1, 'card')} above it)" if len(taken) > 1 else ""
    return [
        illegal(
            "split.row.playable",
            f"{who} cannot take {card}{above}: {who} could not play it at once in a match or an upgrade",
            card=card,
        )
    ]


def _not_held(state: State, who: str, card: str) -> Ruling:
    if not _card(state, card):
        return illegal("split.hand.not-held", f"there is no half-card {quote(card)} in this box", card=card)
    seat = state.players[state.seats.index(who)]
    if seat.hand.unknown:
        return illegal("split.hand.not-held", f"{who} cannot hold {card}: it is {where_is(state, card)}", card=card)
    return illegal("split.hand.not-held", f"{who} does not hold {card}", card=card)


def _check_held(state: State, who: str, cards: list[str]) -> Ruling | None:
    seat = state.player
    known = seat.hand.known
    if all(card in known for card in cards):  # the usual case (cards are distinct: the caller checked)
        return None
    unseen = set(unlocated(state)) if seat.hand.unknown else set()  # (never asked of a hand with no unknown card)
    for card in cards:
        if not _card(state, card) or not can_hold(state, seat, [card], unseen):
            return _not_held(state, who, card)
    if not can_hold(state, seat, cards, unseen):  # each may be hidden in the hand, but not all of them at once
        return illegal(
            "split.hand.not-held",
            f"{who}'s hand holds {plural(seat.hand.unknown, 'card')} the log has not seen, too few for {' '.join(cards)}",
        )
    return None


def check_match(state: State, event: MatchPlayed) -> list[Ruling] | None:
    who, cards = event.player, event.cards
    if len(cards) != 2:
        return [illegal("split.match.same-number", f"a match is two halves, not {len(cards)}", cards=cards)]
    a, b = cards
    if a == b:
        return [illegal("split.hand.not-held", f"{who} names {quote(a)} twice: each half-card exists once", card=a)]
    hand = state.players[state.current].hand
    known = hand.known
    if a not in known or b not in known:  # else held, as the usual case is (`_check_held`'s first answer)
        held = _check_held(state, who, cards)
        if held:
            return [held]
    info = state.deck.info
    x, y = info[a], info[b]
    if x[0] != y[0]:
        return [
            illegal(
                "split.match.same-number",
                f"{a} and {b} do not match: a match is always two halves of the same number",
                cards=cards,
            )
        ]
    if x[2] == y[2] and state.halves != "any":  # not is_pairable: two halves of one number, both on one side
        return [
            illegal(
                "split.match.halves",
                f"{a} and {b} are both {'left' if x[2] == 0 else 'right'} halves: a match joins a left and a right half (halves=left-right)",
                cards=cards,
            )
        ]
    if len(known) + hand.unknown - 2 < 1 and state.phase != "laying":
        return [
            illegal("split.hand.keep-one", f"{who} must keep a card for the discard: this match would empty the hand")
        ]
    return None


def check_upgrade(state: State, event: MatchUpgraded) -> list[Ruling] | None:
    who, card, over = event.player, event.card, event.over
    hand = state.players[state.current].hand
    if card not in hand.known:  # else held, as the usual case is (`_check_held`'s first answer)
        held = _check_held(state, who, [card])
        if held:
            return [held]
    info = state.deck.info
    where = find_match(state, over) if isinstance(over, str) and over in info else None  # _card(state, over)
    if where is None:
        return [illegal("split.upgrade.target", f"no match on the table shows {quote(over)}", over=over)]
    owner, index = where
    match = state.players[owner].matches[index]
    if owner != state.current and state.upgrade_others == "own-only":  # option upgrade-others
        return [
            illegal(
                "split.upgrade.target",
                f"{who} may only upgrade their own matches (upgrade-others=own-only), not {state.seats[owner]}'s",
                over=over,
            )
        ]
    c, o = info[card], info[over]
    if c[0] != o[0]:
        return [
            illegal(
                "split.match.same-number",
                f"{card} cannot go over {over}: a match is always two halves of the same number",
            )
        ]
    if c[2] != o[2] and state.halves != "any":
        return [
            illegal(
                "split.match.halves",
                f"{card} cannot replace {over}: an upgrade replaces the half of the same side (halves=left-right)",
            )
        ]
    if upgraded(state, match, card, over) is None:
        kept = match[1] if match[0] == over else match[0]
        new, old = grade(state.deck, kept, card), grade(state.deck, match[0], match[1])
        return [
            illegal(
                "split.upgrade.stronger",
                f"{card} over {over} would make {'+'.join(pair(state.deck, kept, card))} {GRADES[new]}, and {'+'.join(match[:2])} "
                f"is {GRADES[old]}: an upgrade must make a match stronger",
                card=card,
                over=over,
            )
        ]
    if len(hand.known) + hand.unknown - 1 + (state.replaced == "hand") < 1:  # cards_after_upgrade
        return [
            illegal("split.hand.keep-one", f"{who} must keep a card for the discard: this upgrade would empty the hand")
        ]
    return None


def check_minus(state: State, event: MinusMarked) -> list[Ruling]:
    if event.target not in state.seats or event.target == event.player:
        target = event.target if event.target in state.seats else quote(event.target)
        return [
            illegal(
                "split.bonus.perfect",
                f"{event.player} must choose another player at this table, not {target}",
                target=event.target,
            )
        ]
    return []


def _shown(state: State, cards: list[str]) -> str:
    """Cards an event names, for a message: codes as they are, anything else quoted, at most four."""
    return "+".join(card if _card(state, card) else quote(card) for card in cards[:4]) or "(none)"


def check_swap(state: State, event: MatchesSwapped) -> list[Ruling]:
    who = event.player
    mine = find_own_match(state.player, event.mine)
    if mine is None:
        return [illegal("split.bonus.weak", f"{who} has no match {_shown(state, event.mine)} to swap", mine=event.mine)]
    found = find_others_match(state, event.theirs)
    if found is None:
        return [
            illegal(
                "split.bonus.weak",
                f"no other player has a match {_shown(state, event.theirs)} to swap",
                theirs=event.theirs,
            )
        ]
    owner, theirs = found
    a = state.player.matches[mine]
    b = state.players[owner].matches[theirs]
    ga, gb = grade(state.deck, a[0], a[1]), grade(state.deck, b[0], b[1])
    if ga != gb:
        return [
            illegal(
                "split.bonus.weak",
                f"{'+'.join(a[:2])} is {GRADES[ga]} and {state.seats[owner]}'s {'+'.join(b[:2])} is {GRADES[gb]}: "
                "a swap is between matches of the same type",
            )
        ]
    return []


def check_discard(state: State, event: CardDiscarded) -> list[Ruling] | None:
    if event.card in state.players[state.current].hand.known:  # every turn ends here: skip the general check
        return None
    held = _check_held(state, event.player, [event.card])
    return [held] if held else []


# --------------------------------------------------------------------------- the guards in order, and the permit


class _Fits(dict[int, frozenset[type]]):
    """Pending bonus -> the moves that fit: subscripted (no `get` called), nothing where no bonus is listed."""

    def __missing__(self, key: int) -> frozenset[type]:
        return _NOTHING


_NOTHING: frozenset[type] = frozenset()
# the moves that fit each step of a turn (phase, then pending bonus) without anything more to explain; nothing
# fits the deal's phase or the game over
_FITS: dict[str, _Fits] = {
    "draw": _Fits({-1: frozenset({CardDrawn, RowTaken})}),
    "play": _Fits({-1: frozenset({MatchPlayed, MatchUpgraded, CardDiscarded})}),
    "laying": _Fits({-1: frozenset({MatchPlayed, LayingDone})}),
    "bonus": _Fits({kind: frozenset({move, BonusDeclined}) for kind, move in BONUS_EVENT.items()}),
}
_NOTHING_FITS = _Fits()


def check_plain_fit(state: State, event: Any) -> Ruling | Allowed | None:
    """The deal comes first; a move that plainly fits the step of the turn skips the steps that explain what does not.
    (`event: Any`: every kind that can fit a step names its `player`, read only once the kind fits.)"""
    kind = type(event)
    if kind is RoundDealt:
        return ALLOWED
    if (
        kind in _FITS.get(state.phase, _NOTHING_FITS)[state.bonus]
        and state.must_play is None
        and event.player == state.seats[state.current]
    ):
        return ALLOWED
    return None


# the turn: the deal (and the fast path), a round not dealt (kernel), whose move it is (kernel), a first-turn out's
# laying and the bonus's own move, a bonus pending (kernel), then the steps of the turn
TURN = (
    hands_owed(HandNamed),
    seat_names_own_cards(unnamed),
    check_plain_fit,
    Pending[State](
        ("deal",),
        "split.setup.incomplete",
        lambda state, event: f"round {state.round + 1} is not dealt yet: {_expected(state)}",
    ),
    OutOfTurn[State](_out_of_turn),
    check_laying,
    Pending[State](("bonus",), "split.bonus.pending", _bonus_pending),
    check_steps,
)


GUARDS = Guards[State](
    "split",
    EVENTS,
    turn=TURN,
    over_words=lambda state: f"the game is over after {plural(len(state.results), 'round')}",
    # a refused draw, match, upgrade or discard is also judged by its own rules, as if it were the player's turn
    # at that step with no bonus pending and no card from the row to play first
    supposing=Supposing(
        {CardDrawn: "draw", RowTaken: "draw", MatchPlayed: "play", MatchUpgraded: "play", CardDiscarded: "play"},
        cleared={"bonus": -1, "must_play": None},
        not_in=("deal", "over"),
    ),
)
GUARDS.on(RoundDealt, check_deal)
GUARDS.on(CardDrawn, check_draw)
GUARDS.on(RowTaken, check_take)
GUARDS.on(MatchPlayed, check_match)
GUARDS.on(MatchUpgraded, check_upgrade)
GUARDS.on(MinusMarked, check_minus)
GUARDS.on(MatchesSwapped, check_swap)
GUARDS.on(BonusDeclined, no_rule_of_its_own)
GUARDS.on(CardDiscarded, check_discard)
GUARDS.on(LayingDone, no_rule_of_its_own)
GUARDS.on(HandNamed, check_hand)
check = GUARDS.seal().check


def permit(state: State, event: Event) -> Ruling:
    """The rule that allows a legal event, for the ruling read out at the table (never naming a hidden card)."""
    who = getattr(event, "player", "")
    if isinstance(event, RoundDealt):
        return legal("split.setup.deal", f"the deal of round {state.round + 1} is recorded")
    if isinstance(event, CardDrawn):
        last = " - the pile's last card: the round ends" if state.pile_size == 1 else ""
        rule = (
            "split.draw.last-card" if last else ("split.bonus.strong" if state.phase == "bonus" else "split.draw.top")
        )
        return legal(rule, f"{who} may draw the top card of the pile{last}")
    if isinstance(event, RowTaken):
        above = len(state.row) - 1 - state.row.index(event.card)
        extra = f" with the {plural(above, 'card')} above it" if above else ""
        return legal(
            "split.row.playable", f"{who} may take {event.card}{extra} from the discard row and must play it at once"
        )
    if isinstance(event, MatchPlayed):
        a, b = event.cards
        kind_of = GRADES[grade(state.deck, a, b)]
        if state.phase == "laying":
            return legal("split.round.first-turn-out", f"{who} may lay the {kind_of} match {a}+{b} (no bonus)")
        return legal("split.match.types", f"{who} may play the {kind_of} match {a}+{b}")
    if isinstance(event, MatchUpgraded):
        found = find_match(state, event.over)
        assert found is not None  # a legal upgrade goes over a match on the table
        owner, index = found
        match = state.players[owner].matches[index]
        new = upgraded(state, match, event.card, event.over)
        whose = "" if owner == state.current else f" {state.seats[owner]}'s"
        return legal(
            "split.upgrade.stronger",
            f"{who} may upgrade{whose} {'+'.join(match[:2])} to a {GRADES[new or 0]} match with {event.card} over {event.over}",
        )
    if isinstance(event, MinusMarked):
        return legal("split.bonus.perfect", f"{who} chooses {event.target}, who marks a minus box")
    if isinstance(event, MatchesSwapped):
        return legal("split.bonus.weak", f"{who} may swap {'+'.join(event.mine)} for {'+'.join(event.theirs)}")
    if isinstance(event, BonusDeclined):
        return legal("split.bonus.decline", f"{who} lets the {GRADES[state.bonus]} match's bonus go")
    if isinstance(event, CardDiscarded):
        if state.player.hand.size == 1:
            return legal("split.round.out", f"{who} discards the last card and goes out: the round ends")
        return legal("split.discard.one", f"{who} may discard {event.card}, ending the turn")
    if isinstance(event, HandNamed):
        return legal("core.seat.hand-owed", f"{who} names their own dealt hand")
    return legal("split.round.first-turn-out", f"{who} has laid the matches they wanted")


def is_voidable(event: Event) -> bool:
    """A deal that tally made itself (open mode: it names the pile) is chance, not a recorder's mistake."""
    return not (isinstance(event, RoundDealt) and event.pile)
