"""The command line's arguments as text: checked before any command sees them."""

from __future__ import annotations

import sys


def check_utf8(arguments: list[str]) -> None:
    """Arguments are UTF-8 text: one that is not (Python keeps its bad bytes as lone surrogates) is a usage
    error named by its position and bytes, before anything can try to print, store or encode it."""
    from .main import EXIT_USAGE, fail  # main imports this module first

    for number, argument in enumerate(arguments, 1):
        try:
            argument.encode("utf-8")
        except UnicodeEncodeError as error:
            raw = argument.encode("utf-8", "surrogateescape")
            offset = len(argument[: error.start].encode("utf-8", "surrogateescape"))
            shown = repr(raw if len(raw) <= 40 else raw[:36] + b"...")
            fail(EXIT_USAGE, f"argument {number} ({shown}) is not valid UTF-8 (byte 0x{raw[offset]:02x} at offset {offset}): "
                             "tally reads its arguments as UTF-8 text; rename a file whose name is not UTF-8")
            sys.exit(EXIT_USAGE)
