"""Splice's guards, one small check per rule id, typed on the event each judges (a purchase's are in `buying`);
`rules` registers them in their fixed order."""

from __future__ import annotations

from collections import Counter

from ...knowledge import Zone, can_reveal
from ...model import Ruling, illegal, unverifiable
from ...seated import seat_index
from ...text import plural, quote
from .components import MAP_LIMIT, MAX_WILD_PIECES, POSITIONS, card_name, deck_cards, read_set
from .events import (
    BlackSpotPlayed,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDiscarded,
    CardsDrawn,
    CoinsPlayed,
    DisksDealt,
    HoldingsRevealed,
    MapLaid,
    MapsReturned,
    PiracyPlayed,
    SetupDealt,
    SkullPlayed,
    TradePlayed,
    TurnPassed,
)
from .state import (
    State,
    disk_holder,
    first_lacking,
    known_top,
    located_cards,
    located_disks,
    located_pieces,
    missing,
    size_up_to,
    take_unnamed,
)

# --------------------------------------------------------------------------- setup


def _is_permutation(given: list[str], wanted: list[str]) -> bool:
    return len(given) == len(wanted) and Counter(given) == Counter(wanted)


def check_setup(state: State, event: SetupDealt) -> Ruling | None:
    colours = list(state.box.colours)
    if len(event.disks) != len(state.seats) or not _is_permutation(event.disks + event.unused, colours):
        return illegal(
            "splice.setup.disks-first",
            f"the deal gives each of the {len(state.seats)} players one disk and leaves the rest unused, each colour once",
        )
    if not _is_permutation(event.maps, list(state.box.pieces)):
        return illegal(
            "splice.setup.map-pile", "the Map Pile holds every regular map piece exactly once, and nothing else"
        )
    if not _is_permutation(event.deck, deck_cards(state.copies)):
        return illegal(
            "splice.setup.deal", "the deck holds every card of the manifest in play exactly once (no regular map piece)"
        )
    return None


def check_cards_dealt(state: State, event: CardsDealt) -> Ruling | None:
    hurricanes = state.copies.get("hurricane", 0)
    for name in event.hurricanes:
        if name not in state.seats:
            return illegal(
                "splice.setup.deal", f"no player {quote(name)} at this table was dealt a Hurricane", player=name
            )
    if len(event.hurricanes) > hurricanes:
        return illegal(
            "splice.setup.deal", f"the deck holds {plural(hurricanes, 'Hurricane')}, not {len(event.hurricanes)}"
        )
    for name in set(event.hurricanes):
        if event.hurricanes.count(name) > state.hand_size:
            return illegal("splice.setup.deal", f"{name} was dealt {state.hand_size} cards, not more Hurricanes")
    return None


def check_disks(state: State, event: DisksDealt) -> Ruling | None:
    if len(event.disks) != len(state.seats) or not _is_permutation(event.disks + event.unused, list(state.box.colours)):
        return illegal(
            "splice.hurricane.reshuffle", "every player draws one disk and the rest lie unused, each colour once"
        )
    return None


def check_picked(state: State, event: CardPicked) -> Ruling | None:
    source = state.players[state.pick_from]
    zone = source.hand if state.pick == "hand" else source.maps
    if event.card not in zone.known:
        where = "hand" if state.pick == "hand" else "map pieces"
        return illegal(
            "splice.draw.blind",
            f"{quote(event.card)} is not in {state.seats[state.pick_from]}'s {where}",
            card=event.card,
        )
    return None


# --------------------------------------------------------------------------- draws


def first_impossible(
    pile: tuple[Zone, ...], entries: list[str | None], copies: dict[str, int], placed: Counter[str], shown: str = ""
) -> int:
    """Table mode: the index of the first entry that cannot come off the top of `pile` next, or -1.

    A named entry must be known in the top batch, or one of its unknown cards may be it (`copies` minus what the log
    has `placed`). An unnamed entry (None) fails only when the top batch is nothing but `shown` cards, which are
    always named when drawn (a Hurricane)."""
    segments = list(pile)
    for index, entry in enumerate(entries):
        segment = segments[0]
        if entry is None:
            if shown and not segment.unknown and segment.known and all(c == shown for c in segment.known):
                return index
            if segment.known and (segment.unknown or len(set(segment.known)) > 1):
                placed.subtract(segment.known)  # the log forgets what that batch held
            segment, _ = take_unnamed(segment)
        elif entry in segment.known:
            segment = segment.remove(entry)
        elif segment.unknown and can_reveal(entry, copies, placed):
            segment = segment.remove(entry)  # one unknown card turns out to be it
            placed[entry] += 1
        else:
            return index
        if segment.size:
            segments[0] = segment
        else:
            del segments[0]
    return -1


def draw_problem(state: State, cards: list[str | None]) -> str | None:
    """What is wrong with drawing `cards` from the top of the Draw Pile, or None."""
    if state.mode == "open":
        top = known_top(state.pile, len(cards))
        if cards != top:
            shown = ", ".join(c or "?" for c in cards)
            return f"the top of the Draw Pile is {', '.join(top)}, not {shown}"
        return None
    copies = state.copies
    failed = first_impossible(state.pile, cards, copies, located_cards(state), "hurricane")
    if failed < 0:
        return None
    card = cards[failed]
    if card is None:
        return "the top card of the Draw Pile is the Hurricane (it went to the bottom alone): it must be named"
    where = (
        "is not in the deck"
        if card not in copies
        else "cannot be the next card of the Draw Pile: every copy is placed elsewhere"
    )
    return f"{card_name(card)} {where}"


def check_drawn(state: State, event: CardsDrawn) -> Ruling | None:
    who = event.player
    cards = event.cards
    count = len(cards)
    pile = state.pile
    if state.phase == "start":
        if not pile:
            return illegal(
                "splice.draw.empty-pile", f"the Draw Pile is empty: {who} draws blind from another player's hand"
            )
        if count != 1:
            return illegal("splice.draw.first", f"the draw that starts a turn is one card, not {count}", count=count)
    else:
        owed = state.owed[0].count
        segment = pile[0]
        if len(segment.known) + segment.unknown < owed:  # the top batch alone may not hold them all: is the pile short?
            owed = size_up_to(pile, owed)
        # a draw is the cards owed, or fewer when it stops at a Hurricane
        if not count or (count != owed and (count > owed or cards[-1] != "hurricane")):
            return illegal(
                "splice.draw.owed",
                f"{who} owes {plural(owed, 'card')} from the Draw Pile, not {count} (a draw stops only at a Hurricane)",
                owed=owed,
                drawn=count,
            )
        if count > 1 and "hurricane" in cards[:-1]:
            return illegal(
                "splice.hurricane.immediate",
                "a Hurricane stops the draw the moment it is drawn: it is the last card of a draw",
            )
    if state.mode == "open" and pile[0].known[:count] == tuple(cards):  # the top cards, as an open draw names them
        return None
    problem = draw_problem(state, cards)
    if problem:
        return illegal("splice.draw.top-card", problem, cards=cards)
    return None


def _other_seat(state: State, player: str, target: str, rule: str, what: str) -> Ruling | None:
    if target == player:
        return illegal(rule, f"{player} cannot {what} themselves", target=target)
    if target not in state.seats:
        return illegal(rule, f"no player {quote(target)} at this table to {what}", target=target)
    return None


def check_blind(state: State, event: BlindDrawn) -> Ruling | None:
    seats, name = state.seats, event.source
    if name == event.player or name not in seats:
        return _other_seat(state, event.player, name, "splice.draw.blind", "draw blind from")
    source = state.players[seats.index(name)]
    if not source.hand.known and not source.hand.unknown:
        return illegal("splice.draw.blind", f"{event.source} holds no card to draw from", source=event.source)
    if event.card is not None:
        if state.mode == "open":
            return illegal("splice.draw.blind", "in open mode tally picks the blind card at random: name no card")
        if event.card == "hurricane" or missing(source.hand, [event.card], state.copies, located_cards(state)):
            return illegal(
                "splice.draw.blind", f"{card_name(event.card)} cannot be in {event.source}'s hand", card=event.card
            )
    return None


# --------------------------------------------------------------------------- plays from the hand


def _in_hand(state: State, cards: list[str]) -> str | None:
    """The first card the current player cannot have in hand, or None."""
    hand = state.player.hand
    if not hand.unknown:
        return first_lacking(hand.known, cards)
    return missing(hand, cards, state.copies, located_cards(state))


def _not_held(state: State, card: str, cards: list[str]) -> Ruling:
    """Why the current player cannot play `cards`: `card` is the first of them the hand cannot hold."""
    who = state.player_name
    hand = state.player.hand
    holds = " ".join(hand.known)
    if hand.unknown:
        unseen = plural(hand.unknown, "unseen card")
        holds = f"{holds} and {unseen}" if holds else unseen
    holds = holds or "nothing"
    name = card_name(card)
    known = hand.known.count(card)
    needs = cards.count(card)
    copies = state.copies.get(card, 0)
    if hand.unknown and not copies:
        said = f"{who} cannot hold {name}: this game's deck has none"
    elif hand.unknown:
        # an unseen card could be any copy the log has not located: every one of them is located elsewhere
        held = f"{who} holds only {known} {name} and the play needs {needs}" if known else f"{who} cannot hold {name}"
        if known:
            every = (
                f"the box holds only {copies}"
                if copies <= known
                else f"every other copy of the box's {copies} is located elsewhere"
            )
        else:
            every = (
                "the box's only copy is located elsewhere"
                if copies == 1
                else f"all {copies} copies of the box are located elsewhere"
            )
        said = f"{held}: {every}"
    elif known:
        said = f"{who} holds only {known} {name} and the play needs {needs}"
    else:
        said = f"{who} does not hold {name}"
    return illegal("splice.play.in-hand", f"{said} (holds {holds})", card=card)


def read_sets(state: State, forms: list[str]) -> list | Ruling:
    sets = []
    for form in forms:
        found = read_set(form, state.box.values)
        if isinstance(found, str):
            parts = form.split("-")
            rule = "splice.coins.wild" if parts and all(p[:1] in ("w", "*") for p in parts) else "splice.coins.sets"
            return illegal(rule, found, set=form)
        sets.append(found)
    return sets


def check_coins(state: State, event: CoinsPlayed) -> Ruling | None:
    if not 0 <= event.doubles <= 99:
        return illegal("splice.coins.double", f"{event.doubles} is not a number of Double Your Gold cards")
    if not event.sets and not event.doubles:
        return illegal("splice.coins.sets", "a coin play lays down at least one set or Double Your Gold card")
    sets = read_sets(state, event.sets)
    if isinstance(sets, Ruling):
        return sets
    cards = [card for s in sets for card in s.cards] + ["double"] * event.doubles
    lacking = _in_hand(state, cards)
    return _not_held(state, lacking, cards) if lacking else None


def _special(state: State, card: str) -> Ruling | None:
    lacking = _in_hand(state, [card])
    return _not_held(state, lacking, [card]) if lacking else None


def check_piracy(state: State, event: PiracyPlayed) -> Ruling | None:
    ruling = _other_seat(state, event.player, event.target, "splice.special.target", "play Piracy on") or _special(
        state, "piracy"
    )
    if ruling:
        return ruling
    target = state.players[seat_index(state.seats, event.target)]
    plunder = event.plunder
    if len(plunder.split()) > 1:
        taken = " and ".join(plunder.split())
        return illegal(
            "splice.piracy.plunder",
            f"one Piracy takes exactly one thing (a coin set, a Double Your Gold card or a map piece), not {taken}",
            plunder=plunder,
        )
    if plunder == "map":
        if not target.maps.size:
            return illegal("splice.piracy.nothing", f"{event.target} has no map piece to take", target=event.target)
        if event.piece is not None:
            if state.mode == "open":
                return illegal(
                    "splice.piracy.plunder", "in open mode tally picks the map piece at random: name no piece"
                )
            if missing(target.maps, [event.piece], state.box.piece_copies, located_pieces(state)):
                return illegal(
                    "splice.piracy.plunder",
                    f"{quote(event.piece)} cannot be one of {event.target}'s map pieces",
                    piece=event.piece,
                )
        return None
    if event.piece is not None:
        return illegal("splice.piracy.plunder", "only a map piece taken by Piracy is named with `as`")
    if plunder == "double":
        if not target.doubles:
            return illegal(
                "splice.piracy.nothing", f"{event.target} has no Double Your Gold card in play", target=event.target
            )
        return None
    found = read_set(plunder, state.box.values)
    if isinstance(found, str):
        return illegal(
            "splice.piracy.plunder", f"Piracy takes one coin set, `double` or `map`: {found}", plunder=plunder
        )
    if found.form not in target.sets:
        shown = " ".join(target.sets) or "none"
        return illegal(
            "splice.piracy.nothing",
            f"{event.target} has no set {found.form} in play (sets in play: {shown})",
            plunder=plunder,
        )
    return None


def check_skull(state: State, event: SkullPlayed) -> Ruling | None:
    return _other_seat(state, event.player, event.target, "splice.special.target", "play the Skull on") or _special(
        state, "skull"
    )


def check_spot(state: State, event: BlackSpotPlayed) -> Ruling | None:
    return _other_seat(
        state, event.player, event.target, "splice.special.target", "play the Black Spot on"
    ) or _special(state, "spot")


def check_trade(state: State, event: TradePlayed) -> Ruling | None:
    ruling = _special(state, "trade")
    if ruling:
        return ruling
    box = state.box
    colour = event.colour
    if colour not in box.colours:
        return illegal(
            "splice.trade.swap",
            f"there is no {quote(colour)} gemstone disk (colours: {', '.join(box.colours)})",
            colour=colour,
        )
    mine = state.player
    name = box.colour_name(colour)
    if mine.disk == colour:
        return illegal("splice.trade.own-colour", f"{event.player} already holds the {name} disk", colour=colour)
    partner = event.partner
    if partner != "unused":
        ruling = _other_seat(state, event.player, partner, "splice.trade.swap", "trade disks with")
        if ruling:
            return ruling
    if state.mode == "open":
        holder = disk_holder(state, colour) or "unused"
        if holder != partner:
            where = "lies in the unused pile" if holder == "unused" else f"is {holder}'s"
            return illegal(
                "splice.trade.swap",
                f"the {name} disk {where}, so the trade is with {holder}",
                colour=colour,
                holder=holder,
            )
        return None
    placed = located_disks(state)
    if partner == "unused":
        if colour in state.unused.known or (state.unused.unknown and not placed[colour]):
            return None
        return illegal(
            "splice.trade.swap",
            f"the {name} disk cannot be in the unused pile: the log has placed it elsewhere",
            colour=colour,
        )
    held = state.players[seat_index(state.seats, partner)].disk
    if held == colour or (held is None and not placed[colour]):
        return None
    return illegal(
        "splice.trade.swap", f"{partner} cannot hold the {name} disk: the log has placed it elsewhere", colour=colour
    )


# --------------------------------------------------------------------------- laying down a map


def check_lay(state: State, event: MapLaid) -> list[Ruling]:
    who = event.player
    pieces = event.pieces
    box = state.box
    regular = [p for p in pieces if p in box.pieces]
    wild = [p for p in pieces if len(p) == 2 and p[0] == "x" and p[1] in "1234"]
    if len(pieces) != POSITIONS or len(regular) + len(wild) != POSITIONS:
        return [
            illegal(
                "splice.map.complete",
                f"a completed map is {POSITIONS} pieces, one per position; {who} laid {' '.join(pieces) or 'nothing'}",
            )
        ]
    positions = sorted(int(p[1]) for p in pieces)
    if positions != list(range(1, POSITIONS + 1)):
        return [
            illegal(
                "splice.map.wild" if wild else "splice.map.complete",
                f"{' '.join(pieces)} does not cover positions 1 to {POSITIONS} once each (a wild piece fits only its own position)",
            )
        ]
    colours = {p[0] for p in regular}
    if len(colours) != 1:
        return [illegal("splice.map.complete", f"{' '.join(pieces)} mixes colours: a map is one colour")]
    if len(wild) > MAX_WILD_PIECES:
        return [
            illegal(
                "splice.map.wild",
                f"{' '.join(pieces)} holds {len(wild)} wild pieces; a map holds at most {MAX_WILD_PIECES}",
            )
        ]
    seat = state.player
    colour = colours.pop()
    lacking = missing(seat.maps, regular, box.piece_copies, located_pieces(state))
    if lacking:
        return [illegal("splice.map.held", f"{lacking} is not among {who}'s map pieces", piece=lacking)]
    lacking = _in_hand(state, wild)
    if lacking:
        return [illegal("splice.map.held", f"{who} does not hold {card_name(lacking)} in hand", piece=lacking)]
    name = box.colour_name(colour)
    if seat.disk is not None and seat.disk != colour:
        return [
            illegal(
                "splice.map.disk",
                f"{who}'s disk is {box.colour_name(seat.disk)}, not {name}",
                disk=seat.disk,
                colour=colour,
            )
        ]
    if seat.disk is None and located_disks(state)[colour]:
        return [
            illegal(
                "splice.map.disk", f"{who} cannot hold the {name} disk: the log has placed it elsewhere", colour=colour
            )
        ]
    return _check_next_turn(state, wild)


def _check_next_turn(state: State, wild: list[str]) -> list[Ruling]:
    fresh = state.fresh
    if not wild or fresh is None:
        return []
    who = state.player_name
    hand = state.player.hand
    if fresh != "?":
        if fresh not in wild:
            return []
        before = list(hand.known)
        before.remove(fresh)
        short = wild.count(fresh) - before.count(fresh)  # copies the map needs beyond those known to be held before
        if short <= 0:
            return []
        name = card_name(fresh)
        # an unseen card held before may be another copy only if the box has one the log has not located
        spare = state.copies.get(fresh, 0) - located_cards(state)[fresh]
        if min(hand.unknown, spare) >= short:
            return [
                unverifiable(
                    "splice.map.next-turn",
                    f"{who} holds {name} drawn this turn; the log cannot tell whether another copy was held before",
                )
            ]
        if not hand.unknown:
            why = ""
        elif state.copies.get(fresh, 0) == 1:
            why = " and the box holds only that one"
        else:
            why = f" and every other copy of the box's {state.copies[fresh]} is located elsewhere"
        return [
            illegal(
                "splice.map.next-turn",
                f"{name} was drawn at the start of this turn{why}: the map was completed this turn and waits for the next",
                piece=fresh,
            )
        ]
    unseen = [p for p in wild if p not in hand.known]
    if not unseen:
        return []
    if hand.unknown <= 1:
        return [
            illegal(
                "splice.map.next-turn",
                f"{card_name(unseen[0])} can only be the card {who} drew at the start of this turn: the map waits for the next turn",
                piece=unseen[0],
            )
        ]
    if hand.unknown <= len(unseen):  # every unseen card is a piece of the map, the one drawn this turn among them
        return [
            illegal(
                "splice.map.next-turn",
                f"{who}'s {hand.unknown} cards the log has not seen are all pieces of this map, so one of them "
                "is the card drawn at the start of this turn: the map waits for the next turn",
                piece=unseen[0],
            )
        ]
    return [
        unverifiable(
            "splice.map.next-turn",
            f"the log never saw {who}'s card drawn this turn: it cannot tell whether {card_name(unseen[0])} was held before the turn",
        )
    ]


# --------------------------------------------------------------------------- the end of a turn


def _named_cards_problem(state: State, who: int, cards: list[str | None]) -> str | None:
    """A message (with a space) or the card a player cannot discard, or None."""
    zone = state.players[who].hand
    named = [c for c in cards if c is not None]
    if state.mode == "open":
        if len(named) < len(cards):
            return "in open mode a discard names its cards"
        return first_lacking(zone.known, named)
    return missing(zone, named, state.copies, located_cards(state))


def check_discard(state: State, event: CardsDiscarded) -> Ruling | None:
    who = state.current  # the turn made sure the current player discards
    zone = state.players[who].hand
    hand = len(zone.known) + zone.unknown
    size = state.hand_size
    cards = event.cards
    if state.phase == "play":
        if hand <= size:
            return illegal(
                "splice.turn.discard",
                f"{event.player} holds {plural(hand, 'card')}, no more than {size}: with no play, the turn is passed (`pass`)",
            )
        if len(cards) != 1:
            return illegal("splice.turn.discard", f"a turn without a play discards exactly one card, not {len(cards)}")
        rule = "splice.turn.discard"
    else:
        excess = hand - size
        if len(cards) != excess:
            return illegal(
                "splice.hand.discard",
                f"{event.player} holds {plural(hand, 'card')} and discards exactly {excess} to keep {size}, not {len(cards)}",
                excess=excess,
            )
        rule = "splice.hand.discard"
    if len(cards) == 1 and cards[0] in zone.known:  # one card, known to be held: nothing more to ask, in any mode
        return None
    problem = _named_cards_problem(state, who, cards)
    if problem:
        text = problem if " " in problem else f"{event.player} does not hold {card_name(problem)}"
        return illegal(rule, text, cards=cards)
    return None


def check_pass(state: State, event: TurnPassed) -> Ruling | None:
    hand = state.player.hand.size
    if hand > state.hand_size:
        return illegal(
            "splice.turn.pass",
            f"{event.player} holds {plural(hand, 'card')}: a turn without a play discards one (`discard CARD`)",
        )
    return None


def check_return(state: State, event: MapsReturned) -> Ruling | None:
    seat = state.player
    excess = seat.maps.size - MAP_LIMIT
    if len(event.pieces) != excess:
        return illegal(
            "splice.maps.return",
            f"{event.player} holds {plural(seat.maps.size, 'map piece')} and returns exactly {excess}, not {len(event.pieces)}",
            excess=excess,
        )
    if state.mode == "open":
        pieces = [p for p in event.pieces if p is not None]
        if len(pieces) < len(event.pieces) or first_lacking(seat.maps.known, pieces) is not None:
            return illegal(
                "splice.maps.return",
                f"{event.player} holds {' '.join(seat.maps.known)}: return pieces from those",
                pieces=event.pieces,
            )
        return None
    named = [p for p in event.pieces if p is not None]
    lacking = missing(seat.maps, named, state.box.piece_copies, located_pieces(state))
    if lacking:
        return illegal(
            "splice.maps.return", f"{quote(lacking)} cannot be one of {event.player}'s map pieces", piece=lacking
        )
    return None


def check_reveal(state: State, event: HoldingsRevealed) -> Ruling | None:
    who = seat_index(state.seats, event.player)
    seat = state.players[who]
    box = state.box
    if event.disk not in box.colours:
        return illegal("splice.end.reveal", f"there is no {quote(event.disk)} disk (colours: {', '.join(box.colours)})")
    if seat.disk is not None and seat.disk != event.disk:
        return illegal("splice.end.reveal", f"{event.player}'s disk is known to be {box.colour_name(seat.disk)}")
    if seat.disk is None and located_disks(state)[event.disk]:
        return illegal("splice.end.reveal", f"the {box.colour_name(event.disk)} disk is placed elsewhere")
    if len(event.pieces) != seat.maps.size:
        return illegal(
            "splice.end.reveal", f"{event.player} holds {plural(seat.maps.size, 'map piece')}: show all of them"
        )
    lacking = missing(seat.maps, event.pieces, box.piece_copies, located_pieces(state))
    if lacking:
        return illegal("splice.end.reveal", f"{quote(lacking)} cannot be one of {event.player}'s map pieces")
    return None
