"""The history library's routes of `tally serve` (`/api/library/...`), listed in `app.ROUTES` (and so in docs/api.md).

Thin over `store/library/page.py`: each route reads its words, asks the store on a worker thread and encodes the
struct it is handed. The library holds every stored game's full log (every hidden card), so it is the host's: every
route asks for the host token, whatever the games' state. `tally serve --db` names the library (default: as
`tally sql`, `$TALLY_DB`, else ./tally.duckdb).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from tally.store.library import page as shelf
from tally.store.library.charts import Chart
from tally.store.library.schema import LibraryBusy

from . import bodies
from .http import Refused, answer, caller, endpoint, host_only

LIBRARY = "/api/library"


def _library(request: Request) -> Path:
    library: Path = request.app.state.library
    return library


async def _asked(request: Request, work: Callable[[Path], Any]) -> Any:
    """`work` over the library on a worker thread, for the host only; the library's refusals as the API's."""
    host_only(caller(request, None))
    try:
        return await run_in_threadpool(work, _library(request))
    except shelf.NoLibrary as error:
        raise Refused(404, "serve.library.missing", f"{error} (or start tally serve with --db LIBRARY)") from None
    except shelf.FilterError as error:
        raise Refused(400, "serve.library.filter", str(error)) from None
    except LibraryBusy as error:
        raise Refused(503, "serve.library.busy", str(error)) from None


def _game_id(request: Request) -> str:
    ident = request.path_params["id"]
    if not shelf.is_game_id(ident):
        raise Refused(400, "serve.library.game-id", "a library game's id is 16 hex digits (as the list gives it)")
    return str(ident)


def _game_names() -> list[str]:
    from tally.core import registry

    return registry.names()


_E = bodies.Error
MISSING = (404, _E, "`serve.library.missing`: no library at `--db` (or it holds no tables yet)")
HOST = (403, _E, "`serve.host-only`: the library is the host's (the host token)")


@endpoint(
    "GET",
    LIBRARY + "/games",
    "host",
    None,
    [
        (
            200,
            shelf.ListPage,
            "the games matching `?game=&player=&since=YYYY-MM-DD&until=YYYY-MM-DD&simulated=real|simulated|all"
            "&limit=1..500&offset=` (default: real games, 50), newest first",
        ),
        (400, _E, "`serve.library.filter`: a filter none can mean (an unknown game, a date that is no date, ...)"),
        HOST,
        MISSING,
    ],
)
async def list_library_games(request: Request) -> Response:
    """The library's games, filtered by game, player (aliases merged), date of the start and real or simulated."""
    words = dict(request.query_params)
    return answer(
        await _asked(request, lambda db: shelf.listed(db, shelf.filters_of(words, _game_names()), _game_names()))
    )


@endpoint(
    "GET",
    LIBRARY + "/games/{id}",
    "host",
    None,
    [
        (
            200,
            shelf.GameDetail,
            "the game's row, its chart (`game_chart`), the first page of its replay's steps "
            f"(at most {shelf.STEPS}; `next`: where `GET .../steps` goes on), its result",
        ),
        (400, _E, "`serve.library.game-id`: not a game id"),
        (404, _E, "`serve.library.game.unknown`; `serve.library.missing`"),
        HOST,
    ],
)
async def show_library_game(request: Request) -> Response:
    """One stored game: its chart (each player's score over the turns) and its replay's steps."""
    ident = _game_id(request)
    found = await _asked(request, lambda db: shelf.game_detail(db, ident))
    if found is None:
        raise Refused(404, "serve.library.game.unknown", f"the library holds no game {ident}")
    return answer(found)


@endpoint(
    "GET",
    LIBRARY + "/games/{id}/steps",
    "host",
    None,
    [
        (
            200,
            shelf.StepsPage,
            "a page of the replay's steps: those after `?after=SEQ` (default 0), at most "
            f"`?limit=N` (1 to {shelf.MOST_STEPS}, default {shelf.STEPS}); `next`: the `after` of "
            "the next page, null at the last step",
        ),
        (400, _E, "`serve.library.game-id`; `serve.library.step`: `after` or `limit` is no whole number in range"),
        (404, _E, "`serve.library.game.unknown`; `serve.library.missing`"),
        HOST,
    ],
)
async def list_library_steps(request: Request) -> Response:
    """The steps of a stored game's replay, a page at a time (each page costs the same however long the game)."""
    ident = _game_id(request)
    after = _whole(request.query_params.get("after"), 0, 10**9, 0, "after")
    limit = _whole(request.query_params.get("limit"), 1, shelf.MOST_STEPS, shelf.STEPS, "limit")
    found = await _asked(request, lambda db: shelf.steps_page(db, ident, after, limit))
    if found is None:
        raise Refused(404, "serve.library.game.unknown", f"the library holds no game {ident}")
    return answer(found)


def _whole(text: str | None, low: int, high: int, default: int, name: str) -> int:
    if text is None or text == "":
        return default
    if not text.isascii() or not text.isdigit() or len(text) > 9 or not low <= int(text) <= high:
        raise Refused(400, "serve.library.step", f"{name} is a whole number from {low} to {high}")
    return int(text)


@endpoint(
    "GET",
    LIBRARY + "/games/{id}/steps/{seq}",
    "host",
    None,
    [
        (200, shelf.StepPicture, "the board after event `seq` of the replay, as `tally replay --svg` draws it"),
        (400, _E, "`serve.library.game-id`; `serve.library.step`: `seq` is no step of the replay"),
        (404, _E, "`serve.library.game.unknown`; `serve.library.missing`"),
        HOST,
    ],
)
async def show_library_step(request: Request) -> Response:
    """The board after one step of a stored game's replay (the referee's table: the whole log)."""
    ident = _game_id(request)
    text = request.path_params["seq"]
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise Refused(400, "serve.library.step", "a step is a seq: a whole number")

    def work(db: Path) -> shelf.StepPicture | None:
        try:
            return shelf.step_picture(db, ident, int(text))
        except IndexError as error:
            raise Refused(400, "serve.library.step", str(error)) from None

    found = await _asked(request, work)
    if found is None:
        raise Refused(404, "serve.library.game.unknown", f"the library holds no game {ident}")
    return answer(found)


@endpoint(
    "GET",
    LIBRARY + "/charts",
    "host",
    None,
    [
        (
            200,
            list[Chart],
            "every library chart (`library_charts`) for `?game=&simulated=real|all` (default: real games of every game)",
        ),
        (400, _E, "`serve.library.filter`"),
        HOST,
        MISSING,
    ],
)
async def list_library_charts(request: Request) -> Response:
    """The library's charts: win rates by seat and player count, games per month, score per round, rivalries, the
    longest and closest games; each with the rows it was drawn from and how many games it rests on."""
    words = dict(request.query_params)
    return answer(await _asked(request, lambda db: shelf.library_charts_of(db, words, _game_names())))


ROUTES = [list_library_games, show_library_game, list_library_steps, show_library_step, list_library_charts]


def warm_up(app: Any) -> None:
    """`tally serve`, before it answers: the library page's imports paid for now (`library_page.warm_up`), when the
    server has a library to show."""
    if Path(app.state.library).is_file():
        shelf.warm_up(app.state.library)
