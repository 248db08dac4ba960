"""What Split shows: the view for one seat, the outcome, who must act next, and narration.

`view(state, None)` is everything the log knows; `view(state, seat)` shows that seat's hand and only
the size of every other hand (the pile is a count in every view). Matches, covered halves, the discard
row and the score pads are public.
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from ...model import TABLE, Due, Outcome, turn_dues
from ...text import plural
from ...views import common
from ...views import waiting_on as _waiting_on
from .components import GRADES, HAND, PERFECT, STRONG, WEAK, grade, pad_total
from .state import State, scores, turn

BONUS_WORDS = {
    PERFECT: "choose a player who marks a minus box",
    STRONG: "draw the top card of the pile",
    WEAK: "swap one of their matches for another player's match of the same type",
}


def _pad(state: State, marks: tuple[int, ...]) -> dict[str, int]:
    shown = {row.name: marks[i] for i, row in enumerate(state.deck.rows)}
    shown["minus"] = marks[-1]
    return shown


class SplitPlayer(msgspec.Struct, frozen=True, kw_only=True):
    """A player's entry: the hand the viewer may see and its size, matches by type, the halves covered by
    upgrades, the score pad (marks per row and `minus`), this round's score and each round's."""

    name: str
    hand: list[str]
    hand_size: int
    hidden: int
    matches: dict[str, list[str]]  # perfect | strong | weak -> `7HL+7HR`
    under: list[str]
    pad: dict[str, int]
    score: int
    rounds: list[int]


class PadRow(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    boxes: list[int]


class Pad(msgspec.Struct, frozen=True, kw_only=True):
    """The score pad's printed rows and minus boxes."""

    rows: list[PadRow]
    minus: list[int]


class RoundScores(msgspec.Struct, frozen=True, kw_only=True):
    """A round scored: how it ended, by whom, each player's score and running total."""

    round: int
    ended: str
    by: str
    scores: dict[str, int]
    totals: dict[str, int]


class SplitView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat sees (`core.views.View`), its keys in the order `--json` has always printed them."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    round: int
    rounds: int
    turn: int
    to_act: str
    expected: str
    dealer: str
    pile: int
    row: list[str]
    reference: int
    bonus: str | None
    must_play: str | None
    laying: list[str]
    pad: Pad
    results: list[RoundScores]
    players: list[SplitPlayer]
    outcome: Outcome | None
    seq: int | UnsetType = UNSET
    fingerprint: str | None | UnsetType = UNSET


def view(state: State, seat: str | None) -> SplitView:
    """What `seat` may see (None: everything the log knows)."""
    deck = state.deck
    players = []
    for index, (name, p) in enumerate(zip(state.seats, state.players)):
        hand = sorted(p.hand.known, key=deck.info.__getitem__) if seat is None or seat == name else []
        matches: dict[str, list[str]] = {"perfect": [], "strong": [], "weak": []}
        under: list[str] = []
        for match in p.matches:
            matches[GRADES[grade(deck, match[0], match[1])]].append("+".join(match[:2]))
            under.extend(match[2:])
        players.append(
            SplitPlayer(
                name=name,
                hand=hand,
                hand_size=p.hand.size,
                hidden=p.hand.size - len(hand),
                matches=matches,
                under=under,
                pad=_pad(state, p.pad),
                score=pad_total(deck, p.pad),
                rounds=[result.scores[index] for result in state.results],
            )
        )
    return SplitView(
        **common("split", state.mode, seat, state.phase, turn(state), to_act(state), outcome(state)),
        round=state.round,
        rounds=state.rounds,
        dealer=state.seats[state.dealer],
        pile=state.pile_size,
        row=list(state.row),
        reference=deck.reference,
        bonus=GRADES[state.bonus] if state.phase == "bonus" else None,
        must_play=state.must_play,
        laying=[state.seats[s] for s in state.laying],
        pad=Pad(
            rows=[PadRow(name=row.name, boxes=list(row.boxes)) for row in deck.rows],
            minus=list(deck.minus),
        ),
        results=[
            RoundScores(
                round=r.round,
                ended=r.ended,
                by=state.seats[r.ender],
                scores=dict(zip(state.seats, r.scores)),
                totals=dict(zip(state.seats, r.totals)),
            )
            for r in state.results
        ],
        players=players,
    )


def outcome(state: State) -> Outcome | None:
    if state.phase != "over":
        return None
    final = scores(state)
    best = max(final.values())
    leaders = [name for name in state.seats if final[name] == best]
    minus = {name: p.pad[-1] for name, p in zip(state.seats, state.players)}
    winners = leaders
    if len(leaders) == 1:
        why = f"{leaders[0]} has the highest score ({best}) after {plural(len(state.results), 'round')}"
    elif state.tie == "fewest-minus":
        fewest = min(minus[name] for name in leaders)
        winners = [name for name in leaders if minus[name] == fewest]
        if len(winners) == 1:
            why = f"{', '.join(leaders)} tie on {best}; {winners[0]} marked the fewest minus boxes ({fewest})"
        else:
            why = f"{', '.join(winners)} tie on {best} and {fewest} minus boxes: a shared victory"
    else:
        why = f"{', '.join(leaders)} tie on {best}: a shared victory"
    return Outcome(
        scores=final,
        winners=winners,
        reason=why,
        details={
            "rounds": [dict(zip(state.seats, r.scores)) for r in state.results],
            "minus": minus,
        },
        ended="rounds",
    )


def to_act(state: State) -> tuple[str, str]:
    phase = state.phase
    name = state.player_name
    if state.owed:  # a seated seat's hand the deal left to it: nothing else is played before
        return state.owed[
            0
        ], f"{', '.join(state.owed)} to name their own dealt hand ({HAND} cards: PLAYER: hand CARD ...)"
    if phase == "draw":
        return name, f"{name} to draw from the pile or take from the discard row"
    if phase == "play":
        if state.must_play is not None:
            return name, f"{name} must play {state.must_play}, taken from the discard row, in a match or an upgrade"
        return name, f"{name} to play or upgrade matches, then discard one card"
    if phase == "bonus":
        return name, f"{name} may {BONUS_WORDS[state.bonus]} ({GRADES[state.bonus]} match), or skip"
    if phase == "laying":
        out = state.seats[(state.laying[0] - 1) % len(state.seats)]
        return (
            name,
            f"{name} may lay matches before the round is scored ({out} went out on their first turn), then done",
        )
    if phase == "deal":
        number = state.round + 1
        dealer = state.seats[state.dealer]
        if state.mode == "open":
            return "table", f"tally must deal round {number} ({dealer} deals)"
        hands = "and any hand the recorder saw"
        if state.seated:
            hands = ("and the hand of " if len(state.seated) == 1 else "and the hands of ") + ", ".join(state.seated)
        return "table", (
            f"the table must record the deal of round {number} ({dealer} deals): the card that starts the discard row, "
            + hands
        )
    return "nobody", f"the game is over after {plural(len(state.results), 'round')}"


def waiting_on(state: State) -> tuple[str, ...]:
    """The seats the table waits on: each seated seat still to name its dealt hand, else the seat to act."""
    return _waiting_on(to_act(state), state.owed)


def owed(state: State) -> tuple[Due, ...]:
    """Who owes what: each seated seat still to name its dealt hand (typed: its sets of nine cards are too many to
    list), or at a deal the table entering it from the dealer's device (the card that starts the row, typed); else
    the turn's move, listed."""
    if state.owed:
        return tuple(
            Due(seat=name, what=f"the dealt hand ({HAND} cards)", form="PLAYER: hand CARDS") for name in state.owed
        )
    if state.phase == "deal" and state.mode == "table":
        return (
            Due(
                seat=TABLE,
                what=f"the deal of round {state.round + 1}: the card that starts the discard row",
                form="deal CARD | PLAYER CARDS ...",
                by=state.seats[state.dealer],
            ),
        )
    return turn_dues(to_act(state), waiting_on(state))


def pending(state: State) -> str | None:
    """What must be settled before play goes on: a bonus action, a card taken from the row that must be played,
    the matches of players who had no turn before a first-turn out, a deal the table must record."""
    phase = state.phase
    if (
        phase in ("bonus", "laying")
        or (phase == "play" and state.must_play is not None)
        or (phase == "deal" and state.mode == "table")
    ):
        return to_act(state)[1]
    return None


def narrate(before: State, after: State) -> list[str]:
    """What followed from an event without being an event itself: a first-turn out, a round's end, the end."""
    notes = []
    if after.phase == "laying" and before.phase != "laying":
        late = ", ".join(after.seats[s] for s in after.laying)
        notes.append(f"{before.player_name} went out on their first turn: {late} may lay matches before scoring")
    if len(after.results) > len(before.results):
        r = after.results[-1]
        how = (
            f"{after.seats[r.ender]} went out"
            if r.ended == "out"
            else f"{after.seats[r.ender]} drew the pile's last card"
        )
        scores = ", ".join(
            f"{name} {score:+d} ({total})" for name, score, total in zip(after.seats, r.scores, r.totals)
        )
        notes.append(f"round {r.round} ends: {how}; {scores}")
    if after.phase == "over" and before.phase != "over":
        result = outcome(after)
        notes.append(f"game over: {result.reason}" if result else "game over")
    return notes
