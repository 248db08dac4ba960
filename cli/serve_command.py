"""`tally serve`: every log of a folder served over HTTP to the devices at the tables (the app is `tally.serve`);
registered on the app. Starlette and uvicorn are imported only when the command runs, so no other command pays
for them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import typer

from .main import EXIT_USAGE, JsonOption, app, fail, handled, json_text, say

HOST_TOKEN = "TALLY_HOST_TOKEN"  # the host token several servers behind one address share (default: a new one)


@app.command("serve")
@handled
def serve_command(
    directory: Optional[Path] = typer.Argument(None, help="The folder of game logs (ID.jsonl) to serve; new games are created there."),
    store: Optional[str] = typer.Option(
        None, "--store", metavar="URL",
        help="Serve every game of this PostgreSQL database (postgresql://USER@HOST:PORT/DB) instead of a folder; new "
             "games, seats and join codes are kept in it, so several servers can serve it at once."),
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on (default: this machine only)."),
    port: int = typer.Option(8000, "--port", help="The port (0: a free one)."),
    db: Optional[Path] = typer.Option(
        None, "--db", help="The history library shown at /library, to the host only (default: $TALLY_DB, else ./tally.duckdb)."),
    as_json: bool = JsonOption,
) -> None:
    """Serve every game in DIRECTORY, or of the database --store URL, over HTTP (an API and its event stream).

    Prints the address and the host's link, holding the host token (who starts games and hands out seats;
    $TALLY_HOST_TOKEN, when set, is the token: give every server behind one address the same); with --json
    one line {"url": ..., "token": ...}. Stop it with Ctrl-C."""
    import socket

    from tally.store.logstore import is_database_url, safe_url

    if (directory is None) == (store is None):
        raise fail(EXIT_USAGE, "serve a folder (DIRECTORY) or a database (--store URL), one of them")
    if store is not None and not is_database_url(store):
        raise fail(EXIT_USAGE, f"--store {store}: a PostgreSQL URL (postgresql://...); a folder is served as DIRECTORY")
    if directory is not None and not directory.is_dir():
        raise fail(EXIT_USAGE, f"{directory}: not a folder")
    secret = os.environ.get(HOST_TOKEN, "").strip()
    if os.environ.get(HOST_TOKEN) is not None and len(secret) < 32:
        raise fail(EXIT_USAGE, f"${HOST_TOKEN}: a host token is at least 32 characters (leave it unset for a new one)")
    if not 0 <= port <= 65535:
        raise fail(EXIT_USAGE, f"--port {port}: a port is 0-65535")
    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listening = socket.socket(family, socket.SOCK_STREAM)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # an answer's headers and body go out as two writes: without this, the body waits for the client's
        # delayed acknowledgement (40 ms on Linux) of the headers (accepted connections inherit the option)
        listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listening.bind((host, port))
        listening.listen(2048)  # connections queue from now on: a client told the address below is never refused
    except (OSError, UnicodeError) as error:
        raise fail(EXIT_USAGE, f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}") from None
    import uvicorn

    from tally.serve.app import create_app

    where = store if store is not None else directory
    assert where is not None
    if store is not None:
        from tally.store.pgstore import Listener, game_ids

        game_ids(store)  # a database that cannot be reached is refused now, in one line (exit 3), not on a request
        Listener.of(store)
    served = create_app(where, secret or None, db)
    from tally.serve.library import warm_up

    warm_up(served)  # the library page's first request then pays for no import
    bound = listening.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}"
    token = served.state.host_token
    if as_json:
        print(json_text({"url": url, "token": token}), flush=True)
    else:
        say(f"serving {directory if store is None else safe_url(store)} at {url}")
        say(f"host link (keep it to yourself): {url}/#token={token}")
        print(end="", flush=True)
    config = uvicorn.Config(served, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[listening])
