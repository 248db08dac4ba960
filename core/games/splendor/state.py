"""Splendor's state (frozen) and the questions asked of it by rules, reducer, moves and view.

A reserve entry is a card id (reserved face up), `~` + card id (reserved blind; the log knows the
card) or `?` + level (reserved blind and unseen by the recorder, bound when it is bought).
"""

from operator import sub

import msgspec

from ...model import Event
from .components import CARDS, GOLD, LEVEL_CARDS, NOBLES, RESERVE_LIMIT, Card
from .events import CardReserved


class Seat(msgspec.Struct, frozen=True, gc=False):
    tokens: tuple[int, ...]  # 6: w b g r k y
    bonus: tuple[int, ...]  # 5
    cards: tuple[str, ...] = ()
    # face-up reserve: "1k0-..."; blind reserve known to the log: "~1k0-..."; blind and unseen: "?2"
    reserved: tuple[str, ...] = ()
    nobles: tuple[str, ...] = ()
    points: int = 0


class State(msgspec.Struct, frozen=True, gc=False):
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
    seated: tuple[str, ...] = ()  # the seats that name their own blind reserves (`game_started`'s `seated`)

    @property
    def player(self) -> Seat:
        return self.players[self.current]

    @property
    def player_name(self) -> str:
        return self.seats[self.current]


def reserve_card(entry: str) -> str | None:
    """The card id behind a reserve entry, or None when the log never saw it."""
    if entry[0] == "?":
        return None
    return entry[1:] if entry[0] == "~" else entry


def known_reserves(seat: Seat) -> list[str]:
    """The cards of a seat's reserve that the log knows (an unseen blind reserve is none of them)."""
    return [c for c in map(reserve_card, seat.reserved) if c]


def face_up(state: State) -> list[str]:
    """The face-up cards, level by level and slot by slot (gaps left out)."""
    return [c for row in state.board for c in row if c]


def buyable(state: State, seat: Seat) -> list[str]:
    """The cards the log knows `seat` may buy: face up, then its own known reserves."""
    return face_up(state) + known_reserves(seat)


def deck_top(state: State, lvl: int) -> str | None:
    """The top card of the deck of level index `lvl` (0-2) when the log knows it (open mode), else None."""
    deck = state.decks[lvl]
    return deck[0] if deck else None


def located(state: State) -> set[str]:
    """The cards the log has placed: face up, bought, or reserved where the log saw the card.

    One copy of each card exists, so a set says it all (and is faster here than core.knowledge's counts)."""
    seen = {card for row in state.board for card in row if card}
    for seat in state.players:
        seen.update(seat.cards)
        seen.update(known_reserves(seat))
    return seen


def unlocated(state: State, level: int) -> list[str]:
    """Cards of `level` (1-3) that the log has not placed anywhere: the deck plus unseen reserves."""
    seen = located(state)
    return [c for c in LEVEL_CARDS[level - 1] if c not in seen]


# --------------------------------------------------------------------------- queries


def needed(card: Card, seat: Seat) -> list[int]:
    w, b, g, r, k = map(sub, card.cost, seat.bonus)
    return [w if w > 0 else 0, b if b > 0 else 0, g if g > 0 else 0, r if r > 0 else 0, k if k > 0 else 0]


def default_payment(card: Card, seat: Seat) -> list[int] | None:
    """Gems first, gold for the shortfall; None when the player cannot afford the card.

    Asked for every card on the table on every turn of a playout: one pass, no intermediate lists."""
    tokens = seat.tokens
    pay = []
    short = 0
    for cost, bonus, have in zip(card.cost, seat.bonus, tokens):  # the five gems (zip stops before gold)
        need = cost - bonus
        if need <= 0:
            pay.append(0)
        elif need <= have:
            pay.append(need)
        else:
            pay.append(have)
            short += need - have
    if short > tokens[GOLD]:
        return None
    pay.append(short)
    return pay


# fewer bonuses than the smallest requirement cannot attract any noble: skip the per-noble test
NOBLE_MINIMUM = min(sum(need) for need in NOBLES.values())


_MET: dict[tuple[int, ...], frozenset[str]] = {}  # a memo: bonuses -> every noble of the box they meet
_MET_LIMIT = 4096


def nobles_met(bonus: tuple[int, ...]) -> frozenset[str]:
    """Every noble of the box whose requirement `bonus` meets: asked at the end of every turn, and a seat's bonuses
    change only when it buys, so the same few recur."""
    try:
        return _MET[bonus]
    except KeyError:
        pass
    w, b, g, r, k = bonus
    met = frozenset(
        n
        for n, need in NOBLES.items()
        if need[0] <= w and need[1] <= b and need[2] <= g and need[3] <= r and need[4] <= k
    )
    if len(_MET) < _MET_LIMIT:
        _MET[bonus] = met
    return met


def qualifying_nobles(state: State, seat: Seat) -> list[str]:
    if len(seat.cards) < NOBLE_MINIMUM:  # one bonus per card bought: too few cards, no noble
        return []
    met = nobles_met(seat.bonus)
    return [n for n in state.nobles if n in met] if met else []


def blind_buys(state: State) -> list[str]:
    """Unlocated cards the current player could afford, of the level of a blind reserve the log never saw.

    Any of them may be that reserve, so buying it may be possible: the log cannot tell.
    """
    seat = state.player
    levels = sorted({int(entry[1]) for entry in seat.reserved if entry[0] == "?"})
    return [c for lvl in levels for c in unlocated(state, lvl) if default_payment(CARDS[c], seat) is not None]


def can_act(state: State, blind: bool = True) -> bool:
    """Whether the current player has any action (pass aside).

    An unseen blind reserve counts as a possible buy when some unlocated card of its level is affordable
    (`blind`); without `blind`, only the actions the log can verify count.
    """
    seat = state.player
    bank = state.bank
    available = sum(1 for i in range(5) if bank[i] > 0)
    if available >= 3 or (available and state.take_fewer != "never") or any(bank[i] >= 4 for i in range(5)):
        return True
    if len(seat.reserved) < RESERVE_LIMIT and (face_up(state) or any(state.deck_size)):
        return True
    if any(default_payment(CARDS[c], seat) is not None for c in buyable(state, seat)):
        return True
    return blind and bool(blind_buys(state))


def is_setup_complete(state: State) -> bool:
    return len(state.nobles) == state.nobles_wanted and all(c for row in state.board for c in row)


def find_on_board(state: State, card: str) -> tuple[int, int] | None:
    lvl = CARDS[card].level - 1
    row = state.board[lvl]
    if card in row:  # a scan in C: asked by the guard and the reducer of every buy and reserve
        return lvl, row.index(card)
    return None


def reserve_entry_for(seat: Seat, card: str) -> int | None:
    """Index of the reserve entry `card` buys: the known entry, else an unseen blind reserve of its level."""
    reserved = seat.reserved
    blind = "~" + card
    for i, entry in enumerate(reserved):
        if entry == card or entry == blind:
            return i
    unseen = f"?{CARDS[card].level}"
    return reserved.index(unseen) if unseen in reserved else None


# --------------------------------------------------------------------------- seats that report their own cards


def is_seated(state: State, name: str) -> bool:
    """Whether `name` names its own blind reserves, so the log knows every card it holds."""
    return name in state.seated


def unnamed(state: State, event: Event) -> tuple[str, str] | None:
    """The blind reserve a seated seat left unnamed, as (seat, what to name), or None (`core.seat.unnamed`)."""
    if type(event) is not CardReserved or event.level is None or event.card is not None:
        return None
    if event.player not in state.seated:
        return None
    return event.player, f"name the card reserved blind (reserve deck {event.level} as CARD)"


def conceal(state: State, seat: str | None) -> State:
    """The state as `seat` knows it: another seat's blind reserve shows only its level, and the decks tally dealt
    (open mode) only their sizes; None: the state as the log knows it."""
    if seat is None:
        return state
    players = tuple(
        p
        if name == seat or not any(entry[0] == "~" for entry in p.reserved)
        else msgspec.structs.replace(
            p, reserved=tuple(f"?{CARDS[entry[1:]].level}" if entry[0] == "~" else entry for entry in p.reserved)
        )
        for name, p in zip(state.seats, state.players)
    )
    return msgspec.structs.replace(state, players=players, decks=((), (), ()))


def turn(state: State) -> int:
    """The number of the turn being played, 1 for the first: what a view shows and `tally undo --turn` walks back."""
    return state.turns + 1


def blind_buy_proved(state: State) -> tuple[int, int, int] | None:
    """A level at which the box proves one of the current player's blind reserves affordable: the unlocated cards
    of that level are the only ones any `?L` reserve can be (each card exists once), so when fewer of them are
    unaffordable than the player holds blind reserves of it, one is affordable. (level, reserves, unaffordable)."""
    seat = state.player
    for level in sorted({int(entry[1]) for entry in seat.reserved if entry[0] == "?"}):
        mine = seat.reserved.count(f"?{level}")
        dead = sum(1 for c in unlocated(state, level) if default_payment(CARDS[c], seat) is None)
        if dead < mine:
            return level, mine, dead
    return None
