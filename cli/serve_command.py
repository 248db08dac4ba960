"""`tally serve`: every log of a folder served over HTTP to the devices at the tables (the app is `tally.serve`);
registered on the app. Starlette and uvicorn are imported only when the command runs, so no other command pays
for them."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Optional

import typer

from .app import EXIT_USAGE, JsonOption, app, fail, handled, json_text, say

HOST_TOKEN = "TALLY_HOST_TOKEN"  # the host token several servers behind one address share (default: a new one)


@app.command("serve")
@handled
def serve_command(
    directory: Optional[Path] = typer.Argument(
        None, help="The folder of game logs (ID.jsonl) to serve; new games are created there."
    ),
    store: Optional[str] = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Serve every game of this PostgreSQL database (postgresql://USER@HOST:PORT/DB) instead of a folder; new "
        "games, seats and join codes are kept in it, so several servers can serve it at once.",
    ),
    host: Optional[str] = typer.Option(
        None,
        "--host",
        help="The address to listen on (default: 127.0.0.1, this machine only); a name given here is "
        "one a request's Host header may carry.",
    ),
    port: int = typer.Option(8000, "--port", help="The port (0: a free one)."),
    db: Optional[Path] = typer.Option(
        None,
        "--db",
        help="The history library shown at /library, to the host only (default: $TALLY_DB, else ./tally.duckdb).",
    ),
    ssl_keyfile: Optional[Path] = typer.Option(
        None,
        "--ssl-keyfile",
        metavar="FILE",
        help="Serve HTTPS with this private key (PEM, not encrypted); with --ssl-certfile.",
    ),
    ssl_certfile: Optional[Path] = typer.Option(
        None, "--ssl-certfile", metavar="FILE", help="Serve HTTPS with this certificate (PEM, its chain after it)."
    ),
    allow_host: list[str] = typer.Option(
        [],
        "--allow-host",
        metavar="NAME",
        help="A name the server is reached by (a reverse proxy's, a name of this machine on the network): a request "
        "whose Host header names no IP address and none of these, localhost, --host nor this machine's name is "
        "refused (421), against DNS rebinding.",
    ),
    request_timeout: float = typer.Option(
        10.0,
        "--request-timeout",
        metavar="SECONDS",
        help="How long a client may take to send a request's headers (from connecting, or from the last answer), and "
        "then its body; a slower one is cut off.",
    ),
    max_streams: int = typer.Option(
        1000,
        "--max-streams",
        metavar="N",
        help="Event streams open at once, in all (fewer when the process may open "
        "fewer files); one more is refused, 503.",
    ),
    max_streams_per_client: int = typer.Option(
        10,
        "--max-streams-per-client",
        metavar="N",
        help="Event streams open at once from one client address; one more is refused, 429.",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Serve every game in DIRECTORY, or of the database --store URL, over HTTP (an API and its event stream).

    Prints the address and the host's link, holding the host token (who starts games and hands out seats;
    $TALLY_HOST_TOKEN, when set, is the token: give every server behind one address the same); with --json
    one line {"url": ..., "token": ..., "host_link": ...}. Plain HTTP shows every token, code and card to anyone on the network:
    serve HTTPS with --ssl-certfile and --ssl-keyfile, or behind a reverse proxy (docs/security.md). Stop it
    with Ctrl-C."""
    import socket

    from tally.store.logs.logstore import is_database_url, safe_url

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
    if not 0 < request_timeout <= 3600:  # NaN fails this too
        raise fail(EXIT_USAGE, f"--request-timeout {request_timeout:g}: seconds, more than 0 and at most 3600")
    for name, value in (("--max-streams", max_streams), ("--max-streams-per-client", max_streams_per_client)):
        if not 1 <= value <= 1_000_000:
            raise fail(EXIT_USAGE, f"{name} {value}: a number of streams, 1 to 1000000")
    for name in allow_host:
        if not HOST_NAME.fullmatch(name):
            raise fail(
                EXIT_USAGE, f"--allow-host {quoted(name)}: a host name (letters, digits, '-', '.') or an IP address"
            )
    scheme = "https" if check_tls(ssl_keyfile, ssl_certfile) else "http"
    bind = host or "127.0.0.1"
    from tally.serve.connections import BACKLOG, RESERVE, Gate, open_files_limit, protocol_for

    family = socket.AF_INET6 if ":" in bind else socket.AF_INET
    listening = socket.socket(family, socket.SOCK_STREAM)
    try:
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        # an answer's headers and body go out as two writes: without this, the body waits for the client's
        # delayed acknowledgement (40 ms on Linux) of the headers (accepted connections inherit the option)
        listening.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        listening.bind((bind, port))
        listening.listen(BACKLOG)  # connections queue from now on: a client told the address below is never refused
    except (OSError, UnicodeError, TypeError, ValueError) as error:  # TypeError: a NUL in the name
        listening.close()
        raise fail(
            EXIT_USAGE, f"cannot listen on {quoted(bind)}:{port}: {getattr(error, 'strerror', None) or error}"
        ) from None
    try:
        import uvicorn

        from tally.serve.app import create_app
        from tally.serve.http import Limits, names_of

        where = store if store is not None else directory
        assert where is not None
        if store is not None:
            from tally.store.logs.pgstore import Listener, game_ids

            game_ids(store)  # a database that cannot be reached is refused now, in one line (exit 3), not on a request
            Listener.of(store)
        # every connection is an open file: the server holds at most what the process may open, less its own files,
        # and its streams fewer again, so that a request always finds room beside them
        gate = Gate(max(open_files_limit() - RESERVE, 256), request_timeout)
        limits = Limits(
            request_timeout=request_timeout,
            max_streams=min(max_streams, gate.most - 128),
            max_streams_per_client=max_streams_per_client,
            hosts=names_of(bind, host is not None, allow_host),
        )
        served = create_app(where, secret or None, db, limits)
        from tally.serve.library import warm_up

        warm_up(served)  # the library page's first request then pays for no import
        bound = listening.getsockname()[1]
        shown = f"[{bind}]" if family == socket.AF_INET6 else bind
        url = f"{scheme}://{shown}:{bound}"
        token = served.state.host_token
        host_link = f"{url}/#token={token}"
        if as_json:
            print(json_text({"url": url, "token": token, "host_link": host_link}), flush=True)
        else:
            say(f"serving {directory if store is None else safe_url(store)} at {url}")
            say(f"host link (keep it to yourself): {host_link}")
            print(end="", flush=True)
        config = uvicorn.Config(
            served,
            log_level="warning",
            access_log=False,
            lifespan="off",
            http=protocol_for(gate),
            ssl_keyfile=str(ssl_keyfile) if ssl_keyfile else None,
            ssl_certfile=str(ssl_certfile) if ssl_certfile else None,
            backlog=BACKLOG,
        )
        uvicorn.Server(config).run(sockets=[listening])
    finally:
        listening.close()


HOST_NAME = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9.])?|\[?[0-9A-Fa-f:.]{2,45}\]?")


def quoted(text: str) -> str:
    return repr(text)[1:-1][:80]


def check_tls(keyfile: Optional[Path], certfile: Optional[Path]) -> bool:
    """Whether to serve HTTPS: the certificate and its key read and matched now, so that a file missing,
    unreadable, encrypted or not of one pair is one line (exit 2), not a traceback of the server's start."""
    if keyfile is None and certfile is None:
        return False
    if certfile is None:
        raise fail(EXIT_USAGE, "--ssl-keyfile: give the certificate too (--ssl-certfile FILE)")
    import ssl

    for option, path in (("--ssl-certfile", certfile), ("--ssl-keyfile", keyfile)):
        if path is None:
            continue
        try:
            with open(path, "rb") as opened:
                opened.read(1)
        except OSError as error:
            raise fail(EXIT_USAGE, f"{option} {path}: cannot read it: {error.strerror or error}") from None

    def no_password() -> str:
        raise ValueError("the key is encrypted")

    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(certfile, keyfile, password=no_password)
    except (ssl.SSLError, ValueError, OSError) as error:
        if "encrypted" in str(error):
            reason = "the key is encrypted: give it unencrypted (and readable by this user only)"
        elif getattr(error, "reason", None) == "KEY_VALUES_MISMATCH":
            reason = "the key is not the certificate's"
        else:
            reason = f"a file is not PEM, or not what its option names ({str(error).splitlines()[0] if str(error) else error!r})"
        pair = f"--ssl-certfile {certfile}" + (f" --ssl-keyfile {keyfile}" if keyfile else "")
        raise fail(EXIT_USAGE, f"{pair}: not a certificate and its key: {reason}") from None
    return True
