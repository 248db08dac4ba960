"""What `tally replay --step` and `tally check` with several logs do beyond calling the store: stepping a
replay one event at a time (Enter, q), and reporting many logs, each under its own name, with the worst
exit status. `main.py` registers the commands; this module renders."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Iterator

import msgspec

from .app import EXIT_DAMAGED, EXIT_OK, EXIT_RULE, emit, fail, json_text, say

# --------------------------------------------------------------------------- replay, one event at a time


def keys() -> Iterator[str]:
    """What the reader typed after each step: a line of standard input (on a terminal, the Enter key ends it).
    Off a terminal every line read is one key press; the end of input stops the stepping like `q`."""
    for line in sys.stdin:
        yield line.strip()


def step(pos: Any, frames: list[Any], interactive: bool | None = None, pressed: Iterator[str] | None = None) -> None:
    """The replay's events one at a time, the board after each (on a terminal, on a fresh screen): Enter for
    the next, `q` (or the end of input) to stop."""
    from tally.store.recording.results import replay_report

    from .render import console
    from .session import Stepping

    if interactive is None:
        interactive = sys.stdin.isatty() and sys.stdout.isatty()
    out = console()
    stepping: Stepping | None = Stepping(pos, frames, interactive)
    pressed = pressed if pressed is not None else keys()
    while stepping is not None:
        stepping = stepping.next(out)
        if stepping is None:
            break
        if interactive:
            out.print(f"{stepping.where}> ", end="")
        key = next(pressed, "q")
        if key.lower() in ("q", "quit"):
            return
    report = replay_report(pos, frames)
    if report.outcome is not None:
        say(report.outcome.scores_line())


# --------------------------------------------------------------------------- check, many logs


def check_logs(paths: list[Path], anchors: list[tuple[int, str]], as_json: bool) -> int:
    """`tally check` of every log named (a folder: every `*.jsonl` in it, sorted), each reported under its own
    name (a failure as the one line on stderr that log alone gives); the exit status is the worst of them
    (3 damaged, 1 illegal, 0 ok). With `--json` one document: a list of one report per log, each with its `log`."""
    from tally.store.logs import log as logfile
    from tally.store.recording import record
    from tally.store.recording.record import UsageError
    from tally.store.recording.results import damaged_log_report

    if len(paths) == 1 and not (isinstance(paths[0], Path) and record.is_folder_of_logs(paths[0])):
        return check_one(paths[0], anchors, as_json)
    logs = record.logs_in(paths)
    if anchors and len(logs) > 1:
        raise UsageError("--expect names a line of one log: check that log on its own")
    reports: list[dict[str, Any]] = []
    worst = EXIT_OK
    for log in logs:
        code, document = EXIT_OK, None
        try:
            report = record.check(log, anchors)
        except logfile.LogError as error:
            code, document = EXIT_DAMAGED, msgspec.to_builtins(damaged_log_report(error))
            fail(EXIT_DAMAGED, str(error))
        except OSError as error:
            code = EXIT_DAMAGED
            document = {
                "ok": False,
                "error": "damaged",
                "events": None,
                "fingerprint": None,
                "seq": None,
                "rule": "log.damaged",
                "line": None,
                "message": error.strerror or str(error),
            }
            fail(EXIT_DAMAGED, f"{log}: {error.strerror or error}")
        else:
            document = msgspec.to_builtins(report)
            if not report.ok:
                code = EXIT_RULE
                if not as_json:
                    say(f"{log}: {rule_line(report)}")
                fail(EXIT_RULE, f"{log}:{report.seq}: {report.message} [{report.rule}]")
            elif not as_json:
                for line in ok_lines(report):
                    say(f"{log}: {line}")
        reports.append({"log": str(log), **document})
        worst = max(worst, code)
    if as_json:
        sys.stdout.write(json_text(reports) + "\n")
    return worst


def check_one(log: Path, anchors: list[tuple[int, str]], as_json: bool) -> int:
    """`tally check LOG`: its report (with `--json`, the report alone); a failure is the one line on stderr."""
    from tally.store.recording import record

    report = record.check(log, anchors)
    if as_json:
        emit(report)
    if not report.ok:
        if not as_json:
            say(rule_line(report))
        raise fail(EXIT_RULE, f"{log}:{report.seq}: {report.message} [{report.rule}]")
    if not as_json:
        for line in ok_lines(report):
            say(line)
    return EXIT_OK


def rule_line(report: Any) -> str:
    """The failing rule with its English text, on stdout as under every other ruling (the error stays one line)."""
    return f"#{report.seq} rule {report.rule}: {report.text}" if report.text else f"#{report.seq} rule {report.rule}"


def ok_lines(report: Any) -> list[str]:
    """What `tally check` prints of a log that passed: its warnings, the verdict and the fingerprint."""
    lines = []
    for warning in report.warnings:
        # the log's own warnings (its clock) are about the file; the others about events the log cannot judge
        kind = "warning" if warning.rule.startswith("log.") else "unverifiable"
        lines.append(f"#{warning.seq} {kind}: {warning.message} [{warning.rule}]")
    ended = f"; {report.outcome.reason}" if report.outcome else "; not finished"
    # an unverifiable event is neither legal nor illegal: the verdict counts them, never calls them legal
    doubtful = len({warning.seq for warning in report.warnings if not warning.rule.startswith("log.")})
    verdict = "all legal" if not doubtful else f"none illegal, {doubtful} unverifiable"
    lines.append(f"ok: {report.events} events, {verdict}{ended}")
    lines.append(f"fingerprint {report.fingerprint}")
    return lines
