"""Generate docs/cli.md from the typer app: `python -m tally.cli.docs > docs/cli.md`.

The commands, their help, usage, arguments and options come from the click tree typer builds; what
the code cannot say by itself is written here: the top-level keys of the `--json` documents
that are not the read model's structs (`store/recording/results.py`, whose field descriptions document the rest;
tests/cli/test_cli.py checks them against real output) and the exit codes (checked against cli/main.py).
tests/cli/test_cli_docs.py fails when docs/cli.md differs from `render()`.
"""

from __future__ import annotations

import sys
from typing import Any

# --------------------------------------------------------------------------- what the code does not say

EXIT_CODES: dict[int, str] = {
    0: "ok; for `move` and `rule`: the move is legal (or legal as far as the log can tell: `unverifiable`)",
    1: "a rule forbids it: an illegal move (nothing is recorded), a stale append (`core.append.stale`: the log moved on "
    "since the seq, fingerprint or listing the caller saw; nothing is recorded), or a log that already holds an illegal "
    "event",
    2: "usage error: bad arguments or options, bad notation (the move cannot be read), an unknown game or player for `new`, a log file that already exists",
    3: "the log is damaged or unreadable: missing file, bad JSON, unknown fields, broken `seq` or `prev` chain, torn last line, unknown game",
    4: "internal error: a bug in tally (still one line on stderr, never a traceback); please report it",
    5: "the history library is busy: another tally (an ingest) held it past the busy timeout (`$TALLY_BUSY_TIMEOUT`, "
    "10 s by default); nothing was changed, run the command again",
}


def keys_of(document: type) -> dict[str, str]:
    """The top-level keys of a `--json` document and their meaning, from its struct in the read model
    (`store/recording/results.py`: each field's `msgspec.Meta` description)."""
    from typing import get_type_hints

    import msgspec

    hints = get_type_hints(document, include_extras=True)
    keys = {}
    for field in msgspec.structs.fields(document):
        meta = [m for m in getattr(hints[field.name], "__metadata__", ()) if isinstance(m, msgspec.Meta)]
        keys[field.encode_name] = meta[0].description if meta and meta[0].description else ""
    return keys


def _documents() -> dict[str, type]:
    from tally.store.recording import results

    return {
        "games": results.GamesReport,
        "new": results.NewReport,
        "move": results.MoveReport,
        "rule": results.MoveReport,
        "moves": results.ListingReport,
        "replay": results.ReplayReport,
        "check": results.CheckReport,
        "undo": results.MoveReport,
        "amend": results.MoveReport,
        "note": results.NoteReport,
        "repair": results.RepairReport,
        "simulate": results.SimulateReport,
    }


JSON_KEYS: dict[str, dict[str, str]] = {name: keys_of(document) for name, document in _documents().items()}


def _rules_keys() -> dict[str, str]:
    """`tally rules --notation` prints the notation's document instead of the rules' (the keys both have mean
    the same in each)."""
    from tally.store.recording import results

    notation = keys_of(results.NotationReport)
    return {
        **keys_of(results.RulesReport),
        **{key: f"with `--notation`: {notation[key]}" for key in ("forms", "shared")},
    }


JSON_KEYS["rules"] = _rules_keys()
JSON_KEYS["serve"] = {
    "url": "the address it serves (with --port 0, the free port it took)",
    "token": "the host token: send it as `Authorization: Bearer TOKEN` to start games and hand out seats",
    "host_link": "the host's link, the page that holds the host token (`URL/#token=TOKEN`): keep it to yourself",
}
# a board's view is the game's own document (docs/rules/<game>.md); these are the keys of the first game's
JSON_KEYS["state"] = {
    "game": "the game's name",
    "mode": "`open` or `table`",
    "viewer": "the player given with `--as`, or null (everything the log knows)",
    "phase": "setup, action, reveal, return, noble or over",
    "turn": "the turn number (1 for the first turn)",
    "to_act": "who must act",
    "expected": "what is expected, in words",
    "bank": "the supply of tokens by colour letter",
    "board": "face-up cards by level (null for an empty slot)",
    "decks": "cards left in each level's deck",
    "nobles": "nobles still on the table",
    "players": "per player: `name`, `points`, `tokens`, `bonus`, `cards`, `reserved` (others' unseen blind reserves as `?LEVEL`), `nobles`",
    "end_triggered": "true once someone reached the target: the round is being finished",
    "token_limit": "how many tokens a player may hold at the end of a turn",
    "outcome": "when the game is over: `scores`, `winners`, `reason`, `details`; else null",
    "seq": "the position: after this event",
    "fingerprint": "the log's fingerprint at `seq` (the SHA-256 of that line): boards show its first 8 hex digits "
    "with the seq, `#42 3fa9c1d0`, to write down and check later with `tally check --expect SEQ:FINGERPRINT`",
}
# the history library's commands (cli/library_commands.py) report plain documents, documented here
JSON_KEYS.update(
    {
        "ingest": {
            "ok": "false when some log was rejected",
            "db": "the history library",
            "files": "log files read",
            "games_added": "new games",
            "events_added": "events added in all",
            "games_grown": "games already there whose log has grown (only the new events were added)",
            "games_unchanged": "games already there in full",
            "games_stale": "older, shorter copies of games the library holds more of",
            "rejected": "logs refused: `path`, `line`, `kind`, `rule`, `message`",
            "seconds": "time taken",
        },
        "sql": {
            "columns": "the result's column names",
            "types": "their DuckDB types",
            "rows": "one object per row, column name to value (times in ISO-8601, JSON columns decoded)",
            "count": "how many rows",
        },
        "stats": {
            "db": "the history library",
            "game": "the `--game` filter, or null",
            "simulated": "whether simulated games are counted (`--simulated`)",
            "games": "games the report rests on (simulated ones left out unless `--simulated`)",
            "finished": "finished games among them",
            "simulated_left_out": "simulated games left out (0 with `--simulated`)",
            "rests_on": "per section, how many games it rests on (a game's report: per game type)",
            "sections": "the games' reports in the order printed: `game`, `key`, `title`, `columns` (`name`, `header`, `kind`, `bar`), `chart`",
            "by_game": "per game type: `game`, `games`, `finished`, `events`, `avg_events`, `avg_turns`, `first`, `last`",
            "players": "win rate by player (aliases merged) per game and scale: `game`, `scale` (the game's options), "
            "`player`, `games`, `wins`, `win_rate`, `avg_score`",
            "seats": "win rate by seat per game and number of players: `game`, `players`, `seat`, `games`, `wins`, `win_rate`",
            "files": "the files `--svg` and `--csv` wrote (none without them)",
            # then one key per report a game declares (core.history.Report), filled in from the registry below
        },
        "export": {
            "db": "the history library (with `--store`: the log store's URL, without its password)",
            "to": "the folder written",
            "format": "`jsonl`, `parquet` or `bgstats`",
            "games": "games exported",
            "events": "events exported",
            "files": "files written",
        },
        "import": {
            "store": "the log store (a URL without its password, or a folder)",
            "games": "one per log imported: `log`, `game` (its id in the store), `events`, `fingerprint` (the same in the "
            "store: the lines are copied as they are)",
        },
        "chart": {
            "svg": "the SVG file written (with `--svg`), else null: the chart was drawn in the terminal",
            "game": "the game type",
            "turns": "turns played",
            "finished": "whether the game is over",
            "points": "scores drawn (one per player per turn)",
            "rounds": "round boundaries drawn",
            "moments": "the moments marked, in words",
        },
        "alias": {
            "db": "the history library",
            "name": "the name as the logs write it",
            "player": "the person it stands for now, or null after `--forget`",
            "seats": "seats in the library with that name",
            "aliases": "every alias of the library, name to person",
        },
    }
)


def _game_reports() -> dict[str, str]:
    """`tally stats --json` carries one key per report of each game, its rows keyed by game type."""
    from tally.core import registry

    reports: dict[str, list[str]] = {}
    for spec in registry.specs():
        for report in spec.history.reports:
            reports.setdefault(report.key, []).append(f"{spec.title}: {report.title}")
    return {key: "per game type; " + "; ".join(titles) for key, titles in reports.items()}


JSON_KEYS["stats"].update(_game_reports())


# with --json, a command that stops on a bad log prints one of these instead of its own document
def _error_documents() -> dict[str, dict[str, str]]:
    from tally.store.recording import results

    return {
        "illegal log (exit 1; `check` says so in its own document)": keys_of(results.IllegalLogReport),
        "damaged log (exit 3)": keys_of(results.DamagedLogReport),
    }


ERROR_JSON_KEYS: dict[str, dict[str, str]] = _error_documents()

# --------------------------------------------------------------------------- reading the click tree


def root() -> Any:
    import typer.main

    from .main import app

    return typer.main.get_command(app)


def commands() -> list[tuple[str, Any]]:
    """(name, click command) in the order they are registered."""
    group = root()
    return [(name, command) for name, command in group.commands.items() if not command.hidden]


def _context(name: str, command: Any) -> Any:
    group = root()
    parent = group.context_class(group, info_name="tally")
    return command.context_class(command, info_name=name, parent=parent)


def has_json(command: Any) -> bool:
    return any("--json" in getattr(p, "opts", ()) for p in command.params)


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(param: Any) -> str:
    if getattr(param, "is_flag", False):
        return "off"
    if param.required:
        return "(required)"
    default = param.default
    if default is None or default == () or default == []:
        return ""
    return f"`{default}`"


def _render_command(name: str, command: Any) -> list[str]:
    ctx = _context(name, command)
    usage = " ".join([ctx.command_path, *command.collect_usage_pieces(ctx)])
    out = [f"## `tally {name}`", "", (command.help or "").strip(), "", "```", usage, "```", ""]
    arguments = [p for p in command.get_params(ctx) if p.param_type_name == "argument"]
    options = [p for p in command.get_params(ctx) if p.param_type_name == "option" and p.name != "help"]
    if arguments:
        out += ["| argument | description | required |", "| --- | --- | --- |"]
        for p in arguments:
            out.append(f"| `{p.name.upper()}` | {_cell(p.help or '')} | {'yes' if p.required else 'no'} |")
        out.append("")
    if options:
        out += ["| option | description | default |", "| --- | --- | --- |"]
        for p in options:
            record = p.get_help_record(ctx)
            flags = record[0] if record else ", ".join(p.opts)
            repeat = " (repeatable)" if getattr(p, "multiple", False) and "repeat" not in (p.help or "") else ""
            out.append(f"| `{flags}` | {_cell(p.help or '')}{repeat} | {_default(p)} |")
        out.append("")
    if has_json(command):
        keys = JSON_KEYS.get(name, {})
        out += ["With `--json`, one document on stdout with the keys:", "", "| key | meaning |", "| --- | --- |"]
        out += [f"| `{key}` | {_cell(text)} |" for key, text in keys.items()] or ["| | (not documented yet) |"]
        out.append("")
    return out


def render() -> str:
    """docs/cli.md."""
    group = root()
    ctx = group.context_class(group, info_name="tally")
    lines = [
        "# The `tally` command line",
        "",
        "<!-- Generated by `python -m tally.cli.docs > docs/cli.md` from the typer app in cli/main.py and the",
        "     documented JSON keys and exit codes in cli/docs.py; tests/cli/test_cli_docs.py keeps it in sync. -->",
        "",
        (group.help or "").strip(),
        "",
        "```",
        " ".join(["tally", *group.collect_usage_pieces(ctx)]),
        "```",
        "",
        "## Exit codes",
        "",
        "Every command exits with one of these codes. For codes 1-4 it writes one line on stderr, `tally: ` followed by",
        "the file and line (seq) where that applies and what was expected; never a traceback. One exception: the",
        "verdict of `tally rule` is its answer, so an illegal move is reported on stdout (`illegal: ...`, exit 1).",
        "",
        "Every ruling shown carries its rule's text: `tally rule` and the session (`?MOVE`, a refused move) print",
        "`  rule ID: TEXT` under each ruling; a refused `move`, `undo` or `amend` prints those lines on stdout",
        "beside its one line on stderr; with `--json` each ruling has a `text` key. When a move is refused, every rule",
        "that forbids it is reported, in the fixed order: the first decides the verdict (out of turn, say), the move's",
        "own rules follow, judged as if it were that player's turn with nothing pending (`docs/architecture.md`).",
        "",
        "| code | meaning |",
        "| --- | --- |",
    ]
    lines += [f"| {code} | {_cell(text)} |" for code, text in EXIT_CODES.items()]
    lines += [
        "",
        "## Arguments and what tally prints",
        "",
        "Arguments are UTF-8 text: an argument with bytes that are not UTF-8 is a usage error (exit 2) naming the argument",
        "and the byte. Whatever a log or a player holds, tally's output cannot drive a terminal: in text output (boards,",
        "replays, rulings, notes, reasons, `sql` and `stats` tables, error lines) every control or invisible character",
        "(ESC, CR, tab, newline inside a note, zero-width and right-to-left characters) is shown as an escape such as",
        "`\\x1b` or `\\u202e`, so each line stays one line; JSON writes them as `\\u` escapes, which decode to the text",
        "as recorded. Output stays proportional to the input: what a user typed is quoted cut short in messages.",
        "",
        "## JSON output",
        "",
        "Every command that reports takes `--json`: it then prints exactly one JSON document on stdout (one line, UTF-8)",
        "with the stable top-level keys listed under each command; the human text is not printed. With `move`, `rule` and",
        "`undo` the document is printed for a refused move too (exit 1, `accepted` false) and for a move that cannot be read",
        "(exit 2, `verdict` `unreadable`). `tally check` of several logs (or of a folder) prints one list with a",
        "report per log, each with its `log` first (for a damaged log, the damaged log's document below). A command",
        "that stops on a bad log prints instead:",
        "",
    ]
    for title, keys in ERROR_JSON_KEYS.items():
        lines += [f"{title[0].upper()}{title[1:]}:", "", "| key | meaning |", "| --- | --- |"]
        lines += [f"| `{key}` | {_cell(text)} |" for key, text in keys.items()]
        lines.append("")
    lines += [
        "Other usage errors (exit 2: a missing argument, a bad option value, `--at` outside the log) print nothing on",
        "stdout.",
        "",
        "## Moves: what every game's notation accepts",
        "",
        "A move is written in the game's notation (`docs/rules/<game>.md`), quoted or not: `tally move game.jsonl take r g b`.",
        "For every game, `move`, `rule` and `tally record` also accept:",
        "",
        "- the number of a move in the `tally moves` listing (`tally move game.jsonl 7`): that move, as listed; once the",
        "  log has moved on since that listing was shown, the number is refused as stale (`core.append.stale`, exit 1):",
        "  list the moves again;",
        "- several moves on one line separated by ` + `, judged in order, each against the table the ones before it",
        "  leave, and recorded in one write or not at all: a move and the chance it makes due (`buy 1k0-w1b1g1r1 +",
        "  reveal 1g0-w2b1`: a buy and the card that fills its slot). A line does not roll into the next player's",
        "  turn: a part that names no player and would be read as another player's move than the line's is refused",
        "  (`core.chain.crosses-turn`, exit 1, nothing recorded) unless it names its player (`take r g b + ben: take",
        "  w b k`); the table's own entries (a reveal) belong to no player's turn. A refused line reports who acts at",
        "  the table as it is, not as the parts before the refusal would have left it;",
        "- a player's name in any case when only one player has it (`BEN: take r g b`).",
        "",
        "`move`, `undo` and `note` take `--expect-seq SEQ`: the append is made only if the log still ends at event SEQ",
        "(what its user last saw), else refused as stale, naming the seq and fingerprint the log is at now. Several",
        "terminals or devices recording one game this way never record a move against a table their user has not seen;",
        "`tally record` does it on every append.",
        "",
        "What follows from a move without being a move (a noble's visit, the end of a round or of the game) is",
        "reported after it; with `--json` in `consequences` and `outcome`.",
        "",
        "## Recording a game at the table: `tally record`",
        "",
        "`tally record LOG` (or `tally record --new GAME -p NAME ... LOG`, with every option of `tally new`) keeps a",
        "log open for a whole game. On a terminal it draws the board after every move, shows what is pending (tokens",
        "to return, a noble to choose, a card to reveal) as a banner, announces what follows from a move, and reads",
        "moves with completion of the legal moves and of the cards still possible (Tab), history (up and down) and line",
        "editing. Every move is appended and fsynced as it is entered; a log that another process changes meanwhile is",
        "re-read and shown before the next move, and a move typed against the old table is not recorded: it is",
        "refused as stale (`core.append.stale`, naming the seq and fingerprint the log is at now) and the table is",
        "shown as it is. A bare number is a move of the listing `moves` last showed in the session (before any",
        "listing, of the listing now), refused as stale once the log has moved on since. Besides moves, a line may be:",
        "",
        "```",
        *session_help().splitlines()[1:],
        "```",
        "",
        "Off a terminal (standard input a pipe or a file) it reads one line at a time and prints one result line per",
        "move (`#12 recorded: ...`, `illegal: ...`, `stale: ...`, `cannot read ...`), so a session can be scripted; it exits with 1",
        "when a move was refused (every other move is recorded), else 0.",
        "",
        "## Commands",
        "",
    ]
    lines += [
        f"- [`tally {name}`](#tally-{name}): {_cell((command.help or '').strip().splitlines()[0] if command.help else '')}"
        for name, command in commands()
    ]
    lines.append("")
    for name, command in commands():
        lines += _render_command(name, command)
    return "\n".join(lines).rstrip("\n") + "\n"


def session_help() -> str:
    from .session import HELP
    from .wrap import wrapped

    first, _, commands = HELP.partition("\n")
    return "\n".join([first, *wrapped(commands, 80)])  # the commands as an 80-column terminal shows them


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
