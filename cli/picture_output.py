"""`--svg` of `tally state` and `tally replay`: the table drawn as SVG pictures (the game's own `picture`, through
`store/recording/pictures.py`) written to files, and the one line that says what was written.

Each returns whether the command is done: in text mode the line replaces the board or the replay; with `--json`
(or `replay --step`) the command goes on to print what it always prints."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from tally.store.recording.service import Frame, Position

from .app import say


def write_state_picture(pos: Position, viewer: str | None, path: Path, quiet: bool) -> bool:
    """The table at `pos` as `viewer` sees it, written to `path`."""
    from tally.store.recording import pictures

    pictures.write_picture(path, pictures.position_picture(pos, viewer))
    if not quiet:
        who = f"as {viewer} sees it" if viewer else "as the referee sees it"
        say(f"{path}: the table after event {pos.seq}, {who}")
    return not quiet


def write_replay_pictures(pos: Position, frames: Sequence[Frame], directory: Path, quiet: bool) -> bool:
    """One picture per event, named by its seq, in `directory` (made when missing)."""
    from tally.store.recording import pictures

    written = pictures.write_replay_pictures(pos, frames, directory)
    if not quiet:
        span = f" ({written[0].name} to {written[-1].name})" if written else ""
        say(f"{directory}: {len(written)} pictures, one per event{span}")
    return not quiet
