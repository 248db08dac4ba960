"""One test per Array rule id: each builds a real position by folding real events through `Table`, then asserts
the ruling on a violating event (rule id, verdict, message) and that a neighbouring legal event is accepted
(`Table.permit` names the rule that allows it). Rules that forbid nothing (the end of a round, scoring, the
dealer, the end of the game) are checked on the state and the outcome.

tests/core/test_game_contract.py keeps this file complete: a rule id of the game without a test named after it
here fails it.
"""

from __future__ import annotations

import msgspec

from support import ROOT
from support.array_helpers import ANN, BEN, Game, deal_event, documented_position, open_game, rest_of_box, table_game
from tally.core.engine import Table
from tally.core.games.array import (
    ARRAY,
    ActionGiven,
    CardDrawn,
    CardSpliced,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    arrays,
)
from tally.core.games.array.events import PickedUp
from tally.core.model import Noted, Voided

# ---------------------------------------------------------------------------- scripted rounds (table mode)
# With the starting card bgor (#1), a player lays 7 cards in two moves: bgoy on #1's blue with gy, oy, by on
# its other colours, then bory on #1's orange with br and ry. The others draw while the first move is still to be
# made (unverifiable in table mode); after it, every copy of the box would give an unseen hand a move, so a draw
# would be illegal: they give action cards or splice a filler card on their turns. Then every player with cards
# left shows them.

WINNING_MOVES = ("splice bgoy@1.b gy.g oy.o by.y", "splice bory@1.o br.b ry.r")
FILLERS = ("bg", "bo", "go", "gr", "or", "bgo", "bgr", "goy", "gry", "ory")  # none of the winner's cards


def filler(game: Game) -> str:
    """A splice that leaves the winner's moves possible: a card that is not the winner's, on an open segment that
    is neither #1's orange nor one of bory's."""
    from tally.core.games.array.state import is_possible, open_segments

    state = game.state
    for number, colour in open_segments(state):
        if (number, colour) == (1, "o") or state.placed[number - 1] == "bory":
            continue
        for card in FILLERS:
            if colour in card and is_possible(state, card):
                return f"splice {card}@{number}.{colour}"
    raise AssertionError("no filler card fits")


def play_round(
    game: Game,
    winner: str,
    gives: dict[str, list[str]] | None = None,
    shows: dict[str, int | list[str]] | None = None,
    first: tuple[str, ...] = (),
) -> Game:
    """Table mode: `winner` goes out with WINNING_MOVES (each of its own `gives[winner]` in place of one card of the
    second move); the others give `gives[name]` ('slam ben', ...) on their turns after the first move, draw before
    it and splice a filler card otherwise; then each shows a hand worth `shows[name]` points (or exactly the cards
    listed). `first`: moves right after the starting card."""
    gives = {name: list(moves) for name, moves in (gives or {}).items()}
    game.do("start bgor", *first)
    own = gives.pop(winner, [])
    last = ["bory", "br", "ry"][: 3 - len(own)]
    moves = [WINNING_MOVES[0], *own]
    if any(gives.values()):  # room for the others' actions: the second move in parts
        moves += ["lay bory@1.o", "lay br@bory.b", "done", "splice ry@bory.r"][: len(last) + (len(last) == 3)]
    else:
        moves.append(" ".join(["splice bory@1.o", *(f"{card}.{card[0]}" for card in last[1:])]))
    while game.state.phase in ("play", "splice"):
        who = game.state.player_name
        if who == winner:
            game.do(f"{who}: {moves.pop(0)}")
            while game.state.phase == "splice" and game.state.player_name == winner:
                game.do(f"{who}: {moves.pop(0)}")
        elif not game.state.first_done:
            game.do(f"{who}: draw")
        elif gives.get(who):
            game.do(f"{who}: {gives[who].pop(0)}")
        else:
            game.do(f"{who}: {filler(game)}")
    for name, wanted in (shows or {}).items():
        size = game.state.hands[game.state.seats.index(name)].size
        cards = wanted if isinstance(wanted, list) else hand_worth(game, size, wanted)
        assert len(cards) == size, (name, size, cards)
        game.do(f"{name}: show {' '.join(cards)}")
    assert game.state.phase in ("starter", "over"), ARRAY.to_act(game.state)
    return game


def hand_worth(game: Game, size: int, points: int) -> list[str]:
    """`size` cards worth exactly `points` that may still be in a hand: not on the table, given or shown."""
    from collections import Counter

    from tally.core.games.array import points as worth
    from tally.core.games.array.state import located

    left = Counter(game.state.box.cards())
    left.subtract(located(game.state))
    by_value: dict[int, list[str]] = {}
    for card in sorted(left.elements()):
        by_value.setdefault(worth(card), []).append(card)
    # values nearest the average first: a hand that spends few of the high cards leaves them to the next one
    values = sorted(by_value, key=lambda value: (abs(value - points / size), -value)) if size else []

    def pick(i: int, size: int, points: int) -> list[str] | None:
        if size == 0:
            return [] if points == 0 else None
        if i == len(values):
            return None
        value, cards = values[i], by_value[values[i]]
        for n in range(min(len(cards), size, points // value), -1, -1):
            rest = pick(i + 1, size - n, points - n * value)
            if rest is not None:
                return cards[:n] + rest
        return None

    found = pick(0, size, points)
    assert found is not None, (size, points)
    return found


def seat_total(game: Game, name: str) -> int:
    return game.state.totals[game.state.seats.index(name)]


# ---------------------------------------------------------------------------- the deal


def test_array_deal_hands() -> None:
    game = Game(("ann", "ben"))
    assert game.state.phase == "deal" and ARRAY.to_act(game.state) == ("table", "tally must deal round 1 (dealer ben)")
    good = deal_event({"ann": ANN, "ben": BEN})
    short = RoundDealt(hands={"ann": ANN[:6], "ben": BEN}, turned=good.turned, deck=good.deck + [ANN[6]])
    ruling = game.ruling(short)
    assert (ruling.rule, ruling.verdict) == ("array.deal.hands", "illegal")
    assert ruling.message == "ann must be dealt 7 cards, not 6"
    stolen = RoundDealt(hands=good.hands, turned=good.turned, deck=good.deck[1:])
    assert (
        game.ruling(stolen).message
        == "the hands, the starting card and the pickup deck must be the whole deck, each card once"
    )
    stranger = RoundDealt(hands={"ann": ANN, "cy": BEN}, turned=good.turned, deck=good.deck)
    assert game.ruling(stranger).message == "round 1 is dealt to ann, ben"
    assert game.permit(good).rule == "array.deal.hands"
    game.do(good)
    assert [game.hand(n) for n in ("ann", "ben")] == [ANN, BEN]
    assert game.state.deck_size == 82 - 14 - 1 and game.state.placed == ("br",)
    assert game.ruling(good).rule == "array.deal.hands"  # dealt once a round
    table = Game(("ann", "ben"), "table")
    assert table.ruling(good).rule == "array.deal.hands"  # in table mode nobody records the hands


def test_array_deal_starting_card() -> None:
    # open mode: action cards turned over go back under the deck, then a colour card is the starting card
    good = deal_event({"ann": ANN, "ben": BEN}, "bo", turned=["s2", "slam"])
    assert good.turned == ["s2", "slam", "bo"] and good.deck[-2:] == ["s2", "slam"]
    game = Game(("ann", "ben"))
    only_action = RoundDealt(hands=good.hands, turned=["s2"], deck=good.deck[:-1] + ["bo"])
    ruling = game.ruling(only_action)
    assert (ruling.rule, ruling.verdict) == ("array.deal.starting-card", "illegal")
    hands = {"ann": ANN[:6] + ["s2"], "ben": BEN}  # one s2 in ann's hand cannot also have been turned over
    hidden = RoundDealt(hands=hands, turned=["s2", "s2", "bo"], deck=rest_of_box(*hands.values(), ["bo"]))
    assert game.ruling(hidden).message == "an action card turned over goes back into the pickup deck"
    game.do(good)
    assert game.state.placed == ("bo",) and game.state.returned == ("s2", "slam")
    assert game.ruling(StarterTurned(card="br")).rule == "array.deal.starting-card"  # tally turned it in open mode
    # table mode: the recorder enters each card turned over
    table = Game(("ann", "ben"), "table")
    assert (
        table.permit("start slam").message
        == "slam is an action card: it goes back into the pickup deck; turn over another"
    )
    table.do("start slam")
    assert table.state.phase == "starter" and table.state.returned == ("slam",) and table.state.deck_size == 68
    assert "(slam went back)" in ARRAY.to_act(table.state)[1]
    assert table.ruling(StarterTurned(card="zz")).message == "there is no card 'zz' in this box"
    assert table.permit("start gy").message == "gy is the starting card #1"
    table.do("start gy")
    assert table.state.placed == ("gy",) and table.state.deck_size == 67 and table.state.phase == "play"
    assert table.ruling("start br").rule == "array.deal.starting-card"  # no starting card is to be turned now


def test_array_deal_pending() -> None:
    table = Game(("ann", "ben"), "table")
    for move in ("draw", "splice bo@1.b", "s3 ben"):
        ruling = table.ruling(move)
        assert (ruling.rule, ruling.verdict) == ("array.deal.pending", "illegal"), move
    assert table.ruling("draw").message == (
        "round 1 has not started: ben deals round 1; the table must turn over the starting card: start CARD"
    )


# ---------------------------------------------------------------------------- turns


def test_array_turn_order() -> None:
    hands = {
        "ann": ["bo", "gy", "oy", "s1", "s2", "s3", "s4"],
        "ben": ["br", "gr", "ry", "s1", "s2", "s3", "s4"],
        "cy": ["bg", "go", "or", "s5", "s5", "slam", "slam"],
    }
    game = open_game(hands, "by")
    state = game.state
    assert state.dealer == 2 and state.current == 0  # the last seat deals; the seat to its left plays first
    game.do("splice bo@1.b")
    assert game.state.player_name == "ben"
    game.do("ben: splice ry@1.y")
    assert game.state.player_name == "cy"
    game.do("cy: splice or@2.o")
    assert game.state.player_name == "ann" and game.state.turns == 3


def test_array_turn_out_of_turn() -> None:
    game = documented_position()
    ruling = game.ruling("ben: draw")
    assert (ruling.rule, ruling.verdict) == ("array.turn.out-of-turn", "illegal")
    assert ruling.message == "it is ann's turn, not ben's"
    assert game.ruling(CardDrawn(player="zed", card="bg")).message == "'zed' is not at this table: it is ann's turn"
    # an eliminated player does not play
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    play_round(game, "ann", gives={"cy": ["s5 ben", "slam ben"]}, shows={"ben": 40, "cy": 20})
    assert game.state.out == (1,) and game.state.playing == (0, 2)
    game.do("start bgor")
    assert game.ruling("ben: draw").message.endswith("(ben is eliminated)")


def test_array_turn_pending() -> None:
    game = table_game(("ann", "ben"), "bgor")
    game.do(*WINNING_MOVES[:1], "ben: splice go@1.g", WINNING_MOVES[1])
    assert game.state.phase == "show"
    for move in ("ann: draw", "ben: draw", "ann: splice bo@2"):
        ruling = game.ruling(move)
        assert ruling.rule == "array.turn.pending", (move, ruling)
    assert (
        game.ruling("ben: draw").message
        == "round 1 is over: ben must show the 6 cards left in hand: show CARD ... first"
    )


def test_array_turn_pending_is_the_rule_at_stake_for_the_next_starting_card() -> None:
    # issue 17: turning the next starting card while ben still owes his cards cited the starting-card rule
    game = table_game(("ann", "ben"), "bgor")
    game.do(*WINNING_MOVES[:1], "ben: splice go@1.g", WINNING_MOVES[1])
    assert game.state.phase == "show"
    ruling = game.ruling("start bo")
    assert (ruling.rule, ruling.verdict) == ("array.turn.pending", "illegal")
    assert ruling.message == "round 1 is over: ben must show the 6 cards left in hand: show CARD ... first"


def test_array_turn_game_over() -> None:
    game = Game(("ann", "ben"), "table", threshold=50)
    play_round(game, "ann", gives={"ann": ["s5 ben", "slam ben"]}, shows={"ben": 40})
    assert game.state.phase == "over" and game.state.totals == (0, 50)
    for move in ("start bo", "ann: draw", "time"):
        ruling = game.ruling(move)
        assert (ruling.rule, ruling.verdict) == ("array.turn.game-over", "illegal"), move
    assert ARRAY.to_act(game.state) == ("nobody", "the game is over (last-standing)")
    assert ARRAY.legal_moves(game.state) == []


# ---------------------------------------------------------------------------- the first move


def test_array_first_splice() -> None:
    game = open_game({"ann": ANN, "ben": BEN}, "br")
    assert ARRAY.to_act(game.state)[1] == "ann to make the first move of round 1: splice a card onto #1 br, or draw"
    permit = game.permit("lay bor@1.b")
    assert permit.rule == "array.first.splice"
    assert permit.message == "ann may splice bor against the blue segment of #1 br (Splice 1)"
    game.do("lay bor@1.b")
    assert game.state.phase == "splice" and game.state.anchors == (2,)
    assert game.permit("lay oy@2.o").rule == "array.splice.second"
    game.do("lay oy@2.o", "done")
    assert game.state.first_done and game.state.player_name == "ben"
    # after the first move, Splice 1 is permitted by the general rule
    assert game.permit("ben: lay gr@1.r").rule == "array.splice.one-colour"


def test_array_first_no_action() -> None:
    game = open_game({"ann": ANN, "ben": BEN}, "br")
    ruling = game.ruling("s3 ben")
    assert (ruling.rule, ruling.verdict) == ("array.first.no-action", "illegal")
    assert (
        ruling.message
        == "ann cannot play s3 on the first move of round 1: a card must be spliced to the starting card first"
    )
    assert not any(isinstance(m, ActionGiven) for m in ARRAY.legal_moves(game.state))
    game.do("splice bor@1.b oy ry")
    assert game.permit("ben: s1 ann").rule == "array.action.splatter"


def test_array_first_draw() -> None:
    # ann holds nothing with blue or red: she draws, and ben makes the first move (still no action card)
    hands = {"ann": ["go", "gy", "oy", "goy", "s1", "s2", "slam"], "ben": ["bo", "gr", "ry", "gy", "go", "oy", "s3"]}
    game = open_game(hands, "br", top=["bgo"])
    assert game.legal() == ["ann: draw bgo"]
    assert game.permit("draw").rule == "array.first.draw"
    game.do("draw")
    assert not game.state.first_done and game.state.player_name == "ben"
    assert game.ruling("ben: s3 ann").rule == "array.first.no-action"
    ruling = game.ruling("ben: draw")
    assert (ruling.rule, ruling.verdict) == ("array.first.draw", "illegal")
    assert ruling.message == "ben cannot draw: ben can splice"
    # table mode: the hand is unknown, so the draw cannot be checked
    table = table_game(("ann", "ben"), "br")
    note = table.ruling("draw")
    assert (note.rule, note.verdict) == ("array.first.draw", "unverifiable")
    assert note.message == (
        "ann draws with 7 cards the log has not seen; it cannot confirm that ann could not splice, "
        "slice or give an action card"
    )


# ---------------------------------------------------------------------------- splice


def test_array_splice_one_colour() -> None:
    game = documented_position()
    permit = game.permit("lay bry@3.y")
    assert (permit.rule, permit.message) == (
        "array.splice.one-colour",
        "ann may splice bry against the yellow segment of #3 oy (Splice 1)",
    )
    game.do("lay bry@3.y")
    # a second card against a card that was on the table before the move would be a second Splice 1
    ruling = game.ruling("lay gry@5.g")
    assert (ruling.rule, ruling.verdict) == ("array.splice.one-colour", "illegal")
    assert ruling.message == "ann already laid #6 this move: gry may only be spliced onto #6, not #5"


def test_array_splice_second() -> None:
    hands = {"ann": ["bgor", "bgy", "by", "gy", "go", "oy", "s1"], "ben": BEN}
    game = open_game(hands, "br")
    game.do("lay bgor@1.b", "lay bgy@2.g")  # Splice 1: bgor (#2); Splice 2: bgy on its gray (#3)
    assert game.permit("lay oy@2.o").rule == "array.splice.second"
    ruling = game.ruling("lay by@3.b")  # onto the Splice-2 card: a third level
    assert (ruling.rule, ruling.verdict) == ("array.splice.second", "illegal")
    assert ruling.message == "the move ends after Splice 2: by may be spliced onto #2, not onto #3"
    game.do("lay oy@2.o")
    assert game.state.phase == "splice"  # #2 still has red open: ann may go on or stop
    game.do("done")
    assert game.state.player_name == "ben" and ARRAY.format(game.played[-1]) == "ann: done"


def test_array_splice_colour_card() -> None:
    game = documented_position()
    ruling = game.ruling(CardSpliced(player="ann", card="s3", to=3, colour="y"))
    assert (ruling.rule, ruling.verdict) == ("array.splice.colour-card", "illegal")
    assert ruling.message == "s3 (Splatter 3) is an action card: it is given, not spliced"
    assert (
        game.ruling(CardSpliced(player="ann", card="zz", to=3, colour="y")).message
        == "'zz' is not a colour card of this box"
    )
    assert game.ruling(Sliced(player="ann", cut=[2, 4], cards=["bry", "slam"])).rule == "array.splice.colour-card"
    assert game.permit("lay bry@3.y").rule == "array.splice.one-colour"


def test_array_first_draw_is_judged_from_the_box_when_no_unlocated_card_fits() -> None:
    # table mode, the hand unseen: when no copy the log has not located could fit the starting card, the draw is
    # legal, not unverifiable (the box's copy counts settle it)
    colours = {"b": "blue", "g": "gray", "o": "orange", "r": "red", "y": "yellow"}
    game = Game(
        ("ann", "ben"),
        "table",
        manifest={"id": "no-blue-no-red", "colours": colours, "cards": {"br": 1, "go": 12, "gy": 12, "oy": 12}},
    )
    game.do("start br")
    assert game.rule("ann: draw") == []
    assert game.permit("ann: draw").rule == "array.first.draw"
    # with the default box an unseen card may fit: the log cannot tell
    table = table_game(("ann", "ben"), "br")
    (note,) = table.rule("ann: draw")
    assert (note.rule, note.verdict) == ("array.first.draw", "unverifiable")


def test_array_splice_colour_card_judges_an_action_card_spliced() -> None:
    # issue 17: `splice s3@3` was refused as unreadable, never under the colour-card rule
    game = documented_position()
    for text in ("splice s3@3", "splice slam@3.y", "splice s3"):
        ruling = game.ruling(text)
        assert (ruling.rule, ruling.verdict) == ("array.splice.colour-card", "illegal"), text
        assert ruling.message.endswith("is an action card: it is given, not spliced"), text
    (event,) = ARRAY.parse(game.state, "splice s3@3")
    assert ARRAY.parse(game.state, ARRAY.format(event)) == [event]
    first = open_game({"ann": ANN, "ben": BEN}, "br")
    assert first.ruling("splice s3@1").rule == "array.splice.colour-card"


def test_array_join_target_counts_the_cards_on_the_table() -> None:
    # issue 17: "the cards are #1-#1" where a count would help
    game = open_game({"ann": ANN, "ben": BEN}, "br")
    ruling = game.ruling("lay bor@2.b")
    assert (ruling.rule, ruling.verdict) == ("array.join.target", "illegal")
    assert ruling.message == "there is no card #2 on the table: 1 card lies on the table, the starting card #1"


def test_array_splice_done() -> None:
    game = documented_position()
    ruling = game.ruling("done")
    assert (ruling.rule, ruling.verdict) == ("array.splice.done", "illegal")
    assert ruling.message == "ann has laid no card this turn: there is no move to end"
    game.do("lay bry@3.y")
    assert ARRAY.to_act(game.state)[1] == "ann may splice more cards onto #6 (open: br), or done"
    for move in ("s3 ben", "draw", "slice 2/4 gry, gry"):
        assert game.ruling(move).rule == "array.splice.done", move
    assert game.permit("done").rule == "array.splice.done"
    game.do("done")
    assert game.state.player_name == "ben"
    # the move ends by itself when the cards just laid have no open segment left
    game = open_game({"ann": ANN, "ben": BEN}, "br")
    game.do("lay bor@1.b", "lay oy@2.o", "lay ry@2.r")
    assert game.state.player_name == "ben" and game.state.phase == "play"
    assert ARRAY.parse(game.state, "ben: splice gr@1.r")[-1] == ARRAY.parse(game.state, "ben: done")[0]


# ---------------------------------------------------------------------------- joins and cards


def test_array_join_same_colour() -> None:
    game = documented_position()
    ruling = game.ruling(CardSpliced(player="ann", card="bry", to=5, colour="g"))
    assert (ruling.rule, ruling.verdict) == ("array.join.same-colour", "illegal")
    assert ruling.message == "bry has no gray segment"
    ruling = game.ruling(CardSpliced(player="ann", card="gry", to=3, colour="g"))
    assert ruling.message == "#3 oy has no gray segment for gry to touch"
    assert game.ruling(CardSpliced(player="ann", card="gry", to=3, colour="")).rule == "array.join.same-colour"
    assert game.permit(CardSpliced(player="ann", card="gry", to=5, colour="g")).rule == "array.splice.one-colour"


def test_array_join_open() -> None:
    game = documented_position()
    ruling = game.ruling("lay bry@1.b")
    assert (ruling.rule, ruling.verdict) == ("array.join.open", "illegal")
    assert ruling.message == "the blue segment of #1 br already touches #2"
    assert game.permit("lay bry@4.y").rule == "array.splice.one-colour"


def test_array_join_target() -> None:
    game = documented_position()
    for to in (0, 6, 99):
        ruling = game.ruling(CardSpliced(player="ann", card="bry", to=to, colour="y"))
        assert (ruling.rule, ruling.verdict) == ("array.join.target", "illegal"), to
    assert game.ruling("lay bry@6.y").message == "there is no card #6 on the table: 5 cards lie on the table, #1-#5"
    assert game.ruling(Sliced(player="ann", cut=[2, 9], cards=["bry", "gry"])).rule == "array.join.target"


def test_array_card_held() -> None:
    game = documented_position()
    ruling = game.ruling("lay by@3.y")
    assert (ruling.rule, ruling.verdict) == ("array.card.held", "illegal")
    assert ruling.message == "ann does not hold by: the hand holds bry gry s3 slam"
    assert game.ruling("slice 2/4 bry, bry").message == "ann does not hold two bry: the hand holds bry gry s3 slam"
    assert game.ruling("s1 ben").rule == "array.card.held"
    # table mode: a card is possible while a copy of it is not located; br has 3 copies
    table = table_game(("ann", "ben"), "br")
    table.do("splice bry@1.r", "ben: splice br@2.b", "splice ry@3.r", "ben: splice br@1.b")
    assert table.state.placed.count("br") == 3
    ruling = table.ruling("splice br@5.r")
    assert (ruling.rule, ruling.verdict) == ("array.card.held", "illegal")
    assert ruling.message == "ann cannot hold 1 copy of br: the box has 3 and 3 are located elsewhere"
    assert table.permit("splice bgr@5.r").rule == "array.splice.one-colour"


# ---------------------------------------------------------------------------- slice


def test_array_slice_join() -> None:
    game = documented_position()
    ruling = game.ruling("slice 3/5 bry, gry")
    assert (ruling.rule, ruling.verdict) == ("array.slice.join", "illegal")
    assert ruling.message == "#3 oy and #5 gr do not touch: only a join can be sliced"
    assert game.ruling(Sliced(player="ann", cut=[2], cards=["bry", "gry"])).rule == "array.slice.join"
    before = len(arrays(game.state))
    permit = game.permit("cut 2/4 bry gry")
    assert permit.rule == "array.slice.join"
    assert permit.message == "ann may slice #2 bor from #4 ry and lay bry and gry against the freed segments"
    game.do("cut 2/4 bry gry")
    assert len(arrays(game.state)) == before + 1
    assert [sorted(a) for a in arrays(game.state)] == [[1, 2, 3, 5, 6], [4, 7]]
    assert game.state.links[5] == (0, 2, 0) and game.state.links[6] == (0, 4, 0)  # bry's red on #2, gry's red on #4


def test_array_slice_two_cards() -> None:
    game = documented_position()
    ruling = game.ruling("slice 2/4 bry")
    assert (ruling.rule, ruling.verdict) == ("array.slice.two-cards", "illegal")
    assert ruling.message == "slicing the red join needs two cards with red, one for each side (1 given)"
    ruling = game.ruling(Sliced(player="ann", cut=[2, 3], cards=["bry", "gry"]))
    assert ruling.message == "the cut separates two orange segments: bry has no orange to lay against them"
    assert game.permit("cut 1/5 bry gry").rule == "array.slice.join"


def test_array_slice_splice() -> None:
    hands = {"ann": ANN[:3] + ["bry", "gry", "by", "gy"], "ben": BEN}
    game = open_game(hands, "br").do("splice bor@1.b oy ry", "ben: splice gr@1.r")
    game.do("cut 2/4 bry gry")
    permit = game.permit("lay by@6.b")
    assert (permit.rule, permit.message) == (
        "array.slice.splice",
        "ann may splice by against the blue segment of #6 bry (Splice 2)",
    )
    ruling = game.ruling("lay gy@5.g")
    assert (ruling.rule, ruling.verdict) == ("array.slice.splice", "illegal")
    assert ruling.message == "ann already laid #6 and #7 this move: gy may only be spliced onto #6 and #7, not #5"
    game.do("lay by@6.b", "lay gy@7.g")  # ann's last card: the round is over
    assert game.state.results[0].winners == (0,) and game.state.results[0].ended == "out"


# ---------------------------------------------------------------------------- splatter and slam


def test_array_action_splatter() -> None:
    game = documented_position(top=["bg", "oy", "ry", "go"])
    permit = game.permit("s3 ben")
    assert (permit.rule, permit.message) == (
        "array.action.splatter",
        "ann may give Splatter 3 to ben, who picks up 3 cards",
    )
    parsed = ARRAY.parse(game.state, "s3 ben")
    assert parsed == [ActionGiven(player="ann", card="s3", target="ben", drawn=["bg", "oy", "ry"])]
    game.do("s3 ben")
    assert game.hand("ben")[-3:] == ["bg", "oy", "ry"] and game.state.played == ("s3",)
    assert game.state.player_name == "ben"  # picking up is not a turn
    assert game.ruling(ActionGiven(player="ben", card="bo", target="ann")).message == (
        "'bo' is not an action card: only Splatter and SLAM cards are given"
    )
    # a Splatter with fewer cards left in the deck picks up what is left
    table = _emptied(until=2)
    table.do(f"{table.state.player_name}: splice br@1.b")  # the first move: action cards may be given now
    who = table.state.player_name
    other = table.state.seats[(table.state.current + 1) % 4]
    size = table.state.hands[table.state.seats.index(other)].size
    assert table.permit(f"{who}: s5 {other}").message == f"{who} may give Splatter 5 to {other}, who picks up 2 cards"
    table.do(f"{who}: s5 {other}")
    assert table.state.deck_size == 0 and table.state.hands[table.state.seats.index(other)].size == size + 2


def _seated_splatter(drawn: str = "") -> Game:
    """ann and ben (seated) in table mode, both hands named, br turned, ann's first move made: then ann gives ben
    Splatter 2 (the cards named with it when `drawn` is given, as a recorder who saw them would)."""
    game = Game(("ann", "ben"), "table")
    game.started = msgspec.structs.replace(game.started, seated=["ann", "ben"])
    game.table = Table(ARRAY, game.started)
    game.do(
        f"ann: hand {' '.join(ANN)}",
        f"ben: hand {' '.join(BEN)}",
        "start br",
        "splice bor@1.b oy ry",
        "ben: splice gr@1.r",
    )
    return game.do(f"s3 ben{drawn}")


def test_array_pickup_owed() -> None:
    game = _seated_splatter()
    ben = game.state.hands[1]
    assert (game.state.picking, game.state.picks, ben.unknown) == ("ben", 3, 3)
    assert ARRAY.to_act(game.state) == (
        "ben",
        "ben to name the 3 cards the Splatter made them pick up (PLAYER: pick up CARD ...)",
    )
    assert ARRAY.waiting_on(game.state) == ("ben",) and ARRAY.legal_moves(game.state) == []
    ruling = game.ruling("ben: splice gy@3.y")
    assert (ruling.rule, ruling.verdict) == ("array.pickup.owed", "illegal")
    assert ruling.message == "ben first names the 3 cards the Splatter made them pick up (ben: pick up CARD ...)"
    assert game.ruling("time").rule == "array.pickup.owed"
    parsed = ARRAY.parse(game.state, "pick up bg oy ry")  # a bare pick-up is the seat's that owes one
    assert (
        parsed == [PickedUp(player="ben", cards=["bg", "oy", "ry"])] == ARRAY.parse(game.state, "ben: pickup bg oy ry")
    )
    assert ARRAY.format(parsed[0]) == "ben: pick up bg oy ry"
    assert game.permit("pick up bg oy ry").rule == "array.pickup.owed"
    assert game.ruling("pick up bg oy").rule == "array.draw.top"  # three cards, not two
    game.do("pick up bg oy ry")
    assert game.hand("ben") == BEN[1:] + ["bg", "oy", "ry"] and game.state.picking == ""
    assert game.state.player_name == "ben"  # picking up is not a turn: ben plays next, as after any Splatter
    named = _seated_splatter(" draws bg oy ry")  # a recorder who saw the cards named them with the Splatter
    assert named.state.picking == "" and named.hand("ben") == BEN[1:] + ["bg", "oy", "ry"]


def test_array_pickup_not_owed() -> None:
    game = _seated_splatter()
    ruling = game.ruling("ann: pick up bg oy ry")
    assert (ruling.rule, ruling.verdict) == ("array.pickup.not-owed", "illegal")
    assert ruling.message == "ann has picked up no cards to name: only ben names the cards they picked up"
    game.do("ben: pick up bg oy ry")
    again = game.ruling("ben: pick up go")
    assert (again.rule, again.message) == (
        "array.pickup.not-owed",
        "ben has picked up no cards to name: no Splatter left cards to name",
    )
    unseated = table_game(("ann", "ben"), "br")  # nobody seated: a pick-up is never owed
    assert unseated.ruling("ben: pick up bo").rule == "array.pickup.not-owed"


def test_array_action_slam() -> None:
    game = documented_position()
    permit = game.permit("slam ben")
    assert (permit.rule, permit.message) == ("array.action.slam", "ann may give SLAM to ben (+10 points)")
    game.do("slam ben")
    assert game.state.slams == (0, 10) and game.state.player_name == "ben"
    # SLAM points count in the round's score, even for the round's winner
    game = Game(("ann", "ben"), "table", threshold=100)
    play_round(game, "ann", gives={"ben": ["slam ann"]}, shows={"ben": 12})
    result = game.state.results[0]
    assert result.winners == (0,) and result.points == (10, 12) and game.state.totals == (10, 12)


def test_array_action_target() -> None:
    game = documented_position()
    for target, message in (
        ("ann", "s3 goes to another player of this round (ben), not 'ann'"),
        ("zed", "s3 goes to another player of this round (ben), not 'zed'"),
    ):
        ruling = game.ruling(ActionGiven(player="ann", card="s3", target=target, drawn=["bg", "oy", "ry"]))
        assert (ruling.rule, ruling.verdict, ruling.message) == ("array.action.target", "illegal", message)
    game.do("s3 ben")
    assert "s3" not in game.hand("ben")  # set aside, not in the receiver's hand
    # an eliminated player cannot receive one
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    play_round(game, "ann", gives={"cy": ["s5 ben", "slam ben"]}, shows={"ben": 40, "cy": 20})
    game.do("start bgor", "cy: splice bgoy@1.b")
    who = game.state.player_name
    assert game.ruling(f"{who}: slam ben").rule == "array.action.target"


def test_array_action_next() -> None:
    hands = {
        "ann": ["bo", "gy", "oy", "s1", "s2", "s3", "s4"],
        "ben": ["br", "gr", "ry", "gy", "s2", "s3", "s4"],
        "cy": ["bg", "go", "or", "s5", "s5", "slam", "slam"],
    }
    game = open_game(hands, "by")
    game.do("splice bo@1.b", "ben: splice ry@1.y", "cy: splice or@2.o")
    game.do("ann: s4 cy")  # play continues to the left of the giver, not of the receiver
    assert game.state.player_name == "ben"
    game.do("ben: s2 ann")
    assert game.state.player_name == "cy"


# ---------------------------------------------------------------------------- draw


def test_array_draw_only_if_stuck() -> None:
    game = documented_position()
    ruling = game.ruling("draw")
    assert (ruling.rule, ruling.verdict) == ("array.draw.only-if-stuck", "illegal")
    assert ruling.message == "ann cannot draw: ann can slice and splice, splice or give an action card"
    # a box (manifest) with many red-gray cards: ben holds only those, and after ann's move nothing of his fits
    box = {
        "id": "few-colours",
        "colours": {"b": "blue", "g": "gray", "o": "orange", "r": "red", "y": "yellow"},
        "cards": {"by": 10, "bo": 10, "or": 10, "gr": 10, "oy": 10, "s1": 2},
    }
    game = open_game(
        {"ann": ["bo", "bo", "oy", "s1", "or", "or", "or"], "ben": ["gr"] * 7}, "by", top=["oy"], manifest=box
    )
    game.do("splice bo@1.b")  # open: #1 yellow, #2 orange; the only join is blue
    assert game.legal() == ["ben: draw oy"]
    assert game.permit("ben: draw").rule == "array.draw.only-if-stuck"
    game.do("ben: draw")
    assert game.state.player_name == "ann" and game.hand("ben")[-1] == "oy"
    # table mode: unverifiable (after br on #1 br's blue, a hand without a move holds up to 13 unseen cards: the
    # 12 copies of go, gy, oy and goy and one card with blue)
    table = table_game(("ann", "ben"), "br").do("splice br@1.b")
    note = table.ruling("ben: draw")
    assert (note.rule, note.verdict) == ("array.draw.only-if-stuck", "unverifiable")
    # the draw is not said to be right: the rule that lets ben draw the top card permits it, and only that
    permit = table.table.permit(ARRAY.parse(table.state, "ben: draw")[0])
    assert (permit.rule, permit.message) == ("array.draw.top", "ben draws the top card of the pickup deck")


def test_array_draw_only_if_stuck_is_judged_from_the_box_copy_counts() -> None:
    # issue 17: each card the log has not seen is a different unlocated copy; when the hand holds more of them than
    # there are copies that would give it no move, one of its cards gives a move: the draw is illegal
    game = table_game(("ann", "ben"), "bgor").do(WINNING_MOVES[0])  # every colour has an open segment
    ruling = game.ruling("ben: draw")
    assert (ruling.rule, ruling.verdict) == ("array.draw.only-if-stuck", "illegal")
    assert ruling.facts == {"unseen": 7, "most": 0, "idle": 0, "unjoined": 0, "packed": 0}
    assert ruling.message == (
        "ben cannot draw: ben holds 7 cards the log has not seen, and no unlocated copy of the "
        "box would leave ben without a move (any other copy lets ben splice, slice or give an "
        "action card)"
    )
    assert game.legal() == []  # nothing to list: the recorder names the card ben plays
    # the first move: every colour card fits the starting card bgor, only the 12 action cards do not
    game = table_game(("ann", "ben"), "bgor")
    while game.state.hand.unknown < 12:
        game.do(f"{game.state.player_name}: draw")
    who = game.state.player_name
    assert game.legal() == [f"{who}: draw"] and game.doubtful(f"{who}: draw").rule == "array.first.draw"
    while game.state.hand.unknown < 13:
        game.do(f"{game.state.player_name}: draw")
    who = game.state.player_name
    ruling = game.refuse(f"{who}: draw")
    assert (ruling.rule, ruling.facts) == (
        "array.first.draw",
        {"unseen": 13, "most": 12, "idle": 12, "unjoined": 12, "packed": 0},
    )
    assert ruling.message.endswith(f"(any other copy lets {who} splice it onto the starting card)")
    # proved legal: after bo on #1 br, only red and orange are open and no unlocated copy has either
    colours = {"b": "blue", "g": "gray", "o": "orange", "r": "red", "y": "yellow"}
    game = Game(
        ("ann", "ben"),
        "table",
        manifest={"id": "gray-yellow", "colours": colours, "cards": {"br": 1, "bo": 1, "gy": 40}},
    )
    game.do("start br", "splice bo@1.b")
    assert game.legal() == ["ben: draw"] and game.accept("ben: draw").rule == "array.draw.only-if-stuck"
    # a known hand is judged in full, before the box: ann's bry gry fit
    assert documented_position().ruling("draw").message.startswith("ann cannot draw: ann can ")


def test_array_draw_only_if_stuck_counts_one_card_per_joined_colour() -> None:
    # issue 37: two cards sharing the colour of a join give a slice, so a hand without a move holds, of the copies
    # that give no move alone, those without a joined colour and at most one card per joined colour
    game = table_game(("ann", "ben", "cy"), "br").do("ann: splice bgor@1.b gy@2.g oy@2.o ry@2.r")
    # only red (#1) and yellow are open; blue, gray, orange and red are joined: bg, bo, go and bgo fit nowhere,
    # and any two of them share blue, gray or orange, whose join ben could slice
    ruling = game.refuse("ben: draw")
    assert (ruling.rule, ruling.facts) == (
        "array.draw.only-if-stuck",
        {"unseen": 7, "most": 1, "idle": 12, "unjoined": 0, "packed": 1},
    )
    assert ruling.message == (
        "ben cannot draw: ben holds 7 cards the log has not seen, and a hand without a move holds at most 1 of them: "
        "12 of the 77 unlocated copies of the box give no move on their own (any other lets ben splice, slice or give "
        "an action card), all of them with a colour of a join (blue, gray or orange); two cards sharing a joined "
        "colour give a slice, so such a hand holds at most 1 of those 12"
    )
    assert game.legal() == []  # no draw listed
    # the same with three unseen cards
    game.do("ben: slam cy", "cy: s1 ben")
    assert game.refuse("ann: draw").facts == {"unseen": 3, "most": 1, "idle": 12, "unjoined": 0, "packed": 1}
    # only orange and yellow open: of bg, br, gr and bgr (11 unlocated copies, fitting nowhere) a hand without a move
    # holds bg and gr at most (br and bgr share blue with bg and red with gr)
    game = table_game(("ann", "ben"), "br").do("splice bo@1.b", "ben: splice ry@1.r")
    ruling = game.refuse("ann: draw")
    assert (ruling.rule, ruling.facts) == (
        "array.draw.only-if-stuck",
        {"unseen": 6, "most": 2, "idle": 11, "unjoined": 0, "packed": 2},
    )
    assert "all of them with a colour of a join (blue or red)" in ruling.message
    # after br on #1 br's blue only red is open: the 12 copies of go, gy, oy and goy, and one card with blue, make
    # a hand of 13 without a move; 14 unseen cards are proved a move
    game = table_game(("ann", "ben"), "br").do("splice br@1.b")
    while game.state.hand.unknown < 13:
        game.do(f"{game.state.player_name}: draw")
    who = game.state.player_name
    assert game.legal() == [f"{who}: draw"] and game.doubtful(f"{who}: draw").rule == "array.draw.only-if-stuck"
    while game.state.hand.unknown < 14:
        game.do(f"{game.state.player_name}: draw")
    who = game.state.player_name
    ruling = game.refuse(f"{who}: draw")
    assert ruling.facts == {"unseen": 14, "most": 13, "idle": 32, "unjoined": 12, "packed": 1}
    assert ruling.message.endswith("so such a hand holds at most 1 of those 20, besides the 12 without one")
    assert game.legal() == []
    # a pass is judged alike: with red joined and blue and gray open, oy (3 copies) and one of or, ry or ory make
    # the largest hand without a move, and cy holds 20 cards
    game = _emptied().do("ben: splice gr@1.r")
    assert game.legal() == []
    ruling = game.refuse("cy: pass")
    assert (ruling.rule, ruling.facts) == (
        "array.draw.only-if-stuck",
        {"unseen": 20, "most": 4, "idle": 12, "unjoined": 3, "packed": 1},
    )
    assert ruling.message.startswith(
        "cy cannot pass: cy holds 20 cards the log has not seen, and a hand without a move holds at most 4 of them"
    )


def test_array_draw_only_if_stuck_with_one_unseen_card_slices_nothing() -> None:
    # a slice takes two cards: a hand of one card the log has not seen, every unlocated copy of which gives no move
    # alone, has none, however many copies share a joined colour; two such cards are proved a slice
    colours = {"b": "blue", "g": "gray", "o": "orange", "r": "red", "y": "yellow"}
    game = Game(
        ("ann", "ben"),
        "table",
        manifest={"id": "orange-red", "colours": colours, "cards": {"br": 1, "bo": 1, "or": 10, "bg": 20, "by": 20}},
    )
    # every copy with orange or red laid: only orange (#12) is open, blue is joined, bg and by are left
    game.do(
        "start br",
        "splice bo@1.b or.o",
        "ben: splice or@1.r or.o",
        "splice or@3.r or.o",
        "ben: splice or@5.r or.o",
        "splice or@7.r or.o",
        "ben: splice or@11.r",
    )
    assert [zone.unknown for zone in game.state.hands] == [1, 2]
    assert game.legal() == ["ann: draw"] and game.accept("ann: draw").rule == "array.draw.only-if-stuck"
    ruling = game.refuse("ben: draw")
    assert ruling.facts == {"unseen": 2, "most": 1, "idle": 40, "unjoined": 0, "packed": 1}
    assert ruling.message.endswith(
        "a hand without a move holds at most 1 of them: all 40 unlocated copies of the box "
        "give no move on their own, each with a colour of a join (blue); two cards sharing "
        "a joined colour give a slice, so such a hand holds at most 1 of those 40"
    )


def test_array_draw_only_if_stuck_claims_nothing_the_log_cannot_know() -> None:
    # issue 37: an unverifiable draw or pass is permitted by what the log knows (the top card is drawn, the deck is
    # empty), not by a rule saying the player could not play
    game = table_game(("ann", "ben"), "br")
    (note,) = game.rule("ann: draw")
    assert (note.rule, note.verdict) == ("array.first.draw", "unverifiable")
    permit = game.table.permit(ARRAY.parse(game.state, "ann: draw")[0])
    assert (permit.rule, permit.message) == ("array.draw.top", "ann draws the top card of the pickup deck")
    game = _emptied()
    who = game.state.player_name
    assert game.ruling(f"{who}: pass").verdict == "unverifiable"
    permit = game.table.permit(ARRAY.parse(game.state, "pass")[0])
    assert (permit.rule, permit.message) == (
        "array.draw.empty-deck",
        f"the pickup deck is empty: {who} passes instead of drawing",
    )
    # a draw the box proves right keeps its rule
    colours = {"b": "blue", "g": "gray", "o": "orange", "r": "red", "y": "yellow"}
    game = Game(
        ("ann", "ben"),
        "table",
        manifest={"id": "no-blue-no-red", "colours": colours, "cards": {"br": 1, "go": 12, "gy": 12, "oy": 12}},
    )
    game.do("start br")
    assert game.permit("ann: draw").message == "ann cannot play and draws a card"


def test_array_unseen_cards_count_the_copies_one_by_one_and_in_pairs() -> None:
    # the counts the guard compares with the unseen cards, against options_left asked of each copy and of each pair
    # of copies, at the positions of a table-mode fixture, for an unseen hand and for hands that know one card
    # giving no move
    from tally.core.engine import Table
    from tally.core.games.array.state import options_left, unlocated_copies, unseen_cards
    from tally.store.logs import log

    played = log.read(ROOT / "fixtures" / "games" / "array-table-by-hand-3p.jsonl")
    table = Table(ARRAY, played.started)
    compared = first_moves = paired = 0
    for event in played.events[1:]:
        assert table.step(event).is_legal
        state = table.state
        if state.phase != "play":
            continue
        pool = unlocated_copies(state)
        for known in [()] + [(card,) for card in pool if not options_left(state, (card,))]:
            idle = [card for card in pool if not options_left(state, known + (card,))]
            # an idle copy without a joined colour gives no move beside any other idle copy, nor beside itself
            alone = [card for card in idle if not any(options_left(state, known + (card, other)) for other in idle)]
            box = unseen_cards(state, known, pool)
            assert box.idle == sum(pool[card] for card in idle), (event.seq, known)
            assert box.moving == sum(pool.values()) - box.idle
            assert box.unjoined == sum(pool[card] for card in alone), (event.seq, known)
            assert box.packed <= box.idle - box.unjoined and (box.packed > 0) == (len(alone) < len(idle))
            compared += 1
            paired += len(alone) < len(idle)
        first_moves += not state.first_done
    assert compared > 100 and first_moves > 5 and paired > 5, (compared, first_moves, paired)


def test_array_draw_top() -> None:
    game = documented_position(top=["bg", "oy"])
    game.do("s3 ben")
    top = game.state.deck[0]
    ruling = game.ruling(CardDrawn(player="ben", card="bgoy"))
    assert (ruling.rule, ruling.verdict) == ("array.draw.top", "illegal")
    assert ruling.message == f"the top card of the pickup deck is {top}, not 'bgoy'"
    splat = ActionGiven(player="ben", card="s1", target="ann", drawn=["oy"])
    assert game.ruling(splat).message == f"ann picks up the top 1 card of the pickup deck: {top}"
    table = table_game(("ann", "ben"), "br")
    assert table.ruling(CardDrawn(player="ann", card="bo")).message == (
        "in table mode the card drawn is not recorded (the others do not see it)"
    )
    assert table.ruling("draw").verdict == "unverifiable"


def _emptied(until: int = 0, **options: object) -> Game:
    """A table game of four whose pickup deck the players drew down to `until` cards before anyone made the first
    move. Only the 12 copies of go, gy, oy and goy and the 12 action cards do not fit the starting card br, and no
    hand (at most 21 cards) holds more cards than those 24: each draw is unverifiable. (Three players would hold
    27 cards each once the deck is empty: more than 24, so one of them could splice, and the draw is illegal.)"""
    game = table_game(("ann", "ben", "cy", "dee"), "br", **options)
    while game.state.deck_size > until:
        game.do(f"{game.state.player_name}: draw")
    return game


def test_array_draw_empty_deck() -> None:
    game = _emptied()
    who = game.state.player_name
    ruling = game.ruling(f"{who}: draw")
    assert (ruling.rule, ruling.verdict) == ("array.draw.empty-deck", "illegal")
    assert ruling.message == f"the pickup deck is empty: {who} cannot draw (pass instead)"
    assert game.legal() == [f"{who}: pass"]
    assert ARRAY.to_act(game.state)[1].endswith("splice a card onto #1 br, or pass (the pickup deck is empty)")
    note = game.ruling(f"{who}: pass")
    assert (note.rule, note.verdict) == ("array.draw.only-if-stuck", "unverifiable")
    assert game.table.permit(ARRAY.parse(game.state, "pass")[0]).rule == "array.draw.empty-deck"
    early = documented_position()
    ruling = early.ruling("pass")
    assert ruling.rule == "array.draw.empty-deck" and ruling.message.startswith("ann cannot pass: ")


# ---------------------------------------------------------------------------- the round


def test_array_round_end() -> None:
    game = table_game(("ann", "ben"), "bgor")
    game.do(WINNING_MOVES[0], "ben: splice go@1.g", WINNING_MOVES[1])
    assert game.state.hands[0].size == 0 and game.state.phase == "show" and game.state.owing == (1,)
    game.do("ben: show " + " ".join(hand_worth(game, 6, 20)))
    result = game.state.results[0]
    assert (result.ended, result.winners, result.points, result.turns) == ("out", (0,), (0, 20), 3)
    assert game.state.round == 2 and game.state.phase == "starter"


def test_array_round_blocked() -> None:
    for option in ("lowest-free", "all-score"):
        game = _emptied(blocked=option)
        for _ in range(4):
            game.do(f"{game.state.player_name}: pass")
        assert game.state.phase == "show" and game.state.went_out == -1
        # every card not on the table is in a hand: ann shows the cheapest, ben the next, and so on
        from collections import Counter

        from tally.core.games.array import points

        left = Counter(game.state.box.cards())
        left.subtract(game.state.placed)
        cards = sorted(left.elements(), key=lambda c: (points(c), c))
        shown = []
        for seat, name in enumerate(game.state.seats):
            size = game.state.hands[seat].size
            shown.append(cards[:size])
            cards = cards[size:]
            game.do(f"{name}: show " + " ".join(shown[-1]))
        result = game.state.results[0]
        values = tuple(sum(map(points, hand)) for hand in shown)
        assert list(values) == sorted(set(values))
        expected = (0,) + values[1:] if option == "lowest-free" else values
        assert (result.ended, result.winners, result.points) == ("blocked", (0,), expected), option
    # a pass followed by another move is not a block
    game = _emptied()
    game.do(f"{game.state.player_name}: pass")
    assert game.state.passes == 1 and game.state.phase == "play"


def test_array_round_dealer() -> None:
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    assert game.state.dealer == 2 and game.state.current == 0
    play_round(game, "ann", gives={"cy": ["s5 ben", "slam ben"]}, shows={"ben": 40, "cy": 20})
    # the dealer rotates from cy (seat 3) to ann; cy plays first; ben is out
    assert game.state.dealer == 0 and game.state.current == 2 and game.state.playing == (0, 2)
    play_round(game, "cy", shows={"ann": 16})
    assert game.state.dealer == 2 and game.state.current == 0  # ben (seat 2) is skipped
    assert [r.dealer for r in game.state.results] == [2, 0]


# ---------------------------------------------------------------------------- scoring


def test_array_score_cards() -> None:
    game = Game(("ann", "ben", "cy"), "table", threshold=200)
    ben = ["bo", "bgo", "bgor", "s5", "slam"]  # 2 + 3 + 4 + 5 + 10 = 24
    cy = ["bo", "bo", "bgy", "bgy", "s2"]  # 2 + 2 + 3 + 3 + 2 = 12
    play_round(game, "ann", gives={"cy": ["slam ben"]}, shows={"ben": ben, "cy": cy})
    result = game.state.results[0]  # ben also took a SLAM: +10
    assert result.points == (0, 34, 12) and result.slams == (0, 10, 0) and game.state.totals == (0, 34, 12)
    assert result.left[1] == tuple(ben) and result.left[2] == tuple(cy)
    # open mode scores the hands the log knows
    hands = {
        "ann": ["bgoy", "gy", "oy", "by", "bory", "br", "ry"],
        "ben": ["gy", "bg", "bgo", "bgry", "s1", "s5", "slam"],
    }
    game = open_game(hands, "bgor")
    game.do(WINNING_MOVES[0], "ben: splice gy@3.y", WINNING_MOVES[1])
    result = game.state.results[0]
    assert result.left == ((), ("bg", "bgo", "bgry", "s1", "s5", "slam")) and result.points == (0, 25)


def test_array_score_show() -> None:
    game = table_game(("ann", "ben"), "bgor")
    game.do(WINNING_MOVES[0], "ben: splice go@1.g", WINNING_MOVES[1])
    assert ARRAY.permit(game.state, ARRAY.parse(game.state, "ben: show bo")[0]).rule == "array.score.show"
    ruling = game.ruling("ann: show bo")
    assert (ruling.rule, ruling.verdict) == ("array.score.show", "illegal")
    assert ruling.message == "ann has no cards left to show (0 cards in hand); still to show: ben (6 cards)"
    # bgoy: both copies are on the table... one is (#2); the second may be in ben's hand, a third may not
    game.do("ben: show bgoy")
    assert game.ruling("ben: show bgoy").message == "ben cannot hold bgoy: every copy is already located"
    # the show is exactly the hand: once 6 cards are shown, ben owes nothing more
    game.do("ben: show " + " ".join(hand_worth(game, 5, 14)))
    assert game.state.phase == "starter"
    assert game.ruling("ben: show bo").message.startswith("cards are shown only at the end of a round in table mode")


def test_array_score_show_counts_the_cards_left_to_show() -> None:
    # issue 17: "has no cards left to show" gave no counts
    game = table_game(("ann", "ben", "cy"), "bgor")
    game.do(*WINNING_MOVES[:1], "ben: splice go@1.g", "cy: splice gr@1.r", WINNING_MOVES[1])
    assert game.state.phase == "show"
    ruling = game.ruling("ann: show bo")
    assert (
        ruling.message == "ann has no cards left to show (0 cards in hand); still to show: ben (6 cards), cy (6 cards)"
    )


# ---------------------------------------------------------------------------- the game


def test_array_game_threshold() -> None:
    assert {o.key: (o.default, o.choices) for o in ARRAY.options}["threshold"] == ("100", ("50", "100", "200"))
    assert ARRAY.check_options({"threshold": "75"}) == ["option threshold='75': expected one of 50, 100, 200"]
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    play_round(game, "ann", gives={"cy": ["s5 ben", "slam ben"]}, shows={"ben": 40, "cy": 20})
    assert game.state.out == (1,) and game.state.results[0].eliminated == (1,)  # 50 reaches the threshold
    assert game.state.playing == (0, 2) and game.state.phase == "starter"


def test_array_game_last_standing() -> None:
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    play_round(game, "ann", gives={"cy": ["s5 ben", "slam ben"]}, shows={"ben": 40, "cy": 20})
    play_round(game, "ann", shows={"cy": 35})
    outcome = ARRAY.outcome(game.state)
    assert outcome.winners == ["ann"] and outcome.scores == {"ann": 0, "ben": 50, "cy": 55}
    assert outcome.reason == "ann is the last player below 50 (0 points)"
    assert outcome.details["ended"] == "last-standing" and outcome.details["eliminated"] == ["ben", "cy"]


def test_array_game_all_cross() -> None:
    # ann 30 and ben 44 after two rounds; in round 3 ben goes out but takes a SLAM (54) and ann scores 22 (52):
    # both crossed 50 in the same round, and ann has the lower total
    game = Game(("ann", "ben"), "table", threshold=50)
    play_round(game, "ann", gives={"ann": ["s5 ben"]}, shows={"ben": 44})
    play_round(game, "ben", shows={"ann": 30})
    play_round(game, "ben", gives={"ann": ["slam ben"]}, shows={"ann": 22})
    outcome = ARRAY.outcome(game.state)
    assert game.state.totals == (52, 54) and outcome.winners == ["ann"]
    assert outcome.details["ended"] == "all-crossed" and game.state.results[-1].eliminated == (0, 1)
    assert outcome.reason == "ann and ben all reached 50 in round 3; ann has the lowest total (52)"


def test_array_game_sudden_death() -> None:
    game = Game(("ann", "ben"), "table", threshold=50)
    play_round(game, "ann", gives={"ann": ["s5 ben"]}, shows={"ben": 44})
    play_round(game, "ben", shows={"ann": 30})
    play_round(game, "ben", gives={"ann": ["slam ben"]}, shows={"ann": 24})
    assert game.state.totals == (54, 54) and game.state.phase == "starter"
    assert game.state.sudden and game.state.playing == (0, 1) and game.state.round == 4
    assert game.state.results[-1].then == "sudden-death"
    assert ARRAY.view(game.state, None).sudden_death is True
    play_round(game, "ann", shows={"ben": 16})
    outcome = ARRAY.outcome(game.state)
    assert outcome.winners == ["ann"] and outcome.details["ended"] == "sudden-death"
    assert outcome.reason == "ann won the sudden-death round 4 against ben"
    # a sudden death is played only by the tied players: ann and ben tie on 60, cy has 64
    game = Game(("ann", "ben", "cy"), "table", threshold=50)
    play_round(game, "ann", gives={"ann": ["s5 ben"]}, shows={"ben": 40, "cy": 20})
    play_round(game, "ben", gives={"ben": ["s5 ann"]}, shows={"ann": 40, "cy": 24})
    play_round(game, "cy", gives={"ann": ["slam cy"], "ben": ["slam cy"]}, shows={"ann": 20, "ben": 20})
    assert game.state.totals == (60, 60, 64) and game.state.sudden and game.state.playing == (0, 1)
    game.do("start bgor")
    assert game.ruling("cy: draw").message == "it is ben's turn, not cy's (cy is eliminated)"


def test_array_game_hands() -> None:
    assert ARRAY.check_options({"hands": "0"}) == ["option hands='0': expected an integer >= 1"]
    game = Game(("ann", "ben", "cy"), "table", end="hands", hands=2)
    play_round(game, "ann", shows={"ben": 20, "cy": 30})
    assert game.state.phase == "starter"
    play_round(game, "cy", gives={"cy": ["s5 ann"]}, shows={"ann": 40, "ben": 25})
    outcome = ARRAY.outcome(game.state)
    assert game.state.totals == (40, 45, 30) and outcome.winners == ["cy"]
    assert outcome.reason == "after 2 hands, cy has the fewest points (30)" and outcome.details["ended"] == "hands"


def test_array_game_time() -> None:
    game = Game(("ann", "ben"), "table")
    assert game.ruling(TimeCalled()).message == "this table plays end=elimination: time is called only with end=time"
    game = Game(("ann", "ben"), "table", end="time")
    play_round(game, "ann", shows={"ben": 20})
    assert game.state.phase == "starter"  # no time called: the game goes on
    play_round(game, "ben", first=("time",), shows={"ann": 30})
    outcome = ARRAY.outcome(game.state)
    assert outcome.details["ended"] == "time" and outcome.winners == ["ben"] and game.state.totals == (30, 20)
    assert outcome.reason == "time was called in round 2; ben has the fewest points (20)"
    game = Game(("ann", "ben"), "table", end="time")
    game.do("start bgor", "time")
    assert game.ruling("time").message == "time was already called: round 1 is the last"
    assert ARRAY.permit(Game(("ann", "ben"), "table", end="time").state, TimeCalled()).rule == "array.game.time"


# ---------------------------------------------------------------------------- shared rules on Array logs


def test_core_void_last() -> None:
    game = documented_position()
    last = game.table.last_effective_seq
    assert game.table.permit(Voided(target=last, reason="misread")).rule == "core.void.last"
    game.do(Voided(target=last, reason="ben laid it on the other red"))
    assert game.state.player_name == "ben" and game.state.placed == ("br", "bor", "oy", "ry", "gr")


def test_core_void_dealt() -> None:
    game = open_game({"ann": ANN, "ben": BEN})
    ruling = game.table.check(Voided(target=2, reason="a bad shuffle"))[0]
    assert ruling.rule == "core.void.dealt"
    table = table_game(("ann", "ben"), "br")
    assert table.table.check(Voided(target=2, reason="it was brg")) == []  # a mistyped starting card


def test_core_void_nothing() -> None:
    game = Game(("ann", "ben"), "table")
    assert game.table.check(Voided(target=1, reason="x"))[0].rule == "core.void.nothing"


def test_core_void_last_only() -> None:
    game = documented_position()
    assert game.table.check(Voided(target=3, reason="x"))[0].rule == "core.void.last-only"


def test_core_void_reason() -> None:
    game = documented_position()
    assert game.table.check(Voided(target=game.table.last_effective_seq, reason=" "))[0].rule == "core.void.reason"


def test_core_log_one_start() -> None:
    game = documented_position()
    assert game.table.check(game.started)[0].rule == "core.log.one-start"


def test_core_note() -> None:
    game = documented_position()
    assert game.table.permit(Noted(text="ben asked about the slice")).rule == "core.note"


def test_core_note_player() -> None:
    game = documented_position()
    assert game.table.check(Noted(text="x", player="zed"))[0].rule == "core.note.player"


def test_array_round_blocked_is_narrated() -> None:
    # the replay tells what ended a round: the last card played, or every player passing
    game = _emptied()
    game.do(f"{game.state.player_name}: pass", f"{game.state.seats[(game.state.current + 1) % 4]}: pass")
    before = game.state
    game.do(f"{game.state.player_name}: pass")
    middle = game.state
    game.do(f"{game.state.player_name}: pass")
    assert ARRAY.narrate(middle, game.state) == ["every player passed: round 1 is blocked; the hands left are shown"]
    assert ARRAY.narrate(before, middle) == []
