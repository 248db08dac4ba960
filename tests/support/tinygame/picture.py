"""Ten's picture: the running total against the target, one disk per seat, the seat to act marked."""

from __future__ import annotations

from tally.core import svg

from .view import TenView


def draw(view: TenView) -> str:
    """The view as an SVG document drawn with the kernel's parts (`core/svg.py`)."""
    canvas = svg.Canvas(f"Ten, turn {view.turn}: {view.total} of {view.target}; {view.expected}")
    canvas.heading(f"Ten · total {view.total} of {view.target}")
    canvas.paragraph(view.outcome.reason if view.outcome else view.expected)
    canvas.y += 14
    for i, player in enumerate(view.players):
        name = player.name
        acting = view.to_act == name
        canvas.add(
            svg.disk(
                svg.MARGIN + 14 + i * 40,
                canvas.y,
                12,
                svg.colour("gold" if acting else "gray"),
                name[:1].upper(),
                f"{name}{' to act' if acting else ''}",
            )
        )
    canvas.y += 16
    return canvas.render()
