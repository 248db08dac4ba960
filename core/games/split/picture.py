"""Split's picture: the view drawn as SVG (the discard row, each hand, matches by grade, the score pads).

Drawn from the view alone: a hand the viewer may not see is drawn as card backs (one back with the count
when the hand is large). A half-card's code says its face (`7HL`: the left half of the seven of hearts), and
a suit is drawn with its symbol beside its colour.
"""

from __future__ import annotations

from ... import svg
from ...text import plural
from .view import SplitPlayer, SplitView

CARD_W, CARD_H, GAP = 32, 46, 4
SUITS = {"S": ("♠", "#1a1a1a"), "H": ("♥", "#b8281e"), "D": ("♦", "#b8281e"), "C": ("♣", "#1a1a1a")}
GRADES = ("perfect", "strong", "weak")
HIDDEN_ONE_BY_ONE = 10  # a larger hidden hand is one back with its count, so a tall hand never swamps the picture


def _half(x: float, y: float, code: str, what: str) -> str:
    rank, suit, side = code[:-2], code[-2:-1], code[-1:]
    symbol, ink = SUITS.get(suit, (suit, svg.INK))
    word = "left" if side == "L" else "right"
    cut = x + CARD_W - 1 if side == "L" else x + 1  # the torn edge of the half
    body = [
        svg.text(x + CARD_W / 2, y + 17, rank, svg.NORMAL, "middle", "bold", ink),
        svg.text(x + CARD_W / 2, y + 32, symbol, svg.NORMAL, "middle", fill=ink),
        svg.text(x + CARD_W / 2, y + CARD_H - 3, f"{suit}{side}", svg.SMALL, "middle", fill=svg.MUTED),
        svg.line(cut, y + 2, cut, y + CARD_H - 2, svg.INK, 2, stroke_dasharray="3 2"),
    ]
    return svg.card(x, y, CARD_W, CARD_H, code, f"{what}: {code}, the {word} half of {rank} {symbol}", body)


def _row(canvas: svg.Canvas, codes: list[str], what: str, hidden: int = 0, whose: str = "") -> None:
    """Cards left to right, wrapping; `hidden` more drawn as backs after them."""
    x = svg.MARGIN
    per_line = int((canvas.width - 2 * svg.MARGIN + GAP) // (CARD_W + GAP))
    items: list[tuple[str, int]] = [(code, 0) for code in codes]
    if hidden > HIDDEN_ONE_BY_ONE:
        items.append(("", hidden))
    else:
        items.extend(("", 1) for _ in range(hidden))
    for i, (code, backs) in enumerate(items):
        if i and i % per_line == 0:
            x = svg.MARGIN
            canvas.y += CARD_H + GAP
        if backs:
            mark = "?" if backs == 1 else f"×{backs}"
            canvas.add(
                svg.card_back(
                    x, canvas.y, CARD_W, CARD_H, f"{plural(backs, 'card')} in {whose}'s hand, not shown", mark, backs
                )
            )
        else:
            canvas.add(_half(x, canvas.y, code, what))
        x += CARD_W + GAP
    canvas.y += (CARD_H + GAP) if items else 0


def _matches(canvas: svg.Canvas, player: SplitPlayer) -> None:
    """Each match as its two halves touching; grade by grade, a label before each line."""
    for grade in GRADES:
        pairs = player.matches[grade]
        if not pairs:
            continue
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, f"{grade} ({len(pairs)})", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
        x = svg.MARGIN
        for pair in pairs:
            if x + 2 * CARD_W > canvas.width - svg.MARGIN:
                x = svg.MARGIN
                canvas.y += CARD_H + GAP
            for half in pair.split("+"):
                canvas.add(_half(x, canvas.y, half, f"{player.name}'s {grade} match {pair}"))
                x += CARD_W
            x += 2 * GAP
        canvas.y += CARD_H + GAP
    if player.under:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, "covered by upgrades", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
        _row(canvas, player.under, f"under {player.name}'s matches")


def _player(canvas: svg.Canvas, view: SplitView, player: SplitPlayer) -> None:
    name = player.name
    marker = "▶ " if view.to_act == name else ""
    canvas.y += svg.NORMAL + 2
    canvas.add(svg.text(svg.MARGIN, canvas.y, f"{marker}{name}", svg.NORMAL + 1, weight="bold"))
    canvas.add(
        svg.text(
            canvas.width - svg.MARGIN,
            canvas.y,
            f"score {player.score} · {plural(player.hand_size, 'card')} in hand",
            svg.SMALL,
            "end",
        )
    )
    canvas.y += 6
    _row(canvas, player.hand, f"in {name}'s hand", player.hidden, name)
    _matches(canvas, player)
    canvas.rule()


def _pad(canvas: svg.Canvas, view: SplitView) -> None:
    """The score pads side by side: marks per row, the minus row, this round's score and each round's."""
    players = view.players
    label_w = 70
    column = (canvas.width - 2 * svg.MARGIN - label_w) / max(1, len(players))
    height = 16
    canvas.add(svg.text(svg.MARGIN, canvas.y + 13, "score pad", svg.NORMAL, weight="bold"))
    for i, player in enumerate(players):
        canvas.add(
            svg.text(svg.MARGIN + label_w + (i + 0.5) * column, canvas.y + 13, player.name, svg.SMALL, "middle", "bold")
        )
    canvas.y += height + 2
    rows = [row.name for row in view.pad.rows] + ["minus"]
    lines: list[tuple[str, list[int | str]]] = [(f"row {name}", [p.pad.get(name, 0) for p in players]) for name in rows]
    lines.append(("this round", [p.score for p in players]))
    for result in view.results:
        lines.append((f"round {result.round}", [result.scores.get(p.name, "") for p in players]))
    if view.results:
        last = view.results[-1].totals
        lines.append(("total", [last.get(p.name, "") for p in players]))
    for n, (label, cells) in enumerate(lines):
        y = canvas.y
        if n % 2 == 0:
            canvas.add(svg.rect(svg.MARGIN, y, canvas.width - 2 * svg.MARGIN, height, "#f1f1ec", "none", 0))
        weight = "bold" if label in ("this round", "total") else None
        canvas.add(svg.text(svg.MARGIN + 4, y + 12, label, svg.SMALL, weight=weight))
        for i, cell in enumerate(cells):
            shown = "·" if cell == 0 and label.startswith("row") else str(cell)
            canvas.add(
                svg.text(
                    svg.MARGIN + label_w + (i + 0.5) * column,
                    y + 12,
                    shown,
                    svg.SMALL,
                    "middle",
                    weight,
                    data_value=cell if isinstance(cell, int) else None,
                )
            )
        canvas.y += height
    canvas.y += GAP


def draw(view: SplitView) -> str:
    """The view as an SVG document, about 390 px wide and as tall as it needs."""
    who = view.viewer or "the referee"
    canvas = svg.Canvas(f"Split, round {view.round}, turn {view.turn}, as {who} sees it: {view.expected}")
    canvas.heading(f"Split · round {view.round} of {view.rounds} · turn {view.turn}")
    canvas.paragraph(f"{view.expected} · dealer {view.dealer} · {plural(view.pile, 'card')} in the pile")
    if view.outcome:
        canvas.paragraph(view.outcome.reason, svg.NORMAL, svg.INK)
    own, others = svg.own_first(view.players, view.viewer)
    if own:
        _player(canvas, view, own)
    canvas.add(svg.text(svg.MARGIN, canvas.y + 12, f"discard row ({len(view.row)})", svg.SMALL, fill=svg.MUTED))
    canvas.y += 16
    if view.row:
        _row(canvas, view.row, "in the discard row")
    else:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, "empty", svg.SMALL, fill=svg.MUTED))
        canvas.y += 18
    canvas.rule()
    for player in others:
        _player(canvas, view, player)
    _pad(canvas, view)
    return canvas.render()


def draw_piece(view: SplitView, code: str) -> str:
    """One half-card as the board draws it, for the card picker."""
    return svg.document(CARD_W + 2, CARD_H + 2, f"the half-card {code}", [_half(1, 1, code, "a half-card")])
