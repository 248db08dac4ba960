"""The `tally` command line's core commands (new, record, move, rule, moves, state, replay, check, note, repair) and
its entry (`main`): parse, call the store's API, render. The other commands live in modules of their own, registered
below and imported only when one of them runs; what every command shares is `cli/app.py`.

Heavy imports (rich, duckdb) happen inside the commands that need them, so recording a move
costs little more than starting Python and typer.
"""

import sys
from pathlib import Path
from typing import Any, List, Optional

import typer

from .app import (
    EXIT_OK,
    EXIT_RULE,
    EXIT_USAGE,
    ExpectFingerprintOption,
    ExpectSeqOption,
    JsonOption,
    app,
    busy_library,
    emit,
    fail,
    fingerprint_prefix,
    handled,
    listing,
    move_json,
    options_of,
    rule_texts,
    say,
)
from .startup import check_utf8
from .store_option import StoreOption, log_for

# --------------------------------------------------------------------------- commands


@app.command("games")
@handled
def games_command(as_json: bool = JsonOption) -> None:
    """List the games tally knows, with their player counts, modes and variant options."""
    from tally.store.recording.results import games

    report = games()
    if as_json:
        emit(report)
        return
    for game in report.games:
        say(
            f"{game.name}  {game.title}, {game.players[0]}-{game.players[1]} players, rules {game.rules}, modes: {', '.join(game.modes)}"
        )
        for o in game.options:
            choices = "|".join(o.choices) if o.choices else "integer"
            say(f"  --option {o.key}={choices}  (default {o.default}): {o.help}")


@app.command("new")
@handled
def new_command(
    game: str = typer.Argument(..., help="Game name (see `tally games`)."),
    log: Path = typer.Argument(..., help="Log file to create; never overwritten."),
    player: List[str] = typer.Option(..., "--player", "-p", help="A player, in turn order (repeat)."),
    option: Optional[List[str]] = typer.Option(None, "--option", "-o", help="Variant option KEY=VALUE (repeat)."),
    mode: Optional[str] = typer.Option(
        None, "--mode", help="table (default: the recorder reveals the setup) or open (tally deals)."
    ),
    seed: Optional[int] = typer.Option(None, "--seed", help="Deal the setup with this seed (open mode)."),
    manifest: Optional[Path] = typer.Option(
        None,
        "--manifest",
        help="A component manifest file (.toml or JSON) for this box; the log records it (default: the game's own).",
    ),
    seated: Optional[List[str]] = typer.Option(
        None,
        "--as",
        help="Table mode: a player who enters their own hidden cards (hand, draws, blind reserves) by name, "
        "judged in full (repeat for several).",
    ),
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Start a new game log."""
    from tally.store.recording import record

    components = record.read_manifest(manifest) if manifest is not None else None
    result = record.new_game(
        log_for(log, store), game, player, options_of(option), mode, seed, components, seated or ()
    )
    from tally.store.recording.results import new_report

    report = new_report(log, game, result)
    if as_json:
        emit(report)
        return
    say(f"started {game} ({report.mode} mode) in {log} for {', '.join(player)}")
    say(f"next: {report.expected}")


@app.command("record")
@handled
def record_command(
    log: Path = typer.Argument(..., help="The game log to record into (with --new: the log to create)."),
    new: Optional[str] = typer.Option(
        None, "--new", help="Start a new game of this name in LOG first, as `tally new` does."
    ),
    player: Optional[List[str]] = typer.Option(
        None, "--player", "-p", help="With --new: a player, in turn order (repeat)."
    ),
    option: Optional[List[str]] = typer.Option(
        None, "--option", "-o", help="With --new: variant option KEY=VALUE (repeat)."
    ),
    mode: Optional[str] = typer.Option(None, "--mode", help="With --new: table (default) or open."),
    seed: Optional[int] = typer.Option(None, "--seed", help="With --new: deal the setup with this seed (open mode)."),
    manifest: Optional[Path] = typer.Option(None, "--manifest", help="With --new: a component manifest file."),
    as_player: Optional[str] = typer.Option(
        None,
        "--as",
        help="Record as this player: the board, `moves` and completion show what they see; with --new "
        "(table mode) they enter their own hidden cards by name.",
    ),
    store: Optional[str] = StoreOption,
) -> None:
    """Record a whole game at the table in one session, every move saved as it is entered.

    The board after every move, completion of the legal moves, `?MOVE` for a ruling, `undo`, `note`, `moves`,
    `state`, `replay`, `step`, `help`, `quit`. Off a terminal it reads one move per line (see above)."""
    from tally.store.recording import record
    from tally.store.recording.session import Session

    from .session import run

    if new is not None:
        if not player:
            raise fail(EXIT_USAGE, "--new needs the players: --player NAME (repeat)")
        components = record.read_manifest(manifest) if manifest is not None else None
        record.new_game(
            log_for(log, store),
            new,
            player,
            options_of(option),
            mode,
            seed,
            components,
            [as_player] if as_player else (),
        )
    elif player or option or mode or seed is not None or manifest is not None:
        raise fail(EXIT_USAGE, "--player, --option, --mode, --seed and --manifest start a new game: add --new GAME")
    session = Session(log_for(log, store))
    if as_player is not None:
        session.viewer = record.seat_as(as_player, session.table.started.seats)
    raise typer.Exit(run(session))


@app.command("move")
@handled
def move_command(
    log: Path = typer.Argument(..., help="The game log."),
    move: List[str] = typer.Argument(
        ...,
        help="The move in the game's notation, quoted or not: take r g b; ben: buy 1k0-w1b1g1r1 + reveal 1g0-w2b1; "
        "or the number of a move in `tally moves`.",
    ),
    expect_seq: Optional[int] = ExpectSeqOption,
    expect_fingerprint: Optional[str] = ExpectFingerprintOption,
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Append a move only if it is legal; otherwise print the ruling and append nothing.

    Several moves separated by ` + ` (a buy and the refill it makes due) are judged in order and appended
    in one write, all or none. What follows automatically (a noble's visit, the end) is reported."""
    from tally.store.recording import record

    result = record.move(
        log_for(log, store), " ".join(move), expect_seq, fingerprint_prefix(expect_fingerprint), as_listed=True
    )
    _report_move(result, as_json)


def _report_move(result: Any, as_json: bool) -> None:
    if as_json:
        move_json(result)
    where = f"{result.path}:{result.seq}: " if result.path else ""
    if result.notation is not None:
        raise fail(EXIT_USAGE, where + result.notation.render())
    if not result.accepted:
        if not as_json:  # the refusal is the one line on stderr; what each rule says, on stdout
            for line in rule_texts(result.rulings):
                say(line.strip())
        raise fail(EXIT_RULE, where + "; ".join(result.messages))
    if as_json:
        return
    for ruling in result.rulings:
        if ruling.verdict == "unverifiable":
            say(f"unverifiable: {ruling.render()}")
    for event, text in zip(result.events, result.lines):
        say(f"#{event.seq} recorded: {text}")
    _report_consequences(result)


def _report_consequences(result: Any) -> None:
    for consequence in result.consequences:
        say(consequence)
    if result.ending:  # the game's own narration said why it ended
        say(f"final {result.ending.scores_line()}")
    else:
        say(f"next: {result.to_act[1]}")


@app.command("rule")
@handled
def rule_command(
    log: Path = typer.Argument(..., help="The game log."),
    move: List[str] = typer.Argument(
        ..., help="The disputed move in the game's notation, quoted or not, or the number of a move in `tally moves`."
    ),
    at: Optional[int] = typer.Option(None, "--at", help="Judge it after event SEQ instead of now."),
    as_json: bool = JsonOption,
) -> None:
    """Answer a dispute: is this move legal now (or at --at SEQ), and which rule decides? Records nothing.

    The verdict is printed on standard output: `legal`, `unverifiable` (exit 0) or `illegal` (exit 1)."""
    from tally.store.recording import record

    result = record.rule(log, " ".join(move), at, as_listed=True)
    if as_json:
        move_json(result)
    if result.notation is not None:
        raise fail(EXIT_USAGE, f"{result.path}:{result.seq}: {result.notation.render()}")
    if result.is_stale:  # not a verdict: the number belongs to a listing of an older table
        raise fail(EXIT_RULE, f"{result.path}:{result.seq}: " + "; ".join(result.messages))
    if as_json:
        raise typer.Exit(EXIT_OK if result.accepted else EXIT_RULE)
    # the verdict first: an unverifiable note before the rule that permits; every rule that forbids, in order
    rulings = sorted(result.rulings, key=lambda r: r.verdict != "unverifiable") if result.accepted else result.rulings
    for ruling, text in zip(rulings, rule_texts(rulings)):
        say(f"{ruling.verdict}: {ruling.render()}")
        say(text)
    if not result.accepted:
        raise typer.Exit(EXIT_RULE)


@app.command("moves")
@handled
def moves_command(
    log: Path = typer.Argument(..., help="The game log."),
    at: Optional[int] = typer.Option(None, "--at", help="List the legal moves after event SEQ."),
    as_player: Optional[str] = typer.Option(
        None, "--as", help="The moves as this player knows the table: their own cards named, the others' hidden."
    ),
    every: bool = typer.Option(
        False, "--all", help="List every move, however many (a long listing is summarised by kind)."
    ),
    kind: Optional[str] = typer.Option(
        None, "--kind", help="List every move of this kind only (its first word: take, buy, ...)."
    ),
    as_json: bool = JsonOption,
) -> None:
    """List the legal moves now, in a fixed order, numbered (`tally move LOG N` records move N).

    More than 20 are summarised by kind (each kind's numbers, count, first and last move): --kind KIND lists one
    kind, --all every move; --json always lists every move."""
    from tally.store.recording import record

    listed = record.moves(log, at, as_player)
    if as_json:
        emit(listed)
        return
    for line in listing(
        listed.seq, listed.expected, listed.moves, kind, every, "one kind: --kind KIND, every one: --all"
    ):
        say(line)


@app.command("state")
@handled
def state_command(
    log: Path = typer.Argument(..., help="The game log."),
    at: Optional[int] = typer.Option(None, "--at", help="Show the table after event SEQ."),
    as_player: Optional[str] = typer.Option(None, "--as", help="Show only what this player may see."),
    svg: Optional[Path] = typer.Option(
        None,
        "--svg",
        metavar="FILE",
        help="Write the table as an SVG picture to FILE instead of printing it (--json still prints).",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Show the table: supply, cards, nobles, players (with --as, hiding what that player cannot see)."""
    from tally.store.recording import record
    from tally.store.recording.results import board

    pos = record.position(log, at)
    seats = pos.log.started.seats
    if as_player is not None:
        as_player = record.seat_as(as_player, seats)
    shown = board(pos, as_player)
    if svg is not None and _pictures().write_state_picture(pos, as_player, svg, as_json):
        return
    if as_json:
        emit(shown.view)
        return
    from .render import print_view

    print_view(shown.view)


def _pictures() -> Any:
    from . import picture_output  # the --svg of state and replay: imported only when a picture is asked for

    return picture_output


@app.command("replay")
@handled
def replay_command(
    log: str = typer.Argument(
        ...,
        help="The game log, or a game id in the history library (--db, else $TALLY_DB, "
        "else ./tally.duckdb) when no file has that name.",
    ),
    to: Optional[int] = typer.Option(None, "--to", help="Stop after event SEQ."),
    db: Optional[Path] = typer.Option(None, "--db", help="Replay the game with id LOG from this history library."),
    step: bool = typer.Option(
        False,
        "--step",
        help="One event at a time, the board after each: Enter for the next, "
        "q to stop (off a terminal, each line read is one Enter).",
    ),
    store: Optional[str] = StoreOption,
    svg: Optional[Path] = typer.Option(
        None,
        "--svg",
        metavar="DIR",
        help="Write one SVG picture per event to DIR (0001.svg, ...) instead of printing the replay (--json still prints).",
    ),
    as_json: bool = JsonOption,
) -> None:
    """Step through a game event by event, then show the table and the result."""
    from tally.store.recording import record

    if store is not None:
        pos, frames = record.replay(log_for(log, store), to)
    elif db is not None or record.names_a_library_game(log):
        from tally.store import library

        with busy_library(as_json):
            pos, frames = library.replay(library.resolve_db(db), log, to)
    else:
        pos, frames = record.replay(log, to)
    if step and as_json:
        raise fail(EXIT_USAGE, "--step shows one board at a time: it has no --json (replay --json gives every step)")
    if svg is not None and _pictures().write_replay_pictures(pos, frames, svg, as_json or step):
        return
    if step:
        from .review import step as stepped

        stepped(pos, frames)
        return
    from tally.store.recording.results import replay_report

    report = replay_report(pos, frames)
    if as_json:
        emit(report)
        return
    from .render import print_replay

    print_replay(report)


@app.command("check")
@handled
def check_command(
    log: List[Path] = typer.Argument(
        ...,
        help="The game log; or several, or a folder (every *.jsonl in it, sorted; a name ending in .jsonl is a log).",
    ),
    expect: Optional[List[str]] = typer.Option(
        None,
        "--expect",
        metavar="SEQ:FINGERPRINT",
        help="Fail (exit 3) unless line SEQ still has this fingerprint (8 or more hex digits, as written down at the "
        "table): the log was not cut, rewritten before it, or forked.",
    ),
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Judge a whole log: integrity (lines, seq, hash chain), then every event. Prints the fingerprint.

    Several logs (or a folder) are each reported under their name, and the exit status is the worst of them;
    `--json` then prints one list, a report per log with its `log`."""
    from tally.store.logs import anchors

    from .review import check_logs

    try:
        expected = [anchors.parse_anchor(text) for text in expect or []]
    except ValueError as error:
        raise fail(EXIT_USAGE, str(error)) from None
    raise typer.Exit(check_logs([log_for(one, store) for one in log] if store else log, expected, as_json))


@app.command("note")
@handled
def note_command(
    log: Path = typer.Argument(..., help="The game log."),
    text: str = typer.Argument(..., help="The remark to keep in the record."),
    expect_seq: Optional[int] = ExpectSeqOption,
    expect_fingerprint: Optional[str] = ExpectFingerprintOption,
    store: Optional[str] = StoreOption,
    as_json: bool = JsonOption,
) -> None:
    """Add a free note to the log; it changes nothing in the game."""
    from tally.store.recording import record

    result = record.note(log_for(log, store), text, None, expect_seq, fingerprint_prefix(expect_fingerprint))
    if not result.accepted:
        if as_json:
            move_json(result)
        raise fail(EXIT_RULE, f"{result.path}:{result.seq}: " + "; ".join(result.messages))
    if as_json:
        from tally.store.recording.results import NoteReport

        emit(NoteReport(result.events[0].seq, result.fingerprint))
        return
    say(f"#{result.events[0].seq} noted")


@app.command("repair")
@handled
def repair_command(
    log: Path = typer.Argument(..., help="The game log with a torn last line."),
    as_json: bool = JsonOption,
) -> None:
    """Recover from a crash mid-write: move the torn last line (and the rest of a cut-short unit) to LOG.torn-N and keep the intact lines."""
    from tally.store.logs import log as logfile
    from tally.store.logs.repair import repair
    from tally.store.recording.results import RepairReport

    try:
        done = repair(log)
    except logfile.NothingToRepair:
        if as_json:  # the report of a clean log: nothing moved, every line kept
            emit(RepairReport(str(log), 0, "", False, len(logfile.read(log).events), "log.nothing-to-repair"))
        raise
    if as_json:
        emit(RepairReport(str(log), done.moved, done.side, done.removed, done.kept_lines, done.why))
        return
    why = {
        "log.torn-tail": "a last line without its newline",
        "log.torn-unit": "a command's lines cut short",
        "log.zero-block": "zero bytes the disk never wrote",
    }.get(done.why, done.why)
    if done.removed:
        say(
            f"moved {done.moved} torn bytes ({why}) to {done.side}; no line of {log} verified (its first command was "
            "cut short), so it was removed: start the game again with `tally new`"
        )
        return
    say(
        f"kept lines 1-{done.kept_lines} of {log} (they verify from line 1); moved the {done.moved} bytes after them "
        f"({why}, a write cut short) to {done.side}"
    )


def main() -> None:
    """Console entry point (of `tally` through `run`, and of whoever runs a command in-process)."""
    from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError
    from typer.exceptions import Abort

    try:
        arguments = sys.argv[1:]
        check_utf8(arguments, fail, EXIT_USAGE)
        single = app.single_command_app(arguments[0]) if arguments else None
        if single is not None:
            code = single(args=arguments[1:], prog_name=f"tally {arguments[0]}", standalone_mode=False)
        else:
            code = app(args=arguments, prog_name="tally", standalone_mode=False)
        sys.exit(code if isinstance(code, int) else 0)
    except NoArgsIsHelpError as error:
        error.show()
        sys.exit(EXIT_USAGE)
    except UsageError as error:  # one line, like every other error; --help shows the usage
        command = error.ctx.command_path if error.ctx else "tally"
        fail(EXIT_USAGE, f"{error.format_message()} (see `{command} --help`)")
        sys.exit(EXIT_USAGE)
    except ClickException as error:
        fail(error.exit_code, error.format_message())
        sys.exit(error.exit_code)
    except Abort:
        sys.stderr.write("tally: aborted\n")
        sys.exit(130)
    except KeyboardInterrupt:
        sys.stderr.write("tally: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:  # `tally moves LOG | head`: the reader left; stay quiet, as other tools do
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
