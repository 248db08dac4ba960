"""Array's picture: the view drawn as SVG (the arrays as trees of touching cards, the hands, the pile, the scores).

Each card is a bar of its colour segments, each segment with its letter. A card laid against another sits on
the next line with its joined segment right below the matching segment of the card it touches (the join is
drawn between them), and `#n` gives its number as the text board does. Drawn from the view alone: a card the
viewer may not see (`?`) is a card back.
"""

from __future__ import annotations

from ... import svg
from ...text import plural
from .view import ArrayCard, ArrayPlayer, ArrayTree, ArrayView

ROW_H, JOIN = 22, 8  # a card's height and the gap that shows a join
LABEL_W = 34  # the `#n` column
SEGMENTS = (24, 20, 16)  # the widest segments that let a whole array fit the width
SMALL_SEG, SMALL_H = 16, 20  # cards in hands and piles


def _is_action(code: str) -> bool:
    return code == "slam" or (code.startswith("s") and code[1:].isdigit())


def _action_words(code: str) -> str:
    return "✱SLAM" if code == "slam" else f"✱S{code[1:]}"


def _paints(view: ArrayView) -> dict[str, svg.Colour]:
    return {letter: svg.colour(name, i) for i, (letter, name) in enumerate(view.colours.items())}


def _bar(
    x: float,
    y: float,
    code: str,
    seg: float,
    height: float,
    paints: dict[str, svg.Colour],
    names: dict[str, str],
    label: str,
) -> str:
    """One card: a colour card as its segments, an action card as a marked gray card."""
    if _is_action(code):
        words = _action_words(code)
        w = _width(code, seg)
        body = [svg.text(x + w / 2, y + height / 2 + 4, words, svg.SMALL, "middle", "bold")]
        return svg.card(x, y, w, height, code, f"{label}: action card {code}", body, fill="#e4e4e4")
    body = []
    for i, letter in enumerate(code):
        paint = paints.get(letter, svg.colour("gray"))
        body.append(svg.rect(x + i * seg, y, seg, height, paint.fill, svg.INK, 0, stroke_width=0.75))
        body.append(svg.text(x + i * seg + seg / 2, y + height / 2 + 4, letter, svg.SMALL, "middle", "bold", paint.ink))
    spoken = ", ".join(names.get(letter, letter) for letter in code)
    return svg.card(
        x, y, len(code) * seg, height, code, f"{label}: {code} ({spoken})", body, fill="none", stroke=svg.INK
    )


def _width(code: str, seg: float) -> float:
    return max(2 * seg, svg.text_width(_action_words(code), svg.SMALL) + 6) if _is_action(code) else len(code) * seg


def _placed(cards: list[ArrayCard], seg: float) -> dict[int, float]:
    """Each card's left edge, relative to the root's, so that joined segments sit one above the other."""
    left: dict[int, float] = {}
    for entry in cards:
        parent = entry.parent
        if parent is None or parent not in left:
            left[entry.n] = 0
            continue
        above = next(c.card for c in cards if c.n == parent)
        via = entry.via or ""
        left[entry.n] = left[parent] + seg * (above.find(via) - entry.card.find(via))
    return left


def _array(canvas: svg.Canvas, array: ArrayTree, paints: dict[str, svg.Colour], names: dict[str, str]) -> None:
    cards = array.cards
    room = canvas.width - 2 * svg.MARGIN - LABEL_W
    seg = SEGMENTS[-1]
    for seg in SEGMENTS:
        left = _placed(cards, seg)
        span = max(left[c.n] + _width(c.card, seg) for c in cards) - min(left.values())
        if span <= room:
            break
    shift = svg.MARGIN + LABEL_W - min(left.values())
    canvas.add(
        svg.text(
            svg.MARGIN,
            canvas.y + 12,
            f"array of #{array.root} · {plural(array.size, 'card')}",
            svg.SMALL,
            weight="bold",
            fill=svg.MUTED,
        )
    )
    canvas.y += 16
    rows: dict[int, float] = {}
    xs: dict[int, float] = {}
    joins: list[str] = []  # drawn first, so that a join passing behind a card in between never hides its letters
    bars: list[str] = []
    for entry in cards:
        n = entry.n
        # an array wider than the phone is kept inside it; its joins are still drawn between the touching segments
        x = min(max(left[n] + shift, svg.MARGIN + LABEL_W), canvas.width - svg.MARGIN - _width(entry.card, seg))
        y = canvas.y
        rows[n], xs[n] = y, x
        bars.append(svg.text(svg.MARGIN, y + 15, f"#{n}", svg.SMALL, weight="bold"))
        parent = entry.parent
        if parent is not None and parent in rows:
            above = next(c.card for c in cards if c.n == parent)
            via = entry.via or ""
            top_x = xs[parent] + seg * above.find(via) + seg / 2
            bottom_x = x + seg * entry.card.find(via) + seg / 2
            join = [
                svg.title(f"#{n} touches #{parent} on {names.get(via, via)}"),
                svg.element(
                    "polyline",
                    {
                        "points": f"{svg.number(top_x)},{svg.number(rows[parent] + ROW_H)} "
                        f"{svg.number(top_x)},{svg.number(y - JOIN / 2)} "
                        f"{svg.number(bottom_x)},{svg.number(y - JOIN / 2)} "
                        f"{svg.number(bottom_x)},{svg.number(y)}",
                        "fill": "none",
                        "stroke": svg.INK,
                        "stroke-width": 3,
                    },
                ),
            ]
            joins.append(svg.group(join, class_="join", data_join=f"{parent}-{n}"))
        opened = ", ".join(names.get(letter, letter) for letter in entry.open) or "none"
        bars.append(_bar(x, y, entry.card, seg, ROW_H, paints, names, f"#{n}, open: {opened}"))
        canvas.y += ROW_H + JOIN
    canvas.add(*joins, *bars)
    canvas.y += 4


def _cards(
    canvas: svg.Canvas,
    codes: list[str],
    label: str,
    paints: dict[str, svg.Colour],
    names: dict[str, str],
    whose: str = "",
) -> None:
    """A row of small cards, wrapping; `?` drawn as a back."""
    x: float = svg.MARGIN
    for code in codes:
        w = SMALL_SEG * 2 if code == "?" else _width(code, SMALL_SEG)
        if x + w > canvas.width - svg.MARGIN:
            x = svg.MARGIN
            canvas.y += SMALL_H + 4
        if code == "?":
            canvas.add(svg.card_back(x, canvas.y, w, SMALL_H, f"a card in {whose}'s hand, not shown", "?"))
        else:
            canvas.add(_bar(x, canvas.y, code, SMALL_SEG, SMALL_H, paints, names, label))
        x += w + 4
    canvas.y += SMALL_H + 6 if codes else 0


def _player(
    canvas: svg.Canvas, view: ArrayView, player: ArrayPlayer, paints: dict[str, svg.Colour], names: dict[str, str]
) -> None:
    name = player.name
    marker = "▶ " if view.to_act == name else ""
    status = "eliminated" if player.out else ("playing" if player.playing else "sitting out")
    canvas.y += svg.NORMAL + 2
    canvas.add(svg.text(svg.MARGIN, canvas.y, f"{marker}{name}", svg.NORMAL + 1, weight="bold"))
    summary = f"{player.total} points · {plural(player.cards, 'card')} · {status}"
    if player.slams:
        summary += f" · SLAM {player.slams}"
    canvas.add(svg.text(canvas.width - svg.MARGIN, canvas.y, summary, svg.SMALL, "end", data_value=player.total))
    canvas.y += 6
    _cards(canvas, player.hand, f"in {name}'s hand", paints, names, name)
    if player.shown:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 12, "shown at the round's end", svg.SMALL, fill=svg.MUTED))
        canvas.y += 16
        _cards(canvas, player.shown, f"{name} showed", paints, names)
    canvas.rule()


def draw(view: ArrayView) -> str:
    """The view as an SVG document, about 390 px wide and as tall as it needs."""
    who = view.viewer or "the referee"
    paints = _paints(view)
    names = dict(view.colours)
    canvas = svg.Canvas(f"Array, round {view.round}, turn {view.turn}, as {who} sees it: {view.expected}")
    canvas.heading(f"Array · round {view.round} · turn {view.turn}")
    canvas.paragraph(
        f"{view.expected} · dealer {view.dealer} · {plural(view.deck, 'card')} in the pile · out at {view.threshold}"
    )
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
    canvas.add(
        svg.card_back(
            canvas.width - svg.MARGIN - 44,
            canvas.y - 2,
            44,
            20,
            f"the pile: {plural(view.deck, 'card')}",
            str(view.deck),
            view.deck,
            "pile",
        )
    )
    canvas.y += 24
    if not view.arrays:
        canvas.add(svg.text(svg.MARGIN, canvas.y + 14, "no card on the table yet", svg.SMALL, fill=svg.MUTED))
        canvas.y += 20
    for array in view.arrays:
        _array(canvas, array, paints, names)
    for cards, label in ((view.given, "action cards given this round"), (view.returned, "cards back to the pile")):
        if cards:
            canvas.add(svg.text(svg.MARGIN, canvas.y + 12, label, svg.SMALL, fill=svg.MUTED))
            canvas.y += 16
            _cards(canvas, cards, label, paints, names)
    canvas.rule()
    for player in others:
        _player(canvas, view, player, paints, names)
    return canvas.render()


def draw_piece(view: ArrayView, code: str) -> str:
    """One card as a hand shows it, for the card picker: its colour segments with their letters, or an action card."""
    width = _width(code, SEGMENTS[0])
    face = _bar(1, 1, code, SEGMENTS[0], ROW_H + 6, _paints(view), dict(view.colours), "a card")
    return svg.document(width + 2, ROW_H + 8, f"the card {code}", [face])
