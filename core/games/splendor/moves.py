"""Splendor's legal moves now, in a deterministic order (also the reveals the table must enter).

Also the chance of an open game's setup: the piles to shuffle and the deal made from them.

Takes first (three different, then fewer where allowed, then two of a colour), then reserves (face
up by level and slot, then blind by level), then buys (face up, then reserved), each with the
canonical payment: gems first, gold for the shortfall. A seat that names its own blind reserves
(`seated`) has one blind reserve per card still unlocated at that level, in the level's order.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from operator import add

from ...model import Event, pick_listed
from .components import (
    CARDS,
    COLOURS,
    GEMS,
    GOLD,
    LEVEL_CARDS,
    NOBLES,
    RESERVE_LIMIT,
    TOKEN_LIMIT,
    spell,
)
from .events import (
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
from .state import (
    State,
    blind_buy_proved,
    blind_buys,
    buyable,
    deck_top,
    default_payment,
    face_up,
    known_reserves,
    qualifying_nobles,
    unlocated,
)


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
            moves.extend(
                GemsTaken(player=who, gems=[GEMS[i] for i in combo]) for combo in combinations(available, size)
            )
    moves.extend(GemsTaken(player=who, gems=[GEMS[i], GEMS[i]]) for i in range(5) if bank[i] >= 4)
    return moves


def _action_moves(state: State) -> list[Event]:
    who = state.player_name
    seat = state.player
    moves = _take_moves(state, who)
    if len(seat.reserved) < RESERVE_LIMIT:
        moves.extend(CardReserved(player=who, card=c) for c in face_up(state))
        for lvl in range(3):
            if not state.deck_size[lvl]:
                continue
            top = deck_top(state, lvl)
            if top is None and who in state.seated:  # the seat names what it drew: any card still unlocated
                moves.extend(CardReserved(player=who, card=c, level=lvl + 1) for c in unlocated(state, lvl + 1))
            else:
                moves.append(CardReserved(player=who, card=top, level=lvl + 1))
    # what the seat can reach in each colour (bonus and gems): a card it cannot afford costs no payment worked out
    reach_w, reach_b, reach_g, reach_r, reach_k = map(add, seat.bonus, seat.tokens)
    gold = seat.tokens[GOLD]
    for c in buyable(state, seat):
        card = CARDS[c]
        w, b, g, r, k = card.cost
        if (
            (w - reach_w if w > reach_w else 0)
            + (b - reach_b if b > reach_b else 0)
            + (g - reach_g if g > reach_g else 0)
            + (r - reach_r if r > reach_r else 0)
            + (k - reach_k if k > reach_k else 0)
        ) > gold:
            continue
        pay = default_payment(card, seat)
        assert pay is not None  # affordable, as the sum above says
        moves.append(CardBought(player=who, card=c, paid=spell(pay)))
    if not moves and state.stuck == "pass" and blind_buy_proved(state) is not None:
        # the box proves a blind reserve affordable: the pass is refused, and any card it may be is the move
        for c in blind_buys(state):
            pay = default_payment(CARDS[c], seat)
            if pay is not None:
                moves.append(CardBought(player=who, card=c, paid=spell(pay)))
    elif not moves and state.stuck == "pass":
        moves.append(TurnPassed(player=who))
    return moves


def _returns(held: list[int], tokens: tuple[int, ...], size: int) -> list[str]:
    """Every way to give back `size` of the tokens held (colour indices `held`, counts `tokens`), as letters, in
    the order of `combinations_with_replacement(held, size)` (more of an earlier colour first)."""
    if not size:
        return [""]
    if not held:
        return []
    first, rest = held[0], held[1:]
    letter = COLOURS[first]
    return [
        letter * n + tail for n in range(min(tokens[first], size), -1, -1) for tail in _returns(rest, tokens, size - n)
    ]


def _return_moves(state: State) -> list[Event]:
    seat = state.player
    excess = sum(seat.tokens) - TOKEN_LIMIT
    held = [i for i in range(6) if seat.tokens[i]]
    who = state.player_name
    return [TokensReturned(player=who, tokens=list(letters)) for letters in _returns(held, seat.tokens, excess)]


def legal_moves(state: State) -> list[Event]:
    phase = state.phase
    if phase == "action":
        return _action_moves(state)
    if phase == "return":
        return _return_moves(state)
    if phase == "noble":
        return [NobleChosen(player=state.player_name, noble=n) for n in qualifying_nobles(state, state.player)]
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


# --------------------------------------------------------------------------- chance at setup (open mode)


def shuffles(state: State) -> dict[str, list[str]]:
    """The piles tally shuffles: only the setup of an open game (the decks then decide every refill)."""
    if state.phase != "setup" or state.mode != "open":
        return {}
    piles = {f"deck{lvl + 1}": list(cards) for lvl, cards in enumerate(LEVEL_CARDS)}
    piles["nobles"] = list(NOBLES)
    return piles


def deal(state: State, shuffled: dict[str, list[str]]) -> list[Event]:
    """The deal for shuffled piles: the decks in their order and one noble more than there are players."""
    nobles = shuffled["nobles"][: state.nobles_wanted]
    return [SetupDealt(nobles=nobles, decks=[shuffled[f"deck{lvl}"] for lvl in (1, 2, 3)])]


# --------------------------------------------------------------------------- one move, built alone (playouts)


def pick_move(state: State, below: Callable[[int], int]) -> Event | None:
    """`legal_moves(state)[below(len(legal_moves(state)))]`, built alone: the moves are counted, `below` draws
    the index (once, and only when some move is legal) and only the move at that index is made, with the same
    order and the same event as `legal_moves`; None when no move is legal.

    A playout draws one move per turn from 25-30: building them all, each buy with its payment, was most of it."""
    phase = state.phase
    if phase == "action" and not (state.seated or state.mode != "open"):
        return _pick_action(state, below)
    if phase == "return":
        return _pick_return(state, below)
    return pick_listed(legal_moves(state), below)


def _pick_action(state: State, below: Callable[[int], int]) -> Event | None:
    """An action of an open game with no seated seat (every deck top known): `_action_moves`' order, counted."""
    takes = _takes(state.bank, state.take_fewer)
    seat = state.player
    face = [c for row in state.board for c in row if c]
    tops: list[int] = []  # the levels (1-3) of the decks a blind reserve may draw from
    if len(seat.reserved) < RESERVE_LIMIT:
        deck_size = state.deck_size
        tops = [lvl + 1 for lvl in range(3) if deck_size[lvl]]
        reserves = len(face) + len(tops)
    else:
        reserves = 0
    reach = tuple(map(add, seat.bonus, seat.tokens))
    reach_w, reach_b, reach_g, reach_r, reach_k = reach
    gold = seat.tokens[GOLD]
    within = sum(reach) + gold  # a card that costs more than this in all cannot be afforded: one comparison
    buys = []
    costs = _COSTS
    for c in face + known_reserves(seat) if seat.reserved else face:
        cost = costs.get(c) or _cost(c)
        if cost[5] > within:
            continue
        w, b, g, r, k, _ = cost
        if (
            (w - reach_w if w > reach_w else 0)
            + (b - reach_b if b > reach_b else 0)
            + (g - reach_g if g > reach_g else 0)
            + (r - reach_r if r > reach_r else 0)
            + (k - reach_k if k > reach_k else 0)
        ) <= gold:
            buys.append(c)
    count = len(takes) + reserves + len(buys)
    if not count:  # stuck: a pass, or what the box proves (rare), as `_action_moves` decides it
        return pick_listed(_action_moves(state), below)
    index = below(count)
    who = state.player_name
    if index < len(takes):
        return GemsTaken(player=who, gems=list(takes[index]))
    index -= len(takes)
    if index < reserves:
        if index < len(face):
            return CardReserved(player=who, card=face[index])
        level = tops[index - len(face)]
        deck = state.decks[level - 1]
        return CardReserved(player=who, card=deck[0] if deck else None, level=level)
    card = buys[index - reserves]
    pay = default_payment(CARDS[card], seat)
    assert pay is not None  # affordable, as the sum above says
    return CardBought(player=who, card=card, paid=spell(pay))


_COSTS: dict[str, tuple[int, ...]] = {}  # card -> its cost and, last, the cost's total
_TAKES: dict[tuple[tuple[int, ...], str], tuple[str, ...]] = {}
_PATTERNS: dict[tuple[tuple[int, ...], str], tuple[str, ...]] = {}  # at most 3^5 per option
_RETURNS: dict[tuple[int, ...], tuple[str, ...]] = {}
_CLAMPED: dict[tuple[tuple[int, ...], int], tuple[str, ...]] = {}  # colours counted up to the excess (at most 3)
_MEMO_LIMIT = 50_000  # banks and holdings a long run of playouts meets: memory bounded, never cleared


def _cost(card: str) -> tuple[int, ...]:
    cost = CARDS[card].cost
    _COSTS[card] = (*cost, sum(cost))
    return _COSTS[card]


def _takes(bank: tuple[int, ...], take_fewer: str) -> tuple[str, ...]:
    """The takes `_take_moves` lists for this bank, as strings of letters: listed once per bank (a playout meets
    a few hundred)."""
    takes = _TAKES.get((bank, take_fewer))
    if takes is None:
        # the takes depend only on which colours have any gem left and which have 4 or more: listed once per pattern
        pattern = (tuple(2 if n >= 4 else 1 if n else 0 for n in bank[:5]), take_fewer)
        takes = _PATTERNS.get(pattern)
        if takes is not None:
            if len(_TAKES) < _MEMO_LIMIT:
                _TAKES[bank, take_fewer] = takes
            return takes
        state = State(
            seats=("",),
            mode="open",
            take_fewer=take_fewer,
            stuck="",
            target=0,
            players=(),
            bank=bank,
            board=(),
            decks=(),
            deck_size=(),
            nobles=(),
            nobles_wanted=0,
        )
        takes = tuple("".join(move.gems) for move in _take_moves(state, "") if isinstance(move, GemsTaken))
        _PATTERNS[pattern] = takes
        if len(_TAKES) < _MEMO_LIMIT:
            _TAKES[bank, take_fewer] = takes
    return takes


def _returns_of(tokens: tuple[int, ...]) -> tuple[str, ...]:
    """The returns `_return_moves` lists for this holding, listed once per holding, and once per what they depend
    on: the excess, and how many of each colour up to it."""
    excess = sum(tokens) - TOKEN_LIMIT
    clamped = tuple(n if n < excess else excess for n in tokens)
    returns = _CLAMPED.get((clamped, excess))
    if returns is None:
        returns = _CLAMPED[clamped, excess] = tuple(_returns([i for i in range(6) if clamped[i]], clamped, excess))
    if len(_RETURNS) < _MEMO_LIMIT:
        _RETURNS[tokens] = returns
    return returns


def _pick_return(state: State, below: Callable[[int], int]) -> Event | None:
    """A return of tokens: `_return_moves`' order (more of an earlier colour first), listed once per holding."""
    tokens = state.player.tokens
    returns = _RETURNS.get(tokens) or _returns_of(tokens)
    if not returns:
        return None
    return TokensReturned(player=state.player_name, tokens=list(returns[below(len(returns))]))
