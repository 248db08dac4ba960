"""What every picture shares: SVG elements with escaping, cards, card backs, disks, text and a palette.

Pictures are pure: a view (or a query's rows) in, an SVG document out, the same bytes for the same input.
Numbers are written with at most two decimals and attributes in the order given, so a snapshot diff shows
only what changed. Every colour is drawn with its letter (or a shape) beside it: no information is carried
by colour alone, so the pictures read the same with the common colour-vision deficiencies.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Protocol, TypeVar

WIDTH = 390  # a phone's width in CSS pixels; the viewBox lets the picture scale to any other
MARGIN = 8
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
SMALL = 11  # the smallest text any picture draws
NORMAL = 13
LARGE = 16
CHAR_WIDTH = 0.62  # an average glyph's width in em for the fonts above: enough to wrap text and size boxes


@dataclass(frozen=True)
class Colour:
    fill: str
    ink: str  # text drawn on the fill: dark on light fills, light on dark ones


# The Okabe-Ito palette (distinguishable with protanopia, deuteranopia and tritanopia), plus white, black and gray.
PALETTE: dict[str, Colour] = {
    "white": Colour("#ffffff", "#000000"),
    "black": Colour("#222222", "#ffffff"),
    "blue": Colour("#0072b2", "#ffffff"),
    "sky": Colour("#56b4e9", "#000000"),
    "green": Colour("#009e73", "#ffffff"),
    "red": Colour("#d55e00", "#ffffff"),
    "orange": Colour("#e69f00", "#000000"),
    "yellow": Colour("#f0e442", "#000000"),
    "gold": Colour("#f0e442", "#000000"),
    "purple": Colour("#cc79a7", "#000000"),
    "gray": Colour("#999999", "#000000"),
    "grey": Colour("#999999", "#000000"),
}
# for a colour name the palette lacks (a house-rules box may name any): a fixed order, never a random pick
SPARE = ("sky", "orange", "purple", "gray", "blue", "green", "red", "yellow")
INK = "#1a1a1a"
MUTED = "#555555"
PAPER = "#fdfdf8"
LINE = "#6b6b6b"
BACK = "#3b4a6b"


class _Named(Protocol):
    @property
    def name(self) -> str: ...


PlayerT = TypeVar("PlayerT", bound=_Named)


def own_first(players: Iterable[PlayerT], viewer: str | None) -> tuple[PlayerT | None, list[PlayerT]]:
    """A seat's own entry and every other player's, in seat order: a seat's picture draws its own seat first, under
    the heading, so that a phone shows the seat its own hand without scrolling past the table; the host's picture
    and a watcher's (no seat of theirs) draw every seat in order (`None` first)."""
    listed = list(players)
    own = next((player for player in listed if viewer and player.name == viewer), None)
    return own, [player for player in listed if player is not own]


def colour(name: str, index: int = 0) -> Colour:
    """The palette's colour for `name`; an unknown name gets a spare colour picked by `index`, deterministically."""
    return PALETTE.get(name.lower()) or PALETTE[SPARE[index % len(SPARE)]]


_UNSAFE = re.compile(r"[&<>\"']")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def escape(text: object) -> str:
    """Text made safe inside an element or a double-quoted attribute."""
    return _UNSAFE.sub(lambda found: _ENTITIES[found.group(0)], str(text))


def number(value: float) -> str:
    """A coordinate as short, stable text: 12, 12.5, 12.33 (never 12.000000001)."""
    if type(value) is int or float(value).is_integer():
        return str(int(value))
    return f"{value:.2f}".rstrip("0").rstrip(".")


@cache
def _attribute(key: str) -> str:
    return key.rstrip("_").replace("_", "-")


def element(tag: str, attrs: Mapping[str, Any] | None = None, *children: str) -> str:
    """One element; attributes whose value is None are left out, `class_` is written `class`."""
    parts = [tag]
    for key, value in (attrs or {}).items():
        if value is None:
            continue
        kind = type(value)
        text = number(value) if kind is int or kind is float else escape(value)
        parts.append(f'{_attribute(key)}="{text}"')
    head = " ".join(parts)
    if not children:
        return f"<{head}/>"
    return f"<{head}>{''.join(children)}</{tag}>"


def title(text: str) -> str:
    """A tooltip and the name a screen reader says for the enclosing shape."""
    return element("title", None, escape(text))


def text(
    x: float,
    y: float,
    words: object,
    size: int = NORMAL,
    anchor: str = "start",
    weight: str | None = None,
    fill: str = INK,
    **attrs: Any,
) -> str:
    """Text whose baseline is at `y`."""
    style = {
        "x": x,
        "y": y,
        "font-size": max(size, SMALL),
        "text-anchor": anchor if anchor != "start" else None,
        "font-weight": weight,
        "fill": fill,
        **attrs,
    }
    return element("text", style, escape(words))


def text_width(words: str, size: int = NORMAL) -> float:
    return len(words) * size * CHAR_WIDTH


def wrap(words: str, width: float, size: int = NORMAL) -> list[str]:
    """Words broken into lines that fit `width` pixels (a word longer than a line keeps its own line)."""
    per_line = max(1, int(width / (size * CHAR_WIDTH)))
    lines: list[str] = []
    current = ""
    for word in words.split():
        candidate = f"{current} {word}" if current else word
        if len(candidate) <= per_line or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def rect(
    x: float, y: float, w: float, h: float, fill: str = PAPER, stroke: str = LINE, rx: float = 4, **attrs: Any
) -> str:
    return element("rect", {"x": x, "y": y, "width": w, "height": h, "rx": rx, "fill": fill, "stroke": stroke, **attrs})


def line(x1: float, y1: float, x2: float, y2: float, stroke: str = LINE, width: float = 1.5, **attrs: Any) -> str:
    return element("line", {"x1": x1, "y1": y1, "x2": x2, "y2": y2, "stroke": stroke, "stroke-width": width, **attrs})


def group(children: Iterable[str], **attrs: Any) -> str:
    return element("g", attrs, *children) if attrs else "".join(children)


def card(
    x: float,
    y: float,
    w: float,
    h: float,
    code: str,
    label: str,
    body: Iterable[str] = (),
    fill: str = PAPER,
    stroke: str = LINE,
) -> str:
    """A face-up card: its shape, a `<title>` for screen readers and its code in `data-card` (what tests read)."""
    return element("g", {"class": "card", "data-card": code}, title(label), rect(x, y, w, h, fill, stroke, 5), *body)


def card_back(
    x: float, y: float, w: float, h: float, label: str, mark: str = "?", count: int = 1, kind: str = "card-back"
) -> str:
    """Cards whose faces this view does not show: a patterned back, a mark (a count, a level) and no code.

    `count` is how many cards the back stands for (one back may draw a whole hidden hand), in `data-count`;
    `kind` (the class) tells a hidden card from a pile whose order nobody may see (`pile`)."""
    inner = rect(x + 3, y + 3, w - 6, h - 6, "none", "#c8d0e0", 3, stroke_dasharray="3 2")
    return element(
        "g",
        {"class": kind, "data-count": count},
        title(label),
        rect(x, y, w, h, BACK, "#1f2a40", 5),
        inner,
        text(x + w / 2, y + h / 2 + 4, mark, SMALL if len(mark) > 2 else NORMAL, "middle", "bold", "#ffffff"),
    )


def disk(
    cx: float,
    cy: float,
    r: float,
    paint: Colour,
    letter: str,
    label: str | None = None,
    code: str | None = None,
    value: int | None = None,
) -> str:
    """A token or disk: a circle in its colour with its letter (a count below it when `value` is given)."""
    children = [title(label)] if label else []
    children.append(
        element("circle", {"cx": cx, "cy": cy, "r": r, "fill": paint.fill, "stroke": INK, "stroke-width": 1})
    )
    children.append(
        text(
            cx,
            cy + SMALL * 0.36 + (1 if r >= 10 else 0),
            letter,
            NORMAL if r >= 11 else SMALL,
            "middle",
            "bold",
            paint.ink,
        )
    )
    attrs = {"class": "disk", "data-card": code, "data-value": value}
    return element("g", attrs, *children)


def chip(x: float, y: float, paint: Colour, words: str, label: str, size: int = SMALL, value: int | None = None) -> str:
    """A small coloured label holding its own letter and count (a gem cost, a token count)."""
    w = text_width(words, size) + 8
    return element(
        "g",
        {"class": "chip", "data-value": value},
        title(label),
        rect(x, y, w, size + 5, paint.fill, INK, 3, stroke_width=0.75),
        text(x + w / 2, y + size + 1, words, size, "middle", "bold", paint.ink),
    )


def chip_width(words: str, size: int = SMALL) -> float:
    return text_width(words, size) + 8


@dataclass
class Canvas:
    """A picture built top to bottom: parts are added at a cursor `y` that grows, and the height follows."""

    label: str
    width: int = WIDTH
    y: float = MARGIN
    parts: list[str] = field(default_factory=list)

    def add(self, *parts: str) -> None:
        self.parts.extend(parts)

    def heading(self, words: str, size: int = LARGE) -> None:
        for piece in wrap(words, self.width - 2 * MARGIN, size):
            self.y += size + 2
            self.add(text(MARGIN, self.y, piece, size, weight="bold"))
        self.y += 4

    def paragraph(self, words: str, size: int = SMALL, fill: str = MUTED) -> None:
        for piece in wrap(words, self.width - 2 * MARGIN, size):
            self.y += size + 3
            self.add(text(MARGIN, self.y, piece, size, fill=fill))
        self.y += 4

    def rule(self) -> None:
        self.y += 4
        self.add(line(MARGIN, self.y, self.width - MARGIN, self.y, "#cccccc", 1))
        self.y += 6

    def render(self) -> str:
        return document(self.width, self.y + MARGIN, self.label, self.parts)


def document(width: float, height: float, label: str, parts: Iterable[str]) -> str:
    """The whole SVG: sized for a phone, scalable through its viewBox, announced as one image with a label."""
    head = {
        "xmlns": "http://www.w3.org/2000/svg",
        "width": width,
        "height": height,
        "viewBox": f"0 0 {number(width)} {number(height)}",
        "role": "img",
        "aria-label": label,
        "font-family": FONT,
    }
    background = element("rect", {"x": 0, "y": 0, "width": width, "height": height, "fill": "#ffffff"})
    return element("svg", head, title(label), background, *parts) + "\n"
