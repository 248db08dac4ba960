"""The table's page, served by `tally serve` itself: `GET /` lists the games, `GET /games/{id}` shows one (and
`GET /library`, `GET /library/games/{id}` the history library's page, docs/page.md); the HTML,
CSS and script are this package's own files (`static/`: no build step, nothing from another host).

The page reads and writes only through the API (`app.py`'s routes). The one thing a browser cannot compute is the
board's picture, so `GET /games/{id}/picture.svg` draws, with the game's own `picture` (`store/recording/pictures.py`), the
very view `GET /api/games/{id}` answers the same caller: a seat's picture holds no more than that seat's view.
`GET /games/{id}/notation` is the read model's notation of the game (`tally rules GAME --notation --json`), which the
text box shows for what no button covers (a hand to enter, a card drawn).
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from tally.store.recording.pictures import picture_of
from tally.store.recording.results import notation_report

from .http import Refused, answer, caller, locked, the_game

STATIC = Path(__file__).resolve().parent / "static"
# The page runs only its own script and styles, takes nothing from another host and leaks no address (a token the
# host link carried is moved out of the address bar by the script, and never sent on as a referrer).
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def _html(name: str) -> Response:
    return Response((STATIC / name).read_bytes(), media_type="text/html; charset=utf-8", headers=HEADERS)


async def index(request: Request) -> Response:
    """The list of the folder's games (the script fills it from `GET /api/games`)."""
    return _html("index.html")


async def game_page(request: Request) -> Response:
    """One game's page: the board, whose turn, the caller's moves, corrections, joining a seat."""
    try:
        the_game(request)  # an id that is no log of the folder is refused as the API refuses it
    except Refused as refused:
        return answer(refused.body, refused.status)
    return _html("game.html")


async def library(request: Request) -> Response:
    """The history library's page: its games with filters and its charts (from `GET /api/library/...`)."""
    return _html("library.html")


async def library_game(request: Request) -> Response:
    """A stored game's page: its chart and a replay stepper (the script asks the API, with the host token, which
    the page's address never holds: a wrong id is told there)."""
    return _html("library-game.html")


async def picture(request: Request) -> Response:
    """The board as SVG, drawn from the view the API shows this caller."""
    try:
        game = the_game(request)
        who = caller(request, game)

        def draw() -> tuple[str, int]:
            shown = game.board(who.viewer)
            return picture_of(game.record.spec, shown.view), shown.seq

        document, seq = await locked(game, draw)
    except Refused as refused:
        return answer(refused.body, refused.status)
    # the seq drawn, so that the page, which asks for the picture beside the view, knows they are of one position
    return Response(
        document, media_type="image/svg+xml", headers={**HEADERS, "Cache-Control": "no-store", "X-Tally-Seq": str(seq)}
    )


async def notation(request: Request) -> Response:
    """How the game's moves are written (as `tally rules GAME --notation --json`), for the page's text box."""
    try:
        game = the_game(request)
    except Refused as refused:
        return answer(refused.body, refused.status)
    return answer(notation_report(game.record.spec.name))


class _Static(StaticFiles):
    """The page's own files, with the page's headers."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        response.headers.update(HEADERS)
        return response


ROUTES: list[BaseRoute] = [
    Route("/", index, methods=["GET"]),
    Route("/games/{id}", game_page, methods=["GET"]),
    Route("/games/{id}/picture.svg", picture, methods=["GET"]),
    Route("/games/{id}/notation", notation, methods=["GET"]),
    Route("/library", library, methods=["GET"]),
    Route("/library/games/{id}", library_game, methods=["GET"]),
    Mount("/static", _Static(directory=STATIC), name="static"),
]
