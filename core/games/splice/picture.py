"""Splice's picture: the view drawn as SVG (the piles, the unused disks, each player's disk, hand, sets, map pieces).

Drawn from the view alone: whatever it hides (`?`: another player's hand, disk and map pieces, the unused disks)
is a card back. A colour is always drawn with its letter, a map piece with its colour letter and position.
"""

from __future__ import annotations

from ... import svg
from ...text import plural
from .view import SplicePlayer, SpliceView

CARD_W, CARD_H, GAP = 44, 52, 4
PIECE = 30
SPECIAL = {  # code: what the face shows, its caption, what a screen reader says
    "double": ("×2", "gold", "the Double Your Gold card"),
    "piracy": ("PIR", "piracy", "the Piracy card"),
    "skull": ("SKULL", "skull", "the Skull card"),
    "trade": ("TRADE", "trade", "the Trade Certificate"),
    "spot": ("SPOT", "black", "the Black Spot card"),
    "hurricane": ("HURR", "storm", "a Hurricane"),
    "wild": ("W", "wild", "a Wild card"),
}


def _paints(view: SpliceView) -> dict[str, svg.Colour]:
    return {letter: svg.colour(name, i) for i, (letter, name) in enumerate(view.colours.items())}


def _card(x: float, y: float, code: str, where: str) -> str:
    """A card of the deck: a coin (its value), a wild card (`w5`: standing for a 5), a wild map piece, a Special Card."""
    if code.isdigit():
        big, small, spoken, fill = code, "coin", f"a coin card of {code}", "#fff6d8"
    elif code.startswith("w") and code[1:].isdigit():
        big, small, spoken, fill = f"W{code[1:]}", "wild", f"a Wild card as {code[1:]}", "#e9f4ff"
    elif code.startswith("x") and code[1:].isdigit():
        big, small, spoken, fill = f"✕{code[1:]}", "map", f"a Wild map piece for position {code[1:]}", "#eef6e8"
    else:
        big, small, spoken = SPECIAL.get(code, (code[:5].upper(), code[:6], f"the card {code}"))
        fill = "#eeeeee"
    body = [
        svg.text(x + CARD_W / 2, y + 24, big, svg.SMALL if len(big) > 3 else svg.LARGE, "middle", "bold"),
        svg.text(x + CARD_W / 2, y + CARD_H - 6, small, svg.SMALL, "middle", fill=svg.MUTED),
    ]
    return svg.card(x, y, CARD_W, CARD_H, code, f"{where}: {spoken} ({code})", body, fill=fill)


def _piece(x: float, y: float, code: str, paints: dict[str, svg.Colour], names: dict[str, str], where: str) -> str:
    letter, position = code[:1], code[1:]
    wild = letter == "x"  # a wild map piece stands in for its position in a laid map
    paint = svg.colour("white") if wild else paints.get(letter, svg.colour("gray"))
    shown = f"✕{position}" if wild else code
    kind = "Wild" if wild else names.get(letter, letter)
    body = [svg.text(x + PIECE / 2, y + PIECE / 2 + 5, shown, svg.NORMAL, "middle", "bold", paint.ink)]
    return svg.card(
        x, y, PIECE, PIECE, code, f"{where}: the {kind} map piece {position}", body, fill=paint.fill, stroke=svg.INK
    )


def _disk(x: float, y: float, code: str, paints: dict[str, svg.Colour], names: dict[str, str], where: str) -> str:
    if code == "?":
        return svg.card_back(x, y, PIECE, PIECE, f"{where}: a gemstone disk, face down", "?")
    return svg.disk(
        x + PIECE / 2,
        y + PIECE / 2,
        PIECE / 2,
        paints.get(code, svg.colour("gray")),
        code,
        f"{where}: the {names.get(code, code)} gemstone disk",
        code,
    )


def _wrapping(canvas: svg.Canvas, x: float, w: float) -> float:
    if x + w > canvas.width - svg.MARGIN:
        canvas.y += CARD_H + GAP
        return svg.MARGIN
    return x


def _hand(canvas: svg.Canvas, codes: list[str], name: str) -> None:
    x: float = svg.MARGIN
    for code in codes:
        x = _wrapping(canvas, x, CARD_W)
        if code == "?":
            canvas.add(svg.card_back(x, canvas.y, CARD_W, CARD_H, f"a card in {name}'s hand, not shown", "?"))
        else:
            canvas.add(_card(x, canvas.y, code, f"in {name}'s hand"))
        x += CARD_W + GAP
    canvas.y += CARD_H + GAP if codes else 0


def _sets(canvas: svg.Canvas, sets: list[str], name: str) -> None:
    """Coin sets in play, each as its cards touching, the sets apart."""
    if sets:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, f"coin sets in play ({len(sets)})", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
    x: float = svg.MARGIN
    for coin_set in sets:
        cards = coin_set.split("-")
        x = _wrapping(canvas, x, len(cards) * CARD_W)
        for code in cards:
            canvas.add(_card(x, canvas.y, code, f"{name}'s set {coin_set}"))
            x += CARD_W
        x += 3 * GAP
    canvas.y += CARD_H + GAP if sets else 0


def _pieces(
    canvas: svg.Canvas,
    codes: list[str],
    paints: dict[str, svg.Colour],
    names: dict[str, str],
    where: str,
    x: float = svg.MARGIN,
) -> float:
    start = x
    for code in codes:
        if x + PIECE > canvas.width - svg.MARGIN:
            x = start
            canvas.y += PIECE + GAP
        if code == "?":
            canvas.add(svg.card_back(x, canvas.y, PIECE, PIECE, f"{where}: a map piece, face down", "?"))
        else:
            canvas.add(_piece(x, canvas.y, code, paints, names, where))
        x += PIECE + GAP
    return x


def _player(
    canvas: svg.Canvas, view: SpliceView, player: SplicePlayer, paints: dict[str, svg.Colour], names: dict[str, str]
) -> None:
    name = player.name
    marker = "▶ " if view.to_act == name else ""
    canvas.y += svg.NORMAL + 2
    canvas.add(svg.text(svg.MARGIN, canvas.y, f"{marker}{name}", svg.NORMAL + 1, weight="bold"))
    summary = f"{player.gold} gold · {plural(player.doubles, 'double')} · {plural(player.black_spots, 'black spot')}"
    if player.loses_next_turn:
        summary += " · loses the next turn"
    canvas.add(svg.text(canvas.width - svg.MARGIN, canvas.y, summary, svg.SMALL, "end", data_value=player.gold))
    canvas.y += 6
    canvas.add(_disk(svg.MARGIN, canvas.y, player.disk, paints, names, f"{name}'s disk"))
    canvas.add(svg.text(svg.MARGIN + PIECE + 8, canvas.y + 19, "map pieces", svg.SMALL, fill=svg.MUTED))
    _pieces(canvas, player.map_pieces, paints, names, f"{name}'s map pieces", svg.MARGIN + PIECE + 76)
    canvas.y += PIECE + GAP
    _hand(canvas, player.hand, name)
    _sets(canvas, player.sets, name)
    canvas.rule()


def draw(view: SpliceView) -> str:
    """The view as an SVG document, about 390 px wide and as tall as it needs."""
    who = view.viewer or "the referee"
    paints = _paints(view)
    names = dict(view.colours)
    canvas = svg.Canvas(f"Splice, turn {view.turn}, as {who} sees it: {view.expected}")
    canvas.heading(f"Splice · turn {view.turn}" + (" · final round" if view.final_round else ""))
    canvas.paragraph(view.expected)
    pending = view.pending
    if pending:
        canvas.paragraph(f"{pending.obligation} ({pending.by}): {pending.why}")
    if view.outcome:
        canvas.paragraph(view.outcome.reason, svg.NORMAL, svg.INK)
    own, others = svg.own_first(view.players, view.viewer)
    if own:
        _player(canvas, view, own, paints, names)
    x: float = svg.MARGIN
    for letter, name in names.items():
        words = f"{letter} {name}"
        canvas.add(svg.chip(x, canvas.y, paints[letter], words, f"{letter} is {name}"))
        x += svg.chip_width(words) + 4
    canvas.y += 24
    for x, label, count in ((svg.MARGIN, "draw pile", view.draw_pile), (svg.MARGIN + 120, "map pile", view.map_pile)):
        canvas.add(
            svg.card_back(
                x, canvas.y, CARD_W, CARD_H, f"the {label}: {plural(count, 'card')}", str(count), count, "pile"
            )
        )
        canvas.add(svg.text(x + CARD_W + 6, canvas.y + 30, label, svg.SMALL, fill=svg.MUTED))
    hurricanes = view.hurricanes
    canvas.add(
        svg.text(
            canvas.width - svg.MARGIN, canvas.y + 14, f"hurricanes: {hurricanes.in_play} in play", svg.SMALL, "end"
        )
    )
    canvas.add(
        svg.text(canvas.width - svg.MARGIN, canvas.y + 30, f"{hurricanes.in_centre} in the centre", svg.SMALL, "end")
    )
    canvas.y += CARD_H + GAP
    if view.unused_disks:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 19, "unused disks", svg.SMALL, fill=svg.MUTED))
        x = svg.MARGIN + 84
        for code in view.unused_disks:
            canvas.add(_disk(x, canvas.y, code, paints, names, "unused"))
            x += PIECE + GAP
        canvas.y += PIECE + GAP
    if view.map_laid:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 19, "map laid", svg.SMALL, weight="bold"))
        _pieces(canvas, view.map_laid, paints, names, "the map laid", svg.MARGIN + 84)
        canvas.y += PIECE + GAP
    canvas.rule()
    for player in others:
        _player(canvas, view, player, paints, names)
    return canvas.render()


def draw_piece(view: SpliceView, code: str) -> str:
    """One piece as the board draws it, for the card picker: a deck card, a map piece or a gemstone disk."""
    paints, names = _paints(view), dict(view.colours)
    if code in names:
        return svg.document(
            PIECE + 2, PIECE + 2, f"the {names[code]} disk", [_disk(1, 1, code, paints, names, "a disk")]
        )
    if len(code) == 2 and code[0] in names and code[1:].isdigit():
        return svg.document(
            PIECE + 2, PIECE + 2, f"the map piece {code}", [_piece(1, 1, code, paints, names, "a map piece")]
        )
    return svg.document(CARD_W + 2, CARD_H + 2, f"the card {code}", [_card(1, 1, code, "a card")])
