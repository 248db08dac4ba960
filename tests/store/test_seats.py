"""The recorder is a seat: `game_started`'s `seated` names the seats that enter their own hidden cards.

A seated seat's dealt hand, draws and blind reserves are named, so its moves are judged in full (legal or
illegal, never unverifiable); every other seat's hidden cards stay unknown and are judged as before; an event
that leaves a seated seat's card unnamed is refused (`core.seat.unnamed`); a seat's view and its listing
(`conceal`) never hold another seat's hidden cards. The bundled `fixtures/games/<game>-seated-*.jsonl` were
recorded by their first seat (`fixtures/record_seated_games.py`).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Iterator

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support import array_helpers, splice_helpers, split_helpers
from support.bundled import ROOT, rel, run_json
from support.harness import strings_in
from support.splendor_helpers import Game as SplendorGame
from support.splendor_helpers import default_nobles
from tally.core import registry
from tally.core.engine import Table, play_out
from tally.core.games.splendor.components import LEVEL_CARDS
from tally.core.games.splendor.events import CardRevealed, NobleRevealed
from tally.core.model import Event, GameStarted
from tally.store.logs import log as logfile
from tally.store.recording.service import GameRecord, UsageError, seat_moves, shuffler, start_event

SEATED_GAMES = ("splendor", "split", "array", "splice")  # the games whose seats enter their own hidden cards
FIXTURES = {game: f"{game}-seated-3p" for game in SEATED_GAMES}
UNIQUE_CARDS = ("splendor", "split")  # games whose every card exists once


def seated(game: Any, *names: str) -> Any:
    """A test helper's game started over with `names` seated (table mode)."""
    game.started = msgspec.structs.replace(game.started, mode="table", seated=list(names))
    assert game.spec.check_started(game.started) == [], game.spec.check_started(game.started)
    game.table = Table(game.spec, game.started)
    return game


# --------------------------------------------------------------------------- the log records the seats


def test_seated_is_checked_like_every_field_of_the_start() -> None:
    spec, started = start_event("split", ["ana", "ben"], {}, "table", seated=["ANA"])
    assert started.seated == ["ana"]  # a seat named in any case, written as the seat is spelled
    for mode, names, words in (
        ("open", ["ana"], "only in table mode"),
        ("table", ["cy"], "'cy' not among the seats"),
        ("table", ["ana", "ana"], "named twice"),
    ):
        with pytest.raises(UsageError, match=words):
            start_event("split", ["ana", "ben"], {}, mode, seated=names)
        bad = msgspec.structs.replace(started, mode=mode, seated=names)
        assert any(words in problem for problem in spec.check_started(bad))


def test_a_game_whose_seats_cannot_enter_their_cards_refuses_seated() -> None:
    """A game whose state keeps no seated seats would judge their cards as unknown: `seated` is refused there."""
    spec = registry.get("splice")
    _, started = start_event("splice", ["ana", "ben"], {}, "table", seated=["ana"])
    assert started.seated == ["ana"]  # every registered game takes seats now
    forgetful = type("Forgetful", (), {"__struct_fields__": ("seats",)})
    original = spec.state_type
    try:
        spec.state_type = forgetful  # type: ignore[misc]
        assert any("cannot enter its own hidden cards yet" in problem for problem in spec.check_started(started))
    finally:
        spec.state_type = original  # type: ignore[misc]


def test_a_start_without_seats_is_written_as_before(tmp_path: Path) -> None:
    """Old logs fold exactly as before: `seated` is left out when empty (canonical form), so a log without it
    is the same bytes, and a log with it is refused by an older reader as an unknown field."""
    _, started = start_event("splendor", ["ana", "ben"], {}, "table")
    assert b"seated" not in msgspec.json.encode(started)
    _, with_seat = start_event("splendor", ["ana", "ben"], {}, "table", seated=["ana"])
    assert msgspec.json.encode(with_seat).endswith(b',"seated":["ana"]}')
    for name in ("splendor-table-3p", "split-table-4p"):
        assert logfile.read(ROOT / rel(name)).started.seated == []


def test_core_seat_unnamed() -> None:
    """An event leaving a seated seat's hidden card unnamed is refused; the same event of another seat is not."""
    game = _revealed(seated(_splendor_table(), "ann"))
    ruling = game.reject("reserve deck 1", "core.seat.unnamed")
    assert "ann enters their own hidden cards" in ruling.message and "reserve deck 1 as CARD" in ruling.message
    game.do("take r g b")
    assert game.check("ben: reserve deck 1") == []  # ben does not report his cards: unseen as today

    split = seated(split_helpers.Game(mode="table"), "ben")
    split.do("deal QSR | ben " + " ".join(split_helpers.BEN))
    assert split.check("draw") == []  # ann's draw stays unseen
    split.do("draw", "discard 4CL")  # ann discards an unseen card: unverifiable, as today
    split.reject("draw", "core.seat.unnamed")
    split.do("draw 8HL")


def test_core_seat_hand_not_owed() -> None:
    """A hand named by a seat the deal owes none: not seated, named in the deal, or named once already."""
    game = seated(split_helpers.Game(("ann", "ben", "cy"), mode="table"), "ann", "ben")
    game.do("deal QSR | ann " + " ".join(split_helpers.ANN))
    game.reject("ann: hand " + " ".join(split_helpers.ANN), "core.seat.hand-not-owed")  # the deal named it
    game.reject("cy: hand " + " ".join(split_helpers.BEN), "core.seat.hand-not-owed")  # not seated
    game.do("ben: hand " + " ".join(split_helpers.BEN))
    ruling = game.reject("ben: hand " + " ".join(split_helpers.BEN), "core.seat.hand-not-owed")  # named once
    assert ruling.message == "ben has no dealt hand left to name: none is owed"


def test_core_seat_hand_owed() -> None:
    """A deal may leave seated hands unnamed; each seat then names its own, in any order, and nothing else is
    played until all have (`core.seat.hand-owed`); a hand of the wrong size, a card located elsewhere or one
    the box lacks, and a hand named twice or by a seat that owes none are refused and append nothing."""
    game = seated(split_helpers.Game(("ann", "ben", "cy"), mode="table"), "ann", "ben")
    game.do("deal QSR")
    ruling = game.reject("draw 8HL", "core.seat.hand-owed")
    assert "ann, ben" in ruling.message
    game.reject("cy: hand " + " ".join(split_helpers.ANN), "core.seat.hand-not-owed")  # cy is not seated
    game.reject("ben: hand " + " ".join(split_helpers.BEN[:8]), "split.setup.deal")
    game.reject("ben: hand QSR " + " ".join(split_helpers.BEN[1:]), "split.reveal.impossible")  # in the row
    game.reject("ben: hand " + " ".join(["7DL"] + split_helpers.BEN[:8]), "split.reveal.impossible")  # twice
    game.do("ben: hand " + " ".join(split_helpers.BEN))
    game.reject("ben: hand " + " ".join(split_helpers.ANN), "core.seat.hand-not-owed")  # named once
    game.reject("ann: hand 7DL " + " ".join(split_helpers.ANN[1:]), "split.reveal.impossible")  # ben holds 7DL
    game.reject("ben: match 7DL 7CR", "core.seat.hand-owed")
    game.do("ann: hand " + " ".join(split_helpers.ANN))
    assert game.hand("ann") == sorted(split_helpers.ANN) and game.hand("ben") == sorted(split_helpers.BEN)
    game.do("draw 8HL", "match 7HL 7HR", "skip")  # ann's moves judged in full
    game.reject("discard 3SL", "split.hand.not-held")


# --------------------------------------------------------------------------- Splendor


def _splendor_table() -> SplendorGame:
    return SplendorGame(("ann", "ben"), "table")


def _revealed(game: SplendorGame) -> SplendorGame:
    for noble in default_nobles(2):
        game.do(NobleRevealed(noble=noble))
    for card in [c for level in LEVEL_CARDS for c in level[:4]]:
        game.do(CardRevealed(card=card))
    return game


BLIND = "1w0-b3"  # a level-1 card not face up at the start, costing 3 blue


def _reserved() -> SplendorGame:
    """ann (seated) reserves 1w0-b3 blind and names it; ben reserves blind unseen; each takes two gems."""
    game = _revealed(seated(_splendor_table(), "ann"))
    return game.do(f"reserve deck 1 as {BLIND}", "ben: reserve deck 1", "take b b", "ben: take k k")


def test_splendor_a_seats_blind_reserve_is_judged_in_full() -> None:
    game = _reserved()
    assert game.view("ann").players[0].reserved == [BLIND]
    assert game.view("ben").players[0].reserved == ["?1"]
    refused = game.refuse("buy 1b0-w1k2")  # neither face up nor reserved by ann: the log knows her reserve
    assert refused.rule == "splendor.buy.not-available" and refused.verdict == "illegal"
    game.accept(f"buy {BLIND}")  # legal, and no unverifiable note


def test_splendor_other_seats_stay_unverifiable_where_they_are_today() -> None:
    game = _reserved().do(f"buy {BLIND}")
    assert game.doubtful("ben: buy 1b0-k3").rule == "splendor.buy.blind-reserve"  # ben's reserve is unseen


def test_splendor_listing_as_the_seat_names_its_blind_reserves() -> None:
    game = _revealed(seated(_splendor_table(), "ann"))
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ann"))]
    assert f"ann: reserve deck 1 as {BLIND}" in listed and "ann: reserve deck 1" not in listed
    game.do(f"reserve deck 1 as {BLIND}")
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ben"))]
    assert "ben: reserve deck 1" in listed and not any(BLIND in move for move in listed)


# --------------------------------------------------------------------------- Split


def _split_seated() -> split_helpers.Game:
    game = seated(split_helpers.Game(mode="table"), "ann")
    return game.do("deal QSR | ann " + " ".join(split_helpers.ANN))


def test_split_a_seats_own_moves_are_judged_in_full() -> None:
    game = _split_seated()
    game.accept("draw 8HL")
    assert game.hand("ann") == sorted(split_helpers.ANN + ["8HL"])
    game.accept("match 7HL+7DR")  # legal, and no unverifiable note: the log knows ann's hand
    game.reject("draw", "core.seat.unnamed")  # the strong match's bonus draw is hers to name too
    game.accept("draw 8DL")
    refused = game.refuse("discard 3SL")  # a card ann does not hold
    assert refused.rule == "split.hand.not-held" and refused.verdict == "illegal"
    assert game.refuse("match 8HL+8HR").rule == "split.hand.not-held"  # 8HR is nowhere in ann's hand
    game.accept("discard 8HL")


def test_split_other_seats_stay_unverifiable_where_they_are_today() -> None:
    game = _split_seated()
    game.do("draw 8HL", "discard 8HL")
    # a take ben can play only with a card of his unseen hand: unverifiable, as today
    assert [(r.rule, r.verdict) for r in game.check("ben: take 8HL")] == [("split.row.playable", "unverifiable")]
    game.do("ben: draw", "ben: match 3SL+3SR", "ben: skip")  # cards ben shows from his unseen hand: legal
    refused = game.refuse("ben: discard 9SL")  # ann holds 9SL: the log knows it is not ben's
    assert refused.verdict == "illegal"


def test_split_listing_as_the_seat_names_its_draws_and_cards() -> None:
    game = _split_seated()
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ann"))]
    assert "ann: draw 8HL" in listed and "ann: draw" not in listed
    game.do("draw 8HL")
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ann"))]
    assert "ann: match 7HL+7DR" in listed and "ann: discard 8HL" in listed
    assert all(move.split()[-1] in split_helpers.ANN + ["8HL"] for move in listed if " discard " in move)


# --------------------------------------------------------------------------- Array


def _in_full(game: Any, move: str) -> None:
    """Every event of `move` is legal with no ruling at all (no unverifiable note), and is stepped."""
    for event in game.events(move):
        step = game.step(event)
        assert step.is_legal and step.rulings == [], [r.render() for r in step.rulings]


def _array_seated() -> Any:
    """ann (seated) and ben at the table: ann enters the documented hand, then the starting card br is turned."""
    game = seated(array_helpers.Game(("ann", "ben"), "table"), "ann")
    game.reject("start br", "core.seat.hand-owed")  # ann's hand comes before the starting card
    return game.do("deal ann: " + " ".join(array_helpers.ANN), "start br")


def test_array_seats_name_their_own_dealt_hands() -> None:
    """Each seated seat of the round names its own hand (`hand_named`) in any order, or the recorder names it in a
    deal; the starting card waits for all (`core.seat.hand-owed`); a hand of the wrong size or with more copies than
    the box holds, and a hand named by a seat that owes none, are refused and append nothing."""
    game = seated(array_helpers.Game(("ann", "ben", "cy"), "table"), "ann", "ben")
    ruling = game.reject("start br", "core.seat.hand-owed")
    assert "ann, ben still to name it" in ruling.message
    assert game.state.owed == ("ann", "ben")
    game.reject("cy: hand " + " ".join(array_helpers.ANN), "core.seat.hand-not-owed")  # cy is not seated
    game.reject("ben: hand " + " ".join(array_helpers.BEN[:6]), "array.deal.hands")  # 6 cards, not 7
    game.reject(
        "ben: hand slam slam slam " + " ".join(array_helpers.BEN[:4]), "array.deal.hands"
    )  # the box has 2 SLAMs
    game.do("ben: hand " + " ".join(array_helpers.BEN))
    game.reject("ben: hand " + " ".join(array_helpers.BEN), "core.seat.hand-not-owed")  # named once
    game.reject("ann: hand s1 s1 " + " ".join(array_helpers.ANN[:5]), "array.deal.hands")  # ben holds one of the two s1
    game.do("deal ann: " + " ".join(array_helpers.ANN))  # the recorder may still name a hand
    game.do("start br")
    assert sorted(game.hand("ben")) == sorted(array_helpers.BEN) and game.hand("cy") == ["?"] * 7
    _in_full(game, "splice bor@1.b oy ry")  # ann's moves judged in full
    game.reject("ann: hand " + " ".join(array_helpers.ANN), "core.seat.hand-not-owed")  # the round is under way


def test_array_a_seats_own_moves_are_judged_in_full() -> None:
    game = _array_seated()
    assert sorted(game.hand("ann")) == sorted(array_helpers.ANN)
    refused = game.refuse("lay by@1.b")  # ann does not hold by: the log knows her hand
    assert (refused.rule, refused.verdict) == ("array.card.held", "illegal")
    _in_full(game, "splice bor@1.b oy ry")  # legal, no unverifiable note
    game.do("ben: splice gr@1.r")
    refused = game.refuse("draw bo")  # ann can still lay bry: she may not draw
    assert refused.rule == "array.draw.only-if-stuck"
    game.reject("s3 ben draws bo", "array.draw.top")  # ben is not seated: what he picks up stays unseen


def test_array_other_seats_stay_unverifiable_where_they_are_today() -> None:
    # ann (seated) lays br on #1 br's blue: only red is open, and a hand of 7 without a move is possible (the 12
    # copies of go, gy, oy and goy fit nowhere), so ben's unseen hand may be stuck
    game = seated(array_helpers.Game(("ann", "ben"), "table"), "ann")
    game.do("deal ann: br go gy oy goy s1 slam", "start br", "splice br@1.b")
    assert game.refuse("ben: draw bo").rule == "array.draw.top"  # ben does not name his draws
    ruling = game.doubtful("ben: draw")  # ben's hand is unseen: his draw cannot be checked, as today
    assert ruling.rule == "array.draw.only-if-stuck"


def test_array_a_splatter_to_a_seat_names_what_it_picks_up() -> None:
    """The giver does not see the cards a seated receiver picks up: ben names them himself, right after (a recorder
    who saw them may still name them with the Splatter)."""
    game = seated(array_helpers.Game(("ann", "ben"), "table"), "ben")
    game.do("deal ben: " + " ".join(array_helpers.BEN), "start br", "splice bry@1.r", "ben: splice bo@1.b")
    assert game.state.player_name == "ann"
    assert game.refuse("s2 ben draws bo").rule == "array.draw.top"  # named with the Splatter: two cards, not one
    _in_full(game, "s2 ben")
    assert (game.state.picking, game.state.picks) == ("ben", 2) and game.state.hands[1].unknown == 2
    game.reject("ben: lay gy@1.g", "array.pickup.owed")  # nothing before ben names them
    assert game.refuse("ben: pick up bo").rule == "array.draw.top"  # two cards, not one
    _in_full(game, "ben: pick up bo oy")
    assert sorted(game.hand("ben")) == sorted(array_helpers.BEN + ["oy"])  # bo laid, then bo and oy picked up
    assert game.state.hands[1].unknown == 0 and game.state.picking == ""
    recorder = seated(array_helpers.Game(("ann", "ben"), "table"), "ben")
    recorder.do("deal ben: " + " ".join(array_helpers.BEN), "start br", "splice bry@1.r", "ben: splice bo@1.b")
    _in_full(recorder, "s2 ben draws bo oy")
    assert recorder.state.picking == "" and sorted(recorder.hand("ben")) == sorted(array_helpers.BEN + ["oy"])


# --------------------------------------------------------------------------- Splice

ANN_HAND = ["5", "5", "2", "3", "4"]


def _splice_seated(*names: str) -> splice_helpers.Game:
    """ann and ben at the table, `names` seated (ann by default): ann's disk is red, her hand 5 5 2 3 4 (ben's,
    seated: blue, 9 9 6 7 and a Trade Certificate)."""
    game = seated(splice_helpers.Game(("ann", "ben"), "table"), *(names or ("ann",)))
    game.do("disks ann r" + (" ben b" if "ben" in names else ""))
    return game.do("deal | ann " + " ".join(ANN_HAND) + (" | ben 9 9 6 7 trade" if "ben" in names else ""))


def test_splice_a_seat_enters_its_disk_and_hand() -> None:
    game = _splice_seated()
    assert game.hand("ann") == sorted(ANN_HAND) and game.seat("ann").disk == "r"
    assert game.hand("ben") == ["?"] * 5 and game.seat("ben").disk is None
    again = seated(splice_helpers.Game(("ann", "ben"), "table"), "ann")
    assert (
        again.refuse("disks ann r ben b").rule == "splice.setup.disks-first"
    )  # ben is not seated: his disk stays unseen
    again.do("disks ann r")
    assert again.refuse("deal | ann 5 5 2").rule == "splice.setup.deal"  # a hand of 5, not 3
    assert again.refuse("deal hurricane ann | ann 5 5 2 3 4").rule == "splice.setup.deal"  # 4: one was a Hurricane
    assert again.refuse("deal | ann 5 5 5 5 5").rule == "splice.setup.deal"  # the deck holds 4 copies of 5
    again.do("deal hurricane ann | ann 5 5 2 3")
    assert again.check("reshuffle") == []  # her new disk may be left to her to name (hand disk COLOUR)
    assert again.refuse("reshuffle ann g ben g").rule == "splice.hurricane.reshuffle"  # ben names nothing
    again.do("reshuffle ann g")
    assert again.seat("ann").disk == "g"


def test_splice_seats_name_their_own_disks_and_hands() -> None:
    """The setup may leave seated disks and hands out; each seat then names what was left out of its own, in any
    order (`hand_named`), and nothing else is entered until all have (`core.seat.hand-owed`, before a Hurricane's
    reshuffle too); a wrong size, a Hurricane, a card or disk located elsewhere, a disk left unnamed or named
    again, and a seat that owes nothing are refused."""
    game = seated(splice_helpers.Game(("ann", "ben", "cy"), "table"), "ann", "ben")
    game.do("disks ann r", "deal hurricane ben")  # ben's disk and both hands left out
    assert game.state.hands_owed == ("ann", "ben")
    assert "ann, ben still to name it" in game.reject("reshuffle", "core.seat.hand-owed").message
    game.reject("cy: hand 5 5 2 3 4", "core.seat.hand-not-owed")  # cy is not seated
    game.reject("ann: hand 5 5 2 3 4 disk b", "splice.setup.disks-first")  # her disk was named
    game.reject("ben: hand 5 5 2 3 4 disk b", "splice.setup.deal")  # 4: one was a Hurricane
    game.reject("ben: hand hurricane 5 2 3 disk b", "splice.setup.deal")
    game.reject("ben: hand 5 5 2 3", "splice.setup.disks-first")  # and his disk
    game.reject("ben: hand 5 5 2 3 disk r", "splice.setup.disks-first")  # ann holds red
    game.do("ben: hand 5 5 2 3 disk b")
    game.reject("ben: hand 5 5 2 3 disk b", "core.seat.hand-not-owed")  # named once
    game.reject("ann: hand 5 5 5 3 4", "splice.setup.deal")  # the deck holds 4 copies of 5, ben two of them
    game.do("ann: hand 6 7 8 9 10")
    assert game.hand("ann") == ["10", "6", "7", "8", "9"] and game.seat("ben").disk == "b"
    assert game.hand("cy") == ["?"] * 5
    game.do("reshuffle ann g ben r")  # the new disks after the Hurricane, named in the reshuffle
    assert game.state.phase == "draw" and game.state.hands_owed == ()


def test_splice_seats_name_their_own_disks_after_a_reshuffle() -> None:
    """A Hurricane's reshuffle may leave seated seats' new disks out; each such seat then names its own (`hand disk
    COLOUR`, `hand_named`) in any order, and nothing else is entered until all have (`core.seat.hand-owed`); a
    colour the box lacks or another seat holds, a hand named with it, a disk left out, and a seat that owes none
    are refused and append nothing."""
    game = seated(splice_helpers.Game(("ann", "ben", "cy"), "table"), "ann", "ben")
    game.do("disks ann r ben b", "deal hurricane ben | ann 5 5 2 3 4 | ben 9 9 6 7")
    assert game.state.phase == "storm" and game.state.hands_owed == ()
    game.do("reshuffle ann y")  # ben's new disk left to him
    assert game.state.hands_owed == ("ben",) and game.seat("ann").disk == "y" and game.seat("ben").disk is None
    assert game.to_act()[1].startswith("ben to name their own disk drawn again")
    held = game.reject("ben: draw 8", "core.seat.hand-owed").message  # his replacement waits
    assert "names its own disk drawn again after the Hurricane first: ben still to name it" in held
    assert "(PLAYER: hand disk COLOUR)" in held
    ruling = game.reject("ann: hand disk g", "core.seat.hand-not-owed")  # hers was named in the reshuffle
    assert ruling.message == "ann has no disk drawn again after the Hurricane left to name: one is owed only by ben"
    game.reject("cy: hand disk g", "core.seat.hand-not-owed")  # cy is not seated
    game.reject("ben: hand disk y", "splice.hurricane.reshuffle")  # ann holds yellow
    game.reject("ben: hand 8 disk g", "splice.setup.deal")  # only the disk is owed
    game.reject("ben: hand", "splice.hurricane.reshuffle")  # and the disk is
    game.do("ben: hand disk b")  # his old colour, drawn again
    assert game.seat("ben").disk == "b" and game.state.hands_owed == () and game.state.phase == "draw"
    game.do("ben: draw 8")

    both = seated(splice_helpers.Game(("ann", "ben", "cy"), "table"), "ann", "ben")
    both.do("disks ann r ben b", "deal hurricane ben | ann 5 5 2 3 4 | ben 9 9 6 7", "reshuffle")  # both left out
    assert both.state.hands_owed == ("ann", "ben") and both.seat("ann").disk is None
    both.reject(splice_helpers.HandNamed(player="ann", disk="x"), "splice.hurricane.reshuffle")  # no such colour
    both.do("ben: hand disk r")  # in any order
    both.reject("ann: hand disk r", "splice.hurricane.reshuffle")  # ben holds red now
    both.do("ann: hand disk g")
    assert [both.seat(name).disk for name in ("ann", "ben", "cy")] == ["g", "r", None]
    assert [seat.disk for seat in both.view("cy").players] == ["?", "?", "?"]  # neither named disk reaches cy
    assert [seat.disk for seat in both.view("ann").players] == ["g", "?", "?"]  # ann sees her own only
    both.do("ben: draw 8")


def test_splice_a_draw_the_seat_cannot_see_is_listed_as_the_bare_move() -> None:
    """Open mode, `moves --as`: the seat's table keeps the Draw Pile unknown, so its draw is listed as `draw` (no
    trailing space), which the log then reads as the known top card."""
    game = splice_helpers.open_game(hands=[list(ANN_HAND), ["9", "9", "6", "7", "8"]], pile=["10"])
    spec = registry.get("splice")
    for viewer in ("ann", "ben"):
        listed = [spec.format(move) for move in seat_moves(spec, game.state, viewer)]
        assert "ann: draw" in listed and all(text == text.strip() for text in listed), (viewer, listed)
    assert game.events("ann: draw")[0].cards == ["10"]  # type: ignore[attr-defined]


def test_splice_a_seats_own_moves_are_judged_in_full() -> None:
    game = _splice_seated()
    game.reject("draw", "core.seat.unnamed")
    _in_full(game, "draw 9")
    refused = game.refuse("play 9-9")  # the log knows ann holds one 9
    assert (refused.rule, refused.verdict) == ("splice.play.in-hand", "illegal")
    assert "holds only 1 coin 9 and the play needs 2" in refused.message
    _in_full(game, "play 5-5 2-3-4")
    game.reject("draw", "core.seat.unnamed")  # the refill is hers to name too
    _in_full(game, "draw 6 7 8 10")
    game.reject("ben: draw from ann", "core.seat.unnamed")  # ann sees which card ben takes from her
    assert game.refuse("ben: draw from ann as 5").rule == "splice.draw.blind"  # her 5s are in play
    _in_full(game, "ben: draw from ann as 9")
    assert game.hand("ann") == ["10", "6", "7", "8"] and "9" in game.seat("ben").hand.known


def test_splice_other_seats_stay_unverifiable_where_they_are_today() -> None:
    game = _splice_seated().do("draw 9", "discard 9", "ben: draw")
    assert game.check("ben: play 1-1") == []  # ben's unseen hand may hold a pair of 1: legal, as today
    assert game.refuse("ben: play 5-5 5-5").rule == "splice.play.in-hand"  # ann holds two 5s: the box has 4


def test_splice_a_seat_names_the_disk_it_receives_in_a_trade() -> None:
    game = _splice_seated("ann", "ben")
    game.do("draw 9", "discard 2", "ben: draw 1")
    assert game.check("ben: trade red with ann") == []  # the log knows ben's disk: nothing for ann to name
    game = _splice_seated()
    game.do("draw 9", "discard 9", "ben: draw trade")
    game.reject("ben: trade red with ann", "core.seat.unnamed")  # ann names the disk ben handed her
    assert game.refuse("ben: trade red with ann giving r").rule == "splice.trade.swap"  # not the colour called
    game.do("ben: trade red with ann giving g")
    assert game.seat("ann").disk == "g" and game.seat("ben").disk == "r"


def test_core_seat_as_made(tmp_path: Path) -> None:
    """In an open game a seat sees no other seat's disk: it is offered a trade by colour (`trade y`), and the trade
    is recorded with whoever held that disk (tally knows; the trade shows the table). Naming the partner itself
    (`trade y with ben`) is refused as `core.seat.as-made`, right or wrong: a conflict for the wrong one told the
    seat where the disk was not. Twin games in which ben and cy hold each other's disks answer ana alike until the
    trade is made; before, the listing offered `trade y with unused`, which the whole table refused as a conflict
    whenever the disk was a seat's."""
    from support.serve_helpers import write_log
    from tally.store.recording.record import moves

    spec, started = start_event("splice", ["ana", "ben", "cy"], {}, "open")
    events, _ = play_out(spec, started, lambda legal: legal[0], shuffler(random.Random(1)), 1)
    setup = events[1]
    assert setup.disks[0] != "y" and "y" in setup.disks[1:]  # ana's disk is not yellow; ben or cy holds it
    rest = [card for card in setup.deck if card not in ("trade", "hurricane")]
    trades, hurricanes = setup.deck.count("trade"), setup.deck.count("hurricane")
    deck = ["trade", *rest, *["trade"] * (trades - 1), *["hurricane"] * hurricanes]
    assert sorted(deck) == sorted(setup.deck)  # ana is dealt the trade; no Hurricane in the deal or her draw
    answers = {}
    for twin, disks in (("ben", setup.disks), ("cy", [setup.disks[0], setup.disks[2], setup.disks[1]])):
        path = tmp_path / f"{twin}.jsonl"
        write_log(path, [started, msgspec.structs.replace(setup, deck=deck, disks=disks)])
        record = GameRecord.open(path)
        early = record.append("trade y", record.seq, record.last_hash, seat="ana")  # she must draw first
        assert not early.accepted
        assert record.append("draw", record.seq, record.last_hash, seat="ana").accepted
        listed = [move for move in moves(path, viewer="ana").moves if "trade" in move]
        asked = record.propose("trade y", viewer="ana")  # a question shows nothing the trade would reveal (twins)
        holder = "ben" if disks[1] == "y" else "cy"
        named = [record.append(f"trade y with {p}", record.seq, record.last_hash, seat="ana") for p in ("ben", "cy")]
        drawn = record.seq  # ana's draw: amending it into a trade that names the partner tells her nothing either
        named += [
            record.correct(drawn, "misheard", f"trade y with {p}", seat="ana", preview=True) for p in ("ben", "cy")
        ]
        assert [[r.rule for r in result.rulings] for result in named] == [["core.seat.as-made"]] * 4
        answered = [
            (result.accepted, [r.render() for r in result.rulings], result.messages, result.lines)
            for result in (early, asked, *named)
        ]
        done = record.append("trade y", record.seq, record.last_hash, seat="ana")
        assert done.accepted, [r.render() for r in done.rulings]
        assert done.lines == [f"ana: trade y with {holder}"]  # the partner the trade showed the table
        assert record.fold.state.players[0].disk == "y"
        answers[twin] = (listed, answered)
    assert answers["ben"] == answers["cy"]
    assert "ana: trade y" in answers["ben"][0] and not [move for move in answers["ben"][0] if " with " in move]


def test_splice_listing_as_the_seat_names_its_cards() -> None:
    game = _splice_seated()
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ann"))]
    assert "ann: draw 9" in listed and "ann: draw ?" not in listed and "ann: draw from ben as 9" in listed
    game.do("draw 9")
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ann"))]
    assert "ann: play 5-5 2-3-4" in listed and "ann: discard 9" in listed and "ann: discard ?" not in listed
    game.do("discard 9")
    listed = [game.spec.format(m) for m in game.spec.legal_moves(game.spec.conceal(game.state, "ben"))]
    assert listed and all("as" not in move.split() for move in listed if "from ann" not in move)
    assert "ben: draw from ann" not in listed  # ann names the card ben takes from her
    # ben does not see ann's hand: his listing offers every card she may hold, not the ones she holds
    assert "ben: draw from ann as 10" in listed and "ben: draw from ann as 5" in listed
    referee = [game.spec.format(m) for m in game.spec.legal_moves(game.state)]
    assert sorted(m.split()[-1] for m in referee if "from ann" in m) == sorted(set(ANN_HAND))


def _splice_hidden(state: Any, viewer: str) -> list[str]:
    """What `conceal(state, viewer)` still knows of a hidden component that is not the viewer's own."""
    found = []
    for index, (name, seat) in enumerate(zip(state.seats, state.players)):
        if name == viewer:
            continue
        if seat.hand.known or (seat.maps.known and not seat.revealed):  # shown at the end under most-matching
            found.append(f"{name}'s hand or pieces")
        if seat.disk is not None and not seat.revealed and index != state.winner:  # a laid map shows its disk
            found.append(f"{name}'s disk")
    # a Hurricane resolved goes to the bottom of the Draw Pile in sight of all (in table mode the log knows nothing
    # else of the pile that a seat may not know)
    public = {"hurricane"} if state.mode == "table" else set()
    if (
        any(set(zone.known) - public for zone in state.pile)
        or any(z.known for z in state.map_pile)
        or state.unused.known
    ):
        found.append("a pile or the unused disks")
    if state.fresh not in (None, "?") and state.player_name != viewer:
        found.append("the card drawn this turn")
    return found


def _splice_seated_logs() -> Iterator[tuple[str, list[Event]]]:
    yield "fixture", list(logfile.read(ROOT / rel(FIXTURES["splice"])).events)
    for seed, seats, reporting in ((1, 2, 2), (8, 3, 2), (14, 4, 1), (19, 3, 3)):
        names = tuple(f"p{i + 1}" for i in range(reporting))
        spec, transcript = _seated_playout("splice", seats, names, seed)
        yield f"seed {seed}", [msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(transcript, 1)]
    # a game that ends without a map under no-map=most-matching: every seat shows disk and pieces, never its hand
    rng = random.Random(3)
    spec, started = start_event("splice", ["p1", "p2", "p3"], {"no-map": "most-matching", "stall-rounds": "2"}, "open")
    events, state = play_out(spec, started, lambda moves: moves[rng.randrange(len(moves))], shuffler(rng), 1500)
    assert state.phase == "over" and state.ended == "stalled"
    transcript = spec.table_transcript(events, seated=("p1", "p2"))
    yield "most-matching", [msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(transcript, 1)]


def test_splice_no_seat_ever_sees_another_seats_hidden_component() -> None:
    """Walk seated Splice games (the bundled one and playouts with one to every seat seated): at every step,
    what each seat is shown (`conceal`, and the view drawn from it) holds no hidden component of another seat:
    no card of another hand, no map piece, no disk not shown, nothing of the piles or the unused disks."""
    spec = registry.get("splice")
    for where, events in _splice_seated_logs():
        started = events[0]
        assert isinstance(started, GameStarted) and started.seated
        table = Table(spec, started)
        for event in events[1:]:
            step = table.step(event)
            assert step.is_legal, (where, event.seq, [r.render() for r in step.rulings])
            if getattr(event, "player", None) in started.seated:
                assert step.rulings == [], (where, spec.format(event), [r.render() for r in step.rulings])
            state = table.state
            for name, seat in zip(state.seats, state.players):  # the log knows every seated seat's components
                if name in state.seated and state.phase not in ("setup",) and state.stage != "dealing":
                    assert not seat.hand.unknown and not seat.maps.unknown and seat.disk is not None, (where, event.seq)
            for viewer in state.seats:
                concealed = spec.conceal(state, viewer)
                assert _splice_hidden(concealed, viewer) == [], (where, event.seq, viewer)
                shown = spec.view(state, viewer)
                assert shown == spec.view(concealed, viewer), (where, event.seq, viewer)
                for entry in shown.players:
                    if entry.name != viewer:
                        assert set(entry.hand) <= {"?"}, (where, event.seq, viewer)


# --------------------------------------------------------------------------- the command line


def test_the_recorder_enters_their_own_cards_through_the_cli(tally: Any, tmp_path: Path) -> None:
    log = str(tmp_path / "g.jsonl")
    assert tally("new", "split", log, "-p", "ana", "-p", "ben", "--as", "ANA").exit_code == 0
    assert logfile.read(log).started.seated == ["ana"]
    assert tally("move", log, "deal", "QSR").exit_code == 0  # ana's hand left for her to name
    owed = tally("move", log, "draw 8HL")
    assert owed.exit_code == 1 and "[core.seat.hand-owed]" in owed.stderr
    assert "ana to name their own dealt hand" in run_json(tally, "moves", log, "--as", "ana")["expected"]
    assert tally("move", log, "ana: hand " + " ".join(split_helpers.ANN)).exit_code == 0
    unnamed = tally("move", log, "draw")
    assert unnamed.exit_code == 1 and "[core.seat.unnamed]" in unnamed.stderr
    listed = run_json(tally, "moves", log, "--as", "ana")["moves"]
    assert "ana: draw 8HL" in listed and "ana: draw" not in listed
    assert tally("move", log, "draw 8HL").exit_code == 0
    shown = run_json(tally, "state", log, "--as", "ana")["players"][0]["hand"]
    assert sorted(shown) == sorted(split_helpers.ANN + ["8HL"])
    assert run_json(tally, "state", log, "--as", "ben")["players"][0]["hand"] == []
    bad = tally("moves", log, "--as", "zed")
    assert bad.exit_code == 2 and "--as 'zed': no such player" in bad.stderr
    assert (
        tally(
            "new", "split", str(tmp_path / "o.jsonl"), "-p", "ana", "-p", "ben", "--seed", "1", "--as", "ana"
        ).exit_code
        == 2
    )


def test_the_session_records_as_a_seat(tmp_path: Path) -> None:
    from io import StringIO

    from rich.console import Console

    from tally.cli.session import Recorder
    from tally.store.recording.session import Session

    log = tmp_path / "g.jsonl"
    GameRecord.new(log, "split", ["ana", "ben"], seated=["ana"])
    session = Session(log, viewer="ana")
    out = StringIO()
    recorder = Recorder(session, Console(file=out, width=100), False)
    recorder.run_line("deal QSR | ana " + " ".join(split_helpers.ANN))
    assert "ana: draw 8HL" in recorder.moves()  # completion offers the seat's draw by name
    number = recorder.moves().index("ana: draw 8HL") + 1
    recorder.run_line(str(number))
    assert sorted(session.state.players[0].hand.known) == sorted(split_helpers.ANN + ["8HL"])
    assert recorder.refused == 0
    recorder.run_line("state")  # the board is the seat's: its own hand shown
    assert "as seen by ana" in out.getvalue() and "8HL" in out.getvalue()


# --------------------------------------------------------------------------- the bundled seated games


def _player(line: dict[str, Any]) -> str | None:
    return line.get("player")


@pytest.mark.parametrize("game", SEATED_GAMES)
def test_a_seated_fixture_warns_about_no_move_of_its_seat(tally: Any, game: str) -> None:
    name = FIXTURES[game]
    log = logfile.read(ROOT / rel(name))
    seat = log.started.seats[0]
    assert log.started.mode == "table" and log.started.seated == [seat]
    report = run_json(tally, "check", rel(name))
    assert report["ok"] is True and report["outcome"] is not None  # played to its end
    by_seq = {event.seq: getattr(event, "player", None) for event in log.events}
    assert [w for w in report["warnings"] if by_seq[w["seq"]] == seat] == []
    own = sum(1 for player in by_seq.values() if player == seat)
    assert own > 20  # the seat played a real game


# --------------------------------------------------------------------------- views leak nothing


def _held(game: str, state: Any, index: int) -> set[str]:
    """The hidden cards seat `index` holds as the log knows them (some may have been shown to all since)."""
    seat = state.players[index] if game != "array" else None
    if game == "splendor":
        return {entry[1:] for entry in seat.reserved if entry[0] == "~"}
    if game == "array":
        return set(state.hands[index].known)
    if game == "splice":
        return set(seat.hand.known) | set(seat.maps.known)
    return set(seat.hand.known)


def _entered_alone(event: Event, seat: str) -> set[str]:
    """The cards `event` names that only `seat` saw: its hand in a deal, its own draw or blind reserve."""
    hands = getattr(event, "hands", None)
    if isinstance(hands, dict):
        return set(hands.get(seat, ()))
    if getattr(event, "player", None) == seat and type(event).__name__ == "CardDrawn" and event.card:  # type: ignore[attr-defined]
        return {event.card}  # type: ignore[attr-defined]
    if getattr(event, "player", None) == seat and type(event).__name__ == "HandNamed":
        return set(event.cards)  # type: ignore[attr-defined]
    if getattr(event, "player", None) == seat and getattr(event, "level", None) and getattr(event, "card", None):
        return {event.card}  # type: ignore[attr-defined]
    if getattr(event, "target", None) == seat and getattr(event, "drawn", None):
        return set(event.drawn)  # type: ignore[attr-defined]
    return set()


def _seated_playout(game: str, seats: int, reporting: tuple[str, ...], seed: int) -> tuple[Any, list[Event]]:
    rng = random.Random(seed)
    spec, started = start_event(game, [f"p{i + 1}" for i in range(seats)], {}, "open")
    events, _ = play_out(spec, started, lambda moves: moves[rng.randrange(len(moves))], shuffler(rng), 250)
    return spec, spec.table_transcript(events, seated=reporting)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
@pytest.mark.parametrize("game", SEATED_GAMES)
def test_a_seats_view_never_holds_another_seats_hidden_card(game: str, data: st.DataObject) -> None:
    spec = registry.get(game)
    seats = data.draw(st.integers(spec.min_seats, min(spec.max_seats, 4)), label="seats")
    names = [f"p{i + 1}" for i in range(seats)]
    reporting = tuple(
        data.draw(st.lists(st.sampled_from(names), min_size=1, max_size=seats, unique=True), label="seated")
    )
    spec, transcript = _seated_playout(game, seats, reporting, data.draw(st.integers(0, 10_000), label="seed"))
    _walk_seated(game, spec, transcript, names, reporting)


# the games whose table-mode deal may leave the seated hands (Splice: and disks) for each seat to name (`hand_named`)
BY_SEAT = {
    "split": split_helpers.hands_by_seat,
    "array": array_helpers.hands_by_seat,
    "splice": splice_helpers.hands_by_seat,
}


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seats=st.integers(2, 4))
@pytest.mark.parametrize("game", sorted(BY_SEAT))
def test_hands_named_seat_by_seat_never_reach_another_seat(game: str, seed: int, seats: int) -> None:
    """Every seat seated, each naming its own dealt hand after a deal that leaves them all out."""
    names = tuple(f"p{i + 1}" for i in range(seats))
    spec, transcript = _seated_playout(game, seats, names, seed)
    by_seat = BY_SEAT[game](transcript)
    assert any(type(event).__name__ == "HandNamed" for event in by_seat)
    if game == "splice":  # a Hurricane's reshuffle leaves every seat's new disk to that seat too
        assert any(type(event).__name__ == "DisksRedrawn" and not event.disks for event in by_seat)
    _walk_seated(game, spec, by_seat, list(names), names)


def _walk_seated(game: str, spec: Any, transcript: list[Event], names: list[str], reporting: tuple[str, ...]) -> None:
    """Folds `transcript` event by event: each is legal, a seated seat's own judged in full, and no seat's view
    holds a card another seat saw alone."""
    started = transcript[0]
    assert isinstance(started, GameStarted) and started.seated == list(reporting)
    table = Table(spec, msgspec.structs.replace(started, seq=1))
    alone: dict[str, set[str]] = {name: set() for name in names}  # cards each seat saw alone, not shown since
    for seq, event in enumerate(transcript[1:], 2):
        step = table.step(msgspec.structs.replace(event, seq=seq))
        assert step.is_legal, [r.render() for r in step.rulings]
        if getattr(event, "player", None) in reporting:  # a seated seat's own move is judged in full
            assert step.rulings == [], (spec.format(event), [r.render() for r in step.rulings])
        private = {name: _entered_alone(event, name) for name in names}
        shown = set(strings_in(msgspec.to_builtins(event))) - set().union(*private.values())
        for name in names:
            alone[name] = (alone[name] - shown) | private[name]
        state = table.state
        for x, viewer in enumerate(names):
            concealed = spec.conceal(state, viewer)
            # the seat's view is a function of what it knows: the same from the state with the others' cards hidden
            assert spec.view(state, viewer) == spec.view(concealed, viewer), (viewer, seq)
            others = set().union(*(alone[name] & _held(game, state, y) for y, name in enumerate(names) if y != x))
            assert all(not (alone[name] & _held(game, concealed, y)) for y, name in enumerate(names) if y != x)
            if others and game in UNIQUE_CARDS:  # each card exists once: its name alone would give it away
                assert others.isdisjoint(strings_in(spec.view(state, viewer))), (viewer, seq, others)


def test_check_prints_the_failing_rule_with_its_text(tally: Any, tmp_path: Path) -> None:
    """`tally check` of a log whose event breaks a rule: the one error line on stderr, and the rule's English text
    under it on stdout (`#SEQ rule ID: TEXT`), as under every other ruling; `--json` carries it as `text`."""
    import hashlib
    import json

    log = tmp_path / "g.jsonl"
    GameRecord.new(log, "splice", ["ana", "ben"], seated=["ana"])
    service = GameRecord.open(log)
    for move in ("disks ana r", "deal | ana " + " ".join(ANN_HAND), "draw 9"):
        assert service.append(move, service.seq, service.last_hash).accepted
    last = log.read_bytes().splitlines()[-1]
    bad = {
        "type": "coins_played",
        "seq": 5,
        "at": "2026-12-01T15:40:00.000Z",
        "prev": hashlib.sha256(last).hexdigest(),
        "player": "ana",
        "sets": ["9-9"],
    }
    with log.open("a") as out:
        out.write(json.dumps(bad, separators=(",", ":")) + "\n")
    text = registry.get("splice").rules
    wanted = next(doc.text for doc in text if doc.id == "splice.play.in-hand")
    result = tally("check", str(log))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and "[splice.play.in-hand]" in result.stderr
    assert result.stdout == f"#5 rule splice.play.in-hand: {wanted}\n"
    document = json.loads(tally("check", str(log), "--json").stdout)
    assert (document["rule"], document["text"]) == ("splice.play.in-hand", wanted)
    several = tally("check", str(log), str(log))
    assert several.stdout.splitlines()[0] == f"{log}: #5 rule splice.play.in-hand: {wanted}"
