"""Player names: what a name may be, and which names are too alike to sit at one table.

A name is read aloud, typed in moves (`ben: take r g b`), printed on boards and stored in the library,
so it must be one visible word that cannot be mistaken for another player's name or for an option:

- letters of any script, combining marks, digits, and `_ - . '`; at most 24 characters; NFC form;
- no spaces, control or invisible characters (zero-width, right-to-left marks), no `:`;
- not starting with `-` (it would read as a command-line option);
- not `table` or `nobody` (they name who acts when no player does);
- not mixing Latin, Greek and Cyrillic letters (`аna` with a Cyrillic `а` passes for `ana`).

Two names collide when their *skeletons* are equal: case folded, accents stripped, and letters and digits
that look like Latin letters mapped to them (`Ana`, `ANA`, Cyrillic `Аnа` and `4na` are not `ana`... except
the first three, which are; `rn` passes for `m`, a capital `I` for `l`). The check is a simplified form of
Unicode TR 39's confusable detection.
"""

from __future__ import annotations

import unicodedata

from .text import quote

MAX_LENGTH = 24
RESERVED = ("table", "nobody")
_PUNCTUATION = frozenset("_-.'")
# look-alikes of Latin letters (TR 39 confusables, the common part): Cyrillic, Greek, and digits
_LOOK_ALIKE = str.maketrans(
    {
        "а": "a",
        "в": "b",
        "е": "e",
        "ё": "e",
        "к": "k",
        "м": "m",
        "н": "h",
        "о": "o",
        "р": "p",
        "с": "c",
        "т": "t",
        "у": "y",
        "х": "x",
        "ѕ": "s",
        "і": "i",
        "ї": "i",
        "ј": "j",
        "ԁ": "d",
        "ԛ": "q",
        "ԝ": "w",
        "һ": "h",
        "ӏ": "l",
        "α": "a",
        "β": "b",
        "ε": "e",
        "η": "n",
        "ι": "i",
        "κ": "k",
        "μ": "u",
        "ν": "v",
        "ο": "o",
        "ρ": "p",
        "τ": "t",
        "υ": "u",
        "χ": "x",
        "ω": "w",
        "ϲ": "c",
        "0": "o",
        "1": "l",
        "5": "s",
        "|": "l",
    }
)
_CONFUSABLE_SCRIPTS = ("LATIN", "GREEK", "CYRILLIC")


def _script(char: str) -> str | None:
    """LATIN, GREEK or CYRILLIC for a letter of those scripts, else None."""
    name = unicodedata.name(char, "")
    for script in _CONFUSABLE_SCRIPTS:
        if name.startswith(script):
            return script
    return None


def check_name(name: str) -> str | None:
    """What is wrong with `name` as a player's name, or None when it is a good name."""
    shown = quote(name)
    if not name:
        return "a player's name cannot be empty"
    if len(name) > MAX_LENGTH:
        return f"name {shown} is too long: at most {MAX_LENGTH} characters"
    for char in name:
        category = unicodedata.category(char)
        if category[0] in "LM" or category == "Nd" or char in _PUNCTUATION:
            continue
        if char == ":":
            return f"name {shown} contains ':', which separates a player's name from a move"
        if category[0] in "CZ":
            return f"name {shown} contains a space, control or invisible character (U+{ord(char):04X})"
        return f"name {shown} contains {char!r}: names are letters, digits and _ - . '"
    if unicodedata.category(name[0])[0] == "M":
        return f"name {shown} starts with a combining mark"
    if name.startswith("-"):
        return f"name {shown} starts with '-', so it would read as an option"
    if unicodedata.normalize("NFC", name) != name:
        return f"name {shown} is not in Unicode normal form NFC (type it again, or copy it from elsewhere)"
    if name.casefold() in RESERVED:
        return f"{shown} cannot be a player's name: it names who acts when no player does"
    scripts = {script for script in map(_script, name) if script}
    if len(scripts) > 1:
        return f"name {shown} mixes {' and '.join(sorted(s.title() for s in scripts))} letters, so it may pass for another name"
    return None


def skeleton(name: str) -> str:
    """What `name` looks like: two names with the same skeleton can be mistaken for each other."""
    stripped = "".join(c for c in unicodedata.normalize("NFKD", name.casefold()) if unicodedata.category(c) != "Mn")
    # letter pairs that read as one letter in most fonts (TR 39 lists them): `rn` passes for `m`
    return unicodedata.normalize("NFKC", stripped).casefold().translate(_LOOK_ALIKE).replace("rn", "m")


def skeletons(name: str) -> set[str]:
    """Every skeleton of `name`. A capital `I` looks like `l`, yet folds to `i` like any capital: so `Ian`
    is read both ways, and passes for `ian` as for `lan` (which do not pass for each other)."""
    found = {skeleton(name)}
    if "I" in name:
        found.add(skeleton(name.replace("I", "l")))
    return found


def check_names(names: list[str] | tuple[str, ...]) -> list[str]:
    """Problems with the names at one table: each bad name, then each pair that looks alike."""
    problems = [problem for problem in map(check_name, names) if problem]
    seen: dict[str, str] = {}
    for name in names:
        keys = skeletons(name)
        other = next((seen[key] for key in keys if key in seen), None)
        if other is not None:
            same = "twice" if other == name else f"and {quote(other)} look alike"
            problems.append(
                f"{quote(name)} {same}: names at one table must differ, ignoring case and look-alike letters"
            )
        else:
            seen.update(dict.fromkeys(keys, name))
    return problems
