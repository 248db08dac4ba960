"""No input makes tally raise on a Split game: hypothesis feeds it notation, events, options and manifests.

Every text a user can type as a move (control characters, digits of other scripts, huge numbers, names that
are not at the table, half-finished notation), every event a log line can hold (any strings, lists and
hands in the event's fields), every option and every manifest either works or gets a ruling, a notation
error or a usage error: never an exception, so never exit code 4. Messages stay short whatever the input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from tally.cli.main import app
from tally.core.engine import Table
from tally.core.games.split import (
    SPLIT,
    BonusDeclined,
    CardDiscarded,
    CardDrawn,
    LayingDone,
    MatchesSwapped,
    MatchPlayed,
    MatchUpgraded,
    MinusMarked,
    RoundDealt,
    RowTaken,
    components,
)
from tally.core.model import GameStarted, NotationError
from tally.store import record

from split_helpers import ANN, Game, deal_table, out_on_first_turn, standard

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
CARDS = list(components.DEFAULT_DECK.cards)
JUNK = ["", " ", "ZZL", "7HX", "1HL", "10", "٣HL", "７HL", "7hl", "+", "++", "7HL+", "+7HR", "|", "over", "for", ":",
        "\x00", "\x1b[31m", "\u202e", "9" * 30, "-1", "ann", "ben", "zed", "table", "nobody", "Ann", "x" * 200]
VOCAB = ["draw", "take", "match", "upgrade", "minus", "swap", "skip", "discard", "done", "deal", "over", "for", "|",
         "ann:", "ben:", "zed:", "ANN:", ":", "pile", "of"] + JUNK
WORD = st.one_of(st.sampled_from(CARDS), st.sampled_from(VOCAB), st.text(max_size=6))
MOVE_TEXT = st.one_of(st.text(max_size=60), st.lists(WORD, max_size=12).map(" ".join))
STRING = st.one_of(st.sampled_from(CARDS), st.sampled_from(JUNK), st.text(max_size=12))


def positions() -> list[Game]:
    """A game at each step a move can meet: the deal, the draw, the play, a pending bonus, a card owed from
    the row, laying after a first-turn out, the end; in open and table mode."""
    found = [Game(), Game(mode="table")]
    found.append(standard())
    found.append(standard().do("draw"))
    found.append(standard().do("draw", "match 2HL 2HR"))
    found.append(standard().do("draw", "match 5HL 5SR"))
    found.append(standard().do("draw", "discard 8HL", "ben: draw", "ben: discard 5DL", "take 5DL"))
    found.append(out_on_first_turn().do("discard 8HL"))
    found.append(out_on_first_turn(rounds=1).do("discard 8HL", "ben: done"))
    table = deal_table(Game(mode="table", seats=("ann", "ben", "cy")), "QSR", ann=ANN)
    found.append(table)
    found.append(deal_table(Game(mode="table"), "QSR", ann=ANN).do("draw 8HL", "discard 8HL", "ben: draw"))
    return found


POSITIONS = positions()


def bounded(text: str, source: str = "") -> None:
    assert len(text) <= 600 + 2 * len(source), (len(text), text[:200])


def judge_everything(game: Game, events: list[Any], source: str = "") -> None:
    for event in events:
        rulings = game.table.check(event)
        assert isinstance(rulings, list)
        for ruling in rulings:
            assert ruling.rule.startswith(("split.", "core.")) and ruling.message
            bounded(ruling.render(), source)
        if not any(r.verdict == "illegal" for r in rulings):
            bounded(game.table.permit(event).render(), source)
            SPLIT.format(event)


@FUZZ
@given(text=MOVE_TEXT, at=st.integers(0, len(POSITIONS) - 1))
def test_no_move_text_makes_the_parser_or_the_rules_raise(text: str, at: int) -> None:
    game = POSITIONS[at]
    parsed = SPLIT.parse(game.state, text)
    if isinstance(parsed, NotationError):
        assert parsed.message and all(isinstance(e, str) for e in parsed.expected)
        bounded(parsed.render(), text * 2)
        return
    judge_everything(game, parsed, text)


def events() -> st.SearchStrategy[Any]:
    strings = st.lists(STRING, max_size=4)
    hands = st.dictionaries(STRING, st.lists(STRING, max_size=10), max_size=3)
    return st.one_of(
        st.builds(RoundDealt, row=STRING, hands=hands, pile=st.lists(STRING, max_size=4)),
        st.builds(CardDrawn, player=STRING, card=st.one_of(st.none(), STRING)),
        st.builds(RowTaken, player=STRING, card=STRING),
        st.builds(MatchPlayed, player=STRING, cards=strings),
        st.builds(MatchUpgraded, player=STRING, card=STRING, over=STRING),
        st.builds(MinusMarked, player=STRING, target=STRING),
        st.builds(MatchesSwapped, player=STRING, mine=strings, theirs=strings),
        st.builds(BonusDeclined, player=STRING),
        st.builds(CardDiscarded, player=STRING, card=STRING),
        st.builds(LayingDone, player=STRING),
    )


@FUZZ
@given(event=events(), at=st.integers(0, len(POSITIONS) - 1), actor=st.booleans())
def test_no_event_a_log_line_can_hold_makes_the_rules_raise(event: Any, at: int, actor: bool) -> None:
    game = POSITIONS[at]
    if actor and hasattr(event, "player"):  # most events in a log name the right player: get past that guard
        import msgspec

        event = msgspec.structs.replace(event, player=game.state.player_name)
    judge_everything(game, [event], repr(event))


OPTION_KEYS = [option.key for option in SPLIT.options] + ["target", "", "=", "rounds "]


@FUZZ
@given(options=st.dictionaries(st.one_of(st.sampled_from(OPTION_KEYS), st.text(max_size=8)),
                                st.one_of(st.text(max_size=12), st.sampled_from(["0", "1", "3", "9", "10", "-1", "٣", "³", "99999999999", "yes", "any"])),
                                max_size=3),
       seats=st.integers(0, 8))
def test_no_option_makes_a_new_game_raise(options: dict[str, str], seats: int) -> None:
    players = [f"p{i}" for i in range(seats)]
    try:
        spec, started = record.start_event("split", players, options, "open")
    except record.UsageError as error:
        bounded(str(error), json.dumps(options))
        return
    state = spec.start(started)
    assert state.rounds == int(started.options["rounds"]) and 2 <= len(players) <= 6


JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**12), 10**12), st.text(max_size=6)),
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=20,
)
MANIFEST_PART = st.fixed_dictionaries(
    {},
    optional={
        "name": JSON,
        "ranks": st.one_of(JSON, st.lists(st.sampled_from(["A", "2", "10", "K", "Z", "a", "", "AAAA", "1"]), max_size=14)),
        "suits": st.one_of(JSON, st.lists(st.fixed_dictionaries({"code": st.sampled_from(["S", "H", "L", "x", "", "HH"]),
                                                                  "colour": st.sampled_from(["red", "black", "", "green"])}), max_size=5)),
        "reference": JSON,
        "pad": st.one_of(JSON, st.fixed_dictionaries({}, optional={
            "rows": st.one_of(JSON, st.lists(st.fixed_dictionaries({"name": JSON, "ranks": JSON, "boxes": JSON}), max_size=3)),
            "minus": st.one_of(JSON, st.lists(st.integers(-(10**7), 10**7), max_size=5)),
            "marks": st.one_of(JSON, st.fixed_dictionaries({"perfect": JSON, "strong": JSON, "weak": JSON})),
        })),
        "extra": JSON,
    },
)


@FUZZ
@given(manifest=st.one_of(MANIFEST_PART, JSON), seats=st.integers(2, 6))
def test_no_manifest_makes_tally_raise(manifest: Any, seats: int) -> None:
    problems = SPLIT.check_manifest(manifest)
    assert isinstance(problems, list) and all(isinstance(p, str) for p in problems)
    for problem in problems:
        bounded(problem, json.dumps(manifest))
    started = GameStarted(seq=1, game="split", rules="1", seats=[f"p{i}" for i in range(seats)], mode="open",
                          options=SPLIT.resolved_options({}), manifest=manifest)
    if SPLIT.check_started(started):
        return
    table = Table(SPLIT, started)
    deck = table.state.deck
    assert deck.size >= 9 * seats + 2
    chance = SPLIT.shuffles(table.state)
    for event in SPLIT.deal(table.state, {name: list(reversed(pile)) for name, pile in chance.items()}):
        assert table.step(event).is_legal
    assert SPLIT.legal_moves(table.state)


# --------------------------------------------------------------------------- the command line, in-process


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("split-fuzz")
    opened = folder / "open.jsonl"
    record.new_game(opened, "split", ["ann", "ben", "cy"], seed=4)
    for _ in range(6):
        state = record.position(opened).table.state
        record.move(opened, SPLIT.format(SPLIT.legal_moves(state)[0]))
    table = folder / "table.jsonl"
    record.new_game(table, "split", ["ann", "ben"], mode="table")
    record.move(table, "deal QSR | ann 7HL 7DR 9SL 9CR 5HL 5SR 2HL 2HR 7HR")
    return {"open": opened, "table": table}


def cli(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "100", "NO_COLOR": "1"})
    return result


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(text=MOVE_TEXT, which=st.sampled_from(["open", "table"]), as_json=st.booleans())
def test_tally_rule_never_exits_with_an_internal_error(logs: dict[str, Path], text: str, which: str, as_json: bool) -> None:
    before = logs[which].read_bytes()
    result = cli("rule", str(logs[which]), text, *(["--json"] if as_json else []))
    assert result.exit_code in (0, 1, 2), (text, result.exit_code, result.output)
    assert logs[which].read_bytes() == before
    assert "Traceback" not in result.output


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(options=st.lists(st.text(max_size=16), max_size=3), manifest=st.one_of(st.none(), MANIFEST_PART, JSON))
def test_tally_new_never_exits_with_an_internal_error(tmp_path_factory: pytest.TempPathFactory, options: list[str], manifest: Any) -> None:
    folder = tmp_path_factory.mktemp("new")
    args = ["new", "split", str(folder / "g.jsonl"), "-p", "ann", "-p", "ben", "--seed", "1"]
    for option in options:
        args += ["--option", option]
    if manifest is not None:
        (folder / "box.json").write_text(json.dumps(manifest))
        args += ["--manifest", str(folder / "box.json")]
    result = cli(*args)
    assert result.exit_code in (0, 2), (args, result.exit_code, result.output)
    if result.exit_code == 0:
        assert record.check(folder / "g.jsonl").ok


def test_the_positions_cover_every_phase() -> None:
    assert {game.state.phase for game in POSITIONS} == {"deal", "draw", "play", "bonus", "laying", "over"}
    assert any(game.state.must_play for game in POSITIONS) and any(game.state.mode == "table" for game in POSITIONS)
