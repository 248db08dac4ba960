"""History you can look at: `tally chart LOG` (one game's chart, in the terminal or `--svg FILE`), `tally alias NAME PERSON`, and the
files `tally stats --svg DIR --csv DIR` writes. duckdb is imported only inside the commands."""

from __future__ import annotations

import csv as csvfile
from pathlib import Path
from typing import Any, Optional

import typer

from .app import EXIT_USAGE, DbOption, JsonOption, app, emit, fail, handled, say, waits_for_library


def _folder(path: Path) -> Path:
    if path.exists() and not path.is_dir():
        raise fail(EXIT_USAGE, f"{path}: not a folder")
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_charts(
    db: Path, report: dict[str, Any], game: Optional[str], simulated: bool, svg: Optional[Path], csv: Optional[Path]
) -> list[str]:
    """The library's charts as `<key>.svg` in `svg`, and every report's and chart's rows as `<key>.csv` in `csv`."""
    from tally.store.library.charts import library_charts

    written: list[str] = []
    drawn = library_charts(db, game, simulated)
    if svg is not None:
        folder = _folder(svg)
        for chart in drawn:
            path = folder / f"{chart.key}.svg"
            path.write_text(chart.svg, encoding="utf-8")
            written.append(str(path))
    if csv is not None:
        folder = _folder(csv)
        tables: dict[str, tuple[list[str], list[list[Any]]]] = {}
        for key in ("by_game", "players", "seats"):
            tables[key] = _columns(report[key])
        for key, by_game in report.items():
            if (
                isinstance(by_game, dict)
                and key not in ("rests_on",)
                and all(isinstance(v, list) for v in by_game.values())
            ):
                for name, rows in by_game.items():
                    if rows:
                        tables[f"{name}_{key}" if not key.startswith(name) else key] = _columns(rows)
        for chart in drawn:
            tables[f"chart_{chart.key}"] = (chart.columns, chart.rows)
        for key, (columns, rows) in tables.items():
            path = folder / f"{key}.csv"
            with open(path, "w", newline="", encoding="utf-8") as handle:
                writer = csvfile.writer(handle, lineterminator="\n")
                writer.writerow(columns)
                writer.writerows(rows)
            written.append(str(path))
    return written


def _columns(rows: list[dict[str, Any]]) -> tuple[list[str], list[list[Any]]]:
    columns = list(rows[0]) if rows else []
    return columns, [[row.get(c) for c in columns] for row in rows]


@app.command("chart")
@handled
@waits_for_library
def chart_command(
    log: str = typer.Argument(
        ..., help="A log file, or with --db a game id (or a unique prefix of it) in the library."
    ),
    svg: Optional[Path] = typer.Option(
        None, "--svg", help="Write the chart to this SVG file instead of drawing it here."
    ),
    db: Optional[Path] = typer.Option(None, "--db", help="Read the game from this history library instead of a file."),
    as_json: bool = JsonOption,
) -> None:
    """Draw one game: each player's score over the turns, the round boundaries and the moments that decided it.

    Drawn in the terminal (within 80 columns), or with --svg as an SVG picture."""
    from tally.core import registry
    from tally.store.library.charts import course_in_library, course_of_log, game_chart

    if db is not None:
        from tally.store import library

        played = course_in_library(library.resolve_db(db), log)
    else:
        played = course_of_log(log)
    chart = game_chart(played)
    if svg is not None:
        if svg.is_dir():
            raise fail(EXIT_USAGE, f"{svg}: a folder; give the SVG file to write")
        svg.write_text(chart.svg, encoding="utf-8")
    if as_json:
        emit(
            {
                "svg": None if svg is None else str(svg),
                "game": played.game,
                "turns": played.turns,
                "finished": played.finished,
                "points": len(played.points),
                "rounds": len(played.rounds),
                "moments": [m.what for m in played.moments],
            }
        )
        return
    if svg is not None:
        say(f"wrote {svg}: {played.game}, {played.turns} turns, {len(played.moments)} moments marked")
        return
    from .text_chart import draw

    label = registry.get(played.game).history.score_label
    for line in draw(chart.title, chart.rows, played.rounds, [(m.turn, m.what) for m in played.moments], label):
        say(line)


@app.command("alias")
@handled
@waits_for_library
def alias_command(
    name: str = typer.Argument(..., help="A player's name as the logs write it (a seat)."),
    person: Optional[str] = typer.Argument(None, help='The person it stands for in every report, e.g. "Ana P.".'),
    forget: bool = typer.Option(False, "--forget", help="Forget what NAME stands for."),
    db: Optional[Path] = DbOption,
    as_json: bool = JsonOption,
) -> None:
    """Merge one person's names in the library's reports: `tally alias ana "Ana P."` (stored in the library)."""
    from tally.store import library

    if (person is None) == (not forget):
        raise fail(EXIT_USAGE, "give the person NAME stands for, or --forget")
    said = library.alias(library.resolve_db(db), name, None if forget else person)
    if as_json:
        emit({"db": said.db, "name": said.name, "player": said.player, "seats": said.seats, "aliases": said.aliases})
        return
    if said.player is None:
        say(f"{said.name} stands for no one else now")
    else:
        say(f"{said.name} is {said.player} in every report ({said.seats} seats)")
