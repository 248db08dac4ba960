"""One test per Splice rule id: each builds a real position by folding real events through `Table`, then
asserts the ruling on a violating event (rule id, verdict, message) and that a neighbouring legal event is
accepted (`Table.permit` names the rule that allows it). Rules that forbid nothing (what a Hurricane does,
a lost turn, the end of a game) are checked on the state and the outcome.

tests/core/test_game_contract.py keeps this file complete: a rule id of the game without a test named after it
here fails it.
"""

from __future__ import annotations

from support.splice_helpers import RICH, SMALL_MAPS, TINY, Game, open_game, setup_event, table_game
from tally.core.games.splice import (
    DEFAULT_BOX,
    SPLICE,
    BlindDrawn,
    CardPicked,
    CardsDealt,
    CardsDrawn,
    CoinsPlayed,
    DisksChosen,
    DisksDealt,
    MapsBought,
    PiracyPlayed,
    SetupDealt,
    deck_copies,
)
from tally.core.model import Voided

FIVE = ["5", "5", "2", "3", "4"]  # ann: a pair of 5s and the run 2-3-4
NINES = ["9", "9", "6", "7", "8"]  # ben: a pair of 9s and the run 6-7-8


def game_with(ann: list[str], ben: list[str], pile: list[str] = (), **options: object) -> Game:  # type: ignore[assignment]
    return open_game(hands=[ann, ben], pile=list(pile), **options)


def finish_turn(game: Game) -> None:
    """Make every owed draw (and nothing else) until a player is to start a turn or play."""
    for _ in range(20):
        if game.state.phase in ("start", "play", "over"):
            return
        game.do("draw")
    raise AssertionError(game.to_act())


def quiet_turn(game: Game) -> None:
    """The player to act draws from the Draw Pile and discards the card drawn."""
    who = game.state.player_name
    game.do(f"{who}: draw")
    drawn = game.state.fresh
    game.do(f"{who}: discard {drawn}")
    finish_turn(game)


# ---------------------------------------------------------------------------- setup


def test_splice_setup_disks_first():
    game = Game(mode="table")
    ruling = game.refuse(CardsDealt())
    assert ruling.rule == "splice.setup.disks-first"
    assert ruling.message == "choose the gemstone disks first (`disks`), then deal the cards"
    assert game.accept(DisksChosen()).rule == "splice.setup.disks-first"
    assert game.refuse(DisksChosen()).rule == "splice.setup.disks-first"
    assert game.state.unused.size == len(DEFAULT_BOX.colours) - 2
    # open mode: one disk each, every colour once
    game = Game()
    bad = setup_event(2, [FIVE, NINES], disks=["r", "r"])
    bad = SetupDealt(disks=["r", "r"], unused=["g", "y", "p"], maps=bad.maps, deck=bad.deck)
    assert game.refuse(bad).rule == "splice.setup.disks-first"
    good = setup_event(2, [FIVE, NINES], disks=["r", "b"])
    game.accept(good)
    assert [p.disk for p in game.state.players] == ["r", "b"] and game.state.unused.known == ("g", "y", "p")


def test_splice_setup_map_pile():
    game = Game()
    deal = setup_event(2, [FIVE, NINES])
    with_wild = SetupDealt(disks=deal.disks, unused=deal.unused, maps=deal.maps[:-1] + ["x1"], deck=deal.deck)
    ruling = game.refuse(with_wild)
    assert ruling.rule == "splice.setup.map-pile"
    assert ruling.message == "the Map Pile holds every regular map piece exactly once, and nothing else"
    game.accept(deal)
    assert game.state.map_pile[0].known == tuple(deal.maps) and len(deal.maps) == 20


def test_splice_setup_deal():
    game = Game()
    deal = setup_event(2, [FIVE, NINES])
    short = SetupDealt(disks=deal.disks, unused=deal.unused, maps=deal.maps, deck=deal.deck[:-1])
    assert game.refuse(short).rule == "splice.setup.deal"
    assert game.accept(deal).rule == "splice.setup.deal"
    assert game.hand("ann") == sorted(FIVE) and game.hand("ben") == sorted(NINES)
    copies = deck_copies(DEFAULT_BOX, 1)
    assert sum(copies.values()) == 62 and copies["hurricane"] == 1 and "x1" in copies and "r1" not in copies
    assert sum(s.size for s in game.state.pile) == 62 - 10
    assert game.refuse(deal).rule == "splice.setup.deal"  # once
    table = Game(mode="table")
    assert table.refuse(deal).rule == "splice.setup.deal"  # the table enters `disks` and `deal` instead
    assert game.refuse(CardsDealt()).rule == "splice.setup.deal"


def test_splice_setup_incomplete():
    game = Game(mode="table")
    game.do("disks")
    ruling = game.refuse("ann: draw")
    assert ruling.rule == "splice.setup.incomplete"
    assert ruling.message.startswith(
        "the setup is not complete: the table must shuffle the Map Pile and deal 5 cards each"
    )
    game.do("deal")
    assert game.state.phase == "start" and game.accept("ann: draw").rule == "splice.draw.first"


def test_splice_setup_first_player():
    game = game_with(FIVE, NINES)
    assert game.to_act()[0] == "ann" and game.state.current == 0
    quiet_turn(game)
    assert game.to_act()[0] == "ben"
    quiet_turn(game)
    assert game.to_act()[0] == "ann" and game.state.turns == 2


# ---------------------------------------------------------------------------- turns


def test_splice_turn_out_of_turn():
    game = game_with(FIVE, NINES)
    ruling = game.refuse("ben: draw")
    assert ruling.rule == "splice.turn.out-of-turn" and ruling.message == "it is ann's turn, not ben's"
    game.do("ann: draw")
    assert game.refuse("ben: play 9-9").rule == "splice.turn.out-of-turn"


def test_splice_turn_pending():
    game = game_with(FIVE, NINES)
    game.do("ann: draw", "ann: play 5-5")
    assert game.to_act() == ("ann", "ann must draw 1 card: the refill to 5 at the end of the turn")
    ruling = game.refuse("ben: draw")
    assert ruling.rule == "splice.turn.pending"
    assert ruling.message == "ann must draw 1 card first (the refill to 5 at the end of the turn)"
    game.accept("ann: draw")
    assert game.to_act()[0] == "ben"


def test_splice_turn_game_over():
    game = laid_map()
    assert game.state.phase == "over"
    ruling = game.refuse("ben: draw")
    assert ruling.rule == "splice.turn.game-over" and ruling.message == "the game is over: no more moves"


def test_splice_turn_one_play():
    game = game_with(["10", "10"] + FIVE[2:], NINES, pile=["1", "6", "7", "2", "3"])
    game.do("ann: draw", "ann: play 10-10", "ann: draw")
    quiet_turn(game)  # ben
    game.do("ann: draw", "ann: buy 1 pay 10-10")
    assert game.state.phase == "discard"  # 6 cards: the buy used no card from the hand
    ruling = game.refuse("ann: play 2-3-4")
    assert ruling.rule == "splice.turn.one-play"
    assert "ann has already made this turn's play" in ruling.message
    assert game.accept("ann: discard 2").rule == "splice.hand.discard"


def test_splice_turn_discard():
    game = game_with(FIVE, NINES)
    game.do("ann: draw")
    ruling = game.refuse("ann: discard 5 5")
    assert ruling.rule == "splice.turn.discard"
    assert ruling.message == "a turn without a play discards exactly one card, not 2"
    assert game.refuse("ann: discard 9").rule == "splice.turn.discard"  # not held
    assert game.accept("ann: discard 5").rule == "splice.turn.discard"
    assert game.state.pile[-1].known == ("5",) and game.to_act()[0] == "ben"


def tiny_table() -> Game:
    """TINY box (ten coin cards, no Draw Pile) in table mode: hands are played out until ben has no draw."""
    game = table_game(manifest=TINY)
    assert game.state.pile == ()
    game.do("ann: draw from ben", "ann: play 1-1 2-2")  # no refill, no replacement: the Draw Pile is empty
    game.do("ben: draw from ann", "ben: play 1-1 2-2")
    game.do("ann: draw from ben", "ann: play 3-3")
    return game


def test_splice_turn_pass():
    game = tiny_table()
    assert game.state.current == 1 and game.state.phase == "play" and game.seat("ben").hand.size == 0
    assert game.accept("ben: pass").rule == "splice.turn.pass"
    game = game_with(FIVE, NINES)
    game.do("ann: draw")
    ruling = game.refuse("ann: pass")
    assert ruling.rule == "splice.turn.pass"
    assert ruling.message == "ann holds 6 cards: a turn without a play discards one (`discard CARD`)"


def test_splice_play_in_hand():
    game = game_with(FIVE, NINES)
    game.do("ann: draw")
    ruling = game.refuse("ann: skull ben")
    assert ruling.rule == "splice.play.in-hand"
    assert ruling.message == "ann does not hold Skull (holds 5 5 2 3 4 1)"  # 1: the card drawn
    assert game.refuse("ann: play 6-6").rule == "splice.play.in-hand"
    # table mode: a card may be one of the unseen ones, unless every copy is placed elsewhere
    game = table_game()
    game.do("ann: draw", "ann: play 10-10", "ann: draw")
    game.do("ben: draw", "ben: play 10-10", "ben: draw")
    game.do("ann: draw")
    ruling = game.refuse("ann: play 10-w10")
    assert ruling.rule == "splice.play.in-hand" and "coin 10" in ruling.message


def test_splice_play_in_hand_says_how_many_copies_are_held():
    # issue 17: `play 9-9` holding one 9 said "does not hold coin 9"
    game = game_with(["9", "10", "3", "4", "5"], NINES)
    game.do("ann: draw")
    ruling = game.reject("ann: play 9-9", "splice.play.in-hand")
    assert ruling.message == "ann holds only 1 coin 9 and the play needs 2 (holds 9 10 3 4 5 1)"


def test_splice_play_in_hand_says_every_copy_is_located_elsewhere():
    # issue 17: a fifth 10 said "(holds 6 unseen cards)" when every 10 of the box lay in play
    game = table_game()
    game.do("ann: draw", "ann: play 10-10", "ann: draw")
    game.do("ben: draw", "ben: play 10-10", "ben: draw")
    game.do("ann: draw")
    ruling = game.reject("ann: play 10-w10", "splice.play.in-hand")
    assert (
        ruling.message
        == "ann cannot hold coin 10: all 4 copies of the box are located elsewhere (holds 6 unseen cards)"
    )


# ---------------------------------------------------------------------------- draws


def test_splice_draw_first():
    game = game_with(FIVE, NINES, pile=["7"])
    ruling = game.refuse("ann: play 5-5")
    assert (
        ruling.rule == "splice.draw.first" and ruling.message == "ann must draw first: every turn starts with one draw"
    )
    assert game.refuse("ann: discard 5").rule == "splice.draw.first"
    assert game.refuse(CardsDrawn(player="ann", cards=["7", "1"])).rule == "splice.draw.first"
    permit = game.accept("ann: draw")
    assert permit.rule == "splice.draw.first" and game.hand("ann") == sorted(FIVE + ["7"])
    ruling = game.refuse("ann: draw from ben")
    assert ruling.rule == "splice.draw.first" and "already drawn" in ruling.message


def test_splice_draw_empty_pile():
    game = table_game(manifest=TINY)
    ruling = game.refuse("ann: draw")
    assert ruling.rule == "splice.draw.empty-pile"
    assert ruling.message == "the Draw Pile is empty: ann draws blind from another player's hand"
    assert game.legal() == ["ann: draw from ben"]


def test_splice_draw_blind():
    game = game_with(FIVE, NINES)
    ruling = game.refuse("ann: draw from ann")
    assert ruling.rule == "splice.draw.blind" and ruling.message == "ann cannot draw blind from themselves"
    assert game.refuse(BlindDrawn(player="ann", source="ben", card="9")).rule == "splice.draw.blind"  # tally picks
    assert game.accept("ann: draw from ben").rule == "splice.draw.blind"
    assert game.state.phase == "pick" and game.to_act()[0] == "table"
    assert game.refuse(CardPicked(card="5")).rule == "splice.draw.blind"  # not in ben's hand
    game.do(CardPicked(card="9"))
    assert game.hand("ann") == sorted(FIVE + ["9"]) and game.hand("ben") == sorted(["9", "6", "7", "8"])
    tiny = tiny_table()
    assert tiny.seat("ann").hand.size == 0
    assert tiny.refuse("ben: draw from ann").rule in ("splice.draw.first", "splice.draw.blind")


def test_splice_draw_no_draw():
    game = tiny_table()
    # ann emptied her hand and the Draw Pile is empty: ben's turn goes on without a draw
    assert game.seat("ann").hand.size == 0 and game.state.pile == ()
    assert game.state.phase == "play" and game.state.fresh is None
    assert game.legal() == ["ben: pass"]


def test_splice_draw_top_card():
    game = game_with(FIVE, NINES, pile=["7", "8"])
    ruling = game.refuse("ann: draw 8")
    assert ruling.rule == "splice.draw.top-card" and ruling.message == "the top of the Draw Pile is 7, not 8"
    game.accept("ann: draw 7")
    # table mode: the Hurricane put at the bottom is known; it cannot be drawn from an unknown batch on top
    table = table_game(hurricanes=["ann"])
    table.do("reshuffle", "ann: draw")
    assert table.state.pile[-1].known == ("hurricane",)
    table.do("ben: draw")  # ann lost the first turn
    ruling = table.refuse("ben: discard hurricane")
    assert ruling.rule == "splice.turn.discard"
    table.do("ben: discard ?")
    ruling = table.refuse("ann: draw hurricane")
    assert ruling.rule == "splice.draw.top-card"
    assert ruling.message == "Hurricane cannot be the next card of the Draw Pile: every copy is placed elsewhere"


def test_splice_draw_owed():
    game = table_game()
    game.do("ann: draw", "ann: play 5-5 2-3-4")
    assert game.to_act() == ("ann", "ann must draw 4 cards: the refill to 5 at the end of the turn")
    ruling = game.refuse("ann: draw ? ?")
    assert ruling.rule == "splice.draw.owed"
    assert ruling.message == "ann owes 4 cards from the Draw Pile, not 2 (a draw stops only at a Hurricane)"
    assert game.refuse(CardsDrawn(player="ann", cards=[None] * 5)).rule == "splice.draw.owed"
    game.accept("ann: draw ? ? hurricane")  # stops at the Hurricane
    assert game.state.phase == "storm"


def test_splice_draw_replace():
    game = game_with(FIVE, NINES, pile=["7", "1"])
    game.do("ann: draw from ben", CardPicked(card="9"), "ann: play 5-5")
    assert game.hand("ben") == ["6", "7", "8", "9"]
    game.do("ann: draw 7")  # the refill: ann is back to 5
    assert game.to_act() == ("ben", "ben must draw 1 card: replacing the card ann drew blind")
    assert game.accept("ben: draw").rule == "splice.draw.replace"
    assert game.seat("ben").hand.size == 5 and game.to_act()[0] == "ben"


# ---------------------------------------------------------------------------- the end of the turn


def test_splice_hand_refill():
    game = game_with(FIVE, NINES, pile=["7", "1", "2"])
    game.do("ann: draw", "ann: play 5-5")
    ruling = game.refuse("ann: draw from ben")
    assert ruling.rule == "splice.hand.refill"
    assert ruling.message.endswith("cards owed are drawn from the Draw Pile, never blind")
    assert game.accept("ann: draw").rule == "splice.hand.refill"
    assert game.hand("ann") == ["1", "2", "3", "4", "7"]  # 5-5 played, then one card drawn: back to 5


def test_splice_hand_refill_not_playable():
    game = game_with(FIVE, NINES, pile=["7", "5", "5"])
    game.do("ann: draw", "ann: play 5-5")
    ruling = game.refuse("ann: play 2-3-4")
    assert ruling.rule == "splice.hand.refill-not-playable"
    assert ruling.message == "ann is refilling the hand at the end of the turn: those cards wait for the next turn"
    game.do("ann: draw")
    assert game.refuse("ann: play 5-5").rule == "splice.turn.out-of-turn"  # the turn is over


def test_splice_hand_discard():
    game = game_with(["10", "10"] + FIVE[2:], NINES, pile=["1", "6", "7", "2", "3"])
    game.do("ann: draw", "ann: play 10-10", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw", "ann: buy 1 pay 10-10")
    assert game.to_act() == ("ann", "ann must discard 1 card: the hand is over 5 at the end of the turn")
    ruling = game.refuse("ann: discard 2 3")
    assert ruling.rule == "splice.hand.discard"
    assert ruling.message == "ann holds 6 cards and discards exactly 1 to keep 5, not 2"
    assert game.refuse("ann: discard 9").rule == "splice.hand.discard"
    assert game.accept("ann: discard 2").rule == "splice.hand.discard"
    assert game.seat("ann").hand.size == 5


def test_splice_pile_bottom():
    game = game_with(["10", "10"] + FIVE[2:], NINES, pile=["1", "6", "7", "2", "3"])
    game.do("ann: draw", "ann: play 10-10", "ann: draw")
    quiet_turn(game)
    assert game.state.pile[-1].known == ("7",)  # ben's discard, at the bottom
    game.do("ann: draw", "ann: buy 1 pay 10-10", "ann: discard 2")
    assert [s.known for s in game.state.pile[-2:]] == [("10", "10"), ("2",)]  # spent coins, then the discard


# ---------------------------------------------------------------------------- coins


def test_splice_coins_sets():
    game = game_with(["5", "6", "2", "4", "8"], NINES)
    game.do("ann: draw")
    ruling = game.refuse(CoinsPlayed(player="ann", sets=["5-6"]))
    assert ruling.rule == "splice.coins.sets"
    assert ruling.message == "'5-6' is neither a pair (two of a value) nor a 3-card run of consecutive values"
    assert game.refuse(CoinsPlayed(player="ann", sets=["2-4-6"])).rule == "splice.coins.sets"
    assert game.refuse(CoinsPlayed(player="ann", sets=[])).rule == "splice.coins.sets"
    game = game_with(FIVE, NINES)
    game.do("ann: draw")
    assert game.accept("ann: play 5-5 2-3-4").rule == "splice.coins.sets"
    assert game.seat("ann").sets == ("5-5", "2-3-4") and game.view().players[0].gold == 19


def test_splice_coins_wild():
    game = game_with(["5", "wild", "wild", "2", "3"], NINES)
    game.do("ann: draw")
    ruling = game.refuse(CoinsPlayed(player="ann", sets=["w5-w5"]))
    assert ruling.rule == "splice.coins.wild"
    assert ruling.message == "'w5-w5' is all wild cards: a set holds at least one coin card"
    game.accept("ann: play w5-5 2-3-w4")
    assert game.seat("ann").sets == ("5-w5", "2-3-w4") and SPLICE.view(game.state, None).players[0].gold == 19


def test_splice_coins_double():
    game = game_with(["double", "double", "5", "5", "1"], NINES, pile=["7", "1", "2", "3"])
    game.do("ann: draw")
    assert game.accept("ann: play double").rule == "splice.coins.double"  # alone, no sets in play
    quiet_turn(game)
    game.do("ann: draw", "ann: play 5-5 double", "ann: draw")
    assert game.view().players[0].gold == 20  # two Doubles double once (double-stack=no)
    stacked = game_with(["double", "double", "5", "5", "1"], NINES, pile=["7", "1", "2", "3"], double_stack="yes")
    stacked.do("ann: draw", "ann: play 5-5 double double")
    assert stacked.view().players[0].gold == 40


# ---------------------------------------------------------------------------- special cards


def test_splice_special_target():
    game = game_with(["skull", "spot", "piracy", "1", "2"], NINES)
    game.do("ann: draw")
    ruling = game.refuse("ann: skull ann")
    assert ruling.rule == "splice.special.target" and ruling.message == "ann cannot play the Skull on themselves"
    assert game.refuse("ann: spot ann").rule == "splice.special.target"
    assert game.refuse("ann: piracy ann map").rule == "splice.special.target"
    game.permits("ann: skull ben")


def pirate_position() -> Game:
    """ben has 9-9 and 6-7-8 and a Double in play; ann holds Piracy."""
    game = game_with(
        ["piracy", "piracy", "1", "2", "3"],
        ["9", "9", "6", "7", "double"],
        pile=["1", "8", "4", "5", "6", "1", "2", "3"],
    )
    quiet_turn(game)  # ann
    game.do("ben: draw", "ben: play 9-9 6-7-8 double", "ben: draw")
    return game


def test_splice_piracy_plunder():
    game = pirate_position()
    game.do("ann: draw")
    ruling = game.refuse(PiracyPlayed(player="ann", target="ben", plunder="gold"))
    assert ruling.rule == "splice.piracy.plunder" and ruling.message.startswith(
        "Piracy takes one coin set, `double` or `map`"
    )
    assert game.accept("ann: piracy ben 9-9").rule == "splice.piracy.plunder"
    assert game.seat("ann").sets == ("9-9",) and game.seat("ben").sets == ("6-7-8",)


def test_splice_piracy_plunder_is_the_rule_at_stake_for_two_sets():
    # issue 17: two sets taken with one Piracy were refused as unreadable notation; they are read, then judged
    game = pirate_position()
    game.do("ann: draw")
    (event,) = game.events("ann: piracy ben 9-9 6-7-8")
    assert SPLICE.format(event) == "ann: piracy ben 9-9 6-7-8"
    ruling = game.reject(event, "splice.piracy.plunder")
    assert ruling.message == (
        "one Piracy takes exactly one thing (a coin set, a Double Your Gold card or a map piece), not 9-9 and 6-7-8"
    )
    assert game.reject("ann: piracy ben 9-9 double", "splice.piracy.plunder").facts == {"plunder": "9-9 double"}


def test_splice_piracy_nothing():
    game = pirate_position()
    game.do("ann: draw")
    ruling = game.refuse("ann: piracy ben 5-5")
    assert ruling.rule == "splice.piracy.nothing"
    assert ruling.message == "ben has no set 5-5 in play (sets in play: 9-9 6-7-8)"
    ruling = game.refuse("ann: piracy ben map")
    assert ruling.rule == "splice.piracy.nothing" and ruling.message == "ben has no map piece to take"
    game.permits("ann: piracy ben double")


def test_splice_piracy_laid():
    game = pirate_position()
    assert game.view().players[1].gold == 2 * (18 + 21)
    game.do("ann: draw", "ann: piracy ben double")
    players = game.view().players
    assert game.seat("ann").doubles == 1 and game.seat("ben").doubles == 0
    assert players[1].gold == 39  # ben's sets lose the doubling with their last Double
    assert game.state.pile[-1].known == ("piracy",)
    finish_turn(game)
    game.do("ben: draw")
    # a taken set counts with the pirate's own, doubled by the Double the pirate took
    game = pirate_position()
    game.do("ann: draw", "ann: piracy ben double")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw", "ann: piracy ben 9-9")
    assert game.view().players[0].gold == 36


def test_splice_skull_redraw():
    game = game_with(["skull", "1", "2", "3", "4"], NINES, pile=["5", "6", "7", "8", "10", "1", "2"])
    game.do("ann: draw")
    assert game.accept("ann: skull ben").rule == "splice.skull.redraw"
    assert game.seat("ben").hand.size == 0 and game.state.pile[-1].known == tuple(NINES)
    assert game.to_act() == ("ben", "ben must draw 5 cards: a new hand after the Skull")
    assert game.accept("ben: draw").rule == "splice.skull.redraw"
    assert game.hand("ben") == ["1", "10", "6", "7", "8"]  # the top 5, after ann's draw of 5
    assert game.state.pile[-1].known == ("skull",)  # once the redraw is done
    assert game.to_act()[0] == "ben" and game.state.phase == "start"


def trade_position(**options: object) -> Game:
    game = game_with(["trade", "trade", "1", "2", "3"], NINES, disks=["r", "b"], pile=["4", "5", "6", "7"], **options)
    game.do("ann: draw")
    return game


def test_splice_trade_swap():
    game = trade_position()
    ruling = game.refuse("ann: trade b with unused")
    assert ruling.rule == "splice.trade.swap"
    assert ruling.message == "the blue disk is ben's, so the trade is with ben"
    assert game.accept("ann: trade blue").rule == "splice.trade.swap"
    assert [p.disk for p in game.state.players] == ["b", "r"]
    game = trade_position()
    game.accept("ann: trade yellow")
    assert game.seat("ann").disk == "y" and "r" in game.state.unused.known and "y" not in game.state.unused.known
    # table mode: who held it must still be possible
    table = table_game()
    table.do("ann: draw", "ann: trade red with ben")
    table.do("ben: draw")
    ruling = table.refuse("ben: trade red with unused")
    assert ruling.rule == "splice.trade.swap"
    assert ruling.message == "the red disk cannot be in the unused pile: the log has placed it elsewhere"


def test_splice_trade_own_colour():
    game = trade_position()
    ruling = game.refuse("ann: trade red")
    assert ruling.rule == "splice.trade.own-colour" and ruling.message == "ann already holds the red disk"


def test_splice_spot_skip():
    game = game_with(["spot", "1", "2", "3", "4"], NINES, pile=["5", "6", "7", "8"])
    game.do("ann: draw")
    assert game.accept("ann: spot ben").rule == "splice.spot.skip"
    # ann holds 5 again: her turn is over, and ben's is lost at once
    assert game.to_act()[0] == "ann" and game.state.turns == 2 and game.state.phase == "start"
    assert game.state.pile[-1].known == ("spot",) and game.seat("ben").spots == 0
    three = open_game(
        ("ann", "ben", "cy"), hands=[["spot", "1", "2", "3", "4"], NINES, FIVE], pile=["5", "6", "7", "8"]
    )
    three.do("ann: draw", "ann: spot cy")
    assert three.to_act()[0] == "ben" and three.view().players[2].loses_next_turn is True
    quiet_turn(three)
    assert three.to_act()[0] == "ann" and three.seat("cy").spots == 0


# ---------------------------------------------------------------------------- hurricanes


def test_splice_hurricane_count():
    assert deck_copies(DEFAULT_BOX, 1)["hurricane"] == 1 and DEFAULT_BOX.copies["hurricane"] == 2
    game = Game(hurricanes=2)
    assert game.state.copies["hurricane"] == 2
    assert sum(Game().state.copies.values()) + 1 == sum(game.state.copies.values())


def test_splice_hurricane_immediate():
    game = table_game()
    game.do("ann: draw hurricane")
    assert game.state.phase == "storm" and game.to_act()[0] == "table"
    ruling = game.refuse("ben: draw")
    assert ruling.rule == "splice.hurricane.immediate"
    assert ruling.message == (
        "a Hurricane (drawn at the start of the turn) lies in the centre: the gemstone disks must "
        "be shuffled and drawn again before anything else"
    )
    assert game.refuse("ann: play 5-5").rule == "splice.hurricane.immediate"
    table = table_game()
    table.do("ann: draw", "ann: play 5-5 2-3-4")
    ruling = table.refuse(CardsDrawn(player="ann", cards=["hurricane", None, None, None]))
    assert ruling.rule == "splice.hurricane.immediate"


def test_splice_hurricane_reshuffle():
    game = game_with(FIVE, NINES, pile=["hurricane", "7"], disks=["r", "b"])
    assert game.refuse(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"])).rule == "splice.hurricane.reshuffle"
    game.do("ann: draw")
    assert game.state.centre == 1 and game.view().hurricanes.in_centre == 1
    assert game.refuse(DisksDealt(disks=["g", "g"], unused=["r", "b", "p"])).rule == "splice.hurricane.reshuffle"
    assert game.accept(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"])).rule == "splice.hurricane.reshuffle"
    assert [p.disk for p in game.state.players] == ["g", "y"] and game.state.pile[-1].known == ("hurricane",)
    table = table_game()
    assert table.refuse("reshuffle").rule == "splice.hurricane.reshuffle"


def test_splice_hurricane_start():
    game = game_with(FIVE, NINES, pile=["hurricane", "7"])
    assert game.permits("ann: draw").rule == "splice.hurricane.start"
    game.do("ann: draw")
    assert (
        game.view().pending.why
        == "Hurricane: ann drew the Hurricane at the start of the turn; then ann has lost the turn"
    )
    game.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]))
    assert game.to_act()[0] == "ben" and game.state.phase == "start"
    assert game.hand("ann") == sorted(FIVE) and game.state.turns == 1  # no play, no refill


def test_splice_hurricane_refill():
    game = game_with(FIVE, NINES, pile=["7", "1", "hurricane", "8", "10", "6", "6"])
    game.do("ann: draw", "ann: play 5-5 2-3-4")
    assert game.to_act() == ("ann", "ann must draw 4 cards: the refill to 5 at the end of the turn")
    assert game.permits("ann: draw").rule == "splice.hurricane.refill"
    game.do("ann: draw")  # 1, then the Hurricane: the draw stops
    assert game.hand("ann") == ["1", "7"] and game.state.storm == "refill"
    game.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]))
    assert game.to_act() == ("ann", "ann must draw 3 cards: the refill to 5 at the end of the turn")
    game.do("ann: draw")
    assert game.hand("ann") == ["1", "10", "6", "7", "8"] and game.to_act()[0] == "ben"  # no turn lost


def test_splice_hurricane_skull():
    game = game_with(["skull", "1", "2", "3", "4"], NINES, pile=["5", "6", "hurricane", "7", "8", "10", "1", "2"])
    game.do("ann: draw", "ann: skull ben")
    assert game.permits("ben: draw").rule == "splice.hurricane.skull"
    game.do("ben: draw")
    assert game.state.storm == "skull" and game.seat("ben").hand.size == 1
    game.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]))
    assert game.to_act() == ("ben", "ben must draw 4 cards: a new hand after the Skull")
    game.do("ben: draw")
    assert game.seat("ben").hand.size == 5 and game.state.pile[-1].known == ("skull",)
    assert game.to_act()[0] == "ben" and game.state.phase == "start"  # ben is next and loses nothing


def test_splice_hurricane_deal():
    game = game_with(["hurricane", "1", "2", "3", "4"], NINES, pile=["5", "6"])
    assert game.state.phase == "storm" and game.view().pending.why == (
        "Hurricane: ann was dealt the Hurricane; then each player dealt a Hurricane draws a replacement; ann loses the first turn"
    )
    game.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]))
    assert game.permits("ann: draw").rule == "splice.hurricane.deal"
    game.do("ann: draw")
    assert game.hand("ann") == ["1", "2", "3", "4", "5"] and game.to_act()[0] == "ben"  # ann lost the first turn
    assert game.state.turns == 1
    second = game_with(FIVE, ["hurricane", "9", "6", "7", "8"], pile=["5", "6"])
    second.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]), "ben: draw")
    assert second.to_act()[0] == "ann" and second.state.turns == 0


def test_splice_hurricane_replacement():
    game = game_with(FIVE, NINES, pile=["7", "hurricane", "1", "2"])
    game.do("ann: draw from ben", CardPicked(card="9"), "ann: play 5-5", "ann: draw")
    assert game.to_act() == ("ben", "ben must draw 1 card: replacing the card ann drew blind")
    assert game.permits("ben: draw").rule == "splice.hurricane.replacement"
    game.do("ben: draw")
    assert game.seat("ben").forfeit  # ben was next to play
    assert game.view().pending.why.endswith("then ben draws again and, being next to play, forfeits that turn")
    game.do(DisksDealt(disks=["g", "y"], unused=["r", "b", "p"]), "ben: draw")
    assert game.seat("ben").hand.size == 5 and game.to_act()[0] == "ann" and game.state.turns == 2
    # three players: cy, not next, merely replaces the card; play goes on to ben, after ann
    game = open_game(
        ("ann", "ben", "cy"), hands=[FIVE, NINES, ["1", "1", "2", "2", "3"]], pile=["7", "hurricane", "1", "2"]
    )
    game.do("ann: draw from cy", CardPicked(card="1"), "ann: play 5-5", "ann: draw")
    game.do("cy: draw", DisksDealt(disks=["g", "y", "r"], unused=["b", "p"]), "cy: draw")
    assert not game.seat("cy").forfeit and game.to_act()[0] == "ben" and game.seat("cy").hand.size == 5


# ---------------------------------------------------------------------------- buying map pieces


def buyer(**options: object) -> Game:
    """ann has 10-10 and 5-5 in play (30 gold) and a Double in hand; it is her turn, after the draw."""
    game = game_with(
        ["10", "10", "5", "5", "double"], NINES, pile=["1", "2", "3", "4", "6", "7", "8"], maps=["r1", "r2"], **options
    )
    game.do("ann: draw", "ann: play 10-10 5-5", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw")
    return game


def test_splice_buy_price():
    game = buyer()
    ruling = game.refuse("ann: buy 1 pay 5-5")
    assert ruling.rule == "splice.buy.price"
    assert ruling.message == "ann pays 10 gold for 1 map piece: the price is 20 (20 each)"
    assert game.refuse("ann: buy 2 pay 10-10 5-5").rule == "splice.buy.price"
    assert game.accept("ann: buy 1 pay 10-10").rule == "splice.buy.price"
    assert game.pieces("ann") == ["r1"] and game.seat("ann").sets == ("5-5",)


def test_splice_buy_whole_sets():
    game = buyer()
    ruling = game.refuse("ann: buy 1 pay 10-10 5-5")
    assert ruling.rule == "splice.buy.whole-sets"
    assert ruling.message == "no change is given: 5-5 is not needed (30 gold paid for a price of 20)"
    game.do("ann: play double")
    quiet_turn(game)
    game.do("ann: draw")
    ruling = game.refuse("ann: buy 1 pay 10-10 double")
    assert ruling.rule == "splice.buy.whole-sets"
    assert ruling.message == "no change is given: a Double Your Gold card is not needed for a price of 20"
    game.accept("ann: buy 2 pay 10-10 double")  # 40 gold: the Double is needed, and spent
    assert game.seat("ann").doubles == 0 and game.state.pile[-1].known == ("10", "10", "double")


def test_splice_buy_whole_sets_is_the_rule_at_stake_for_part_of_a_set_in_play():
    # issue 17: `buy 1 pay 9-10` while 8-9-10 is in play cited the coin-set rule
    game = game_with(["8", "9", "10", "5", "5"], NINES, pile=["1", "2", "3", "4", "6", "7"])
    game.do("ann: draw", "ann: play 8-9-10 5-5", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw")
    ruling = game.reject("ann: buy 1 pay 9-10", "splice.buy.whole-sets")
    assert ruling.message == "9-10 is part of ann's set 8-9-10 in play: payment is in entire sets, never part of one"
    assert game.accept("ann: buy 1 pay 8-9-10").rule == "splice.buy.price"


def test_splice_buy_price_hints_at_naming_a_double_in_play():
    # issue 17: a buy short because the Double in play was not named did not say so
    game = game_with(["5", "5", "double", "2", "3"], NINES, pile=["1", "4", "6", "7", "8", "10"])
    game.do("ann: draw", "ann: play 5-5 double", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw")
    ruling = game.reject("ann: buy 1 pay 5-5", "splice.buy.price")
    assert ruling.message == (
        "ann pays 10 gold for 1 map piece: the price is 20 (20 each); name the Double Your Gold card "
        "in play to double the sets paid (`buy 1 pay 5-5 double`)"
    )
    assert game.accept("ann: buy 1 pay 5-5 double").rule == "splice.buy.price"


def test_splice_buy_earlier_turn():
    game = buyer()
    ruling = game.refuse(MapsBought(player="ann", count=1, paid=["9-9"], pieces=["r1"]))
    assert ruling.rule == "splice.buy.earlier-turn"
    assert (
        ruling.message
        == "9-9 is not among ann's coin sets in play (10-10 5-5): sets are laid down on one turn and spent on a later one"
    )
    assert (
        game.refuse(MapsBought(player="ann", count=1, paid=["5-5"], doubles=1, pieces=["r1"])).rule
        == "splice.buy.earlier-turn"
    )


def test_splice_buy_map_pile():
    game = buyer()
    ruling = game.refuse("ann: buy 1 pay 10-10 as b3")
    assert ruling.rule == "splice.buy.map-pile" and ruling.message == "the top of the Map Pile is r1, not b3"
    game.accept("ann: buy 1 pay 10-10")
    rich = rich_buyer()
    assert rich.state.map_pile and sum(s.size for s in rich.state.map_pile) == 20
    ruling = rich.refuse(MapsBought(player="ann", count=21, paid=["50-50", "50-50"], pieces=[None] * 21))
    assert ruling.rule == "splice.buy.map-pile" and ruling.message == "the Map Pile holds 20 pieces: ann cannot buy 21"


def rich_buyer(maps: list[str] = (), manifest: object = RICH, **options: object) -> Game:  # type: ignore[assignment]
    """RICH box: ann has 50-50 twice in play (200 gold); her turn, after the draw."""
    game = open_game(
        hands=[["50", "50", "50", "50", "1"], NINES],
        pile=["1", "2", "3", "4", "6", "7", "8", "10", "10", "10"],
        maps=maps,
        manifest=manifest,
        **options,
    )
    game.do("ann: draw", "ann: play 50-50 50-50", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw")
    return game


def test_splice_maps_limit():
    game = rich_buyer(maps=["r1", "r2", "r3", "b1", "b2", "b3", "g1"])
    game.do("ann: buy 5 pay 50-50")
    assert game.state.phase == "discard"  # the draw left 6 cards
    game.do("ann: discard 1")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw", "ann: buy 2 pay 50-50")
    assert game.state.phase == "maps" and game.to_act() == (
        "ann",
        "ann must return 2 map pieces: more than 5 map pieces",
    )
    assert game.accept("ann: return b3 g1").rule == "splice.maps.limit"
    assert game.pieces("ann") == ["b1", "b2", "r1", "r2", "r3"]
    assert game.state.map_pile[-1].known == ("b3", "g1")


def test_splice_maps_return():
    game = rich_buyer(maps=["r1", "r2", "r3", "b1", "b2", "b3", "g1"])
    game.do("ann: buy 5 pay 50-50", "ann: discard 1")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw", "ann: buy 2 pay 50-50")
    ruling = game.refuse("ann: return b3")
    assert ruling.rule == "splice.maps.return"
    assert ruling.message == "ann holds 7 map pieces and returns exactly 2, not 1"
    assert game.refuse("ann: return b3 y4").rule == "splice.maps.return"
    game.accept("ann: return b3 r1")


def test_splice_maps_return_is_the_rule_at_stake_when_nothing_is_pending():
    # issue 17: five map pieces and a return instead of a buy got the generic pending rule and "to play coin sets"
    game = rich_buyer(maps=["r1", "r2", "r3", "b1", "b2"])
    game.do("ann: buy 5 pay 50-50", "ann: discard 1")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw")
    assert game.state.phase == "play" and game.seat("ann").maps.size == 5
    ruling = game.reject("ann: return r1", "splice.maps.return")
    assert ruling.message == (
        "ann holds 5 map pieces, no more than 5: only pieces over 5 are returned, after a purchase or Piracy"
    )
    assert "to play coin sets" not in ruling.message
    ruling = game.reject("ann: reveal red r1", "splice.end.reveal")
    assert (
        ruling.message == "ann shows disk and map pieces only when a game ends without a map under no-map=most-matching"
    )


def test_splice_maps_wild_in_hand():
    game = game_with(FIVE, NINES, pile=["x3", "1"])
    game.do("ann: draw")
    assert "x3" in game.hand("ann") and game.seat("ann").maps.size == 0
    assert game.seat("ann").hand.size == 6
    game.do("ann: discard x3")  # a card like any other
    assert game.state.pile[-1].known == ("x3",)


# ---------------------------------------------------------------------------- laying down a map


def map_holder(**options: object) -> Game:
    """RICH box: ann (disk r) holds r1 r2 r4 and the wild x3 in hand; it is her turn, after drawing 7."""
    game = open_game(
        hands=[["50", "50", "x3", "1", "2"], NINES],
        pile=["1", "2", "3", "4", "6", "7", "8", "10", "10", "10"],
        maps=["r1", "r2", "r4", "b1"],
        disks=["r", "b"],
        manifest=RICH,
        **options,
    )
    game.do("ann: draw", "ann: play 50-50", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw", "ann: buy 3 pay 50-50", "ann: discard 1")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw")
    assert game.pieces("ann") == ["r1", "r2", "r4"] and "x3" in game.hand("ann")
    return game


def laid_map() -> Game:
    game = map_holder()
    game.do("ann: lay r1 r2 x3 r4")
    return game


def test_splice_map_complete():
    game = map_holder()
    ruling = game.refuse("ann: lay r1 r2 r4")
    assert ruling.rule == "splice.map.complete"
    assert ruling.message == "a completed map is 4 pieces, one per position; ann laid r1 r2 r4"
    assert game.refuse("ann: lay r1 r2 b3 r4").rule == "splice.map.complete"
    assert game.refuse("ann: lay r1 r2 r1 r4").rule == "splice.map.complete"


def test_splice_map_wild():
    game = map_holder()
    ruling = game.refuse("ann: lay r1 x2 x3 x4")
    assert ruling.rule == "splice.map.wild"
    assert ruling.message == "r1 x2 x3 x4 holds 3 wild pieces; a map holds at most 2"
    ruling = game.refuse("ann: lay r1 r2 x2 r4")
    assert ruling.rule == "splice.map.wild" and "a wild piece fits only its own position" in ruling.message


def test_splice_map_held():
    game = map_holder()
    ruling = game.refuse("ann: lay r1 r2 r3 r4")
    assert ruling.rule == "splice.map.held" and ruling.message == "r3 is not among ann's map pieces"
    ruling = game.refuse("ann: lay r1 x2 x3 r4")
    assert ruling.rule == "splice.map.held" and ruling.message == "ann does not hold wild map piece 2 in hand"


def test_splice_map_disk():
    blue = open_game(
        hands=[["50", "50", "x3", "1", "2"], NINES],
        pile=["1", "2", "3", "4", "6", "7", "8", "10", "10", "10"],
        maps=["r1", "r2", "r4", "b1"],
        disks=["b", "r"],
        manifest=RICH,
    )
    blue.do("ann: draw", "ann: play 50-50", "ann: draw")
    quiet_turn(blue)
    blue.do("ann: draw", "ann: buy 3 pay 50-50", "ann: discard 1")
    finish_turn(blue)
    quiet_turn(blue)
    blue.do("ann: draw")
    ruling = blue.refuse("ann: lay r1 r2 x3 r4")
    assert ruling.rule == "splice.map.disk" and ruling.message == "ann's disk is blue, not red"


def test_splice_map_next_turn():
    game = open_game(
        hands=[["50", "50", "1", "1", "2"], NINES],
        pile=["2", "3", "4", "6", "7", "x3", "8", "10"],
        maps=["r1", "r2", "r4", "b1"],
        disks=["r", "b"],
        manifest=RICH,
    )
    game.do("ann: draw", "ann: play 50-50", "ann: draw")
    quiet_turn(game)
    game.do("ann: draw", "ann: buy 3 pay 50-50", "ann: discard 1")
    finish_turn(game)
    quiet_turn(game)
    game.do("ann: draw")  # x3: drawn this turn
    assert game.state.fresh == "x3"
    ruling = game.refuse("ann: lay r1 r2 x3 r4")
    assert ruling.rule == "splice.map.next-turn"
    assert (
        ruling.message
        == "wild map piece 3 was drawn at the start of this turn: the map was completed this turn and waits for the next"
    )
    assert "ann: lay r1 r2 x3 r4" not in game.legal()
    # table mode: the card drawn was not seen, so the log cannot tell
    table = table_game(("ann", "ben"), manifest=RICH)
    table.do("ann: draw", "ann: play 50-50", "ann: draw")
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw", "ann: buy 3 pay 50-50 as r1 r2 r4", "ann: discard ?")
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw")
    note = table.doubtful("ann: lay r1 r2 x3 r4")
    assert note.rule == "splice.map.next-turn" and note.verdict == "unverifiable"
    assert table.state.phase == "over"


def map_holder_at_the_table(wild_pieces: dict[str, int] | None = None) -> Game:
    """Table mode, RICH box: ann bought r1 r2 r4 and it is her turn again, before the draw."""
    manifest = RICH if wild_pieces is None else {**RICH, "wild_pieces": wild_pieces}
    table = table_game(("ann", "ben"), manifest=manifest)
    table.do("ann: draw", "ann: play 50-50", "ann: draw")
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw", "ann: buy 3 pay 50-50 as r1 r2 r4", "ann: discard ?")
    table.do("ben: draw", "ben: discard ?")
    return table


def test_splice_map_next_turn_judges_a_piece_named_by_this_turns_draw_from_the_box():
    # issue 17: the box holds one x3 and ann drew it this turn, so no copy was held before: illegal, as in open mode
    table = map_holder_at_the_table()
    table.do("ann: draw x3")
    ruling = table.reject("ann: lay r1 r2 x3 r4", "splice.map.next-turn")
    assert ruling.verdict == "illegal"
    assert ruling.message == (
        "wild map piece 3 was drawn at the start of this turn and the box holds only that one: "
        "the map was completed this turn and waits for the next"
    )
    # with two x3 in the box the other may have been held before: the log cannot tell
    table = map_holder_at_the_table({"1": 1, "2": 1, "3": 2, "4": 1})
    table.do("ann: draw x3")
    note = table.doubtful("ann: lay r1 r2 x3 r4")
    assert (
        note.message
        == "ann holds wild map piece 3 drawn this turn; the log cannot tell whether another copy was held before"
    )


def test_splice_map_next_turn_all_unseen_cards_in_the_map_include_this_turns_draw():
    # table mode, the draw unseen: when every card the log has not seen is a wild piece of the map, one of them
    # is the card drawn this turn, whatever the others are
    table = table_game(("ann", "ben"), manifest=RICH, hand_size=3)
    table.do("ann: draw", "ann: play 50-50 50-50", "ann: draw 1 2 6")
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw", "ann: buy 3 pay 50-50 as r1 r4 b1", "ann: discard 1")
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw")
    assert table.seat("ann").hand.unknown == 2 and table.state.fresh == "?"
    ruling = table.reject("ann: lay r1 x2 x3 r4", "splice.map.next-turn")
    assert ruling.message == (
        "ann's 2 cards the log has not seen are all pieces of this map, so one of them is the card "
        "drawn at the start of this turn: the map waits for the next turn"
    )
    table.do("ann: discard 2")  # one unseen card may now have been held before: the log cannot tell
    table.do("ben: draw", "ben: discard ?")
    table.do("ann: draw")
    assert table.doubtful("ann: lay r1 x2 x3 r4").rule == "splice.map.next-turn"


def test_splice_map_win():
    game = map_holder()
    permit = game.accept("ann: lay r1 r2 x3 r4")
    assert permit.rule == "splice.map.win"
    outcome = SPLICE.outcome(game.state)
    assert outcome.winners == ["ann"] and outcome.scores == {"ann": 1, "ben": 0}
    assert outcome.reason == "ann laid down a completed red map"


# ---------------------------------------------------------------------------- the end without a map


def small_maps_race(**options: object) -> Game:
    """SMALL_MAPS (8 map pieces): ann buys 5, ben buys 3, and the Map Pile is empty at the end of ben's turn."""
    game = open_game(
        hands=[["50", "50", "1", "2", "3"], ["50", "50", "1", "2", "3"]],
        pile=["4", "5", "6", "7", "8", "9", "10", "1", "2", "3", "4", "5"],
        manifest=SMALL_MAPS,
        **options,
    )
    game.do("ann: draw", "ann: play 50-50", "ann: draw")
    game.do("ben: draw", "ben: play 50-50", "ben: draw")
    game.do("ann: draw", "ann: buy 5 pay 50-50", f"ann: discard {game.hand('ann')[0]}")
    assert game.state.end_seat == -1 and sum(s.size for s in game.state.map_pile) == 3
    game.do("ben: draw", "ben: buy 3 pay 50-50", f"ben: discard {game.hand('ben')[0]}")
    assert game.state.map_pile == ()
    return game


def test_splice_end_all_bought():
    game = small_maps_race()
    assert game.state.end_seat == 1 and game.view().final_round and game.to_act()[0] == "ann"
    quiet_turn(game)  # ann's last turn: the round is finished
    assert game.state.phase == "over" and game.state.ended == "all-bought"
    outcome = SPLICE.outcome(game.state)
    assert outcome.winners == [] and outcome.reason == "every map piece was bought and nobody laid down a map: a draw"
    # under play-on the game goes on
    on = small_maps_race(all_bought="play-on")
    quiet_turn(on)
    assert on.state.phase == "start" and on.state.end_seat == -1 and on.to_act()[0] == "ben"


def test_splice_end_stalled():
    game = game_with(FIVE, NINES, pile=["1", "2", "3", "4"], stall_rounds=1)
    quiet_turn(game)
    assert game.state.phase == "start"
    quiet_turn(game)
    assert game.state.phase == "over" and game.state.ended == "stalled"
    outcome = SPLICE.outcome(game.state)
    assert (
        outcome.winners == []
        and outcome.reason == "the game stalled: 1 rounds without a map piece bought or taken: a draw"
    )
    never = game_with(FIVE, NINES, pile=["1", "2", "3", "4", "6", "7"], stall_rounds=0)
    for _ in range(3):
        quiet_turn(never)
    assert never.state.phase == "start"


def test_splice_end_no_map():
    game = rich_buyer(maps=["r1", "r2", "b1"], stall_rounds=2, no_map="most-matching")  # ann's disk: r
    game.do("ann: buy 3 pay 50-50", "ann: discard 1")
    finish_turn(game)
    for _ in range(4):  # two full rounds without a map piece bought or taken
        quiet_turn(game)
    assert game.state.phase == "over" and game.state.ended == "stalled"
    outcome = SPLICE.outcome(game.state)
    assert outcome.winners == ["ann"] and outcome.scores == {"ann": 2, "ben": 0}
    assert outcome.reason.endswith("ann holds the most map pieces of their own colour (2)")


def test_splice_end_reveal():
    game = table_game(stall_rounds=1, no_map="most-matching")
    game.do("ann: draw", "ann: discard ?", "ben: draw", "ben: discard ?")
    assert game.state.phase == "reveal" and game.to_act()[0] == "ann"
    ruling = game.refuse("ann: reveal red r1")
    assert ruling.rule == "splice.end.reveal" and ruling.message == "ann holds 0 map pieces: show all of them"
    assert game.accept("ann: reveal red").rule == "splice.end.reveal"
    assert game.refuse("ben: reveal red").rule == "splice.end.reveal"  # the red disk is ann's
    game.accept("ben: reveal blue")
    assert game.state.phase == "over" and SPLICE.outcome(game.state).winners == []


# ---------------------------------------------------------------------------- chance cannot be undone


def test_core_void_dealt_for_splice_chance():
    game = game_with(FIVE, NINES)
    ruling = game.refuse(Voided(target=2, reason="misdealt"))
    assert ruling.rule == "core.void.dealt"
    game.do("ann: draw from ben")
    game.do(CardPicked(card="9"))
    assert game.refuse(Voided(target=game.table.last_seq, reason="no")).rule == "core.void.dealt"
    table = table_game()
    table.accept(Voided(target=3, reason="the deal was entered twice"))
    assert table.state.stage == "dealing"
