"""Array's reducer: the state after an event, trusting that the event was checked (`rules.check`).

`start` builds the state before any move from `game_started`; `apply` dispatches on the event type. The
end of a turn, of a round (scoring, eliminations, the next dealer) and of the game follow from the events
here, as consequences, never as events of their own.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ...knowledge import Zone
from ...model import GameStarted, resolve_options
from ...referee import Reducers
from .components import CARD_POINTS, DEAL, SLAM_POINTS, is_action, load_box
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
from .rules import OPTIONS
from .state import SEGMENTS, Result, State, after, picked_up, picks_owed

replace = msgspec.structs.replace  # not state.replace's call around it: a fold copies the state once per event or more


def start(started: GameStarted) -> State:
    options = resolve_options(OPTIONS, started.options)
    box = load_box(started.manifest)
    n = len(started.seats)
    state = State(
        seats=tuple(started.seats),
        mode=started.mode,
        box=box,
        threshold=int(options["threshold"]),
        end=options["end"],
        hands_limit=int(options["hands"]),
        blocked=options["blocked"],
        round=1,
        dealer=n - 1,  # the last seat deals the first round, so the first seat plays first
        playing=tuple(range(n)),
        totals=(0,) * n,
        hands=(Zone(),) * n,
        phase="deal",
        seated=tuple(started.seated),
    )
    return _begin_round(state, 1, n - 1, tuple(range(n)), sudden=False)


def _begin_round(
    state: State, number: int, dealer: int, playing: tuple[int, ...], sudden: bool, **scored: Any
) -> State:
    """A new round: the table cleared; in table mode the hands dealt unseen and the starting card awaited. `scored`:
    what the last round's scoring changed (`_score`), in the same replace."""
    n = len(state.seats)
    table = state.mode == "table"
    hands = tuple([Zone((), DEAL) if table and seat in playing else Zone() for seat in range(n)])
    return replace(
        state,
        round=number,
        dealer=dealer,
        playing=playing,
        hands=hands,
        phase="starter" if table else "deal",
        current=after(state, dealer, playing),
        deck=(),
        deck_size=state.box.total - DEAL * len(playing) if table else 0,
        placed=(),
        links=(),
        played=(),
        returned=(),
        slams=(0,) * n,
        anchors=(),
        passes=0,
        round_turns=0,
        sudden=sudden,
        went_out=-1,
        left=(),
        picking="",
        picks=0,
        owed=tuple(state.seats[seat] for seat in playing if state.seats[seat] in state.seated) if table else (),
        **scored,
    )


# --------------------------------------------------------------------------- the deal


def _place_starter(state: State, card: str) -> State:
    return replace(state, placed=(card,), links=((0,) * len(card),), phase="play")


def _apply_dealt(state: State, event: RoundDealt) -> State:
    hands = list(state.hands)
    for name, cards in event.hands.items():
        hands[state.seats.index(name)] = Zone(tuple(cards))
    if state.mode == "table":  # the hands of seated seats, entered before the starting card is turned
        return replace(state, hands=tuple(hands), owed=tuple(name for name in state.owed if name not in event.hands))
    state = replace(
        state, hands=tuple(hands), deck=tuple(event.deck), deck_size=len(event.deck), returned=tuple(event.turned[:-1])
    )
    return _place_starter(state, event.turned[-1])


def _apply_hand(state: State, event: HandNamed) -> State:
    hands = list(state.hands)
    hands[state.seats.index(event.player)] = Zone(tuple(event.cards))
    return replace(state, hands=tuple(hands), owed=tuple(name for name in state.owed if name != event.player))


def _apply_starter(state: State, event: StarterTurned) -> State:
    if is_action(event.card):
        return replace(state, returned=state.returned + (event.card,))
    return _place_starter(replace(state, deck_size=state.deck_size - 1), event.card)


# --------------------------------------------------------------------------- laying cards


def _joined(links: tuple[int, ...], index: int, number: int) -> tuple[int, ...]:
    """A card's links with the segment at `index` touching card #`number` (0: open again)."""
    changed = list(links)  # a list set and made a tuple: cheaper than two slices and two concatenations
    changed[index] = number
    return tuple(changed)


def _next_seat(state: State, seat: int) -> int:
    """`after(state, seat)`, its usual case first: the seat to the left plays this round."""
    following = seat + 1
    if following == len(state.seats):
        following = 0
    return following if following in state.playing else after(state, seat)


def _laying(
    state: State,
    hands: tuple[Zone, ...],
    links: tuple[tuple[int, ...], ...],
    placed: tuple[str, ...],
    anchors: tuple[int, ...],
) -> State:
    """After cards are laid: the move goes on while the cards just laid have an open segment and the hand is not
    empty; otherwise the turn (or, with an empty hand, the round) is over. One replace in the usual case."""
    seat = state.current
    hand = hands[seat]
    if not hand.known and not hand.unknown:
        state = replace(state, hands=hands, links=links, placed=placed, anchors=anchors, passes=0)
        return _round_over(state, seat)
    for anchor in anchors:
        if 0 in links[anchor - 1]:
            return replace(state, hands=hands, links=links, placed=placed, phase="splice", anchors=anchors, passes=0)
    return replace(
        state,
        hands=hands,
        links=links,
        placed=placed,
        phase="play",
        anchors=(),
        passes=0,
        current=_next_seat(state, seat),
        turns=state.turns + 1,
        round_turns=state.round_turns + 1,
    )


def _apply_lay(state: State, event: CardSpliced) -> State:
    """`card` laid against card #`to`'s `colour` segment as the next card."""
    card, to, colour = event.card, event.to, event.colour
    placed, links = state.placed, state.links
    number = len(placed) + 1
    _, before, after_ = SEGMENTS[card][colour]
    table = list(links)
    table[to - 1] = _joined(links[to - 1], SEGMENTS[placed[to - 1]][colour][0], number)
    table.append(before + (to,) + after_)
    hands = list(state.hands)
    hands[state.current] = hands[state.current].remove(card)
    anchors = (number,) if state.phase == "play" else state.anchors
    return _laying(state, tuple(hands), tuple(table), placed + (card,), anchors)


def _apply_slice(state: State, event: Sliced) -> State:
    """The join of #a and #b cut, and the two cards laid against its freed segments (the next two numbers)."""
    a, b = event.cut
    placed, links = state.placed, state.links
    first = len(placed) + 1
    at_a = links[a - 1].index(b)  # a and b touch at one segment each: the join's colour
    at_b = links[b - 1].index(a)
    colour = placed[a - 1][at_a]
    x, y = event.cards
    table = list(links)
    table[a - 1] = _joined(links[a - 1], at_a, first)
    table[b - 1] = _joined(links[b - 1], at_b, first + 1)
    _, before, after_ = SEGMENTS[x][colour]
    table.append(before + (a,) + after_)
    _, before, after_ = SEGMENTS[y][colour]
    table.append(before + (b,) + after_)
    hands = list(state.hands)
    seat = state.current
    hand = hands[seat]
    hands[seat] = hand.remove(x).remove(y)
    return _laying(state, tuple(hands), tuple(table), placed + (x, y), (first, first + 1))


def _apply_done(state: State, event: TurnEnded) -> State:
    following = _next_seat(state, state.current)
    return replace(
        state,
        phase="play",
        anchors=(),
        current=following,
        turns=state.turns + 1,
        round_turns=state.round_turns + 1,
        passes=0,
    )


# --------------------------------------------------------------------------- the other moves


def _apply_draw(state: State, event: CardDrawn) -> State:
    hands = list(state.hands)
    seat = state.current
    if event.card is not None:
        hands[seat] = hands[seat].add((event.card,))
    else:
        hands[seat] = hands[seat].add(unknown=1)
    return replace(
        state,
        hands=tuple(hands),
        deck=state.deck[1:],
        deck_size=state.deck_size - 1,
        passes=0,
        phase="play",
        anchors=(),
        current=_next_seat(state, seat),
        turns=state.turns + 1,
        round_turns=state.round_turns + 1,
    )


def _apply_give(state: State, event: ActionGiven) -> State:
    target = state.seats.index(event.target)
    seat = state.current
    hands = list(state.hands)
    hands[seat] = hands[seat].remove(event.card)
    slams = state.slams
    deck, size = state.deck, state.deck_size
    picking, picks = state.picking, state.picks
    if event.card == "slam":
        slams = slams[:target] + (slams[target] + SLAM_POINTS,) + slams[target + 1 :]
    else:
        count = picked_up(state, event.card)
        if state.mode == "open":
            hands[target] = hands[target].add(deck[:count])
            deck = deck[count:]
        elif event.drawn:  # picked up by a seated seat, named with the Splatter
            hands[target] = hands[target].add(event.drawn)
        else:  # unseen; a seated receiver names them next (`picked_up`)
            hands[target] = hands[target].add(unknown=count)
            if picks_owed(state, event):
                picking, picks = event.target, count
        size -= count
    if not hands[seat].size:
        state = replace(
            state,
            hands=tuple(hands),
            slams=slams,
            deck=deck,
            deck_size=size,
            played=state.played + (event.card,),
            passes=0,
            picking=picking,
            picks=picks,
        )
        return _round_over(state, seat)
    return replace(
        state,
        hands=tuple(hands),
        slams=slams,
        deck=deck,
        deck_size=size,
        played=state.played + (event.card,),
        passes=0,
        phase="play",
        anchors=(),
        current=_next_seat(state, seat),
        turns=state.turns + 1,
        round_turns=state.round_turns + 1,
        picking=picking,
        picks=picks,
    )


def _apply_picked(state: State, event: PickedUp) -> State:
    """The cards a seated seat picked up, named: the unknown cards the Splatter put in its hand become them."""
    seat = state.seats.index(event.player)
    hands = list(state.hands)
    hand = hands[seat]
    hands[seat] = Zone(hand.known + tuple(event.cards), hand.unknown - len(event.cards))
    return replace(state, hands=tuple(hands), picking="", picks=0)


def _apply_pass(state: State, event: TurnPassed) -> State:
    state = replace(state, passes=state.passes + 1)
    if state.passes >= len(state.playing):
        return _round_over(state, -1)
    return _end_turn(state, passing=True)


def _apply_time(state: State, event: TimeCalled) -> State:
    return replace(state, time_called=True)


def _end_turn(state: State, passing: bool = False) -> State:
    return replace(
        state,
        phase="play",
        anchors=(),
        current=_next_seat(state, state.current),
        turns=state.turns + 1,
        round_turns=state.round_turns + 1,
        passes=state.passes if passing else 0,
    )


# --------------------------------------------------------------------------- the end of a round


def _round_over(state: State, went_out: int) -> State:
    """A hand is empty (or every player passed): the round's last turn is over; then the cards left are scored.

    Open mode: the log knows every hand. Table mode: each player with cards left shows them first."""
    turns, round_turns = state.turns + 1, state.round_turns + 1
    if state.mode == "open":
        return _score(state, went_out, tuple([zone.known for zone in state.hands]), turns, round_turns)
    left = ((),) * len(state.seats)
    hands = state.hands
    if any(hands[seat].size for seat in state.playing):
        return replace(
            state, phase="show", anchors=(), turns=turns, round_turns=round_turns, went_out=went_out, left=left
        )
    return _score(state, went_out, left, turns, round_turns)


def _apply_show(state: State, event: CardShown) -> State:
    seat = state.seats.index(event.player)
    hands = list(state.hands)
    hands[seat] = hands[seat].remove(event.card)
    left = list(state.left)
    left[seat] = left[seat] + (event.card,)
    state = replace(state, hands=tuple(hands), left=tuple(left))
    return state if state.owing else _score(state, state.went_out, state.left, state.turns, state.round_turns)


def _round_points(
    state: State, went_out: int, left: tuple[tuple[str, ...], ...]
) -> tuple[tuple[int, ...], str, list[int]]:
    """The round's winners, how it ended, and each seat's points: cards left (none for a winner) plus SLAMs."""
    playing = state.playing
    hand_points = [sum(map(CARD_POINTS.__getitem__, cards)) for cards in left]
    if went_out >= 0:
        winners: tuple[int, ...] = (went_out,)
        ended = "out"
    else:
        low = min([hand_points[seat] for seat in playing])
        winners = tuple([seat for seat in playing if hand_points[seat] == low])
        ended = "blocked"
    scored = [0] * len(state.seats)
    slams = state.slams
    free = ended == "blocked" and state.blocked == "lowest-free"
    for seat in playing:
        scored[seat] = (0 if free and seat in winners else hand_points[seat]) + slams[seat]
    return winners, ended, scored


def _decide(state: State, winners: tuple[int, ...], totals: tuple[int, ...]) -> tuple[str, tuple[int, ...], str]:
    """What follows a round: (`continue` | `sudden-death` | `over`, the seats of the next round or the winner, why)."""
    playing = state.playing
    if state.sudden:  # its winner wins the game; a blocked sudden death tied again is played again
        return ("over", winners, "sudden-death") if len(winners) == 1 else ("sudden-death", winners, "")
    threshold = state.threshold
    survivors = tuple([seat for seat in playing if totals[seat] < threshold])
    if len(survivors) == 1:
        return "over", survivors, "last-standing"
    limit = (state.end == "hands" and state.round >= state.hands_limit) or (state.end == "time" and state.time_called)
    if survivors and not limit:
        return "continue", survivors, ""
    pool = survivors or playing
    low = min([totals[seat] for seat in pool])
    lowest = tuple([seat for seat in pool if totals[seat] == low])
    why = state.end if survivors else "all-crossed"
    return ("over", lowest, why) if len(lowest) == 1 else ("sudden-death", lowest, "")


def _score(state: State, went_out: int, left: tuple[tuple[str, ...], ...], turns: int, round_turns: int) -> State:
    """Score the round (`went_out` emptied their hand, -1: blocked; `left`: the cards left in each hand; the turns
    counted with the round's last), eliminate, and go on: the next round, a sudden death, or the end of the game.
    One replace: the round's last state is not made first."""
    n = len(state.seats)
    playing = state.playing
    winners, ended, scored = _round_points(state, went_out, left)
    totals = tuple([total + points for total, points in zip(state.totals, scored)])
    eliminated = () if state.sudden else tuple([s for s in playing if totals[s] >= state.threshold])
    then, group, why = _decide(state, winners, totals)
    result = Result(
        round=state.round,
        dealer=state.dealer,
        playing=playing,
        winners=winners,
        ended=ended,
        left=tuple([left[seat] if seat in playing else () for seat in range(n)]),
        points=tuple(scored),
        slams=state.slams,
        totals=totals,
        eliminated=eliminated,
        sudden=state.sudden,
        turns=round_turns,
        then=then,
    )
    results, out = state.results + (result,), state.out + eliminated
    if then == "over":
        return replace(
            state,
            totals=totals,
            results=results,
            out=out,
            phase="over",
            winner=group[0],
            ended=why,
            hands=(Zone(),) * n,
            left=(),
            anchors=(),
            went_out=went_out,
            turns=turns,
            round_turns=round_turns,
        )
    return _begin_round(
        state,
        state.round + 1,
        after(state, state.dealer, group),
        group,
        then == "sudden-death",
        totals=totals,
        results=results,
        out=out,
        turns=turns,
    )


REDUCERS = Reducers[State]("array", EVENTS)
REDUCERS.on(RoundDealt, _apply_dealt)
REDUCERS.on(HandNamed, _apply_hand)
REDUCERS.on(StarterTurned, _apply_starter)
REDUCERS.on(CardSpliced, _apply_lay)
REDUCERS.on(Sliced, _apply_slice)
REDUCERS.on(TurnEnded, _apply_done)
REDUCERS.on(CardDrawn, _apply_draw)
REDUCERS.on(ActionGiven, _apply_give)
REDUCERS.on(PickedUp, _apply_picked)
REDUCERS.on(TurnPassed, _apply_pass)
REDUCERS.on(CardShown, _apply_show)
REDUCERS.on(TimeCalled, _apply_time)
apply = REDUCERS.seal().apply
