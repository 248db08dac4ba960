"""One game's chart drawn in the terminal (`tally chart LOG` without `--svg`): each player's score over the turns
as a plot of characters within 80 columns, the round boundaries, a legend and the moments that decided it.

The same rows as the SVG chart (`store.library.charts.game_chart`): every player's score after each turn. A player
is told apart by a character of its own (the legend says which), never by colour; where two players' marks fall on
one cell, `&` stands for both (the legend says that too)."""

from __future__ import annotations

import math
from typing import Any

from .wrap import wrapped

WIDTH = 80  # the whole chart's width, its axis labels and legend included
PLOT_ROWS = 12  # rows of the plot, above its axis
MARKS = "ox+*#@%="  # one per player, in seat order
BOTH = "&"  # two players or more on one cell
ROUND = "┴"  # on the turns' axis: a later round's first turn


def _ticks(low: float, high: float) -> tuple[float, float, float]:
    """A round step (1, 2 or 5 times a power of ten) and the axis' ends, multiples of it, covering [low, high]."""
    span = max(high - low, 1)
    raw = span / 4
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    bottom = math.floor(low / step) * step
    return (
        step,
        bottom,
        max(math.ceil(high / step) * step, bottom + step),
    )  # every score alike (0 at the start): one step


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def draw(
    title: str,
    rows: list[list[Any]],
    rounds: list[tuple[int, int]],
    moments: list[tuple[int, str]],
    y_label: str,
    x_label: str = "turn",
) -> list[str]:
    """The chart's lines: `rows` (player, turn, score) as the SVG chart has them, `rounds` (round, first turn),
    `moments` (turn, what happened)."""
    lines = wrapped(title, WIDTH)
    series: dict[str, list[tuple[int, float]]] = {}
    for player, turn, score in rows:
        series.setdefault(str(player), []).append((int(turn), float(score)))
    if not series:
        return lines + ["no data: no score was recorded"]
    turns = [turn for points in series.values() for turn, _ in points]
    values = [score for points in series.values() for _, score in points]
    first, last = min(turns), max(turns)
    step, low, high = _ticks(min(0.0, min(values)), max(values))
    labels = [_number(low + step * i) for i in range(int(round((high - low) / step)) + 1)]
    gutter = max(map(len, labels)) + 2  # the y axis' numbers, a space, the axis
    columns = WIDTH - gutter - len(x_label) - 2  # the turns' axis is named at its end
    span = max(last - first, 1)

    def column(turn: int) -> int:
        return round((turn - first) / span * (columns - 1))

    def row(score: float) -> int:  # 0 is the top row
        return round((high - score) / (high - low) * (PLOT_ROWS - 1))

    grid = [[" "] * columns for _ in range(PLOT_ROWS)]
    for index, points in enumerate(series.values()):
        mark = MARKS[index % len(MARKS)]
        for turn, score in points:
            cell = grid[row(score)]
            at = column(turn)
            cell[at] = mark if cell[at] in (" ", mark) else BOTH
    tick_rows = {row(low + step * i): labels[i] for i in range(len(labels))}
    lines.append(f"{y_label}".rjust(gutter - 2))
    for number, line in enumerate(grid):
        label = tick_rows.get(number, "")
        lines.append(f"{label:>{gutter - 2}} {'┤' if label else '│'}{''.join(line).rstrip()}")
    axis_line = ["─"] * columns
    for _, turn in rounds:
        axis_line[column(turn)] = ROUND
    lines.append(" " * (gutter - 1) + "└" + "".join(axis_line))
    axis = [" "] * (columns + 1)
    for turn in sorted({first, last, *(_ticks(first, last)[1] + _ticks(first, last)[0] * i for i in range(1, 5))}):
        if first <= turn <= last:
            text = _number(turn)
            start = min(max(column(int(turn)) + 1 - len(text) // 2, 0), columns + 1 - len(text))
            if all(c == " " for c in axis[max(start - 1, 0) : start + len(text) + 1]):
                axis[start : start + len(text)] = text
    lines.append(" " * (gutter - 1) + "".join(axis).rstrip() + f"  {x_label}")
    legend = [f"{MARKS[i % len(MARKS)]} {name}" for i, name in enumerate(series)]
    legend.append(f"{BOTH} several at once")
    if rounds:
        legend.append(f"{ROUND} a round begins")
    lines += wrapped("   ".join(legend), WIDTH)
    for number, (turn, what) in enumerate(moments, 1):
        lines += wrapped(f"{number:>2}. {x_label} {turn}: {what}", WIDTH)
    return lines
