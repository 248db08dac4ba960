"""`tally serve`: every log of a folder served over HTTP to the devices at the tables (the app is `tally.serve`);
registered on the app. Starlette and uvicorn are imported only when the command runs, so no other command pays
for them."""

from __future__ import annotations

from pathlib import Path

import typer

from .main import EXIT_USAGE, JsonOption, app, fail, handled, json_text, say


@app.command("serve")
@handled
def serve_command(
    directory: Path = typer.Argument(..., help="The folder of game logs (ID.jsonl) to serve; new games are created there."),
    host: str = typer.Option("127.0.0.1", "--host", help="The address to listen on (default: this machine only)."),
    port: int = typer.Option(8000, "--port", help="The port (0: a free one)."),
    as_json: bool = JsonOption,
) -> None:
    """Serve every game log in DIRECTORY over HTTP (an API and its event stream) for the devices at the table.

    Prints the address and the host's link, holding the host token (who starts games and hands out seats);
    with --json one line {"url": ..., "token": ...}. Stop it with Ctrl-C."""
    import socket

    if not directory.is_dir():
        raise fail(EXIT_USAGE, f"{directory}: not a folder")
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
    except (OSError, UnicodeError) as error:
        raise fail(EXIT_USAGE, f"cannot listen on {host}:{port}: {getattr(error, 'strerror', None) or error}") from None
    import uvicorn

    from tally.serve.app import create_app

    served = create_app(directory)
    bound = listening.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}"
    token = served.state.host_token
    if as_json:
        print(json_text({"url": url, "token": token}), flush=True)
    else:
        say(f"serving {directory} at {url}")
        say(f"host link (keep it to yourself): {url}/#token={token}")
        print(end="", flush=True)
    config = uvicorn.Config(served, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[listening])
