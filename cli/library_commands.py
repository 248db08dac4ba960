"""History library commands (ingest, sql, stats, export): registered on the app, duckdb imported lazily.

Only typer and the standard library are imported here at load time: `tally move` must not pay for
duckdb, pyarrow or rich. The work is done by `tally.store.library`; these commands parse and render.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from tally.core.text import visible

from .app import (
    EXIT_DAMAGED,
    EXIT_RULE,
    EXIT_USAGE,
    DbOption,
    JsonOption,
    app,
    emit,
    fail,
    handled,
    say,
    waits_for_library,
)

GameOption = typer.Option(None, "--game", help="Only games of this type (see `tally games`).")


# --------------------------------------------------------------------------- ingest


@app.command("ingest")
@handled
@waits_for_library
def ingest_command(
    paths: Optional[List[Path]] = typer.Argument(None, help="Log files, or folders searched recursively for *.jsonl."),
    db: Optional[Path] = DbOption,
    jobs: Optional[int] = typer.Option(
        None,
        "--jobs",
        help="Worker processes (default on large runs: one per CPU but one, beside the writer; 1: none).",
    ),
    progress: Optional[bool] = typer.Option(
        None,
        "--progress/--no-progress",
        help="Show a progress bar on stderr (default: shown only when stderr is a terminal and there are 20 logs or more).",
    ),
    store: Optional[str] = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Ingest every game of this PostgreSQL log store instead of files: only the games that are new or grew "
        "since the library last saw them are read.",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Load game logs into the history library. Idempotent: a log already there changes nothing; a grown log adds its new events."""
    from tally.store import library

    if (store is None) == (not paths):
        raise fail(EXIT_USAGE, "name the logs to ingest, or --store URL (not both)")
    target = library.resolve_db(db)
    bar = _ProgressBar(progress)
    try:
        if store is not None:
            from tally.store.library.store import ingest_store

            summary = ingest_store(target, _database(store), bar.update, jobs)
        else:
            summary = library.ingest(target, paths or [], bar.update, jobs)
    finally:
        bar.stop()
    rejected = summary.rejected
    if as_json:
        emit(
            {
                "ok": not rejected,
                "db": str(target),
                "files": summary.files,
                "games_added": summary.games_added,
                "events_added": summary.events_added,
                "games_grown": summary.games_grown,
                "games_unchanged": summary.games_unchanged,
                "games_stale": summary.games_stale,
                "rejected": [
                    {"path": r.path, "line": r.line, "kind": r.kind, "rule": r.rule, "message": r.message}
                    for r in rejected
                ],
                "seconds": summary.seconds,
            }
        )
    else:
        rate = (
            f" ({summary.events_added / summary.seconds:,.0f} events/s)"
            if summary.seconds and summary.events_added
            else ""
        )
        say(
            f"ingested {summary.files} log{'s' if summary.files != 1 else ''} into {target} in {summary.seconds:.1f} s{rate}"
        )
        say(f"  games added      {summary.games_added}")
        say(f"  events added     {summary.events_added}")
        say(f"  games grown      {summary.games_grown}  (only their new events added)")
        say(f"  games unchanged  {summary.games_unchanged}")
        if summary.games_stale:
            say(f"  older copies     {summary.games_stale}  (the library already holds more of these games)")
        say(f"  logs rejected    {len(rejected)}")
    for r in rejected:
        sys.stderr.write(f"tally: rejected {visible(r.render())}\n")
    if rejected:
        code = EXIT_DAMAGED if any(r.kind != "illegal" for r in rejected) else EXIT_RULE
        raise typer.Exit(code)


class _ProgressBar:
    """A rich progress bar on stderr, only for long runs on a terminal (or when asked with --progress)."""

    MANY = 20

    def __init__(self, wanted: Optional[bool]):
        self.wanted = wanted
        self.progress: Any = None
        self.task: Any = None

    def update(self, done: int, total: int, events: int) -> None:
        if self.progress is None:
            show = self.wanted if self.wanted is not None else (sys.stderr.isatty() and total >= self.MANY)
            if not show:
                self.wanted = False
                return
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            self.progress = Progress(
                TextColumn("ingesting"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("logs, {task.fields[events]:,} events"),
                TimeRemainingColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.progress.start()
            self.task = self.progress.add_task("ingest", total=total, events=0)
        self.progress.update(self.task, completed=done, events=events)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


# --------------------------------------------------------------------------- sql


@app.command("sql", context_settings={"ignore_unknown_options": True})  # a query may start with `--` (a comment)
@handled
@waits_for_library
def sql_command(
    query: str = typer.Argument(..., help='The query, e.g. "SELECT winner, count(*) FROM games GROUP BY winner".'),
    db: Optional[Path] = DbOption,
    format: str = typer.Option("table", "--format", help="table (default), csv or json."),
    max_rows: int = typer.Option(1000, "--max-rows", help="With --format table: show at most this many rows."),
    timeout: float = typer.Option(
        60.0, "--timeout", help="Stop the query after this many seconds, running and fetching its rows (0: no limit)."
    ),
    memory_limit: str = typer.Option(
        "2GB", "--memory-limit", help="DuckDB's memory limit for the query, e.g. 500MB or 8GB."
    ),
    as_json: bool = typer.Option(False, "--json", help="Same as --format json."),
) -> None:
    """Run a read-only SQL query on the history library (tables: docs/sql.md), within a time and a memory limit."""
    from tally.store import library

    if as_json:
        format = "json"
    if format not in ("table", "csv", "json"):
        raise fail(EXIT_USAGE, f"--format {format!r}: expected table, csv or json")
    if max_rows < 0:
        raise fail(EXIT_USAGE, f"--max-rows {max_rows}: expected 0 or more")
    result = library.query(library.resolve_db(db), query, timeout=timeout, memory_limit=memory_limit)
    if format == "csv":
        _print_csv(result)
    elif format == "json":
        _print_json(result)
    else:
        _print_table(result, max_rows)


def _cell(value: Any, kind: str) -> Any:
    """A value as JSON can hold it: times in ISO-8601, JSON columns decoded, decimals as numbers."""
    import json

    if value is None:
        return None
    if kind == "JSON" and isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    if isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, (list, tuple)):
        return [_cell(v, "") for v in value]
    if isinstance(value, dict):
        return {str(k): _cell(v, "") for k, v in value.items()}
    if hasattr(value, "isoformat"):
        return value.isoformat().replace("+00:00", "Z")
    if type(value).__name__ == "Decimal":
        return float(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex()
    return str(value)


def _text(value: Any, kind: str) -> str:
    import json

    if value is None:
        return ""
    if isinstance(value, str):
        return value
    plain = _cell(value, kind)
    if isinstance(plain, (list, dict)):
        return json.dumps(plain, ensure_ascii=False)
    if isinstance(plain, float):
        return f"{plain:.6g}"
    return str(plain)


def _print_csv(result: Any) -> None:
    import csv

    writer = csv.writer(sys.stdout, lineterminator="\n")
    # CSV carries values exactly (for files and pipes); on a terminal, control characters are shown escaped
    cell = (lambda v, k: visible(_text(v, k))) if sys.stdout.isatty() else _text
    writer.writerow([cell(c, "VARCHAR") for c in result.columns])
    kinds = result.types
    for row in result.rows():
        writer.writerow([cell(v, k) for v, k in zip(row, kinds)])


def _print_json(result: Any) -> None:
    """One document on one line, written as the rows arrive (a large result is never held whole)."""
    from .app import json_text

    out = sys.stdout
    head = json_text({"columns": result.columns, "types": result.types})
    out.write(head[:-1] + ', "rows": [')
    count = 0
    kinds = result.types
    for row in result.rows():
        if count:
            out.write(", ")
        out.write(json_text({c: _cell(v, k) for c, v, k in zip(result.columns, row, kinds)}))
        count += 1
    out.write(f'], "count": {count}}}\n')


NUMERIC = ("INTEGER", "BIGINT", "HUGEINT", "DOUBLE", "FLOAT", "DECIMAL", "SMALLINT", "TINYINT", "UBIGINT", "UINTEGER")
PIPED_WIDTH = 100  # `render.console()`'s width off a terminal


def _print_table(result: Any, max_rows: int) -> None:
    headers = [visible(name) for name in result.columns]
    right = [kind.startswith(NUMERIC) for kind in result.types]
    cells: list[list[str | None]] = []
    more = False
    for row in result.rows():
        if len(cells) == max_rows:  # stop reading: a terminal table of a million rows helps no one
            more = True
            break
        cells.append([visible(_text(v, k)) if v is not None else None for v, k in zip(row, result.types)])
    shown = len(cells)
    said = (
        f"showing the first {shown} rows; there are more (use --max-rows N, or --format csv for all)"
        if more
        else f"{shown} row{'s' if shown != 1 else ''}"
    )
    plain = None if sys.stdout.isatty() else _plain_table_text(headers, right, cells, said)
    if plain is not None:
        sys.stdout.write(plain)
        return
    from rich.table import Table
    from rich.text import Text

    from .render import console

    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for name, is_right in zip(headers, right):
        table.add_column(name, justify="right" if is_right else "left", overflow="fold")
    for values in cells:
        table.add_row(*[Text(v) if v is not None else Text("NULL", style="dim") for v in values])
    out = console()
    out.print(table)
    out.print(Text(said, style="dim"))


def _plain_table_text(headers: list[str], right: list[bool], cells: list[list[str | None]], said: str) -> str | None:
    """The table as rich prints it off a terminal (no styles; columns two spaces apart, each as wide as its widest
    cell, numbers to the right), written directly: rich's layout costs more than the query. None when rich's
    layout would differ from this one (a table wider than the page, a cell of several lines, of characters that
    are not one column each or with spaces at an end, which rich's wrapping trims), which rich then prints."""
    rows = [[("NULL" if v is None else v) for v in values] for values in cells]
    texts = [*headers, *(v for values in rows for v in values), said]
    if (
        not all(text.isascii() and text.isprintable() and text == text.strip() for text in texts)
        or len(said) > PIPED_WIDTH
    ):
        return None
    widths = [max([len(header)] + [len(values[i]) for values in rows]) for i, header in enumerate(headers)]
    if sum(widths) + 2 * (len(widths) - 1) > PIPED_WIDTH or not widths:
        return None

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if is_right else v.ljust(w) for v, w, is_right in zip(values, widths, right))

    return "\n".join([line(headers), *(line(values) for values in rows), said]) + "\n"


# --------------------------------------------------------------------------- stats


@app.command("stats")
@handled
@waits_for_library
def stats_command(
    game: Optional[str] = GameOption,
    db: Optional[Path] = DbOption,
    top: int = typer.Option(10, "--top", help="How many of the most-bought cards to list."),
    simulated: bool = typer.Option(
        False, "--simulated", help="Count the games `tally simulate` played too (left out by default)."
    ),
    svg: Optional[Path] = typer.Option(
        None, "--svg", help="Also write the library's charts into this folder, one SVG each."
    ),
    csv: Optional[Path] = typer.Option(
        None, "--csv", help="Also write every report and chart's rows into this folder, one CSV each."
    ),
    as_json: bool = JsonOption,
) -> None:
    """The canned report: games played, win rate by player and by seat, game length, score progression, most-bought cards.

    Each section says how many games it rests on; simulated games are left out unless --simulated is given, scores
    are averaged only within one game and scale, and aliases (`tally alias`) merge one person's names."""
    from tally.store import library

    if not 0 <= top <= 1_000_000:
        raise fail(EXIT_USAGE, f"--top {top}: expected a number from 0 to 1000000")
    target = library.resolve_db(db)
    report = library.stats(target, game, top, simulated)
    report["files"] = []
    if svg is not None or csv is not None:
        from .history_commands import write_charts

        report["files"] = write_charts(target, report, game, simulated, svg, csv)
    if as_json:
        emit(report)
        return
    _print_stats(report)
    for path in report["files"]:
        say(f"wrote {path}")


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _num(value: Any, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _bar(value: float, scale: float, width: int = 30) -> str:
    """A horizontal bar in eighths of a character: no chart library needed."""
    if value is None or scale <= 0:
        return ""
    eighths = int(round(max(0.0, value) / scale * width * 8))
    return "█" * (eighths // 8) + ("", "▏", "▎", "▍", "▌", "▋", "▊", "▉")[eighths % 8]


def _shown(data: Any) -> Any:
    """`data` with every string made safe to print (`core.text.visible`), like the boards' `render.shown`."""
    if isinstance(data, str):
        return visible(data)
    if isinstance(data, list):
        return [_shown(item) for item in data]
    if isinstance(data, dict):
        return {key: _shown(value) for key, value in data.items()}
    return data


def _plain_table(title: str, columns: list[tuple[str, str]], rows: list[list[str]]) -> str:
    """A table as plain text: its title, then the header and the rows in columns two spaces apart (`columns`:
    (header, `l` or `r`)). Plain text, not rich: the report is printed in a tenth of the time, and reads the same."""
    widths = [max([len(header)] + [len(row[i]) for row in rows]) for i, (header, _) in enumerate(columns)]

    def line(cells: list[str]) -> str:
        return "  ".join(
            cell.ljust(w) if align == "l" else cell.rjust(w) for cell, w, (_, align) in zip(cells, widths, columns)
        ).rstrip()

    return "\n".join([title, line([header for header, _ in columns]), *(line(row) for row in rows)])


def _print_stats(report: dict[str, Any]) -> None:
    report = _shown(report)
    scope = f" ({report['game']})" if report["game"] else ""
    if not report["games"]:
        left_out = (
            f" ({report['simulated_left_out']} simulated games left out: --simulated counts them)"
            if report["simulated_left_out"]
            else ""
        )
        say(f"no games in {report['db']}{scope} yet{left_out}: load some with `tally ingest LOGS...`")
        return
    left_out = (
        f"; {report['simulated_left_out']} simulated games left out (--simulated counts them)"
        if report["simulated_left_out"]
        else ""
    )
    out = [f"{report['games']} games{scope}, {report['finished']} finished{left_out}"]
    rests = report["rests_on"]
    out.append(
        _plain_table(
            f"games and length ({rests['by_game']} games)",
            [
                ("game", "l"),
                ("games", "r"),
                ("finished", "r"),
                ("avg events", "r"),
                ("avg turns", "r"),
                ("first", "l"),
                ("last", "l"),
            ],
            [
                [
                    row["game"],
                    str(row["games"]),
                    str(row["finished"]),
                    _num(row["avg_events"]),
                    _num(row["avg_turns"]),
                    str(row["first"] or "-")[:10],
                    str(row["last"] or "-")[:10],
                ]
                for row in report["by_game"]
            ],
        )
    )
    scales: dict[str, list[str]] = {}
    for row in report["players"]:
        known = scales.setdefault(row["game"], [])
        if row["scale"] not in known:
            known.append(row["scale"])
    out.append(
        _plain_table(  # a scale is the game's options: numbered, so a line stays short
            f"win rate by player, per game and scale ({rests['players']} finished games; a shared victory counts for each "
            "winner; scores averaged only within one game and scale)",
            [
                ("game", "l"),
                ("scale", "r"),
                ("player", "l"),
                ("games", "r"),
                ("wins", "r"),
                ("win rate", "r"),
                ("avg score", "r"),
                ("", "l"),
            ],
            [
                [
                    row["game"],
                    str(scales[row["game"]].index(row["scale"]) + 1),
                    row["player"],
                    str(row["games"]),
                    str(row["wins"]),
                    _pct(row["win_rate"]),
                    _num(row["avg_score"]),
                    _bar(row["win_rate"] or 0, 1.0, 20),
                ]
                for row in report["players"]
            ],
        )
    )
    for name, known in scales.items():
        if len(known) > 1:
            out.extend(f"  {name} scale {number}: {options}" for number, options in enumerate(known, 1))
    out.append(
        _plain_table(
            f"win rate by seat (seat 1 plays first; {rests['seats']} finished games)",
            [
                ("game", "l"),
                ("players", "r"),
                ("seat", "r"),
                ("games", "r"),
                ("wins", "r"),
                ("win rate", "r"),
                ("", "l"),
            ],
            [
                [
                    row["game"],
                    str(row["players"]),
                    str(row["seat"]),
                    str(row["games"]),
                    str(row["wins"]),
                    _pct(row["win_rate"]),
                    _bar(row["win_rate"] or 0, 1.0, 20),
                ]
                for row in report["seats"]
            ],
        )
    )
    for section in report["sections"]:
        rows = report.get(section["key"], {}).get(section["game"])
        if rows:
            out.append(_report_table(section, rows, rests.get(section["key"], {}).get(section["game"], 0)))
    sys.stdout.write("\n\n".join(out) + "\n")


def _report_table(section: dict[str, Any], rows: list[dict[str, Any]], games: int) -> str:
    """One of a game's reports (core.history.Report, as the library keeps it) as a table; a chart's bars share one scale."""
    declared = section["columns"]
    bars = [c["name"] for c in declared if c.get("bar")]
    scale = max((row[name] or 0 for row in rows for name in bars), default=0) or 1.0
    columns: list[tuple[str, str]] = []
    for column in declared:
        columns.append((column["header"], "l" if column.get("kind", "text") == "text" else "r"))
        if column.get("bar"):
            columns.append(("", "l"))
    if section["chart"]:  # at most ~40 lines, always ending on the last row
        step = max(1, len(rows) // 40)
        rows = rows[::step] if rows[-1] in rows[::step] else rows[::step] + [rows[-1]]
    table = []
    for row in rows:
        cells: list[str] = []
        for column in declared:
            value = row[column["name"]]
            kind = column.get("kind", "text")
            cells.append({"pct": _pct, "num": _num}.get(kind, lambda v: "-" if v is None else str(v))(value))
            if column.get("bar"):
                cells.append(_bar(value, scale))
        table.append(cells)
    return _plain_table(f"{section['game']}: {section['title']} ({games} games)", columns, table)


# --------------------------------------------------------------------------- export


@app.command("export")
@handled
@waits_for_library
def export_command(
    to: Path = typer.Option(..., "--to", help="A new or empty folder."),
    format: str = typer.Option(
        "jsonl",
        "--format",
        help="jsonl (each game as <game id>.jsonl), parquet (every table) or "
        "bgstats (each finished game played at a table as a BG Stats play, <game id>.json, and "
        "the link that logs it in BG Stats, <game id>.link).",
    ),
    zone: Optional[str] = typer.Option(
        None,
        "--timezone",
        metavar="ZONE",
        help="bgstats: the time zone of the plays' dates, an IANA name (Europe/Copenhagen, UTC); default: this "
        "machine's.",
    ),
    game: Optional[str] = GameOption,
    db: Optional[Path] = DbOption,
    store: Optional[str] = typer.Option(
        None,
        "--store",
        metavar="URL",
        help="Export the games of this PostgreSQL log store instead (each as <game id>.jsonl, byte for byte).",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Write the library back out: every game as its byte-identical log, every table as Parquet partitioned by game,
    or every finished game as a BG Stats play and its link.

    BG Stats takes a play only as a link opened on the phone (`<game id>.link`): open each there, or scan it from a
    finished game's page of `tally serve`. A game without a valid start time is skipped, with a warning."""
    from tally.store import library

    if store is not None:
        if format != "jsonl" or game is not None or db is not None or zone is not None:
            raise fail(
                EXIT_USAGE,
                "--store exports every game of the store as JSONL: without --format, --game, --db or --timezone",
            )
        from tally.store.logs import pgstore

        written = list(pgstore.export(_database(store), to))
        events = sum(count for _, _, count in written)
        if as_json:
            emit(
                {
                    "db": pgstore.safe_url(store),
                    "to": str(to),
                    "format": "jsonl",
                    "games": len(written),
                    "events": events,
                    "files": len(written),
                }
            )
            return
        say(
            f"exported {len(written)} games ({events} events) from {pgstore.safe_url(store)} to {to}: {len(written)} logs"
        )
        return

    result = library.export(library.resolve_db(db), to, format, game, zone)
    for skipped in result.skipped:  # a warning on stderr: the export itself succeeded
        sys.stderr.write(f"tally: warning: {visible(skipped.game_id)} skipped: {visible(skipped.why)}\n")
    if as_json:
        document: dict[str, Any] = {
            "db": result.db,
            "to": result.to,
            "format": result.format,
            "games": result.games,
            "events": result.events,
            "files": len(result.files),
        }
        if format == "bgstats":
            document.update(
                timezone=result.timezone, skipped=[{"game_id": s.game_id, "why": s.why} for s in result.skipped]
            )
        emit(document)
        return
    what = {"jsonl": "logs", "parquet": "Parquet files", "bgstats": "BG Stats plays"}[format]
    if format == "bgstats":
        left = f" ({len(result.skipped)} skipped: no valid date)" if result.skipped else ""
        say(
            f"exported {result.games} finished games from {result.db} to {result.to}: {result.games} {what} (.json) "
            f"and their links (.link; open one on the phone with BG Stats), dated in {result.timezone}{left}"
        )
        return
    say(
        f"exported {result.games} games ({result.events} events) from {result.db} to {result.to}: {len(result.files)} {what}"
    )
    if format == "parquet":
        say(f"read them with: SELECT * FROM read_parquet('{result.to}/events/**/*.parquet', hive_partitioning = true)")


# --------------------------------------------------------------------------- a log store


def _database(store: str) -> str:
    from tally.store.logs.logstore import is_database_url

    if not is_database_url(store):
        raise fail(EXIT_USAGE, f"--store {store}: expected a PostgreSQL URL (postgresql://USER@HOST:PORT/DB)")
    return store


@app.command("import")
@handled
def import_command(
    logs: List[Path] = typer.Argument(..., help="JSONL logs to copy into the store."),
    store: str = typer.Option(
        ...,
        "--store",
        metavar="URL",
        help="The log store: a PostgreSQL database (postgresql://USER@HOST:PORT/DB) or a folder of logs.",
    ),
    game_id: Optional[str] = typer.Option(
        None, "--id", help="The game id in the store (one log only; default: the file's name without .jsonl)."
    ),
    as_json: bool = JsonOption,
) -> None:
    """Copy JSONL logs into a log store, line for line: the chain, units and fingerprint stay as they are.

    Each log is verified first (as `tally check` reads it); a game id that is taken is refused, never overwritten."""
    from tally.store.logs.logstore import is_database_url
    from tally.store.logs.places import import_log

    if game_id is not None and len(logs) != 1:
        raise fail(EXIT_USAGE, "--id names one game: import one log with it")
    if not is_database_url(store) and not Path(store).is_dir():
        raise fail(
            EXIT_USAGE, f"--store {store}: expected a PostgreSQL URL (postgresql://USER@HOST:PORT/DB) or a folder"
        )
    done = []
    for log in logs:
        game, events, fingerprint = import_log(log, store, game_id)
        done.append({"log": str(log), "game": game, "events": events, "fingerprint": fingerprint})
        if not as_json:
            say(f"imported {log} as {game}: {events} events, fingerprint {fingerprint}")
    if as_json:
        from tally.store.logs.logstore import safe_url

        emit({"store": safe_url(store), "games": done})
