"""Small text helpers every game's messages share: quoting what a user typed, showing it safely, counting nouns."""

from __future__ import annotations

import unicodedata

QUOTE_LIMIT = 40

# what a terminal may act on or hide: controls (ESC starts a terminal command, CR overwrites a line), format
# characters (zero-width, right-to-left overrides), line and paragraph separators, lone surrogates (a name
# that is not UTF-8), private-use and unassigned code points
_HIDDEN = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
_SHOWN: dict[str, str] = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(char: str) -> str:
    shown = _SHOWN.get(char)
    if shown is not None:
        return shown
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` safe to print on a terminal: every control, invisible or unassigned character shown as an
    escape (`\\x1b`, `\\u202e`, `\\n`), everything else as it is. Players' names, notes, reasons, moves and
    paths go through it on the way out, so a log received from someone else cannot retitle, clear or
    rewrite the terminal of whoever reads it, nor hide text or fake a line of output."""
    if text.isprintable():  # the common case, in C: no control, format, separator (but ' ') or unassigned character
        return text
    category = unicodedata.category
    return "".join(_escape(c) if category(c) in _HIDDEN else c for c in text)


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """`repr` of what someone typed, cut to `limit` characters: a message stays one short line whatever the input."""
    text = visible(repr(value))
    if len(text) <= limit:
        return text
    return text[: limit - 4] + "…" + text[-1] + f" ({len(str(value))} characters)"


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """`1 card`, `2 cards`; irregular plurals are given (`1 match`, `2 matches`)."""
    return f"{n} {noun if n == 1 else (nouns or noun + 's')}"


def json_escape(text: str) -> str:
    """JSON text with every hidden character (as `visible` sees them) written as a `\\uXXXX` escape, which
    any JSON reader decodes to the same character (a pair of escapes beyond U+FFFF)."""
    category = unicodedata.category
    out = []
    for char in text:
        if category(char) not in _HIDDEN:
            out.append(char)
        elif ord(char) < 0x10000:
            out.append(f"\\u{ord(char):04x}")
        else:
            high, low = divmod(ord(char) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
    return "".join(out)
