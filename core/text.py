"""Small text helpers every game's messages share: quoting what a user typed, counting nouns."""

from __future__ import annotations

QUOTE_LIMIT = 40


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of what someone typed, cut to `limit` characters: a message stays one short line whatever the input."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return text[: limit - 4] + "…" + text[-1] + f" ({len(str(value))} characters)"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """`1 card`, `2 cards`; irregular plurals are given (`1 match`, `2 matches`)."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"
