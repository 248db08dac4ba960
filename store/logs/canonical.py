"""Why a line is not in canonical form (docs/format.md, "Canonical form"): only on the error path, so it
may be slow; the reader's fast path compares a line with its re-encoding and calls this when they differ."""

from __future__ import annotations

from typing import Any

import msgspec

from tally.core.model import Event
from tally.core.text import quote

_ENCODER = msgspec.json.Encoder()


def canonical_problem(line: bytes, event: Event | None) -> tuple[str, str]:
    """The rule id and why `line` is not the one way tally writes its event (docs/format.md, "Canonical form")."""
    if line[:1] != b"{" or line[-1:] != b"}":
        return "log.object-alone", "bytes (whitespace?) before or after the JSON object: a line is the object alone"
    twice = _duplicate_key(line)
    if twice is not None:
        return "log.duplicate-key", f"the key {quote(twice)} appears twice in one object"
    try:
        raw = msgspec.json.decode(line)
    except msgspec.DecodeError:
        return "log.event", "not a JSON object"
    if msgspec.json.encode(raw) != line:
        if _outside_strings(line, b" \t"):
            return (
                "log.compact",
                "whitespace between the JSON tokens: tally writes compact JSON, no space or tab outside strings",
            )
        return "log.escapes", (
            "a value written differently from tally: an escape where tally writes the character itself "
            "(`\\u0061` for `a`, `\\/` for `/`), or a number not in its shortest form"
        )
    if event is not None and isinstance(raw, dict):
        expected = msgspec.json.decode(_ENCODER.encode(event))
        extra = [key for key in raw if key not in expected]
        if extra:
            return "log.default-omitted", (
                f"the field {quote(extra[0])} holds its default value, which tally leaves out "
                "(a field equal to its default is never written)"
            )
        if list(raw) != list(expected):
            return "log.key-order", f"the fields are not in tally's order ({', '.join(expected)})"
    return "log.escapes", "a value is not written as tally writes it"


def _duplicate_key(line: bytes) -> str | None:
    """The first key that appears twice in one object of `line`, if any (only on the error path: slow)."""
    import json

    found: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in items]
        found.extend(key for i, key in enumerate(keys) if key in keys[:i])
        return dict(items)

    try:
        json.loads(line, object_pairs_hook=pairs)
    except ValueError:
        return None
    return found[0] if found else None


def _outside_strings(line: bytes, chars: bytes) -> bool:
    """Whether any of `chars` appears in `line` outside JSON strings."""
    inside = escaped = False
    for byte in line:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte in chars:
            return True
    return False
