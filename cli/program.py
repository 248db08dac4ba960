"""The `tally` program: the console script's entry, a module that imports nothing of the command line yet.

Start-up makes some hundred thousand objects (typer, click, msgspec, tally's own modules) and no garbage, and
they live until the process ends; collecting among them while they are made is wasted work (12 M instructions
of a move, a twentieth of typer's import). So the collector is off from the first import until
`startup.begin_process` has frozen them, then on again for whatever the command makes.
"""

from __future__ import annotations

import gc
import os


def run() -> None:
    """`tally`: the command line's `main` in a process of its own, which ends when it does."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        from .main import main
        from .startup import begin_process, end_process

        begin_process()
    finally:
        if collecting:
            gc.enable()
    try:
        try:
            main()
        finally:
            end_process()
    except SystemExit as ending:
        if (ending.code is None or isinstance(ending.code, int)) and _nothing_left_to_end():
            os._exit(ending.code or 0)
        raise


# The commands that end with their report, in a process with nothing else to end: their files are written,
# closed and synced before they report, they start no thread and hold no database.
ENDS_WITH_ITS_REPORT = frozenset({"check", "replay", "state", "move", "moves", "rule", "simulate"})


def _nothing_left_to_end() -> bool:
    """Whether the interpreter's exit may be skipped: tearing down every module and object costs a command
    about as much as it judges (6.4 M instructions of `tally check` on fixtures/games/splendor-4p.jsonl, 8.6 M of
    `tally state` on splice-open-4p: bench/bench_instructions.py) and does nothing a user sees, for a command of
    ENDS_WITH_ITS_REPORT when no other thread runs and nothing waits for the exit (`atexit`). The output is
    flushed here; a flush that fails (a reader gone) leaves the ending to the interpreter, as before."""
    import atexit
    import sys
    import threading

    arguments = sys.argv[1:2]
    if not arguments or arguments[0] not in ENDS_WITH_ITS_REPORT or threading.active_count() != 1:
        return False
    waiting = getattr(atexit, "_ncallbacks", None)
    if waiting is None or waiting() != 0:
        return False
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        return False
    return True
