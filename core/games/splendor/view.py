"""What Splendor shows: the view for one seat, the outcome, who must act next, and narration.

`view(state, None)` is everything the log knows; `view(state, seat)` hides what that seat may not
see (another player's blind reserve shows only its level).
"""

from __future__ import annotations

import msgspec
from msgspec import UNSET, UnsetType

from ...model import Outcome
from ...text import plural
from ...views import common
from ...views import waiting_on as _waiting_on
from .components import CARDS, COLOURS, FACE_UP, GEMS, NOBLE_POINTS, TOKEN_LIMIT
from .state import State, qualifying_nobles, turn


def colour_map(counts: tuple[int, ...], letters: str = COLOURS) -> dict[str, int]:
    return {letters[i]: counts[i] for i in range(len(letters))}


class SplendorPlayer(msgspec.Struct, frozen=True, kw_only=True):
    """A player's entry: points, tokens and bonuses by colour letter, cards bought, reserves (another player's
    blind reserve as `?LEVEL`), nobles."""

    name: str
    points: int
    tokens: dict[str, int]
    bonus: dict[str, int]
    cards: list[str]
    reserved: list[str]
    nobles: list[str]


class SplendorView(msgspec.Struct, frozen=True, kw_only=True):
    """What one seat sees (`core.views.View`), its keys in the order `--json` has always printed them."""

    game: str
    mode: str
    viewer: str | None
    phase: str
    turn: int
    to_act: str
    expected: str
    bank: dict[str, int]
    board: dict[str, list[str | None]]  # level ("1".."3") -> the face-up slots, None for an empty one
    decks: dict[str, int]
    nobles: list[str]
    players: list[SplendorPlayer]
    end_triggered: bool
    token_limit: int
    outcome: Outcome | None
    seq: int | UnsetType = UNSET
    fingerprint: str | None | UnsetType = UNSET


def view(state: State, seat: str | None) -> SplendorView:
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
            SplendorPlayer(
                name=name,
                points=p.points,
                tokens=colour_map(p.tokens),
                bonus=colour_map(p.bonus, GEMS),
                cards=list(p.cards),
                reserved=reserved,
                nobles=list(p.nobles),
            )
        )
    return SplendorView(
        **common("splendor", state.mode, seat, state.phase, turn(state), to_act(state), outcome(state)),
        bank=colour_map(state.bank),
        board={str(lvl + 1): list(row) for lvl, row in enumerate(state.board)},
        decks={str(lvl + 1): n for lvl, n in enumerate(state.deck_size)},
        nobles=list(state.nobles),
        players=players,
        end_triggered=state.end_triggered,
        token_limit=TOKEN_LIMIT,
    )


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
    if state.ended == "stalled":
        why = f"a whole round of passes stalled the game, scored as it stood: {why}"
    elif state.ended == "stuck":
        why = f"{state.player_name} could do nothing, which ends the game (stuck=end): {why}"
    return Outcome(
        scores=scores,
        winners=winners,
        reason=why,
        details={"ended": state.ended, "cards": {n: len(p.cards) for n, p in zip(state.seats, state.players)}},
        ended=state.ended,
    )


def to_act(state: State) -> tuple[str, str]:
    name = state.player_name
    phase = state.phase
    if phase == "action":
        return name, f"{name} to take gems, reserve or buy a card"
    if phase == "return":
        held = sum(state.player.tokens)
        return name, f"{name} must return {plural(held - TOKEN_LIMIT, 'token')} (holds {held}, limit {TOKEN_LIMIT})"
    if phase == "noble":
        return name, f"{name} must choose a noble: {', '.join(qualifying_nobles(state, state.player))}"
    if phase == "reveal":
        assert state.gap is not None
        return "table", f"the table must reveal the level-{state.gap[0] + 1} card turned up to fill the gap"
    if phase == "setup":
        if state.mode == "open":
            return "table", "tally must record the deal"
        missing = [
            plural(FACE_UP - sum(1 for c in row if c), f"level-{lvl + 1} card")
            for lvl, row in enumerate(state.board)
            if None in row
        ]
        if len(state.nobles) < state.nobles_wanted:
            missing.insert(0, plural(state.nobles_wanted - len(state.nobles), "noble"))
        return "table", "the table must reveal the setup: " + ", ".join(missing)
    return "nobody", f"the game is over ({state.ended})"


def waiting_on(state: State) -> tuple[str, ...]:
    """The seat to act: in Splendor nobody enters a card out of turn."""
    return _waiting_on(to_act(state))


def pending(state: State) -> str | None:
    """What must be settled before the next action: a card or the setup to reveal, tokens to return, a noble."""
    if state.phase in ("reveal", "return", "noble") or (state.phase == "setup" and state.mode == "table"):
        return to_act(state)[1]
    return None


def narrate(before: State, after: State) -> list[str]:
    """What followed from an event without being an event itself: a noble's visit, the last round, the end."""
    notes: list[str] = []
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
