"""Splice's notation: no input makes tally raise (exit code 4 must be impossible), errors say what would
have been valid, and every recorded move reads back to itself.

Hypothesis feeds `parse` free text (any Unicode, control characters, huge and non-ASCII digits) and word
soups built from the notation's own vocabulary, in positions of every phase and both modes; whatever parses
is then judged (`check`, `permit`), which must not raise either. Options and manifests go through
`tally new` in-process, moves through `tally rule`: exit codes 0-2 only.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.splice_helpers import Game, open_game, table_game
from tally.core.games.splice import SPLICE, CardPicked, DisksDealt
from tally.core.model import NotationError

SEATS = ("ann", "ben")
VOCABULARY = [
    "draw",
    "from",
    "as",
    "play",
    "piracy",
    "skull",
    "spot",
    "black-spot",
    "trade",
    "with",
    "unused",
    "buy",
    "pay",
    "lay",
    "discard",
    "pass",
    "return",
    "reveal",
    "disks",
    "deal",
    "hurricane",
    "hurricanes",
    "reshuffle",
    "double",
    "map",
    "wild",
    "?",
    "ann",
    "ben",
    "ANN",
    "cy",
    "ann:",
    "ben:",
    ":",
    ";",
    "red",
    "r",
    "blue",
    "x3",
    "r1",
    "r5",
    "x9",
    "5-5",
    "2-3-4",
    "w5-5",
    "w5-w5",
    "5-6",
    "10-10",
    "50-50",
    "0",
    "5",
    "99999999999999999999",
    "٣",
    "²",
    "-1",
    "+",
    "5-",
    "-",
    "w",
    "ww5",
    "1e9",
    "\x00",
    "\u202e",
    "é",
    "🎲",
    "pay pay",
    "as as",
    "5-5-5",
    "9-10-11",
    "1-1-1-1",
    "10-11-12",  # not coin sets: a buy paid with them once crashed the count
]


def positions() -> list:
    """A position in every phase, in both modes."""
    found = []
    game = open_game(
        hands=[["5", "5", "2", "3", "piracy"], ["9", "9", "6", "7", "8"]], pile=["hurricane", "7", "1", "2", "3", "4"]
    )
    found.append(game.state)  # start
    game.do("ann: draw")  # the Hurricane at the start of the turn
    found.append(game.state)  # storm
    game.do(DisksDealt(disks=["r", "b"], unused=["g", "y", "p"]), "ben: draw")
    found.append(game.state)  # play
    game.do("ben: play 9-9 6-7-8")
    found.append(game.state)  # draw owed
    game.do("ben: draw", "ann: draw from ben")
    found.append(game.state)  # pick
    game.do(CardPicked(card=game.state.players[1].hand.known[0]))
    found.append(game.state)  # ann to play, ben has sets in play
    table = table_game(stall_rounds=1, no_map="most-matching")
    found.append(table.state)
    table.do("ann: draw", "ann: discard ?", "ben: draw", "ben: discard ?")
    found.append(table.state)  # reveal
    found.append(Game(mode="table").state)  # setup
    return found


POSITIONS = positions()
words = st.lists(st.sampled_from(VOCABULARY), max_size=8).map(" ".join)
texts = st.one_of(
    st.text(max_size=60), words, st.builds(lambda a, b: f"{a}: {b}", st.sampled_from(SEATS + ("x", "")), words)
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts, st.integers(0, len(POSITIONS) - 1))
def test_no_input_makes_parse_or_check_raise(text: str, which: int) -> None:
    state = POSITIONS[which]
    parsed = SPLICE.parse(state, text)
    if isinstance(parsed, NotationError):
        rendered = parsed.render()
        assert rendered and len(rendered) < 2000
        return
    for event in parsed:
        rulings = SPLICE.check(state, event)
        for ruling in rulings:
            assert ruling.rule.startswith("splice.") and ruling.message
        if not any(r.verdict == "illegal" for r in rulings):
            assert SPLICE.permit(state, event).verdict == "legal"
            state = SPLICE.apply(state, event)
            SPLICE.view(state, None)
            SPLICE.to_act(state)
        else:
            break


def test_a_buy_paid_with_sets_that_are_not_coin_sets_is_refused_not_a_crash() -> None:
    # without a count, the pieces bought are worked out from the gold paid: a non-set pays nothing
    state = POSITIONS[4]  # ann to play, with sets in play
    for text in ("ann: buy pay 5-5-5", "ann: buy pay 9-10-11", "ann: buy pay 1-1-1-1"):
        parsed = SPLICE.parse(state, text)
        if isinstance(parsed, NotationError):
            continue
        (event,) = parsed
        assert [r.verdict for r in SPLICE.check(state, event)][:1] == ["illegal"], text


def test_every_legal_move_reads_back_to_itself() -> None:
    for state in POSITIONS:
        for move in SPLICE.legal_moves(state):
            assert SPLICE.parse(state, SPLICE.format(move)) == [move], SPLICE.format(move)


def test_bad_notation_says_what_would_be_valid() -> None:
    state = POSITIONS[2]
    error = SPLICE.parse(state, "ben: plya 5-5")
    assert isinstance(error, NotationError) and "play" in " ".join(error.expected)
    error = SPLICE.parse(state, "ben: play 5-x")
    assert isinstance(error, NotationError)
    assert error.message == "'5-x' is not a coin set (values joined by `-`, a wild card as `w5`)"
    # a well-formed set that is neither a pair nor a run is read, and the rules refuse it
    (played,) = SPLICE.parse(state, "ben: play 6-5")  # type: ignore[misc]
    assert played.sets == ["6-5"] and SPLICE.check(state, played)[0].rule == "splice.coins.sets"
    (played,) = SPLICE.parse(state, "ben: play 6-w6")  # type: ignore[misc]
    assert played.sets == ["6-w6"]
    error = SPLICE.parse(state, "ben: draw 42")
    assert isinstance(error, NotationError) and error.message == "there is no coin card '42'"
    error = SPLICE.parse(state, "zed: pass")
    assert isinstance(error, NotationError) and error.expected == ["ann", "ben"]
    error = SPLICE.parse(state, "ben: trade mauve")
    assert isinstance(error, NotationError) and "r (red)" in error.expected
    assert isinstance(SPLICE.parse(state, "draw " * 50), NotationError)


# --------------------------------------------------------------------------- through the command line


def invoke(*args: str) -> tuple[int, str, str]:
    from typer.testing import CliRunner

    from tally.cli.main import app

    outcome = CliRunner().invoke(app, list(args))
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    return outcome.exit_code, outcome.stdout, outcome.stderr


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("fuzz") / "game.jsonl"
    assert invoke("new", "splice", str(path), "-p", "ann", "-p", "ben", "--seed", "3")[0] == 0
    for move in ("draw", "discard 1"):
        invoke("move", str(path), move)
    return path


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(texts)
def test_tally_rule_never_fails_internally(log: Path, text: str) -> None:
    if text.startswith("-") or "\x00" in text:
        text = " " + text.replace("\x00", "")  # an argument, not an option (argv cannot hold NUL)
    code, out, err = invoke("rule", str(log), text)
    assert code in (0, 1, 2), (text, code, out, err)
    assert "Traceback" not in out + err


option_values = st.one_of(
    st.sampled_from(
        [
            "1",
            "2",
            "0",
            "3",
            "7",
            "999",
            "1000",
            "yes",
            "no",
            "end",
            "play-on",
            "draw",
            "most-matching",
            "",
            "-1",
            "٣",
            "1e3",
            "9" * 30,
        ]
    ),
    st.text(max_size=12),
)
option_keys = st.sampled_from([o.key for o in SPLICE.options] + ["bogus", "", "hand_size"])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(option_keys, option_values, max_size=4), st.booleans())
def test_tally_new_never_fails_internally_on_options(
    tmp_path_factory: pytest.TempPathFactory, options: dict, seed: bool
) -> None:
    path = tmp_path_factory.mktemp("new") / "g.jsonl"
    args = ["new", "splice", str(path), "-p", "ann", "-p", "ben"] + [
        a for k, v in options.items() for a in ("-o", f"{k}={v}")
    ]
    args += ["--seed", "5"] if seed else []
    code, out, err = invoke(*[a.replace("\x00", "") for a in args])
    assert code in (0, 2), (options, code, err)
    if code == 0:
        moves = invoke("moves", str(path), "--json")
        assert moves[0] == 0


manifests = st.dictionaries(
    st.sampled_from(
        [
            "colours",
            "coins",
            "wild",
            "double",
            "piracy",
            "skull",
            "trade",
            "black_spot",
            "hurricane",
            "wild_pieces",
            "bogus",
        ]
    ),
    st.one_of(
        st.integers(-5, 50),
        st.dictionaries(
            st.sampled_from(["r", "b", "g", "1", "2", "5", "10", "x", "w", "zz", "0", "99", "100"]),
            st.one_of(st.integers(-1, 12), st.text(max_size=5)),
            max_size=6,
        ),
        st.text(max_size=5),
        st.lists(st.integers(), max_size=3),
    ),
    max_size=5,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifests, st.integers(2, 4))
def test_any_manifest_is_refused_or_plays(manifest: dict, seats: int) -> None:
    from tally.store.recording.record import UsageError, start_event
    from tally.store.recording.simulate import playout

    problems = SPLICE.check_manifest(manifest)
    if problems:
        assert all(isinstance(p, str) and p for p in problems)
        return
    names = [f"p{i}" for i in range(seats)]
    try:
        start_event("splice", names, {"stall-rounds": "2"}, "open", manifest)
    except UsageError as error:
        assert "gemstone disks" in str(error)
        return
    events, state = playout("splice", seats, random.Random(1), {"stall-rounds": "2"}, manifest)
    assert state.phase == "over"


def test_manifest_file_through_the_cli(tmp_path: Path) -> None:
    box = tmp_path / "box.toml"
    box.write_text('skull = 1\n\n[colours]\nr = "red"\nb = "blue"\no = "orange"\n', encoding="utf-8")
    code, out, err = invoke(
        "new", "splice", str(tmp_path / "g.jsonl"), "-p", "ann", "-p", "ben", "--manifest", str(box), "--seed", "1"
    )
    assert code == 0, err
    first = json.loads((tmp_path / "g.jsonl").read_text(encoding="utf-8").splitlines()[0])
    assert first["manifest"] == {"skull": 1, "colours": {"r": "red", "b": "blue", "o": "orange"}}
    bad = tmp_path / "bad.toml"
    bad.write_text('hurricane = "many"\n', encoding="utf-8")
    code, out, err = invoke(
        "new", "splice", str(tmp_path / "h.jsonl"), "-p", "ann", "-p", "ben", "--manifest", str(bad)
    )
    assert code == 2 and "hurricane" in err


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("pass now", "invalid", "pass takes no arguments"),
        ("play 5-", "invalid", "'5-' is not a coin set (values joined by `-`, a wild card as `w5`)"),
        ("d", "ambiguous", "unknown move 'd'"),
        ("discard s", "ambiguous", "unknown card 's'"),
        ("discard qq", "unknown", "unknown card 'qq'"),
        ("trade z", "unknown", "unknown colour 'z'"),
        ("cy: pass", "unknown", "no player 'cy' at this table"),
        ("jump", "unknown", "unknown move 'jump'"),
    ],
)
def test_splice_notation_error_kinds(text: str, kind: str, message: str) -> None:
    """A move that cannot be read says what kind of problem it has (a prefix several cards or verbs share is
    ambiguous); callers decide by the kind, not the words."""
    game = open_game(hands=[["5", "5", "2", "3", "piracy"], ["9", "9", "6", "7", "8"]], pile=["7", "1", "2", "3", "4"])
    error = SPLICE.parse(game.state, text)
    assert isinstance(error, NotationError)
    assert (error.kind, error.message, error.text) == (kind, message, text)
