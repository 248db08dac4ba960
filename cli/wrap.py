"""Text for a terminal, broken between words to its width (the session's lines, a long listing, a chart's legend)."""

from __future__ import annotations

import re

_TERM = re.compile(r"( *)(\S.*?  +)(?=\S)")  # an entry of a two-column list: `  N               the move numbered N`


def wrapped(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width` columns, broken between words only (a word longer than a whole line
    is cut, as the terminal would cut it). A line that overflows continues under where it started: under its
    description in a two-column list (`  undo #N        void event N`), under a deeply indented line's own
    indent (a description on a line of its own), else two columns in from its indent (`illegal: ...`, a rule's
    text), so a continued line never reads as a new one."""
    import textwrap

    lines: list[str] = []
    for line in text.split("\n"):
        if len(line) <= width:
            lines.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        term = _TERM.match(line)
        hang = len(term.group(0)) if term and len(term.group(0)) <= width // 2 else lead if lead >= 4 else lead + 2
        lines.extend(
            textwrap.wrap(
                line[lead:], width, initial_indent=" " * lead, subsequent_indent=" " * hang, break_on_hyphens=False
            )
        )
    return lines
