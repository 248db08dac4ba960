"""`tally record`: the recording session at the table, for real.

A whole bundled game is entered through the session, once in a pseudo-terminal (prompt_toolkit, the board
redrawn after every move; the screens are read through a terminal emulator and snapshotted) and once with
standard input a pipe (one result line per move). Each time the log written must hold exactly the events of
the bundled fixture. The session's store API is tested directly too: another process writing to the log
is noticed, and nothing is judged against a table the recorder has not seen.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from support import ROOT
from tally.core import registry
from tally.store.recording import record
from tally.store.recording.session import Session

GAMES = ROOT / "fixtures" / "games"
TALLY = [sys.executable, "-c", "from tally.cli.main import main; main()"]


def events_of(path: Path) -> list[dict[str, Any]]:
    """A log's events without what differs from one recording to the next (time, hash chain, which lines
    one command appended together)."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [{k: v for k, v in line.items() if k not in ("at", "prev", "unit", "salt")} for line in lines]


def session_lines(fixture: Path) -> list[str]:
    """What a recorder types to enter the fixture's game: each event in notation, `undo` and `note` lines."""
    spec_events = record.replay(fixture)[1]
    texts = []
    lines = events_of(fixture)
    for frame, line in zip(spec_events[1:], lines[1:]):
        if line["type"] == "setup_dealt":
            continue  # dealt by tally itself (--seed)
        if line["type"] == "voided":
            texts.append(f"undo {line['reason']}")
        elif line["type"] == "noted":
            texts.append(f"note {line['text']}")
        else:
            texts.append(frame.text.split(" -> ")[0])
    return texts


# --------------------------------------------------------------------------- scripted (no terminal)


def test_a_whole_table_game_scripted_through_the_session_equals_the_fixture(tmp_path: Path) -> None:
    fixture = GAMES / "splendor-table-3p.jsonl"
    lines = session_lines(fixture)
    # a refill typed on the line of the move that made it due: the same events, one line fewer
    joined: list[str] = []
    for text in lines:
        if text.startswith("reveal ") and joined and " buy " in f" {joined[-1]}" and "+" not in joined[-1]:
            joined[-1] += f" + {text}"
        else:
            joined.append(text)
    assert len(joined) < len(lines)
    log = tmp_path / "game.jsonl"
    done = subprocess.run(
        [*TALLY, "record", "--new", "splendor", "-p", "ana", "-p", "ben", "-p", "cy", str(log)],
        input="\n".join(joined) + "\nquit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    results = done.stdout.splitlines()
    assert len([r for r in results if " recorded: " in r]) == len(joined), "one result line per move"
    assert events_of(log) == events_of(fixture)
    assert results[-1].startswith("final scores: ")


def table_fixtures() -> list[Path]:
    """Every bundled game recorded in table mode, for every registered game (the contract test makes sure each
    game has one)."""
    found = []
    for game in registry.names():
        for path in sorted(GAMES.glob(f"{game}-*.jsonl")):
            if '"mode":"table"' in path.read_text(encoding="utf-8").split("\n", 1)[0]:
                found.append(path)
    return found


@pytest.mark.parametrize("fixture", table_fixtures(), ids=lambda path: path.stem)
def test_every_games_table_record_can_be_typed_into_a_session(fixture: Path, tmp_path: Path) -> None:
    # The session opens an existing log (the fixture's start), as a club does when it resumes a game.
    log = tmp_path / "game.jsonl"
    log.write_text(fixture.read_text(encoding="utf-8").split("\n", 1)[0] + "\n", encoding="utf-8")
    lines = session_lines(fixture)
    done = subprocess.run(
        [*TALLY, "record", str(log)], input="\n".join(lines) + "\nquit\n", capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert done.stderr == ""
    results = done.stdout.splitlines()
    assert len([r for r in results if " recorded: " in r]) == len(lines), "one result line per move"
    assert events_of(log) == events_of(fixture)
    assert results[-1].startswith("final scores: ")


def test_a_scripted_session_reports_refusals_and_exits_1(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    script = "take r g b\n?reveal w4b4\nreveal w4b4 w4b4\nmoves\nstate as nobody\nundo\nbogus move\nquit\n"
    done = subprocess.run(
        [*TALLY, "record", "--new", "splendor", "-p", "ana", "-p", "ben", str(log)],
        input=script,
        capture_output=True,
        text=True,
        timeout=60,
    )
    shown = done.stdout.splitlines()
    assert done.returncode == 1, done
    assert shown[1] == (
        "  rule splendor.setup.incomplete: No one acts before the setup is complete: all 12 face-up "
        "cards and the nobles must be on the table."
    ), "every ruling says its rule's text"
    out = [line for line in shown if not line.startswith("  rule ")]
    assert out[0].startswith("illegal: the setup is not complete") and out[0].endswith("[splendor.setup.incomplete]")
    assert out[1] == "legal: reveal w4b4 is possible [splendor.setup.deal] (nothing recorded)"
    assert out[2].startswith("illegal: noble w4b4 is already laid out")
    assert out[3].startswith("after #1: the table must reveal the setup") and "  1. reveal w4b4" in out[4:9]
    assert any(line.startswith("no player 'nobody'") for line in out)
    assert any(line.startswith("illegal: nothing to void") for line in out)
    assert out[-1].startswith("cannot read 'bogus move': unknown move 'bogus'")
    assert len(log.read_text().splitlines()) == 1, "refused lines append nothing"


def test_record_needs_new_for_new_game_options(tmp_path: Path) -> None:
    done = subprocess.run([*TALLY, "record", str(tmp_path / "g.jsonl"), "-p", "ana"], capture_output=True, text=True)
    assert done.returncode == 2 and "add --new GAME" in done.stderr
    done = subprocess.run(
        [*TALLY, "record", "--new", "splendor", str(tmp_path / "g.jsonl")], capture_output=True, text=True
    )
    assert done.returncode == 2 and "--new needs the players" in done.stderr
    done = subprocess.run([*TALLY, "record", str(tmp_path / "missing.jsonl")], capture_output=True, text=True)
    assert done.returncode == 3 and "no such log file" in done.stderr


# --------------------------------------------------------------------------- the store's session


def test_a_session_notices_another_writer_and_never_judges_an_unseen_table(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    session = Session(log)
    assert session.move("take r g b").accepted and not session.changed()
    assert record.move(log, "ben: take w b k").accepted  # another terminal
    assert session.changed()
    stale = session.move("take r g b")  # typed against the table before ben's move: not judged, not recorded
    assert stale.is_stale and "it is now at #4" in stale.messages[0], stale.messages
    assert session.seq == 4 and not session.changed(), "the refusal re-read the log"
    assert session.move("ana: take w b k").accepted
    assert len(events_of(log)) == 5


def test_a_stale_move_in_the_session_is_not_called_illegal(tmp_path: Path) -> None:
    """No rule forbade a move typed against a table the log has moved on from: `tally record` says it is stale,
    never `illegal:`, and records nothing."""
    import io

    from rich.console import Console

    from tally.cli.session import Recorder

    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    out = Console(file=io.StringIO(), width=80, color_system=None)
    recorder = Recorder(Session(log), out, interactive=False)
    recorder.run_line("take r g b")
    assert record.move(log, "ben: take w b k").accepted  # another terminal
    recorder.run_line("take r g b")
    said = out.file.getvalue().splitlines()  # type: ignore[attr-defined]
    refusal = next(line for line in said if "[core.append.stale]" in line)
    assert refusal.startswith("stale: the log moved on") and "illegal" not in refusal, said
    assert recorder.refused == 1 and len(events_of(log)) == 4


def test_a_reveal_of_three_cards_is_echoed_as_the_three_events_recorded(tmp_path: Path) -> None:
    """`tally move` and `tally record` echo exactly the events a move recorded: three cards revealed in one move
    are three events, each named once, in the log's order."""
    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], mode="table")
    moved = subprocess.run(
        [*TALLY, "move", str(log), "reveal", "w4b4", "b3g3r3", "r4k4"], capture_output=True, text=True
    )
    assert moved.returncode == 0, moved.stderr
    assert moved.stdout.splitlines()[:3] == [
        "#2 recorded: reveal w4b4",
        "#3 recorded: reveal b3g3r3",
        "#4 recorded: reveal r4k4",
    ], moved.stdout
    typed = subprocess.run(
        [*TALLY, "record", str(log)], input="reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3\n", capture_output=True, text=True
    )
    assert typed.returncode == 0, typed.stderr
    assert typed.stdout.splitlines()[0] == "#5-7 recorded: reveal 1k0-w1b1g1r1; reveal 1w0-b3; reveal 1g0-r3"
    logged = [(e["seq"], e.get("card")) for e in events_of(log)[1:]]
    assert logged[-3:] == [(5, "1k0-w1b1g1r1"), (6, "1w0-b3"), (7, "1g0-r3")], logged


def test_the_session_wraps_its_text_between_words_to_an_80_column_terminal(tmp_path: Path) -> None:
    """On a terminal 80 columns wide the session's help, its refusals and error lists, its rule texts and what is
    due next are broken between words, each line within 80 columns, a continued line indented: the terminal never
    cuts a word."""
    import io

    from rich.console import Console

    from tally.cli.session import HELP, Recorder

    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    out = Console(file=io.StringIO(), width=80, color_system=None, force_terminal=True, legacy_windows=False)
    recorder = Recorder(Session(log), out, interactive=False)
    for line in ("help", "bogus move", "buy 1.1", "take r r r r", "?take r g", "moves", "state"):
        recorder.run_line(line)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.file.getvalue()).splitlines()  # type: ignore[attr-defined]
    assert max(map(len, shown)) <= 80, [line for line in shown if len(line) > 80]
    words = set(" ".join(shown).split())
    for said in (HELP.replace("GAME", "splendor"),):  # every word of the help whole, none cut in two
        assert set(said.split()) <= words, set(said.split()) - words
    refusal = next(i for i, line in enumerate(shown) if line.startswith("cannot read 'bogus move'"))
    assert shown[refusal + 1].startswith("  ") and len(shown[refusal]) > 60, shown[refusal : refusal + 2]
    assert any(line.startswith("  N               the move numbered N") for line in shown)
    assert any(line.startswith(" " * 18 + "(refused as stale") for line in shown), "under its description"


def test_moves_in_the_session_is_summarised_and_listed_whole_on_request(tmp_path: Path) -> None:
    """`moves` summarises a listing longer than a screen by kind; `moves all` lists every move, `moves KIND` one
    kind, numbered alike, and a number then records the move it names."""
    import io

    from rich.console import Console

    from tally.cli.session import Recorder

    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    every = record.moves(log).moves
    assert len(every) > 20

    def said(line: str) -> list[str]:
        out = Console(file=io.StringIO(), width=80, color_system=None)
        recorder = Recorder(Session(log), out, interactive=False)
        recorder.run_line(line)
        return out.file.getvalue().splitlines()  # type: ignore[attr-defined]

    assert len(said("moves")) <= 22 and any("more take" in line for line in said("moves"))
    assert said("moves all")[1:] == [f"{i:3d}. {move}" for i, move in enumerate(every, 1)]
    assert said("moves reserve")[1:] == [f"{i:3d}. {move}" for i, move in enumerate(every, 1) if ": reserve " in move]
    assert said("moves reserve 2") == ["moves takes nothing, `all`, or a kind of move (`moves take`)"]


def test_a_session_reads_the_log_under_the_writers_lock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a write between reading the log and noting its identity would pair an old fold with the new file, and the
    # next move would be appended after the wrong tail: the session reads, folds and notes under the lock
    import fcntl

    from tally.store.recording import service

    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"], seed=3)
    held: list[bool] = []
    real_fold = service.judged

    def probing_fold(*args: Any) -> Any:
        fd = os.open(log, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(False)
        except BlockingIOError:
            held.append(True)
        finally:
            os.close(fd)
        return real_fold(*args)

    monkeypatch.setattr(service, "judged", probing_fold)
    session = Session(log)
    assert held == [True]
    assert not session.changed()
    session.refresh()
    assert held == [True, True]


def test_a_session_undoes_a_whole_turn_and_says_what_it_voided(tmp_path: Path) -> None:
    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"])
    session = Session(log)
    cards = [
        m for m in (session.spec.format(e) for e in session.spec.legal_moves(session.state)) if m.startswith("reveal 1")
    ]
    setup = [
        "reveal w4b4 b3g3r3 r4k4",
        "reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3 1r0-w3",
        "reveal 2w1-g3r2k2 2b2-b5 2g2-g5 2r2-k5",
        "reveal 3w4-k7 3b4-w7 3g4-b7 3r4-g7",
    ]
    assert cards and all(session.move(text).accepted for text in setup)
    bought = session.move("reserve 1k0 + reveal 1k0-w2g2")
    assert bought.accepted and bought.lines == ["ana: reserve 1k0-w1b1g1r1", "reveal 1k0-w2g2"]
    undone = session.undo("misread the card", turn=True)
    assert undone.accepted
    assert undone.lines == [
        "void #18: reveal 1k0-w2g2 (misread the card)",
        "void #17: ana: reserve 1k0-w1b1g1r1 (misread the card)",
    ]
    assert session.spec.to_act(session.state)[0] == "ana"
    assert record.check(log).ok


# --------------------------------------------------------------------------- in a pseudo-terminal


class Terminal:
    """`tally record` in a pseudo-terminal, its output fed to a terminal emulator (pyte)."""

    def __init__(self, args: list[str], cwd: Path):
        import pexpect
        import pyte

        self.screen = pyte.Screen(100, 36)
        self.stream = pyte.ByteStream(self.screen)
        env = dict(os.environ, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1", COLUMNS="100", LINES="36")
        env.pop("NO_COLOR", None)
        self.child = pexpect.spawn(TALLY[0], [*TALLY[1:], *args], cwd=str(cwd), env=env, dimensions=(36, 100))

    def read(self, seconds: float = 0.05) -> None:
        import pexpect

        try:
            while True:
                self.stream.feed(self.child.read_nonblocking(1 << 16, timeout=seconds))
        except (pexpect.TIMEOUT, pexpect.EOF):
            pass

    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.screen.display).rstrip() + "\n"

    def wait_for(self, pattern: str, seconds: float = 20.0) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.read()
            if re.search(pattern, self.text(), re.M):
                return
        raise AssertionError(f"no {pattern!r} on the screen:\n{self.text()}")

    def type(self, line: str, then: str) -> None:
        self.child.send(line + "\r")
        self.wait_for(then)


def anchors_checked(screen: str, log: Path) -> str:
    """`screen` with every anchor (`#12 3fa9c1d0`) checked against the log's line 12 and its digits masked:
    the log's `at` times, and so its fingerprints, differ from run to run."""
    lines = log.read_bytes().split(b"\n")

    def masked(found: re.Match[str]) -> str:
        seq, digits = int(found[1]), found[2]
        assert hashlib.sha256(lines[seq - 1]).hexdigest()[:8] == digits, found[0]
        return f"#{seq} ########"

    return re.sub(r"#(\d+) ([0-9a-f]{8})\b", masked, screen)


def test_a_whole_game_through_the_session_in_a_terminal_equals_the_fixture(tmp_path: Path, text_snapshot) -> None:  # type: ignore[no-untyped-def]
    fixture = GAMES / "splendor-2p.jsonl"
    log = tmp_path / "game.jsonl"
    terminal = Terminal(
        ["record", "--new", "splendor", "--seed", "11", "-p", "ana", "-p", "ben", "game.jsonl"], tmp_path
    )
    terminal.wait_for(r"^#2 [0-9a-f]{8} ana>")
    screens = {"start": terminal.text()}
    for number, text in enumerate(session_lines(fixture)):
        before = len(events_of(log))
        terminal.type(text, rf"^#{before + 1}[ -].*recorded: ")
        after = len(events_of(log))
        terminal.wait_for(rf"^#{after} [0-9a-f]{{8}} \w+>")  # the prompt is drawn last: the screen is complete
        if number == 0:
            screens["after the first move"] = terminal.text()
        if "!! " in terminal.text() and "an obligation" not in screens:
            screens["an obligation"] = terminal.text()  # a token return or a noble to choose, as a banner
        if " visits " in terminal.text() and "a noble visits" not in screens:
            screens["a noble visits"] = terminal.text()
    screens["the end"] = terminal.text()
    screens = {name: anchors_checked(screen, log) for name, screen in screens.items()}
    assert all("########" in screen for screen in screens.values())  # every screen shows where the log is
    terminal.type("?take r g b", r"^illegal: the game is over")
    terminal.child.sendcontrol("d")
    terminal.wait_for(r"every move is saved")
    assert events_of(log) == events_of(fixture)
    assert "game over: " in screens["the end"]
    assert all(len(line) <= 100 for screen in screens.values() for line in screen.splitlines())
    assert "\n\n".join(f"--- {name}\n{screen}" for name, screen in screens.items()) == text_snapshot


def test_the_prompt_completes_legal_moves(tmp_path: Path) -> None:
    record.new_game(tmp_path / "game.jsonl", "splendor", ["ana", "ben"], seed=11)
    terminal = Terminal(["record", "game.jsonl"], tmp_path)
    terminal.wait_for(r"^#2 [0-9a-f]{8} ana>")
    terminal.child.send("reserve 3")
    terminal.child.send("\t")
    terminal.wait_for(r"reserve 3\S+-")  # completed to a face-up level-3 card
    terminal.child.sendcontrol("u")
    terminal.child.send("1\r")  # the first move of the listing
    terminal.wait_for(r"^#3 recorded: ana: take ")
    terminal.child.sendcontrol("d")
    terminal.wait_for(r"every move is saved")
