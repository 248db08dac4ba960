"""`--store`: the log store a command's LOG lives in (store/logs/logstore.py). Only typer here: `tally move`
imports this, and psycopg is imported only when a PostgreSQL URL is named."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

StoreOption = typer.Option(
    None,
    "--store",
    metavar="URL",
    help="The log store: a PostgreSQL database (postgresql://USER@HOST:PORT/DB; LOG is then a game id in it), or a "
    "folder of logs (LOG is LOG.jsonl in it). Default: LOG is a file.",
)


def log_for(log: Path | str, store: str | None) -> Any:
    """The log a command names: the file LOG, or with --store the game LOG of that store."""
    if store is None:
        return log
    from tally.store.logs.places import open_store

    return open_store(str(log), store)
