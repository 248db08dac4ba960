"""`tally ingest --store URL`: the history library built from a PostgreSQL log store, incrementally.

The database says what each game's fingerprint is now (`tally_games`); the library says which fingerprints
it holds. A game whose fingerprint the library already has is unchanged and is not read at all; every
other game (new, or grown since) is ingested by the same machinery as a file (`library.ingest`, reading it
as `URL#GAME`), so the tables, the checks and the idempotence are those of an ingest from files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from tally.store.library.schema import connect
from tally.store.library.writer import Summary, ingest
from tally.store.logs import pgstore


def known_fingerprints(db: Path | str) -> set[str]:
    if not Path(db).exists():
        return set()
    con = connect(db)
    try:
        return {row[0] for row in con.execute("SELECT fingerprint FROM games").fetchall()}
    finally:
        con.close()


def ingest_store(
    db: Path | str,
    url: str,
    progress: Callable[[int, int, int], None] | None = None,
    jobs: int | None = None,
) -> Summary:
    """Ingest every game of the store that the library does not hold as it is now; the rest count as unchanged."""
    import time

    began = time.perf_counter()
    password = pgstore.password_of(url)
    if password is not None and "PGPASSWORD" not in os.environ:
        os.environ["PGPASSWORD"] = password  # the games are read as URL#GAME without it (and so recorded)
    games = pgstore.games(url)
    held = known_fingerprints(db)
    grown = [pgstore.game_url(url, game) for game, _, fingerprint in games if fingerprint not in held]
    summary = ingest(db, grown, progress, jobs)
    summary.files = len(games)
    summary.games_unchanged += len(games) - len(grown)
    summary.seconds = round(time.perf_counter() - began, 3)
    return summary
