"""Array's notation and inputs: what a recorder types reads as documented, mistakes get a message listing what
would have been valid, and no input at all -- move text, event fields in a log, options, manifests -- makes
tally raise (exit code 4 must be impossible)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from support.array_helpers import ANN, BEN, documented_position, open_game, table_game
from tally.core.engine import Table
from tally.core.games.array import (
    ARRAY,
    ActionGiven,
    CardDrawn,
    CardShown,
    CardSpliced,
    RoundDealt,
    Sliced,
    StarterTurned,
    TimeCalled,
    TurnEnded,
    TurnPassed,
)
from tally.core.games.array.components import DEFAULT_BOX, DEFAULT_MANIFEST, check_manifest, load_box
from tally.core.model import NotationError
from tally.store.logs import log as logfile
from tally.store.recording import record
from tally.store.recording.simulate import playout

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def states() -> list:
    """Positions to read moves in: every phase of an open game and of its table transcript."""
    events, _ = playout("array", 3, random.Random("notation"))
    found = []
    for stream in (events, ARRAY.table_transcript(events)):
        table = Table(ARRAY, stream[0])  # type: ignore[arg-type]
        phases: dict[str, int] = {}
        for event in stream[1:]:
            table.apply(event)
            phase = table.state.phase
            if phases.get(phase, 0) < 3:
                phases[phase] = phases.get(phase, 0) + 1
                found.append(table.state)
    return found


STATES = states()


# --------------------------------------------------------------------------- reading moves


def test_a_whole_splice_is_splice_1_then_splice_2_then_done() -> None:
    game = documented_position()
    assert ARRAY.parse(game.state, "splice gy@5") == [
        CardSpliced(player="ann", card="gy", to=5, colour="g"),
        TurnEnded(player="ann"),
    ]
    # the colour is inferred when one fits, the target may be a code, and cards laid this move are targets too
    assert ARRAY.parse(game.state, "ann: splice yb.y@OY by") == [
        CardSpliced(player="ann", card="by", to=3, colour="y"),
        CardSpliced(player="ann", card="by", to=6, colour="b"),
    ]
    assert ARRAY.parse(game.state, "splice bry@3 by@bry") == [
        CardSpliced(player="ann", card="bry", to=3, colour="y"),
        CardSpliced(player="ann", card="by", to=6, colour="b"),
        TurnEnded(player="ann"),
    ]
    assert ARRAY.parse(game.state, "splice bry@#4.yellow") == [
        CardSpliced(player="ann", card="bry", to=4, colour="y"),
        TurnEnded(player="ann"),
    ]


def test_a_whole_slice_lays_both_sides_then_splice_2_on_each() -> None:
    game = documented_position()
    assert ARRAY.parse(game.state, "slice 2/4 bry by.b, gry gy.g") == [
        Sliced(player="ann", cut=[2, 4], cards=["bry", "gry"]),
        CardSpliced(player="ann", card="by", to=6, colour="b"),
        CardSpliced(player="ann", card="gy", to=7, colour="g"),
    ]
    # without a comma, Splice 2 cards go where they fit
    assert ARRAY.parse(game.state, "slice 2/4 bry gry gy.g") == [
        Sliced(player="ann", cut=[2, 4], cards=["bry", "gry"]),
        CardSpliced(player="ann", card="gy", to=7, colour="g"),
        TurnEnded(player="ann"),
    ]


def test_mistakes_say_what_would_have_been_valid() -> None:
    game = documented_position()
    cases = {
        "splice bry": ("bry fits 2 open segments: say where", ["bry@3.y", "bry@4.y"]),
        "splice bgy@5 by oy": ("by can touch #6 on blue or yellow: name the colour", ["by@6.b", "by@6.y"]),
        "splice xq@3": ("unknown card 'xq': a card is 2-4 colour letters of bgory, or s1-s5, slam", None),
        "splice bb@3": ("unknown card 'bb': a card is 2-4 colour letters of bgory, or s1-s5, slam", None),
        "splice bo@99999": ("'99999' is not a card number (#1-#5)", None),
        "splice bo@3.purple": (
            "unknown colour 'purple'",
            ["b (blue)", "g (gray)", "o (orange)", "r (red)", "y (yellow)"],
        ),
        "slice 2 bry gry": ("'2' is not a join: name its two cards as A/B", None),
        "s3": ("give s3 to whom?", ["s3 ben"]),
        "s3 zed": ("no player 'zed' at this table", ["ann", "ben"]),
        "zed: draw": ("no player 'zed' at this table", ["ann", "ben"]),
        "fly": ("unknown move 'fly'", None),
        "": ("empty move", None),
    }
    for text, (message, expected) in cases.items():
        parsed = ARRAY.parse(game.state, text)
        assert isinstance(parsed, NotationError), (text, parsed)
        assert parsed.message == message, (text, parsed.message)
        if expected is not None:
            assert parsed.expected == expected, (text, parsed.expected)
        assert parsed.expected, f"{text!r}: an error lists what would have been valid"


def test_two_cards_with_the_same_code_on_the_table_are_named_by_number() -> None:
    game = table_game(("ann", "ben"), "br")
    game.do("splice bo@1.b", "ben: splice ry@1.r", "splice by@3.y")
    game.do("ben: splice bo@4.b")  # two bo on the table now: #2 and #5
    parsed = ARRAY.parse(game.state, "splice go@bo")
    assert isinstance(parsed, NotationError) and parsed.expected == ["go@2", "go@5"]
    assert ARRAY.parse(game.state, "splice go@5")[0] == CardSpliced(player="ann", card="go", to=5, colour="o")


def test_format_reads_back() -> None:
    events = [
        CardSpliced(player="ann", card="bo", to=3, colour="b"),
        Sliced(player="ann", cut=[2, 4], cards=["bry", "gry"]),
        TurnEnded(player="ann"),
        CardDrawn(player="ann"),
        ActionGiven(player="ann", card="slam", target="ben"),
        TurnPassed(player="ann"),
        TimeCalled(),
    ]
    game = documented_position()
    for event in events:
        assert ARRAY.parse(game.state, ARRAY.format(event)) == [event] or type(event) is CardDrawn
    assert ARRAY.format(CardShown(player="ben", card="s3")) == "ben: show s3"
    assert ARRAY.format(StarterTurned(card="br")) == "start br"
    dealt = RoundDealt(hands={"ann": ["bo"] * 7}, turned=["slam", "br"], deck=["gy"] * 3)
    assert ARRAY.format(dealt) == "deal ann: bo bo bo bo bo bo bo | start slam br | pickup deck 3"


# --------------------------------------------------------------------------- nothing makes tally raise

TOKENS = st.sampled_from(
    [
        "splice",
        "slice",
        "lay",
        "cut",
        "done",
        "draw",
        "pass",
        "time",
        "start",
        "show",
        "give",
        "s3",
        "slam",
        "splatter",
        "to",
        "draws",
        "ann:",
        "ben:",
        "zed:",
        "bo",
        "bry",
        "gry",
        "bgor",
        "s1",
        "@",
        "@3",
        "@bo",
        ".r",
        ".red",
        "3/5",
        "1/2",
        "/",
        ",",
        "#",
        "#2",
        "99999999999999",
        "0",
        "-1",
        "³",
        "٣",
        "\x00",
        "\u202e",
        "é",
        "BO",
        "3",
        ":",
        "+",
    ]
)
TEXTS = st.one_of(
    st.lists(TOKENS, max_size=8).map(" ".join),
    st.lists(TOKENS, max_size=8).map("".join),
    st.text(max_size=40),
)


@FUZZ
@given(st.sampled_from(range(len(STATES))), TEXTS)
def test_no_text_makes_parsing_or_judging_raise(index: int, text: str) -> None:
    state = STATES[index]
    parsed = ARRAY.parse(state, text)
    if isinstance(parsed, NotationError):
        assert parsed.render()
        return
    assert len(parsed) <= len(text.split()) * 2 + 2  # output proportional to input
    table = Table.resume(ARRAY, Table(ARRAY, _started(state)).started, state, 10)
    for event in parsed:
        rulings = table.check(event)
        if any(r.verdict == "illegal" for r in rulings):
            assert all(r.render() for r in rulings)
            break
        table.permit(event)
        table.apply(msgspec.structs.replace(event, seq=table.last_seq + 1))
        ARRAY.view(table.state, None)
        ARRAY.to_act(table.state)


def _started(state):  # type: ignore[no-untyped-def]
    from tally.core.model import GameStarted

    return GameStarted(
        seq=1,
        game="array",
        rules="1",
        seats=list(state.seats),
        mode=state.mode,
        options=ARRAY.resolved_options({}),
        manifest="array-assumed-1",
    )


WORDS = st.one_of(st.text(max_size=6), st.sampled_from(["ann", "ben", "cy", "bo", "s3", "slam", "b", "r", ""]))
EVENTS = st.one_of(
    st.builds(CardSpliced, player=WORDS, card=WORDS, to=st.integers(-5, 200), colour=WORDS),
    st.builds(Sliced, player=WORDS, cut=st.lists(st.integers(-3, 99), max_size=3), cards=st.lists(WORDS, max_size=3)),
    st.builds(TurnEnded, player=WORDS),
    st.builds(CardDrawn, player=WORDS, card=st.none() | WORDS),
    st.builds(ActionGiven, player=WORDS, card=WORDS, target=WORDS, drawn=st.lists(WORDS, max_size=6)),
    st.builds(TurnPassed, player=WORDS),
    st.builds(CardShown, player=WORDS, card=WORDS),
    st.builds(StarterTurned, card=WORDS),
    st.builds(TimeCalled),
    st.builds(
        RoundDealt,
        hands=st.dictionaries(WORDS, st.lists(WORDS, max_size=8), max_size=3),
        turned=st.lists(WORDS, max_size=3),
        deck=st.lists(WORDS, max_size=5),
    ),
)


@FUZZ
@given(st.sampled_from(range(len(STATES))), EVENTS)
def test_no_event_in_a_log_makes_checking_raise(index: int, event) -> None:  # type: ignore[no-untyped-def]
    state = STATES[index]
    rulings = ARRAY.check(state, event)
    assert all(r.render() for r in rulings)
    if not any(r.verdict == "illegal" for r in rulings):
        ARRAY.permit(state, event)
        after = ARRAY.apply(state, event)
        ARRAY.view(after, None)
        ARRAY.narrate(state, after)


MANIFEST_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 200) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=5),
    max_leaves=20,
)


@FUZZ
@given(st.one_of(MANIFEST_VALUES, st.fixed_dictionaries({"colours": MANIFEST_VALUES, "cards": MANIFEST_VALUES})))
def test_no_manifest_makes_tally_raise(manifest) -> None:  # type: ignore[no-untyped-def]
    problems = check_manifest(manifest)
    assert isinstance(problems, list)
    if not problems:
        load_box(manifest)


@settings(max_examples=40, deadline=None)
@given(
    st.dictionaries(st.sampled_from("bgorytkw"), st.sampled_from(["blue", "x", "red"]), min_size=2, max_size=6),
    st.integers(1, 12),
    st.integers(0, 3),
)
def test_a_manifest_tally_accepts_plays_to_the_end(colours: dict[str, str], copies: int, actions: int) -> None:
    from itertools import combinations

    letters = "".join(colours)
    cards: dict[str, int] = {"".join(c): copies for n in (2, 3, 4) for c in combinations(letters, n)}
    cards.update({f"s{i}": actions for i in range(1, 6) if actions} | ({"slam": actions} if actions else {}))
    manifest = {"id": "fuzzed", "colours": colours, "cards": cards}
    problems = check_manifest(manifest)
    colour_cards = sum(v for k, v in cards.items() if k[0] != "s")
    assert (problems == []) == (36 <= colour_cards and sum(cards.values()) <= 999), problems
    if not problems:
        events, state = playout("array", 3, random.Random(len(cards)), manifest=json.loads(json.dumps(manifest)))
        assert ARRAY.outcome(state) is not None


def test_manifest_problems_name_the_field() -> None:
    assert check_manifest("array-assumed-1") == []
    assert check_manifest(DEFAULT_MANIFEST) == []
    assert check_manifest("array-2012") == [
        "manifest 'array-2012': array knows array-assumed-1; give another box as a manifest file"
    ]
    bad = {"colours": {"b": "blue", "s": "silver", "rr": "red"}, "cards": {"bo": 3}, "extra": 1}
    assert check_manifest(bad) == [
        "manifest field 'extra' is unknown (fields: id, colours, cards)",
        "colour letter 's': one lowercase letter a-z other than s (s names Splatter cards)",
        "colour letter 'rr': one lowercase letter a-z other than s (s names Splatter cards)",
    ]
    few = {"colours": {"b": "blue", "o": "orange"}, "cards": {"bo": 10, "ob": 1, "bq": 2, "s9": 1}}
    assert check_manifest(few) == [
        "cards 'bo' and 'ob' are the same card",
        "card 'bq': a colour card is 2-4 different colour letters of bo; action cards are s1, s2, s3, s4, s5, slam",
        "card 's9': a colour card is 2-4 different colour letters of bo; action cards are s1, s2, s3, s4, s5, slam",
    ]
    assert check_manifest({"colours": {"b": "blue", "o": "orange"}, "cards": {"bo": 35}}) == [
        "manifest has 35 colour cards; at least 36 are needed (so that a starting card remains after dealing 7 to 5 players)"
    ]


# --------------------------------------------------------------------------- the command line


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """An open and a table log in progress."""
    folder = tmp_path_factory.mktemp("array-logs")
    events, _ = playout("array", 3, random.Random("cli"))
    paths = []
    for name, stream in (("open", events[:60]), ("table", ARRAY.table_transcript(events)[:70])):
        path = folder / f"{name}.jsonl"
        logfile.create(path, stream)
        paths.append(path)
    return paths


def invoke(*args: str) -> int:
    from typer.testing import CliRunner

    from tally.cli.main import app

    outcome = CliRunner().invoke(app, list(args))
    if outcome.exception is not None and not isinstance(outcome.exception, SystemExit):
        raise outcome.exception
    assert "Traceback" not in outcome.output and "internal error" not in outcome.output, outcome.output
    return outcome.exit_code


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(TEXTS, st.booleans())
def test_no_move_text_exits_4(logs: list[Path], text: str, table: bool) -> None:
    path = logs[table]
    before = path.read_bytes()
    code = invoke("rule", str(path), text, "--json")
    assert code in (0, 1, 2), code
    assert path.read_bytes() == before


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["threshold", "end", "hands", "blocked", "target", "", "x"]),
        st.one_of(
            st.text(max_size=6),
            st.sampled_from(["50", "100", "200", "5", "0", "99", "hands", "time", "all-score", "²", "1e3"]),
        ),
        max_size=4,
    )
)
def test_no_option_exits_4(tmp_path_factory: pytest.TempPathFactory, options: dict[str, str]) -> None:
    folder = tmp_path_factory.mktemp("options")
    args = ["new", "array", str(folder / "g.jsonl"), "-p", "ann", "-p", "ben", "--seed", "1"]
    for key, value in options.items():
        args += ["--option", f"{key}={value}"]
    assert invoke(*args) in (0, 2)


@settings(max_examples=40, deadline=None)
@given(st.one_of(MANIFEST_VALUES.map(json.dumps), st.text(max_size=30)))
def test_no_manifest_file_exits_4(tmp_path_factory: pytest.TempPathFactory, content: str) -> None:
    folder = tmp_path_factory.mktemp("manifest")
    (folder / "box.json").write_text(content, encoding="utf-8")
    code = invoke(
        "new", "array", str(folder / "g.jsonl"), "-p", "ann", "-p", "ben", "--manifest", str(folder / "box.json")
    )
    assert code in (0, 2)


def test_a_manifest_file_is_recorded_inline_and_judges_the_game(tmp_path: Path) -> None:
    box = tmp_path / "box.toml"
    lines = ['id = "two-colour-box"', "[colours]", 'b = "blue"', 'o = "orange"', "[cards]", "bo = 40", "s2 = 2"]
    box.write_text("\n".join(lines) + "\n", encoding="utf-8")
    log = tmp_path / "g.jsonl"
    assert invoke("new", "array", str(log), "-p", "ann", "-p", "ben", "--manifest", str(box), "--seed", "4") == 0
    first = json.loads(log.read_text().splitlines()[0])
    assert first["manifest"] == {
        "id": "two-colour-box",
        "colours": {"b": "blue", "o": "orange"},
        "cards": {"bo": 40, "s2": 2},
    }
    assert record.check(log).ok
    pos = record.position(log)
    assert pos.table.state.box.total == 42 and set(pos.table.state.placed) == {"bo"}


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("draw bo ry", "invalid", "draw takes at most the card drawn"),
        ("splice bo", "invalid", "bo fits no open segment on the table (it has blue, orange)"),
        ("splice oy", "ambiguous", "oy fits 2 open segments: say where"),
        ("lay zz", "unknown", "unknown card 'zz': a card is 2-4 colour letters of bgory, or s1-s5, slam"),
        ("cy: done", "unknown", "no player 'cy' at this table"),
        ("jump", "unknown", "unknown move 'jump'"),
    ],
)
def test_array_notation_error_kinds(text: str, kind: str, message: str) -> None:
    """A move that cannot be read says what kind of problem it has; callers decide by the kind, not the words."""
    error = ARRAY.parse(documented_position().state, text)
    assert isinstance(error, NotationError)
    assert (error.kind, error.message, error.text) == (kind, message, text)


def test_a_cut_list_of_valid_forms_ends_with_an_ellipsis_and_the_count_left_out() -> None:
    # issue 17: the list of valid forms was cut with no ellipsis
    game = documented_position()
    error = ARRAY.parse(game.state, "splice zzzz@3")
    assert isinstance(error, NotationError)
    codes = [code for code, _ in DEFAULT_BOX.copies if not code.startswith("s")]
    assert len(error.expected) == 9 and error.expected[:8] == codes[:8]
    assert error.expected[-1] == f"… ({len(codes) - 8} more)"
    assert error.render().endswith(f"{codes[7]}, … ({len(codes) - 8} more)")


def test_the_first_moves_suggested_forms_hold_no_action_card() -> None:
    # issue 17: on the first move the forms suggested for a card laid included action cards, illegal there
    game = open_game({"ann": ANN, "ben": BEN}, "br")
    assert not game.state.first_done
    for text in ("splice s@1", "splice zzzz@1", "splice sl@1.b"):
        error = ARRAY.parse(game.state, text)
        assert isinstance(error, NotationError), text
        assert error.expected and not any(
            form.split()[0] in ("s1", "s2", "s3", "s4", "s5", "slam") for form in error.expected
        ), (text, error.expected)
