"""Splendor's picture: the view drawn as SVG (the face-up cards by level, decks, nobles, the bank, each player).

Drawn from the view alone, so a seat's picture hides what its view hides: another player's blind reserve is a
card back marked with its level. A card's code says everything on its face (`1w0-b3`: level 1, a white bonus,
0 points, costs 3 blue), so the picture reads the codes and needs no table of cards.
"""

from __future__ import annotations

import re

from ... import svg
from ...text import plural
from .components import COLOUR_NAMES, COLOURS, GEMS, NOBLE_POINTS
from .view import SplendorPlayer, SplendorView

_CARD = re.compile(r"^([1-9])([a-z])(\d+)-((?:[a-z]\d+)*)$")
_COST = re.compile(r"([a-z])(\d+)")
CARD_W, CARD_H, GAP = 72, 100, 6
NOBLE_W, NOBLE_H = 66, 80
STRIP_W, STRIP_H = 70, 18


def _paint(letter: str) -> svg.Colour:
    return svg.colour(_name(letter))


def _name(letter: str) -> str:
    return COLOUR_NAMES[COLOURS.index(letter)] if letter in COLOURS else letter


def _costs(code: str) -> list[tuple[str, int]]:
    return [(letter, int(n)) for letter, n in _COST.findall(code)]


def _spoken(costs: list[tuple[str, int]]) -> str:
    return ", ".join(f"{n} {_name(letter)}" for letter, n in costs) or "nothing"


def _chips(x: float, y: float, costs: list[tuple[str, int]], what: str) -> list[str]:
    """Costs or requirements stacked upwards from `y`, one chip per colour: its letter and its count."""
    parts = []
    for i, (letter, n) in enumerate(reversed(costs)):
        parts.append(
            svg.chip(x, y - (i + 1) * 18, _paint(letter), f"{letter} {n}", f"{what} {n} {_name(letter)}", value=n)
        )
    return parts


def _card(x: float, y: float, code: str) -> str:
    found = _CARD.match(code)
    if not found:  # a code this picture cannot read is still shown, by its code
        return svg.card(x, y, CARD_W, CARD_H, code, f"card {code}", [svg.text(x + 4, y + 16, code, svg.SMALL)])
    level, bonus, points, cost = found.group(1), found.group(2), int(found.group(3)), _costs(found.group(4))
    label = f"level {level} card {code}: {_name(bonus)} bonus, {plural(points, 'point')}, costs {_spoken(cost)}"
    body = [
        svg.text(x + 6, y + 20, str(points) if points else "", svg.LARGE, weight="bold"),
        svg.disk(x + CARD_W - 15, y + 15, 11, _paint(bonus), bonus),
        svg.text(x + CARD_W - 5, y + CARD_H - 5, f"L{level}", svg.SMALL, "end", fill=svg.MUTED),
        *_chips(x + 4, y + CARD_H - 3, cost, "costs"),
    ]
    return svg.card(x, y, CARD_W, CARD_H, code, label, body)


def _slot(x: float, y: float, level: str) -> str:
    return svg.group(
        [
            svg.title(f"an empty level-{level} slot"),
            svg.rect(x, y, CARD_W, CARD_H, "none", svg.LINE, 5, stroke_dasharray="4 3"),
        ],
        class_="slot",
    )


def _noble(x: float, y: float, code: str) -> str:
    needs = _costs(code)
    body = [
        svg.text(x + 6, y + 15, f"{NOBLE_POINTS} pts", svg.SMALL, weight="bold"),
        *_chips(x + 6, y + NOBLE_H - 3, needs, "needs"),
    ]
    return svg.card(
        x,
        y,
        NOBLE_W,
        NOBLE_H,
        code,
        f"noble {code}: needs {_spoken(needs)} bonuses, {NOBLE_POINTS} points",
        body,
        fill="#f3ecff",
    )


def _row_of_nobles(canvas: svg.Canvas, codes: list[str]) -> None:
    x = svg.MARGIN
    for code in codes:
        if x + NOBLE_W > canvas.width - svg.MARGIN:
            x = svg.MARGIN
            canvas.y += NOBLE_H + GAP
        canvas.add(_noble(x, canvas.y, code))
        x += NOBLE_W + GAP
    canvas.y += NOBLE_H + GAP


def _levels(canvas: svg.Canvas, view: SplendorView) -> None:
    for level in sorted(view.board, reverse=True):
        left = view.decks.get(level, 0)
        x = svg.MARGIN
        deck_w = canvas.width - 2 * svg.MARGIN - 4 * (CARD_W + GAP)
        canvas.add(
            svg.card_back(
                x, canvas.y, deck_w, CARD_H, f"level {level} deck: {plural(left, 'card')} left", str(left), left, "pile"
            )
        )
        canvas.add(svg.text(x + deck_w / 2, canvas.y + 16, f"L{level}", svg.SMALL, "middle", "bold", "#ffffff"))
        x += deck_w + GAP
        for code in view.board[level]:
            canvas.add(_card(x, canvas.y, code) if code else _slot(x, canvas.y, level))
            x += CARD_W + GAP
        canvas.y += CARD_H + GAP


def _tokens(canvas: svg.Canvas, counts: dict[str, int], label: str, whose: str) -> None:
    canvas.y += 2
    canvas.add(svg.text(svg.MARGIN, canvas.y + 13, label, svg.SMALL, fill=svg.MUTED))
    x: float = svg.MARGIN + 52
    for letter, n in counts.items():
        words = f"{letter} {n}"
        canvas.add(svg.chip(x, canvas.y, _paint(letter), words, f"{whose} {n} {_name(letter)}", value=n))
        x += svg.chip_width(words) + 6
    canvas.y += 20


def _bank(canvas: svg.Canvas, bank: dict[str, int]) -> None:
    canvas.add(svg.text(svg.MARGIN, canvas.y + 20, "bank", svg.NORMAL, weight="bold"))
    x = svg.MARGIN + 56
    for letter, n in bank.items():
        canvas.add(svg.disk(x, canvas.y + 15, 14, _paint(letter), letter, f"bank: {n} {_name(letter)}", value=n))
        canvas.add(svg.text(x + 18, canvas.y + 20, f"×{n}", svg.NORMAL))
        x += 52
    canvas.y += 38


def _owned(canvas: svg.Canvas, cards: list[str]) -> None:
    """Bought cards stacked by bonus colour, as on the table: one short strip per card."""
    columns: dict[str, list[str]] = {gem: [] for gem in GEMS}
    for code in cards:
        found = _CARD.match(code)
        columns.setdefault(found.group(2) if found else "?", []).append(code)
    tallest = 0
    for i, (gem, codes) in enumerate(columns.items()):
        x = svg.MARGIN + i * (STRIP_W + 4)
        for j, code in enumerate(codes):
            found = _CARD.match(code)
            y = canvas.y + j * (STRIP_H + 2)
            points = int(found.group(3)) if found else 0
            words = f"{gem} L{found.group(1) if found else '?'}" + (f" {points}pt" if points else "")
            paint = _paint(gem)
            canvas.add(
                svg.card(
                    x,
                    y,
                    STRIP_W,
                    STRIP_H,
                    code,
                    f"bought {code}",
                    [svg.text(x + STRIP_W / 2, y + 13, words, svg.SMALL, "middle", "bold", paint.ink)],
                    fill=paint.fill,
                )
            )
        tallest = max(tallest, len(codes))
    canvas.y += tallest * (STRIP_H + 2) + (2 if tallest else 0)


def _player(canvas: svg.Canvas, view: SplendorView, player: SplendorPlayer) -> None:
    name = player.name
    marker = "▶ " if view.to_act == name else ""
    canvas.y += svg.NORMAL + 2
    canvas.add(svg.text(svg.MARGIN, canvas.y, f"{marker}{name}", svg.NORMAL + 1, weight="bold"))
    summary = f"{plural(player.points, 'point')} · {plural(len(player.cards), 'card')} · {plural(len(player.nobles), 'noble')}"
    canvas.add(svg.text(canvas.width - svg.MARGIN, canvas.y, summary, svg.SMALL, "end"))
    canvas.y += 4
    _tokens(canvas, player.tokens, "tokens", f"{name} holds")
    _tokens(canvas, player.bonus, "bonus", f"{name} has a bonus of")
    canvas.y += 2
    _owned(canvas, player.cards)
    if player.reserved:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, "reserved", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
        x = svg.MARGIN
        for entry in player.reserved:
            if entry.startswith("?"):
                canvas.add(
                    svg.card_back(
                        x, canvas.y, CARD_W, CARD_H, f"a level-{entry[1:]} card {name} reserved blind", f"L{entry[1:]}"
                    )
                )
            else:
                canvas.add(_card(x, canvas.y, entry))
            x += CARD_W + GAP
        canvas.y += CARD_H + GAP
    if player.nobles:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, "nobles", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
        _row_of_nobles(canvas, player.nobles)
    canvas.rule()


def draw(view: SplendorView) -> str:
    """The view as an SVG document, about 390 px wide and as tall as it needs."""
    who = view.viewer or "the referee"
    canvas = svg.Canvas(f"Splendor, turn {view.turn}, as {who} sees it: {view.expected}")
    canvas.heading(f"Splendor · turn {view.turn}")
    last_round = view.end_triggered and view.outcome is None  # once the game is over, no round is on
    canvas.paragraph(view.expected + (" · the last round is on" if last_round else ""))
    if view.outcome:
        canvas.paragraph(view.outcome.reason, svg.NORMAL, svg.INK)
    own, others = svg.own_first(view.players, view.viewer)
    if own:
        _player(canvas, view, own)
    if view.nobles:
        _row_of_nobles(canvas, view.nobles)
    _levels(canvas, view)
    _bank(canvas, view.bank)
    canvas.rule()
    for player in others:
        _player(canvas, view, player)
    return canvas.render()


def draw_piece(view: SplendorView, code: str) -> str:
    """One piece as the board draws it, for the card picker: a card, a noble or a gem (a token of its colour)."""
    if code in COLOURS:
        return svg.document(
            32, 32, f"a {_name(code)} gem", [svg.disk(16, 16, 14, _paint(code), code, f"a {_name(code)} gem", code)]
        )
    if _CARD.match(code):
        return svg.document(CARD_W + 2, CARD_H + 2, f"the card {code}", [_card(1, 1, code)])
    return svg.document(NOBLE_W + 2, NOBLE_H + 2, f"the noble {code}", [_noble(1, 1, code)])
