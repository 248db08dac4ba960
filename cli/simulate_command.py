"""`tally simulate`: random legal playouts written as logs (registered lazily by cli/main.py)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .app import JsonOption, app, emit, handled, options_of, say


@app.command("simulate")
@handled
def simulate_command(
    game: str = typer.Argument(..., help="Game name."),
    games: int = typer.Option(..., "--games", help="How many games to play."),
    seed: int = typer.Option(..., "--seed", help="Seed of the run; game i is reproducible from (seed, i)."),
    out: Path = typer.Option(..., "--out", help="Folder for the logs."),
    players: Optional[int] = typer.Option(None, "--players", help="Players per game (default: random per game)."),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="Variant option KEY=VALUE (repeat)."),
    mode: str = typer.Option(
        "open",
        "--mode",
        help="open: every card named; table: recorded as a table sees it (reveals, unknown blind reserves).",
    ),
    manifest: Optional[Path] = typer.Option(
        None, "--manifest", help="A component manifest file (.toml or JSON) to play with."
    ),
    as_json: bool = JsonOption,
) -> None:
    """Play random legal games (uniform over the legal moves) to the end and write each as a log."""
    from tally.store.recording.record import read_manifest
    from tally.store.recording.simulate import simulate

    components = read_manifest(manifest) if manifest is not None else None
    summary = simulate(game, games, seed, out, players, options_of(option), mode, components)
    if as_json:
        from tally.store.recording.results import SimulateReport

        emit(
            SimulateReport(
                summary.game,
                summary.games,
                summary.events,
                summary.moves,
                summary.finished,
                summary.wins_by_seat,
                str(out),
            )
        )
        return
    say(f"{summary.games} {summary.game} games, {summary.moves} moves, {summary.finished} finished, in {out}")
    say("wins by seat: " + ", ".join(f"{k} {v}" for k, v in summary.wins_by_seat.items()))
