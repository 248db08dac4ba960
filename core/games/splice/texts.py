"""Splice's rule texts: every rule id with its English text, and the variant options (docs/rules/splice.md)."""

from __future__ import annotations

from ...model import Option, RuleDoc

RULES: tuple[RuleDoc, ...] = (
    # setup
    RuleDoc(
        "splice.setup.disks-first",
        "Gemstone disks are chosen first: the disks lie face down and are shuffled, each player takes one at random, looks at it and keeps it face down; the disks left over stay face down to the side, unused. No card is dealt before every player has a disk.",
    ),
    RuleDoc(
        "splice.setup.map-pile",
        "All regular map pieces (never the wild ones) are shuffled face down into the Map Pile.",
    ),
    RuleDoc(
        "splice.setup.deal",
        "The rest of the deck, wild map pieces included, is shuffled and each player is dealt 5 cards (option `hand-size`); what is left is the Draw Pile, face down. There is no discard pile.",
    ),
    RuleDoc(
        "splice.setup.incomplete",
        "No one plays before the setup is complete: disks chosen, Map Pile laid out, hands dealt, and any Hurricane dealt resolved.",
    ),
    RuleDoc(
        "splice.setup.first-player",
        "The first seat named in the log plays first, and play goes clockwise: in seat order.",
    ),
    # turns
    RuleDoc(
        "splice.turn.out-of-turn",
        "Only the player whose turn it is may draw and play; only the player who owes a draw, a discard or a return of map pieces may make it.",
    ),
    RuleDoc(
        "splice.turn.pending",
        "An open obligation comes first: a draw owed, a discard, map pieces to return, or a reveal must be made before anything else.",
    ),
    RuleDoc("splice.turn.game-over", "Once the game has ended no further moves are made."),
    RuleDoc(
        "splice.turn.one-play",
        "After the draw a player makes exactly one play: play coin sets (with Double Your Gold cards), play one Special Card, buy map pieces, or lay down a completed map. Plays are never combined in one turn.",
    ),
    RuleDoc(
        "splice.turn.discard",
        "A player who makes none of those plays instead discards one card face down at the bottom of the Draw Pile, keeping 5 cards; that is the whole turn.",
    ),
    RuleDoc(
        "splice.turn.pass",
        "A player who makes no play but holds no more than 5 cards (there was nothing to draw) has nothing to discard and passes (assumption).",
    ),
    RuleDoc(
        "splice.play.in-hand",
        "Coin cards, wild cards, Double Your Gold cards and Special Cards are played from the player's own hand: a card the player does not hold cannot be played.",
    ),
    # draws
    RuleDoc(
        "splice.draw.first",
        "Every turn starts with exactly one draw, before anything else: the top card of the Draw Pile, or one card drawn blind from another player's hand.",
    ),
    RuleDoc("splice.draw.empty-pile", "A card is drawn from the Draw Pile only while it holds a card."),
    RuleDoc(
        "splice.draw.blind",
        "A blind draw takes one card, unseen, from the hand of another player who holds at least one card; in open mode tally picks it at random.",
    ),
    RuleDoc(
        "splice.draw.no-draw",
        "When the Draw Pile is empty and no other player holds a card, the turn goes on without a draw (assumption).",
    ),
    RuleDoc(
        "splice.draw.top-card",
        "Cards are drawn from the top of the Draw Pile: in open mode the log knows which card that is; in table mode a named card must still be possible there (a card the log has placed elsewhere, or a copy that does not exist, cannot turn up).",
    ),
    RuleDoc(
        "splice.draw.owed",
        "A player who owes cards draws exactly that many from the top of the Draw Pile, or all it holds if fewer; a draw stops at a Hurricane.",
    ),
    RuleDoc(
        "splice.draw.replace",
        "When the turn of a player who drew blind from another hand is complete, the player drawn from draws one card from the top of the Draw Pile to replace the card taken (unless a Skull already gave them a full hand).",
    ),
    # the hand at the end of the turn
    RuleDoc(
        "splice.hand.refill",
        "At the end of the turn a player holding fewer than 5 cards draws from the top of the Draw Pile up to 5 (as many as it holds). These cards are never drawn blind from another player: only the first draw of a turn may be.",
    ),
    RuleDoc(
        "splice.hand.refill-not-playable",
        "Cards drawn at the end of the turn cannot be played until the player's next turn (the Hurricane aside: it is played at once).",
    ),
    RuleDoc(
        "splice.hand.discard",
        "At the end of the turn a player holding more than 5 cards discards face down at the bottom of the Draw Pile down to 5, choosing which; only cards the player holds.",
    ),
    RuleDoc(
        "splice.pile.bottom",
        "Every card that leaves play (discards, spent coin sets and Double Your Gold cards, finished Special Cards, the Hurricane) goes face down to the bottom of the Draw Pile, in the order the move lists them.",
    ),
    # coins
    RuleDoc(
        "splice.coins.sets",
        "Coin cards are played in sets: pairs (two cards of one value) or 3-card runs of consecutive values (1-2-3, 2-3-4, ...). Any number of sets may be played at once; a set is worth the sum of its values.",
    ),
    RuleDoc(
        "splice.coins.wild",
        "A wild card stands in for any coin card of a set, at the value the player gives it; a set holds at least one coin card (assumption: a set of wild cards alone has no value).",
    ),
    RuleDoc(
        "splice.coins.double",
        "Double Your Gold cards are played with coin sets, or alone as the whole play, whether or not the player has sets in play. While a player has a Double Your Gold card in play, all their coin sets in play count double; whether several double again is option `double-stack`.",
    ),
    # special cards
    RuleDoc("splice.special.target", "Piracy, Skull and Black Spot are played on another player, never on yourself."),
    RuleDoc(
        "splice.piracy.plunder",
        "Piracy takes from the target exactly one of: one coin set in play, one Double Your Gold card in play, or one map piece chosen blind from their face-down pieces (in open mode tally picks it at random).",
    ),
    RuleDoc(
        "splice.piracy.nothing",
        "Piracy can only take what the target has: the named set or a Double Your Gold card in play, or at least one map piece.",
    ),
    RuleDoc(
        "splice.piracy.laid",
        "A coin set or Double Your Gold card taken by Piracy is laid down in front of the pirate at once (it never goes to the hand) and counts with the pirate's own; the target's sets lose the doubling when their last Double Your Gold card is taken. A taken map piece joins the pirate's face-down pieces. The Piracy card then goes to the bottom of the Draw Pile.",
    ),
    RuleDoc(
        "splice.skull.redraw",
        "A Skull played on a player makes them put their whole hand at the bottom of the Draw Pile and draw 5 new cards from the top; then the Skull goes to the bottom of the Draw Pile.",
    ),
    RuleDoc(
        "splice.trade.swap",
        "Trade Certificate: call out a gem colour. The player who holds that disk trades it for yours; if it lies in the unused pile, take it and leave yours there face down. In table mode the move says who held it, and that must still be possible.",
    ),
    RuleDoc("splice.trade.own-colour", "A Trade Certificate calls out a colour other than your own disk's."),
    RuleDoc(
        "splice.spot.skip",
        "A Black Spot played on a player makes them lose their next turn; then it goes to the bottom of the Draw Pile. Several Black Spots cost a turn each.",
    ),
    # hurricanes
    RuleDoc(
        "splice.hurricane.count",
        "The deck holds 1 Hurricane card, as the house rules chose (option `hurricanes`: 2 plays both of the box's Hurricanes).",
    ),
    RuleDoc(
        "splice.hurricane.immediate",
        "A Hurricane drawn at any time is dropped face up in the centre at once and stops all play: nothing else happens until the gemstone disks have been shuffled and drawn again. A draw ends with the Hurricane.",
    ),
    RuleDoc(
        "splice.hurricane.reshuffle",
        "After a Hurricane all disks, the unused ones included, are shuffled face down, every player draws one at random and looks at it, and the rest lie aside unused; then the Hurricane goes to the bottom of the Draw Pile.",
    ),
    RuleDoc(
        "splice.hurricane.start",
        "A Hurricane drawn as the first draw of a turn costs that turn: the player makes no play, draws nothing more, and play passes to the next player.",
    ),
    RuleDoc(
        "splice.hurricane.refill",
        "A Hurricane drawn in the end-of-turn refill does not cost a turn: the player draws a card to replace it, finishes the refill, and play passes to the next player.",
    ),
    RuleDoc(
        "splice.hurricane.skull",
        "A Hurricane drawn in a Skull redraw: its drawer draws one more card to get back to 5, play continues with the player after the one who played the Skull, and the Skull's target does not lose a turn.",
    ),
    RuleDoc(
        "splice.hurricane.deal",
        "A Hurricane dealt in the first deal: after the deal the disks are shuffled, the Hurricane goes to the bottom of the Draw Pile and its holder draws a card to replace it; if that was the first player, their first turn is lost and the next seat begins.",
    ),
    RuleDoc(
        "splice.hurricane.replacement",
        "A Hurricane drawn by a player replacing a card drawn blind from them: the disks are shuffled, the Hurricane goes to the bottom and they draw again; if they were next to play, they forfeit that turn and play passes to the player after them.",
    ),
    # buying map pieces
    RuleDoc("splice.buy.price", "Map pieces cost 20 gold each; several may be bought in one play."),
    RuleDoc(
        "splice.buy.whole-sets",
        "Payment is in whole coin sets (with Double Your Gold cards whose doubling is used, which are spent too). No change is given, and every set or Double Your Gold card handed in must be needed for the price (assumption). Spent cards go to the bottom of the Draw Pile.",
    ),
    RuleDoc(
        "splice.buy.earlier-turn",
        "Only coin sets already in play when the turn began can pay: sets are laid down on one turn and spent on a later one, since buying is a play of its own.",
    ),
    RuleDoc(
        "splice.buy.map-pile",
        "Bought pieces come from the top of the Map Pile, unseen by the others: no searching, and no more pieces than the pile holds. In open mode the log knows them; in table mode a named piece must still be possible there.",
    ),
    RuleDoc(
        "splice.maps.limit",
        "A player may hold at most 5 map pieces. Above that, after a purchase or Piracy, the player chooses pieces to return face down to the bottom of the Map Pile until 5 are left.",
    ),
    RuleDoc("splice.maps.return", "A return gives back exactly the pieces over 5, and only pieces the player holds."),
    RuleDoc(
        "splice.maps.wild-in-hand",
        "Wild map pieces come from the Draw Pile and are kept in the hand like any card (assumption): they are not map pieces on the table and do not count towards the limit of 5.",
    ),
    # laying down a map
    RuleDoc(
        "splice.map.complete",
        "A completed map is four pieces, one for each position 1 to 4, all regular pieces of one colour, wild map pieces standing in for missing positions.",
    ),
    RuleDoc(
        "splice.map.wild",
        "A wild map piece only fits its own position, and a completed map holds at most two wild pieces.",
    ),
    RuleDoc(
        "splice.map.held",
        "The regular pieces of a map laid down are the player's own face-down pieces; its wild pieces come from the player's hand.",
    ),
    RuleDoc(
        "splice.map.disk",
        "A map is only laid down in the colour of the player's gemstone disk; laying it reveals the disk.",
    ),
    RuleDoc(
        "splice.map.next-turn",
        "A map is laid down on a turn after the one that completed it: no piece of it may be the card drawn at the start of this turn. In table mode the box's copies decide it where they can; the log cannot tell only when that card was not seen and could be one of the wild pieces, or was seen and another copy, not located elsewhere, may have been held before.",
    ),
    RuleDoc(
        "splice.map.win", "Laying down a completed map matching your disk is the whole turn and wins the game at once."
    ),
    # the end without a map
    RuleDoc(
        "splice.end.all-bought",
        "When every map piece has been bought and the Map Pile is empty at the end of a turn while nobody has won (option `all-bought`): under `end` the round is finished, so everyone else gets one more turn to lay down a map, and then the game ends; under `play-on` play simply goes on.",
    ),
    RuleDoc(
        "splice.end.stalled",
        "A stalled game ends: after 20 full rounds (option `stall-rounds`; 0 never) in which no map piece was bought or taken by Piracy, the game ends without a map.",
    ),
    RuleDoc(
        "splice.end.no-map",
        "A game that ends without a map laid down is decided by option `no-map`: `draw` (nobody wins) or `most-matching` (most map pieces of the colour of one's own disk wins; a tie is shared).",
    ),
    RuleDoc(
        "splice.end.reveal",
        "Table mode, `no-map=most-matching`: at the end every player shows their disk and all their map pieces, in seat order; what is shown must be possible.",
    ),
)
RULE_IDS = frozenset(r.id for r in RULES)

OPTIONS: tuple[Option, ...] = (
    Option(
        "hurricanes",
        "1",
        ("1", "2"),
        help="Hurricane cards shuffled into the deck (the house rules keep one of the box's two)",
    ),
    Option("double-stack", "no", ("no", "yes"), help="whether a second Double Your Gold card in play doubles again"),
    Option("hand-size", "5", (), 3, 7, help="cards dealt and kept in a hand"),
    Option(
        "stall-rounds",
        "20",
        (),
        0,
        999,
        help="full rounds without a map piece bought or taken that end a stalled game (0: never)",
    ),
    Option(
        "all-bought",
        "end",
        ("end", "play-on"),
        help="the Map Pile empty with nobody winning: finish the round and end, or play on",
    ),
    Option("no-map", "draw", ("draw", "most-matching"), help="how a game that ends without a map laid down is decided"),
)
