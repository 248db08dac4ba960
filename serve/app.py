"""`tally serve`'s HTTP app: the record service of every log in a folder, for the devices at its tables.

Thin, as every interface is: it parses a request, calls the store (`store/serving/tables.py` for the folder and what
each caller may read, `store/recording/service.py`'s `GameRecord` for every read and write of a log, `store/serving/seats.py`
for tokens) and encodes the read model's structs. `ROUTES` is the one route table; `docs/api.md` is generated
from it (`python -m tally.serve.docs`). Blocking work runs in a worker thread, one request per game at a time.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Awaitable, Callable, Optional

import msgspec
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import BaseRoute

from tally.store.logs import log as logfile
from tally.store.logs.logstore import is_database_url
from tally.store.recording import picking
from tally.store.recording.corrections import HistoryReport
from tally.store.recording.pictures import OutlineReport, outline_of
from tally.store.recording.results import (
    EventLine,
    GamesReport,
    ListingReport,
    MoveReport,
    NewReport,
    NoteReport,
    PreviewReport,
    games,
    new_report,
    preview_report,
)
from tally.store.recording.service import Conflict, GameRecord, IllegalLog, MoveResult, UsageError
from tally.store.serving import seats as seating
from tally.store.serving import tables as folder

from . import bodies
from .http import (
    RETRY,
    Caller,
    Limits,
    Refused,
    answer,
    body_of,
    caller,
    check_writer,
    client_of,
    damage_of,
    endpoint,
    host_only,
    is_host_request,
    judged,
    locked,
    the_game,
    unreadable,
)
from .hub import Service

# --------------------------------------------------------------------------- the routes


def hub_of(request: Request) -> Service:
    """The app's state, as the routes here use it (`http.service` is what the request helpers read of it)."""
    hub: Service = request.app.state.service
    return hub


async def written(
    request: Request,
    kind: type[Any],
    what: str,
    write: Callable[[GameRecord, Caller, Any], MoveResult],
    respond: Callable[[MoveResult], Response] = judged,
) -> Response:
    """Every write route: the game, who calls (a watcher writes nothing), the body as `kind`, then `write` through the
    game's record service on a worker thread, the timeline told, the answer (`respond`) and the game's streams woken."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, kind)
    check_writer(who, what)

    def work() -> Response:
        result = write(game.record, who, asked)
        game.recorded(result)
        return respond(result)

    response: Response = await locked(game, work)
    if not getattr(asked, "preview", False):
        hub_of(request).notify(game.id)
    return response


def previewed(result: MoveResult) -> Response:
    """A correction's answer: its preview (200, nothing recorded), or what was recorded or refused (`judged`)."""
    if result.preview:
        return answer(preview_report(result, result.seq - 1), 200)
    return judged(result)


GAME = "/api/games/{id}"
_E = bodies.Error


@endpoint(
    "GET",
    "/api/games",
    "anyone",
    None,
    [
        (
            200,
            list[folder.GameSummary],
            "every game served: the folder's logs, or the store's games; a damaged log is listed with its `damage`",
        ),
        (503, _E, "`store.unreachable`: the database cannot be reached now (`Retry-After`)"),
    ],
)
async def list_games(request: Request) -> Response:
    """Every game served (a folder's logs or a database's games): id, game, seats, mode, seq, fingerprint, who acts,
    ended; a log that cannot be read (a torn tail a killed writer left, a broken chain) with what is wrong with it,
    so that one damaged log hides no other game."""
    tables = hub_of(request).tables
    host = is_host_request(request)

    def work() -> list[folder.GameSummary]:
        found = []
        for ident in tables.ids():
            try:
                game = tables.game(ident)
                if game is None:
                    continue
                with game.lock:
                    game.sync()
                    found.append(game.summary())
            except (IllegalLog, logfile.LogError) as error:
                if isinstance(error, logfile.LogError) and error.rule.startswith("store."):
                    if error.rule == "store.no-game":
                        continue  # gone since it was listed
                    raise  # the database itself is away: no game can be listed
                found.append(folder.damaged_summary(ident, damage_of(error, host)))
        return found

    return answer(await run_in_threadpool(work))


@endpoint(
    "POST",
    "/api/games",
    "host",
    bodies.NewGame,
    [
        (201, NewReport, "the game started, as `tally new --json`"),
        (400, _E, "`core.usage`: refused as `tally new` refuses it, with its message"),
        (409, _E, "`serve.game.exists`: the folder or store holds a game of that id"),
    ],
)
async def create_game(request: Request) -> Response:
    """Start a game in the folder (or the store), validated exactly as `tally new`."""
    host_only(caller(request, None))
    asked = await body_of(request, bodies.NewGame)
    tables = hub_of(request).tables
    options = {key: str(value) for key, value in asked.options.items()}  # a number as `tally new --option` writes it

    def work() -> tuple[str, MoveResult]:
        ident = asked.id if asked.id is not None else tables.free_id(asked.game)
        try:
            path = tables.store_of(ident)
        except UsageError as error:
            raise Refused(400, "serve.game.id", str(error)) from None
        return ident, GameRecord.new(
            path, asked.game, asked.players, options, asked.mode, asked.seed, asked.manifest, asked.seated
        )

    try:
        ident, result = await run_in_threadpool(work)
    except FileExistsError:
        raise Refused(409, "serve.game.exists", f"the {tables.kind} holds a game {asked.id!r} already") from None
    return answer(new_report(f"{ident}.jsonl", asked.game, result), 201)


@endpoint(
    "GET",
    "/api/catalog",
    "anyone",
    None,
    [(200, GamesReport, "the games tally can start, as `tally games --json`: players, modes, every option")],
)
async def catalog(request: Request) -> Response:
    """The games a table can start, with their player counts, modes and options (what the host's form offers)."""
    return answer(games())


@endpoint(
    "GET",
    GAME,
    "anyone",
    None,
    [
        (
            200,
            Any,
            "the game's view (as `tally state --json`, `--as` the caller's seat; a watcher's: what every player sees)",
        ),
        (404, _E, "`serve.game.unknown`"),
    ],
)
async def show_game(request: Request) -> Response:
    """The table as the caller may see it."""
    game = the_game(request)
    who = caller(request, game)
    return answer((await locked(game, lambda: game.board(who.viewer))).view)


@endpoint(
    "GET",
    GAME + "/outline",
    "anyone",
    None,
    [
        (
            200,
            OutlineReport,
            "the board in words, from the same view `GET /api/games/{id}` answers the caller: whose turn, "
            "each player and what they hold, the table, the result; what the page lists for a screen reader",
        )
    ],
)
async def show_outline(request: Request) -> Response:
    """The table as the caller may see it, as a structured, labelled outline (`core/outline.py`)."""
    game = the_game(request)
    who = caller(request, game)

    def work() -> OutlineReport:
        shown = game.board(who.viewer)
        return outline_of(shown.view, shown.seq)

    return answer(await locked(game, work))


@endpoint(
    "GET", GAME + "/moves", "anyone", None, [(200, ListingReport, "as `tally moves --json` (`--as` the caller's seat)")]
)
async def list_moves(request: Request) -> Response:
    """The legal moves now, as the caller knows the table."""
    game = the_game(request)
    who = caller(request, game)
    return answer(await locked(game, lambda: game.listing(who.viewer)))


@endpoint(
    "GET",
    GAME + "/names",
    "anyone",
    None,
    [
        (
            200,
            picking.NamesReport,
            "what the caller may name now by tapping pieces (the page's card picker), as it "
            "knows the table: its listing's moves that name pieces, and the moves the listing "
            "cannot enumerate (a dealt hand)",
        )
    ],
)
async def list_names(request: Request) -> Response:
    """The moves the caller may make by naming pieces: a seat's own and the table's entries (the host: everyone's)."""
    game = the_game(request)
    who = caller(request, game)
    return answer(await locked(game, lambda: game.names(who.viewer)))


@endpoint(
    "GET",
    GAME + "/pieces",
    "anyone",
    None,
    [
        (
            200,
            picking.PiecesReport,
            "every piece of the game's box a move may name, grouped as the game groups "
            "them, each drawn as the board draws it (what `game_started` states: the same for "
            "every caller)",
        )
    ],
)
async def list_pieces(request: Request) -> Response:
    """The box's pieces and their pictures, for the card picker."""
    game = the_game(request)
    return answer(await locked(game, game.pieces))


@endpoint(
    "POST",
    GAME + "/moves",
    "host, a seat (its own moves and the table's entries)",
    bodies.Move,
    [
        (201, MoveReport, "recorded: what `tally move --json` reports"),
        (400, MoveReport, "unreadable notation: `notation_error` holds the valid forms"),
        (403, _E, "`serve.seat.other`: a move of another seat; `serve.watcher`"),
        (409, _E, "`core.append.stale`: the log moved on; `seq` and `fingerprint` say where it is"),
        (422, MoveReport, "a rule forbids it: `rulings`"),
    ],
)
async def record_move(request: Request) -> Response:
    """Record a move; nothing is appended unless the answer is 201."""
    return await written(
        request,
        bodies.Move,
        "record a move",
        lambda record, who, asked: record.append(asked.move, expect_seq=asked.expected_seq, seat=who.seat),
    )


@endpoint(
    "POST",
    GAME + "/rule",
    "anyone who may read the game (a move of another seat: judged on what the caller knows)",
    bodies.Question,
    [
        (200, MoveReport, "legal or unverifiable, as `tally rule --json`"),
        (400, MoveReport, "unreadable notation"),
        (409, _E, "`core.append.stale`, when `expected_seq` is given"),
        (422, MoveReport, "illegal: every rule that forbids it"),
    ],
)
async def rule_move(request: Request) -> Response:
    """A ruling on a move now; records nothing."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Question)

    def work() -> Response:
        record = game.record
        if asked.expected_seq is not None and asked.expected_seq != record.seq:
            raise Refused(
                409,
                "core.append.stale",
                f"the log moved on: you saw #{asked.expected_seq}, it is now at #{record.seq}",
                seq=record.seq,
                fingerprint=record.last_hash,
            )
        # "may ben take two red now?" is anyone's question, and "may I draw 10CR?" too: the referee answers a seat
        # or a watcher with what the asker may know, so no answer rests on another seat's hidden cards; the host's
        # questions are judged in full
        return judged(record.propose(asked.move, viewer=who.viewer), created=200)

    return await locked(game, work)


@endpoint(
    "POST",
    GAME + "/undo",
    "host, a seat (its own last event: its move, or an entry its device entered)",
    bodies.Undo,
    [
        (
            201,
            MoveReport,
            "the last effective event (or turn) voided, as `tally undo --json`; a seat's own last event, "
            "voided or, when events came after it, corrected away (refused if one of them would become illegal)",
        ),
        (200, PreviewReport, "with `preview`: what it would take back, nothing recorded"),
        (403, _E, "`serve.seat.other`: the seat has no event of its own to take back"),
        (409, _E, "`core.append.stale`"),
        (422, MoveReport, "refused: `rulings`"),
    ],
)
async def undo_move(request: Request) -> Response:
    """Void the caller's last effective event (append-only): the host's, whatever was recorded last; a seat's, its own."""

    def undo(record: GameRecord, who: Caller, asked: bodies.Undo) -> MoveResult:
        if asked.turn:
            host_only(who)
        return record.undo(
            asked.reason, asked.turn, expect_seq=asked.expected_seq, seat=who.seat, preview=asked.preview
        )

    return await written(request, bodies.Undo, "undo", undo, previewed)


@endpoint(
    "POST",
    GAME + "/amend",
    "host (any event), a seat (its own: its move, or an entry its device entered)",
    bodies.Amend,
    [
        (201, MoveReport, "corrected, as `tally amend --json`: the event's line names the old move and the new"),
        (200, PreviewReport, "with `preview`: what it would take back and put in its place, nothing recorded"),
        (400, MoveReport, "unreadable replacement"),
        (403, _E, "`serve.seat.other`: not the seat's own event"),
        (409, _E, "`core.append.stale`"),
        (422, MoveReport, "refused: `rulings`"),
    ],
)
async def amend_move(request: Request) -> Response:
    """Void or replace any past event; refused when a later event would become illegal."""
    return await written(
        request,
        bodies.Amend,
        "amend",
        lambda record, who, asked: record.correct(
            asked.target, asked.reason, asked.move, expect_seq=asked.expected_seq, seat=who.seat, preview=asked.preview
        ),
        previewed,
    )


@endpoint(
    "POST",
    GAME + "/notes",
    "host, a seat (its note)",
    bodies.Note,
    [(201, NoteReport, "as `tally note --json`"), (403, _E, "`serve.watcher`"), (409, _E, "`core.append.stale`")],
)
async def add_note(request: Request) -> Response:
    """A free remark for the record, a seat's in its name."""

    def noted(result: MoveResult) -> Response:
        if not result.accepted:
            return judged(result)
        return answer(NoteReport(result.events[0].seq, result.fingerprint), 201)

    return await written(
        request,
        bodies.Note,
        "add a note",
        lambda record, who, asked: record.note(asked.text, who.seat, expect_seq=asked.expected_seq, seat=who.seat),
        noted,
    )


@endpoint(
    "GET",
    GAME + "/conflicts",
    "host",
    None,
    [
        (
            200,
            list[Conflict],
            "the newest seats' moves refused as `core.seat.conflict`: legal on what that seat knows, "
            "but forbidden by what other seats entered; `rulings` are the whole table's, naming the other entry",
        ),
        (403, _E, "`serve.host-only`"),
    ],
)
async def list_conflicts(request: Request) -> Response:
    """What the host sees of the seats' entries that contradict each other (someone mistyped)."""
    game = the_game(request)
    host_only(caller(request, game))
    return answer(await locked(game, lambda: list(game.record.conflicts)))


def seat_link(game: folder.Game, secret: str) -> str:
    return f"/games/{game.id}#seat={secret}"


def qr_of(request: Request, link: str) -> str:
    """A link of this server as a QR code, made absolute with the address the caller used: the host opens its page
    at the address the phones reach."""
    return qr_svg(str(request.base_url).rstrip("/") + link, "a seat's link: open it on the phone that takes the seat")


def qr_svg(link: str, title: str, error: str = "m") -> str:
    """A link as a QR code: an SVG document, drawn here by segno (no network)."""
    import io

    import segno

    drawn = io.BytesIO()
    segno.make(link, error=error).save(drawn, kind="svg", scale=4, border=2, xmldecl=False, title=title)
    return drawn.getvalue().decode()


@endpoint(
    "GET",
    GAME + "/bgstats",
    "anyone",
    None,
    [
        (
            200,
            bodies.BgStatsPlay,
            "the finished game as a BG Stats play, the link that logs it and its QR code; "
            "`?timezone=ZONE` (an IANA name, as the phone's browser names its own) dates it, "
            "else the server's time zone",
        ),
        (400, _E, "`serve.timezone`: not a time zone"),
        (
            409,
            _E,
            "`serve.game.unfinished`: the game is not over; `serve.play.undated`: its start has no valid "
            "time, so no play date",
        ),
    ],
)
async def bgstats_play(request: Request) -> Response:
    """What a finished game's page shows under "Log in BG Stats": the play as `tally export --format bgstats`
    makes it (store/library/bgstats.py), its link and a QR code of it for a phone to scan."""
    from tally.store.library import bgstats

    game = the_game(request)
    caller(request, game)
    try:
        zone, named = bgstats.time_zone(request.query_params.get("timezone") or None)
    except bgstats.UnknownZone as error:
        raise Refused(400, "serve.timezone", f"timezone: {error}") from None
    made = await locked(game, lambda: game.play(zone))
    if made is None:
        raise Refused(409, "serve.game.unfinished", "the game is not over: a play is logged once it is")
    if isinstance(made, bgstats.Skipped):
        raise Refused(409, "serve.play.undated", f"this game cannot be logged in BG Stats: {made.why}")
    qr = await run_in_threadpool(qr_svg, made.link, "the play: open it on the phone that has BG Stats", "l")
    return answer(bodies.BgStatsPlay(made.link, qr, msgspec.to_builtins(made.play), named))


@endpoint(
    "GET",
    GAME + "/seats",
    "host",
    None,
    [(200, bodies.SeatsReport, "each seat, whether a device holds it and its one-time link; the join code")],
)
async def list_seats(request: Request) -> Response:
    """What the host's page shows of the seats, the same after a reload."""
    game = the_game(request)
    host_only(caller(request, game))

    def work() -> bodies.SeatsReport:
        held, linked = set(game.seats.held()), game.seats.linked()
        names = list(game.record.fold.started.seats)
        links = {name: seat_link(game, secret) for name, secret in linked.items()}
        entries = [
            bodies.SeatEntry(
                name, name in held, links.get(name), qr_of(request, links[name]) if name in links else None
            )
            for name in names
        ]
        return bodies.SeatsReport(game.seats.current_code(), entries)

    return answer(await locked(game, work))


@endpoint(
    "POST",
    GAME + "/seats/{seat}/link",
    "host (any seat), a seat (its own: to move to another device)",
    None,
    [
        (201, bodies.Linked, "a new one-time link for the seat (the one made before no longer works)"),
        (400, _E, "`core.usage`: no such seat"),
        (403, _E, "`serve.host-only`: a seat's link is the host's or that seat's"),
    ],
)
async def make_link(request: Request) -> Response:
    """A seat's one-time link: the host hands it to a phone (a QR code), or a seat moves itself to another phone."""
    game = the_game(request)
    who = caller(request, game)
    seat = folder.seat_of_name(game, request.path_params["seat"])
    if not who.is_host and who.seat != seat:
        raise Refused(403, "serve.host-only", "a seat's link is made by the host, or by that seat itself")
    link = seat_link(game, await run_in_threadpool(game.seats.new_link, seat))
    return answer(bodies.Linked(seat, link, qr_of(request, link)), 201)


@endpoint(
    "POST",
    GAME + "/claim",
    "anyone holding a seat's one-time link",
    bodies.Claim,
    [
        (201, bodies.Joined, "the seat's token: the device that held the seat before is shut out"),
        (403, _E, "`serve.link.unknown`: no such link, or it was opened already (one answer for both)"),
        (429, _E, "`serve.join.rate-limited`: this client address sent 5 wrong codes or links in the last minute"),
    ],
)
async def claim_seat(request: Request) -> Response:
    """Take the seat a one-time link gives (the page does it when a phone opens the link)."""
    game = the_game(request)
    asked = await body_of(request, bodies.Claim)
    guesses, client = hub_of(request).guesses, client_of(request.scope)
    wait = guesses.wait(client)
    if wait is not None:
        raise Refused(
            429,
            "serve.join.rate-limited",
            f"too many wrong join codes or links from this device: try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )
    claimed = await run_in_threadpool(game.seats.claim, asked.link)
    if claimed is None:
        guesses.failed(client)
        raise Refused(
            403,
            "serve.link.unknown",
            "this seat link is not this game's, or a device opened it already: ask the host for a new one",
        )
    return answer(bodies.Joined(*claimed), 201)


@endpoint("POST", GAME + "/code", "host", None, [(201, bodies.JoinCode, "a new join code for the host's screen")])
async def new_code(request: Request) -> Response:
    """A fresh join code (the last one stops working)."""
    game = the_game(request)
    host_only(caller(request, game))
    return answer(bodies.JoinCode(await run_in_threadpool(game.seats.new_code)), 201)


@endpoint(
    "POST",
    GAME + "/join",
    "host (any seat), or anyone with the join code (a free seat)",
    bodies.Join,
    [
        (201, bodies.Joined, "the seat's token"),
        (400, _E, "`core.usage`: no such seat"),
        (403, _E, "`serve.join.code`: a wrong code, or the right one for a seat a device holds (one answer for both)"),
        (
            429,
            _E,
            "`serve.join.rate-limited`: this client address sent 5 wrong codes in the last minute (`Retry-After`)",
        ),
    ],
)
async def join_seat(request: Request) -> Response:
    """A seat's token, handed out by the host or taken with the join code."""
    game = the_game(request)
    who = caller(request, game)
    asked = await body_of(request, bodies.Join)
    seat = folder.seat_of_name(game, asked.seat)
    if who.is_host:
        return answer(bodies.Joined(seat, await run_in_threadpool(game.seats.give, seat)), 201)
    # one answer for a wrong code and for the right one of a taken seat: else the answers would tell a guesser
    # that it has found the code
    wrong = Refused(
        403,
        "serve.join.code",
        "that is not this game's join code, or that seat is taken: the host can give a taken seat again",
    )
    if asked.code is None:
        raise wrong
    guesses, client = hub_of(request).guesses, client_of(request.scope)
    wait = guesses.wait(client)
    if wait is not None:
        raise Refused(
            429,
            "serve.join.rate-limited",
            f"too many wrong join codes from this device: try again in {wait} s",
            headers={"Retry-After": str(wait)},
        )
    try:
        token = await run_in_threadpool(game.seats.join, seat, asked.code)
    except seating.SeatTaken:
        token = None
    if token is None:
        guesses.failed(client)
        raise wrong
    return answer(bodies.Joined(seat, token), 201)


@endpoint(
    "GET",
    GAME + "/events",
    "anyone",
    None,
    [
        (
            200,
            folder.EventsReport,
            "a page of the events after `?after=SEQ` (default 0), at most `?limit=N` of them "
            f"(1 to {folder.MOST}, default {folder.PAGE}; fewer when their text passes "
            f"{folder.PAGE_BYTES // 1024} KB), as the caller may see them; `next`: the `after` "
            "of the next page, null at the log's end",
        ),
        (400, _E, "`serve.seq`: `after` or `limit` is not a whole number (`limit`: 1 to the most)"),
    ],
)
async def list_events(request: Request) -> Response:
    """The events after a seq, a page at a time, to catch up: each page costs the same however long the game."""
    game = the_game(request)
    who = caller(request, game)
    after = seq_param(request.query_params.get("after"), "after")
    limit = limit_param(request.query_params.get("limit"))
    return answer(await locked(game, lambda: game.event_lines(who.viewer, after, limit)))


def limit_param(text: Optional[str]) -> int:
    if text is None or text == "":
        return folder.PAGE
    if not text.isascii() or not text.isdigit() or len(text) > 9 or not 1 <= int(text) <= folder.MOST:
        raise Refused(400, "serve.seq", f"limit is a whole number from 1 to {folder.MOST}")
    return int(text)


HISTORY_PAGE, HISTORY_MOST = 30, 200


@endpoint(
    "GET",
    GAME + "/history",
    "anyone",
    None,
    [
        (
            200,
            HistoryReport,
            "the table's history: every event before `?before=SEQ` (default: all), newest first, at most "
            "`?limit=N` (default 30, at most 200), as the caller may read it: who moved, whose device "
            "entered it, what voided or replaced it, and whether the caller may undo or amend it. The server reads "
            "the log back from its tail as pages ask: each page after the last (`before`: the last page's "
            "`before`) costs the page; a `before` far back reads the events between once",
        ),
        (400, _E, "`serve.seq`: `before` or `limit` is no whole number; `serve.limit`: `limit` above 200"),
    ],
)
async def list_history(request: Request) -> Response:
    """The table's history, a page at a time, from which a seat corrects its own events and the host any."""
    game = the_game(request)
    who = caller(request, game)
    before = request.query_params.get("before")
    limit = seq_param(request.query_params.get("limit"), "limit") or HISTORY_PAGE
    if limit > HISTORY_MOST:
        raise Refused(400, "serve.limit", f"limit is at most {HISTORY_MOST}")
    start = seq_param(before, "before") if before else None
    return answer(await locked(game, lambda: game.history(who.viewer, start, limit)))


def seq_param(text: Optional[str], name: str) -> int:
    if text is None or text == "":
        return 0
    if not text.isascii() or not text.isdigit() or len(text) > 9:
        raise Refused(400, "serve.seq", f"{name} is a seq: a whole number")
    return int(text)


@endpoint(
    "GET",
    GAME + "/stream",
    "anyone",
    None,
    [
        (
            200,
            EventLine,
            "Server-Sent Events: one `event` per log event (`id:` its seq, `data:` its line as the caller may see it), "
            "resuming after `Last-Event-ID` (or `?after=SEQ`); a comment every 15 s; a `resync` event "
            '(`data:` `{"seq": N, "fingerprint": F}`, `id:` N) when the log was replaced (restored from a '
            "backup, rewritten) or is shorter than what the caller saw: what the caller holds is void, read "
            "the game again, the stream goes on after N; on the host's stream only, a `conflict` event "
            "(`data:` `{}`) when a seat's move was refused as `core.seat.conflict`: read `GET .../conflicts`",
        ),
        (429, _E, "`serve.stream.per-client`: this client address holds as many streams as one may (`Retry-After`)"),
        (503, _E, "`serve.stream.full`: the server holds as many streams as it may (`Retry-After`)"),
    ],
)
async def stream_events(request: Request) -> Response:
    """Every event as it is recorded, by this server or any other writer of the log."""
    game = the_game(request)
    who = caller(request, game)
    hub = hub_of(request)
    after = seq_param(request.headers.get("last-event-id") or request.query_params.get("after"), "Last-Event-ID")
    hub.hear()
    hub.watch()
    client = client_of(request.scope)
    hub.streams.take(client)  # given back by the response however it ends (`Counted`): nothing may fail in between

    def look(seen: int) -> tuple[int, int, str, list[EventLine]]:
        timeline = game.timeline
        return (
            timeline.generation,
            timeline.seq,
            timeline.fingerprint,
            timeline.lines(who.viewer, seen) if timeline.seq > seen else [],
        )

    async def events() -> Any:
        seen, known, beat = after, -1, hub.beat
        clashes = game.record.conflicts_ever  # the host's stream tells of each new one (`conflict`, no data)
        while True:
            moved = hub.moved(game.id)  # taken before looking, so an append in between still wakes this stream
            if who.is_host and game.record.conflicts_ever != clashes:
                clashes = game.record.conflicts_ever
                yield {"event": "conflict", "data": "{}"}
            try:
                timeline = game.timeline
                if known != timeline.generation or timeline.seq != seen or timeline.is_behind():
                    generation, seq, fingerprint, lines = await hub.looked(
                        game, who.viewer, seen, moved, lambda: look(seen)
                    )
                    if (known != -1 and generation != known) or seen > seq:
                        known, seen = generation, seq  # another history: what the caller holds is void
                        yield {
                            "id": str(seq),
                            "event": "resync",
                            "data": msgspec.json.encode({"seq": seq, "fingerprint": fingerprint}).decode(),
                        }
                        continue
                    known = generation
                    for line in lines:
                        yield {"id": str(line.seq), "event": "event", "data": msgspec.json.encode(line).decode()}
                        seen = line.seq
                    if lines:
                        continue
            except (IllegalLog, logfile.LogError):
                pass  # unreadable now (a copy half written, a damaged log, the database away): the next change tells
            if beat != hub.beat:
                beat = hub.beat
                yield {"comment": "heartbeat"}
            await moved.wait()  # an append (this server's, the watcher's look, a NOTIFY) or the heartbeat

    return counted_stream(hub, client)(events(), ping=0)  # the heartbeat is the watcher's, one for every stream


@functools.cache
def _counted() -> type[Any]:
    from sse_starlette.sse import EventSourceResponse

    class Counted(EventSourceResponse):
        """An event stream that gives its place back (`Streams`) however it ends."""

        hub: Service
        client: str

        async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
            try:
                await super().__call__(scope, receive, send)
            finally:
                self.hub.streams.give_back(self.client)

    return Counted


def counted_stream(hub: Service, client: str) -> Callable[..., Response]:
    def make(*args: Any, **kwargs: Any) -> Response:
        response = _counted()(*args, **kwargs)
        response.hub, response.client = hub, client
        return response

    return make


ROUTES: list[BaseRoute] = [
    list_games,
    create_game,
    show_game,
    show_outline,
    list_moves,
    list_names,
    list_pieces,
    record_move,
    rule_move,
    undo_move,
    amend_move,
    add_note,
    list_conflicts,
    catalog,
    bgstats_play,
    list_seats,
    make_link,
    claim_seat,
    new_code,
    join_seat,
    list_events,
    list_history,
    stream_events,
]
from .library import ROUTES as LIBRARY  # noqa: E402  (the library's routes, `/api/library/...`, use this module's parts)

ROUTES += LIBRARY


# --------------------------------------------------------------------------- the app


async def not_found(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404:
        return answer(bodies.Error("serve.route.unknown", f"no route {request.url.path}"), 404)
    if status == 405:
        return answer(bodies.Error("serve.method", f"{request.method} is not allowed on {request.url.path}"), 405)
    return answer(bodies.Error("serve.http", str(getattr(exc, "detail", "")) or "refused"), status)


async def broken(request: Request, exc: Exception) -> Response:
    return answer(bodies.Error("serve.internal", f"internal error ({type(exc).__name__}); please report it"), 500)


async def log_unreadable(request: Request, exc: Exception) -> Response:
    """A log that cannot be read, on any route (the page's picture of a damaged log too)."""
    assert isinstance(exc, (IllegalLog, logfile.LogError))
    return unreadable(request, exc)


async def cut_short(request: Request, exc: Exception) -> Response:
    """A client gone before its body was whole (fewer bytes than its Content-Length): no one reads the answer."""
    return answer(
        bodies.Error("serve.body.incomplete", "the body ended before the bytes its Content-Length declared"), 400
    )


async def database_away(request: Request, exc: Exception) -> Response:
    """A database error that reached a route (a connection dropped by a restart between two statements)."""
    return answer(
        bodies.Error("store.unreachable", "the database cannot be reached now: try again in a moment"),
        503,
        {"Retry-After": str(RETRY)},
    )


def create_app(
    where: Path | str, host_token: Optional[str] = None, db: Path | str | None = None, limits: Optional[Limits] = None
) -> Starlette:
    """The app serving every log of the folder `where`, or every game of the PostgreSQL store `where` names
    (`postgresql://...`); `host_token` (default: a new random one, `app.state.host_token`) is the host's, who
    starts games and hands out seats; `db` the history library of `/library` (default: as `tally sql`'s);
    `limits` the request timeout, the streams' caps and the names a `Host` header may carry (default: `Limits()`,
    whose `hosts` None checks no `Host`: an app that no socket serves). No CORS: only the page this server serves
    calls it."""
    from starlette.middleware import Middleware

    from .http import Guard

    limits = limits or Limits()
    token = host_token or seating.new_token()
    from .page import ROUTES as PAGE  # the table's page (issue 19): GET /, GET /games/{id}, its picture and files

    handlers: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
        HTTPException: not_found,
        logfile.LogError: log_unreadable,
        IllegalLog: log_unreadable,
        ClientDisconnect: cut_short,
        Exception: broken,
    }
    if is_database_url(str(where)):
        import psycopg

        handlers[psycopg.Error] = database_away
    app = Starlette(
        routes=list(ROUTES) + PAGE, exception_handlers=handlers, middleware=[Middleware(Guard, hosts=limits.hosts)]
    )
    app.state.service = Service(where, token, limits)
    app.state.host_token = token
    from tally.store.library.schema import resolve_db

    app.state.library = resolve_db(db)
    return app
