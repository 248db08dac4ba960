"""Splendor (Marc André, 2014): events, state, rules, reducer, legal moves, view, notation.

Colours are indexed in the order w b g r k (white, blue, green, red, black) and y (gold) is 5.
A card is known by its face: `1k0-w1b1g1r1` is a level-1 black card worth 0 points costing
one white, blue, green and red. A noble is known by its requirement: `w4b4`.

Chance is data: in `open` mode the deal (`setup_dealt`) carries the shuffled decks and the
reducer turns cards up from them; in `table` mode the recorder enters every card turned up
(`card_revealed`) and a blind reserve stays unknown (`?2`) until it is bought.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement
from operator import add, le, sub
from typing import Any

import msgspec

from ..model import (
    Event,
    GameSpec,
    GameStarted,
    NotationError,
    Option,
    Outcome,
    RuleDoc,
    Ruling,
    illegal,
    legal,
    unverifiable,
)
from .splendor_data import CARDS as _CARD_TABLE
from .splendor_data import MANIFEST
from .splendor_data import NOBLES as _NOBLE_TABLE

COLOURS = "wbgrky"
GEMS = "wbgrk"
GOLD = 5
COLOUR_NAMES = ("white", "blue", "green", "red", "black", "gold")
INDEX = {c: i for i, c in enumerate(COLOURS)}
TOKEN_LIMIT = 10
RESERVE_LIMIT = 3
FACE_UP = 4
NOBLE_POINTS = 3
GEMS_PER_PLAYERS = {2: 4, 3: 5, 4: 7}
GOLD_TOKENS = 5


# --------------------------------------------------------------------------- components


class Card(msgspec.Struct, frozen=True):
    id: str
    level: int
    bonus: int
    points: int
    cost: tuple[int, int, int, int, int]


def _cost_code(cost: tuple[int, ...]) -> str:
    return "".join(f"{GEMS[i]}{n}" for i, n in enumerate(cost) if n)


def _read_cards(table: str) -> dict[str, Card]:
    cards = {}
    for line in table.strip().splitlines():
        level, bonus, points, *cost = line.split()
        costs = tuple(int(n) for n in cost)
        card_id = f"{level}{bonus}{points}-{_cost_code(costs)}"
        cards[card_id] = Card(card_id, int(level), INDEX[bonus], int(points), costs)  # type: ignore[arg-type]
    return cards


def _read_nobles(table: str) -> dict[str, tuple[int, ...]]:
    nobles = {}
    for line in table.strip().splitlines():
        fields = line.split()
        costs = tuple(int(n) for n in fields[1:6])
        nobles[_cost_code(costs)] = costs
    return nobles


CARDS: dict[str, Card] = _read_cards(_CARD_TABLE)
NOBLES: dict[str, tuple[int, ...]] = _read_nobles(_NOBLE_TABLE)
NOBLE_NAMES: dict[str, str] = {
    _cost_code(tuple(int(n) for n in line.split()[1:6])): " ".join(line.split()[6:])
    for line in _NOBLE_TABLE.strip().splitlines()
}
LEVEL_CARDS: tuple[tuple[str, ...], ...] = tuple(
    tuple(c for c, card in CARDS.items() if card.level == level) for level in (1, 2, 3)
)


# --------------------------------------------------------------------------- events


class SetupDealt(Event, tag="setup_dealt", frozen=True):
    """Open mode: the shuffled decks (top card first) and the nobles laid out."""

    nobles: list[str] = []
    decks: list[list[str]] = []


class CardRevealed(Event, tag="card_revealed", frozen=True):
    """Table mode: a card turned face up (at setup, or to fill the gap a bought/reserved card left)."""

    card: str = ""


class NobleRevealed(Event, tag="noble_revealed", frozen=True):
    """Table mode: a noble laid out at setup."""

    noble: str = ""


class GemsTaken(Event, tag="gems_taken", frozen=True):
    player: str = ""
    gems: list[str] = []


class CardReserved(Event, tag="card_reserved", frozen=True):
    """A reserve: face up (`card` set, `level` absent) or blind from a deck (`level` set; `card` absent if unseen)."""

    player: str = ""
    card: str | None = None
    level: int | None = None


class CardBought(Event, tag="card_bought", frozen=True):
    player: str = ""
    card: str = ""
    paid: list[str] = []


class TokensReturned(Event, tag="tokens_returned", frozen=True):
    player: str = ""
    tokens: list[str] = []


class NobleChosen(Event, tag="noble_chosen", frozen=True):
    player: str = ""
    noble: str = ""


class TurnPassed(Event, tag="turn_passed", frozen=True):
    player: str = ""


EVENTS: tuple[type[Event], ...] = (
    SetupDealt,
    CardRevealed,
    NobleRevealed,
    GemsTaken,
    CardReserved,
    CardBought,
    TokensReturned,
    NobleChosen,
    TurnPassed,
)
PLAYER_EVENTS = (GemsTaken, CardReserved, CardBought, TokensReturned, NobleChosen, TurnPassed)


# --------------------------------------------------------------------------- state


class Seat(msgspec.Struct, frozen=True):
    tokens: tuple[int, ...]  # 6: w b g r k y
    bonus: tuple[int, ...]  # 5
    cards: tuple[str, ...] = ()
    # face-up reserve: "1k0-..."; blind reserve known to the log: "~1k0-..."; blind and unseen: "?2"
    reserved: tuple[str, ...] = ()
    nobles: tuple[str, ...] = ()
    points: int = 0


class State(msgspec.Struct, frozen=True):
    seats: tuple[str, ...]
    mode: str
    take_fewer: str
    stuck: str
    target: int
    players: tuple[Seat, ...]
    bank: tuple[int, ...]
    board: tuple[tuple[str | None, ...], ...]  # 3 rows of 4 slots; None is an empty slot
    decks: tuple[tuple[str, ...], ...]  # open mode: the rest of each deck, top first
    deck_size: tuple[int, ...]
    nobles: tuple[str, ...]
    nobles_wanted: int
    current: int = 0
    phase: str = "setup"  # setup | action | reveal | return | noble | over
    gap: tuple[int, int] | None = None  # (level index, slot) waiting for a card_revealed
    passes: int = 0
    end_triggered: bool = False
    turns: int = 0
    ended: str = ""  # why the game is over: target | stuck | stalled

    @property
    def player(self) -> Seat:
        return self.players[self.current]

    @property
    def player_name(self) -> str:
        return self.seats[self.current]


def _with_player(state: State, index: int, seat: Seat, **changes: Any) -> State:
    players = list(state.players)
    players[index] = seat
    return msgspec.structs.replace(state, players=tuple(players), **changes)


def _reserve_card(entry: str) -> str | None:
    """The card id behind a reserve entry, or None when the log never saw it."""
    if entry[0] == "?":
        return None
    return entry[1:] if entry[0] == "~" else entry


def _located(state: State) -> set[str]:
    seen = {card for row in state.board for card in row if card}
    for seat in state.players:
        seen.update(seat.cards)
        seen.update(c for c in map(_reserve_card, seat.reserved) if c)
    return seen


def unlocated(state: State, level: int) -> list[str]:
    """Cards of `level` (1-3) that the log has not placed anywhere: the deck plus unseen reserves."""
    seen = _located(state)
    return [c for c in LEVEL_CARDS[level - 1] if c not in seen]


# --------------------------------------------------------------------------- rules text

RULES: tuple[RuleDoc, ...] = (
    RuleDoc("splendor.setup.deal", "Setup: shuffle each level's deck and turn 4 cards of each level face up; lay out one noble more than there are players. With 2 players use 4 gems of each colour, with 3 players 5, with 4 players 7; always 5 gold."),
    RuleDoc("splendor.setup.incomplete", "No one acts before the setup is complete: all 12 face-up cards and the nobles must be on the table."),
    RuleDoc("splendor.turn.order", "Players take turns in seat order, starting with the first seat; each turn is exactly one action: take gems, reserve a card, or buy a card."),
    RuleDoc("splendor.turn.out-of-turn", "Only the player whose turn it is (or who owes a return or a noble choice) may act."),
    RuleDoc("splendor.turn.pending", "An open obligation comes first: a card to turn up, tokens to return, or a noble to choose must be settled before anything else."),
    RuleDoc("splendor.turn.game-over", "Once the game has ended no further moves are made."),
    RuleDoc("splendor.take.three-different", "Take 3 gem tokens of different colours."),
    RuleDoc("splendor.take.two-same", "Take 2 gem tokens of the same colour."),
    RuleDoc("splendor.take.two-needs-four", "Taking 2 of one colour is only allowed if that pile holds at least 4 tokens before taking."),
    RuleDoc("splendor.take.empty-pile", "A token can only be taken from a pile that still holds one."),
    RuleDoc("splendor.take.no-gold", "Gold is never taken as a gem: it only comes with a reserve."),
    RuleDoc("splendor.take.shape", "A take is 3 different colours or 2 of the same colour; nothing else."),
    RuleDoc("splendor.take.fewer-colours", "Variant `take-fewer`: when fewer than 3 colours are left in the supply, whether a player may take one token of each colour that is left (default `when-short`: yes, and only then; `never`: no; `always`: 1 or 2 different colours at any time)."),
    RuleDoc("splendor.reserve.face-up", "Reserve a face-up card: take it into your hand and take 1 gold if any is left. Reserving is allowed when no gold is left."),
    RuleDoc("splendor.reserve.blind", "Reserve the top card of any level's deck without showing it to the others, and take 1 gold if any is left."),
    RuleDoc("splendor.reserve.limit", "A player may hold at most 3 reserved cards; reserved cards are never discarded, only bought."),
    RuleDoc("splendor.reserve.not-face-up", "Only a card lying face up on the table can be reserved face up."),
    RuleDoc("splendor.reserve.empty-deck", "A blind reserve needs a card in that level's deck."),
    RuleDoc("splendor.reserve.wrong-card", "A blind reserve is the top card of the deck: in open mode the log knows which card that is; in table mode a named card must still be unlocated."),
    RuleDoc("splendor.buy.pay", "Buy a face-up card or one of your reserved cards by paying its cost, reduced by your card bonuses; gold stands in for any colour; spent tokens return to the supply."),
    RuleDoc("splendor.buy.not-available", "Only a face-up card or a card you have reserved can be bought."),
    RuleDoc("splendor.buy.cannot-afford", "A card whose cost, after bonuses, is more than your gems and gold cannot be bought."),
    RuleDoc("splendor.buy.payment", "The payment must be exactly the cost after bonuses: no colour overpaid, gold exactly covering what the gems do not, and only tokens the player holds."),
    RuleDoc("splendor.buy.blind-reserve", "In table mode a blind reserve is unknown to everyone but its owner; when it is bought, the log cannot verify that it is the card that was reserved (only that such a card was still unlocated)."),
    RuleDoc("splendor.refill", "A bought or reserved face-up card is replaced at once from the same level's deck; an empty deck leaves a gap."),
    RuleDoc("splendor.reveal.not-expected", "A card or noble is turned up only at setup or to fill a gap left by a bought or reserved card."),
    RuleDoc("splendor.reveal.impossible", "A revealed card must still be possible: one copy of each card exists, so a card already on the table, bought or reserved cannot turn up again, and it must be of the level whose slot is being filled."),
    RuleDoc("splendor.tokens.limit", "At the end of the turn a player may hold at most 10 tokens, gold included; above that they return tokens of their choice (including ones just taken) down to exactly 10. Bonuses do not count."),
    RuleDoc("splendor.tokens.return", "A return gives back exactly the excess over 10, and only tokens the player holds."),
    RuleDoc("splendor.noble.visit", "At the end of the turn, a noble whose requirement the player's card bonuses meet visits automatically (worth 3 points); it is not an action. At most one noble per turn."),
    RuleDoc("splendor.noble.choose", "When several nobles qualify at the end of a turn the player chooses one; the others may come on a later turn."),
    RuleDoc("splendor.noble.not-qualified", "A chosen noble must be on the table and its requirement met by the player's bonuses."),
    RuleDoc("splendor.stuck.pass", "Variant `stuck`: a player who can do no action at all (the rulebook is silent) passes (default `pass`); under `end` the game ends at once. A pass is only allowed when no action is possible; in table mode, when the only possible action might be buying a blind reserve the log never saw, the pass is recorded as unverifiable."),
    RuleDoc("splendor.end.stalled", "If every player passes in one full round, nothing can change any more: the game ends and is scored as it stands."),
    RuleDoc("splendor.end.finish-round", "When a player reaches 15 prestige points (option `target`) at the end of their turn, the round is finished so that all players have had the same number of turns; then the game ends."),
    RuleDoc("splendor.end.winner", "Most prestige points wins; on a tie, the fewest development cards bought wins; still tied, the victory is shared."),
)
RULE_IDS = frozenset(r.id for r in RULES)


# --------------------------------------------------------------------------- helpers


_TOKEN_LETTERS = frozenset(COLOURS)
_COUNTED: dict[tuple[str, ...], tuple[int, ...] | None] = {}  # a memo: the same few token lists recur
_COUNTED_LIMIT = 4096


def _letters(tokens: list[str]) -> tuple[int, ...] | None:
    """Token letters as counts per colour (w b g r k y), or None if one is not a token."""
    key = tuple(tokens)
    try:
        return _COUNTED[key]
    except KeyError:
        pass
    counts = None
    if _TOKEN_LETTERS.issuperset(key):
        count = key.count
        counts = (count("w"), count("b"), count("g"), count("r"), count("k"), count("y"))
    if len(_COUNTED) < _COUNTED_LIMIT:
        _COUNTED[key] = counts
    return counts


def _spell(counts: tuple[int, ...] | list[int]) -> list[str]:
    return [COLOURS[i] for i, n in enumerate(counts) for _ in range(n)]


def _describe(counts: tuple[int, ...] | list[int]) -> str:
    parts = [f"{n} {COLOUR_NAMES[i]}" for i, n in enumerate(counts) if n]
    return ", ".join(parts) if parts else "nothing"


def _needed(card: Card, seat: Seat) -> list[int]:
    return [need if need > 0 else 0 for need in map(sub, card.cost, seat.bonus)]


def default_payment(card: Card, seat: Seat) -> list[int] | None:
    """Gems first, gold for the shortfall; None when the player cannot afford the card."""
    need = _needed(card, seat)
    tokens = seat.tokens
    pay = list(map(min, need, tokens))  # the five gems (need has no gold entry)
    short = sum(need) - sum(pay)
    if short > tokens[GOLD]:
        return None
    pay.append(short)
    return pay


# fewer bonuses than the smallest requirement cannot attract any noble: skip the per-noble test
_NOBLE_MINIMUM = min(sum(need) for need in NOBLES.values())


def _qualifying_nobles(state: State, seat: Seat) -> list[str]:
    if len(seat.cards) < _NOBLE_MINIMUM:  # one bonus per card bought: too few cards, no noble
        return []
    bonus = seat.bonus
    w, b, g, r, k = bonus
    found = []
    for n in state.nobles:
        need = NOBLES[n]
        if need[0] <= w and need[1] <= b and need[2] <= g and need[3] <= r and need[4] <= k:
            found.append(n)
    return found


def _available_colours(state: State) -> list[int]:
    return [i for i in range(5) if state.bank[i] > 0]


def _blind_buys(state: State) -> list[str]:
    """Unlocated cards the current player could afford, of the level of a blind reserve the log never saw.

    Any of them may be that reserve, so buying it may be possible: the log cannot tell.
    """
    seat = state.player
    levels = sorted({int(entry[1]) for entry in seat.reserved if entry[0] == "?"})
    return [c for lvl in levels for c in unlocated(state, lvl) if default_payment(CARDS[c], seat) is not None]


def _can_act(state: State, blind: bool = True) -> bool:
    """Whether the current player has any action (pass aside).

    An unseen blind reserve counts as a possible buy when some unlocated card of its level is affordable
    (`blind`); without `blind`, only the actions the log can verify count.
    """
    seat = state.player
    bank = state.bank
    available = sum(1 for i in range(5) if bank[i] > 0)
    if available >= 3 or (available and state.take_fewer != "never") or any(bank[i] >= 4 for i in range(5)):
        return True
    if len(seat.reserved) < RESERVE_LIMIT and (
        any(c for row in state.board for c in row) or any(state.deck_size)
    ):
        return True
    for row in state.board:
        for c in row:
            if c and default_payment(CARDS[c], seat) is not None:
                return True
    for entry in seat.reserved:
        card = _reserve_card(entry)
        if card is not None and default_payment(CARDS[card], seat) is not None:
            return True
    return blind and bool(_blind_buys(state))


# --------------------------------------------------------------------------- reducer


def start(started: GameStarted) -> State:
    n = len(started.seats)
    gems = GEMS_PER_PLAYERS[n]
    options = Splendor.resolved_options(SPLENDOR, started.options)
    return State(
        seats=tuple(started.seats),
        mode=started.mode,
        take_fewer=options["take-fewer"],
        stuck=options["stuck"],
        target=int(options["target"]),
        players=tuple(Seat((0,) * 6, (0,) * 5) for _ in range(n)),
        bank=(gems,) * 5 + (GOLD_TOKENS,),
        board=((None,) * FACE_UP,) * 3,
        decks=((), (), ()),
        deck_size=tuple(len(cards) for cards in LEVEL_CARDS),
        nobles=(),
        nobles_wanted=n + 1,
    )


def _setup_complete(state: State) -> bool:
    return len(state.nobles) == state.nobles_wanted and all(c for row in state.board for c in row)


def _apply_setup(state: State, event: SetupDealt) -> State:
    board = tuple(tuple(deck[:FACE_UP]) for deck in event.decks)
    decks = tuple(tuple(deck[FACE_UP:]) for deck in event.decks)
    return msgspec.structs.replace(
        state,
        board=board,
        decks=decks,
        deck_size=tuple(len(d) for d in decks),
        nobles=tuple(event.nobles),
        phase="action",
    )


def _apply_reveal(state: State, event: CardRevealed) -> State:
    card = CARDS[event.card]
    lvl = card.level - 1
    if state.phase == "setup":
        row = list(state.board[lvl])
        row[row.index(None)] = event.card
        sizes = list(state.deck_size)
        sizes[lvl] -= 1
        board = list(state.board)
        board[lvl] = tuple(row)
        state = msgspec.structs.replace(state, board=tuple(board), deck_size=tuple(sizes))
        if _setup_complete(state):
            state = msgspec.structs.replace(state, phase="action")
        return state
    # filling the gap left by this turn's action
    assert state.gap is not None
    lvl, slot = state.gap
    board = _set_slot(state.board, lvl, slot, event.card)
    sizes = list(state.deck_size)
    sizes[lvl] -= 1
    state = msgspec.structs.replace(state, board=board, deck_size=tuple(sizes), gap=None)
    return _end_of_turn(state)


def _apply_noble_reveal(state: State, event: NobleRevealed) -> State:
    state = msgspec.structs.replace(state, nobles=state.nobles + (event.noble,))
    if _setup_complete(state):
        state = msgspec.structs.replace(state, phase="action")
    return state


def _set_slot(board: tuple, lvl: int, slot: int, card: str | None) -> tuple:
    row = list(board[lvl])
    row[slot] = card
    rows = list(board)
    rows[lvl] = tuple(row)
    return tuple(rows)


def _take_from_board(state: State, lvl: int, slot: int) -> State:
    """Remove a face-up card and refill the slot: from the known deck (open) or by a pending reveal (table)."""
    if state.decks[lvl]:
        deck = state.decks[lvl]
        decks = list(state.decks)
        decks[lvl] = deck[1:]
        sizes = list(state.deck_size)
        sizes[lvl] -= 1
        return msgspec.structs.replace(
            state, board=_set_slot(state.board, lvl, slot, deck[0]), decks=tuple(decks), deck_size=tuple(sizes)
        )
    board = _set_slot(state.board, lvl, slot, None)
    if state.deck_size[lvl]:
        return msgspec.structs.replace(state, board=board, gap=(lvl, slot), phase="reveal")
    return msgspec.structs.replace(state, board=board)


def _find_on_board(state: State, card: str) -> tuple[int, int] | None:
    lvl = CARDS[card].level - 1
    row = state.board[lvl]
    for slot in range(FACE_UP):
        if row[slot] == card:
            return lvl, slot
    return None


def _apply_take(state: State, event: GemsTaken) -> State:
    seat = state.players[state.current]
    taken = _letters(event.gems)
    seat = msgspec.structs.replace(seat, tokens=tuple(map(add, seat.tokens, taken)))  # type: ignore[arg-type]
    bank = tuple(map(sub, state.bank, taken))  # type: ignore[arg-type]
    return _end_of_turn(_with_player(state, state.current, seat, bank=bank, passes=0))


def _apply_reserve(state: State, event: CardReserved) -> State:
    seat = state.player
    bank = state.bank
    tokens = seat.tokens
    if bank[GOLD]:
        bank = bank[:GOLD] + (bank[GOLD] - 1,)
        tokens = tokens[:GOLD] + (tokens[GOLD] + 1,)
    if event.level is None:
        assert event.card is not None
        entry = event.card
        lvl, slot = _find_on_board(state, event.card)  # type: ignore[misc]
        state = _take_from_board(state, lvl, slot)
    else:
        lvl = event.level - 1
        decks = list(state.decks)
        if decks[lvl]:
            decks[lvl] = decks[lvl][1:]
        sizes = list(state.deck_size)
        sizes[lvl] -= 1
        entry = f"~{event.card}" if event.card else f"?{event.level}"
        state = msgspec.structs.replace(state, decks=tuple(decks), deck_size=tuple(sizes))
    seat = msgspec.structs.replace(seat, tokens=tokens, reserved=seat.reserved + (entry,))
    state = _with_player(state, state.current, seat, bank=bank, passes=0)
    return state if state.gap else _end_of_turn(state)


def _reserve_entry_for(seat: Seat, card: str) -> int | None:
    """Index of the reserve entry `card` buys: the known entry, else an unseen blind reserve of its level."""
    for i, entry in enumerate(seat.reserved):
        if entry == card or entry == f"~{card}":
            return i
    unseen = f"?{CARDS[card].level}"
    for i, entry in enumerate(seat.reserved):
        if entry == unseen:
            return i
    return None


def _apply_buy(state: State, event: CardBought) -> State:
    card = CARDS[event.card]
    seat = state.players[state.current]
    paid = _letters(event.paid) or (0,) * 6
    tokens = tuple(map(sub, seat.tokens, paid))
    bank = tuple(map(add, state.bank, paid))
    bonus = list(seat.bonus)
    bonus[card.bonus] += 1
    where = _find_on_board(state, event.card)
    reserved = seat.reserved
    if where is not None:
        state = _take_from_board(state, *where)
    else:
        i = _reserve_entry_for(seat, event.card)
        assert i is not None
        reserved = reserved[:i] + reserved[i + 1 :]
    seat = Seat(tokens, tuple(bonus), seat.cards + (event.card,), reserved, seat.nobles, seat.points + card.points)
    state = _with_player(state, state.current, seat, bank=bank, passes=0)
    return state if state.gap else _end_of_turn(state)


def _apply_return(state: State, event: TokensReturned) -> State:
    seat = state.players[state.current]
    back = _letters(event.tokens) or (0,) * 6
    seat = msgspec.structs.replace(seat, tokens=tuple(map(sub, seat.tokens, back)))
    bank = tuple(map(add, state.bank, back))
    return _nobles_then_next(_with_player(state, state.current, seat, bank=bank))


def _visit(state: State, noble: str) -> State:
    seat = state.player
    seat = msgspec.structs.replace(seat, nobles=seat.nobles + (noble,), points=seat.points + NOBLE_POINTS)
    nobles = tuple(n for n in state.nobles if n != noble)
    return _with_player(state, state.current, seat, nobles=nobles)


def _apply_noble(state: State, event: NobleChosen) -> State:
    return _next_turn(_visit(state, event.noble))


def _apply_pass(state: State, event: TurnPassed) -> State:
    state = msgspec.structs.replace(state, passes=state.passes + 1)
    if state.passes >= len(state.seats):
        return msgspec.structs.replace(state, phase="over", ended="stalled", turns=state.turns + 1)
    return _next_turn(state)


def _end_of_turn(state: State) -> State:
    if sum(state.players[state.current].tokens) > TOKEN_LIMIT:
        return msgspec.structs.replace(state, phase="return")
    return _nobles_then_next(state)


def _nobles_then_next(state: State) -> State:
    qualifying = _qualifying_nobles(state, state.players[state.current]) if state.nobles else ()
    if len(qualifying) == 1:
        state = _visit(state, qualifying[0])
    elif qualifying:
        return msgspec.structs.replace(state, phase="noble")
    return _next_turn(state)


def _next_turn(state: State) -> State:
    end = state.end_triggered or state.players[state.current].points >= state.target
    following = (state.current + 1) % len(state.seats)
    turns = state.turns + 1
    if end and following == 0:
        return msgspec.structs.replace(state, phase="over", end_triggered=True, turns=turns, ended="target")
    state = msgspec.structs.replace(state, current=following, phase="action", end_triggered=end, turns=turns)
    if state.stuck == "end" and not _can_act(state):
        return msgspec.structs.replace(state, phase="over", ended="stuck")
    return state


_APPLY = {
    SetupDealt: _apply_setup,
    CardRevealed: _apply_reveal,
    NobleRevealed: _apply_noble_reveal,
    GemsTaken: _apply_take,
    CardReserved: _apply_reserve,
    CardBought: _apply_buy,
    TokensReturned: _apply_return,
    NobleChosen: _apply_noble,
    TurnPassed: _apply_pass,
}


# --------------------------------------------------------------------------- checks (one small guard per rule id)


def _expected(state: State) -> str:
    return Splendor.to_act(SPLENDOR, state)[1]


_PHASE_OF = {
    GemsTaken: "action",
    CardReserved: "action",
    CardBought: "action",
    TurnPassed: "action",
    TokensReturned: "return",
    NobleChosen: "noble",
}


def check_turn(state: State, event: Event) -> Ruling | None:
    if state.phase == "over":
        return illegal("splendor.turn.game-over", "the game is over: no more moves", ended=state.ended)
    kind = type(event)
    if kind is SetupDealt:
        if state.phase != "setup" or state.mode != "open":
            return illegal("splendor.reveal.not-expected", "the deal is only recorded once, at the start of an open-mode game")
        return None
    if kind is CardRevealed or kind is NobleRevealed:
        if state.mode == "open":
            return illegal("splendor.reveal.not-expected", "in open mode tally turns cards up from the recorded deal")
        if state.phase not in ("setup", "reveal"):
            return illegal("splendor.reveal.not-expected", f"nothing is waiting to be turned up; {_expected(state)}")
        return None
    if state.phase == "setup":
        return illegal("splendor.setup.incomplete", f"the setup is not complete: {_expected(state)}")
    player = getattr(event, "player", "")
    wanted = _PHASE_OF[kind]
    if state.phase != wanted:
        return illegal("splendor.turn.pending", f"{_expected(state)} first", phase=state.phase)
    if player != state.player_name:
        return illegal(
            "splendor.turn.out-of-turn",
            f"it is {state.player_name}'s turn, not {player}'s",
            player=player,
            current=state.player_name,
        )
    return None


def check_setup(state: State, event: SetupDealt) -> Ruling | None:
    wanted = state.nobles_wanted
    if len(event.nobles) != wanted or len(set(event.nobles)) != wanted or any(n not in NOBLES for n in event.nobles):
        return illegal("splendor.setup.deal", f"the deal needs {wanted} different nobles", nobles=event.nobles)
    if len(event.decks) != 3:
        return illegal("splendor.setup.deal", "the deal needs 3 decks")
    for lvl, deck in enumerate(event.decks):
        if sorted(deck) != sorted(LEVEL_CARDS[lvl]):
            return illegal("splendor.setup.deal", f"deck {lvl + 1} must hold each level-{lvl + 1} card exactly once")
    return None


def check_reveal(state: State, event: CardRevealed) -> Ruling | None:
    card = CARDS.get(event.card)
    if card is None:
        return illegal("splendor.reveal.impossible", f"there is no card {event.card!r}", card=event.card)
    lvl = card.level - 1
    if state.phase == "setup":
        if None not in state.board[lvl]:
            return illegal("splendor.reveal.impossible", f"level {card.level} already has 4 face-up cards", card=event.card)
    elif state.gap is None or state.gap[0] != lvl:
        want = state.gap[0] + 1 if state.gap else "?"
        return illegal(
            "splendor.reveal.impossible",
            f"the gap is in level {want}, but {event.card} is a level-{card.level} card",
            card=event.card,
        )
    if event.card in _located(state):
        return illegal(
            "splendor.reveal.impossible",
            f"{event.card} cannot turn up: its only copy is already on the table, bought or reserved",
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


def check_take(state: State, event: GemsTaken) -> Ruling | None:
    who = event.player
    counts = _letters(event.gems)
    if counts is None:
        return illegal("splendor.take.shape", f"{who} named a token that does not exist: {event.gems}", gems=event.gems)
    if counts[GOLD]:
        return illegal("splendor.take.no-gold", f"{who} cannot take gold as a gem: gold only comes with a reserve")
    bank = state.bank
    for i in range(5):
        if counts[i] and bank[i] == 0:
            return illegal(
                "splendor.take.empty-pile", f"{who} cannot take {COLOUR_NAMES[i]}: the pile is empty", colour=GEMS[i]
            )
    n = len(event.gems)
    distinct = sum(1 for c in counts if c)
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
    if n == 0 or n > 3:
        return illegal("splendor.take.shape", f"{who} cannot take {n} tokens: a take is 3 different or 2 of one colour")
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
        if event.card is None or event.card not in CARDS or _find_on_board(state, event.card) is None:
            return illegal(
                "splendor.reserve.not-face-up", f"{who} cannot reserve {event.card}: it is not face up", card=event.card
            )
        return None
    if event.level not in (1, 2, 3):
        return illegal("splendor.reserve.empty-deck", f"there is no level-{event.level} deck", level=event.level)
    lvl = event.level - 1
    if state.deck_size[lvl] == 0:
        return illegal(
            "splendor.reserve.empty-deck", f"{who} cannot reserve blind from level {event.level}: the deck is empty",
            level=event.level,
        )
    if state.decks[lvl]:
        top = state.decks[lvl][0]
        if event.card != top:
            return illegal(
                "splendor.reserve.wrong-card",
                f"the top of the level-{event.level} deck is {top}, not {event.card}",
                card=event.card,
                top=top,
            )
    elif event.card is not None:
        if event.card not in CARDS or CARDS[event.card].level != event.level or event.card in _located(state):
            return illegal(
                "splendor.reserve.wrong-card",
                f"{event.card} cannot be the top of the level-{event.level} deck: it is not an unlocated level-{event.level} card",
                card=event.card,
            )
    return None


def check_buy(state: State, event: CardBought) -> list[Ruling]:
    who = event.player
    seat = state.player
    card = CARDS.get(event.card)
    if card is None:
        return [illegal("splendor.buy.not-available", f"there is no card {event.card!r}", card=event.card)]
    notes: list[Ruling] = []
    if _find_on_board(state, event.card) is None:
        i = _reserve_entry_for(seat, event.card)
        if i is None or (seat.reserved[i][0] == "?" and event.card in _located(state)):
            return [
                illegal(
                    "splendor.buy.not-available",
                    f"{who} cannot buy {event.card}: it is neither face up nor reserved by {who}",
                    card=event.card,
                )
            ]
        if seat.reserved[i][0] == "?":
            notes.append(
                unverifiable(
                    "splendor.buy.blind-reserve",
                    f"{who} buys {event.card} as the level-{card.level} card reserved blind; "
                    "the log never saw that card, so it cannot confirm this is the one",
                    card=event.card,
                )
            )
    need = _needed(card, seat)
    if sum(need) - sum(map(min, need, seat.tokens)) > seat.tokens[GOLD]:  # what gems cannot cover, gold must
        short = sum(max(0, need[i] - seat.tokens[i]) for i in range(5))
        return [
            illegal(
                "splendor.buy.cannot-afford",
                f"{who} cannot afford {event.card}: needs {_describe(need)} after bonuses, "
                f"holds {_describe(seat.tokens)} ({short} short, {seat.tokens[GOLD]} gold)",
                card=event.card,
                needs=_spell(need),
                holds=_spell(seat.tokens),
            )
        ]
    paid = _letters(event.paid)
    tokens = seat.tokens
    if (
        paid is not None
        and all(map(le, paid, tokens))
        and all(map(le, paid, need))  # stops at the 5 gems: need has no gold entry
        and sum(paid) == sum(need)  # with no gem overpaid, gold then covers exactly what the gems leave open
    ):
        return notes  # the usual case: an exact payment from tokens held; the slow path below explains the rest
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
                f"{who}'s payment for {event.card} is wrong: {problem} (owes {_describe(need)} after bonuses)",
                card=event.card,
                paid=event.paid,
                needs=_spell(need),
            )
        ]
    return notes


def check_return(state: State, event: TokensReturned) -> Ruling | None:
    seat = state.player
    excess = sum(seat.tokens) - TOKEN_LIMIT
    back = _letters(event.tokens)
    if back is None or any(back[i] > seat.tokens[i] for i in range(6)):
        return illegal(
            "splendor.tokens.return",
            f"{event.player} cannot return {' '.join(event.tokens)}: holds {_describe(seat.tokens)}",
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
    qualifying = _qualifying_nobles(state, state.player)
    if event.noble not in qualifying:
        return illegal(
            "splendor.noble.not-qualified",
            f"{event.player} cannot be visited by {event.noble}: qualifying nobles are {', '.join(qualifying)}",
            noble=event.noble,
            qualifying=qualifying,
        )
    return None


def check_pass(state: State, event: TurnPassed) -> Ruling | None:
    if state.stuck != "pass" or _can_act(state, blind=False):
        why = "an action is possible" if state.stuck == "pass" else "this table plays stuck=end"
        return illegal("splendor.stuck.pass", f"{event.player} cannot pass: {why}")
    candidates = _blind_buys(state)
    if candidates:
        return unverifiable(
            "splendor.stuck.pass",
            f"{event.player} passes holding a blind reserve the log never saw; it cannot confirm that the card "
            f"is none of the {len(candidates)} unlocated cards {event.player} could afford",
            candidates=candidates,
        )
    return None


_CHECK = {
    SetupDealt: check_setup,
    CardRevealed: check_reveal,
    NobleRevealed: check_noble_reveal,
    GemsTaken: check_take,
    CardReserved: check_reserve,
    TokensReturned: check_return,
    NobleChosen: check_noble,
    TurnPassed: check_pass,
}


# --------------------------------------------------------------------------- legal moves


def _take_moves(state: State, who: str) -> list[Event]:
    bank = state.bank
    available = [i for i in range(5) if bank[i]]
    moves: list[Event] = []
    k = len(available)
    if k >= 3:
        moves.extend(GemsTaken(player=who, gems=[GEMS[a], GEMS[b], GEMS[c]]) for a, b, c in combinations(available, 3))
    if state.take_fewer == "always" or (state.take_fewer == "when-short" and 0 < k < 3):
        sizes = range(1, min(k, 2) + 1) if state.take_fewer == "always" else (k,)
        for size in sizes:
            moves.extend(GemsTaken(player=who, gems=[GEMS[i] for i in combo]) for combo in combinations(available, size))
    moves.extend(GemsTaken(player=who, gems=[GEMS[i], GEMS[i]]) for i in range(5) if bank[i] >= 4)
    return moves


def _action_moves(state: State) -> list[Event]:
    who = state.player_name
    seat = state.player
    moves = _take_moves(state, who)
    if len(seat.reserved) < RESERVE_LIMIT:
        moves.extend(CardReserved(player=who, card=c) for row in state.board for c in row if c)
        for lvl in range(3):
            if state.deck_size[lvl]:
                top = state.decks[lvl][0] if state.decks[lvl] else None
                moves.append(CardReserved(player=who, card=top, level=lvl + 1))
    owned = [c for row in state.board for c in row if c] + [
        c for c in map(_reserve_card, seat.reserved) if c is not None
    ]
    for c in owned:
        pay = default_payment(CARDS[c], seat)
        if pay is not None:
            moves.append(CardBought(player=who, card=c, paid=_spell(pay)))
    if not moves and state.stuck == "pass":
        moves.append(TurnPassed(player=who))
    return moves


def _return_moves(state: State) -> list[Event]:
    seat = state.player
    excess = sum(seat.tokens) - TOKEN_LIMIT
    held = [i for i in range(6) if seat.tokens[i]]
    moves = []
    for combo in combinations_with_replacement(held, excess):
        if all(combo.count(i) <= seat.tokens[i] for i in set(combo)):
            moves.append(TokensReturned(player=state.player_name, tokens=[COLOURS[i] for i in combo]))
    return moves


def legal_moves(state: State) -> list[Event]:
    phase = state.phase
    if phase == "action":
        return _action_moves(state)
    if phase == "return":
        return _return_moves(state)
    if phase == "noble":
        return [NobleChosen(player=state.player_name, noble=n) for n in _qualifying_nobles(state, state.player)]
    if phase == "reveal":
        assert state.gap is not None
        return [CardRevealed(card=c) for c in unlocated(state, state.gap[0] + 1)]
    if phase == "setup" and state.mode == "table":
        moves: list[Event] = []
        if len(state.nobles) < state.nobles_wanted:
            moves.extend(NobleRevealed(noble=n) for n in NOBLES if n not in state.nobles)
        for lvl in range(3):
            if None in state.board[lvl]:
                moves.extend(CardRevealed(card=c) for c in unlocated(state, lvl + 1))
        return moves
    return []


# --------------------------------------------------------------------------- notation

VERBS = ("take", "reserve", "buy", "return", "noble", "pass", "reveal")
_USAGE = {
    "take": "take r g b | take r r",
    "reserve": "reserve CARD | reserve deck LEVEL",
    "buy": "buy CARD [pay TOKENS]",
    "return": "return TOKENS",
    "noble": "noble NOBLE",
    "pass": "pass",
    "reveal": "reveal CARD|NOBLE ...",
}


def _parse_tokens(words: list[str]) -> list[str] | str:
    """`r g b`, `rgb`, `r2 y1`, `2 r` -> letters; or a message naming the bad word."""
    letters: list[str] = []
    count = 1
    for word in words:
        w = word.lower()
        if w == "gold":
            w = "y"
        if w.isdigit():
            count = int(w)
            continue
        if len(w) == 2 and w[0] in COLOURS and w[1].isdigit():
            letters.extend(w[0] * int(w[1]))
            continue
        if not w or any(ch not in COLOURS for ch in w):
            return f"unknown token {word!r}"
        for ch in w:
            letters.extend(ch * count)
            count = 1
    return letters


def _card_suggestions(text: str, candidates: list[str]) -> list[str]:
    prefix = text[:2]
    close = [c for c in candidates if c.startswith(prefix)]
    return close or candidates


def _normal_card(text: str) -> str | None:
    """Accept a card id with its cost colours in any order: `1k0-r1g1b1w1` -> `1k0-w1b1g1r1`."""
    if text in CARDS:
        return text
    head, _, cost = text.partition("-")
    counts = [0] * 5
    pairs = [cost[i : i + 2] for i in range(0, len(cost), 2)]
    for pair in pairs:
        if len(pair) != 2 or pair[0] not in GEMS or not pair[1].isdigit():
            return None
        counts[GEMS.index(pair[0])] += int(pair[1])
    candidate = f"{head}-{_cost_code(tuple(counts))}"
    return candidate if candidate in CARDS else None


def parse(state: State, text: str) -> list[Event] | NotationError:
    raw = text.strip()
    who: str | None = None
    body = raw
    if ":" in raw.split(" ", 1)[0]:
        who, _, body = raw.partition(":")
        who = who.strip()
        if who not in state.seats:
            return NotationError(raw, f"no player {who!r} at this table", list(state.seats))
    words = body.lower().split()
    if not words:
        return NotationError(raw, "empty move", [_USAGE[v] for v in VERBS])
    verb, args = words[0], words[1:]
    if who is None:
        who = state.player_name
    if verb == "take":
        gems = _parse_tokens(args)
        if isinstance(gems, str) or not gems:
            return NotationError(raw, gems or "take what?", ["take r g b", "take r r", "colours: w b g r k"])
        return [GemsTaken(player=who, gems=gems)]
    if verb == "return":
        tokens = _parse_tokens(args)
        if isinstance(tokens, str) or not tokens:
            return NotationError(raw, tokens or "return what?", ["return r g", "tokens: w b g r k y"])
        return [TokensReturned(player=who, tokens=tokens)]
    if verb == "pass":
        return [TurnPassed(player=who)] if not args else NotationError(raw, "pass takes no arguments", ["pass"])
    if verb == "noble":
        if len(args) != 1:
            return NotationError(raw, "name one noble", [f"noble {n}" for n in NOBLES])
        noble = _normal_noble(args[0])
        if noble is None:
            return NotationError(raw, f"unknown noble {args[0]!r}", list(NOBLES))
        return [NobleChosen(player=who, noble=noble)]
    if verb == "reserve":
        if args and args[0] in ("deck", "blind"):
            args = args[1:]
            if not args or args[0] not in ("1", "2", "3"):
                shown = repr(args[0]) if args else "no level"
                return NotationError(raw, f"{shown} is not a deck: the levels are 1, 2 and 3", ["reserve deck 1", "reserve deck 2", "reserve deck 3"])
        if len(args) == 1 and args[0] in ("1", "2", "3"):
            lvl = int(args[0])
            top = state.decks[lvl - 1][0] if state.decks[lvl - 1] else None
            return [CardReserved(player=who, card=top, level=lvl)]
        if len(args) == 3 and args[0] in ("1", "2", "3") and args[1] == "as":
            card = _normal_card(args[2])
            if card is None:
                return NotationError(raw, f"unknown card {args[2]!r}", _card_suggestions(args[2], unlocated(state, int(args[0]))))
            return [CardReserved(player=who, card=card, level=int(args[0]))]
        if len(args) != 1:
            return NotationError(raw, "reserve one card", ["reserve CARD", "reserve deck LEVEL", "reserve deck LEVEL as CARD"])
        card = _normal_card(args[0])
        if card is None:
            face_up = [c for row in state.board for c in row if c]
            return NotationError(raw, f"unknown card {args[0]!r}", _card_suggestions(args[0], face_up))
        return [CardReserved(player=who, card=card)]
    if verb == "buy":
        if not args:
            return NotationError(raw, "buy which card?", ["buy CARD", "buy CARD pay w2 y1"])
        card = _normal_card(args[0])
        if card is None:
            seat = state.players[state.seats.index(who)]
            buyable = [c for row in state.board for c in row if c] + [
                c for c in map(_reserve_card, seat.reserved) if c
            ]
            return NotationError(raw, f"unknown card {args[0]!r}", _card_suggestions(args[0], buyable))
        if len(args) > 1:
            if args[1] != "pay":
                return NotationError(raw, f"unexpected {args[1]!r} after the card", ["buy CARD", "buy CARD pay w2 y1"])
            paid = [] if args[2:] == ["nothing"] else _parse_tokens(args[2:])
            if isinstance(paid, str):
                return NotationError(raw, paid, ["pay w2 y1", "tokens: w b g r k y"])
            return [CardBought(player=who, card=card, paid=paid)]
        seat = state.players[state.seats.index(who)]
        pay = default_payment(CARDS[card], seat)
        # an unaffordable card still parses, so the ruling (not the parser) explains why it is refused
        return [CardBought(player=who, card=card, paid=_spell(pay) if pay else [])]
    if verb == "reveal":
        if not args:
            return NotationError(raw, "reveal what?", ["reveal CARD", "reveal NOBLE"])
        events: list[Event] = []
        for arg in args:
            noble = _normal_noble(arg)
            card = _normal_card(arg)
            if card is not None:
                events.append(CardRevealed(card=card))
            elif noble is not None:
                events.append(NobleRevealed(noble=noble))
            else:
                expect = [e for e in map(format_event, legal_moves(state)) if e.startswith("reveal")]
                return NotationError(raw, f"unknown card or noble {arg!r}", [e.split()[1] for e in expect])
        return events
    return NotationError(raw, f"unknown move {verb!r}", [_USAGE[v] for v in VERBS])


def _normal_noble(text: str) -> str | None:
    counts = [0] * 5
    pairs = [text[i : i + 2] for i in range(0, len(text), 2)]
    for pair in pairs:
        if len(pair) != 2 or pair[0] not in GEMS or not pair[1].isdigit():
            return None
        counts[GEMS.index(pair[0])] += int(pair[1])
    code = _cost_code(tuple(counts))
    return code if code in NOBLES else None


def _compact(letters: list[str]) -> str:
    counts = _letters(letters)
    if counts is None:
        return " ".join(letters)
    return " ".join(f"{COLOURS[i]}{n}" for i, n in enumerate(counts) if n) or "nothing"


def format_event(event: Event) -> str:
    kind = type(event)
    prefix = f"{event.player}: " if kind in PLAYER_EVENTS else ""  # type: ignore[attr-defined]
    if kind is GemsTaken:
        return prefix + "take " + " ".join(event.gems)  # type: ignore[attr-defined]
    if kind is CardReserved:
        if event.level is None:  # type: ignore[attr-defined]
            return prefix + f"reserve {event.card}"  # type: ignore[attr-defined]
        suffix = f" as {event.card}" if event.card else ""  # type: ignore[attr-defined]
        return prefix + f"reserve deck {event.level}{suffix}"  # type: ignore[attr-defined]
    if kind is CardBought:
        return prefix + f"buy {event.card} pay {_compact(event.paid)}"  # type: ignore[attr-defined]
    if kind is TokensReturned:
        return prefix + "return " + " ".join(event.tokens)  # type: ignore[attr-defined]
    if kind is NobleChosen:
        return prefix + f"noble {event.noble}"  # type: ignore[attr-defined]
    if kind is TurnPassed:
        return prefix + "pass"
    if kind is CardRevealed:
        return f"reveal {event.card}"  # type: ignore[attr-defined]
    if kind is NobleRevealed:
        return f"reveal {event.noble}"  # type: ignore[attr-defined]
    if kind is SetupDealt:
        return "deal " + " ".join(event.nobles) + " | " + " ".join(  # type: ignore[attr-defined]
            f"{lvl + 1}:{','.join(deck[:FACE_UP])}" for lvl, deck in enumerate(event.decks)  # type: ignore[attr-defined]
        )
    return type(event).__name__


# --------------------------------------------------------------------------- view and outcome


def _colour_map(counts: tuple[int, ...], letters: str = COLOURS) -> dict[str, int]:
    return {letters[i]: counts[i] for i in range(len(letters))}


def view(state: State, seat: str | None) -> dict[str, Any]:
    """What `seat` may see (None: everything the log knows). Others' blind reserves show only their level."""
    players = []
    for name, p in zip(state.seats, state.players):
        reserved = []
        for entry in p.reserved:
            if entry[0] == "~":
                shown = entry[1:] if seat is None or seat == name else f"?{CARDS[entry[1:]].level}"
            else:
                shown = entry
            reserved.append(shown)
        players.append(
            {
                "name": name,
                "points": p.points,
                "tokens": _colour_map(p.tokens),
                "bonus": _colour_map(p.bonus, GEMS),
                "cards": list(p.cards),
                "reserved": reserved,
                "nobles": list(p.nobles),
            }
        )
    who, what = to_act(state)
    result = outcome(state)
    return {
        "game": "splendor",
        "mode": state.mode,
        "viewer": seat,
        "phase": state.phase,
        "turn": state.turns + 1,
        "to_act": who,
        "expected": what,
        "bank": _colour_map(state.bank),
        "board": {str(lvl + 1): list(row) for lvl, row in enumerate(state.board)},
        "decks": {str(lvl + 1): n for lvl, n in enumerate(state.deck_size)},
        "nobles": list(state.nobles),
        "players": players,
        "end_triggered": state.end_triggered,
        "outcome": msgspec.to_builtins(result) if result else None,
    }


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    scores = {name: p.points for name, p in zip(state.seats, state.players)}
    best = max(scores.values())
    leaders = [i for i, p in enumerate(state.players) if p.points == best]
    fewest = min(len(state.players[i].cards) for i in leaders)
    winners = [state.seats[i] for i in leaders if len(state.players[i].cards) == fewest]
    if len(leaders) == 1:
        why = f"{winners[0]} has the most points ({best})"
    elif len(winners) == 1:
        why = f"{len(leaders)} players tie on {best} points; {winners[0]} bought the fewest cards ({fewest})"
    else:
        why = f"{', '.join(winners)} tie on {best} points and {fewest} cards: a shared victory"
    return Outcome(
        scores=scores,
        winners=winners,
        reason=why,
        details={"ended": state.ended, "cards": {n: len(p.cards) for n, p in zip(state.seats, state.players)}},
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def to_act(state: State) -> tuple[str, str]:
    name = state.player_name
    phase = state.phase
    if phase == "action":
        return name, f"{name} to take gems, reserve or buy a card"
    if phase == "return":
        excess = sum(state.player.tokens) - TOKEN_LIMIT
        return name, f"{name} must return {excess} token{'s' if excess > 1 else ''} (holds {sum(state.player.tokens)}, limit {TOKEN_LIMIT})"
    if phase == "noble":
        return name, f"{name} must choose a noble: {', '.join(_qualifying_nobles(state, state.player))}"
    if phase == "reveal":
        assert state.gap is not None
        return "table", f"the table must reveal the level-{state.gap[0] + 1} card turned up to fill the gap"
    if phase == "setup":
        if state.mode == "open":
            return "table", "tally must record the deal"
        missing = [
            _count(FACE_UP - sum(1 for c in row if c), f"level-{lvl + 1} card")
            for lvl, row in enumerate(state.board)
            if None in row
        ]
        if len(state.nobles) < state.nobles_wanted:
            missing.insert(0, _count(state.nobles_wanted - len(state.nobles), "noble"))
        return "table", "the table must reveal the setup: " + ", ".join(missing)
    return "nobody", f"the game is over ({state.ended})"


# --------------------------------------------------------------------------- table transcript


def table_transcript(events: list[Event]) -> list[Event]:
    """What a recorder at the table would have logged for an open-mode game.

    The deal becomes the nobles and 12 cards revealed one by one; every card turned up to fill a
    gap becomes a `card_revealed` right after the action; a blind reserve becomes unknown (the
    recorder did not see it) and is named only when bought.
    """
    started = events[0]
    assert isinstance(started, GameStarted)
    table_start = msgspec.structs.replace(started, mode="table")
    state = start(started)
    out: list[Event] = [table_start]
    for event in events[1:]:
        kind = type(event)
        if kind is SetupDealt:
            out.extend(NobleRevealed(noble=n) for n in event.nobles)  # type: ignore[attr-defined]
            out.extend(CardRevealed(card=c) for deck in event.decks for c in deck[:FACE_UP])  # type: ignore[attr-defined]
            state = _apply_setup(state, event)  # type: ignore[arg-type]
            continue
        where = None
        if kind is CardBought or (kind is CardReserved and event.level is None):  # type: ignore[attr-defined]
            where = _find_on_board(state, event.card)  # type: ignore[attr-defined]
        if kind is CardReserved and event.level is not None:  # type: ignore[attr-defined]
            out.append(msgspec.structs.replace(event, card=None))
        else:
            out.append(event)
        state = _APPLY[kind](state, event)
        if where is not None:
            turned_up = state.board[where[0]][where[1]]
            if turned_up is not None:
                out.append(CardRevealed(card=turned_up))
    return out


# --------------------------------------------------------------------------- the spec


class Splendor(GameSpec):
    name = "splendor"
    title = "Splendor"
    rules_version = "1"
    manifest = MANIFEST
    min_seats = 2
    max_seats = 4
    options = (
        Option("take-fewer", "when-short", ("when-short", "never", "always"), help="taking fewer than 3 different gems"),
        Option("stuck", "pass", ("pass", "end"), help="a player who can do no action passes, or the game ends"),
        Option("target", "15", (), 1, 99, help="prestige points that trigger the last round"),
    )
    events = EVENTS
    state_type = State
    rules = RULES

    def shuffles(self, started: GameStarted) -> dict[str, list[str]]:
        piles = {f"deck{lvl + 1}": list(cards) for lvl, cards in enumerate(LEVEL_CARDS)}
        piles["nobles"] = list(NOBLES)
        return piles

    def deal(self, started: GameStarted, shuffled: dict[str, list[str]]) -> list[Event]:
        nobles = shuffled["nobles"][: len(started.seats) + 1]
        return [SetupDealt(nobles=nobles, decks=[shuffled[f"deck{lvl}"] for lvl in (1, 2, 3)])]

    def start(self, started: GameStarted) -> State:
        return start(started)

    def table_transcript(self, events: list[Event]) -> list[Event]:
        return table_transcript(events)

    def is_voidable(self, event: Event) -> bool:
        return type(event) is not SetupDealt

    def narrate(self, before: State, after: State) -> list[str]:
        notes = []
        if before.players is not after.players:
            for name, old, new in zip(after.seats, before.players, after.players):
                if len(new.nobles) != len(old.nobles):
                    notes.extend(f"{noble} visits {name} (+{NOBLE_POINTS})" for noble in new.nobles[len(old.nobles) :])
        if after.end_triggered and not before.end_triggered:
            notes.append(f"{before.player_name} reached {after.target} points: the round is finished")
        if after.phase == "over" and before.phase != "over":
            result = outcome(after)
            notes.append(f"game over: {result.reason}" if result else "game over")
        return notes

    def check(self, state: State, event: Event) -> list[Ruling]:
        ruling = check_turn(state, event)
        if ruling is not None:
            return [ruling]
        kind = type(event)
        if kind is CardBought:
            return check_buy(state, event)  # type: ignore[arg-type]
        ruling = _CHECK[kind](state, event)
        return [ruling] if ruling is not None else []

    def permit(self, state: State, event: Event) -> Ruling:
        kind = type(event)
        if kind is GemsTaken:
            gems = event.gems  # type: ignore[attr-defined]
            if len(gems) == 2 and gems[0] == gems[1]:
                rule = "splendor.take.two-same"
            elif len(gems) == 3:
                rule = "splendor.take.three-different"
            else:
                rule = "splendor.take.fewer-colours"
            return legal(rule, f"{event.player} may take {' '.join(gems)}")  # type: ignore[attr-defined]
        if kind is CardReserved:
            rule = "splendor.reserve.face-up" if event.level is None else "splendor.reserve.blind"  # type: ignore[attr-defined]
            gold = " and take 1 gold" if state.bank[GOLD] else " (no gold left to take)"
            if event.level is None:  # type: ignore[attr-defined]
                what = f"reserve {event.card}"  # type: ignore[attr-defined]
            else:  # a ruling is read out at the table: it never names the card the others may not see
                what = f"reserve the top card of deck {event.level} unseen"  # type: ignore[attr-defined]
            return legal(rule, f"{event.player} may {what}{gold}")  # type: ignore[attr-defined]
        if kind is CardBought:
            return legal("splendor.buy.pay", f"{event.player} may {format_event(event).split(': ', 1)[1]}")  # type: ignore[attr-defined]
        if kind is TokensReturned:
            return legal("splendor.tokens.limit", f"{event.player} returns {' '.join(event.tokens)} to get back to {TOKEN_LIMIT}")  # type: ignore[attr-defined]
        if kind is NobleChosen:
            return legal("splendor.noble.choose", f"{event.player} may choose {event.noble}")  # type: ignore[attr-defined]
        if kind is TurnPassed:
            return legal("splendor.stuck.pass", f"{event.player} can do no action and passes")  # type: ignore[attr-defined]
        if kind is SetupDealt:
            return legal("splendor.setup.deal", "the deal is recorded")
        return legal("splendor.refill" if state.phase == "reveal" else "splendor.setup.deal", f"{format_event(event)} is possible")

    def apply(self, state: State, event: Event) -> State:
        return _APPLY[type(event)](state, event)

    def legal_moves(self, state: State) -> list[Event]:
        return legal_moves(state)

    def parse(self, state: State, text: str) -> list[Event] | NotationError:
        return parse(state, text)

    def format(self, event: Event) -> str:
        return format_event(event)

    def view(self, state: State, seat: str | None) -> dict[str, Any]:
        return view(state, seat)

    def outcome(self, state: State) -> Outcome | None:
        return outcome(state)

    def to_act(self, state: State) -> tuple[str, str]:
        return to_act(state)


SPLENDOR = Splendor()
