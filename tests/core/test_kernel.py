"""The kernel every game shares: player names, options, the start of a log, hidden zones, notation helpers."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import msgspec
import pytest

from support.logs import nested, start_log, stderr_line
from tally.core.history import round_rows
from tally.core.knowledge import Zone, can_reveal, located, unlocated
from tally.core.model import Event, NotationError, Option
from tally.core.names import check_name, check_names, skeleton
from tally.core.notation import by_prefix, player_of, read_count, suggestions
from tally.core.text import plural, quote
from tally.store.logs import log as logfile
from tally.store.recording import record

START = {
    "type": "game_started",
    "seq": 1,
    "at": "2026-11-30T10:00:00.000Z",
    "game": "splendor",
    "rules": "1",
    "seats": ["ana", "ben"],
    "mode": "table",
    "options": {"take-fewer": "when-short", "stuck": "pass", "target": "15"},
    "manifest": "splendor-base-2014",
}


# --------------------------------------------------------------------------- names


@pytest.mark.parametrize("name", ["ana", "Ben", "p1", "Søren", "山田さん", "o'neil", "jean-luc", "a_b", "ЖЖ", "x" * 24])
def test_good_names(name: str) -> None:
    assert check_name(name) is None


@pytest.mark.parametrize(
    "name, problem",
    [
        ("", "cannot be empty"),
        ("x" * 25, "too long"),
        ("\x1b[31mred", "control or invisible character (U+001B)"),
        ("a\u200bb", "U+200B"),
        ("a\u202eb", "U+202E"),
        ("a b", "U+0020"),
        ("a\tb", "U+0009"),
        ("a\nb", "U+000A"),
        ("--json", "starts with '-'"),
        ("-p", "starts with '-'"),
        ("ben:", "contains ':'"),
        ("table", "names who acts"),
        ("Nobody", "names who acts"),
        ("аna", "mixes Cyrillic and Latin"),
        ("O\u0301scar", "normal form NFC"),
        ("a/b", "contains '/'"),
        ("🙂", "contains"),
    ],
)
def test_bad_names(name: str, problem: str) -> None:
    found = check_name(name)
    assert found is not None and problem in found, found
    assert "\x1b" not in found and "\u202e" not in found  # the message itself is safe to print


def test_names_that_look_alike_collide() -> None:
    assert skeleton("Ana") == skeleton("ana") == skeleton("ANA")
    assert skeleton("сор") == skeleton("cop")  # all Cyrillic, looks Latin
    assert skeleton("Zoë") == skeleton("zoe") and skeleton("b0b") == skeleton("bob")
    problems = check_names(["ana", "Ana", "ben", "ben"])
    assert problems == [
        "'Ana' and 'ana' look alike: names at one table must differ, ignoring case and look-alike letters",
        "'ben' twice: names at one table must differ, ignoring case and look-alike letters",
    ]
    assert check_names(["ana", "ann", "anna"]) == []


def test_quote_keeps_messages_short() -> None:
    assert quote("ana") == "'ana'"
    long = quote("x" * 1000)
    assert len(long) < 70 and "(1000 characters)" in long
    assert plural(1, "card") == "1 card" and plural(2, "match", "matches") == "2 matches"


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "value", ["abc", "", " 15", "+15", "015", "1_5", "１５", "٣", "²", "15.0", "99999999999999999999", "-5"]
)
def test_an_integer_option_takes_ascii_digits_only(value: str) -> None:
    target = Option("target", "15", (), 1, 99)
    assert target.check(value) is not None
    assert target.check("15") is None and target.check("1") is None and target.check("99") is None


def test_a_negative_option_needs_a_minimum_that_allows_it() -> None:
    assert Option("shift", "0", (), -9, 9).check("-5") is None
    assert Option("shift", "0", (), -9, 9).check("-0") is not None


# --------------------------------------------------------------------------- the start of a log


def one_line_log(tmp_path: Path, **changes: Any) -> Path:
    start = dict(START, **changes)
    path = tmp_path / "start.jsonl"
    path.write_bytes(json.dumps(start, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
    return path


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"seats": ["solo"]}, "needs 2-4 players, got 1"),
        ({"seats": []}, "needs 2-4 players, got 0"),
        ({"seats": [f"p{i}" for i in range(9)]}, "needs 2-4 players, got 9"),
        ({"seats": ["ana", "ana"]}, "'ana' twice"),
        ({"seats": ["table", "nobody"]}, "'table' cannot be a player's name"),
        ({"seats": ["ana", "\x1b[2Jben"]}, "U+001B"),
        ({"rules": "2"}, "rules '2'"),
        ({"manifest": "x"}, "manifest 'x'"),
        ({"manifest": {"cards": []}}, "manifest {'cards': []}"),
        ({"options": {}}, "take-fewer, stuck, target not stated"),
        ({"options": {"take-fewer": "sometimes", "stuck": "pass", "target": "15"}}, "take-fewer='sometimes'"),
        ({"options": {"take-fewer": "never", "stuck": "pass", "target": "abc"}}, "target='abc'"),
        ({"options": {"take-fewer": "never", "stuck": "pass", "target": "-5"}}, "target='-5'"),
        ({"options": {"take-fewer": "never", "stuck": "pass", "target": "99999999999999999999"}}, "target="),
        ({"options": {"take-fewer": "never", "stuck": "pass", "target": "15", "x": "1"}}, "unknown option 'x'"),
    ],
)
def test_the_reader_refuses_a_start_the_game_does_not_accept(tmp_path: Path, changes: dict, message: str) -> None:
    path = one_line_log(tmp_path, **changes)
    with pytest.raises(logfile.LogError) as refused:
        logfile.read(path)
    assert refused.value.line == 1 and message in refused.value.message, refused.value.message
    assert "game_started is not a valid start" in refused.value.message


def test_the_reader_accepts_a_good_start(tmp_path: Path) -> None:
    assert logfile.read(one_line_log(tmp_path)).started.seats == ["ana", "ben"]


def test_new_refuses_what_the_reader_refuses(tmp_path: Path) -> None:
    with pytest.raises(record.UsageError, match="'Ana' and 'ana' look alike"):
        record.new_game(tmp_path / "g.jsonl", "splendor", ["ana", "Ana"])
    with pytest.raises(record.UsageError, match="splendor knows only"):
        record.new_game(tmp_path / "g.jsonl", "splendor", ["ana", "ben"], manifest={"cards": []})
    assert not (tmp_path / "g.jsonl").exists()


def test_a_manifest_file_is_read_as_toml_or_json(tmp_path: Path) -> None:
    toml = tmp_path / "deck.toml"
    toml.write_text('id = "my-box"\n[[cards]]\ncode = "a"\ncopies = 2\n', encoding="utf-8")
    assert record.read_manifest(toml) == {"id": "my-box", "cards": [{"code": "a", "copies": 2}]}
    as_json = tmp_path / "deck.json"
    as_json.write_text('{"id": "my-box"}', encoding="utf-8")
    assert record.read_manifest(as_json) == {"id": "my-box"}
    for content, problem in (
        ("[1, 2]", "a manifest is an object"),
        ("{", "not a manifest file"),
        ("\xff", "not a manifest file"),
    ):
        bad = tmp_path / "bad.json"
        bad.write_bytes(content.encode("latin-1"))
        with pytest.raises(record.UsageError, match=problem):
            record.read_manifest(bad)
    with pytest.raises(record.UsageError, match="cannot read it"):
        record.read_manifest(tmp_path / "missing.toml")


# --------------------------------------------------------------------------- hidden zones


def test_a_zone_knows_some_cards_and_counts_the_rest() -> None:
    hand = Zone(("a",), 2)
    assert hand.size == 3 and hand.has("a") and hand.has("z")
    assert hand.remove("a") == Zone((), 2)
    assert hand.remove("z") == Zone(("a",), 1)  # an unknown card turned out to be z
    assert Zone(("a",), 0).has("z") is False
    assert hand.add(["b"], 1) == Zone(("a", "b"), 3)


def test_unlocated_copies_bound_what_can_be_revealed() -> None:
    copies = {"a": 2, "b": 1}
    placed = located([Zone(("a",), 3), Zone(("b",), 0)], ["a"])
    assert placed == Counter({"a": 2, "b": 1})
    assert unlocated(copies, placed) == {}
    assert not can_reveal("a", copies, placed) and not can_reveal("c", copies, placed)
    assert can_reveal("a", copies, located([Zone(("a",))]))


# --------------------------------------------------------------------------- notation helpers


@pytest.mark.parametrize("word", ["²", "١", "１", "-1", "", "99999", "1e3", " 1"])
def test_a_count_is_ascii_digits_and_bounded(word: str) -> None:
    assert read_count(word, 100) is None


def test_counts_within_bounds() -> None:
    assert read_count("7", 10) == 7 and read_count("0", 10) == 0 and read_count("11", 10) is None


def test_the_player_prefix() -> None:
    seats = ["ana", "Ben", "ben2"]
    assert player_of("ana: take r g b", seats) == ("ana", "take r g b")
    assert player_of("take r g b", seats) == (None, "take r g b")
    assert player_of("ANA: take r", seats) == ("ana", "take r")
    assert player_of("ben: pass", seats) == ("Ben", "pass")
    refused = player_of("cy: pass", seats)
    assert isinstance(refused, NotationError) and refused.expected == seats
    assert player_of("reveal 1k0-w1: x", seats) == (None, "reveal 1k0-w1: x")  # a colon after a space is not a name


def test_codes_by_prefix_and_suggestions() -> None:
    codes = ["1k0-w1b1", "1k0-w2", "2r1-g3"]
    assert by_prefix("1k0-w1b1", codes) == ["1k0-w1b1"]
    assert by_prefix("1k0", codes) == ["1k0-w1b1", "1k0-w2"] and by_prefix("2", codes) == ["2r1-g3"]
    assert suggestions("1k0", codes) == ["1k0-w1b1", "1k0-w2"]
    assert suggestions("2r1-g4", codes)[0] == "2r1-g3"


def test_round_rows_carry_running_totals() -> None:
    rows = round_rows(["ana", "ben"], [{"ana": 5, "ben": 3}, {"ana": -2, "ben": 4}], [["ana"], ["ben"]])
    assert rows == [
        (1, 1, "ana", 5, 5, True),
        (1, 2, "ben", 3, 3, False),
        (2, 1, "ana", -2, 3, False),
        (2, 2, "ben", 4, 7, True),
    ]


# --------------------------------------------------------------------------- safe output


def test_visible_shows_control_and_invisible_characters_as_escapes() -> None:
    from tally.core.text import json_escape, visible

    assert visible("ana, Søren, 山田さん: take r g b") == "ana, Søren, 山田さん: take r g b"  # untouched
    assert visible("\x1b]0;title\x07\x1b[2J") == "\\x1b]0;title\\x07\\x1b[2J"
    assert visible("a\tb\nc\rd") == "a\\tb\\nc\\rd"
    assert (
        visible("x\u202ey\u200bz\u2028\x9b\x7f\udcff\U000e0001")
        == "x\\u202ey\\u200bz\\u2028\\x9b\\x7f\\udcff\\U000e0001"
    )
    assert visible("\u3000") == "\u3000"  # a wide space is visible: shown as it is
    assert quote("\x1b[31m" * 30).startswith("'\\x1b[31m") and "\x1b" not in quote("\x1b" * 99)
    text = json.dumps({"note": "\x1b\x7f\u202e\U000e0001"}, ensure_ascii=False)
    escaped = json_escape(text)
    assert escaped.isprintable() and json.loads(escaped) == {"note": "\x1b\x7f\u202e\U000e0001"}


class Said(Event, tag="said", frozen=True):  # a toy game's events and table, for the kernel's turn steps
    player: str = ""


class Settled(Event, tag="settled", frozen=True):
    player: str = ""


class Named(Event, tag="named", frozen=True):
    player: str = ""


class ToyTable(msgspec.Struct, frozen=True):
    phase: str
    player_name: str
    seated: tuple[str, ...] = ()


def test_the_kernel_decides_pending_and_out_of_turn_from_the_turns_steps() -> None:
    from tally.core.referee import ALLOWED, Guards, OutOfTurn, Pending, no_rule_of_its_own

    seen: list[str] = []

    def fits(state: ToyTable, event: Event) -> Any:
        seen.append(type(event).__name__)
        return ALLOWED if state.phase == "free" else None

    guards = Guards[ToyTable](
        "toy",
        (Said, Settled),
        turn=[
            fits,
            Pending[ToyTable](
                ("owing",),
                "toy.turn.pending",
                lambda state, event: f"{state.player_name} owes first",
                facts=lambda state: {"phase": state.phase},
                settles=lambda state, event: type(event) is Settled,
            ),
            OutOfTurn[ToyTable](lambda state, player: f"not {player}'s turn"),
        ],
    )
    guards.on(Said, no_rule_of_its_own)
    guards.on(Settled, no_rule_of_its_own)
    check = guards.seal().check
    owing = ToyTable("owing", "ann")
    [pending] = check(owing, Said(player="ann"))
    assert (pending.rule, pending.message, pending.facts) == ("toy.turn.pending", "ann owes first", {"phase": "owing"})
    assert check(owing, Settled(player="ann")) == []
    [out] = check(owing, Settled(player="ben"))
    assert (out.rule, out.message, out.facts) == (
        "toy.turn.out-of-turn",
        "not ben's turn",
        {"player": "ben", "current": "ann"},
    )
    assert check(ToyTable("free", "ann"), Said(player="ben")) == []  # ALLOWED ends the turn's steps
    [over] = check(ToyTable("over", "ann"), Said(player="ann"))
    assert over.rule == "toy.turn.game-over" and seen == ["Said", "Settled", "Settled", "Said"]


def test_a_step_about_seated_seats_runs_only_for_the_kinds_it_answers_while_nobody_is_seated() -> None:
    from tally.core.model import illegal
    from tally.core.referee import Guards, answers_unseated, no_rule_of_its_own

    seen: list[str] = []

    @answers_unseated(Named)
    def about_seats(state: ToyTable, event: Event) -> Any:
        seen.append(type(event).__name__)
        return illegal("toy.seat", "refused") if type(event) is Named else None

    guards = Guards[ToyTable]("toy", (Said, Named), turn=[about_seats])
    guards.on(Said, no_rule_of_its_own)
    guards.on(Named, no_rule_of_its_own)
    check = guards.seal().check
    unseated, seated = ToyTable("play", "ann"), ToyTable("play", "ann", seated=("ann",))
    assert check(unseated, Said(player="ann")) == [] and seen == []  # skipped: it answers no `said` unseated
    assert [r.rule for r in check(unseated, Named(player="ann"))] == ["toy.seat"] and seen == ["Named"]
    assert check(seated, Said(player="ann")) == [] and seen == ["Named", "Said"]  # seated: it runs for every kind
    assert guards.judge_turn(unseated, Said(player="ann")) is None and seen == ["Named", "Said"]
    assert guards.judge_turn(seated, Said(player="ann")) is None and seen == ["Named", "Said", "Said"]


# --------------------------------------------------------------------------- refused by the real tally (issues 7, 16)


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"options": {**START["options"], "target": "abc"}}, "option target='abc'"),
        ({"options": {**START["options"], "target": "99999999999999999999"}}, "option target='99999999999999999999'"),
        ({"rules": "2"}, "rules '2'"),
        ({"manifest": "x"}, "manifest 'x'"),
        ({"options": {}}, "take-fewer, stuck, target not stated"),
        ({"options": {**START["options"], "take-fewer": "sometimes"}}, "option take-fewer='sometimes'"),
        ({"options": {**START["options"], "target": "-5"}}, "option target='-5'"),
        ({"seats": ["ana", "ana"]}, "'ana' twice"),
        ({"seats": ["table", "nobody"]}, "'table' cannot be a player's name"),
    ],
)
def test_finding_2_game_started_values_are_validated(tmp_path: Path, tally: Any, changes: dict, message: str) -> None:
    path = start_log(tmp_path / "g.jsonl", **changes)
    before = path.read_bytes()
    for command in (["check", str(path)], ["move", str(path), "reveal w4b4"], ["state", str(path)]):
        result = tally(*command)
        assert result.exit_code == 3, (command, result)
        assert (
            stderr_line(result).startswith(f"tally: {path}:1: game_started is not a valid start: ")
            and message in result.stderr
        )
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    "names, message",
    [
        (["\x1b[31mred", "ben"], "control or invisible character (U+001B)"),
        (["ana", "Ana"], "'Ana' and 'ana' look alike"),
        (["ana", "аna"], "mixes Cyrillic and Latin"),
        (["а\u043dа", "aha"], "look alike"),
        (["a\tb", "ben"], "U+0009"),
        (["a\nb", "ben"], "U+000A"),
        (["a\u200bb", "ben"], "U+200B"),
        (["a\u202eb", "ben"], "U+202E"),
        (["--json", "ben"], "starts with '-'"),
        (["-p", "ben"], "starts with '-'"),
    ],
)
def test_finding_4_bad_names_are_refused_at_new(tmp_path: Path, tally: Any, names: list[str], message: str) -> None:
    path = tmp_path / "g.jsonl"
    args = ["new", "splendor", str(path)]
    for name in names:
        args += ["-p", name] if not name.startswith("-") else [f"--player={name}"]
    result = tally(*args)
    assert result.exit_code == 2, result
    assert message in stderr_line(result) and "\x1b" not in result.stderr and "\u202e" not in result.stderr
    assert not path.exists()


@pytest.mark.parametrize("pair", [("lan", "Ian"), ("Ivy", "lvy"), ("arn", "am"), ("Vern", "vem"), ("bob", "b0b")])
def test_finding_10_look_alike_names_are_refused_at_one_table(
    tmp_path: Path, tally: Any, pair: tuple[str, str]
) -> None:
    path = tmp_path / "g.jsonl"
    result = tally("new", "splendor", str(path), "-p", pair[0], "-p", pair[1])
    assert result.exit_code == 2 and "look alike" in result.stderr, result
    assert not path.exists()


@pytest.mark.parametrize("pair", [("ian", "lan"), ("ana", "ama"), ("mia", "nia")])
def test_finding_10_names_that_only_share_a_reading_sit_together(
    tmp_path: Path, tally: Any, pair: tuple[str, str]
) -> None:
    assert tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", pair[0], "-p", pair[1]).exit_code == 0


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_finding_2_a_manifest_nested_1000_deep_is_a_usage_error(tmp_path: Path, tally: Any, suffix: str) -> None:
    manifest = tmp_path / f"deep{suffix}"
    if suffix == ".json":
        manifest.write_text('{"id":"x","cards":' + nested(1000) + "}")
    else:
        manifest.write_text('id = "x"\ncards = ' + nested(1000) + "\n")
    result = tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", "ana", "-p", "ben", "--manifest", str(manifest))
    assert result.exit_code == 2 and "nested more than 30 levels deep" in result.stderr, result
    dotted = tmp_path / "dotted.toml"  # nesting without a bracket
    dotted.write_text("id = 'x'\n" + ".".join(f"k{i}" for i in range(1000)) + " = 1\n")
    result = tally("new", "splendor", str(tmp_path / "g.jsonl"), "-p", "ana", "-p", "ben", "--manifest", str(dotted))
    assert result.exit_code == 2 and "nested more than 30 levels deep" in result.stderr, result
    assert not (tmp_path / "g.jsonl").exists()
