"""Splice's guards of a purchase of map pieces (`buy`): the price, paid in whole sets laid down on an earlier
turn with no change given, and the pieces off the top of the Map Pile; `rules` registers them."""

from __future__ import annotations

from collections import Counter

from ...model import Ruling, illegal
from ...text import plural, quote
from .components import PRICE, coin_set
from .events import MapsBought
from .guards import first_impossible, read_sets
from .state import State, form_cards, known_top, located_pieces, payment_value, pile_size

# --------------------------------------------------------------------------- buying


def check_buy(state: State, event: MapsBought) -> Ruling | None:
    who = event.player
    count = event.count
    if not 1 <= count <= 99:
        return illegal("splice.buy.price", f"{who} cannot buy {count} map pieces", count=count)
    if not 0 <= event.doubles <= 99:
        return illegal("splice.buy.whole-sets", f"{event.doubles} is not a number of Double Your Gold cards")
    left = pile_size(state.map_pile)
    if count > left:
        return illegal(
            "splice.buy.map-pile", f"the Map Pile holds {plural(left, 'piece')}: {who} cannot buy {count}", left=left
        )
    seat = state.player
    ruling = _check_part_of_a_set(state, event.paid)
    if ruling:
        return ruling
    sets = read_sets(state, event.paid)
    if isinstance(sets, Ruling):
        return sets
    in_play = list(seat.sets)
    for s in sets:
        if s.form not in in_play:
            shown = " ".join(seat.sets) or "none"
            return illegal(
                "splice.buy.earlier-turn",
                f"{s.form} is not among {who}'s coin sets in play ({shown}): sets are laid down on one turn and spent on a later one",
                set=s.form,
            )
        in_play.remove(s.form)
    if event.doubles > seat.doubles:
        return illegal(
            "splice.buy.earlier-turn",
            f"{who} has {plural(seat.doubles, 'Double Your Gold card')} in play, not {event.doubles}",
        )
    forms = [s.form for s in sets]
    value = payment_value(state, forms, event.doubles)
    price = PRICE * count
    if value < price:
        return illegal(
            "splice.buy.price",
            f"{who} pays {value} gold for {plural(count, 'map piece')}: the price is {price} ({PRICE} each){_double_hint(state, event, forms, price)}",
            paid=value,
            price=price,
        )
    for i, form in enumerate(forms):
        rest = forms[:i] + forms[i + 1 :]
        if payment_value(state, rest, event.doubles) >= price:
            return illegal(
                "splice.buy.whole-sets",
                f"no change is given: {form} is not needed ({value} gold paid for a price of {price})",
                set=form,
            )
    if event.doubles and payment_value(state, forms, event.doubles - 1) >= price:
        return illegal(
            "splice.buy.whole-sets", f"no change is given: a Double Your Gold card is not needed for a price of {price}"
        )
    if len(event.pieces) != count:
        return illegal("splice.buy.map-pile", f"{count} pieces come off the Map Pile, not {len(event.pieces)}")
    return _pieces_problem(state, event.pieces)


def _check_part_of_a_set(state: State, paid: list[str]) -> Ruling | None:
    """A payment naming part of a set in play (`9-10` of 8-9-10) breaks the rule of entire sets, whatever else."""
    seat = state.player
    values = state.box.values
    for form in paid:
        if form in seat.sets:
            continue
        cards = form_cards(form)
        if not cards:
            continue
        for whole in seat.sets:
            if cards < Counter(coin_set(whole, values).cards):
                return illegal(
                    "splice.buy.whole-sets",
                    f"{form} is part of {state.player_name}'s set {whole} in play: payment is in entire sets, never part of one",
                    set=form,
                    whole=whole,
                )
    return None


def _double_hint(state: State, event: MapsBought, forms: list[str], price: int) -> str:
    """When a Double Your Gold card in play, had it been named, would have covered the price: say so."""
    held = state.player.doubles
    for doubles in range(event.doubles + 1, held + 1):
        if payment_value(state, forms, doubles) >= price:
            named = " ".join(forms + ["double"] * doubles)
            cards = "the Double Your Gold card" if held == 1 else f"{doubles} of the {held} Double Your Gold cards"
            return f"; name {cards} in play to double the sets paid (`buy {event.count} pay {named}`)"
    return ""


def _pieces_problem(state: State, pieces: list[str | None]) -> Ruling | None:
    if state.mode == "open":
        top = known_top(state.map_pile, len(pieces))
        if pieces != top:
            return illegal(
                "splice.buy.map-pile",
                f"the top of the Map Pile is {', '.join(top)}, not {', '.join(p or '?' for p in pieces)}",
            )
        return None
    failed = first_impossible(state.map_pile, pieces, state.box.piece_copies, located_pieces(state))
    if failed < 0:
        return None
    piece = pieces[failed]
    return illegal("splice.buy.map-pile", f"{quote(piece)} cannot be the next piece of the Map Pile", piece=piece)
