"""One test per rule id: each builds a real position by folding real events through `Table`, then
asserts the ruling on a violating event (rule id, verdict, message, facts) and that a neighbouring legal
event is accepted (no ruling; `Table.permit` names the rule that allows it). Rules that forbid nothing
(refill, token limit, noble visit, end of game) are checked on the state and the outcome.

tests/core/test_game_contract.py keeps this file complete: a rule id of the game without a test named after it
here fails it.
"""

from __future__ import annotations

import pytest

from support.splendor_helpers import Game, autoplay, deck, open_game, table_game
from tally.core.games.splendor import (
    LEVEL_CARDS,
    SPLENDOR,
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
from tally.core.model import GameStarted, Noted, Voided

# The default deal (`deck(level)` in table order): these lie face up, and these are next in the decks.
L1 = list(LEVEL_CARDS[0][:4])  # 1w0-r2k1 1w0-b1g1r1k1 1w0-b1g2r1k1 1w0-b2k2
L2 = list(LEVEL_CARDS[1][:4])
L3 = list(LEVEL_CARDS[2][:4])
NEXT1, NEXT2 = LEVEL_CARDS[0][4], LEVEL_CARDS[1][4]


# ---------------------------------------------------------------------------- scenario builders


def race(seats=("ann", "ben"), target: int = 1) -> Game:
    """ann collects 4 green and ben 4 red; ann is about to buy 1w1-g4 (1 point), ben can buy 1b1-r4."""
    game = open_game(seats, level1=["1w1-g4", "1b1-r4"], target=target)
    game.do(
        "ann: take g g",
        "ben: take r r",
        "ann: take g w b",
        "ben: take r w b",
        "ann: take g k w",
        "ben: take r k b",
    )
    assert game.tokens("ann") == {"w": 2, "b": 1, "g": 4, "k": 1}
    assert game.tokens("ben") == {"w": 1, "b": 2, "r": 4, "k": 1}
    return game


def shopper() -> Game:
    """ann holds 3 blue, 1 white, 1 black and it is her turn; 1w0-b3 and 1b0-w1k2 lie face up."""
    game = open_game(level1=["1w0-b3", "1b0-w1k2", "1g0-r3", "1k0-g3"])
    game.do("ann: take b b", "ben: take w g r", "ann: take b w k", "ben: take w g r")
    assert game.tokens("ann") == {"w": 1, "b": 3, "k": 1}
    return game


def drained(**options: object) -> Game:
    """White, blue and green are gone from the supply (ann and ben took them all); ann to act."""
    game = open_game(**options)
    game.do("ann: take w b g", "ben: take w b g", "ann: take w b g", "ben: take w b g")
    assert game.bank() == {"w": 0, "b": 0, "g": 0, "r": 4, "k": 4, "y": 5}
    return game


STUCK_L1 = ["1w0-b1g1r1k1", "1b0-w1g1r1k1", "1g0-w1b1r1k1", "1k0-w1b1g1r1"]
STUCK_L2 = ["2w2-r5", "2r2-k5", "2b2-b5", "2g2-g5"]
STUCK_L3 = ["3w4-k7", "3b4-w7", "3g4-b7", "3r4-g7"]  # face up; then the six blind reserves, ann's and ben's in turn
STUCK_L3 += ["3k4-r7", "3w5-w3k7", "3b5-w7b3", "3g5-b7g3", "3r5-g7r3", "3k5-r7k3"]


def stuck(**options: object) -> Game:
    """Both hold 3 expensive reserves and 10 gems (ann w4 b4 g2, ben g2 r4 k4); the gem supply is empty and
    no face-up card is affordable: whoever is to act can do no action at all."""
    game = open_game(level1=STUCK_L1, level2=STUCK_L2, level3=STUCK_L3, **options)
    game.do(*["ann: reserve deck 3", "ben: reserve deck 3"] * 3)
    game.do(
        "ann: take w w",
        "ben: take r r",
        "ann: take b b",
        "ben: take k k",
        "ann: take w b g",
        "ben: take r k g",
        "ann: take w b g",
        "ann: return y y y",
        "ben: take r k g",
        "ben: return y y",
    )
    return game


def ann_stuck() -> Game:
    """take-fewer=never; only red 3 and black 3 are left (no take), ann holds 3 reserves and cannot afford any
    card: she is stuck. ben holds 2 reserves and can still reserve blind (returning the gold it brings)."""
    game = open_game(
        level1=["1b1-r4", "1g1-k4", "1r0-w1r1k3", "1k0-g1r3k1"],
        level2=["2w2-r5", "2r2-k5", "2k2-g5r3", "2g2-g5"],
        level3=["3w4-k7", "3r4-g7", "3k4-r7", "3g4-b7", "3k5-r7k3", "3b4-w7", "3r5-g7r3", "3k4-g3r6k3", "3b5-w7b3"],
        take_fewer="never",
    )
    game.do("ann: reserve deck 3", "ben: reserve deck 3", "ann: reserve deck 3", "ben: take b g r")
    game.do("ann: reserve deck 3", "ben: take b g k", "ann: take w w", "ben: take b g w", "ann: take w b g")
    game.do("ben: reserve deck 3", "ben: return y")
    assert game.bank() == {"w": 0, "b": 0, "g": 0, "r": 3, "k": 3, "y": 1}
    assert game.tokens("ann") == {"w": 3, "b": 1, "g": 1, "y": 3} and len(game.seat("ben").reserved) == 2
    return game


def empty_level3() -> Game:
    """Four players (take-fewer=always): 12 blind reserves and 4 face-up buys empty the level-3 deck.
    ann (2 reserves left in hand) is to act; 3k4-r7's slot was refilled with the deck's last card."""
    game = open_game(
        ("ann", "ben", "cal", "dee"),
        level3=["3b4-w7", "3g4-b7", "3r4-g7", "3k4-r7", "3w4-k7"],
        take_fewer="always",
    )
    for _ in range(3):
        game.do("ann: reserve deck 3", "ben: reserve deck 3", "cal: reserve deck 3", "dee: reserve deck 3")
    assert game.seat("ann").reserved[0] == "~3w4-k7" and game.state.deck_size[2] == 4
    idle = ["ben: take w", "cal: take b", "dee: take g"]
    for _ in range(2):
        game.do("ann: take k k", "ben: take w w", "cal: take b b", "dee: take g g")
    game.do("ann: take k", *idle)
    game.do("ann: buy 3w4-k7", *idle)  # her blind reserve: k5 y2
    game.do("ann: take r r", "ben: buy 3b4-w7", "cal: buy 3g4-b7", "dee: buy 3r4-g7")
    game.do("ann: take r r", *idle)
    for _ in range(3):
        game.do("ann: take r", *idle)
    game.do("ann: buy 3k4-r7", *idle)
    assert game.state.deck_size[2] == 0 and game.face_up(3) == LAST_OF_LEVEL3
    return game


LAST_OF_LEVEL3 = ["3r5-g7r3", "3k3-w3b3g5r3", "3k4-g3r6k3", "3k5-r7k3"]  # the deck's last 4, now face up


NOBLE_PLAN = [
    "1w0-b3",
    "1w0-r2k1",
    "1w0-b2k2",
    "1w0-b1g1r1k1",  # 4 white bonuses
    "1g0-w2b1",
    "1g0-w1b1r1k1",
    "1g0-r3",
    "1g0-b2r2",  # 4 green
    "1b0-w1g1r1k1",
    "1b0-w1g2r2",
    "1b0-w1k2",
    "1b0-g2k2",  # 4 blue: the last one meets w4b4 and b4g4 at once
]


def two_nobles() -> Game:
    """ann has bought 11 of NOBLE_PLAN (bonuses w4 b3 g4), ben only took gems; ann can now buy 1b0-g2k2.
    Nobles on the table: w4b4, b4g4, r4k4."""
    game = open_game(level1=NOBLE_PLAN, nobles=["w4b4", "b4g4", "r4k4"])

    def ready(g: Game) -> bool:
        s = g.state
        return (
            len(g.seat("ann").cards) == 11
            and s.phase == "action"
            and s.seats[s.current] == "ann"
            and "ann: buy 1b0-g2k2 pay k2" in g.legal()
        )

    autoplay(game, {"ann": NOBLE_PLAN}, ready)
    assert game.seat("ann").bonus == (4, 3, 4, 0, 0) and game.seat("ann").nobles == ()
    assert game.seat("ben").cards == () and game.state.nobles == ("w4b4", "b4g4", "r4k4")
    return game


# ---------------------------------------------------------------------------- shared (core) rules


def test_core_log_one_start():
    game = open_game()
    again = GameStarted(
        seq=2, game="splendor", rules="1", seats=["ann", "ben"], mode="open", options={}, manifest="splendor-base-2014"
    )
    ruling = game.refuse(again)
    assert (ruling.rule, ruling.message) == (
        "core.log.one-start",
        "a game starts once: game_started may only be the first event",
    )
    assert game.accept("ann: take w b g").rule == "splendor.take.three-different"


def test_core_void_nothing():
    game = Game()
    game.do(Noted(text="players seated"))  # a note is not a game event: still nothing to void
    ruling = game.refuse(Voided(target=2, reason="typo"))
    assert (ruling.rule, ruling.message) == ("core.void.nothing", "nothing to void: no game event has happened yet")
    game.do(SetupDealt(nobles=["w4b4", "b4g4", "g4r4"], decks=[deck(1), deck(2), deck(3)]))
    dealt = game.state
    game.do("ann: take w b g")
    assert game.accept(Voided(target=4, reason="wrong colours")).rule == "core.void.last"
    assert game.state is dealt


def test_core_void_dealt():
    game = Game()
    game.do(SetupDealt(nobles=["w4b4", "b4g4", "g4r4"], decks=[deck(1), deck(2), deck(3)]))
    ruling = game.refuse(Voided(target=2, reason="deal again"))
    assert ruling.rule == "core.void.dealt"
    assert ruling.message == "event #2 is chance that tally dealt itself (open mode); it cannot be voided"
    # in table mode the recorder entered the setup, so a mistyped reveal can be taken back
    table = table_game()
    last = table.table.last_seq
    assert table.accept(Voided(target=last, reason="misread the card")).rule == "core.void.last"


def test_core_note_player():
    game = open_game()
    ruling = game.refuse(Noted(text="zoe spilled tea", player="zoe"))
    assert ruling.rule == "core.note.player"
    assert ruling.message == "a note names 'zoe', who is not at this table"
    assert game.accept(Noted(text="ben spilled tea", player="ben")).rule == "core.note"


def test_core_void_last_only():
    game = open_game()
    game.do("ann: take w b g", "ben: take r r")
    ruling = game.refuse(Voided(target=3, reason="ann meant r k g"))
    assert ruling.rule == "core.void.last-only"
    assert ruling.message == (
        "only the last effective event (#4) can be voided, not #3; void back to it one event at a time"
    )
    assert ruling.facts == {"target": 3, "last": 4}
    game.accept(Voided(target=4, reason="ben changed his mind"))
    assert game.accept(Voided(target=3, reason="ann meant r k g")).rule == "core.void.last"
    assert game.tokens("ann") == {} and game.to_act()[0] == "ann"


def test_core_void_reason():
    game = open_game()
    game.do("ann: take w b g")
    ruling = game.refuse(Voided(target=3, reason="  "))
    assert (ruling.rule, ruling.message) == ("core.void.reason", "a void needs a reason")
    assert game.permits(Voided(target=3, reason="misrecorded")).rule == "core.void.last"


def test_core_void_last():
    game = open_game()
    before = game.state
    game.do("ann: take w b g")
    after_take = game.state
    game.do("ben: take r r")
    permit = game.accept(Voided(target=4, reason="ben took red by mistake"))
    assert permit.rule == "core.void.last" and permit.facts == {"target": 4}
    assert permit.message == "event #4 is voided: ben took red by mistake"
    assert game.state is after_take and game.bank()["r"] == 4
    game.accept(Voided(target=3, reason="start over"))
    assert game.state is before


def test_core_note():
    game = open_game()
    before = game.state
    note = Noted(text="ben arrived late", player="ben")
    assert game.permits(note).rule == "core.note"
    game.accept(note)
    assert game.state is before and game.table.last_seq == 3
    game.refuse(Voided(target=3, reason="not a game event"))  # a note cannot be voided: only game events


# ---------------------------------------------------------------------------- setup and turns


@pytest.mark.parametrize("players, gems", [(2, 4), (3, 5), (4, 7)])
def test_splendor_setup_deal(players, gems):
    seats = ["ann", "ben", "cal", "dee"][:players]
    game = Game(seats)
    decks = [deck(1), deck(2), deck(3)]
    nobles = ["w4b4", "b4g4", "g4r4", "r4k4", "w4k4"][: players + 1]
    for bad in (nobles[:-1], nobles[:-1] + nobles[:1], nobles[:-1] + ["w9"]):
        ruling = game.refuse(SetupDealt(nobles=bad, decks=decks))
        assert ruling.rule == "splendor.setup.deal"
        assert ruling.message == f"the deal needs {players + 1} different nobles"
        assert ruling.facts == {"nobles": bad}
    ruling = game.refuse(SetupDealt(nobles=nobles, decks=decks[:2]))
    assert (ruling.rule, ruling.message) == ("splendor.setup.deal", "the deal needs 3 decks")
    twice = [deck(1), deck(2)[:-1] + [LEVEL_CARDS[1][0]], deck(3)]  # one level-2 card twice, one missing
    ruling = game.refuse(SetupDealt(nobles=nobles, decks=twice))
    assert (ruling.rule, ruling.message) == ("splendor.setup.deal", "deck 2 must hold each level-2 card exactly once")

    assert game.accept(SetupDealt(nobles=nobles, decks=decks)).rule == "splendor.setup.deal"
    assert game.bank() == {"w": gems, "b": gems, "g": gems, "r": gems, "k": gems, "y": 5}
    assert [list(row) for row in game.state.board] == [L1, L2, L3]
    assert game.state.deck_size == (36, 26, 16)
    assert game.state.nobles == tuple(nobles)
    assert game.to_act() == ("ann", "ann to take gems, reserve or buy a card")


def test_splendor_setup_incomplete():
    game = Game()
    ruling = game.refuse(GemsTaken(player="ann", gems=["w", "b", "g"]))
    assert ruling.rule == "splendor.setup.incomplete"
    assert ruling.message == "the setup is not complete: tally must record the deal"

    game = Game(mode="table")
    for noble in ("w4b4", "b4g4", "g4r4"):
        game.do(NobleRevealed(noble=noble))
    for card in L1 + L2 + L3[:3]:
        game.do(CardRevealed(card=card))
    ruling = game.refuse(GemsTaken(player="ann", gems=["w", "b", "g"]))
    assert ruling.rule == "splendor.setup.incomplete"
    assert ruling.message.startswith("the setup is not complete: the table must reveal the setup: 1 level-3 card")
    assert game.accept(CardRevealed(card=L3[3])).rule == "splendor.setup.deal"
    assert game.state.phase == "action" and game.state.deck_size == (36, 26, 16)
    assert game.accept("ann: take w b g").rule == "splendor.take.three-different"


def test_splendor_turn_order():
    game = open_game(("ann", "ben", "cal"))
    assert game.to_act()[0] == "ann"  # the first seat starts
    game.do("ann: take w b g")
    assert game.to_act()[0] == "ben" and game.state.turns == 1
    ruling = game.refuse("ann: take r k w")  # one action per turn
    assert ruling.rule == "splendor.turn.out-of-turn"
    game.do("ben: take r k w", "cal: take r r")
    assert game.to_act() == ("ann", "ann to take gems, reserve or buy a card") and game.state.turns == 3
    assert all(move.startswith("ann: ") for move in game.legal())


def test_splendor_turn_out_of_turn():
    game = open_game()
    ruling = game.refuse(GemsTaken(player="ben", gems=["r", "g", "b"]))
    assert ruling.rule == "splendor.turn.out-of-turn"
    assert ruling.message == "it is ann's turn, not ben's"
    assert ruling.facts == {"player": "ben", "current": "ann"}
    assert game.refuse(GemsTaken(player="zed", gems=["r", "g", "b"])).message == "it is ann's turn, not zed's"
    assert game.accept(GemsTaken(player="ann", gems=["r", "g", "b"])).rule == "splendor.take.three-different"


def test_splendor_turn_pending():
    game = table_game()
    game.do("ann: reserve 1w0-r2k1")
    assert game.state.phase == "reveal"
    assert game.to_act() == ("table", "the table must reveal the level-1 card turned up to fill the gap")
    for move in ("ben: take r g b", "ann: take r g b", "ann: return y"):
        ruling = game.refuse(move)
        assert ruling.rule == "splendor.turn.pending"
        assert ruling.message == "the table must reveal the level-1 card turned up to fill the gap first"
        assert ruling.facts == {"phase": "reveal"}
    assert game.accept(CardRevealed(card="1w1-g4")).rule == "splendor.refill"
    assert game.accept("ben: take r g b").rule == "splendor.take.three-different"


def test_splendor_turn_game_over():
    game = race()
    game.do("ann: buy 1w1-g4")
    assert game.accept("ben: take g g").rule == "splendor.take.two-same"  # the last turn of the round
    assert game.state.phase == "over"
    for move in ("ann: take w b g", "ben: take w b g", "ann: pass", CardRevealed(card=NEXT1)):
        ruling = game.refuse(move)
        assert ruling.rule == "splendor.turn.game-over"
        assert ruling.message == "the game is over: no more moves"
        assert ruling.facts == {"ended": "target"}
    assert game.legal() == [] and game.to_act() == ("nobody", "the game is over (target)")


# ---------------------------------------------------------------------------- taking gems


def test_splendor_take_three_different():
    game = open_game()
    for gems in (["r", "r", "g"], ["r", "r", "r"]):
        ruling = game.refuse(GemsTaken(player="ann", gems=gems))
        assert ruling.rule == "splendor.take.three-different"
        assert ruling.message == f"ann cannot take {' '.join(gems)}: 3 tokens must be 3 different colours"
        assert ruling.facts == {"gems": gems}
    permit = game.accept(GemsTaken(player="ann", gems=["r", "g", "b"]))
    assert (permit.rule, permit.message) == ("splendor.take.three-different", "ann may take r g b")
    assert game.tokens("ann") == {"b": 1, "g": 1, "r": 1}
    assert game.bank() == {"w": 4, "b": 3, "g": 3, "r": 3, "k": 4, "y": 5}


def test_splendor_take_two_same():
    game = open_game()
    permit = game.accept(GemsTaken(player="ann", gems=["r", "r"]))
    assert (permit.rule, permit.message) == ("splendor.take.two-same", "ann may take r r")
    assert game.tokens("ann") == {"r": 2} and game.bank()["r"] == 2
    assert "ben: take r r" not in game.legal() and "ben: take w w" in game.legal()
    assert game.refuse("ben: take r r").rule == "splendor.take.two-needs-four"


def test_splendor_take_two_needs_four():
    game = open_game()
    game.do("ann: take r g b")
    ruling = game.refuse(GemsTaken(player="ben", gems=["r", "r"]))
    assert ruling.rule == "splendor.take.two-needs-four"
    assert ruling.message == "ben cannot take 2 red: 3 red left, needs at least 4"
    assert ruling.render() == "ben cannot take 2 red: 3 red left, needs at least 4 [splendor.take.two-needs-four]"
    assert ruling.facts == {"colour": "r", "left": 3, "needs": 4}
    assert game.accept(GemsTaken(player="ben", gems=["w", "w"])).rule == "splendor.take.two-same"  # exactly 4


def test_splendor_take_empty_pile():
    game = open_game()
    game.do("ann: take r g b", "ben: take r g b", "ann: take r w k", "ben: take r w k")
    assert game.bank()["r"] == 0
    for gems in (["r", "g", "b"], ["r", "r"]):
        ruling = game.refuse(GemsTaken(player="ann", gems=gems))
        assert ruling.rule == "splendor.take.empty-pile"
        assert ruling.message == "ann cannot take red: the pile is empty"
        assert ruling.facts == {"colour": "r"}
    assert game.accept("ann: take g b w").rule == "splendor.take.three-different"


def test_splendor_take_no_gold():
    game = open_game()
    for gems in (["y", "r", "g"], ["y", "y"]):
        ruling = game.refuse(GemsTaken(player="ann", gems=gems))
        assert ruling.rule == "splendor.take.no-gold"
        assert ruling.message == "ann cannot take gold as a gem: gold only comes with a reserve"
    assert game.refuse("ann: take gold r g").rule == "splendor.take.no-gold"  # notation names gold too
    assert game.accept("ann: take r g k").rule == "splendor.take.three-different"


def test_splendor_take_shape():
    game = open_game()
    ruling = game.refuse(GemsTaken(player="ann", gems=["w", "b", "g", "r"]))
    assert ruling.rule == "splendor.take.shape"
    assert ruling.message == "ann cannot take 4 tokens: a take is 3 different or 2 of one colour"
    assert game.refuse(GemsTaken(player="ann", gems=[])).message == (
        "ann cannot take 0 tokens: a take is 3 different or 2 of one colour"
    )
    ruling = game.refuse(GemsTaken(player="ann", gems=["x", "r", "g"]))
    assert ruling.rule == "splendor.take.shape"
    assert ruling.message == "ann named a token that does not exist: ['x', 'r', 'g']"
    assert ruling.facts == {"gems": ["x", "r", "g"]}
    assert game.accept(GemsTaken(player="ann", gems=["w", "b", "g"])).rule == "splendor.take.three-different"


def test_splendor_take_shape_is_the_rule_at_stake_for_four_to_six_tokens():
    # issue 17: `take r g b b` and `take r r r r` cited the rule of 3 different colours
    game = open_game()
    for gems in (["r", "g", "b", "b"], ["r", "r", "r", "r"], ["w", "b", "g", "r", "k", "k"]):
        ruling = game.reject("take " + " ".join(gems), "splendor.take.shape")
        assert ruling.message == f"ann cannot take {len(gems)} tokens: a take is 3 different or 2 of one colour"


def test_splendor_take_fewer_colours():
    # default when-short, all 5 colours in the supply: 2 different is not a take
    game = open_game()
    ruling = game.refuse(GemsTaken(player="ann", gems=["r", "g"]))
    assert ruling.rule == "splendor.take.fewer-colours"
    assert ruling.message == (
        "ann cannot take only 2 different: 5 colours are left, so take-fewer=when-short requires taking 3"
    )
    assert ruling.facts == {"taken": 2, "available": 5, "option": "when-short"}

    # when-short with only red and black left: exactly those two, not one of them
    game = drained()
    ruling = game.refuse(GemsTaken(player="ann", gems=["r"]))
    assert ruling.message == (
        "ann cannot take only 1 different: 2 colours are left, so take-fewer=when-short requires taking 2"
    )
    assert "ann: take r k" in game.legal()
    permit = game.accept(GemsTaken(player="ann", gems=["r", "k"]))
    assert (permit.rule, permit.message) == ("splendor.take.fewer-colours", "ann may take r k")

    # never: not even when short
    game = drained(take_fewer="never")
    ruling = game.refuse(GemsTaken(player="ann", gems=["r", "k"]))
    assert ruling.rule == "splendor.take.fewer-colours"
    assert ruling.message == "ann cannot take only 2 different: this table plays take-fewer=never"
    assert ruling.facts == {"taken": 2, "available": 2, "option": "never"}
    assert "ann: take r k" not in game.legal() and "ann: take r r" in game.legal()

    # always: 1 or 2 different at any time
    game = open_game(take_fewer="always")
    assert game.permits(GemsTaken(player="ann", gems=["r"])).rule == "splendor.take.fewer-colours"
    assert game.accept(GemsTaken(player="ann", gems=["r", "g"])).rule == "splendor.take.fewer-colours"
    assert game.tokens("ann") == {"g": 1, "r": 1}


# ---------------------------------------------------------------------------- reserving


def test_splendor_reserve_face_up():
    game = open_game()
    permit = game.accept(CardReserved(player="ann", card="1w0-r2k1"))
    assert permit.rule == "splendor.reserve.face-up"
    assert permit.message == "ann may reserve 1w0-r2k1 and take 1 gold"
    assert game.seat("ann").reserved == ("1w0-r2k1",) and game.tokens("ann") == {"y": 1}
    assert game.bank()["y"] == 4
    assert game.face_up(1) == [NEXT1] + L1[1:] and game.state.deck_size[0] == 35
    ruling = game.refuse(CardReserved(player="ben", card="1w0-r2k1"))
    assert (ruling.rule, ruling.message) == (
        "splendor.reserve.not-face-up",
        "ben cannot reserve 1w0-r2k1: it is not face up",
    )

    # reserving stays possible once the gold is gone; it just brings none
    game.do("ben: reserve deck 1", "ann: reserve deck 1", "ben: reserve deck 1", "ann: reserve deck 1")
    assert game.bank()["y"] == 0 and game.tokens("ben") == {"y": 2}
    permit = game.accept(CardReserved(player="ben", card=L2[0]))
    assert permit.rule == "splendor.reserve.face-up"
    assert permit.message == f"ben may reserve {L2[0]} (no gold left to take)"
    assert game.tokens("ben") == {"y": 2} and game.seat("ben").reserved[-1] == L2[0]


def test_splendor_reserve_blind():
    game = open_game()
    event = game.event("ann: reserve deck 2")
    assert event == CardReserved(seq=3, player="ann", card=NEXT2, level=2)  # open mode: the log knows the top card
    permit = game.accept(event)
    assert permit.rule == "splendor.reserve.blind"
    assert permit.message == "ann may reserve the top card of deck 2 unseen and take 1 gold"
    assert NEXT2 not in permit.message  # the ruling is read out at the table: it never names the hidden card
    assert game.seat("ann").reserved == (f"~{NEXT2}",) and game.tokens("ann") == {"y": 1}
    assert game.face_up(2) == L2 and game.state.deck_size[1] == 25
    assert SPLENDOR.view(game.state, "ben").players[0].reserved == ["?2"]
    assert SPLENDOR.view(game.state, "ann").players[0].reserved == [NEXT2]

    game = table_game()  # table mode: nobody at the table saw the card
    permit = game.accept(CardReserved(player="ann", level=2))
    assert permit.rule == "splendor.reserve.blind"
    assert game.seat("ann").reserved == ("?2",) and game.state.deck_size[1] == 25
    assert game.state.phase == "action" and game.to_act()[0] == "ben"  # nothing to reveal: the board is whole
    assert game.refuse(CardReserved(player="ben", level=4)).rule == "splendor.reserve.empty-deck"


def test_splendor_reserve_limit():
    game = open_game()
    game.do("ann: reserve deck 1", "ben: take w b g", "ann: reserve deck 2", "ben: take w b g", "ann: reserve 1w0-r2k1")
    game.do("ben: take r k w")
    assert len(game.seat("ann").reserved) == 3
    for move in ("ann: reserve deck 3", f"ann: reserve {L3[0]}"):
        ruling = game.refuse(move)
        assert ruling.rule == "splendor.reserve.limit"
        assert ruling.message == "ann cannot reserve: already holds 3 reserved cards, the limit is 3"
        assert ruling.facts == {"held": 3, "limit": 3}
    assert not any(move.startswith("ann: reserve") for move in game.legal())
    assert game.accept("ann: take r k b").rule == "splendor.take.three-different"


def test_splendor_reserve_not_face_up():
    game = open_game()
    for card in ("1w1-g4", "9z9-q1", None):  # in the deck, no such card, no card named
        ruling = game.refuse(CardReserved(player="ann", card=card))
        assert ruling.rule == "splendor.reserve.not-face-up"
        assert ruling.message == f"ann cannot reserve {card}: it is not face up"
        assert ruling.facts == {"card": card}
    assert game.accept(CardReserved(player="ann", card=L1[3])).rule == "splendor.reserve.face-up"


def test_splendor_reserve_empty_deck():
    game = empty_level3()
    ruling = game.refuse("ann: reserve deck 3")
    assert ruling.rule == "splendor.reserve.empty-deck"
    assert ruling.message == "ann cannot reserve blind from level 3: the deck is empty"
    assert ruling.facts == {"level": 3}
    ruling = game.refuse(CardReserved(player="ann", level=4))
    assert (ruling.rule, ruling.message, ruling.facts) == (
        "splendor.reserve.empty-deck",
        "there is no level-4 deck",
        {"level": 4},
    )
    reserves = [move for move in game.legal() if move.startswith("ann: reserve deck")]
    assert [move[: len("ann: reserve deck 2")] for move in reserves] == ["ann: reserve deck 1", "ann: reserve deck 2"]
    assert game.accept("ann: reserve deck 2").rule == "splendor.reserve.blind"


def test_splendor_reserve_wrong_card():
    game = open_game()
    for card in ("2w3-w6", None):
        ruling = game.refuse(CardReserved(player="ann", card=card, level=2))
        assert ruling.rule == "splendor.reserve.wrong-card"
        assert ruling.message == f"the top of the level-2 deck is {NEXT2}, not {card}"
        assert ruling.facts == {"card": card, "top": NEXT2}
    assert game.accept(CardReserved(player="ann", card=NEXT2, level=2)).rule == "splendor.reserve.blind"

    game = table_game()  # table mode: a named top card must still be unlocated and of that level
    for card in (L2[0], "1w1-g4", "2z9-q1"):
        ruling = game.refuse(CardReserved(player="ann", card=card, level=2))
        assert ruling.rule == "splendor.reserve.wrong-card"
        assert ruling.message == f"{card} cannot be the top of the level-2 deck: it is not an unlocated level-2 card"
    assert game.accept("ann: reserve deck 2 as 2w3-w6").rule == "splendor.reserve.blind"
    assert game.seat("ann").reserved == ("~2w3-w6",)
    assert game.refuse(CardReserved(player="ben", card="2w3-w6", level=2)).rule == "splendor.reserve.wrong-card"


# ---------------------------------------------------------------------------- buying


def test_splendor_buy_pay():
    game = shopper()
    permit = game.accept(CardBought(player="ann", card="1w0-b3", paid=["b", "b", "b"]))
    assert (permit.rule, permit.message) == ("splendor.buy.pay", "ann may buy 1w0-b3 pay b3")
    ann = game.seat("ann")
    assert ann.cards == ("1w0-b3",) and ann.bonus == (1, 0, 0, 0, 0) and ann.points == 0
    assert game.tokens("ann") == {"w": 1, "k": 1} and game.bank()["b"] == 4  # spent tokens go back
    assert game.face_up(1)[0] == LEVEL_CARDS[0][0]  # refilled from the deck: its next card takes the slot
    game.do("ben: reserve deck 2", "ann: reserve deck 1", "ben: reserve deck 3")
    assert game.tokens("ann") == {"w": 1, "k": 1, "y": 1}
    # 1b0-w1k2: the white bonus pays the white, gold stands in for the missing black
    assert "ann: buy 1b0-w1k2 pay k1 y1" in game.legal()
    permit = game.accept("ann: buy 1b0-w1k2 pay k1 y1")
    assert (permit.rule, permit.message) == ("splendor.buy.pay", "ann may buy 1b0-w1k2 pay k1 y1")
    assert game.seat("ann").bonus == (1, 1, 0, 0, 0) and game.tokens("ann") == {"w": 1}
    assert game.bank()["y"] == 3  # ann's gold is back; ben holds 2


def test_splendor_buy_not_available():
    game = shopper()
    for card, message in (
        ("1w1-g4", "ann cannot buy 1w1-g4: it is neither face up nor reserved by ann"),  # still in the deck
        ("1w0-zz", "there is no card '1w0-zz'"),
    ):
        ruling = game.refuse(CardBought(player="ann", card=card, paid=["b", "b", "b"]))
        assert (ruling.rule, ruling.message, ruling.facts) == ("splendor.buy.not-available", message, {"card": card})
    game.do("ann: take r g k", "ben: reserve 1w0-b3")
    ruling = game.refuse(CardBought(player="ann", card="1w0-b3", paid=["b", "b", "b"]))  # ben's reserve now
    assert ruling.rule == "splendor.buy.not-available"
    assert ruling.message == "ann cannot buy 1w0-b3: it is neither face up nor reserved by ann"
    assert game.accept("ann: buy 1b0-w1k2 pay w1 k2").rule == "splendor.buy.pay"


def test_splendor_buy_cannot_afford():
    game = open_game()
    ruling = game.refuse(CardBought(player="ann", card="1w0-r2k1", paid=[]))
    assert ruling.rule == "splendor.buy.cannot-afford"
    assert ruling.message == (
        "ann cannot afford 1w0-r2k1: needs 2 red, 1 black after bonuses, holds nothing; short of 2 red, 1 black, "
        "and holds no gold"
    )
    assert ruling.facts == {"card": "1w0-r2k1", "needs": ["r", "r", "k"], "holds": [], "missing": 3}

    game = shopper()  # holds b3 w1 k1: 1g0-r3 is 3 red short, 1w0-b3 is affordable
    ruling = game.refuse("ann: buy 1g0-r3")
    assert ruling.message == (
        "ann cannot afford 1g0-r3: needs 3 red after bonuses, holds 1 white, 3 blue, 1 black; short of 3 red, "
        "and holds no gold"
    )
    assert "ann: buy 1g0-r3 pay r3" not in game.legal()
    assert game.accept("ann: buy 1w0-b3").rule == "splendor.buy.pay"


def test_splendor_buy_payment():
    game = shopper()
    for paid, problem in (
        (["b", "b"], "gold must cover exactly the 1 the gems leave open, not 0"),
        (["b", "b", "b", "w"], "overpays white"),
        (["b", "b", "y"], "pays with tokens not held: gold"),
        (["b", "b", "z"], "['b', 'b', 'z'] names a token that does not exist"),
    ):
        ruling = game.refuse(CardBought(player="ann", card="1w0-b3", paid=paid))
        assert ruling.rule == "splendor.buy.payment"
        assert ruling.message == f"ann's payment for 1w0-b3 is wrong: {problem} (owes 3 blue after bonuses)"
        assert ruling.facts == {"card": "1w0-b3", "paid": paid, "needs": ["b", "b", "b"]}
    assert game.accept(CardBought(player="ann", card="1w0-b3", paid=["b", "b", "b"])).rule == "splendor.buy.pay"

    # gold may stand in for a gem the player holds, but never on top of a full payment
    game = shopper()
    game.do("ann: reserve deck 1", "ben: reserve deck 1")
    ruling = game.refuse(CardBought(player="ann", card="1w0-b3", paid=["b", "b", "b", "y"]))
    assert ruling.message == (
        "ann's payment for 1w0-b3 is wrong: gold must cover exactly the 0 the gems leave open, not 1 "
        "(owes 3 blue after bonuses)"
    )
    assert "ann: buy 1w0-b3 pay b3" in game.legal() and "ann: buy 1w0-b3 pay b2 y1" not in game.legal()
    assert game.accept("ann: buy 1w0-b3 pay b2 y1").message == "ann may buy 1w0-b3 pay b2 y1"
    assert game.tokens("ann") == {"w": 1, "b": 1, "k": 1}


def test_splendor_buy_blind_reserve():
    game = table_game()
    game.do("ann: reserve deck 1", "ben: reserve 1w0-b2k2", CardRevealed(card="1w0-b3"))
    game.do("ann: take b b", "ben: take w g r")
    assert game.seat("ann").reserved == ("?1",) and game.tokens("ann") == {"b": 2, "y": 1}
    assert SPLENDOR.view(game.state, "ann").players[0].reserved == ["?1"]
    assert not any("1r0-b2g1" in move for move in game.legal())  # the log cannot list a buy of an unseen card

    # 1w0-b2k2 is ben's reserve and 2w3-w6 is a level-2 card: neither can be ann's blind level-1 card
    for card in ("1w0-b2k2", "2w3-w6"):
        ruling = game.refuse(CardBought(player="ann", card=card, paid=["b", "b", "y"]))
        assert ruling.rule == "splendor.buy.not-available"
        assert ruling.message == f"ann cannot buy {card}: it is neither face up nor reserved by ann"

    # 1r0-b2g1 is unlocated, so it may be the card ann reserved: accepted, but unverifiable
    event = game.event(CardBought(player="ann", card="1r0-b2g1", paid=["b", "b", "y"]))
    (ruling,) = game.table.check(event)
    assert (ruling.rule, ruling.verdict) == ("splendor.buy.blind-reserve", "unverifiable")
    assert ruling.message == (
        "ann buys 1r0-b2g1 as the level-1 card reserved blind; "
        "the log never saw that card, so it cannot confirm this is the one"
    )
    assert ruling.facts == {"card": "1r0-b2g1"}
    assert game.table.permit(event).rule == "splendor.buy.pay"
    step = game.table.step(event)
    assert step.is_legal and step.rulings == [ruling]
    ann = game.seat("ann")
    assert ann.reserved == () and ann.cards == ("1r0-b2g1",) and ann.bonus == (0, 0, 0, 1, 0)
    assert game.tokens("ann") == {} and game.to_act()[0] == "ben"


# ---------------------------------------------------------------------------- the board


def test_splendor_refill():
    # open mode: the deal says which card comes next; it takes the same slot
    game = open_game()
    game.do("ann: reserve 1w0-b1g1r1k1")
    assert game.face_up(1) == [L1[0], NEXT1, L1[2], L1[3]] and game.state.deck_size[0] == 35

    # table mode: the gap waits for the recorder to reveal a card of that level
    game = table_game()
    game.do("ann: reserve 1w0-b1g1r1k1")
    assert game.state.gap == (0, 1) and game.face_up(1) == [L1[0], None, L1[2], L1[3]]
    ruling = game.refuse(CardRevealed(card=NEXT2))
    assert ruling.rule == "splendor.reveal.impossible"
    assert ruling.message == f"the gap is in level 1, but {NEXT2} is a level-2 card"
    # any level-1 card the log has not placed may turn up: 40 less 3 on the table and 1 reserved
    assert len(game.legal()) == 36 and all(move.startswith("reveal 1") for move in game.legal())
    permit = game.accept(CardRevealed(card="1k1-b4"))
    assert (permit.rule, permit.message) == ("splendor.refill", "reveal 1k1-b4 is possible")
    assert game.face_up(1) == [L1[0], "1k1-b4", L1[2], L1[3]] and game.state.deck_size[0] == 35
    assert game.state.gap is None and game.to_act()[0] == "ben"

    # an empty deck leaves a gap, and nothing waits to fill it
    game = empty_level3()
    assert game.face_up(3) == LAST_OF_LEVEL3
    game.accept("ann: reserve 3k3-w3b3g5r3")
    assert game.face_up(3) == ["3r5-g7r3", None, "3k4-g3r6k3", "3k5-r7k3"] and game.state.gap is None
    assert game.state.phase == "action" and game.to_act()[0] == "ben"
    assert not any(move.startswith("reveal") for move in game.legal())


def test_splendor_reveal_not_expected():
    game = open_game()
    for event, message in (
        (CardRevealed(card=NEXT1), "in open mode tally turns cards up from the recorded deal"),
        (NobleRevealed(noble="w4k4"), "in open mode tally turns cards up from the recorded deal"),
        (
            SetupDealt(nobles=["w4b4", "b4g4", "g4r4"], decks=[deck(1), deck(2), deck(3)]),
            "the deal is only recorded once, at the start of an open-mode game",
        ),
    ):
        ruling = game.refuse(event)
        assert (ruling.rule, ruling.message) == ("splendor.reveal.not-expected", message)

    game = Game(mode="table")
    ruling = game.refuse(SetupDealt(nobles=["w4b4", "b4g4", "g4r4"], decks=[deck(1), deck(2), deck(3)]))
    assert (ruling.rule, ruling.message) == (
        "splendor.reveal.not-expected",
        "the deal is only recorded once, at the start of an open-mode game",
    )
    for noble in ("w4b4", "b4g4", "g4r4"):
        game.do(NobleRevealed(noble=noble))
    ruling = game.refuse(NobleRevealed(noble="r4k4"))
    assert (ruling.rule, ruling.message) == ("splendor.reveal.not-expected", "all 3 nobles are already laid out")
    assert game.accept(CardRevealed(card=L1[0])).rule == "splendor.setup.deal"

    game = table_game()  # mid-game with the board whole: nothing to reveal
    ruling = game.refuse(CardRevealed(card=NEXT1))
    assert ruling.rule == "splendor.reveal.not-expected"
    assert ruling.message == "nothing is waiting to be turned up; ann to take gems, reserve or buy a card"
    assert game.accept("ann: take w b g").rule == "splendor.take.three-different"


def test_splendor_reveal_impossible():
    game = Game(mode="table")
    game.do(NobleRevealed(noble="w4b4"))
    for event, message in (
        (NobleRevealed(noble="w4b4"), "noble w4b4 is already laid out"),
        (NobleRevealed(noble="w9"), "there is no noble 'w9'"),
        (CardRevealed(card="1w9-q1"), "there is no card '1w9-q1'"),
    ):
        ruling = game.refuse(event)
        assert (ruling.rule, ruling.message) == ("splendor.reveal.impossible", message)
    game.do(*(CardRevealed(card=card) for card in L1[:3]))
    ruling = game.refuse(CardRevealed(card=L1[0]))
    assert ruling.rule == "splendor.reveal.impossible"
    assert (
        ruling.message
        == f"{L1[0]} cannot turn up: there is one copy of each card, and it is face up in level 1, slot 1"
    )
    assert ruling.facts == {"card": L1[0]}
    game.do(CardRevealed(card=L1[3]))
    ruling = game.refuse(CardRevealed(card=NEXT1))
    assert (ruling.rule, ruling.message) == ("splendor.reveal.impossible", "level 1 already has 4 face-up cards")
    assert game.accept(CardRevealed(card=L2[0])).rule == "splendor.setup.deal"

    # mid-game: a card the log saw go into a blind reserve cannot turn up again
    game = table_game()
    game.do("ann: reserve deck 1 as 1k1-b4", "ben: reserve 1w0-r2k1")
    ruling = game.refuse(CardRevealed(card="1k1-b4"))
    assert ruling.rule == "splendor.reveal.impossible"
    assert ruling.message == "1k1-b4 cannot turn up: there is one copy of each card, and ann reserved it"
    assert "reveal 1k1-b4" not in game.legal() and "reveal 1r1-w4" in game.legal()
    assert game.accept(CardRevealed(card="1r1-w4")).rule == "splendor.refill"


# ---------------------------------------------------------------------------- tokens


def twelve_tokens() -> Game:
    """ann takes her 4th set of 3 while holding 9: 12 tokens, 2 over the limit (ben only reserved)."""
    game = open_game()
    game.do(
        "ann: take w b g",
        "ben: reserve deck 1",
        "ann: take r k w",
        "ben: reserve deck 1",
        "ann: take b g r",
        "ben: reserve deck 1",
        "ann: take w b k",
    )
    return game


def test_splendor_tokens_limit():
    game = twelve_tokens()
    assert game.tokens("ann") == {"w": 3, "b": 3, "g": 2, "r": 2, "k": 2}
    assert game.state.phase == "return"
    assert game.to_act() == ("ann", "ann must return 2 tokens (holds 12, limit 10)")
    ruling = game.refuse("ben: take w b g")  # the turn is not over until ann is back to 10
    assert ruling.rule == "splendor.turn.pending"
    assert ruling.message == "ann must return 2 tokens (holds 12, limit 10) first"
    assert all(move.startswith("ann: return ") and len(move.split()) == 4 for move in game.legal())
    permit = game.accept("ann: return w k")  # both just taken: allowed
    assert (permit.rule, permit.message) == ("splendor.tokens.limit", "ann returns w k to get back to 10")
    assert sum(game.seat("ann").tokens) == 10 and game.bank()["w"] == 2 and game.bank()["k"] == 3
    assert game.to_act()[0] == "ben"

    # gold counts too: a reserve that brings the 11th token means one goes back
    game.do("ben: take g r k")
    game.do("ann: reserve 1w0-r2k1")
    assert game.to_act() == ("ann", "ann must return 1 token (holds 11, limit 10)")
    assert game.accept("ann: return y").rule == "splendor.tokens.limit"
    assert game.tokens("ann") == {"w": 2, "b": 3, "g": 2, "r": 2, "k": 1}

    # exactly 10 is fine: no return
    game = open_game()
    game.do("ann: take w b g", "ben: take w b g", "ann: take w b g", "ben: take r r", "ann: take r k w")
    assert sum(game.seat("ann").tokens) == 9
    game.do("ben: reserve deck 2", "ann: reserve deck 1")
    assert sum(game.seat("ann").tokens) == 10 and game.state.phase == "action" and game.to_act()[0] == "ben"


def test_splendor_tokens_return():
    game = twelve_tokens()
    for tokens, message, facts in (
        (["w"], "ann holds 12 tokens and must return exactly 2, not 1", {"returned": 1, "excess": 2}),
        (["w", "b", "g"], "ann holds 12 tokens and must return exactly 2, not 3", {"returned": 3, "excess": 2}),
        (["y", "w"], "ann cannot return y w: holds 3 white, 3 blue, 2 green, 2 red, 2 black", {"tokens": ["y", "w"]}),
        (["x", "w"], "ann cannot return x w: holds 3 white, 3 blue, 2 green, 2 red, 2 black", {"tokens": ["x", "w"]}),
    ):
        ruling = game.refuse(TokensReturned(player="ann", tokens=tokens))
        assert (ruling.rule, ruling.message, ruling.facts) == ("splendor.tokens.return", message, facts)
    assert game.refuse(TokensReturned(player="ben", tokens=["y", "y"])).rule == "splendor.turn.out-of-turn"
    assert game.accept(TokensReturned(player="ann", tokens=["w", "w"])).rule == "splendor.tokens.limit"
    assert game.tokens("ann") == {"w": 1, "b": 3, "g": 2, "r": 2, "k": 2}


# ---------------------------------------------------------------------------- nobles


def test_splendor_noble_visit():
    game = two_nobles()
    game.do("ann: buy 1b0-g2k2", "ann: noble w4b4")
    ann = game.seat("ann")
    assert ann.nobles == ("w4b4",) and ann.points == 3  # one noble this turn, though two qualified
    assert game.state.nobles == ("b4g4", "r4k4")
    # bonuses are not tokens: 12 cards and a few tokens are no reason to return anything
    assert sum(ann.bonus) == 12 and sum(ann.tokens) <= 10
    game.do("ben: reserve deck 3", "ben: return y")
    assert game.accept("ann: reserve deck 3").rule == "splendor.reserve.blind"
    # the visit is automatic at the end of ann's next turn, and is not her action
    ann = game.seat("ann")
    assert ann.nobles == ("w4b4", "b4g4") and ann.points == 6
    assert game.state.nobles == ("r4k4",) and game.to_act()[0] == "ben" and game.state.phase == "action"


def test_splendor_noble_choose():
    game = two_nobles()
    game.do("ann: buy 1b0-g2k2")
    assert game.seat("ann").bonus == (4, 4, 4, 0, 0)
    assert game.state.phase == "noble"
    assert game.to_act() == ("ann", "ann must choose a noble: w4b4, b4g4")
    assert game.legal() == ["ann: noble w4b4", "ann: noble b4g4"]
    ruling = game.refuse("ben: take w b g")
    assert (ruling.rule, ruling.message) == ("splendor.turn.pending", "ann must choose a noble: w4b4, b4g4 first")
    permit = game.accept("ann: noble b4g4")
    assert (permit.rule, permit.message) == ("splendor.noble.choose", "ann may choose b4g4")
    assert game.seat("ann").nobles == ("b4g4",) and game.seat("ann").points == 3
    assert game.state.nobles == ("w4b4", "r4k4") and game.to_act()[0] == "ben"


def test_splendor_noble_not_qualified():
    game = two_nobles()
    game.do("ann: buy 1b0-g2k2")
    # r4k4 lies on the table but ann has no red or black bonus; w3b3g3 she meets, but it is not on the table
    for noble in ("r4k4", "w3b3g3"):
        ruling = game.refuse(NobleChosen(player="ann", noble=noble))
        assert ruling.rule == "splendor.noble.not-qualified"
        assert ruling.message == f"ann cannot be visited by {noble}: qualifying nobles are w4b4, b4g4"
        assert ruling.facts == {"noble": noble, "qualifying": ["w4b4", "b4g4"]}
    assert game.accept(NobleChosen(player="ann", noble="w4b4")).rule == "splendor.noble.choose"


# ---------------------------------------------------------------------------- stuck players and the end


def test_splendor_stuck_pass():
    game = open_game()
    ruling = game.refuse(TurnPassed(player="ann"))
    assert (ruling.rule, ruling.message) == ("splendor.stuck.pass", "ann cannot pass: an action is possible")
    game = open_game(stuck="end")
    assert game.refuse("ann: pass").message == "ann cannot pass: this table plays stuck=end"

    game = stuck()
    assert game.bank() == {"w": 0, "b": 0, "g": 0, "r": 0, "k": 0, "y": 5}
    assert game.tokens("ann") == {"w": 4, "b": 4, "g": 2} and game.tokens("ben") == {"g": 2, "r": 4, "k": 4}
    assert len(game.seat("ann").reserved) == 3 and len(game.seat("ben").reserved) == 3
    assert game.legal() == ["ann: pass"]
    assert game.refuse("ann: take w b g").rule == "splendor.take.empty-pile"
    assert game.refuse("ann: reserve deck 1").rule == "splendor.reserve.limit"
    assert game.refuse("ann: buy 1k0-w1b1g1r1").rule == "splendor.buy.cannot-afford"
    permit = game.accept(TurnPassed(player="ann"))
    assert (permit.rule, permit.message) == ("splendor.stuck.pass", "ann can do no action and passes")
    assert game.to_act()[0] == "ben" and game.state.phase == "action"

    # under stuck=end the same position ends the game as soon as ann is to act
    game = stuck(stuck="end")
    assert game.state.phase == "over"
    assert game.to_act() == ("nobody", "the game is over (stuck)")
    assert SPLENDOR.outcome(game.state).details["ended"] == "stuck"


def test_splendor_end_stalled():
    game = stuck()
    game.do("ann: pass")
    assert game.state.phase == "action" and SPLENDOR.outcome(game.state) is None
    game.accept("ben: pass")
    assert game.state.phase == "over"
    assert game.to_act() == ("nobody", "the game is over (stalled)")
    outcome = SPLENDOR.outcome(game.state)
    assert outcome.scores == {"ann": 0, "ben": 0} and outcome.winners == ["ann", "ben"]
    assert outcome.details == {"ended": "stalled", "cards": {"ann": 0, "ben": 0}}
    assert game.refuse("ann: pass").rule == "splendor.turn.game-over"

    # the passes must come in one unbroken round: an action in between starts the count again
    game = ann_stuck()
    assert game.legal() == ["ann: pass"]
    game.do("ann: pass", "ben: reserve deck 3", "ben: return y")
    game.accept("ann: pass")
    assert game.state.phase == "action" and game.legal() == ["ben: pass"]
    game.accept("ben: pass")
    assert game.state.phase == "over" and SPLENDOR.outcome(game.state).details["ended"] == "stalled"


def test_splendor_end_finish_round():
    game = race()
    game.do("ann: buy 1w1-g4")
    # ann reached the target (option target=1) but ben has not had as many turns: the round goes on
    assert game.seat("ann").points == 1 and game.state.end_triggered
    assert game.state.phase == "action" and game.to_act()[0] == "ben"
    assert SPLENDOR.outcome(game.state) is None
    game.accept("ben: take g g")
    assert game.state.phase == "over" and game.state.turns == 8
    assert SPLENDOR.outcome(game.state).details["ended"] == "target"

    # the last seat reaching the target ends the game at once: the round is complete
    game = race()
    game.do("ann: reserve deck 2")
    game.accept("ben: buy 1b1-r4")
    assert game.state.phase == "over" and game.state.turns == 8
    assert SPLENDOR.outcome(game.state).winners == ["ben"]

    # with three players, cal still plays after ben
    game = open_game(("ann", "ben", "cal"), level1=["1w1-g4", "1b1-r4"], target=1)
    game.do("ann: take g g", "ben: take w b k", "cal: take w b k", "ann: take g r k", "ben: take w b r")
    game.do("cal: take r k b", "ann: take g w b", "ben: reserve deck 2", "cal: reserve deck 2", "ann: buy 1w1-g4")
    game.do("ben: take g g")
    assert game.state.phase == "action" and game.to_act()[0] == "cal"
    game.do("cal: reserve deck 3")
    assert game.state.phase == "over" and game.state.turns == 12

    # the target is an option: at 2 points, the same buy ends nothing
    game = race(target=2)
    game.do("ann: buy 1w1-g4", "ben: buy 1b1-r4")
    assert not game.state.end_triggered and game.state.phase == "action" and game.to_act()[0] == "ann"


def test_splendor_end_winner():
    # most points wins
    game = race()
    game.do("ann: buy 1w1-g4", "ben: take g g")
    outcome = SPLENDOR.outcome(game.state)
    assert outcome.scores == {"ann": 1, "ben": 0} and outcome.winners == ["ann"]
    assert outcome.reason == "ann has the most points (1)"

    # tied on points and on cards: a shared victory
    game = race()
    game.do("ann: buy 1w1-g4", "ben: buy 1b1-r4")
    outcome = SPLENDOR.outcome(game.state)
    assert outcome.scores == {"ann": 1, "ben": 1} and outcome.winners == ["ann", "ben"]
    assert outcome.reason == "ann, ben tie on 1 points and 1 cards: a shared victory"

    # tied on points: the fewest development cards wins (ann bought a 0-point card first)
    game = open_game(level1=["1w1-g4", "1b1-r4", "1b0-k3"], target=1)
    game.do(
        "ann: take g g",
        "ben: take r r",
        "ann: take k g w",
        "ben: take r w b",
        "ann: take k g b",
        "ben: take r w b",
        "ann: take k w b",
        "ann: return w",
        "ben: take w k",  # only white and black are left: take-fewer=when-short allows both
        "ann: buy 1b0-k3",
        "ben: reserve deck 2",
        "ben: return y",
        "ann: buy 1w1-g4",
    )
    assert game.state.end_triggered and game.seat("ann").cards == ("1b0-k3", "1w1-g4")
    game.accept("ben: buy 1b1-r4")
    outcome = SPLENDOR.outcome(game.state)
    assert outcome.scores == {"ann": 1, "ben": 1} and outcome.winners == ["ben"]
    assert outcome.reason == "2 players tie on 1 points; ben bought the fewest cards (1)"
    assert outcome.details["cards"] == {"ann": 2, "ben": 1}


def test_splendor_buy_blind_reserve_is_settled_by_the_box_once_the_level_is_used_up():
    # issue 17: table mode said "unverifiable" where the box's one copy of each card settles the question
    import msgspec

    game = table_game()
    game.do("ann: reserve deck 1", "ben: reserve 1w0-b2k2", CardRevealed(card="1w0-b3"))
    game.do("ann: take b b", "ben: take w g r")
    event = game.event(CardBought(player="ann", card="1r0-b2g1", paid=["b", "b", "y"]))
    # the level-1 deck used up: every level-1 card the log has not located lies in ann's blind reserve
    used_up = msgspec.structs.replace(game.state, deck_size=(0,) + game.state.deck_size[1:])
    assert SPLENDOR.check(used_up, event) == []
    assert SPLENDOR.check(game.state, event)[0].verdict == "unverifiable"  # cards left in the deck: as before
    # another seat also holding a level-1 blind reserve: the card may be theirs, so the log cannot tell
    ben = msgspec.structs.replace(used_up.players[1], reserved=used_up.players[1].reserved + ("?1",))
    shared = msgspec.structs.replace(used_up, players=(used_up.players[0], ben))
    (ruling,) = SPLENDOR.check(shared, event)
    assert (ruling.rule, ruling.verdict) == ("splendor.buy.blind-reserve", "unverifiable")


def test_splendor_stuck_pass_is_settled_by_the_box_when_a_blind_reserve_must_be_affordable():
    # issue 17: a pass by a player holding a blind reserve the log never saw was "unverifiable" even where the box's
    # one copy of each card proves that reserve affordable (the position is stuck() with ann's first reserve a level-2
    # card nobody saw, and the other level-2 cards located: bought by ben, the deck used up)
    import msgspec

    from tally.core.games.splendor.components import CARDS
    from tally.core.games.splendor.state import default_payment

    state = stuck().state
    ann, ben = state.players
    affordable, dear = "2r2-w1b4g2", "2w2-r5k3"  # ann (w4 b4 g2) can afford the first, not the second
    assert default_payment(CARDS[affordable], ann) is not None and default_payment(CARDS[dear], ann) is None
    face_up = {card for row in state.board for card in row}

    def position(unseen: tuple[str, ...]) -> object:
        bought = tuple(c for c in LEVEL_CARDS[1] if c not in face_up and c not in unseen)
        players = (
            msgspec.structs.replace(ann, reserved=("?2",) + ann.reserved[1:]),
            msgspec.structs.replace(ben, cards=ben.cards + bought),
        )
        return msgspec.structs.replace(
            state, mode="table", players=players, deck_size=(state.deck_size[0], 0, state.deck_size[2])
        )

    event = TurnPassed(player="ann", seq=len(stuck().played) + 2)
    (ruling,) = SPLENDOR.check(position((affordable,)), event)  # the one unlocated level-2 card is ann's: affordable
    assert (ruling.rule, ruling.verdict) == ("splendor.stuck.pass", "illegal")
    assert ruling.message == (
        "ann cannot pass: of the level-2 cards the log has not located only 0 could not be "
        "afforded, fewer than ann's 1 blind reserve of that level, so one of them can be bought"
    )
    listed = [SPLENDOR.format(m) for m in SPLENDOR.legal_moves(position((affordable,)))]
    assert listed == [f"ann: buy {affordable} pay w1 b4 g2"]  # not the pass: the buy it may be
    (note,) = SPLENDOR.check(position((affordable, dear)), event)  # her card may be the one she cannot afford
    assert (note.rule, note.verdict) == ("splendor.stuck.pass", "unverifiable")
