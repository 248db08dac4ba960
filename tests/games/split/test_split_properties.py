"""Property tests over random playouts of Split.

Every choice of a playout -- the seat count, the options, each round's shuffled deck, each move, each undo or
note -- is drawn from hypothesis data, so a failing playout shrinks to a short one. Moves are picked from
`SPLIT.legal_moves(state)`, whose first entry always makes progress (the draw, a match, the first bonus
action, a discard), so shrunk playouts stay finite. Open-mode playouts are also replayed as a table would
have recorded them: by a scorekeeper who sees no hand (`table_transcript`), and by one of the players, who
names their own hand and draws (`seen_by`); those folds carry unknown cards.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Union

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from support.playout import Recorder
from support.split_helpers import ANN, Game, deal_table, out_on_first_turn, standard
from tally.cli.main import app
from tally.core.engine import Table, fold, judge
from tally.core.games.split import (
    MANIFEST,
    RULE_IDS,
    SPLIT,
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
    State,
    components,
    unlocated,
)
from tally.core.model import SHARED_EVENTS, Event, GameStarted, NotationError, Noted, Voided
from tally.store.recording import record

NAMES = ("ann", "ben", "cy", "dee", "eve", "fay")
CORE_RULES = {"core.void.nothing", "core.void.last-only", "core.void.reason", "core.void.dealt", "core.log.one-start"}
MAX_EVENTS = 3000
# Few examples per test, but each one is a whole game of one to three rounds (a few hundred events).
PLAYOUTS = settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
# these two look at every state from every seat's view: fewer, longer examples
VIEWED = settings(
    max_examples=7, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
DECODER = msgspec.json.Decoder(Union[tuple(SHARED_EVENTS) + tuple(SPLIT.events)])  # type: ignore[valid-type]
OPTIONS = {
    "halves": ("left-right", "any"),
    "upgrade-others": ("take", "keep", "own-only"),
    "replaced-half": ("under", "hand", "discard"),
    "upgrade-bonus": ("yes", "no"),
    "no-out-dealer": ("left", "same", "drawer"),
    "tie": ("shared", "fewest-minus"),
}


def words(blob: bytes) -> set[str]:
    """Every card-like word in encoded JSON (a card code is never part of a longer word)."""
    return {w.decode() for w in re.findall(rb"[\w]+", blob)}


# --------------------------------------------------------------------------- the playout


class Playout(Recorder):
    """One open-mode game played through `Table.step`, every choice drawn from hypothesis data."""

    def __init__(self, data: st.DataObject, *, voids: bool = False, notes: bool = False, rounds: int | None = None):
        self.data = data
        n = data.draw(st.integers(2, 6), label="seats")
        options = {key: data.draw(st.sampled_from(values), label=key) for key, values in OPTIONS.items()}
        options["rounds"] = str(rounds or data.draw(st.sampled_from([1, 1, 2, 3]), label="rounds"))
        self.seats = list(NAMES[:n])
        self.started = GameStarted(
            seq=1, game="split", rules="1", seats=self.seats, mode="open", options=options, manifest=MANIFEST
        )
        super().__init__(SPLIT, self.started, voids=voids, notes=notes)

    def index(self, n: int, label: str) -> int:
        return self.data.draw(st.integers(0, n - 1), label=label) if n > 1 else 0

    def one_in(self, k: int, label: str) -> bool:
        return self.data.draw(st.integers(0, k - 1), label=label) == k - 1

    def deal(self) -> None:
        cards = self.data.draw(st.permutations(self.state.deck.cards), label="deck")
        for event in SPLIT.deal(self.state, {"deck": list(cards)}):
            self.record(event)

    def move(self) -> None:
        if self.voids and self.voided < 5 and self.can_void() and self.one_in(25, "void"):
            self.void_last()
            return
        if self.notes and self.one_in(40, "note"):
            self.note(self.data.draw(st.text(max_size=8), label="note"), self.seats[0])
            return
        if self.state.phase == "deal":
            self.deal()
            return
        moves = SPLIT.legal_moves(self.state)
        self.record(moves[self.index(len(moves), "move")])

    def play(self) -> "Playout":
        while self.state.phase != "over" and len(self.events) < MAX_EVENTS:
            self.move()
        return self


def seen_by(events: list[Event], seat: str) -> list[Event]:
    """What `seat` would log at the table: their own hand and draws named, every other hand and draw unknown."""
    started = events[0]
    assert isinstance(started, GameStarted)
    out: list[Event] = [msgspec.structs.replace(started, mode="table")]
    for event in events[1:]:
        if isinstance(event, RoundDealt):
            out.append(RoundDealt(row=event.row, hands={seat: event.hands[seat]}))
        elif isinstance(event, CardDrawn) and event.player != seat:
            out.append(msgspec.structs.replace(event, card=None))
        else:
            out.append(event)
    return out


def effective(events: list[Event]) -> list[Event]:
    kept: list[Event] = []
    for event in events:
        if isinstance(event, Voided):
            kept = [e for e in kept if e.seq != event.target]
        else:
            kept.append(event)
    return [e for e in kept if not isinstance(e, Noted)]


# --------------------------------------------------------------------------- invariants


def assert_cards_conserved(state: State) -> None:
    deck = state.deck
    known: list[str] = list(state.row) + list(state.pile)
    unknown = state.pile_size - len(state.pile)
    for seat in state.players:
        known += seat.hand.known
        unknown += seat.hand.unknown
        for match in seat.matches:
            assert len(match) >= 2
            known += match
    if state.round == 0:
        assert not known and unknown == 0
        return
    repeated = [c for c, k in Counter(known).items() if k > 1]
    assert not repeated, f"cards in two places at once: {repeated}"
    assert set(known) <= set(deck.cards)
    assert len(known) + unknown == deck.size, (len(known), unknown)
    assert deck.reference == 4 and deck.size == 104  # the reference cards stay aside, beside the 104 half-cards
    if state.mode == "open":
        assert unknown == 0 and sorted(known) == sorted(deck.cards)
        assert len(state.pile) == state.pile_size


def assert_unknown_within_the_pool(state: State) -> None:
    """Unknown cards (hands and the face-down pile) are exactly the cards the log has not located."""
    pool = [c for c in state.deck.cards if c not in _located(state)]
    assert pool == unlocated(state)
    hidden = sum(seat.hand.unknown for seat in state.players) + state.pile_size - len(state.pile)
    assert hidden == len(pool), (hidden, len(pool))
    for seat in state.players:
        assert 0 <= seat.hand.unknown <= len(pool)


def _located(state: State) -> set[str]:
    found = set(state.row) | set(state.pile)
    for seat in state.players:
        found.update(seat.hand.known)
        for match in seat.matches:
            found.update(match)
    return found


def assert_views_hide_hands(state: State) -> None:
    public = set(state.row) | {c for seat in state.players for match in seat.matches for c in match}
    if state.must_play is not None:  # taken from the row in front of everyone, now owed to the table
        public.add(state.must_play)
    for viewer in [None, *state.seats]:
        blob = msgspec.json.encode(SPLIT.view(state, viewer))
        seen = words(blob)
        for name, seat in zip(state.seats, state.players):
            if viewer is not None and viewer != name:
                leaked = (set(seat.hand.known) - public) & seen
                assert not leaked, (viewer, name, leaked)
            elif viewer == name or viewer is None:
                assert set(seat.hand.known) <= seen
        assert not (set(state.pile) & seen), (viewer, set(state.pile) & seen)
        assert public <= seen


# --------------------------------------------------------------------------- the properties


@VIEWED
@given(st.data())
def test_cards_are_conserved_and_views_hide_hands(data: st.DataObject) -> None:
    p = Playout(data)
    p.hooks.append(lambda p, e: (assert_cards_conserved(p.state), assert_views_hide_hands(p.state)))
    assert_cards_conserved(p.state)
    p.play()
    assert p.state.phase == "over"


@VIEWED
@given(st.data())
def test_table_records_fold_legally_with_unknown_cards_within_the_pool(data: st.DataObject) -> None:
    p = Playout(data).play()
    recorder = data.draw(st.sampled_from([None, *p.seats]), label="recorder")
    transcript = SPLIT.table_transcript(p.events) if recorder is None else seen_by(p.events, recorder)
    table = Table(SPLIT, transcript[0])  # type: ignore[arg-type]
    for seq, event in enumerate(transcript[1:], 2):
        event = msgspec.structs.replace(event, seq=seq)
        rulings = table.check(event)
        assert all(r.verdict != "illegal" for r in rulings), (SPLIT.format(event), [r.render() for r in rulings])
        assert {r.rule for r in rulings} <= {"split.row.playable"}
        table.apply(event)
        state = table.state
        assert_cards_conserved(state)
        assert_unknown_within_the_pool(state)
        assert_views_hide_hands(state)
        if recorder is not None and state.round:
            mine = state.players[state.seats.index(recorder)]
            assert mine.hand.unknown == 0, "the recorder knows their own hand"
    assert SPLIT.outcome(table.state) == SPLIT.outcome(p.state)
    assert [r.totals for r in table.state.results] == [r.totals for r in p.state.results]


@PLAYOUTS
@given(st.data())
def test_scores_equal_a_recomputation_from_the_events(data: st.DataObject) -> None:
    p = Playout(data, voids=True, notes=True).play()
    totals = pad_oracle(effective(p.events), p.seats)
    assert totals == [dict(zip(p.seats, r.totals)) for r in p.state.results]
    outcome = SPLIT.outcome(p.state)
    assert outcome is not None and outcome.scores == totals[-1]
    best = max(totals[-1].values())
    assert set(outcome.winners) <= {name for name, score in totals[-1].items() if score == best}


def pad_oracle(events: list[Event], seats: list[str]) -> list[dict[str, int]]:
    """The pads' totals after each finished round, recomputed from the events alone (no reducer), with the
    default pad written out here: a row per rank (0 5 15 30 ...), minus boxes 5 each, one box per match."""
    boxes = [0, 5, 15, 30, 50, 75, 105, 140, 180, 225, 275, 330, 390]
    started = events[0]
    assert isinstance(started, GameStarted)
    replaced, others = started.options["replaced-half"], started.options["upgrade-others"]
    n = len(seats)
    marks: dict[str, Counter[str]] = {name: Counter() for name in seats}
    minus = dict.fromkeys(seats, 0)
    totals: list[dict[str, int]] = []
    hand: dict[str, int] = {}
    table: dict[str, list[tuple[str, str]]] = {}
    row: list[str] = []
    pile, had, late = 0, set(), []

    def end_round() -> None:
        for name in seats:
            for left, _ in table[name]:
                marks[name][left[:-2]] += 1  # the rank: a card code is rank, suit, side
            minus[name] += hand[name]
        totals.append(
            {
                name: sum(boxes[min(k, len(boxes) - 1)] for k in marks[name].values()) - 5 * min(minus[name], 99)
                for name in seats
            }
        )

    def owner_of(half: str) -> tuple[str, int]:
        return next((name, i) for name in seats for i, m in enumerate(table[name]) if half in m)

    for event in events[1:]:
        who = getattr(event, "player", "")
        if isinstance(event, RoundDealt):
            hand, table, pile, had, late = (
                dict.fromkeys(seats, 9),
                {name: [] for name in seats},
                104 - 9 * n - 1,
                set(),
                [],
            )
            row = [event.row]
        elif isinstance(event, CardDrawn):
            hand[who], pile = hand[who] + 1, pile - 1
            had.add(who)
            if pile == 0:
                end_round()
        elif isinstance(event, RowTaken):
            had.add(who)
            at = row.index(event.card)
            hand[who] += len(row) - at
            row = row[:at]
        elif isinstance(event, MatchPlayed):
            hand[who] -= 2
            table[who].append((event.cards[0], event.cards[1]))
        elif isinstance(event, MatchUpgraded):
            name, i = owner_of(event.over)
            kept = next(c for c in table[name][i] if c != event.over)
            hand[who] -= 0 if replaced == "hand" else 1
            if replaced == "discard":
                row.append(event.over)
            if name != who and others == "take":
                del table[name][i]
                table[who].append((kept, event.card))
            else:
                table[name][i] = (kept, event.card)
        elif isinstance(event, MinusMarked):
            minus[event.target] += 1
        elif isinstance(event, MatchesSwapped):
            name, j = owner_of(event.theirs[0])
            _, i = owner_of(event.mine[0])
            table[who][i], table[name][j] = table[name][j], table[who][i]
        elif isinstance(event, CardDiscarded):
            hand[who] -= 1
            row.append(event.card)
            if hand[who] == 0:
                start = seats.index(who)
                late = [seats[(start + k) % n] for k in range(1, n) if seats[(start + k) % n] not in had]
                if not late:
                    end_round()
        elif isinstance(event, LayingDone) and who == late[-1]:
            end_round()
    return totals


def mutations(p: Playout) -> list[tuple[Event, set[str]]]:
    """Moves that must be refused now, each with the rule ids allowed to refuse it."""
    state = p.state
    out: list[tuple[Event, set[str]]] = []
    last = p.table.last_effective_seq
    if last is not None:
        if not p.can_void():
            out.append((Voided(target=last, reason="x"), {"core.void.dealt"}))
        out.append((Voided(target=last, reason=" "), {"core.void.reason", "core.void.dealt"}))
        earlier = [e.seq for e in p.events[1:] if e.seq != last and not isinstance(e, (Voided, Noted))]
        if earlier:
            out.append((Voided(target=earlier[0], reason="x"), {"core.void.last-only"}))
    out.append((p.events[0], {"core.log.one-start"}))
    who = state.player_name
    other = state.seats[(state.current + 1) % len(state.seats)]
    if state.phase == "over":
        out.append((CardDrawn(player=who), {"split.turn.game-over"}))
        out.append((RoundDealt(row=state.deck.cards[0]), {"split.turn.game-over"}))
        return out
    if state.phase == "deal":
        out.append((CardDrawn(player=who), {"split.setup.incomplete"}))
        out.append((RoundDealt(row=state.deck.cards[0]), {"split.setup.deal"}))
        return out
    out.append((RoundDealt(row=state.deck.cards[0]), {"split.deal.not-expected"}))
    out.append((CardDrawn(player=other), {"split.turn.out-of-turn"}))
    out.append((BonusDeclined(player="nobody-here"), {"split.turn.out-of-turn"}))
    hand = state.player.hand.known
    elsewhere = next((c for c in state.deck.cards if c in _located(state) and c not in hand), None)
    if state.phase == "draw":
        out.append((MatchPlayed(player=who, cards=list(hand[:2])), {"split.turn.steps"}))
        out.append((CardDiscarded(player=who, card=hand[0]), {"split.turn.steps"}))
        out.append((MinusMarked(player=who, target=other), {"split.bonus.wrong-kind"}))
        absent = next(c for c in state.deck.cards if c not in state.row)
        out.append((RowTaken(player=who, card=absent), {"split.row.missing"}))
        out.append((LayingDone(player=who), {"split.round.first-turn-out"}))
    elif state.phase == "play":
        out.append((CardDrawn(player=who, card=state.pile[0] if state.pile else None), {"split.turn.steps"}))
        if state.must_play is None:
            if elsewhere:
                out.append((CardDiscarded(player=who, card=elsewhere), {"split.hand.not-held"}))
            out.append((CardDiscarded(player=who, card="9ZZ"), {"split.hand.not-held"}))
            for a in hand:
                for b in hand:
                    if a[:-2] != b[:-2]:
                        rules = {"split.match.same-number"} | ({"split.hand.keep-one"} if len(hand) < 3 else set())
                        out.append((MatchPlayed(player=who, cards=[a, b]), rules))
                        break
                else:
                    continue
                break
            out.append((MatchUpgraded(player=who, card=hand[0], over="9ZZ"), {"split.upgrade.target"}))
        else:
            out.append((CardDiscarded(player=who, card=hand[0]), {"split.row.play-first"}))
    elif state.phase == "bonus":
        out.append((CardDiscarded(player=who, card=hand[0] if hand else "9ZZ"), {"split.bonus.pending"}))
        out.append((MinusMarked(player=who, target=who), {"split.bonus.perfect", "split.bonus.wrong-kind"}))
        out.append(
            (MatchesSwapped(player=who, mine=["9ZZ"], theirs=[]), {"split.bonus.weak", "split.bonus.wrong-kind"})
        )
    elif state.phase == "laying":
        out.append((CardDiscarded(player=who, card=hand[0] if hand else "9ZZ"), {"split.round.first-turn-out"}))
        out.append((CardDrawn(player=who), {"split.round.first-turn-out"}))
    return out


@PLAYOUTS
@given(st.data())
def test_legal_moves_agree_with_check_and_illegal_moves_change_nothing(data: st.DataObject) -> None:
    p = Playout(data)

    def judge_moves(p: Playout, event: Event) -> None:
        moves = SPLIT.legal_moves(p.state)
        assert SPLIT.legal_moves(p.state) == moves, "legal moves come in a deterministic order"
        for move in moves:
            rulings = p.table.check(move)
            assert all(r.verdict != "illegal" for r in rulings), (SPLIT.format(move), [r.render() for r in rulings])
            permit = p.table.permit(move)
            assert permit.verdict == "legal" and permit.rule in RULE_IDS, permit
        for bad, rules in mutations(p):
            rulings = p.reject(bad)
            first = next(r for r in rulings if r.verdict == "illegal")
            assert first.rule in rules, (SPLIT.format(bad), p.state.phase, first.render(), rules)
            assert first.rule in RULE_IDS | CORE_RULES and first.message

    p.hooks.append(judge_moves)
    p.play()


@PLAYOUTS
@given(st.data())
def test_fold_of_a_prefix_then_the_rest_equals_fold_of_all_and_voids_walk_back(data: st.DataObject) -> None:
    p = Playout(data, voids=True, notes=True).play()
    whole = fold(SPLIT, p.events)
    assert whole.state == p.state and whole.last_seq == len(p.events)
    verdict, judged = judge(SPLIT, p.events)
    assert verdict.ok and judged.state == p.state
    for _ in range(3):
        cut = p.index(len(p.events), "cut") + 1
        table = fold(SPLIT, p.events[:cut])
        for event in p.events[cut:]:
            table.apply(event)
        assert table.state == whole.state
    for _ in range(1 + p.index(6, "undo depth")):
        if not p.can_void():
            break
        before = p.undo[-1]
        p.record(Voided(target=p.table.last_effective_seq, reason="x"))
        assert p.state == before and fold(SPLIT, p.events).state == before


@PLAYOUTS
@given(st.data())
def test_every_event_survives_encode_and_decode_and_the_state_cache(data: st.DataObject) -> None:
    p = Playout(data, voids=True, notes=True).play()
    prev: str | None = None
    for event in p.events:
        enveloped = msgspec.structs.replace(event, at="2026-01-01T00:00:00.000Z", prev=prev)
        line = msgspec.json.encode(enveloped)
        back = DECODER.decode(line)
        assert back == enveloped and msgspec.json.encode(back) == line and b"\n" not in line
        prev = hashlib.sha256(line).hexdigest()
    state = p.state
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(state), type=State) == state


@PLAYOUTS
@given(st.data())
def test_notation_round_trips_every_legal_move(data: st.DataObject) -> None:
    p = Playout(data)

    def round_trip(p: Playout, event: Event) -> None:
        state = p.state
        for move in SPLIT.legal_moves(state):
            text = SPLIT.format(move)
            assert SPLIT.parse(state, text) == [move], text
            if not isinstance(move, RoundDealt):
                assert text.startswith(f"{move.player}: ")  # type: ignore[attr-defined]
        if not isinstance(event, (GameStarted, RoundDealt, Voided, Noted)):
            text = SPLIT.format(event)
            assert SPLIT.parse(p.undo[-1], text) == [msgspec.structs.replace(event, seq=0)], text

    p.hooks.append(round_trip)
    p.play()


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_games_end_after_their_rounds_with_a_winner_by_the_rules(data: st.DataObject) -> None:
    p = Playout(data).play()
    state = p.state
    assert state.phase == "over" and len(state.results) == state.rounds
    outcome = SPLIT.outcome(state)
    assert outcome is not None and outcome.winners and outcome.reason
    best = max(outcome.scores.values())
    leaders = [name for name, score in outcome.scores.items() if score == best]
    if state.tie == "shared":
        assert outcome.winners == leaders
    else:
        fewest = min(state.players[state.seats.index(name)].pad[-1] for name in leaders)
        assert outcome.winners == [n for n in leaders if state.players[state.seats.index(n)].pad[-1] == fewest]
    assert SPLIT.legal_moves(state) == [] and SPLIT.to_act(state)[0] == "nobody"
    # each round: the dealer's left starts; the next dealer is who went out, or as the option says
    deals = [i for i, e in enumerate(p.events) if isinstance(e, RoundDealt)]
    assert len(deals) == state.rounds
    for number, result in enumerate(state.results[:-1]):
        nxt = state.results[number + 1].dealer
        if result.ended == "out":
            assert nxt == result.ender
        elif state.no_out_dealer == "left":
            assert nxt == (result.dealer + 1) % len(state.seats)
        elif state.no_out_dealer == "same":
            assert nxt == result.dealer
        else:
            assert nxt == result.ender
    assert all(o is None for o in map(SPLIT.outcome, p.undo)), "no outcome before the end"


# --------------------------------------------------------------------------- robustness: no input makes tally raise
# No input makes tally raise on a Split game: hypothesis feeds it notation, events, options and manifests.
#
# Every text a user can type as a move (control characters, digits of other scripts, huge numbers, names that
# are not at the table, half-finished notation), every event a log line can hold (any strings, lists and
# hands in the event's fields), every option and every manifest either works or gets a ruling, a notation
# error or a usage error: never an exception, so never exit code 4. Messages stay short whatever the input.

FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
CARDS = list(components.DEFAULT_DECK.cards)
JUNK = [
    "",
    " ",
    "ZZL",
    "7HX",
    "1HL",
    "10",
    "٣HL",
    "７HL",
    "7hl",
    "+",
    "++",
    "7HL+",
    "+7HR",
    "|",
    "over",
    "for",
    ":",
    "\x00",
    "\x1b[31m",
    "\u202e",
    "9" * 30,
    "-1",
    "ann",
    "ben",
    "zed",
    "table",
    "nobody",
    "Ann",
    "x" * 200,
]
VOCAB = [
    "draw",
    "take",
    "match",
    "upgrade",
    "minus",
    "swap",
    "skip",
    "discard",
    "done",
    "deal",
    "over",
    "for",
    "|",
    "ann:",
    "ben:",
    "zed:",
    "ANN:",
    ":",
    "pile",
    "of",
] + JUNK
WORD = st.one_of(st.sampled_from(CARDS), st.sampled_from(VOCAB), st.text(max_size=6))
MOVE_TEXT = st.one_of(st.text(max_size=60), st.lists(WORD, max_size=12).map(" ".join))
STRING = st.one_of(st.sampled_from(CARDS), st.sampled_from(JUNK), st.text(max_size=12))


def positions() -> list[Game]:
    """A game at each step a move can meet: the deal, the draw, the play, a pending bonus, a card owed from
    the row, laying after a first-turn out, the end; in open and table mode."""
    found = [Game(), Game(mode="table")]
    found.append(standard())
    found.append(standard().do("draw"))
    found.append(standard().do("draw", "match 2HL 2HR"))
    found.append(standard().do("draw", "match 5HL 5SR"))
    found.append(standard().do("draw", "discard 8HL", "ben: draw", "ben: discard 5DL", "take 5DL"))
    found.append(out_on_first_turn().do("discard 8HL"))
    found.append(out_on_first_turn(rounds=1).do("discard 8HL", "ben: done"))
    table = deal_table(Game(mode="table", seats=("ann", "ben", "cy")), "QSR", ann=ANN)
    found.append(table)
    found.append(deal_table(Game(mode="table"), "QSR", ann=ANN).do("draw 8HL", "discard 8HL", "ben: draw"))
    return found


POSITIONS = positions()


def bounded(text: str, source: str = "") -> None:
    assert len(text) <= 600 + 2 * len(source), (len(text), text[:200])


def judge_everything(game: Game, events: list[Any], source: str = "") -> None:
    for event in events:
        rulings = game.table.check(event)
        assert isinstance(rulings, list)
        for ruling in rulings:
            assert ruling.rule.startswith(("split.", "core.")) and ruling.message
            bounded(ruling.render(), source)
        if not any(r.verdict == "illegal" for r in rulings):
            bounded(game.table.permit(event).render(), source)
            SPLIT.format(event)


@FUZZ
@given(text=MOVE_TEXT, at=st.integers(0, len(POSITIONS) - 1))
def test_no_move_text_makes_the_parser_or_the_rules_raise(text: str, at: int) -> None:
    game = POSITIONS[at]
    parsed = SPLIT.parse(game.state, text)
    if isinstance(parsed, NotationError):
        assert parsed.message and all(isinstance(e, str) for e in parsed.expected)
        bounded(parsed.render(), text * 2)
        return
    judge_everything(game, parsed, text)


def events() -> st.SearchStrategy[Any]:
    strings = st.lists(STRING, max_size=4)
    hands = st.dictionaries(STRING, st.lists(STRING, max_size=10), max_size=3)
    return st.one_of(
        st.builds(RoundDealt, row=STRING, hands=hands, pile=st.lists(STRING, max_size=4)),
        st.builds(CardDrawn, player=STRING, card=st.one_of(st.none(), STRING)),
        st.builds(RowTaken, player=STRING, card=STRING),
        st.builds(MatchPlayed, player=STRING, cards=strings),
        st.builds(MatchUpgraded, player=STRING, card=STRING, over=STRING),
        st.builds(MinusMarked, player=STRING, target=STRING),
        st.builds(MatchesSwapped, player=STRING, mine=strings, theirs=strings),
        st.builds(BonusDeclined, player=STRING),
        st.builds(CardDiscarded, player=STRING, card=STRING),
        st.builds(LayingDone, player=STRING),
    )


@FUZZ
@given(event=events(), at=st.integers(0, len(POSITIONS) - 1), actor=st.booleans())
def test_no_event_a_log_line_can_hold_makes_the_rules_raise(event: Any, at: int, actor: bool) -> None:
    game = POSITIONS[at]
    if actor and hasattr(event, "player"):  # most events in a log name the right player: get past that guard
        import msgspec

        event = msgspec.structs.replace(event, player=game.state.player_name)
    judge_everything(game, [event], repr(event))


OPTION_KEYS = [option.key for option in SPLIT.options] + ["target", "", "=", "rounds "]


@FUZZ
@given(
    options=st.dictionaries(
        st.one_of(st.sampled_from(OPTION_KEYS), st.text(max_size=8)),
        st.one_of(
            st.text(max_size=12),
            st.sampled_from(["0", "1", "3", "9", "10", "-1", "٣", "³", "99999999999", "yes", "any"]),
        ),
        max_size=3,
    ),
    seats=st.integers(0, 8),
)
def test_no_option_makes_a_new_game_raise(options: dict[str, str], seats: int) -> None:
    players = [f"p{i}" for i in range(seats)]
    try:
        spec, started = record.start_event("split", players, options, "open")
    except record.UsageError as error:
        bounded(str(error), json.dumps(options))
        return
    state = spec.start(started)
    assert state.rounds == int(started.options["rounds"]) and 2 <= len(players) <= 6


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)
MANIFEST_PART = st.fixed_dictionaries(
    {},
    optional={
        "name": JSON,
        "ranks": st.one_of(
            JSON, st.lists(st.sampled_from(["A", "2", "10", "K", "Z", "a", "", "AAAA", "1"]), max_size=14)
        ),
        "suits": st.one_of(
            JSON,
            st.lists(
                st.fixed_dictionaries(
                    {
                        "code": st.sampled_from(["S", "H", "L", "x", "", "HH"]),
                        "colour": st.sampled_from(["red", "black", "", "green"]),
                    }
                ),
                max_size=5,
            ),
        ),
        "reference": JSON,
        "pad": st.one_of(
            JSON,
            st.fixed_dictionaries(
                {},
                optional={
                    "rows": st.one_of(
                        JSON, st.lists(st.fixed_dictionaries({"name": JSON, "ranks": JSON, "boxes": JSON}), max_size=3)
                    ),
                    "minus": st.one_of(JSON, st.lists(st.integers(-(10**7), 10**7), max_size=5)),
                    "marks": st.one_of(JSON, st.fixed_dictionaries({"perfect": JSON, "strong": JSON, "weak": JSON})),
                },
            ),
        ),
        "extra": JSON,
    },
)


@FUZZ
@given(manifest=st.one_of(MANIFEST_PART, JSON), seats=st.integers(2, 6))
def test_no_manifest_makes_tally_raise(manifest: Any, seats: int) -> None:
    problems = SPLIT.check_manifest(manifest)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    for problem in problems:
        bounded(problem, json.dumps(manifest))
    started = GameStarted(
        seq=1,
        game="split",
        rules="1",
        seats=[f"p{i}" for i in range(seats)],
        mode="open",
        options=SPLIT.resolved_options({}),
        manifest=manifest,
    )
    if SPLIT.check_started(started):
        return
    table = Table(SPLIT, started)
    deck = table.state.deck
    assert deck.size >= 9 * seats + 2
    chance = SPLIT.shuffles(table.state)
    for event in SPLIT.deal(table.state, {name: list(reversed(pile)) for name, pile in chance.items()}):
        assert table.step(event).is_legal
    assert SPLIT.legal_moves(table.state)


# --------------------------------------------------------------------------- the command line, in-process


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("split-fuzz")
    opened = folder / "open.jsonl"
    record.new_game(opened, "split", ["ann", "ben", "cy"], seed=4)
    for _ in range(6):
        state = record.position(opened).table.state
        record.move(opened, SPLIT.format(SPLIT.legal_moves(state)[0]))
    table = folder / "table.jsonl"
    record.new_game(table, "split", ["ann", "ben"], mode="table")
    record.move(table, "deal QSR | ann 7HL 7DR 9SL 9CR 5HL 5SR 2HL 2HR 7HR")
    return {"open": opened, "table": table}


def cli(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    return result


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(text=MOVE_TEXT, which=st.sampled_from(["open", "table"]), as_json=st.booleans())
def test_tally_rule_never_exits_with_an_internal_error(
    logs: dict[str, Path], text: str, which: str, as_json: bool
) -> None:
    before = logs[which].read_bytes()
    result = cli("rule", str(logs[which]), text, *(["--json"] if as_json else []))
    assert result.exit_code in (0, 1, 2), (text, result.exit_code, result.output)
    assert logs[which].read_bytes() == before
    assert "Traceback" not in result.output


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(options=st.lists(st.text(max_size=16), max_size=3), manifest=st.one_of(st.none(), MANIFEST_PART, JSON))
def test_tally_new_never_exits_with_an_internal_error(
    tmp_path_factory: pytest.TempPathFactory, options: list[str], manifest: Any
) -> None:
    folder = tmp_path_factory.mktemp("new")
    args = ["new", "split", str(folder / "g.jsonl"), "-p", "ann", "-p", "ben", "--seed", "1"]
    for option in options:
        args += ["--option", option]
    if manifest is not None:
        (folder / "box.json").write_text(json.dumps(manifest))
        args += ["--manifest", str(folder / "box.json")]
    result = cli(*args)
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output)
    if result.exit_code == 0:
        assert record.check(folder / "g.jsonl").ok


def test_the_positions_cover_every_phase() -> None:
    assert {game.state.phase for game in POSITIONS} == {"deal", "draw", "play", "bonus", "laying", "over"}
    assert any(game.state.must_play for game in POSITIONS) and any(game.state.mode == "table" for game in POSITIONS)
