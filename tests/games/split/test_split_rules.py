"""One test per Split rule id: each builds a real position by folding real events through `Table`, then
asserts the ruling on a violating event (rule id, verdict, message) and that a neighbouring legal event is
accepted (`Table.permit` names the rule that allows it). Rules that forbid nothing (how a take, an upgrade,
a round's end work) are checked on the state, the pad and the outcome.

tests/core/test_game_contract.py keeps this file complete: a rule id of the game without a test named after it
here fails it.
"""

from __future__ import annotations

from support.split_helpers import ANN, BEN, Game, deal_table, out_on_first_turn, small, standard
from tally.core.games.split import SPLIT, CardDiscarded, MatchPlayed, RoundDealt, pad_total

# ---------------------------------------------------------------------------- setup


def test_split_setup_deal():
    game = Game()
    cards = list(game.state.deck.cards)
    missing = RoundDealt(row=cards[18], hands={"ann": cards[:9]}, pile=cards[19:])
    ruling = game.reject(missing, "split.setup.deal")
    assert "names every hand and the whole pile" in ruling.message
    short = RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:17]}, pile=cards[19:])
    assert "must be the 9 cards dealt, not 8" in game.reject(short, "split.setup.deal").message
    stranger = RoundDealt(row=cards[18], hands={"ann": cards[:9], "zed": cards[9:18]}, pile=cards[19:])
    assert "'zed', who is not at this table" in game.reject(stranger, "split.setup.deal").message
    permit = game.accept(RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:18]}, pile=cards[19:]))
    assert permit.rule == "split.setup.deal" and permit.message == "the deal of round 1 is recorded"
    state = game.state
    assert [p.hand.size for p in state.players] == [9, 9] and state.row == (cards[18],)
    assert state.pile_size == 104 - 18 - 1 == len(state.pile) and game.view().reference == 4
    # table mode: the pile is face down, so a deal cannot name it
    table = Game(mode="table")
    table.reject(RoundDealt(row="7HL", pile=["7HR"]), "split.setup.deal")
    deal_table(table, "QSR", ann=ANN)
    assert table.seat("ann").hand.known == tuple(ANN) and table.seat("ben").hand.unknown == 9
    assert table.state.pile_size == 85 and table.state.pile == ()


def test_split_setup_dealer():
    game = standard()
    assert game.view().dealer == "ben" and game.to_act()[0] == "ann"
    three = Game(seats=("ann", "ben", "cy")).deal()
    assert three.view().dealer == "cy" and three.to_act() == (
        "ann",
        "ann to draw from the pile or take from the discard row",
    )


def test_split_setup_incomplete():
    game = Game()
    ruling = game.reject("draw", "split.setup.incomplete")
    assert ruling.message == "round 1 is not dealt yet: tally must deal round 1 (ben deals)"
    assert Game(mode="table").reject("ben: discard 7HL", "split.setup.incomplete")


def test_split_deal_not_expected():
    game = standard()
    cards = list(game.state.deck.cards)
    ruling = game.reject(
        RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:18]}, pile=cards[19:]),
        "split.deal.not-expected",
    )
    assert ruling.message.startswith("no round is waiting to be dealt")
    table = deal_table(Game(mode="table"), "7HL")
    table.reject("deal 7HR", "split.deal.not-expected")


# ---------------------------------------------------------------------------- turns


def test_split_turn_order():
    game = standard()
    game.do("draw", "discard 8HL")
    assert game.to_act()[0] == "ben" and game.view().turn == 2
    game.do("ben: draw", "ben: discard 4HL")
    assert game.to_act()[0] == "ann" and game.state.turns == 2


def test_split_turn_out_of_turn():
    game = standard()
    ruling = game.reject("ben: draw", "split.turn.out-of-turn")
    assert ruling.message == "it is ann's move, not ben's: ann to draw from the pile or take from the discard row"
    game.do("draw")
    game.reject("ben: discard 4HL", "split.turn.out-of-turn")
    game.accept("ann: discard 8HL")


def test_split_turn_steps():
    game = standard()
    assert "must first draw" in game.reject("match 7HL 7DR", "split.turn.steps").message
    game.reject("discard 7HL", "split.turn.steps")
    game.reject("upgrade 7HR over 7DR", "split.turn.steps")
    game.do("draw")
    assert "has already drawn this turn" in game.reject("draw", "split.turn.steps").message
    game.reject("take QSR", "split.turn.steps")
    game.accept("match 7HL 7DR")


def test_split_turn_game_over():
    game = small(rounds=1)
    for _ in range(2):
        game.do(
            "draw",
            f"discard {game.seat('ann').hand.known[0]}",
            "ben: draw",
            f"ben: discard {game.seat('ben').hand.known[0]}",
        )
    game.do("draw")  # the last card
    assert game.state.phase == "over" and SPLIT.to_act(game.state) == ("nobody", "the game is over after 1 round")
    ruling = game.reject("ben: draw", "split.turn.game-over")
    assert ruling.message == "the game is over after 1 round: no more moves"
    game.reject(RoundDealt(row="AHL"), "split.turn.game-over")
    assert SPLIT.legal_moves(game.state) == []


# ---------------------------------------------------------------------------- drawing


def test_split_draw_top():
    game = standard()
    ruling = game.reject("draw 8HR", "split.draw.top")
    assert "8HR" not in ruling.message and "8HL" not in ruling.message  # a ruling never names the hidden top card
    permit = game.accept("draw")
    assert permit.rule == "split.draw.top" and permit.message == "ann may draw the top card of the pile"
    assert "8HL" in game.seat("ann").hand.known and game.state.pile[0] == "8HR"
    # table mode: an unseen draw is an unknown card; a seen one is named
    table = deal_table(Game(mode="table"), "QSR", ann=ANN)
    table.accept("draw 8HL")
    table.do("discard 8HL")
    table.accept("ben: draw")
    assert table.seat("ben").hand.unknown == 10 and table.state.pile_size == 83


def test_split_draw_last_card():
    game = small()
    for _ in range(2):
        game.do(
            "draw",
            f"discard {game.seat('ann').hand.known[0]}",
            "ben: draw",
            f"ben: discard {game.seat('ben').hand.known[0]}",
        )
    assert game.state.pile_size == 1
    permit = game.accept("draw")
    assert permit.rule == "split.draw.last-card" and "the round ends" in permit.message
    result = game.state.results[-1]
    assert (result.ended, result.ender, result.left, result.minus) == ("pile", 0, (10, 9), (10, 9))
    assert game.state.phase == "deal" and game.view().results[0].by == "ann"
    assert game.seat("ann").pad[-1] == 10 and game.seat("ben").pad[-1] == 9
    # the strong bonus's draw of the last card ends the round too: ben holds 2HL, 2DR (both red)
    strong = small()
    assert {"2HL", "2DR"} <= set(strong.seat("ben").hand.known)
    strong.do("draw", "discard 3HR", "ben: draw", "ben: discard 3DL", "draw", "discard 3DR", "ben: draw")
    strong.do("ben: match 2HL 2DR")
    assert strong.state.pile_size == 1 and strong.legal() == ["ben: draw 3CR", "ben: skip"]
    assert strong.accept("ben: draw").rule == "split.draw.last-card"
    assert strong.state.results[-1].ended == "pile" and strong.state.results[-1].strong == (0, 1)


# ---------------------------------------------------------------------------- the discard row


def test_split_row_missing():
    game = standard()
    ruling = game.reject("take 7CL", "split.row.missing")
    assert ruling.message == "'7CL' is not in the discard row (QSR)"


def test_split_row_playable():
    game = standard()
    ruling = game.reject("take QSR", "split.row.playable")
    assert ruling.message == "ann cannot take QSR: ann could not play it at once in a match or an upgrade"
    game.do("draw", "discard 2HL")  # ben holds no 2
    game.reject("ben: take 2HL", "split.row.playable")
    game.do("ben: draw", "ben: discard 5DL")
    permit = game.accept("take 5DL")  # ann's 5SR makes 5DL+5SR
    assert (
        permit.rule == "split.row.playable"
        and permit.message == "ann may take 5DL from the discard row and must play it at once"
    )
    # table mode: a take that only a hidden card could play is unverifiable, not refused
    table = deal_table(Game(mode="table"), "QSR", ann=ANN)
    table.do("draw 8HL", "discard 8HL")
    rulings = table.check("ben: take 8HL")
    assert [(r.rule, r.verdict) for r in rulings] == [("split.row.playable", "unverifiable")]
    assert "(4 unlocated halves would do)" in rulings[0].message  # 8SR 8HR 8DR 8CR, named by none
    table.do("ben: take 8HL")
    assert table.seat("ben").hand.known == ("8HL",) and table.state.must_play == "8HL"
    table.accept("ben: match 8HL 8HR")  # the hidden partner is revealed


def test_split_row_playable_is_settled_by_the_box():
    # a box of 24 half-cards: once ben's hidden hand outnumbers the unlocated halves that would not match the
    # card he takes, one of his cards is a partner, and the take is legal; until then it is unverifiable
    manifest = {
        "ranks": ["A", "2", "3"],
        "pad": {
            "rows": [{"name": "all", "ranks": ["A", "2", "3"], "boxes": [0, 10, 30]}],
            "minus": [0, 1, 2],
            "marks": {"perfect": 3, "strong": 2, "weak": 1},
        },
    }
    table = deal_table(
        Game(mode="table", manifest=manifest, rounds=1),
        "3HL",
        ann=["ASL", "AHL", "ADL", "ACL", "2SL", "2HL", "2DL", "2CL", "3SL"],
    )
    table.do("draw 3DL", "discard ASL")
    # ben: 9 hidden cards; unlocated: his 9 and the pile's 4, of which ASR AHR ADR ACR match ASL: 9 do not
    rulings = table.check("ben: take ASL")
    assert [(r.rule, r.verdict) for r in rulings] == [("split.row.playable", "unverifiable")]
    assert "(4 unlocated halves would do)" in rulings[0].message
    table.do("ben: draw", "ben: discard 3SR", "draw 3CL", "discard AHL")
    # ben: 9 hidden cards; unlocated: his 9 and the pile's 2, of which only 7 do not match AHL
    assert table.seat("ben").hand.unknown == 9 and table.state.pile_size == 2
    assert table.check("ben: take AHL") == []
    permit = table.accept("ben: take AHL")
    assert permit.rule == "split.row.playable"


def test_split_row_above():
    game = standard()
    game.do(
        "draw", "discard 5HL", "ben: draw", "ben: discard 4HL", "draw", "discard 8HL", "ben: draw", "ben: discard 8HR"
    )
    assert game.state.row == ("QSR", "5HL", "4HL", "8HL", "8HR")
    permit = game.accept("take 5HL")  # ann's 5SR makes 5HL+5SR; 4HL, 8HL and 8HR come with it
    assert permit.message == "ann may take 5HL with the 3 cards above it from the discard row and must play it at once"
    assert game.state.row == ("QSR",)
    assert {"5HL", "4HL", "8HL", "8HR"} <= set(game.seat("ann").hand.known) and game.seat("ann").hand.size == 9 + 4


def test_split_row_play_first():
    game = standard()
    game.do("draw", "discard 8HL", "ben: draw", "ben: discard 5DL", "take 5DL")
    assert game.to_act()[1] == "ann must play 5DL, taken from the discard row, in a match or an upgrade"
    assert (
        game.reject("discard 2HL", "split.row.play-first").message
        == "ann must play 5DL, taken from the discard row, before discarding"
    )
    game.reject("match 7HL 7DR", "split.row.play-first")
    assert all("5DL" in move for move in game.legal())
    game.accept("match 5DL 5SR")
    assert game.state.must_play is None


# ---------------------------------------------------------------------------- the hand


def test_split_hand_not_held():
    game = standard()
    game.do("draw")
    assert game.reject("discard 3SL", "split.hand.not-held").message == "ann does not hold 3SL"
    assert game.reject("match 3SL 3SR", "split.hand.not-held")
    assert "no half-card 'ZZL'" in game.reject(CardDiscarded(player="ann", card="ZZL"), "split.hand.not-held").message
    # table mode: a hidden hand may reveal any card the log has not located, and no other
    table = deal_table(Game(mode="table"), "QSR", ann=ANN)
    table.do("draw 8HL", "discard 8HL", "ben: draw")
    assert table.reject("ben: discard 7HL", "split.hand.not-held").message == "ben cannot hold 7HL: it is in ann's hand"
    assert (
        table.reject("ben: discard QSR", "split.hand.not-held").message
        == "ben cannot hold QSR: it is in the discard row"
    )
    table.accept("ben: discard 7CL")
    assert table.seat("ben").hand.unknown == 9 and "7CL" in table.state.row


def test_split_hand_keep_one():
    # ann: four matches leave her 4DL and the drawn 4DR; a fifth match would leave nothing to discard
    game = Game().deal(
        row="QSR", pile=["4DR"], ann=["7HL", "7DR", "9SL", "9CR", "5HL", "5SR", "2HL", "2HR", "4DL"], ben=BEN
    )
    game.do("draw")
    for move in ("match 7HL 7DR", "match 9SL 9CR", "match 5HL 5SR", "match 2HL 2HR"):
        game.do(move, "skip")
    ruling = game.reject("match 4DL 4DR", "split.hand.keep-one")
    assert ruling.message == "ann must keep a card for the discard: this match would empty the hand"
    assert game.legal() == ["ann: discard 4DL", "ann: discard 4DR"]
    game.accept("discard 4DR")


# ---------------------------------------------------------------------------- matches


def test_split_match_same_number():
    game = standard()
    game.do("draw")
    ruling = game.reject("match 7HL 9CR", "split.match.same-number")
    assert ruling.message == "7HL and 9CR do not match: a match is always two halves of the same number"
    game.reject(MatchPlayed(player="ann", cards=["7HL", "7DR", "7HR"]), "split.match.same-number")


def test_split_match_halves():
    ruling = Game().deal(ann=["7HL", "7SL"]).do("draw").reject("match 7HL 7SL", "split.match.halves")
    assert (
        ruling.message == "7SL and 7HL are both left halves: a match joins a left and a right half (halves=left-right)"
    )
    anyway = Game(halves="any").deal(ann=["7HL", "7SL"]).do("draw")
    assert anyway.accept("match 7HL 7SL").message == "ann may play the weak match 7SL+7HL"


def test_split_match_types():
    game = standard()
    game.do("draw")
    assert game.accept("match 2HL 2HR").message == "ann may play the perfect match 2HL+2HR"
    game.do("skip")
    assert game.accept("match 7DR 7HL").message == "ann may play the strong match 7HL+7DR"  # written left half first
    game.do("skip")
    assert game.accept("match 5HL 5SR").message == "ann may play the weak match 5HL+5SR"
    game.do("skip")
    assert game.view().players[0].matches == {"perfect": ["2HL+2HR"], "strong": ["7HL+7DR"], "weak": ["5HL+5SR"]}


# ---------------------------------------------------------------------------- upgrades


def test_split_upgrade_stronger():
    game = standard()
    game.do("draw", "match 7HL 7DR", "skip")
    permit = game.accept("upgrade 7HR over 7DR")
    assert (
        permit.rule == "split.upgrade.stronger"
        and permit.message == "ann may upgrade 7HL+7DR to a perfect match with 7HR over 7DR"
    )
    assert game.matches("ann") == ["7HL+7HR"]
    game.do("skip", "discard 8HL", "ben: draw")
    ruling = game.reject("ben: upgrade 7CR over 7HR", "split.upgrade.stronger")
    assert (
        ruling.message
        == "7CR over 7HR would make 7HL+7CR weak, and 7HL+7HR is perfect: an upgrade must make a match stronger"
    )


def test_split_upgrade_target():
    game = standard()
    game.do("draw")
    assert game.reject("upgrade 7HR over 7CL", "split.upgrade.target").message == "no match on the table shows '7CL'"
    game.do("discard 8HL", "ben: draw", "ben: match 7DL 7CR", "ben: skip", "ben: discard 4HL", "draw")
    own = standard(upgrade_others="own-only")
    own.do("draw", "discard 8HL", "ben: draw", "ben: match 7DL 7CR", "ben: skip", "ben: discard 4HL", "draw")
    ruling = own.reject("upgrade 7DR over 7CR", "split.upgrade.target")
    assert ruling.message == "ann may only upgrade their own matches (upgrade-others=own-only), not ben's"
    game.accept("upgrade 7DR over 7CR")


def test_split_upgrade_take():
    moves = ("draw", "discard 8HL", "ben: draw", "ben: match 7DL 7CR", "ben: skip", "ben: discard 4HL", "draw")
    game = standard().do(*moves)
    permit = game.accept("upgrade 7DR over 7CR")
    assert permit.message == "ann may upgrade ben's 7DL+7CR to a perfect match with 7DR over 7CR"
    assert game.matches("ann") == ["7DL+7DR"] and game.matches("ben") == []
    kept = standard(upgrade_others="keep").do(*moves, "upgrade 7DR over 7CR")
    assert kept.matches("ann") == [] and kept.matches("ben") == ["7DL+7DR"]


def test_split_upgrade_replaced():
    moves = ("draw", "match 7HL 7DR", "skip", "upgrade 7HR over 7DR", "skip")
    under = standard().do(*moves)
    assert under.seat("ann").matches == (("7HL", "7HR", "7DR"),) and under.view().players[0].under == ["7DR"]
    hand = standard(replaced_half="hand").do(*moves)
    assert hand.seat("ann").matches == (("7HL", "7HR"),) and "7DR" in hand.seat("ann").hand.known
    discard = standard(replaced_half="discard").do(*moves)
    assert discard.state.row == ("QSR", "7DR") and discard.seat("ann").matches == (("7HL", "7HR"),)


def test_split_upgrade_bonus():
    with_bonus = standard().do("draw", "match 7HL 7DR", "skip", "upgrade 7HR over 7DR")
    assert with_bonus.state.phase == "bonus" and with_bonus.view().bonus == "perfect"
    without = standard(upgrade_bonus="no").do("draw", "match 7HL 7DR", "skip", "upgrade 7HR over 7DR")
    assert without.state.phase == "play" and without.view().bonus is None
    without.reject("minus ben", "split.bonus.wrong-kind")


# ---------------------------------------------------------------------------- bonus actions


def test_split_bonus_pending():
    game = standard().do("draw", "match 2HL 2HR")
    ruling = game.reject("match 7HL 7DR", "split.bonus.pending")
    assert (
        ruling.message
        == "ann must first complete the perfect match's bonus: choose a player who marks a minus box, or skip it"
    )
    game.reject("discard 8HL", "split.bonus.pending")
    game.reject("upgrade 7HR over 7DR", "split.bonus.pending")
    assert game.to_act() == ("ann", "ann may choose a player who marks a minus box (perfect match), or skip")
    game.accept("minus ben")
    game.accept("match 7HL 7DR")


def test_split_bonus_wrong_kind():
    game = standard().do("draw", "match 2HL 2HR")
    ruling = game.reject("draw", "split.bonus.wrong-kind")
    assert (
        ruling.message
        == "the pending bonus is the perfect match's: ann may choose a player who marks a minus box, or skip it"
    )
    game.do("skip")
    assert game.reject("minus ben", "split.bonus.wrong-kind").message.startswith("ann has no bonus pending")
    game.reject("skip", "split.bonus.wrong-kind")


def test_split_bonus_perfect():
    game = standard().do("draw", "match 2HL 2HR")
    assert (
        game.reject("minus ann", "split.bonus.perfect").message
        == "ann must choose another player at this table, not ann"
    )
    permit = game.accept("minus ben")
    assert permit.message == "ann chooses ben, who marks a minus box"
    assert game.seat("ben").pad[-1] == 1 and game.view().players[1].score == -5
    assert game.state.penalties == (0, 1)


def test_split_bonus_strong():
    game = standard().do("draw", "match 7HL 7DR")  # 8HL drawn; strong
    assert game.legal() == ["ann: draw 8HR", "ann: skip"]
    permit = game.accept("draw")
    assert permit.rule == "split.bonus.strong" and "8HR" in game.seat("ann").hand.known
    assert game.state.phase == "play" and game.state.pile_size == 104 - 19 - 2


def test_split_bonus_weak():
    game = standard().do(
        "draw", "discard 8HL", "ben: draw", "ben: match 9HL 9DR", "ben: skip", "ben: match 5DL 5CR", "ben: skip"
    )
    game.do("ben: discard 4HL", "draw", "match 5HL 5SR")  # weak
    assert game.legal() == ["ann: swap 5HL+5SR for 5DL+5CR", "ann: skip"]
    ruling = game.reject("swap 5HL+5SR for 9HL+9DR", "split.bonus.weak")
    assert ruling.message == "5HL+5SR is weak and ben's 9HL+9DR is strong: a swap is between matches of the same type"
    assert game.reject("swap 7HL for 5DL", "split.bonus.weak").message == "ann has no match 7HL to swap"
    permit = game.accept("swap 5HL for 5DL")  # one visible half names a match on the table
    assert permit.message == "ann may swap 5HL+5SR for 5DL+5CR"
    assert game.matches("ann") == ["5DL+5CR"] and game.matches("ben") == ["9HL+9DR", "5HL+5SR"]


def test_split_bonus_decline():
    game = standard().do("draw", "match 5HL 5SR")
    permit = game.accept("skip")
    assert permit.rule == "split.bonus.decline" and permit.message == "ann lets the weak match's bonus go"
    assert game.state.phase == "play"


# ---------------------------------------------------------------------------- the discard


def test_split_discard_one():
    game = standard().do("draw")
    permit = game.accept("discard 8HL")
    assert permit.rule == "split.discard.one" and permit.message == "ann may discard 8HL, ending the turn"
    assert game.state.row == ("QSR", "8HL") and game.to_act()[0] == "ben"
    assert game.reject("ben: discard 5DL", "split.turn.steps")


# ---------------------------------------------------------------------------- the end of a round


def test_split_round_out():
    game = standard()
    game.do("draw", "discard 8HL", "ben: draw", "ben: discard 4HL", "draw")  # 8DL
    for move in ("match 7HL 7DR", "match 9SL 9CR", "match 5HL 5SR", "match 2HL 2HR", "upgrade 7HR over 7DR"):
        game.do(move, "skip")
    permit = game.accept("discard 8DL")
    assert (
        permit.rule == "split.round.out" and permit.message == "ann discards the last card and goes out: the round ends"
    )
    result = game.state.results[-1]
    assert (result.ended, result.ender, result.late, result.left) == ("out", 0, (), (0, 9))
    assert game.seat("ben").pad[-1] == 9 and game.state.phase == "deal"


def test_split_round_first_turn_out():
    game = out_on_first_turn()
    game.do("discard 8HL")
    assert game.state.phase == "laying" and game.to_act() == (
        "ben",
        "ben may lay matches before the round is scored (ann went out on their first turn), then done",
    )
    assert game.legal() == [
        "ben: match 7DL+7CR",
        "ben: match 9HL+9DR",
        "ben: match 5DL+5CR",
        "ben: match 3SL+3SR",
        "ben: done",
    ]
    ruling = game.reject("ben: draw", "split.round.first-turn-out")
    assert ruling.message == "ben may only lay matches (then `done`) before the round is scored"
    game.reject("ben: discard 4HL", "split.round.first-turn-out")
    game.reject("ben: upgrade 7DL over 7HL", "split.round.first-turn-out")
    assert game.accept("ben: match 3SL 3SR").rule == "split.round.first-turn-out"
    assert game.state.phase == "laying"  # no bonus
    game.reject("ben: minus ann", "split.round.first-turn-out")
    game.do("ben: match 9HL 9DR")
    assert game.accept("ben: done").rule == "split.round.first-turn-out"
    result = game.state.results[-1]
    assert (result.ended, result.late, result.left, result.perfect, result.strong) == (
        "out",
        (1,),
        (0, 5),
        (2, 1),
        (1, 1),
    )
    # a player who already had a turn lays nothing: test_split_round_out ends without this phase


def test_split_round_score():
    game = out_on_first_turn()
    game.do("discard 8HL", "ben: match 3SL 3SR", "ben: done")
    deck = game.state.deck
    ann, ben = game.seat("ann").pad, game.seat("ben").pad
    row = {r.name: i for i, r in enumerate(deck.rows)}
    # ann: one box in the rows of 7, 9, 5 and 2 (one per match, whatever its type); nothing left in hand
    assert [ann[row[r]] for r in ("7", "9", "5", "2")] == [1, 1, 1, 1] and ann[-1] == 0
    # ben: the laid 3SL+3SR marks the row of 3; 7 cards left in hand are 7 minus boxes
    assert ben[row["3"]] == 1 and ben[-1] == 7
    assert pad_total(deck, ann) == 20 and pad_total(deck, ben) == 5 - 35
    assert game.state.results[-1].scores == (20, -30) and game.view().players[1].rounds == [-30]


def test_split_round_next_dealer():
    game = out_on_first_turn().do("discard 8HL", "ben: done")
    assert game.view().dealer == "ann"
    game.deal()
    assert game.to_act()[0] == "ben" and game.state.round == 2
    # the pile ran out: by the option
    for option, dealer in (("left", "ann"), ("same", "ben"), ("drawer", "ann")):
        pile_out = small(no_out_dealer=option)
        for _ in range(2):
            pile_out.do(
                "draw",
                f"discard {pile_out.seat('ann').hand.known[0]}",
                "ben: draw",
                f"ben: discard {pile_out.seat('ben').hand.known[0]}",
            )
        pile_out.do("draw")  # ann draws the last card; ben dealt round 1
        assert pile_out.view().dealer == dealer, option


def test_split_game_rounds():
    one = out_on_first_turn(rounds=1).do("discard 8HL", "ben: done")
    assert one.state.phase == "over" and SPLIT.outcome(one.state) is not None
    three = out_on_first_turn().do("discard 8HL", "ben: done")
    assert three.state.phase == "deal" and SPLIT.outcome(three.state) is None
    assert SPLIT.to_act(three.state) == ("table", "tally must deal round 2 (ann deals)")


def test_split_game_score():
    # a pad of one short row for every rank, and a short minus row: full rows keep their last box's value
    manifest = {
        "ranks": ["A", "2", "3"],
        "pad": {
            "rows": [{"name": "all", "ranks": ["A", "2", "3"], "boxes": [0, 10, 30]}],
            "minus": [0, 1, 2],
            "marks": {"perfect": 3, "strong": 2, "weak": 1},
        },
    }
    game = Game(manifest=manifest, rounds=1)
    cards = list(game.state.deck.cards)  # ASL ASR AHL AHR ADL ADR ACL ACR 2SL ... 3CR
    game.do(RoundDealt(row=cards[18], hands={"ann": cards[:9], "ben": cards[9:18]}, pile=cards[19:]))
    game.do("draw", "match ASL ASR", "skip")  # perfect: 3 boxes of a 3-box row
    for _ in range(2):
        game.do(
            f"discard {game.seat('ann').hand.known[0]}",
            "ben: draw",
            f"ben: discard {game.seat('ben').hand.known[0]}",
            "draw",
        )
    deck = game.state.deck
    result = game.state.results[-1]
    assert result.pads[0] == (3, result.left[0]) and result.pads[1] == (0, 9)
    # ann: a full row keeps 30; 8 cards left in a 3-box minus row keep its last value, 2
    assert pad_total(deck, result.pads[0]) == 30 - 2 and pad_total(deck, result.pads[1]) == 0 - 2
    assert SPLIT.outcome(game.state).scores == {"ann": 28, "ben": -2}


def test_split_game_winner():
    game = out_on_first_turn(rounds=1).do("discard 8HL", "ben: done")
    outcome = SPLIT.outcome(game.state)
    assert outcome.scores == {"ann": 20, "ben": -45} and outcome.winners == ["ann"]
    assert outcome.reason == "ann has the highest score (20) after 1 round"
    # a tie (minus boxes worth nothing in this pad): shared by default, or the fewest minus boxes
    free = {"pad": {"minus": [0]}}
    laid = (
        "discard 8HL",
        "ben: match 9HL 9DR",
        "ben: match 3SL 3SR",
        "ben: match 7DL 7CR",
        "ben: match 5DL 5CR",
        "ben: done",
    )
    tie = out_on_first_turn(free, rounds=1).do(*laid)
    assert SPLIT.outcome(tie.state).winners == ["ann", "ben"]
    assert SPLIT.outcome(tie.state).reason == "ann, ben tie on 20: a shared victory"
    fewest = out_on_first_turn(free, rounds=1, tie="fewest-minus")
    fewest.do(
        "discard 8HL",
        "ben: match 9HL 9DR",
        "ben: match 3SL 3SR",
        "ben: match 7DL 7CR",
        "ben: match 5DL 5CR",
        "ben: done",
    )
    outcome = SPLIT.outcome(fewest.state)
    assert outcome.winners == ["ann"] and outcome.reason == "ann, ben tie on 20; ann marked the fewest minus boxes (0)"


# ---------------------------------------------------------------------------- revealed cards


def test_split_reveal_impossible():
    table = Game(mode="table")
    ruling = table.reject("deal 7HL | ann 7HL 7DR 9SL 9CR 5HL 5SR 2HL 2HR 7HR", "split.reveal.impossible")
    assert ruling.message == "the deal names 7HL twice: each half-card exists once"
    table.reject(RoundDealt(row="1HL"), "split.reveal.impossible")
    deal_table(table, "QSR", ann=ANN)
    assert (
        table.reject("draw 7HL", "split.reveal.impossible").message
        == "7HL cannot be the pile's top card: it is in ann's hand"
    )
    table.reject("draw QSR", "split.reveal.impossible")
    table.accept("draw 8HL")
