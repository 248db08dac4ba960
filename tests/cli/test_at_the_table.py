"""Recording without friction: single commands as quick as the session (unquoted moves, numbered moves, a refill
on the line of the move that made it due, consequences reported, undo of a whole turn), the README's walkthrough
run exactly as written, `--version` and shell completion, and a board that fits 80 columns."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest
from rich.console import Console

from support import ROOT, run_tally
from tally.store.recording import record

FIXTURES = ROOT / "fixtures" / "games"
SETUP = (
    "reveal w4b4 b3g3r3 r4k4",
    "reveal 1k0-w1b1g1r1 1w0-b3 1g0-r3 1r0-w3",
    "reveal 2w1-g3r2k2 2b2-b5 2g2-g5 2r2-k5",
    "reveal 3w4-k7 3b4-w7 3g4-b7 3r4-g7",
)


@pytest.fixture
def table_game(tmp_path: Path) -> Path:
    log = tmp_path / "game.jsonl"
    record.new_game(log, "splendor", ["ana", "ben"])
    for text in SETUP:
        assert record.move(log, text).accepted
    return log


def test_a_move_need_not_be_quoted(table_game: Path) -> None:
    done = run_tally("move", str(table_game), "take", "r", "g", "b")
    assert done.exit_code == 0 and done.stdout.startswith("#17 recorded: ana: take r g b"), done
    done = run_tally("move", str(table_game), "BEN:", "take", "w", "b", "k")  # a name in another case
    assert done.exit_code == 0 and "#18 recorded: ben: take w b k" in done.stdout, done


def test_a_number_from_the_listing_selects_that_move(table_game: Path) -> None:
    listing = json.loads(run_tally("moves", str(table_game), "--json").stdout)["moves"]
    done = run_tally("move", str(table_game), "3")
    assert done.exit_code == 0 and done.stdout.startswith(f"#17 recorded: {listing[2]}"), done
    refused = run_tally("move", str(table_game), "999")
    assert refused.exit_code == 2 and "there is no move number '999' in the listing" in refused.stderr
    assert run_tally("move", str(table_game), "0").exit_code == 2
    over = run_tally("rule", str(FIXTURES / "splendor-2p.jsonl"), "1")  # a finished game lists no move, and says why
    assert over.exit_code == 2 and "(`tally moves`: none: the game is over)" in over.stderr, over


def test_a_refill_goes_on_the_line_of_the_move_that_made_it_due(table_game: Path) -> None:
    done = run_tally("move", str(table_game), "reserve 1k0 + reveal 1k0-w2g2", "--json")
    document = json.loads(done.stdout)
    assert done.exit_code == 0 and [e["text"] for e in document["events"]] == [
        "ana: reserve 1k0-w1b1g1r1",
        "reveal 1k0-w2g2",
    ]
    assert [e["seq"] for e in document["events"]] == [17, 18] and document["to_act"] == "ben"
    size = table_game.stat().st_size
    refused = run_tally("move", str(table_game), "take r g b + reveal 1k0-w2g2")  # the second part is refused
    assert refused.exit_code == 1 and "nothing is waiting to be turned up" in refused.stderr
    assert table_game.stat().st_size == size, "all or nothing"
    assert run_tally("move", str(table_game), "take r g b +").exit_code == 2


def test_a_move_reports_what_follows_from_it(tmp_path: Path) -> None:
    # the last move of a bundled game, entered again on the log without it: the noble and the end are reported
    fixture = FIXTURES / "splendor-2p.jsonl"
    lines = fixture.read_bytes().splitlines(keepends=True)
    log = tmp_path / "almost.jsonl"
    log.write_bytes(b"".join(lines[:-1]))
    last = json.loads(lines[-1])
    text = f"{last['player']}: buy {last['card']} pay nothing"
    done = run_tally("move", str(log), text, "--json")
    document = json.loads(done.stdout)
    assert done.exit_code == 0 and document["consequences"] == ["game over: ana has the most points (15)"]
    assert document["outcome"]["winners"] == ["ana"] and document["outcome"]["scores"] == {"ana": 15, "ben": 11}
    assert document["outcome"]["ended"] == "target" and document["to_act"] == "nobody"
    log.write_bytes(b"".join(lines[:-1]))
    plain = run_tally("move", str(log), text)
    assert plain.stdout.splitlines()[1:] == [
        "game over: ana has the most points (15)",
        "final scores: ana 15, ben 11; winner: ana",
    ]


def test_a_noble_visit_is_reported_by_move() -> None:
    fixture = FIXTURES / "splendor-2p.jsonl"
    replayed = record.replay(fixture)[1]
    visit = next(f for f in replayed if " visits " in f.text)
    text, _, consequence = visit.text.partition(" -> ")
    before = record.position(fixture, visit.seq - 1)
    result = record.propose(before.spec, before.table, text)
    assert result.accepted and result.consequences == [consequence]


def test_undo_takes_a_reason_without_a_flag_and_voids_a_whole_turn(table_game: Path) -> None:
    assert run_tally("move", str(table_game), "reserve 1k0 + reveal 1k0-w2g2").exit_code == 0
    done = run_tally("undo", str(table_game), "--turn", "misread", "the", "card")
    assert done.exit_code == 0, done
    assert done.stdout.splitlines() == [
        "#19 recorded: void #18: reveal 1k0-w2g2 (misread the card)",
        "#20 recorded: void #17: ana: reserve 1k0-w1b1g1r1 (misread the card)",
        "next: ana to take gems, reserve or buy a card",
    ]
    one = run_tally("move", str(table_game), "take r g b")
    assert one.exit_code == 0
    assert run_tally("undo", str(table_game), "wrong colours").stdout.startswith(
        "#22 recorded: void #21: ana: take r g b (wrong colours)"
    )


def test_version_and_shell_completion() -> None:
    version = run_tally("--version")
    assert version.exit_code == 0 and re.fullmatch(r"tally \d+\.\d+\.\d+\n", version.stdout)
    script = run_tally("--show-completion", "bash")
    assert script.exit_code == 0 and "_tally_completion" in script.stdout
    env = dict(os.environ, _TALLY_COMPLETE="complete_bash", COMP_WORDS="tally mo", COMP_CWORD="1")
    words = subprocess.run(
        [sys.executable, "-c", "from tally.cli.main import main; main()"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert words.stdout.split() == ["move", "moves"]


def test_the_board_fits_80_columns_with_zero_counts_and_the_token_limit(table_game: Path) -> None:
    from tally.cli.render import print_view

    for text in ("take r g b", "ben: take w w", "reserve 1k0 + reveal 1k0-w2g2", "ben: reserve deck 3"):
        assert record.move(table_game, text).accepted
    position = record.position(table_game)
    view = msgspec.structs.replace(position.spec.view(position.table.state, "ana"), seq=position.seq)
    out = Console(file=io.StringIO(), width=80, color_system=None, markup=False)
    print_view(view, out)
    text = out.file.getvalue()  # type: ignore[attr-defined]
    assert all(len(line) <= 80 for line in text.splitlines()), text
    assert "ana       0  w0 b1 g1 r1 k0 y1  4/10" in text and "ben       0  w2 b0 g0 r0 k0 y1  3/10" in text
    assert "  ana: reserved 1k0-w1b1g1r1" in text and "  ben: reserved ?3 (hidden)" in text
    coloured = Console(file=io.StringIO(), width=80, force_terminal=True, color_system="standard", markup=False)
    print_view(view, coloured)
    raw = coloured.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[2mw0" in raw, "a zero count is dimmed"
    assert re.search(r"\x1b\[1;34mb3\x1b\[0m\x1b\[1;32mg3", raw), "a noble's requirement is drawn in its colours"


# --------------------------------------------------------------------------- the README's walkthrough


def walkthrough() -> list[tuple[str, int]]:
    """The commands of the README's "Recording a game" block, each with the exit code its comment promises."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Recording a game", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = []
    for line in block.splitlines():
        command, _, comment = line.partition("#")
        code = re.search(r"\(exit (\d)\)", comment)
        commands.append((command.strip(), int(code.group(1)) if code else 0))
    return commands


def test_the_readme_walkthrough_runs_as_written(tmp_path: Path) -> None:
    commands = walkthrough()
    assert len(commands) >= 12 and commands[0][0] == "tally games"
    tally = f"{sys.executable} -c 'from tally.cli.main import main; main()'"
    for command, code in commands:
        assert command.startswith("tally "), command
        done = subprocess.run(
            f"{tally} {command[len('tally ') :]}", shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == code, (command, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
    assert record.check(tmp_path / "game.jsonl").ok
