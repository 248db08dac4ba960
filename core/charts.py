"""Charts of history as SVG: pure functions over what a query returns (rows as tuples or dicts), in the pictures' style.

Every mark carries its number in `data-value` (and what it stands for in `data-label` or `data-series`), so a
reader, a test or a script can take the numbers back out of the picture. Series are told apart by a colour, a
marker shape and a dash pattern together, never by colour alone; every mark has a `<title>`.

- `score_lines`: one game, each player's score over the turns, with round boundaries and marked moments;
- `bars`: one number per label (win rate by seat or by player count, games per month, score per round);
- `head_to_head`: wins of each player (row) over each other (column);
- `ranked`: a ranked list (the longest games, the closest ones).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from . import svg

SERIES = ("blue", "orange", "green", "purple", "red", "sky", "black", "yellow")
SHAPES = ("circle", "square", "triangle", "diamond", "down", "plus")
DASHES = (None, "6 3", "2 3", "8 3 2 3", "4 4", "1 2")
PLOT_LEFT, PLOT_RIGHT, PLOT_HEIGHT = 46, 12, 220
ROW = 24  # one bar or one ranked line
LABEL_SHARE = 0.4  # the most of a chart's width a column of labels may take beside its bars
MOMENT_R = 8  # a moment's numbered marker


def _row(row: Any, keys: Sequence[str]) -> tuple[Any, ...]:
    """A query's row as a tuple in the order of `keys`, whether it came as a tuple or as a dict."""
    if isinstance(row, Mapping):
        return tuple(row[key] for key in keys)
    return tuple(row)


def _labelled(rows: Iterable[Any]) -> list[tuple[str, float, str]]:
    """Rows (label, value) or (label, value, detail), as tuples or as dicts with those keys."""
    table = []
    for row in rows:
        if isinstance(row, Mapping):
            label, value, detail = row["label"], row["value"], row.get("detail")
        else:
            label, value, *rest = row
            detail = rest[0] if rest else None
        table.append((str(label), value, "" if detail is None else str(detail)))
    return table


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def _amount(value: float) -> str:
    return svg.number(round(value, 2))


def _value(value: Any) -> str:
    """An attribute's value as `svg.element` writes it: a number short, anything else escaped."""
    kind = type(value)
    return svg.number(value) if kind is int or kind is float else svg.escape(value)


def marker(shape: str, x: float, y: float, paint: svg.Colour, size: float = 4.5, **attrs: Any) -> str:
    """A series' marker: the shape tells series apart even where colours look alike."""
    style = {"fill": paint.fill, "stroke": svg.INK, "stroke-width": 1, **attrs}
    if shape == "circle":
        return svg.element("circle", {"cx": x, "cy": y, "r": size, **style})
    if shape == "square":
        return svg.element("rect", {"x": x - size, "y": y - size, "width": 2 * size, "height": 2 * size, **style})
    text = " ".join(
        f"{svg.number(round(x + dx * size, 2))},{svg.number(round(y + dy * size, 2))}" for dx, dy in _OUTLINES[shape]
    )
    return svg.element("polygon", {"points": text, **style})


_OUTLINES = {
    "triangle": ((0, -1.2), (1.1, 0.9), (-1.1, 0.9)),
    "down": ((0, 1.2), (1.1, -0.9), (-1.1, -0.9)),
    "diamond": ((0, -1.3), (1.2, 0), (0, 1.3), (-1.2, 0)),
    "plus": (
        (-0.4, -1.2),
        (0.4, -1.2),
        (0.4, -0.4),
        (1.2, -0.4),
        (1.2, 0.4),
        (0.4, 0.4),
        (0.4, 1.2),
        (-0.4, 1.2),
        (-0.4, 0.4),
        (-1.2, 0.4),
        (-1.2, -0.4),
        (-0.4, -0.4),
    ),
}


def marker_drawer(shape: str, paint: svg.Colour, size: float = 4.5) -> Callable[[float, float], str]:
    """`marker(shape, x, y, paint, size)` as a function of (x, y) alone, the same text, written without the generic
    `svg.element`: a game's chart draws one marker per player per turn (thousands), where the players share each
    turn's x and the scores repeat, so each coordinate's text is worked out once."""
    tail = f' fill="{svg.escape(paint.fill)}" stroke="{svg.escape(svg.INK)}" stroke-width="1"/>'
    number = svg.number
    if shape == "circle":
        radius = number(size)
        return lambda x, y: f'<circle cx="{number(x)}" cy="{number(y)}" r="{radius}"{tail}'
    if shape == "square":
        side = number(2 * size)
        return lambda x, y: f'<rect x="{number(x - size)}" y="{number(y - size)}" width="{side}" height="{side}"{tail}'
    outline = _OUTLINES[shape]
    across: dict[float, tuple[str, ...]] = {}
    down: dict[float, tuple[str, ...]] = {}

    def polygon(x: float, y: float) -> str:
        xs = across.get(x)
        if xs is None:
            xs = across[x] = tuple(number(round(x + dx * size, 2)) for dx, _ in outline)
        ys = down.get(y)
        if ys is None:
            ys = down[y] = tuple(number(round(y + dy * size, 2)) for _, dy in outline)
        return f'<polygon points="{" ".join(f"{a},{b}" for a, b in zip(xs, ys))}"{tail}'

    return polygon


def _style(index: int) -> tuple[svg.Colour, str, str | None]:
    return svg.colour(SERIES[index % len(SERIES)]), SHAPES[index % len(SHAPES)], DASHES[index % len(DASHES)]


def _empty(canvas: svg.Canvas) -> str:
    canvas.paragraph("no data: the query returned no rows", svg.NORMAL)
    return canvas.render()


def score_lines(
    rows: Iterable[Any],
    title: str,
    rounds: Iterable[Any] = (),
    moments: Iterable[Any] = (),
    y_label: str = "points",
    x_label: str = "turn",
) -> str:
    """Each player's score over the turns.

    `rows`: (player, turn, score); `rounds`: (round, first turn) for each round after the first, drawn as a
    boundary; `moments`: (turn, player or None, what happened), numbered on the chart and listed under it.
    """
    canvas = svg.Canvas(title)
    canvas.heading(title)
    series: dict[str, list[tuple[float, float]]] = {}
    for player, turn, score in (_row(r, ("player", "turn", "score")) for r in rows):
        series.setdefault(str(player), []).append((turn, score))
    if not series:
        return _empty(canvas)
    for points in series.values():
        points.sort()
    x: float = svg.MARGIN
    for index, name in enumerate(series):  # the legend: colour, shape and dash of each player
        paint, shape, dash = _style(index)
        w = svg.text_width(name, svg.SMALL) + 34
        if x + w > canvas.width - svg.MARGIN:
            x = svg.MARGIN
            canvas.y += 18
        canvas.add(
            svg.group(
                [
                    svg.line(x, canvas.y + 8, x + 22, canvas.y + 8, paint.fill, 2.5, stroke_dasharray=dash),
                    marker(shape, x + 11, canvas.y + 8, paint),
                    svg.text(x + 27, canvas.y + 12, name, svg.SMALL),
                ],
                class_="legend",
                data_series=name,
                data_shape=shape,
            )
        )
        x += w
    canvas.y += 24
    turns = [t for points in series.values() for t, _ in points]
    values = [v for points in series.values() for _, v in points]
    first, last = min(turns), max(turns)
    ticks = nice_ticks(min(0, min(values)), max(values))
    low, high = ticks[0], ticks[-1]
    top = canvas.y + 16
    left, right = svg.MARGIN + PLOT_LEFT, canvas.width - PLOT_RIGHT
    span = max(1, last - first)

    xs: dict[float, float] = {}
    ys: dict[float, float] = {}

    def at_x(turn: float) -> float:  # every player has a point at each turn: worked out once per turn
        found = xs.get(turn)
        if found is None:
            found = xs[turn] = round(left + (turn - first) / span * (right - left), 2)
        return found

    def at_y(value: float) -> float:
        found = ys.get(value)
        if found is None:
            found = ys[value] = round(top + PLOT_HEIGHT - (value - low) / (high - low) * PLOT_HEIGHT, 2)
        return found

    x_texts: dict[float, str] = {}
    y_texts: dict[float, str] = {}

    def x_text(turn: float) -> str:
        found = x_texts.get(turn)
        if found is None:
            found = x_texts[turn] = svg.number(at_x(turn))
        return found

    def y_text(value: float) -> str:
        found = y_texts.get(value)
        if found is None:
            found = y_texts[value] = svg.number(at_y(value))
        return found

    canvas.add(svg.text(svg.MARGIN, top - 6, y_label, svg.SMALL, fill=svg.MUTED))
    for tick in ticks:
        y = at_y(tick)
        canvas.add(svg.line(left, y, right, y, "#e2e2e2" if tick else "#999999", 1))
        canvas.add(svg.text(left - 4, y + 4, _amount(tick), svg.SMALL, "end", fill=svg.MUTED))
    for tick in nice_ticks(first, last, 6):
        if first <= tick <= last:
            canvas.add(svg.text(at_x(tick), top + PLOT_HEIGHT + 14, _amount(tick), svg.SMALL, "middle", fill=svg.MUTED))
    canvas.add(svg.text((left + right) / 2, top + PLOT_HEIGHT + 30, x_label, svg.SMALL, "middle", fill=svg.MUTED))
    for number, turn in (_row(r, ("round", "turn")) for r in rounds):
        x = at_x(turn)
        canvas.add(
            svg.group(
                [
                    svg.title(f"round {number} begins at {x_label} {turn}"),
                    svg.line(x, top, x, top + PLOT_HEIGHT, svg.MUTED, 1, stroke_dasharray="3 3"),
                    svg.text(x + 3, top + 11, f"R{number}", svg.SMALL, fill=svg.MUTED),
                ],
                class_="round",
                data_value=turn,
                data_label=f"round {number}",
            )
        )
    for index, (name, points) in enumerate(series.items()):
        paint, shape, dash = _style(index)
        path = " ".join(f"{x_text(t)},{y_text(v)}" for t, v in points)
        marks = [
            svg.element(
                "polyline",
                {"points": path, "fill": "none", "stroke": paint.fill, "stroke-width": 2.5, "stroke-dasharray": dash},
            )
        ]
        # one mark per point, written as `svg.group([svg.title(...), marker(...)], class_="mark", ...)` writes it
        # (the same text; a test compares them), but without the generic element writer: a long game has thousands
        drawn = marker_drawer(shape, paint, 3.5)
        head = f'<g class="mark" data-series="{svg.escape(name)}" data-shape="{svg.escape(shape)}" data-x="'
        said = f" {y_label} at {x_label} "
        for t, v in points:
            words = svg.escape(f"{name}: {_amount(v)}{said}{t}")
            marks.append(
                f'{head}{_value(t)}" data-value="{_value(v)}"><title>{words}</title>{drawn(at_x(t), at_y(v))}</g>'
            )
        canvas.add(svg.group(marks, class_="series", data_series=name))
    canvas.y = top + PLOT_HEIGHT + 38
    listed = [_row(m, ("turn", "player", "what")) for m in moments]
    placed: list[tuple[float, float]] = []  # the moments' markers drawn so far: a new one never covers one of them
    for number, (turn, player, what) in enumerate(sorted(listed, key=lambda m: (m[0], str(m[1]))), 1):
        said = _said(player, str(what))
        x = at_x(turn)
        scores = dict(series.get(str(player), []))
        y = _clear_of(placed, x, (at_y(scores[turn]) if turn in scores else top + 8) - 14, top + MOMENT_R)
        placed.append((x, y))
        canvas.add(
            svg.group(
                [
                    svg.title(f"{x_label} {turn}: {said}"),
                    svg.element("circle", {"cx": x, "cy": y, "r": MOMENT_R, "fill": "#ffffff", "stroke": svg.INK}),
                    svg.text(x, y + 4, number, svg.SMALL, "middle", "bold"),
                ],
                class_="moment",
                data_value=turn,
                data_series=player,
            )
        )
        for piece in svg.wrap(f"{number} · {x_label} {turn} · {said}", canvas.width - 2 * svg.MARGIN, svg.SMALL):
            canvas.y += svg.SMALL + 4
            canvas.add(svg.text(svg.MARGIN, canvas.y, piece, svg.SMALL))
    return canvas.render()


def _said(player: Any, what: str) -> str:
    """A moment in words, naming its player once: `what` as it is when it names the player already (a game's
    narration does: `ana reached 15 points`) or belongs to nobody (a round's end), else after the player's name."""
    if not player or re.search(rf"(?<!\w){re.escape(str(player))}(?!\w)", what):
        return what
    return f"{player} {what}"


def _clear_of(placed: list[tuple[float, float]], x: float, y: float, highest: float) -> float:
    """Where a moment's marker goes: at `y` over its point, else the nearest height above or below it, a marker's
    size at a time and never above `highest`, where it overlaps no marker already placed."""
    apart = 2 * MOMENT_R + 1

    def free(at: float) -> bool:
        return all((x - px) ** 2 + (at - py) ** 2 >= apart**2 for px, py in placed)

    for step in range(len(placed) + 1):
        for at in (y - step * apart, y + step * apart):
            if at >= highest and free(at):
                return round(at, 2)
    return round(y, 2)


def _bar_rows(
    canvas: svg.Canvas, rows: list[tuple[str, float, str]], unit: str, kind: str, numbered: bool = False
) -> None:
    """Horizontal bars, one per row, numbers at their ends (easy to read on a phone). Bars are labelled on their
    left; a ranked list's long labels (a game's date and kind) get a line of their own above the bar instead."""
    names = [
        f"{rank}. {label}" + (f" · {detail}" if detail else "") if numbered else label
        for rank, (label, _, detail) in enumerate(rows, 1)
    ]
    widest = max(svg.text_width(name, svg.SMALL) for name in names) + 8
    # a label never cut: when the longest does not fit beside its bar (at most LABEL_SHARE of the width), every
    # label gets a line of its own above its bar, as a ranked list's do
    stacked = numbered or widest > canvas.width * LABEL_SHARE
    label_w = 14.0 if numbered else 0.0 if stacked else widest
    high = max([value for _, value, _ in rows] + [0])
    low = min([value for _, value, _ in rows] + [0])
    left = svg.MARGIN + label_w

    def ends(value: float, detail: str) -> str:  # what follows a bar: its number, and a bar chart's detail
        return f"{_amount(value)}{unit}" + (f" · {detail}" if detail and not numbered else "")

    numbers = max(svg.text_width(ends(value, detail), svg.SMALL) * 1.1 for _, value, detail in rows) + 6
    room = canvas.width - svg.MARGIN - left - numbers
    if low < 0:  # a negative bar's number is written on its left end's side of zero, so leave it room too
        room -= numbers
    scale = room / (high - low) if high > low else 0
    zero = left + (numbers if low < 0 else 0) + (0 - low) * scale
    start = canvas.y
    for rank, (label, value, detail) in enumerate(rows, 1):
        header: list[str] = []
        shown = ""
        if stacked:
            for piece in svg.wrap(names[rank - 1], canvas.width - 2 * svg.MARGIN, svg.SMALL):
                canvas.y += svg.SMALL + 3
                header.append(svg.text(svg.MARGIN, canvas.y, piece, svg.SMALL))
            canvas.y += 1
        else:
            shown = names[rank - 1]
        y = canvas.y
        x0, x1 = sorted((zero, zero + value * scale))
        words = ends(value, detail)
        spoken = f"{label}: {_amount(value)}{unit}" + (f" ({detail})" if detail else "")
        paint = svg.colour("blue" if value >= 0 else "orange")
        canvas.add(
            svg.group(
                [
                    svg.title(spoken),
                    *header,
                    svg.text(svg.MARGIN, y + 15, shown, svg.SMALL) if shown else "",
                    svg.rect(x0, y + 3, max(x1 - x0, 1), ROW - 8, paint.fill, svg.INK, 2, stroke_width=0.5),
                    svg.text(x1 + 4, y + 15, words, svg.SMALL, weight="bold")
                    if value >= 0
                    else svg.text(x0 - 4, y + 15, words, svg.SMALL, "end", "bold"),
                ],
                class_=kind,
                data_label=label,
                data_value=value,
                data_rank=rank if numbered else None,
            )
        )
        canvas.y += ROW
    canvas.add(svg.line(zero, start, zero, canvas.y, svg.INK, 1))


def bars(rows: Iterable[Any], title: str, unit: str = "", note: str = "") -> str:
    """One bar per row (label, value[, detail]): a win rate by seat, games per month, the score per round.

    `unit` follows each number (`%`, ` games`); `note` says what the chart rests on (how many games).
    """
    canvas = svg.Canvas(title)
    canvas.heading(title)
    if note:
        canvas.paragraph(note)
    table = _labelled(rows)
    if not table:
        return _empty(canvas)
    _bar_rows(canvas, table, unit, "bar")
    return canvas.render()


def ranked(rows: Iterable[Any], title: str, unit: str = "", note: str = "") -> str:
    """A ranked list (label, value[, detail]) in the order given (the query's ORDER BY), each with its bar."""
    canvas = svg.Canvas(title)
    canvas.heading(title)
    if note:
        canvas.paragraph(note)
    table = _labelled(rows)
    if not table:
        return _empty(canvas)
    _bar_rows(canvas, table, unit, "ranked", numbered=True)
    return canvas.render()


def head_to_head(rows: Iterable[Any], title: str, note: str = "") -> str:
    """Wins of each player over each other: rows (winner, loser, wins); a cell reads `row beat column N times`."""
    canvas = svg.Canvas(title)
    canvas.heading(title)
    if note:
        canvas.paragraph(note)
    wins: dict[tuple[str, str], float] = {}
    for winner, loser, count in (_row(r, ("winner", "loser", "wins")) for r in rows):
        wins[(str(winner), str(loser))] = wins.get((str(winner), str(loser)), 0) + count
    if not wins:
        return _empty(canvas)
    players = sorted({name for pair in wins for name in pair})
    # no name is cut: a column too narrow for every name is headed by the player's number, which the row says too
    # (`1 ana`); a row's name too long for its column is wrapped onto more lines, its row made taller
    cell = min(44, (canvas.width - 2 * svg.MARGIN - 60) / len(players))
    numbered = any(svg.text_width(name, svg.SMALL) > cell - 2 for name in players)
    heads = [str(i) if numbered else name for i, name in enumerate(players, 1)]
    rows = [f"{i} {name}" if numbered else name for i, name in enumerate(players, 1)]
    label_w = min(canvas.width * LABEL_SHARE, max(svg.text_width(name, svg.SMALL) for name in rows) + 10)
    cell = min(cell, (canvas.width - 2 * svg.MARGIN - label_w) / len(players))
    most = max(wins.values())
    canvas.paragraph(
        "each cell: how often the row's player beat the column's player"
        + (" (a column is headed by its player's number)" if numbered else "")
    )
    top = canvas.y + 4
    for j, (name, head) in enumerate(zip(players, heads)):
        canvas.add(
            svg.group(
                [
                    svg.title(name),
                    svg.text(svg.MARGIN + label_w + (j + 0.5) * cell, top + 12, head, svg.SMALL, "middle", "bold"),
                ]
            )
        )
    top += 18
    y = top
    for i, row_name in enumerate(players):
        said = svg.wrap(rows[i], label_w - 8, svg.SMALL)
        height = max(cell, len(said) * (svg.SMALL + 3) + 6)
        for number, piece in enumerate(said):
            canvas.add(
                svg.text(
                    svg.MARGIN,
                    y + height / 2 + 4 + (number - (len(said) - 1) / 2) * (svg.SMALL + 3),
                    piece,
                    svg.SMALL,
                    weight="bold",
                )
            )
        for j, column in enumerate(players):
            x = svg.MARGIN + label_w + j * cell
            if row_name == column:
                canvas.add(svg.rect(x, y, cell, height, "#eeeeee", "#ffffff", 0))
                continue
            count = wins.get((row_name, column), 0)
            shade = 0.12 + 0.88 * count / most if most else 0
            canvas.add(
                svg.group(
                    [
                        svg.title(f"{row_name} beat {column} {svg.number(count)} times"),
                        svg.rect(
                            x, y, cell, height, svg.colour("blue").fill, "#ffffff", 0, fill_opacity=round(shade, 2)
                        ),
                        svg.text(
                            x + cell / 2,
                            y + height / 2 + 4,
                            _amount(count),
                            svg.NORMAL,
                            "middle",
                            "bold",
                            "#ffffff" if shade > 0.55 else svg.INK,
                        ),
                    ],
                    class_="cell",
                    data_series=row_name,
                    data_label=column,
                    data_value=count,
                )
            )
        y += height
    canvas.y = y + 6
    return canvas.render()
