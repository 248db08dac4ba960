"""Splice's legal moves now, in a deterministic order, and the chance tally deals in open mode.

Play-phase order: coin plays (fewest cards first), Piracy, Skull, Trade Certificate, Black Spot, purchases,
laying down a map, then the turn without a play (`discard` each card, or `pass`). Draws list the Draw
Pile first, then blind draws in seat order.

In table mode the log does not know most hands, so only moves it can verify are listed (plays of cards it
has seen, unseen draws and discards, the table's entries); a play of a card it has not seen is judged when
it is entered.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations, combinations_with_replacement

from ...model import Event, pick_listed
from .components import MAP_LIMIT, MAX_VALUE, MAX_WILD_PIECES, POSITIONS, PRICE, coin_set, deck_cards, multiplier
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
    MapLaid,
    MapsBought,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .guards import check_trade, draw_problem
from .seating import draws, held_cards, held_pieces, pile_pieces
from .state import Seat, State, disk_holder, known_top, located_disks, open_draw, pile_size, size_up_to

# --------------------------------------------------------------------------- coin plays


_Candidate = tuple[str, tuple[tuple[int, int], ...], int]  # form, naturals used as (value, count) pairs, wilds used


def _candidate_sets(naturals: dict[int, int], wilds: int, values: tuple[int, ...]) -> list[_Candidate]:
    """Every set the cards could make: (form, naturals used as (value, count) pairs, wilds used)."""
    pairs, starts_of, runs = _SET_TABLES.get(values) or _set_tables(values)
    found: list[_Candidate] = []
    present = sorted(naturals)
    for v in present:
        pair, wild_pair = pairs[v]
        if naturals[v] >= 2:
            found.append(pair)
        if wilds:
            found.append(wild_pair)
    held = set(present)
    kept = _MASKS_KEPT[min(wilds, 2)]
    for low in sorted({low for v in present for low in starts_of[v]}):
        found.extend(candidate for candidate, needed in runs[low][:kept] if needed <= held)
    return found


# wild positions of a run (bit i: position i is wild), in the order listed: with one wild card the first four,
# with two or more all seven (never all three wild)
_MASKS = (0, 1, 2, 4, 3, 5, 6)
_MASKS_KEPT = {0: 1, 1: 4, 2: 7}
_SetTables = tuple[
    dict[int, tuple[_Candidate, _Candidate]], dict[int, tuple[int, ...]], dict[int, list[tuple[_Candidate, set[int]]]]
]
_SET_TABLES: dict[tuple[int, ...], _SetTables] = {}


def _set_tables(values: tuple[int, ...]) -> _SetTables:
    """A box's sets, written once: each value's pair and wild pair, the runs each value may be part of (by their
    lowest value), and each run's forms with the naturals they need, in `_MASKS` order."""
    exists = set(values)
    pairs: dict[int, tuple[_Candidate, _Candidate]] = {
        v: ((f"{v}-{v}", ((v, 2),), 0), (f"{v}-w{v}", ((v, 1),), 1)) for v in values
    }
    starts_of = {
        v: tuple(s for s in (v - 2, v - 1, v) if s in exists and s + 1 in exists and s + 2 in exists) for v in values
    }
    runs: dict[int, list[tuple[_Candidate, set[int]]]] = {}
    for low in sorted({s for v in values for s in starts_of[v]}):
        run = (low, low + 1, low + 2)
        forms: list[tuple[_Candidate, set[int]]] = []
        for mask in _MASKS:
            used = tuple((x, 1) for i, x in enumerate(run) if not mask >> i & 1)
            form = "-".join(f"w{x}" if mask >> i & 1 else str(x) for i, x in enumerate(run))
            forms.append(((form, used, 3 - len(used)), {x for x, _ in used}))
        runs[low] = forms
    found = _SET_TABLES[values] = (pairs, starts_of, runs)
    return found


_NUMBER = {str(v): v for v in range(1, MAX_VALUE + 1)}  # a coin card's id: its value (any other card: none)
_PLAYS: dict[tuple[tuple[int, ...], int, int, tuple[int, ...]], list[tuple[list[str], int]]] = {}


def coin_plays(hand: tuple[str, ...], values: tuple[int, ...]) -> list[tuple[list[str], int]]:
    """Every coin play a hand allows: (set forms, Double Your Gold cards), fewest cards first. Memoised by the
    cards some set could use: hardly two hands are alike, but most differ only in coin cards no set can hold."""
    naturals = [n for n in map(_NUMBER.get, hand) if n is not None]
    wilds = hand.count("wild")
    if not wilds:  # without a wild card a natural is in a set only as one of a pair or of a run of three held
        held = set(naturals)
        naturals = [
            v
            for v in naturals
            if naturals.count(v) > 1
            or v + 1 in held
            and (v - 1 in held or v + 2 in held)
            or v - 1 in held
            and v - 2 in held
        ]
    naturals.sort()
    key = (tuple(naturals), wilds, hand.count("double"), values)
    found = _PLAYS.get(key)
    if found is None:
        found = _coin_plays(*key)
        if len(_PLAYS) > 100_000:
            _PLAYS.clear()
        _PLAYS[key] = found
    return found


def _coin_plays(
    naturals: tuple[int, ...], wilds: int, doubles: int, values: tuple[int, ...]
) -> list[tuple[list[str], int]]:
    counts: dict[int, int] = {}
    for v in naturals:
        counts[v] = counts.get(v, 0) + 1
    candidates = _candidate_sets(counts, wilds, values)
    # the cards left as one integer, a field per value (wild cards in field 0) with a guard bit above each: a set
    # fits when taking its cards clears no guard bit, a test of two integer operations in the search below
    width = (len(naturals) + wilds).bit_length() + 1
    field = {v: width * (i + 1) for i, v in enumerate(counts)}
    guard = sum(1 << (width * i + width - 1) for i in range(len(counts) + 1))
    needs = [used_wild + sum(n << field[v] for v, n in need) for _, need, used_wild in candidates]
    sizes = [used_wild + sum(n for _, n in need) for _, need, used_wild in candidates]
    forms = [form for form, _, _ in candidates]
    collections: list[tuple[list[str], int]] = [([], 0)]  # (forms, cards used)
    chosen: list[str] = []

    def extend(start: int, left: int, cards: int) -> None:
        for index in range(start, len(needs)):
            after = (left | guard) - needs[index]
            if after & guard != guard:
                continue  # some card of the set is not left
            chosen.append(forms[index])
            size = cards + sizes[index]
            collections.append((list(chosen), size))
            extend(index, after ^ guard, size)
            chosen.pop()

    extend(0, wilds + sum(n << field[v] for v, n in counts.items()), 0)
    plays = [(forms, d, size + d) for forms, size in collections for d in range(doubles + 1) if forms or d]
    plays.sort(key=lambda play: (play[2], len(play[0])))
    return [(forms, d) for forms, d, _ in plays]


# --------------------------------------------------------------------------- purchases


_PURCHASES: dict[tuple[tuple[str, ...], int, bool, tuple[int, ...]], list[list[tuple[list[str], int]]]] = {}


def purchases(state: State, seat: Seat) -> list[list[tuple[list[str], int]]]:
    """Every minimal payment of each count of pieces the seat's gold in play could buy (count 1 first), however
    many the Map Pile holds: each set and Double Your Gold card needed. Memoised by the sets and Double Your Gold
    cards in play, which change far less often than turns."""
    doubles = seat.doubles if state.stack else min(seat.doubles, 1)
    key = (seat.sets, doubles, state.stack, state.box.values)
    found = _PURCHASES.get(key)
    if found is None:
        found = _payments(seat.sets, doubles, state.stack, state.box.values)
        if len(_PURCHASES) > 50_000:
            _PURCHASES.clear()
        _PURCHASES[key] = found
    return found


def _payments(
    sets: tuple[str, ...], most: int, stack: bool, values: tuple[int, ...]
) -> list[list[tuple[list[str], int]]]:
    """The payments of every count in one search: the sets in order of value, largest first, chosen until a count's
    price is reached (so the smallest set chosen is needed, and every set is); a choice whose total has reached the
    price of every count is not extended."""
    worth_of = {form: coin_set(form, values).value for form in sets}
    counts = min(99, sum(worth_of[form] for form in sets) * multiplier(most, stack) // PRICE)
    ordered = sorted(sets, key=lambda f: (-worth_of[f], f))
    worth = [worth_of[form] for form in ordered]
    found: list[list[tuple[list[str], int]]] = [[] for _ in range(counts)]
    seen: set[tuple[int, tuple[str, ...], int]] = set()
    for used in range(most + 1):
        factor = multiplier(used, stack)
        fewer = multiplier(used - 1, stack) if used else 0  # the gold with one Double Your Gold card less

        def walk(start: int, chosen: list[int], total: int) -> None:
            for i in range(start, len(ordered)):
                if i > start and ordered[i] == ordered[i - 1]:
                    continue  # the same form again gives the same payment
                new = total + worth[i]
                # the counts whose price this set reaches and the sets before it do not
                for count in range(total * factor // PRICE + 1, min(new * factor // PRICE, counts) + 1):
                    if used and new * fewer >= PRICE * count:
                        continue  # a Double Your Gold card would not be needed
                    forms = tuple(ordered[j] for j in chosen + [i])
                    if (count, forms, used) not in seen:
                        seen.add((count, forms, used))
                        found[count - 1].append((list(forms), used))
                if new * factor < PRICE * counts:
                    walk(i + 1, chosen + [i], new)

        walk(0, [], 0)
    return found


# --------------------------------------------------------------------------- maps


def map_lays(state: State) -> list[list[str]]:
    """Every completed map the current player could lay down now (open mode: everything is known)."""
    seat = state.player
    colour = seat.disk
    if colour is None:
        return []
    maps, held = seat.maps.known, seat.hand.known
    for piece, wild in _POSITIONS.get(colour) or _positions(colour):
        if piece not in maps and wild not in held:
            return []  # no piece held fills this position: the usual case, told without building the map
    pieces = set(seat.maps.known)
    hand = list(seat.hand.known)
    if sum(1 for p in pieces if p[0] == colour) + sum(1 for c in hand if c[0] == "x") < POSITIONS:
        return []
    if state.fresh and state.fresh in hand:
        hand.remove(state.fresh)  # drawn this turn: not yet part of a map
    lays = []
    options = []
    for position in range(1, POSITIONS + 1):
        choice = []
        if f"{colour}{position}" in pieces:
            choice.append(f"{colour}{position}")
        if f"x{position}" in hand:
            choice.append(f"x{position}")
        if not choice:
            return []
        options.append(choice)

    def build(position: int, chosen: list[str], wild: int) -> None:
        if position == POSITIONS:
            lays.append(chosen)
            return
        for piece in options[position]:
            extra = piece[0] == "x"
            if wild + extra <= MAX_WILD_PIECES:
                build(position + 1, chosen + [piece], wild + extra)

    build(0, [], 0)
    return lays


_POSITIONS: dict[str, tuple[tuple[str, str], ...]] = {}


def _positions(colour: str) -> tuple[tuple[str, str], ...]:
    """The piece of `colour` and the wild piece at each position of a map."""
    found = _POSITIONS[colour] = tuple((f"{colour}{position}", f"x{position}") for position in range(1, POSITIONS + 1))
    return found


# --------------------------------------------------------------------------- by phase


def _others(state: State) -> list[int]:
    n = len(state.seats)
    return [(state.current + k) % n for k in range(1, n)]


def _draw_moves(state: State, who: str, count: int) -> list[Event]:
    if state.mode == "open":
        return [CardsDrawn(player=who, cards=[*open_draw(state.pile, count)])]
    if who in state.seated:  # the seat names what it draws
        return [CardsDrawn(player=who, cards=cards) for cards in draws(state, count)]
    moves: list[Event] = []
    unseen: list[str | None] = [None] * count
    candidates: list[list[str | None]] = [unseen, *([None] * k + ["hurricane"] for k in range(count))]
    for cards in candidates:
        if draw_problem(state, cards) is None:
            moves.append(CardsDrawn(player=who, cards=cards))
    return moves


def _start_moves(state: State) -> list[Event]:
    who = state.player_name
    moves = _draw_moves(state, who, 1) if state.pile else []
    for index in _others(state):
        if not state.players[index].hand.size:
            continue
        source = state.seats[index]
        if who in state.seated or source in state.seated:  # a seat names the card it takes, or the one taken from it
            moves.extend(BlindDrawn(player=who, source=source, card=card) for card in held_cards(state, index))
        else:
            moves.append(BlindDrawn(player=who, source=source))
    return moves


def _play_moves(state: State) -> list[Event]:
    me = state.current
    who = state.seats[me]
    seat = state.players[me]
    hand = seat.hand.known
    moves: list[Event] = [
        CoinsPlayed(player=who, sets=forms, doubles=d) for forms, d in coin_plays(hand, state.box.values)
    ]
    held = set(hand)
    if held & _ACTION_CARDS:
        moves.extend(_card_plays(state, who, seat, held))
    if seat.sets:
        for count, paid in enumerate(purchases(state, seat)[: pile_size(state.map_pile)], 1):
            top = known_top(state.map_pile, count) if state.mode == "open" else [None] * count
            # a seat names the pieces it buys: one piece is listed for each it may be, more are too many to list
            tops = (
                [[p] for p in pile_pieces(state)]
                if who in state.seated and count == 1
                else []
                if who in state.seated
                else [top]
            )
            for forms, used in paid:
                moves.extend(
                    MapsBought(player=who, count=count, paid=forms, doubles=used, pieces=list(t)) for t in tops
                )
    moves.extend(MapLaid(player=who, pieces=pieces) for pieces in map_lays(state))
    if seat.hand.size > state.hand_size:
        moves.extend(_discards(state, me, 1))
    else:
        moves.append(TurnPassed(player=who))
    return moves


def _card_plays(state: State, who: str, seat: Seat, held: set[str]) -> list[Event]:
    """The action cards `who` may play from the hand `held` (Piracy, Skull, Trade Certificate, Black Spot), in
    the listing's order."""
    others = _others(state)
    cards: list[Event] = []
    if "piracy" in held:
        for index in others:
            target = state.players[index]
            name = state.seats[index]
            cards.extend(PiracyPlayed(player=who, target=name, plunder=form) for form in sorted(set(target.sets)))
            if target.doubles:
                cards.append(PiracyPlayed(player=who, target=name, plunder="double"))
            if target.maps.size and (who in state.seated or name in state.seated):  # the piece taken is named
                cards.extend(
                    PiracyPlayed(player=who, target=name, plunder="map", piece=piece)
                    for piece in held_pieces(state, index)
                )
            elif target.maps.size:
                cards.append(PiracyPlayed(player=who, target=name, plunder="map"))
    if "skull" in held:
        cards.extend(SkullPlayed(player=who, target=state.seats[i]) for i in others)
    if "trade" in held and state.mode == "open":
        for colour in state.box.colours:
            if colour == seat.disk:
                continue
            # a seat's table (`conceal`) knows no other seat's disk: it trades by colour, "" the partner it cannot
            # name (`trade red`), which tally fills in as the trade is made (`is_revealed_as_made`)
            known = "unused" if colour in state.unused.known else ""
            cards.append(TradePlayed(player=who, colour=colour, partner=disk_holder(state, colour) or known))
    elif "trade" in held and who in state.seated:  # the seat knows its disk: each colour with whoever may hold it
        partners = [state.seats[i] for i in others] + ["unused"]
        trades = (TradePlayed(player=who, colour=c, partner=p) for c in state.box.colours for p in partners)
        cards.extend(trade for trade in trades if check_trade(state, trade) is None)
    if "spot" in held:
        cards.extend(BlackSpotPlayed(player=who, target=state.seats[i]) for i in others)
    return cards


def _discards(state: State, who: int, count: int) -> list[Event]:
    name = state.seats[who]
    hand = state.players[who].hand
    if state.mode == "table" and name not in state.seated:
        return [CardsDiscarded(player=name, cards=[None] * count)]
    if count == 1:
        return [CardsDiscarded(player=name, cards=[c]) for c in sorted(set(hand.known))]
    return [CardsDiscarded(player=name, cards=list(c)) for c in sorted(set(combinations(sorted(hand.known), count)))]


def _returns(state: State) -> list[Event]:
    seat = state.player
    excess = seat.maps.size - MAP_LIMIT
    if state.mode == "table" and state.player_name not in state.seated:
        return [MapsReturned(player=state.player_name, pieces=[None] * excess)]
    return [
        MapsReturned(player=state.player_name, pieces=list(c))
        for c in sorted(set(combinations(sorted(seat.maps.known), excess)))
    ]


def _setup_moves(state: State) -> list[Event]:
    if state.mode == "open":
        return []
    if state.stage == "setup":
        return [DisksChosen(disks=disks) for disks in _disk_namings(state)]
    # the deal names no hand: a seated seat names its own from its own device (`hand_named`), and no device may
    # name another's; every other seat's hand stays unseen in table mode
    hurricanes = state.copies.get("hurricane", 0)
    moves: list[Event] = [CardsDealt()]
    for k in range(1, hurricanes + 1):
        moves.extend(CardsDealt(hurricanes=list(names)) for names in combinations_with_replacement(state.seats, k))
    return moves


def _disk_namings(state: State) -> list[dict[str, str]]:
    """The disks the table's `disks` (or `reshuffle`) may name: none, each seated seat then naming its own from its
    own device (`hand disk COLOUR`), or one seated seat's own, each colour (a recorder who is that seat enters it with
    the table's). Never several seats' at once: no one device may set another seat's secret."""
    return [{}] + [{seat: colour} for seat in state.seated for colour in state.box.colours]


def _disks_owed(state: State) -> list[Event]:
    """A seat that owes only its disk (its hand is named) names one of the colours no one is known to hold; a hand
    owed is too many ways to list (`to_act` says how to enter it)."""
    held = located_disks(state)
    moves: list[Event] = []
    for name in state.hands_owed:
        seat = state.players[state.seats.index(name)]
        if seat.hand.unknown or seat.disk is not None:
            continue
        moves.extend(HandNamed(player=name, disk=colour) for colour in state.box.colours if not held[colour])
    return moves


def legal_moves(state: State) -> list[Event]:
    if state.hands_owed:
        return _disks_owed(state)
    phase = state.phase
    if phase == "play":
        return _play_moves(state)
    if phase == "start":
        return _start_moves(state)
    if phase == "draw":
        head = state.owed[0]
        return _draw_moves(state, state.seats[head.seat], min(head.count, pile_size(state.pile)))
    if phase == "discard":
        return _discards(state, state.current, state.player.hand.size - state.hand_size)
    if phase == "maps":
        return _returns(state)
    if phase == "storm":
        return [DisksRedrawn(disks=disks) for disks in _disk_namings(state)] if state.mode == "table" else []
    if phase == "setup":
        return _setup_moves(state)
    return []  # pick (tally deals it), reveal (the log cannot list what it has not seen), over


# --------------------------------------------------------------------------- chance (open mode)


def shuffles(state: State) -> dict[str, list[str]]:
    """The piles tally shuffles now (open mode): the setup, the disks after a Hurricane, a blind pick."""
    if state.mode != "open":
        return {}
    phase = state.phase
    if phase == "setup":
        return {"disks": list(state.box.colours), "maps": list(state.box.pieces), "deck": deck_cards(state.copies)}
    if phase == "storm":
        return {"disks": list(state.box.colours)}
    if phase == "pick":
        source = state.players[state.pick_from]
        zone = source.hand if state.pick == "hand" else source.maps
        return {"pick": list(zone.known)}
    return {}


def deal(state: State, shuffled: dict[str, list[str]]) -> list[Event]:
    n = len(state.seats)
    if state.phase == "setup":
        disks = shuffled["disks"]
        return [SetupDealt(disks=disks[:n], unused=disks[n:], maps=shuffled["maps"], deck=shuffled["deck"])]
    if state.phase == "storm":
        disks = shuffled["disks"]
        return [DisksDealt(disks=disks[:n], unused=disks[n:])]
    return [CardPicked(card=shuffled["pick"][0])]


def pick_move(state: State, below: Callable[[int], int]) -> Event | None:
    """`legal_moves(state)[below(n)]` for the n legal moves (the contract's `pick_move`); None when none is legal.

    An open game with no seat naming its own cards counts the moves of a turn's start, draws and play, and builds
    only the one drawn."""
    if state.mode != "open" or state.seated or state.hands_owed:
        return pick_listed(legal_moves(state), below)
    phase = state.phase
    if phase == "play":
        return _pick_play(state, below)
    if phase == "start":
        return _pick_start(state, below)
    if phase == "draw":  # one move: every card is known, and a draw takes what the pile holds
        below(1)
        return CardsDrawn(player=state.seats[state.owed[0].seat], cards=[*open_draw(state.pile, state.owed[0].count)])
    return pick_listed(legal_moves(state), below)


def _pick_start(state: State, below: Callable[[int], int]) -> Event | None:
    """`_start_moves` of an open game with no seat naming its own cards, counted: a draw, then each blind draw."""
    sources = [index for index in _others(state) if state.players[index].hand.size]
    drawn = 1 if state.pile else 0
    if not drawn + len(sources):
        return None
    index = below(drawn + len(sources))
    if index < drawn:
        return CardsDrawn(player=state.player_name, cards=[*open_draw(state.pile, 1)])
    return BlindDrawn(player=state.player_name, source=state.seats[sources[index - drawn]])


def _pick_play(state: State, below: Callable[[int], int]) -> Event:
    """`_play_moves` of an open game with no seat naming its own cards, counted: the same moves in the same order."""
    me = state.current
    who = state.seats[me]
    seat = state.players[me]
    hand = seat.hand.known
    plays = coin_plays(hand, state.box.values)
    held = set(hand)
    cards = _count_card_plays(state, seat, held) if held & _ACTION_CARDS else 0
    bought = purchases(state, seat) if seat.sets else []  # payments by count, 1 first
    if bought:
        bought = bought[: size_up_to(state.map_pile, len(bought))]
    lays = map_lays(state)
    discards = len(held) if seat.hand.size > state.hand_size else 0  # else the turn is passed
    index = below(len(plays) + cards + sum(map(len, bought)) + len(lays) + (discards or 1))
    if index < len(plays):
        forms, doubles = plays[index]
        return CoinsPlayed(player=who, sets=forms, doubles=doubles)
    index -= len(plays)
    if index < cards:
        return _card_plays(state, who, seat, held)[index]
    index -= cards
    for count, paid in enumerate(bought, 1):
        if index < len(paid):
            forms, used = paid[index]
            pieces: list[str | None] = [*known_top(state.map_pile, count)]
            return MapsBought(player=who, count=count, paid=forms, doubles=used, pieces=pieces)
        index -= len(paid)
    if index < len(lays):
        return MapLaid(player=who, pieces=lays[index])
    index -= len(lays)
    if discards:
        return CardsDiscarded(player=who, cards=[sorted(held)[index]])
    return TurnPassed(player=who)


def _count_card_plays(state: State, seat: Seat, held: set[str]) -> int:
    """How many moves `_card_plays` lists in an open game with no seat naming its own cards, without building them."""
    others = len(state.seats) - 1
    count = 0
    if "piracy" in held:
        for index in _others(state):
            target = state.players[index]
            count += len(set(target.sets)) + (1 if target.doubles else 0) + (1 if target.maps.size else 0)
    if "skull" in held:
        count += others
    if "trade" in held:
        count += len(state.box.colours) - (seat.disk in state.box.colours)
    if "spot" in held:
        count += others
    return count


_ACTION_CARDS = frozenset(("piracy", "skull", "trade", "spot"))
