"""The `tally` program: the console script's entry, a module that imports nothing of the command line yet.

Start-up makes some hundred thousand objects (typer, click, msgspec, tally's own modules) and no garbage, and
they live until the process ends; collecting among them while they are made is wasted work (12 M instructions
of a move, a twentieth of typer's import). So the collector is off from the first import until
`startup.begin_process` has frozen them, then on again for whatever the command makes.
"""

from __future__ import annotations

import gc


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
        main()
    finally:
        end_process()
