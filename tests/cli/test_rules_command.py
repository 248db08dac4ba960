"""`tally rules GAME [ID-OR-PREFIX] [--notation]`: the rules and notation of a game from the game's own data, and the
rule's text on every ruling (the read model's `rule_text`, shared by every interface)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from support import invoke
from tally.core import registry
from tally.core.model import SHARED_RULES, illegal
from tally.store.recording import results


@pytest.mark.parametrize("game", registry.names())
def test_every_rule_of_a_game_is_printed_with_its_text(game: str) -> None:
    spec = registry.get(game)
    done = invoke("rules", game)
    assert done.exit_code == 0 and done.stderr == "", done
    lines = done.stdout.splitlines()
    assert lines[0] == f"{spec.title}, rules version {spec.rules_version}: {len(spec.rules) + len(SHARED_RULES)} rules"
    ids = [line for line in lines if line and not line.startswith(" ")][1:]
    assert ids == [rule.id for rule in (*spec.rules, *SHARED_RULES)]
    body = " ".join(line.strip() for line in lines if line.startswith("  "))
    for rule in spec.rules:
        assert " ".join(rule.text.split()) in body, rule.id
    assert all(len(line) <= 82 or " " not in line.strip() for line in lines), "texts are wrapped for a terminal"


def test_one_rule_by_its_id_or_without_the_games_name() -> None:
    for asked in ("splendor.take.two-needs-four", "take.two-needs-four", "SPLENDOR.TAKE.TWO-NEEDS-FOUR"):
        document = json.loads(invoke("rules", "splendor", asked, "--json").stdout)
        assert document["ok"] is True and document["selected"] == "splendor.take.two-needs-four"
        assert [r["id"] for r in document["rules"]] == ["splendor.take.two-needs-four"]
        assert document["rules"][0]["text"].startswith("Taking 2 of one colour is only allowed")


def test_a_group_is_a_prefix_on_dot_boundaries() -> None:
    take = json.loads(invoke("rules", "splendor", "splendor.take", "--json").stdout)
    ids = [r["id"] for r in take["rules"]]
    assert ids and all(i.startswith("splendor.take.") for i in ids)
    assert ids == [r.id for r in registry.get("splendor").rules if r.id.startswith("splendor.take.")]
    # `splendor.tak` is no group: a prefix ends at a dot
    assert invoke("rules", "splendor", "splendor.tak").exit_code == 1
    shared = json.loads(invoke("rules", "split", "core.void", "--json").stdout)
    assert [r["id"] for r in shared["rules"]] == [r.id for r in SHARED_RULES if r.id.startswith("core.void.")]


def test_core_rules_unknown() -> None:
    done = invoke("rules", "splendor", "tak")
    assert done.exit_code == 1 and done.stdout == "", done
    assert done.stderr.count("\n") == 1 and done.stderr.rstrip().endswith("[core.rules.unknown]")
    assert "splendor.take" in done.stderr, "the closest groups are suggested"
    document = json.loads(invoke("rules", "splendor", "splendor.take.two-need", "--json").stdout)
    assert document["ok"] is False and document["rule"] == "core.rules.unknown" and document["rules"] == []
    assert "splendor.take.two-needs-four" in document["suggestions"]
    assert "splendor.take.two-need" in document["message"]


def test_an_unknown_game_is_a_usage_error() -> None:
    done = invoke("rules", "chess")
    assert done.exit_code == 2 and "unknown game 'chess'" in done.stderr


@pytest.mark.parametrize("game", registry.names())
def test_the_notation_is_printed_with_examples(game: str) -> None:
    spec = registry.get(game)
    done = invoke("rules", game, "--notation")
    assert done.exit_code == 0 and done.stderr == "", done
    text = done.stdout
    for form in spec.notation:
        assert f"\n  {form.form}\n" in text, form.form
        for example in form.examples:
            assert example in " ".join(text.split()), example
    assert "every game also reads:" in text and "MOVE + MOVE" in text
    lines = text.splitlines()
    for form in spec.notation:  # each example on a line of its own, never joined by ` | ` (notation itself)
        if form.examples:
            first = lines.index(f"  {form.form}") + 1 + sum(1 for _ in _meaning_lines(lines, form.form))
            assert lines[first] == f"      e.g. {form.examples[0]}", (form.form, lines[first])
            assert lines[first + 1 : first + len(form.examples)] == [f"           {e}" for e in form.examples[1:]]
    document = json.loads(invoke("rules", game, "--notation", "--json").stdout)
    assert set(document) == {"game", "title", "forms", "shared"}
    assert [f["form"] for f in document["forms"]] == [f.form for f in spec.notation]
    assert document["forms"][0]["examples"] == list(spec.notation[0].examples)


def _meaning_lines(lines: list[str], form: str) -> Iterator[str]:
    """The lines of a form's meaning under its head (indented 6, before its examples)."""
    for line in lines[lines.index(f"  {form}") + 1 :]:
        if not line.startswith("      ") or line.startswith("      e.g. "):
            return
        yield line


def test_notation_takes_no_rule_id() -> None:
    assert invoke("rules", "splendor", "take", "--notation").exit_code == 2


def test_the_rule_text_is_looked_up_by_id_for_every_game_and_the_engine() -> None:
    for spec in registry.specs():
        for rule in spec.rules:
            assert results.rule_text(rule.id) == rule.text
    assert results.rule_text("core.void.last").startswith("Voiding the last effective event is allowed")
    assert results.rule_text("splendor.no-such-rule") == "" and results.rule_text("nogame.x") == ""
    [line] = results.ruling_lines([illegal("split.bonus.pending", "ana must first complete the bonus")])
    assert (line.rule, line.verdict) == ("split.bonus.pending", "illegal") and line.text.startswith(
        "After making a match"
    )


def test_every_kernel_rule_id_has_its_text() -> None:
    from support.rule_ids import rule_ids_used

    shared = {rule.id for rule in SHARED_RULES}
    assert rule_ids_used("core") <= shared, "a rule id of the shared engine without its text in SHARED_RULES"


def test_core_append_stale(tmp_path: Path) -> None:
    # the shared engine's refusal of an append against an older log, with its text like every ruling
    log = tmp_path / "game.jsonl"
    assert invoke("new", "splendor", str(log), "-p", "ana", "-p", "ben", "--seed", "3").exit_code == 0
    assert invoke("move", str(log), "take r g b", "--expect-seq", "2").exit_code == 0
    before = log.read_bytes()
    stale = invoke("move", str(log), "ben: take w b k", "--expect-seq", "2")
    assert stale.exit_code == 1 and stale.stderr.rstrip().endswith("[core.append.stale]"), stale
    assert stale.stdout.startswith("rule core.append.stale: A move, correction or note is recorded only against")
    assert log.read_bytes() == before
    document = json.loads(invoke("move", str(log), "ben: take w b k", "--expect-seq", "2", "--json").stdout)
    assert [(r["rule"], r["text"]) for r in document["rulings"]] == [("core.append.stale", results.rule_text(STALE))]


STALE = "core.append.stale"
