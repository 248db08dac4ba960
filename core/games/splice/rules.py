"""Splice's rules (the house rules of the seed): every rule id with its English text, the options, and the
guards, one small check per rule id.

`check` runs the guards in a fixed order (the game's state and whose move it is first, then the move's own
rules) and returns the rulings that forbid an event; `permit` names the rule that allows a legal one.
"""

from __future__ import annotations

from collections import Counter
from typing import Callable

from ...knowledge import Zone, can_reveal
from ...model import Event, Option, RuleDoc, Ruling, illegal, legal, unverifiable
from ...text import plural, quote
from .components import MAP_LIMIT, MAX_WILD_PIECES, POSITIONS, PRICE, card_name, deck_cards, read_set
from .events import (
    CHANCE,
    PLAYS,
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
    HoldingsRevealed,
    MapLaid,
    MapsBought,
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
    payment_value,
    pile_size,
    seat_index,
    take_unnamed,
)
from .view import obligation, to_act

# --------------------------------------------------------------------------- rules text

RULES: tuple[RuleDoc, ...] = (
    # setup
    RuleDoc("splice.setup.disks-first", "Gemstone disks are chosen first: the disks lie face down and are shuffled, each player takes one at random, looks at it and keeps it face down; the disks left over stay face down to the side, unused. No card is dealt before every player has a disk."),
    RuleDoc("splice.setup.map-pile", "All regular map pieces (never the wild ones) are shuffled face down into the Map Pile."),
    RuleDoc("splice.setup.deal", "The rest of the deck, wild map pieces included, is shuffled and each player is dealt 5 cards (option `hand-size`); what is left is the Draw Pile, face down. There is no discard pile."),
    RuleDoc("splice.setup.incomplete", "No one plays before the setup is complete: disks chosen, Map Pile laid out, hands dealt, and any Hurricane dealt resolved."),
    RuleDoc("splice.setup.first-player", "The first seat named in the log plays first, and play goes clockwise: in seat order."),
    # turns
    RuleDoc("splice.turn.out-of-turn", "Only the player whose turn it is may draw and play; only the player who owes a draw, a discard or a return of map pieces may make it."),
    RuleDoc("splice.turn.pending", "An open obligation comes first: a draw owed, a discard, map pieces to return, or a reveal must be made before anything else."),
    RuleDoc("splice.turn.game-over", "Once the game has ended no further moves are made."),
    RuleDoc("splice.turn.one-play", "After the draw a player makes exactly one play: play coin sets (with Double Your Gold cards), play one Special Card, buy map pieces, or lay down a completed map. Plays are never combined in one turn."),
    RuleDoc("splice.turn.discard", "A player who makes none of those plays instead discards one card face down at the bottom of the Draw Pile, keeping 5 cards; that is the whole turn."),
    RuleDoc("splice.turn.pass", "A player who makes no play but holds no more than 5 cards (there was nothing to draw) has nothing to discard and passes (assumption)."),
    RuleDoc("splice.play.in-hand", "Coin cards, wild cards, Double Your Gold cards and Special Cards are played from the player's own hand: a card the player does not hold cannot be played."),
    # draws
    RuleDoc("splice.draw.first", "Every turn starts with exactly one draw, before anything else: the top card of the Draw Pile, or one card drawn blind from another player's hand."),
    RuleDoc("splice.draw.empty-pile", "A card is drawn from the Draw Pile only while it holds a card."),
    RuleDoc("splice.draw.blind", "A blind draw takes one card, unseen, from the hand of another player who holds at least one card; in open mode tally picks it at random."),
    RuleDoc("splice.draw.no-draw", "When the Draw Pile is empty and no other player holds a card, the turn goes on without a draw (assumption)."),
    RuleDoc("splice.draw.top-card", "Cards are drawn from the top of the Draw Pile: in open mode the log knows which card that is; in table mode a named card must still be possible there (a card the log has placed elsewhere, or a copy that does not exist, cannot turn up)."),
    RuleDoc("splice.draw.owed", "A player who owes cards draws exactly that many from the top of the Draw Pile, or all it holds if fewer; a draw stops at a Hurricane."),
    RuleDoc("splice.draw.replace", "When the turn of a player who drew blind from another hand is complete, the player drawn from draws one card from the top of the Draw Pile to replace the card taken (unless a Skull already gave them a full hand)."),
    # the hand at the end of the turn
    RuleDoc("splice.hand.refill", "At the end of the turn a player holding fewer than 5 cards draws from the top of the Draw Pile up to 5 (as many as it holds). These cards are never drawn blind from another player: only the first draw of a turn may be."),
    RuleDoc("splice.hand.refill-not-playable", "Cards drawn at the end of the turn cannot be played until the player's next turn (the Hurricane aside: it is played at once)."),
    RuleDoc("splice.hand.discard", "At the end of the turn a player holding more than 5 cards discards face down at the bottom of the Draw Pile down to 5, choosing which; only cards the player holds."),
    RuleDoc("splice.pile.bottom", "Every card that leaves play (discards, spent coin sets and Double Your Gold cards, finished Special Cards, the Hurricane) goes face down to the bottom of the Draw Pile, in the order the move lists them."),
    # coins
    RuleDoc("splice.coins.sets", "Coin cards are played in sets: pairs (two cards of one value) or 3-card runs of consecutive values (1-2-3, 2-3-4, ...). Any number of sets may be played at once; a set is worth the sum of its values."),
    RuleDoc("splice.coins.wild", "A wild card stands in for any coin card of a set, at the value the player gives it; a set holds at least one coin card (assumption: a set of wild cards alone has no value)."),
    RuleDoc("splice.coins.double", "Double Your Gold cards are played with coin sets, or alone as the whole play, whether or not the player has sets in play. While a player has a Double Your Gold card in play, all their coin sets in play count double; whether several double again is option `double-stack`."),
    # special cards
    RuleDoc("splice.special.target", "Piracy, Skull and Black Spot are played on another player, never on yourself."),
    RuleDoc("splice.piracy.plunder", "Piracy takes from the target exactly one of: one coin set in play, one Double Your Gold card in play, or one map piece chosen blind from their face-down pieces (in open mode tally picks it at random)."),
    RuleDoc("splice.piracy.nothing", "Piracy can only take what the target has: the named set or a Double Your Gold card in play, or at least one map piece."),
    RuleDoc("splice.piracy.laid", "A coin set or Double Your Gold card taken by Piracy is laid down in front of the pirate at once (it never goes to the hand) and counts with the pirate's own; the target's sets lose the doubling when their last Double Your Gold card is taken. A taken map piece joins the pirate's face-down pieces. The Piracy card then goes to the bottom of the Draw Pile."),
    RuleDoc("splice.skull.redraw", "A Skull played on a player makes them put their whole hand at the bottom of the Draw Pile and draw 5 new cards from the top; then the Skull goes to the bottom of the Draw Pile."),
    RuleDoc("splice.trade.swap", "Trade Certificate: call out a gem colour. The player who holds that disk trades it for yours; if it lies in the unused pile, take it and leave yours there face down. In table mode the move says who held it, and that must still be possible."),
    RuleDoc("splice.trade.own-colour", "A Trade Certificate calls out a colour other than your own disk's."),
    RuleDoc("splice.spot.skip", "A Black Spot played on a player makes them lose their next turn; then it goes to the bottom of the Draw Pile. Several Black Spots cost a turn each."),
    # hurricanes
    RuleDoc("splice.hurricane.count", "The deck holds 1 Hurricane card, as the house rules chose (option `hurricanes`: 2 plays both of the box's Hurricanes)."),
    RuleDoc("splice.hurricane.immediate", "A Hurricane drawn at any time is dropped face up in the centre at once and stops all play: nothing else happens until the gemstone disks have been shuffled and drawn again. A draw ends with the Hurricane."),
    RuleDoc("splice.hurricane.reshuffle", "After a Hurricane all disks, the unused ones included, are shuffled face down, every player draws one at random and looks at it, and the rest lie aside unused; then the Hurricane goes to the bottom of the Draw Pile."),
    RuleDoc("splice.hurricane.start", "A Hurricane drawn as the first draw of a turn costs that turn: the player makes no play, draws nothing more, and play passes to the next player."),
    RuleDoc("splice.hurricane.refill", "A Hurricane drawn in the end-of-turn refill does not cost a turn: the player draws a card to replace it, finishes the refill, and play passes to the next player."),
    RuleDoc("splice.hurricane.skull", "A Hurricane drawn in a Skull redraw: its drawer draws one more card to get back to 5, play continues with the player after the one who played the Skull, and the Skull's target does not lose a turn."),
    RuleDoc("splice.hurricane.deal", "A Hurricane dealt in the first deal: after the deal the disks are shuffled, the Hurricane goes to the bottom of the Draw Pile and its holder draws a card to replace it; if that was the first player, their first turn is lost and the next seat begins."),
    RuleDoc("splice.hurricane.replacement", "A Hurricane drawn by a player replacing a card drawn blind from them: the disks are shuffled, the Hurricane goes to the bottom and they draw again; if they were next to play, they forfeit that turn and play passes to the player after them."),
    # buying map pieces
    RuleDoc("splice.buy.price", "Map pieces cost 20 gold each; several may be bought in one play."),
    RuleDoc("splice.buy.whole-sets", "Payment is in whole coin sets (with Double Your Gold cards whose doubling is used, which are spent too). No change is given, and every set or Double Your Gold card handed in must be needed for the price (assumption). Spent cards go to the bottom of the Draw Pile."),
    RuleDoc("splice.buy.earlier-turn", "Only coin sets already in play when the turn began can pay: sets are laid down on one turn and spent on a later one, since buying is a play of its own."),
    RuleDoc("splice.buy.map-pile", "Bought pieces come from the top of the Map Pile, unseen by the others: no searching, and no more pieces than the pile holds. In open mode the log knows them; in table mode a named piece must still be possible there."),
    RuleDoc("splice.maps.limit", "A player may hold at most 5 map pieces. Above that, after a purchase or Piracy, the player chooses pieces to return face down to the bottom of the Map Pile until 5 are left."),
    RuleDoc("splice.maps.return", "A return gives back exactly the pieces over 5, and only pieces the player holds."),
    RuleDoc("splice.maps.wild-in-hand", "Wild map pieces come from the Draw Pile and are kept in the hand like any card (assumption): they are not map pieces on the table and do not count towards the limit of 5."),
    # laying down a map
    RuleDoc("splice.map.complete", "A completed map is four pieces, one for each position 1 to 4, all regular pieces of one colour, wild map pieces standing in for missing positions."),
    RuleDoc("splice.map.wild", "A wild map piece only fits its own position, and a completed map holds at most two wild pieces."),
    RuleDoc("splice.map.held", "The regular pieces of a map laid down are the player's own face-down pieces; its wild pieces come from the player's hand."),
    RuleDoc("splice.map.disk", "A map is only laid down in the colour of the player's gemstone disk; laying it reveals the disk."),
    RuleDoc("splice.map.next-turn", "A map is laid down on a turn after the one that completed it: no piece of it may be the card drawn at the start of this turn. In table mode, when that card was not seen and could be one of the wild pieces, the log cannot tell."),
    RuleDoc("splice.map.win", "Laying down a completed map matching your disk is the whole turn and wins the game at once."),
    # the end without a map
    RuleDoc("splice.end.all-bought", "When every map piece has been bought and the Map Pile is empty at the end of a turn while nobody has won (option `all-bought`): under `end` the round is finished, so everyone else gets one more turn to lay down a map, and then the game ends; under `play-on` play simply goes on."),
    RuleDoc("splice.end.stalled", "A stalled game ends: after 20 full rounds (option `stall-rounds`; 0 never) in which no map piece was bought or taken by Piracy, the game ends without a map."),
    RuleDoc("splice.end.no-map", "A game that ends without a map laid down is decided by option `no-map`: `draw` (nobody wins) or `most-matching` (most map pieces of the colour of one's own disk wins; a tie is shared)."),
    RuleDoc("splice.end.reveal", "Table mode, `no-map=most-matching`: at the end every player shows their disk and all their map pieces, in seat order; what is shown must be possible."),
)
RULE_IDS = frozenset(r.id for r in RULES)

OPTIONS: tuple[Option, ...] = (
    Option("hurricanes", "1", ("1", "2"), help="Hurricane cards shuffled into the deck (the house rules keep one of the box's two)"),
    Option("double-stack", "no", ("no", "yes"), help="whether a second Double Your Gold card in play doubles again"),
    Option("hand-size", "5", (), 3, 7, help="cards dealt and kept in a hand"),
    Option("stall-rounds", "20", (), 0, 999, help="full rounds without a map piece bought or taken that end a stalled game (0: never)"),
    Option("all-bought", "end", ("end", "play-on"), help="the Map Pile empty with nobody winning: finish the round and end, or play on"),
    Option("no-map", "draw", ("draw", "most-matching"), help="how a game that ends without a map laid down is decided"),
)


# --------------------------------------------------------------------------- who must act


def actor(state: State) -> int:
    """The seat whose move is awaited now, or -1 when it is the table's (or nobody's)."""
    phase = state.phase
    if phase in ("start", "play", "discard", "maps"):
        return state.current
    if phase == "draw":
        return state.owed[0].seat
    if phase == "reveal":
        return next(i for i, p in enumerate(state.players) if not p.revealed)
    return -1


def _expected(state: State) -> str:
    return to_act(state)[1]


def _owed(state: State) -> str:
    """The open obligation as a ruling says it: `ben must draw 1 card first (replacing the Hurricane dealt)`."""
    found = obligation(state)
    if found is None:
        return _expected(state)
    return f"{found['by']} must {found['obligation']} first ({found['why']})"


def _name(state: State, player: str) -> str:
    return player if player in state.seats else quote(player)


_PHASES: dict[type, tuple[str, ...]] = {
    CardsDrawn: ("start", "draw"),
    BlindDrawn: ("start",),
    CoinsPlayed: ("play",),
    PiracyPlayed: ("play",),
    SkullPlayed: ("play",),
    TradePlayed: ("play",),
    BlackSpotPlayed: ("play",),
    MapsBought: ("play",),
    MapLaid: ("play",),
    TurnPassed: ("play",),
    CardsDiscarded: ("play", "discard"),
    MapsReturned: ("maps",),
    HoldingsRevealed: ("reveal",),
}
_STORM_WHY = {
    "start": "drawn at the start of the turn",
    "refill": "drawn in the end-of-turn refill",
    "skull": "drawn in a Skull redraw",
    "deal": "dealt in the first deal",
    "replace": "drawn replacing a card taken blind",
}


def _table_event(state: State, event: Event) -> Ruling | None:
    """Chance (open mode, dealt by tally) and the table's entries (table mode): when each is expected."""
    kind = type(event)
    open_mode = state.mode == "open"
    if kind is SetupDealt:
        if not open_mode or state.phase != "setup":
            return illegal("splice.setup.deal", "the deal is recorded once, at the start of an open-mode game (tally deals it)")
        return None
    if kind is DisksChosen or kind is CardsDealt:
        if open_mode:
            return illegal("splice.setup.deal", "in open mode tally deals the disks and the cards")
        if state.stage not in ("setup", "dealing"):
            return illegal("splice.setup.deal", f"the setup is complete; {_expected(state)}")
        if kind is DisksChosen and state.stage == "dealing":
            return illegal("splice.setup.disks-first", "the disks are already chosen: the cards are dealt next")
        if kind is CardsDealt and state.stage == "setup":
            return illegal("splice.setup.disks-first", "choose the gemstone disks first (`disks`), then deal the cards")
        return None
    if kind is DisksDealt or kind is DisksRedrawn:
        if (kind is DisksDealt) != open_mode:
            which = "tally deals the disks" if open_mode else "the table enters `reshuffle` and the disks stay unseen"
            return illegal("splice.hurricane.reshuffle", f"in {state.mode} mode {which}")
        if state.phase != "storm":
            return illegal("splice.hurricane.reshuffle", f"no Hurricane is waiting for the disks to be shuffled; {_expected(state)}")
        return None
    if kind is CardPicked:
        if not open_mode or state.phase != "pick":
            return illegal("splice.draw.blind", "nothing is waiting for tally to pick a card at random")
        return None
    return None


def check_turn(state: State, event: Event) -> Ruling | None:
    if state.phase == "over":
        return illegal("splice.turn.game-over", "the game is over: no more moves", ended=state.ended)
    kind = type(event)
    wanted = _PHASES.get(kind)
    if wanted is None:
        return _table_event(state, event)
    player = event.player  # type: ignore[attr-defined]
    if state.phase == "setup":
        return illegal("splice.setup.incomplete", f"the setup is not complete: {_expected(state)}")
    if state.phase == "storm":
        why = _STORM_WHY.get(state.storm, "drawn")
        return illegal(
            "splice.hurricane.immediate",
            f"a Hurricane ({why}) lies in the centre: the gemstone disks must be shuffled and drawn again before anything else",
            storm=state.storm,
        )
    if state.phase == "pick":
        return illegal("splice.turn.pending", _owed(state))
    who = actor(state)
    if state.phase in wanted and who >= 0 and player == state.seats[who]:
        return None
    current = state.player_name
    if player == current:
        if state.phase == "start" and (kind in PLAYS or kind is CardsDiscarded):
            return illegal("splice.draw.first", f"{current} must draw first: every turn starts with one draw")
        if state.phase == "play" and kind in (CardsDrawn, BlindDrawn):
            return illegal("splice.draw.first", f"{current} has already drawn this turn: a turn starts with exactly one draw")
        if state.phase == "draw" and kind is BlindDrawn:
            return illegal("splice.hand.refill", f"{_owed(state)}: cards owed are drawn from the Draw Pile, never blind")
        if kind in PLAYS and state.acted:
            head = state.owed[0] if state.owed else None
            if head is not None and head.case == "refill" and head.seat == state.current:
                return illegal(
                    "splice.hand.refill-not-playable",
                    f"{current} is refilling the hand at the end of the turn: those cards wait for the next turn",
                )
            return illegal("splice.turn.one-play", f"{current} has already made this turn's play; {_owed(state)}", acted=state.acted)
    if who >= 0 and player == state.seats[who]:
        return illegal("splice.turn.pending", _owed(state), phase=state.phase)
    if state.phase in ("draw", "discard", "maps", "reveal"):
        return illegal("splice.turn.pending", _owed(state), phase=state.phase)
    return illegal(
        "splice.turn.out-of-turn",
        f"it is {current}'s turn, not {_name(state, player)}'s",
        player=player,
        current=current,
    )


# --------------------------------------------------------------------------- setup


def _is_permutation(given: list[str], wanted: list[str]) -> bool:
    return len(given) == len(wanted) and Counter(given) == Counter(wanted)


def check_setup(state: State, event: SetupDealt) -> Ruling | None:
    colours = list(state.box.colours)
    if len(event.disks) != len(state.seats) or not _is_permutation(event.disks + event.unused, colours):
        return illegal("splice.setup.disks-first", f"the deal gives each of the {len(state.seats)} players one disk and leaves the rest unused, each colour once")
    if not _is_permutation(event.maps, list(state.box.pieces)):
        return illegal("splice.setup.map-pile", "the Map Pile holds every regular map piece exactly once, and nothing else")
    if not _is_permutation(event.deck, deck_cards(state.copies)):
        return illegal("splice.setup.deal", "the deck holds every card of the manifest in play exactly once (no regular map piece)")
    return None


def check_cards_dealt(state: State, event: CardsDealt) -> Ruling | None:
    hurricanes = state.copies.get("hurricane", 0)
    for name in event.hurricanes:
        if name not in state.seats:
            return illegal("splice.setup.deal", f"no player {quote(name)} at this table was dealt a Hurricane", player=name)
    if len(event.hurricanes) > hurricanes:
        return illegal("splice.setup.deal", f"the deck holds {plural(hurricanes, 'Hurricane')}, not {len(event.hurricanes)}")
    for name in set(event.hurricanes):
        if event.hurricanes.count(name) > state.hand_size:
            return illegal("splice.setup.deal", f"{name} was dealt {state.hand_size} cards, not more Hurricanes")
    return None


def check_disks(state: State, event: DisksDealt) -> Ruling | None:
    if len(event.disks) != len(state.seats) or not _is_permutation(event.disks + event.unused, list(state.box.colours)):
        return illegal("splice.hurricane.reshuffle", "every player draws one disk and the rest lie unused, each colour once")
    return None


def check_picked(state: State, event: CardPicked) -> Ruling | None:
    source = state.players[state.pick_from]
    zone = source.hand if state.pick == "hand" else source.maps
    if event.card not in zone.known:
        where = "hand" if state.pick == "hand" else "map pieces"
        return illegal("splice.draw.blind", f"{quote(event.card)} is not in {state.seats[state.pick_from]}'s {where}", card=event.card)
    return None


# --------------------------------------------------------------------------- draws


def _first_impossible(pile: tuple[Zone, ...], entries: list[str | None], copies: dict[str, int], placed: Counter[str],
                      shown: str = "") -> int:
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
    failed = _first_impossible(state.pile, cards, copies, located_cards(state), "hurricane")
    if failed < 0:
        return None
    card = cards[failed]
    if card is None:
        return "the top card of the Draw Pile is the Hurricane (it went to the bottom alone): it must be named"
    where = "is not in the deck" if card not in copies else "cannot be the next card of the Draw Pile: every copy is placed elsewhere"
    return f"{card_name(card)} {where}"


def check_drawn(state: State, event: CardsDrawn) -> Ruling | None:
    who = event.player
    cards = event.cards
    if state.phase == "start":
        if not state.pile:
            return illegal("splice.draw.empty-pile", f"the Draw Pile is empty: {who} draws blind from another player's hand")
        if len(cards) != 1:
            return illegal("splice.draw.first", f"the draw that starts a turn is one card, not {len(cards)}", count=len(cards))
    else:
        owed = state.owed[0].count
        if state.pile[0].size < owed:  # the top batch alone may not hold them all: is the pile short?
            owed = min(owed, pile_size(state.pile))
        short = len(cards) < owed and cards and cards[-1] == "hurricane"
        if not cards or len(cards) > owed or (len(cards) < owed and not short):
            return illegal(
                "splice.draw.owed",
                f"{who} owes {plural(owed, 'card')} from the Draw Pile, not {len(cards)} (a draw stops only at a Hurricane)",
                owed=owed,
                drawn=len(cards),
            )
    if "hurricane" in cards[:-1]:
        return illegal("splice.hurricane.immediate", "a Hurricane stops the draw the moment it is drawn: it is the last card of a draw")
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
    ruling = _other_seat(state, event.player, event.source, "splice.draw.blind", "draw blind from")
    if ruling:
        return ruling
    source = state.players[seat_index(state, event.source)]
    if not source.hand.size:
        return illegal("splice.draw.blind", f"{event.source} holds no card to draw from", source=event.source)
    if event.card is not None:
        if state.mode == "open":
            return illegal("splice.draw.blind", "in open mode tally picks the blind card at random: name no card")
        if event.card == "hurricane" or missing(source.hand, [event.card], state.copies, located_cards(state)):
            return illegal("splice.draw.blind", f"{card_name(event.card)} cannot be in {event.source}'s hand", card=event.card)
    return None


# --------------------------------------------------------------------------- plays from the hand


def _in_hand(state: State, cards: list[str]) -> str | None:
    """The first card the current player cannot have in hand, or None."""
    hand = state.player.hand
    if not hand.unknown:
        return first_lacking(hand.known, cards)
    return missing(hand, cards, state.copies, located_cards(state))


def _not_held(state: State, card: str) -> Ruling:
    who = state.player_name
    hand = state.player.hand
    holds = " ".join(hand.known)
    if hand.unknown:
        unseen = plural(hand.unknown, "unseen card")
        holds = f"{holds} and {unseen}" if holds else unseen
    holds = holds or "nothing"
    return illegal("splice.play.in-hand", f"{who} does not hold {card_name(card)} (holds {holds})", card=card)


def _read_sets(state: State, forms: list[str]) -> list | Ruling:
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
    sets = _read_sets(state, event.sets)
    if isinstance(sets, Ruling):
        return sets
    cards = [card for s in sets for card in s.cards] + ["double"] * event.doubles
    lacking = _in_hand(state, cards)
    return _not_held(state, lacking) if lacking else None


def _special(state: State, card: str) -> Ruling | None:
    lacking = _in_hand(state, [card])
    return _not_held(state, lacking) if lacking else None


def check_piracy(state: State, event: PiracyPlayed) -> Ruling | None:
    ruling = _other_seat(state, event.player, event.target, "splice.special.target", "play Piracy on") or _special(state, "piracy")
    if ruling:
        return ruling
    target = state.players[seat_index(state, event.target)]
    plunder = event.plunder
    if plunder == "map":
        if not target.maps.size:
            return illegal("splice.piracy.nothing", f"{event.target} has no map piece to take", target=event.target)
        if event.piece is not None:
            if state.mode == "open":
                return illegal("splice.piracy.plunder", "in open mode tally picks the map piece at random: name no piece")
            if missing(target.maps, [event.piece], state.box.piece_copies, located_pieces(state)):
                return illegal("splice.piracy.plunder", f"{quote(event.piece)} cannot be one of {event.target}'s map pieces", piece=event.piece)
        return None
    if event.piece is not None:
        return illegal("splice.piracy.plunder", "only a map piece taken by Piracy is named with `as`")
    if plunder == "double":
        if not target.doubles:
            return illegal("splice.piracy.nothing", f"{event.target} has no Double Your Gold card in play", target=event.target)
        return None
    found = read_set(plunder, state.box.values)
    if isinstance(found, str):
        return illegal("splice.piracy.plunder", f"Piracy takes one coin set, `double` or `map`: {found}", plunder=plunder)
    if found.form not in target.sets:
        shown = " ".join(target.sets) or "none"
        return illegal("splice.piracy.nothing", f"{event.target} has no set {found.form} in play (sets in play: {shown})", plunder=plunder)
    return None


def check_skull(state: State, event: SkullPlayed) -> Ruling | None:
    return _other_seat(state, event.player, event.target, "splice.special.target", "play the Skull on") or _special(state, "skull")


def check_spot(state: State, event: BlackSpotPlayed) -> Ruling | None:
    return _other_seat(state, event.player, event.target, "splice.special.target", "play the Black Spot on") or _special(state, "spot")


def check_trade(state: State, event: TradePlayed) -> Ruling | None:
    ruling = _special(state, "trade")
    if ruling:
        return ruling
    box = state.box
    colour = event.colour
    if colour not in box.colours:
        return illegal("splice.trade.swap", f"there is no {quote(colour)} gemstone disk (colours: {', '.join(box.colours)})", colour=colour)
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
            return illegal("splice.trade.swap", f"the {name} disk {where}, so the trade is with {holder}", colour=colour, holder=holder)
        return None
    placed = located_disks(state)
    if partner == "unused":
        if colour in state.unused.known or (state.unused.unknown and not placed[colour]):
            return None
        return illegal("splice.trade.swap", f"the {name} disk cannot be in the unused pile: the log has placed it elsewhere", colour=colour)
    held = state.players[seat_index(state, partner)].disk
    if held == colour or (held is None and not placed[colour]):
        return None
    return illegal("splice.trade.swap", f"{partner} cannot hold the {name} disk: the log has placed it elsewhere", colour=colour)


# --------------------------------------------------------------------------- buying


def check_buy(state: State, event: MapsBought) -> Ruling | None:
    who = event.player
    count = event.count
    if not 1 <= count <= 99:
        return illegal("splice.buy.price", f"{who} cannot buy {count} map pieces", count=count)
    if not 0 <= event.doubles <= 99:
        return illegal("splice.buy.whole-sets", f"{event.doubles} is not a number of Double Your Gold cards")
    left = pile_size(state.map_pile)
    if count > left:
        return illegal("splice.buy.map-pile", f"the Map Pile holds {plural(left, 'piece')}: {who} cannot buy {count}", left=left)
    sets = _read_sets(state, event.paid)
    if isinstance(sets, Ruling):
        return sets
    seat = state.player
    in_play = list(seat.sets)
    for s in sets:
        if s.form not in in_play:
            shown = " ".join(seat.sets) or "none"
            return illegal(
                "splice.buy.earlier-turn",
                f"{s.form} is not among {who}'s coin sets in play ({shown}): sets are laid down on one turn and spent on a later one",
                set=s.form,
            )
        in_play.remove(s.form)
    if event.doubles > seat.doubles:
        return illegal("splice.buy.earlier-turn", f"{who} has {plural(seat.doubles, 'Double Your Gold card')} in play, not {event.doubles}")
    value = payment_value(state, [s.form for s in sets], event.doubles)
    price = PRICE * count
    if value < price:
        return illegal(
            "splice.buy.price",
            f"{who} pays {value} gold for {plural(count, 'map piece')}: the price is {price} ({PRICE} each)",
            paid=value,
            price=price,
        )
    forms = [s.form for s in sets]
    for i, form in enumerate(forms):
        rest = forms[:i] + forms[i + 1 :]
        if payment_value(state, rest, event.doubles) >= price:
            return illegal(
                "splice.buy.whole-sets",
                f"no change is given: {form} is not needed ({value} gold paid for a price of {price})",
                set=form,
            )
    if event.doubles and payment_value(state, forms, event.doubles - 1) >= price:
        return illegal("splice.buy.whole-sets", f"no change is given: a Double Your Gold card is not needed for a price of {price}")
    if len(event.pieces) != count:
        return illegal("splice.buy.map-pile", f"{count} pieces come off the Map Pile, not {len(event.pieces)}")
    return _pieces_problem(state, event.pieces)


def _pieces_problem(state: State, pieces: list[str | None]) -> Ruling | None:
    if state.mode == "open":
        top = known_top(state.map_pile, len(pieces))
        if pieces != top:
            return illegal("splice.buy.map-pile", f"the top of the Map Pile is {', '.join(top)}, not {', '.join(p or '?' for p in pieces)}")
        return None
    failed = _first_impossible(state.map_pile, pieces, state.box.piece_copies, located_pieces(state))
    if failed < 0:
        return None
    piece = pieces[failed]
    return illegal("splice.buy.map-pile", f"{quote(piece)} cannot be the next piece of the Map Pile", piece=piece)


# --------------------------------------------------------------------------- laying down a map


def check_lay(state: State, event: MapLaid) -> list[Ruling]:
    who = event.player
    pieces = event.pieces
    box = state.box
    regular = [p for p in pieces if p in box.pieces]
    wild = [p for p in pieces if len(p) == 2 and p[0] == "x" and p[1] in "1234"]
    if len(pieces) != POSITIONS or len(regular) + len(wild) != POSITIONS:
        return [illegal("splice.map.complete", f"a completed map is {POSITIONS} pieces, one per position; {who} laid {' '.join(pieces) or 'nothing'}")]
    positions = sorted(int(p[1]) for p in pieces)
    if positions != list(range(1, POSITIONS + 1)):
        return [illegal("splice.map.wild" if wild else "splice.map.complete",
                        f"{' '.join(pieces)} does not cover positions 1 to {POSITIONS} once each (a wild piece fits only its own position)")]
    colours = {p[0] for p in regular}
    if len(colours) != 1:
        return [illegal("splice.map.complete", f"{' '.join(pieces)} mixes colours: a map is one colour")]
    if len(wild) > MAX_WILD_PIECES:
        return [illegal("splice.map.wild", f"{' '.join(pieces)} holds {len(wild)} wild pieces; a map holds at most {MAX_WILD_PIECES}")]
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
        return [illegal("splice.map.disk", f"{who}'s disk is {box.colour_name(seat.disk)}, not {name}", disk=seat.disk, colour=colour)]
    if seat.disk is None and located_disks(state)[colour]:
        return [illegal("splice.map.disk", f"{who} cannot hold the {name} disk: the log has placed it elsewhere", colour=colour)]
    return _check_next_turn(state, wild)


def _check_next_turn(state: State, wild: list[str]) -> list[Ruling]:
    fresh = state.fresh
    if not wild or fresh is None:
        return []
    who = state.player_name
    hand = state.player.hand
    if fresh != "?":
        if fresh in wild:
            before = list(hand.known)
            before.remove(fresh)
            if not hand.unknown and sum(1 for p in wild if p == fresh) > before.count(fresh):
                return [illegal("splice.map.next-turn", f"{card_name(fresh)} was drawn at the start of this turn: the map was completed this turn and waits for the next", piece=fresh)]
            if hand.unknown == 0 or fresh in before:
                return []
            return [unverifiable("splice.map.next-turn", f"{who} holds {card_name(fresh)} drawn this turn; the log cannot tell whether another copy was held before")]
        return []
    unseen = [p for p in wild if p not in hand.known]
    if not unseen:
        return []
    if hand.unknown <= 1:
        return [illegal("splice.map.next-turn", f"{card_name(unseen[0])} can only be the card {who} drew at the start of this turn: the map waits for the next turn", piece=unseen[0])]
    return [unverifiable("splice.map.next-turn", f"the log never saw {who}'s card drawn this turn: it cannot tell whether {card_name(unseen[0])} was held before the turn")]


# --------------------------------------------------------------------------- the end of a turn


def _named_cards_problem(state: State, who: int, cards: list[str | None]) -> str | None:
    """A message (with a space) or the card a player cannot discard, or None."""
    zone = state.players[who].hand
    if state.mode == "open":
        if None in cards:
            return "in open mode a discard names its cards"
        return first_lacking(zone.known, cards)  # type: ignore[arg-type]
    named = [c for c in cards if c is not None]
    return missing(zone, named, state.copies, located_cards(state))


def check_discard(state: State, event: CardsDiscarded) -> Ruling | None:
    who = seat_index(state, event.player)
    hand = state.players[who].hand.size
    size = state.hand_size
    cards = event.cards
    if state.phase == "play":
        if hand <= size:
            return illegal("splice.turn.discard", f"{event.player} holds {plural(hand, 'card')}, no more than {size}: with no play, the turn is passed (`pass`)")
        if len(cards) != 1:
            return illegal("splice.turn.discard", f"a turn without a play discards exactly one card, not {len(cards)}")
        rule = "splice.turn.discard"
    else:
        excess = hand - size
        if len(cards) != excess:
            return illegal("splice.hand.discard", f"{event.player} holds {plural(hand, 'card')} and discards exactly {excess} to keep {size}, not {len(cards)}", excess=excess)
        rule = "splice.hand.discard"
    problem = _named_cards_problem(state, who, cards)
    if problem:
        text = problem if " " in problem else f"{event.player} does not hold {card_name(problem)}"
        return illegal(rule, text, cards=cards)
    return None


def check_pass(state: State, event: TurnPassed) -> Ruling | None:
    hand = state.player.hand.size
    if hand > state.hand_size:
        return illegal("splice.turn.pass", f"{event.player} holds {plural(hand, 'card')}: a turn without a play discards one (`discard CARD`)")
    return None


def check_return(state: State, event: MapsReturned) -> Ruling | None:
    seat = state.player
    excess = seat.maps.size - MAP_LIMIT
    if len(event.pieces) != excess:
        return illegal("splice.maps.return", f"{event.player} holds {plural(seat.maps.size, 'map piece')} and returns exactly {excess}, not {len(event.pieces)}", excess=excess)
    if state.mode == "open":
        if None in event.pieces or first_lacking(seat.maps.known, event.pieces) is not None:  # type: ignore[arg-type]
            return illegal("splice.maps.return", f"{event.player} holds {' '.join(seat.maps.known)}: return pieces from those", pieces=event.pieces)
        return None
    named = [p for p in event.pieces if p is not None]
    lacking = missing(seat.maps, named, state.box.piece_copies, located_pieces(state))
    if lacking:
        return illegal("splice.maps.return", f"{quote(lacking)} cannot be one of {event.player}'s map pieces", piece=lacking)
    return None


def check_reveal(state: State, event: HoldingsRevealed) -> Ruling | None:
    who = seat_index(state, event.player)
    seat = state.players[who]
    box = state.box
    if event.disk not in box.colours:
        return illegal("splice.end.reveal", f"there is no {quote(event.disk)} disk (colours: {', '.join(box.colours)})")
    if seat.disk is not None and seat.disk != event.disk:
        return illegal("splice.end.reveal", f"{event.player}'s disk is known to be {box.colour_name(seat.disk)}")
    if seat.disk is None and located_disks(state)[event.disk]:
        return illegal("splice.end.reveal", f"the {box.colour_name(event.disk)} disk is placed elsewhere")
    if len(event.pieces) != seat.maps.size:
        return illegal("splice.end.reveal", f"{event.player} holds {plural(seat.maps.size, 'map piece')}: show all of them")
    lacking = missing(seat.maps, event.pieces, box.piece_copies, located_pieces(state))
    if lacking:
        return illegal("splice.end.reveal", f"{quote(lacking)} cannot be one of {event.player}'s map pieces")
    return None


_CHECK: dict[type, Callable[[State, Event], Ruling | None]] = {
    SetupDealt: check_setup,  # type: ignore[dict-item]
    CardsDealt: check_cards_dealt,  # type: ignore[dict-item]
    DisksDealt: check_disks,  # type: ignore[dict-item]
    CardPicked: check_picked,  # type: ignore[dict-item]
    CardsDrawn: check_drawn,  # type: ignore[dict-item]
    BlindDrawn: check_blind,  # type: ignore[dict-item]
    CoinsPlayed: check_coins,  # type: ignore[dict-item]
    PiracyPlayed: check_piracy,  # type: ignore[dict-item]
    SkullPlayed: check_skull,  # type: ignore[dict-item]
    TradePlayed: check_trade,  # type: ignore[dict-item]
    BlackSpotPlayed: check_spot,  # type: ignore[dict-item]
    MapsBought: check_buy,  # type: ignore[dict-item]
    CardsDiscarded: check_discard,  # type: ignore[dict-item]
    TurnPassed: check_pass,  # type: ignore[dict-item]
    MapsReturned: check_return,  # type: ignore[dict-item]
    HoldingsRevealed: check_reveal,  # type: ignore[dict-item]
}


# --------------------------------------------------------------------------- the guards in order, and the permit


def check(state: State, event: Event) -> list[Ruling]:
    """The rulings that forbid `event` now (empty when legal, or only unverifiable notes)."""
    ruling = check_turn(state, event)
    if ruling is not None:
        return [ruling]
    kind = type(event)
    if kind is MapLaid:
        return check_lay(state, event)  # type: ignore[arg-type]
    guard = _CHECK.get(kind)
    if guard is None:
        return []
    ruling = guard(state, event)
    return [ruling] if ruling is not None else []


_DRAW_RULE = {
    "refill": "splice.hand.refill",
    "skull": "splice.skull.redraw",
    "deal": "splice.hurricane.deal",
    "replace": "splice.draw.replace",
}
_STORM_RULE = {
    "start": "splice.hurricane.start",
    "refill": "splice.hurricane.refill",
    "skull": "splice.hurricane.skull",
    "deal": "splice.hurricane.deal",
    "replace": "splice.hurricane.replacement",
}


def permit(state: State, event: Event) -> Ruling:
    """The rule that allows a legal event, for the ruling read out at the table (never naming a hidden card)."""
    kind = type(event)
    if kind is CardsDrawn:
        cards = event.cards  # type: ignore[attr-defined]
        who = event.player  # type: ignore[attr-defined]
        if cards and cards[-1] == "hurricane":
            case = "start" if state.phase == "start" else state.owed[0].case
            return legal(_STORM_RULE[case], f"{who} draws the Hurricane: it is played at once and the disks are shuffled")
        if state.phase == "start":
            return legal("splice.draw.first", f"{who} draws the top card of the Draw Pile")
        rule = _DRAW_RULE[state.owed[0].case]
        return legal(rule, f"{who} draws {plural(len(cards), 'card')} from the Draw Pile")
    if kind is BlindDrawn:
        return legal("splice.draw.blind", f"{event.player} draws a card blind from {event.source}'s hand")  # type: ignore[attr-defined]
    if kind is CoinsPlayed:
        from .notation import format_event  # notation reads `actor` from this module

        what = format_event(event).split(": play ", 1)[-1]
        return legal("splice.coins.double" if not event.sets else "splice.coins.sets", f"{event.player} may lay down {what}")  # type: ignore[attr-defined]
    if kind is PiracyPlayed:
        return legal("splice.piracy.plunder", f"{event.player} may take {'a map piece blind' if event.plunder == 'map' else event.plunder} from {event.target}")  # type: ignore[attr-defined]
    if kind is SkullPlayed:
        return legal("splice.skull.redraw", f"{event.target} puts the hand at the bottom of the Draw Pile and draws {state.hand_size} new cards")  # type: ignore[attr-defined]
    if kind is TradePlayed:
        return legal("splice.trade.swap", f"{event.player} calls out {state.box.colour_name(event.colour)} and trades disks with {event.partner}")  # type: ignore[attr-defined]
    if kind is BlackSpotPlayed:
        return legal("splice.spot.skip", f"{event.target} loses their next turn")  # type: ignore[attr-defined]
    if kind is MapsBought:
        return legal("splice.buy.price", f"{event.player} may buy {plural(event.count, 'map piece')} for {payment_value(state, event.paid, event.doubles)} gold")  # type: ignore[attr-defined]
    if kind is MapLaid:
        return legal("splice.map.win", f"{event.player} lays down a completed map and wins")  # type: ignore[attr-defined]
    if kind is CardsDiscarded:
        rule = "splice.turn.discard" if state.phase == "play" else "splice.hand.discard"
        return legal(rule, f"{event.player} discards to the bottom of the Draw Pile")  # type: ignore[attr-defined]
    if kind is TurnPassed:
        return legal("splice.turn.pass", f"{event.player} makes no play and has nothing to discard")  # type: ignore[attr-defined]
    if kind is MapsReturned:
        return legal("splice.maps.limit", f"{event.player} returns map pieces to the bottom of the Map Pile, keeping {MAP_LIMIT}")  # type: ignore[attr-defined]
    if kind is HoldingsRevealed:
        return legal("splice.end.reveal", f"{event.player} shows disk and map pieces")  # type: ignore[attr-defined]
    if kind in (DisksDealt, DisksRedrawn):
        return legal("splice.hurricane.reshuffle", "the gemstone disks are shuffled and drawn again")
    if kind is CardPicked:
        return legal("splice.draw.blind", "tally picks a card at random")
    if kind is DisksChosen:
        return legal("splice.setup.disks-first", "every player draws a gemstone disk")
    if kind is CardsDealt:
        return legal("splice.setup.deal", "the Map Pile is laid out and the hands dealt")
    return legal("splice.setup.deal", "the deal is recorded")


def is_voidable(event: Event) -> bool:
    """Chance that tally dealt itself (open mode) is not a recorder's mistake: it cannot be undone."""
    return type(event) not in CHANCE
