"""Splendor's rules: every rule id with its English text, and the guards of each event kind, registered with the kernel.

`check` runs the guards in a fixed order (whose turn and what is pending first, then the move's own
rules) and returns the rulings that forbid an event; `permit` names the rule that allows a legal one.
"""

from __future__ import annotations

from ...model import Event, Option, RuleDoc, Ruling, illegal, legal, unverifiable
from ...referee import ALLOWED, Allowed, Guards, OutOfTurn, Pending, Supposing, concerns
from ...seated import seat_names_own_cards
from .components import (
    CARDS,
    COLOUR_NAMES,
    GEMS,
    GOLD,
    INDEX,
    LEVEL_CARDS,
    NOBLES,
    RESERVE_LIMIT,
    TOKEN_LIMIT,
    describe_tokens,
    spell,
    token_counts,
)
from .events import (
    EVENTS,
    CardBought,
    CardReserved,
    CardRevealed,
    GemsTaken,
    NobleChosen,
    NobleRevealed,
    SetupDealt,
    TokensReturned,
    TurnPassed,
)
from .notation import format_event
from .state import (
    State,
    blind_buy_proved,
    blind_buys,
    can_act,
    deck_top,
    find_on_board,
    known_reserves,
    located,
    needed,
    qualifying_nobles,
    reserve_entry_for,
    unnamed,
)
from .view import to_act

# --------------------------------------------------------------------------- rules text

RULES: tuple[RuleDoc, ...] = (
    RuleDoc(
        "splendor.setup.deal",
        "Setup: shuffle each level's deck and turn 4 cards of each level face up; lay out one noble more than there are players. With 2 players use 4 gems of each colour, with 3 players 5, with 4 players 7; always 5 gold.",
    ),
    RuleDoc(
        "splendor.setup.incomplete",
        "No one acts before the setup is complete: all 12 face-up cards and the nobles must be on the table.",
    ),
    RuleDoc(
        "splendor.turn.order",
        "Players take turns in seat order, starting with the first seat; each turn is exactly one action: take gems, reserve a card, or buy a card.",
    ),
    RuleDoc(
        "splendor.turn.out-of-turn",
        "Only the player whose turn it is (or who owes a return or a noble choice) may act.",
    ),
    RuleDoc(
        "splendor.turn.pending",
        "An open obligation comes first: a card to turn up, tokens to return, or a noble to choose must be settled before anything else.",
    ),
    RuleDoc("splendor.turn.game-over", "Once the game has ended no further moves are made."),
    RuleDoc("splendor.take.three-different", "Take 3 gem tokens of different colours."),
    RuleDoc("splendor.take.two-same", "Take 2 gem tokens of the same colour."),
    RuleDoc(
        "splendor.take.two-needs-four",
        "Taking 2 of one colour is only allowed if that pile holds at least 4 tokens before taking.",
    ),
    RuleDoc("splendor.take.empty-pile", "A token can only be taken from a pile that still holds one."),
    RuleDoc("splendor.take.no-gold", "Gold is never taken as a gem: it only comes with a reserve."),
    RuleDoc("splendor.take.shape", "A take is 3 different colours or 2 of the same colour; nothing else."),
    RuleDoc(
        "splendor.take.fewer-colours",
        "Variant `take-fewer`: when fewer than 3 colours are left in the supply, whether a player may take one token of each colour that is left (default `when-short`: yes, and only then; `never`: no; `always`: 1 or 2 different colours at any time).",
    ),
    RuleDoc(
        "splendor.reserve.face-up",
        "Reserve a face-up card: take it into your hand and take 1 gold if any is left. Reserving is allowed when no gold is left.",
    ),
    RuleDoc(
        "splendor.reserve.blind",
        "Reserve the top card of any level's deck without showing it to the others, and take 1 gold if any is left.",
    ),
    RuleDoc(
        "splendor.reserve.limit",
        "A player may hold at most 3 reserved cards; reserved cards are never discarded, only bought.",
    ),
    RuleDoc("splendor.reserve.not-face-up", "Only a card lying face up on the table can be reserved face up."),
    RuleDoc("splendor.reserve.empty-deck", "A blind reserve needs a card in that level's deck."),
    RuleDoc(
        "splendor.reserve.wrong-card",
        "A blind reserve is the top card of the deck: in open mode the log knows which card that is; in table mode a named card must still be unlocated.",
    ),
    RuleDoc(
        "splendor.buy.pay",
        "Buy a face-up card or one of your reserved cards by paying its cost, reduced by your card bonuses; gold stands in for any colour; spent tokens return to the supply.",
    ),
    RuleDoc("splendor.buy.not-available", "Only a face-up card or a card you have reserved can be bought."),
    RuleDoc(
        "splendor.buy.cannot-afford",
        "A card whose cost, after bonuses, is more than your gems and gold cannot be bought.",
    ),
    RuleDoc(
        "splendor.buy.payment",
        "The payment must be exactly the cost after bonuses: no colour overpaid, gold exactly covering what the gems do not, and only tokens the player holds.",
    ),
    RuleDoc(
        "splendor.buy.blind-reserve",
        "In table mode a blind reserve is unknown to everyone but its owner; when it is bought, the log cannot verify that it is the card that was reserved (only that such a card was still unlocated). Once that level's deck is used up and no other player holds a blind reserve of it, every unlocated card of the level is in the buyer's blind reserves, and the buy is judged in full.",
    ),
    RuleDoc(
        "splendor.refill",
        "A bought or reserved face-up card is replaced at once from the same level's deck; an empty deck leaves a gap.",
    ),
    RuleDoc(
        "splendor.reveal.not-expected",
        "A card or noble is turned up only at setup or to fill a gap left by a bought or reserved card.",
    ),
    RuleDoc(
        "splendor.reveal.impossible",
        "A revealed card must still be possible: one copy of each card exists, so a card already on the table, bought or reserved cannot turn up again, and it must be of the level whose slot is being filled.",
    ),
    RuleDoc(
        "splendor.tokens.limit",
        "At the end of the turn a player may hold at most 10 tokens, gold included; above that they return tokens of their choice (including ones just taken) down to exactly 10. Bonuses do not count.",
    ),
    RuleDoc(
        "splendor.tokens.return", "A return gives back exactly the excess over 10, and only tokens the player holds."
    ),
    RuleDoc(
        "splendor.noble.visit",
        "At the end of the turn, a noble whose requirement the player's card bonuses meet visits automatically (worth 3 points); it is not an action. At most one noble per turn.",
    ),
    RuleDoc(
        "splendor.noble.choose",
        "When several nobles qualify at the end of a turn the player chooses one; the others may come on a later turn.",
    ),
    RuleDoc(
        "splendor.noble.not-qualified",
        "A chosen noble must be on the table and its requirement met by the player's bonuses.",
    ),
    RuleDoc(
        "splendor.stuck.pass",
        "Variant `stuck`: a player who can do no action at all (the rulebook is silent) passes (default `pass`); under `end` the game ends at once. A pass is only allowed when no action is possible; in table mode, when the only possible action might be buying a blind reserve the log never saw, the pass is illegal if the box proves one affordable (fewer unlocated cards of its level are unaffordable than the player holds blind reserves of it), and is otherwise recorded as unverifiable.",
    ),
    RuleDoc(
        "splendor.end.stalled",
        "If every player passes in one full round, nothing can change any more: the game ends and is scored as it stands.",
    ),
    RuleDoc(
        "splendor.end.finish-round",
        "When a player reaches 15 prestige points (option `target`) at the end of their turn, the round is finished so that all players have had the same number of turns; then the game ends.",
    ),
    RuleDoc(
        "splendor.end.winner",
        "Most prestige points wins; on a tie, the fewest development cards bought wins; still tied, the victory is shared.",
    ),
)
RULE_IDS = frozenset(r.id for r in RULES)

OPTIONS: tuple[Option, ...] = (
    Option("take-fewer", "when-short", ("when-short", "never", "always"), help="taking fewer than 3 different gems"),
    Option("stuck", "pass", ("pass", "end"), help="a player who can do no action passes, or the game ends"),
    Option("target", "15", (), 1, 99, help="prestige points that trigger the last round"),
)


# --------------------------------------------------------------------------- the guards of each event kind


def _expected(state: State) -> str:
    return to_act(state)[1]


_PHASE_OF = {
    GemsTaken: "action",
    CardReserved: "action",
    CardBought: "action",
    TurnPassed: "action",
    TokensReturned: "return",
    NobleChosen: "noble",
}


@concerns(SetupDealt, CardRevealed, NobleRevealed)
def check_table_entry(state: State, event: Event) -> Ruling | Allowed | None:
    """The deal and the cards turned up: each only when it is expected, and never out of turn or pending."""
    kind = type(event)
    if kind is SetupDealt:
        if state.phase != "setup" or state.mode != "open":
            return illegal(
                "splendor.reveal.not-expected", "the deal is only recorded once, at the start of an open-mode game"
            )
        return ALLOWED
    if kind is CardRevealed or kind is NobleRevealed:
        if state.mode == "open":
            return illegal("splendor.reveal.not-expected", "in open mode tally turns cards up from the recorded deal")
        if state.phase not in ("setup", "reveal"):
            return illegal("splendor.reveal.not-expected", f"nothing is waiting to be turned up; {_expected(state)}")
        return ALLOWED
    return None


# in the action phase an action always fits, and in any other phase the kernel's `Pending` has answered first
@concerns(TokensReturned, NobleChosen)
def check_owed(state: State, event: Event) -> Ruling | None:
    """A return or a noble asked for in the action step, when the turn owes neither."""
    if state.phase != _PHASE_OF[type(event)]:
        return _not_owed(state, event)
    return None


def _fits_step(state: State, event: Event) -> bool:
    return state.phase == _PHASE_OF[type(event)]


# the turn: the table's entries, then the setup, a card to reveal, a return or a noble pending (kernel), what is
# not owed, and whose move it is (kernel)
TURN = (
    seat_names_own_cards(unnamed),
    check_table_entry,
    Pending[State](
        ("setup",), "splendor.setup.incomplete", lambda state, event: f"the setup is not complete: {_expected(state)}"
    ),
    Pending[State](
        ("reveal", "return", "noble"),
        "splendor.turn.pending",
        lambda state, event: f"{_expected(state)} first",
        facts=lambda state: {"phase": state.phase},
        settles=_fits_step,
    ),
    check_owed,
    OutOfTurn[State](lambda state, player: f"it is {state.player_name}'s turn, not {player}'s"),
)


def _not_owed(state: State, event: Event) -> Ruling:
    """A return or a noble asked for when the turn owes neither: say so, not what the turn is for."""
    who = getattr(event, "player", "")
    if type(event) is TokensReturned:
        held = sum(state.players[state.seats.index(who)].tokens) if who in state.seats else 0
        return illegal(
            "splendor.tokens.return",
            f"no return is owed: tokens are returned only at the end of a turn above {TOKEN_LIMIT} "
            f"({who} holds {held}); {_expected(state)}",
            held=held,
            limit=TOKEN_LIMIT,
        )
    return illegal(
        "splendor.noble.not-qualified",
        f"no noble is due: a noble visits only at the end of a turn, when the bonuses meet its requirement; {_expected(state)}",
        noble=getattr(event, "noble", ""),
    )


def _where(state: State, card: str) -> str:
    """Where the log has placed a card: face up, bought by someone, or reserved by someone."""
    place = find_on_board(state, card)
    if place is not None:
        return f"it is face up in level {place[0] + 1}, slot {place[1] + 1}"
    for name, seat in zip(state.seats, state.players):
        if card in seat.cards:
            return f"{name} bought it"
        if card in known_reserves(seat):
            return f"{name} reserved it"
    return "it is placed already"


def check_setup(state: State, event: SetupDealt) -> Ruling | None:
    wanted = state.nobles_wanted
    if len(event.nobles) != wanted or len(set(event.nobles)) != wanted or any(n not in NOBLES for n in event.nobles):
        return illegal("splendor.setup.deal", f"the deal needs {wanted} different nobles", nobles=event.nobles)
    if len(event.decks) != 3:
        return illegal("splendor.setup.deal", "the deal needs 3 decks")
    for lvl, deck in enumerate(event.decks):
        # as many cards as the level has and every one of them: each exactly once (no sort of either, per log read)
        if len(deck) != len(LEVEL_CARDS[lvl]) or set(deck) != set(LEVEL_CARDS[lvl]):
            return illegal("splendor.setup.deal", f"deck {lvl + 1} must hold each level-{lvl + 1} card exactly once")
    return None


def check_reveal(state: State, event: CardRevealed) -> Ruling | None:
    card = CARDS.get(event.card)
    if card is None:
        return illegal("splendor.reveal.impossible", f"there is no card {event.card!r}", card=event.card)
    lvl = card.level - 1
    if state.phase == "setup":
        if None not in state.board[lvl]:
            return illegal(
                "splendor.reveal.impossible", f"level {card.level} already has 4 face-up cards", card=event.card
            )
    elif state.gap is None or state.gap[0] != lvl:
        want = state.gap[0] + 1 if state.gap else "?"
        return illegal(
            "splendor.reveal.impossible",
            f"the gap is in level {want}, but {event.card} is a level-{card.level} card",
            card=event.card,
        )
    if event.card in located(state):
        return illegal(
            "splendor.reveal.impossible",
            f"{event.card} cannot turn up: there is one copy of each card, and {_where(state, event.card)}",
            card=event.card,
        )
    return None


def check_noble_reveal(state: State, event: NobleRevealed) -> Ruling | None:
    if state.phase != "setup" or len(state.nobles) >= state.nobles_wanted:
        return illegal("splendor.reveal.not-expected", f"all {state.nobles_wanted} nobles are already laid out")
    if event.noble not in NOBLES:
        return illegal("splendor.reveal.impossible", f"there is no noble {event.noble!r}", noble=event.noble)
    if event.noble in state.nobles:
        return illegal("splendor.reveal.impossible", f"noble {event.noble} is already laid out", noble=event.noble)
    return None


_TAKES: dict[tuple[str, ...], tuple[int, ...]] = {}  # a memo: the gems a take names -> their shape (`_take_shape`)
_TAKES_LIMIT = 4096


def _take_shape(gems: tuple[str, ...]) -> tuple[int, ...]:
    """The colour indices of a take that may be legal by its piles alone: 3 different gems, 2 of one gem, or 1 or 2
    different gems (`take-fewer`); () for anything else (gold, no gem, too many, a repeat), which the full check
    explains. Remembered, as the same few takes recur in every log."""
    indices = tuple(INDEX.get(gem, GOLD) for gem in gems)
    fits = GOLD not in indices and (len(indices) in (1, 2) or (len(indices) == 3 and len(set(indices)) == 3))
    shape = indices if fits else ()
    if len(_TAKES) < _TAKES_LIMIT:
        _TAKES[gems] = shape
    return shape


def check_take(state: State, event: GemsTaken) -> Ruling | None:
    gems = tuple(event.gems)
    shape = _TAKES.get(gems)
    if shape is None:
        shape = _take_shape(gems)
    # the usual take, legal when its piles allow it (a token in each, 4 for a pair); the full check explains the rest
    bank = state.bank
    n = len(shape)
    if n == 3:
        i, j, k = shape
        if bank[i] and bank[j] and bank[k]:
            return None
    elif n == 2 and shape[0] == shape[1]:
        if bank[shape[0]] >= 4:
            return None
    elif n and bank[shape[0]] and bank[shape[-1]]:  # 1 or 2 different: legal under `take-fewer` alone
        option = state.take_fewer
        if option == "always" or (option == "when-short" and n == 5 - bank[:5].count(0)):
            return None
    return _check_take_in_full(state, event)


def _check_take_in_full(state: State, event: GemsTaken) -> Ruling | None:
    who = event.player
    counts = token_counts(event.gems)
    if counts is None:
        return illegal("splendor.take.shape", f"{who} named a token that does not exist: {event.gems}", gems=event.gems)
    n = len(event.gems)
    if n == 0 or n > 3:
        # Before the colours: four or more tokens break the shape of a take whatever their colours are.
        return illegal("splendor.take.shape", f"{who} cannot take {n} tokens: a take is 3 different or 2 of one colour")
    if counts[GOLD]:
        return illegal("splendor.take.no-gold", f"{who} cannot take gold as a gem: gold only comes with a reserve")
    bank = state.bank
    for i in range(5) if 0 in bank else ():  # a pile runs dry late in a game, if ever
        if counts[i] and bank[i] == 0:
            return illegal(
                "splendor.take.empty-pile", f"{who} cannot take {COLOUR_NAMES[i]}: the pile is empty", colour=GEMS[i]
            )
    distinct = 6 - counts.count(0)
    if n == 2 and distinct == 1:
        i = counts.index(2)
        if bank[i] < 4:
            return illegal(
                "splendor.take.two-needs-four",
                f"{who} cannot take 2 {COLOUR_NAMES[i]}: {bank[i]} {COLOUR_NAMES[i]} left, needs at least 4",
                colour=GEMS[i],
                left=bank[i],
                needs=4,
            )
        return None
    if distinct != n:
        return illegal(
            "splendor.take.three-different",
            f"{who} cannot take {' '.join(event.gems)}: 3 tokens must be 3 different colours",
            gems=event.gems,
        )
    if n == 3:
        return None
    available = sum(1 for i in range(5) if bank[i])
    if state.take_fewer == "always" or (state.take_fewer == "when-short" and n == available):
        return None
    if state.take_fewer == "never":
        limit = "this table plays take-fewer=never"
    else:
        limit = f"{available} colours are left, so take-fewer=when-short requires taking {min(available, 3)}"
    return illegal(
        "splendor.take.fewer-colours",
        f"{who} cannot take only {n} different: {limit}",
        taken=n,
        available=available,
        option=state.take_fewer,
    )


def check_reserve(state: State, event: CardReserved) -> Ruling | None:
    who = event.player
    seat = state.player
    if len(seat.reserved) >= RESERVE_LIMIT:
        return illegal(
            "splendor.reserve.limit",
            f"{who} cannot reserve: already holds {len(seat.reserved)} reserved cards, the limit is {RESERVE_LIMIT}",
            held=len(seat.reserved),
            limit=RESERVE_LIMIT,
        )
    if event.level is None:
        if event.card is None or event.card not in CARDS or find_on_board(state, event.card) is None:
            return illegal(
                "splendor.reserve.not-face-up", f"{who} cannot reserve {event.card}: it is not face up", card=event.card
            )
        return None
    if event.level not in (1, 2, 3):
        return illegal("splendor.reserve.empty-deck", f"there is no level-{event.level} deck", level=event.level)
    lvl = event.level - 1
    if state.deck_size[lvl] == 0:
        return illegal(
            "splendor.reserve.empty-deck",
            f"{who} cannot reserve blind from level {event.level}: the deck is empty",
            level=event.level,
        )
    top = deck_top(state, lvl)
    if top is not None:
        if event.card != top:
            return illegal(
                "splendor.reserve.wrong-card",
                f"the top of the level-{event.level} deck is {top}, not {event.card}",
                card=event.card,
                top=top,
            )
    elif event.card is not None:
        if event.card not in CARDS or CARDS[event.card].level != event.level or event.card in located(state):
            return illegal(
                "splendor.reserve.wrong-card",
                f"{event.card} cannot be the top of the level-{event.level} deck: it is not an unlocated level-{event.level} card",
                card=event.card,
            )
    return None


def check_buy(state: State, event: CardBought) -> list[Ruling] | None:
    who = event.player
    seat = state.player
    card = CARDS.get(event.card)
    if card is None:
        return [illegal("splendor.buy.not-available", f"there is no card {event.card!r}", card=event.card)]
    notes: list[Ruling] | None = None  # unverifiable notes, made when there is one
    if event.card not in state.board[card.level - 1]:  # not face up (`find_on_board`, in C)
        i = reserve_entry_for(seat, event.card)
        if i is None or (seat.reserved[i][0] == "?" and event.card in located(state)):
            return [
                illegal(
                    "splendor.buy.not-available",
                    f"{who} cannot buy {event.card}: it is neither face up nor reserved by {who}",
                    card=event.card,
                )
            ]
        if seat.reserved[i][0] == "?" and not _is_held_for_sure(state, seat.reserved[i]):
            notes = [
                unverifiable(
                    "splendor.buy.blind-reserve",
                    f"{who} buys {event.card} as the level-{card.level} card reserved blind; "
                    "the log never saw that card, so it cannot confirm this is the one",
                    card=event.card,
                )
            ]
    # what each gem still costs after bonuses (`needed`), and what the gems held leave to gold: one pass, in locals
    cw, cb, cg, cr, ck = card.cost
    bw, bb, bg, br, bk = seat.bonus
    tokens = seat.tokens
    tw, tb, tg, tr, tk, gold = tokens
    nw, nb, ng, nr, nk = (
        cw - bw if cw > bw else 0,
        cb - bb if cb > bb else 0,
        cg - bg if cg > bg else 0,
        cr - br if cr > br else 0,
        ck - bk if ck > bk else 0,
    )
    paid = token_counts(event.paid)
    if paid is not None:
        pw, pb, pg, pr, pk, py = paid
        # the usual case: an exact payment from tokens held (no gem overpaid, so gold then covers exactly what the
        # gems leave open), which proves the card affordable (what the gems held cannot cover is at most what the
        # gems paid leave to gold); the slow path below explains the rest, affordability first
        if (
            pw <= tw
            and pb <= tb
            and pg <= tg
            and pr <= tr
            and pk <= tk
            and py <= gold
            and pw <= nw
            and pb <= nb
            and pg <= ng
            and pr <= nr
            and pk <= nk
            and pw + pb + pg + pr + pk + py == nw + nb + ng + nr + nk
        ):
            return notes
    short = (
        (nw - tw if nw > tw else 0)
        + (nb - tb if nb > tb else 0)
        + (ng - tg if ng > tg else 0)
        + (nr - tr if nr > tr else 0)
        + (nk - tk if nk > tk else 0)
    )
    if short > gold:  # what gems cannot cover, gold must
        need = needed(card, seat)
        gaps = [max(0, need[i] - seat.tokens[i]) for i in range(5)]
        after = f"{gold} gold covers {gold} of them, {sum(gaps) - gold} still missing" if gold else "and holds no gold"
        return [
            illegal(
                "splendor.buy.cannot-afford",
                f"{who} cannot afford {event.card}: needs {describe_tokens(need)} after bonuses, "
                f"holds {describe_tokens(seat.tokens)}; short of {describe_tokens(gaps)}, {after}",
                card=event.card,
                needs=spell(need),
                holds=spell(seat.tokens),
                missing=sum(gaps) - gold,
            )
        ]
    need = needed(card, seat)
    problem = None
    if paid is None:
        problem = f"{event.paid} names a token that does not exist"
    else:
        over = [i for i in range(5) if paid[i] > need[i]]
        lacking = [i for i in range(6) if paid[i] > seat.tokens[i]]
        short = sum(need[i] - paid[i] for i in range(5))
        if over:
            problem = "overpays " + ", ".join(COLOUR_NAMES[i] for i in over)
        elif lacking:
            problem = "pays with tokens not held: " + ", ".join(COLOUR_NAMES[i] for i in lacking)
        elif short != paid[GOLD]:
            problem = f"gold must cover exactly the {short} the gems leave open, not {paid[GOLD]}"
    if problem:
        return [
            illegal(
                "splendor.buy.payment",
                f"{who}'s payment for {event.card} is wrong: {problem} (owes {describe_tokens(need)} after bonuses)",
                card=event.card,
                paid=event.paid,
                needs=spell(need),
            )
        ]
    return notes


def _is_held_for_sure(state: State, blind: str) -> bool:
    """Whether every card of the blind reserve's level that the log has not located lies in the current player's
    blind reserves (`blind`: `?L`): once that level's deck is used up and no one else holds a blind reserve of it,
    the box's one copy of each card settles that an unlocated card bought this way was held."""
    level = int(blind[1:])
    if state.deck_size[level - 1]:
        return False
    return not any(blind in other.reserved for i, other in enumerate(state.players) if i != state.current)


def check_return(state: State, event: TokensReturned) -> Ruling | None:
    seat = state.player
    tokens = seat.tokens
    tw, tb, tg, tr, tk, ty = tokens
    excess = tw + tb + tg + tr + tk + ty - TOKEN_LIMIT
    back = token_counts(event.tokens)
    if back is None or not (
        back[0] <= tw and back[1] <= tb and back[2] <= tg and back[3] <= tr and back[4] <= tk and back[5] <= ty
    ):
        return illegal(
            "splendor.tokens.return",
            f"{event.player} cannot return {' '.join(event.tokens)}: holds {describe_tokens(seat.tokens)}",
            tokens=event.tokens,
        )
    if len(event.tokens) != excess:
        return illegal(
            "splendor.tokens.return",
            f"{event.player} holds {sum(seat.tokens)} tokens and must return exactly {excess}, not {len(event.tokens)}",
            returned=len(event.tokens),
            excess=excess,
        )
    return None


def check_noble(state: State, event: NobleChosen) -> Ruling | None:
    qualifying = qualifying_nobles(state, state.player)
    if event.noble not in qualifying:
        return illegal(
            "splendor.noble.not-qualified",
            f"{event.player} cannot be visited by {event.noble}: qualifying nobles are {', '.join(qualifying)}",
            noble=event.noble,
            qualifying=qualifying,
        )
    return None


def check_pass(state: State, event: TurnPassed) -> Ruling | None:
    if state.stuck != "pass" or can_act(state, blind=False):
        why = "an action is possible" if state.stuck == "pass" else "this table plays stuck=end"
        return illegal("splendor.stuck.pass", f"{event.player} cannot pass: {why}")
    proved = blind_buy_proved(state)
    if proved is not None:
        level, mine, others = proved
        return illegal(
            "splendor.stuck.pass",
            f"{event.player} cannot pass: of the level-{level} cards the log has not "
            f"located only {others} could not be afforded, fewer than {event.player}'s {mine} blind "
            f"reserve{'s' if mine > 1 else ''} of that level, so one of them can be bought",
            level=level,
        )
    candidates = blind_buys(state)
    if candidates:
        return unverifiable(
            "splendor.stuck.pass",
            f"{event.player} passes holding a blind reserve the log never saw; it cannot confirm that the card "
            f"is none of the {len(candidates)} unlocated cards {event.player} could afford",
            candidates=candidates,
        )
    return None


# --------------------------------------------------------------------------- the guards in order, and the permit


GUARDS = Guards[State](
    "splendor",
    EVENTS,
    turn=TURN,
    over_facts=lambda state: {"ended": state.ended},
    # a refused action is also judged by its own rules, as if it were the player's turn with nothing owed
    supposing=Supposing(
        {GemsTaken: "action", CardReserved: "action", CardBought: "action", TurnPassed: "action"},
        cleared={"gap": None},
        not_in=("setup",),
    ),
)
GUARDS.on(SetupDealt, check_setup)
GUARDS.on(CardRevealed, check_reveal)
GUARDS.on(NobleRevealed, check_noble_reveal)
GUARDS.on(GemsTaken, check_take)
GUARDS.on(CardReserved, check_reserve)
GUARDS.on(CardBought, check_buy)
GUARDS.on(TokensReturned, check_return)
GUARDS.on(NobleChosen, check_noble)
GUARDS.on(TurnPassed, check_pass)
check = GUARDS.seal().check


def permit(state: State, event: Event) -> Ruling:
    """The rule that allows a legal event, for the ruling read out at the table."""
    if isinstance(event, GemsTaken):
        gems = event.gems
        if len(gems) == 2 and gems[0] == gems[1]:
            rule = "splendor.take.two-same"
        elif len(gems) == 3:
            rule = "splendor.take.three-different"
        else:
            rule = "splendor.take.fewer-colours"
        return legal(rule, f"{event.player} may take {' '.join(gems)}")
    if isinstance(event, CardReserved):
        rule = "splendor.reserve.face-up" if event.level is None else "splendor.reserve.blind"
        gold = " and take 1 gold" if state.bank[GOLD] else " (no gold left to take)"
        if event.level is None:
            what = f"reserve {event.card}"
        else:  # a ruling is read out at the table: it never names the card the others may not see
            what = f"reserve the top card of deck {event.level} unseen"
        return legal(rule, f"{event.player} may {what}{gold}")
    if isinstance(event, CardBought):
        return legal("splendor.buy.pay", f"{event.player} may {format_event(event).split(': ', 1)[1]}")
    if isinstance(event, TokensReturned):
        return legal(
            "splendor.tokens.limit", f"{event.player} returns {' '.join(event.tokens)} to get back to {TOKEN_LIMIT}"
        )
    if isinstance(event, NobleChosen):
        return legal("splendor.noble.choose", f"{event.player} may choose {event.noble}")
    if isinstance(event, TurnPassed):
        return legal("splendor.stuck.pass", f"{event.player} can do no action and passes")
    if isinstance(event, SetupDealt):
        return legal("splendor.setup.deal", "the deal is recorded")
    return legal(
        "splendor.refill" if state.phase == "reveal" else "splendor.setup.deal", f"{format_event(event)} is possible"
    )


def is_voidable(event: Event) -> bool:
    """A deal that tally made itself (open mode) is chance, not a recorder's mistake: it cannot be undone."""
    return type(event) is not SetupDealt
