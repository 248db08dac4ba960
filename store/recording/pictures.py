"""Pictures of the table as files, and as text for any interface: the game's own `picture` (a pure function of a
view, `core/games/<game>/picture.py`) over the read model's board, so `tally state --svg`, `tally replay --svg` and
the table's page draw the same bytes for the same position and seat."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import msgspec

from tally.core.model import GameSpec
from tally.core.outline import Outline, outline
from tally.core.views import View
from tally.store.recording.results import board_at, frame_board
from tally.store.recording.service import Frame, Position


def picture_of(spec: GameSpec, view: View) -> str:
    """The SVG document of a view (a board's, or what an API answered for a seat: drawn from it alone)."""
    return spec.picture(view)


class OutlineReport(msgspec.Struct):
    """The board in words (`core/outline.py`), for a screen reader: the same view as the picture, as lists."""

    seq: Annotated[int, msgspec.Meta(description="the position: after this event")]
    outline: Annotated[
        Outline,
        msgspec.Meta(
            description="`title`, `turn` (what is expected, naming who acts), `players` and "
            "`table` (items: `text` and the `items` under it), `result` (null until the game is over)"
        ),
    ]


def outline_of(view: View, seq: int) -> OutlineReport:
    """The outline of a view (what an API answered one caller: worded from it alone), at its position."""
    return OutlineReport(seq, outline(view))


def position_picture(pos: Position, viewer: str | None = None) -> str:
    """The table at a position as `viewer` may see it (the referee's table when None)."""
    shown = board_at(pos.spec, pos.table.state, pos.seq, pos.log.fingerprint_at(pos.seq), viewer)
    return picture_of(pos.spec, shown.view)


def write_picture(path: Path | str, document: str) -> Path:
    """One picture written whole (UTF-8, as drawn); the folder must exist, as for any output file."""
    target = Path(path)
    target.write_text(document, encoding="utf-8")
    return target


def frame_name(seq: int, last: int) -> str:
    """A replay picture's file name: its seq, padded so that the names sort as the events do (0001.svg)."""
    return f"{seq:0{max(4, len(str(last)))}d}.svg"


def write_replay_pictures(
    pos: Position, frames: Sequence[Frame], directory: Path | str, viewer: str | None = None
) -> list[Path]:
    """One picture per event of a replay, named by its seq, in `directory` (made when missing)."""
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    last = frames[-1].seq if frames else 0
    written = []
    for frame in frames:
        shown = frame_board(pos, frame, viewer)
        written.append(write_picture(folder / frame_name(frame.seq, last), picture_of(pos.spec, shown.view)))
    return written
