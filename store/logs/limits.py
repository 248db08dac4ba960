"""Resource limits every reader of outside input enforces before it parses (docs/format.md, "Limits").

Parsers of JSON and TOML recurse once per level of nesting: a line of a thousand `[` would end in a
RecursionError deep inside them. So the nesting depth is measured first, by a flat scan that never
recurses, and input beyond a limit is refused as a value with a stable id, never an exception.
The same checks serve request bodies of a network service (`check_json_body`).
"""

from __future__ import annotations

from typing import Any

import msgspec

MAX_DEPTH = 32  # arrays and objects inside each other; tally's own lines and manifests need at most 6
MAX_MANIFEST_DEPTH = MAX_DEPTH - 2  # a manifest is written inline into game_started: the line must stay readable
MAX_BODY = 1 << 20  # a request body holds a move or a manifest: a megabyte is far more than either needs


class LimitBroken(msgspec.Struct, frozen=True):
    """Input refused before parsing: `rule` is a stable id (`limit.depth`, `limit.size`)."""

    rule: str
    message: str


def json_depth(data: bytes, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of the JSON text `data` (brackets inside strings do not count): above `limit` as soon as
    it is known to exceed it, else a bound no greater than `limit`. Flat, so it cannot recurse; quick (C speed)
    when the text has fewer brackets than `limit`."""
    if data.count(b"[") + data.count(b"{") <= limit:  # cannot be deeper than it has brackets: C speed
        return min(data.count(b"[") + data.count(b"{"), limit)
    depth = deepest = 0
    inside = escaped = False
    for byte in data:
        if inside:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                inside = False
        elif byte == 0x22:
            inside = True
        elif byte == 0x5B or byte == 0x7B:  # [ {
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif byte == 0x5D or byte == 0x7D:  # ] }
            depth -= 1
    return deepest


def toml_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """The deepest nesting of `[`/`{` in TOML (strings and comments skipped), like `json_depth` above and below
    `limit`. Table headers open and close on their line, so they count as one or two levels at most."""
    if text.count("[") + text.count("{") <= limit:
        return min(text.count("[") + text.count("{"), limit)
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if char in "\"'":
            quote = text[i : i + 3] if text[i : i + 3] in ('"""', "'''") else char
            i += len(quote)
            while i < n and text[i : i + len(quote)] != quote:
                i += 2 if char == '"' and text[i] == "\\" else 1
            i += len(quote)
            continue
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        elif char in "]}":
            depth -= 1
        i += 1
    return deepest


def value_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of parsed plain data (dicts and lists), walked with a stack, never by recursion:
    TOML's dotted keys (`a.b.c...`) nest tables without a bracket, so a parsed manifest is measured too."""
    deepest = 0
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        depth += 1
        if depth > deepest:
            deepest = depth
            if deepest > limit:
                return deepest
        stack.extend((child, depth) for child in children)
    return deepest


def too_deep(limit: int = MAX_DEPTH) -> LimitBroken:
    return LimitBroken(
        "limit.depth",
        f"nested more than {limit} levels deep (arrays and objects inside each other); tally reads at most {limit}",
    )


def depth_problem(depth: int, limit: int = MAX_DEPTH) -> LimitBroken | None:
    return None if depth <= limit else too_deep(limit)


def check_json_body(data: bytes, max_bytes: int = MAX_BODY, max_depth: int = MAX_DEPTH) -> LimitBroken | None:
    """Why a JSON request body must be refused before it is decoded (too large, nested too deep), or None."""
    if len(data) > max_bytes:
        return LimitBroken("limit.size", f"{len(data)} bytes: a body holds at most {max_bytes}")
    return depth_problem(json_depth(data, max_depth), max_depth)
