"""What a caller may name now by tapping pieces (the card picker of the table's page), and the pieces of a game's box
with their pictures: the read model of `GET /api/games/{id}/names` and `GET /api/games/{id}/pieces`.

Every naming is computed on the table as the caller knows it (the game's `conceal`; the host's is the whole table),
as its listing is (`service.seat_moves`): the listed namings from that very listing, the composed ones from the
game's `naming` of that table. So a picker offers a seat every piece it cannot locate, wherever it lies, and what it
offers is a function of that seat's knowledge alone (tests/test_secrets.py serves it to twin games). The box's
pieces are what `game_started` states (its manifest), the same for every caller.
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from tally.core.model import GameSpec
from tally.core.naming import Naming, listed
from tally.store.recording.secrecy import WATCHER
from tally.store.recording.service import seat_moves


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


class NamesReport(msgspec.Struct):
    """`GET /api/games/{id}/names`: the moves the caller may make now by naming pieces."""

    seq: Annotated[int, _("the position: after this event")]
    namings: Annotated[
        list[Naming],
        _(
            "each move that names pieces: `kind` (its first word: the group of buttons it belongs with), `player` (null: "
            "the table's entry), `head` (its text before the pieces), `words`, `slots` (each place where pieces are "
            "named: `name`, `least`..`most` pieces, `pool` of code -> copies that may still be named, `before`: the "
            "words written before its pieces) and either `choices` (the listed moves it stands for, each `move` with its "
            "`picks`, slot by slot: only these may be chosen) or null (composed: the move is `head`, then each slot's "
            "`before` and pieces, space-separated, judged when recorded; `takes_listed`: it enters at once what the listed "
            "moves of its kind and player would one at a time, and those are offered through it alone)"
        ),
    ]


class DrawnPiece(msgspec.Struct):
    code: Annotated[str, _("the piece's code, as the notation writes it")]
    group: Annotated[list[str], _("the groups the game sorts it into, outermost first (a suit; a level and a colour)")]
    svg: Annotated[str, _("the piece drawn as the game's pictures draw it (an SVG document)")]


class PiecesReport(msgspec.Struct):
    """`GET /api/games/{id}/pieces`: every piece of the game's box a move may name, in the game's order."""

    game: Annotated[str, _("the game's name")]
    pieces: Annotated[list[DrawnPiece], _("`code`, `group`, `svg` of each piece")]


def is_for(naming: Naming, viewer: str | None) -> bool:
    """Whether a naming is the caller's to make: the host's, any; a seat's, its own moves and the table's entries."""
    return viewer is None or naming.player is None or naming.player == viewer


def names(spec: GameSpec, state: Any, seq: int, viewer: str | None) -> NamesReport:
    """The namings `viewer` (None: the host) may make at `state` (after event `seq`): the game's composed namings on
    the table as the viewer knows it, then the listed ones of the viewer's own listing, but for a kind and player a
    composed naming takes (a whole setup's `reveal` offers every card the one-card reveals would)."""
    known = state if viewer is None else spec.conceal(state, viewer)
    seats = set(getattr(known, "seats", ()))
    box = [piece.code for piece in spec.pieces(known) if piece.code not in seats]  # `spot ben`: ben is no piece
    composed = [naming for naming in spec.naming(known) if is_for(naming, viewer)]
    covered = {(naming.kind, naming.player) for naming in composed if naming.takes_listed}
    found = [
        naming
        for naming in listed(spec.format, seat_moves(spec, state, viewer), box)
        if is_for(naming, viewer) and (naming.kind, naming.player) not in covered
    ]
    return NamesReport(seq, composed + found)


def pieces(spec: GameSpec, state: Any) -> PiecesReport:
    """The box's pieces, drawn from what every player sees (a watcher's view: the box's colours and names)."""
    public = spec.conceal(state, WATCHER)
    view = spec.view(public, WATCHER)
    return PiecesReport(
        spec.name,
        [DrawnPiece(piece.code, piece.group, spec.draw_piece(view, piece.code)) for piece in spec.pieces(public)],
    )
