"""The read model: what each command reports, as typed documents the CLI renders and `--json` encodes.

Every field carries its meaning (`msgspec.Meta(description=...)`), from which `docs/cli.md` documents the
keys of each `--json` document (`cli/docs.py`). Everything an interface shows of a game is computed here,
once, from the record service's results: the interfaces call no function of a game themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional, Sequence

import msgspec

from tally.core.model import SHARED_NOTATION, SHARED_RULES, Due, Event, GameSpec, NotationForm, RuleDoc, Ruling
from tally.core.model import Outcome as GameOutcome
from tally.core.views import View
from tally.store.logs import log as logfile
from tally.store.logs.logstore import LogStore
from tally.store.recording.corrections import Correction, preview_text
from tally.store.recording.service import Frame, GameRecord, IllegalLog, MoveResult, Position, UsageError


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


_OUTCOME = "when the move ends the game: `scores`, `winners`, `reason`, `details`; else null"
_OVER = "when the game is over: `scores`, `winners`, `reason`, `details`; else null"


class GameOption(msgspec.Struct):
    key: str
    default: str
    choices: list[str]
    help: str
    minimum: Optional[int] = None  # an integer option's bounds (no `choices`); null for a choice
    maximum: Optional[int] = None


class GameEntry(msgspec.Struct):
    name: str
    title: str
    rules: str
    players: list[int]
    modes: list[str]
    options: list[GameOption]


class GamesReport(msgspec.Struct):
    """`tally games`."""

    games: Annotated[
        list[GameEntry],
        _(
            "one entry per game: `name`, `title`, `rules`, `players` [min, max], `modes`, `options` (`key`, "
            "`default`, `choices`, `help`, and for an integer option its `minimum` and `maximum`)"
        ),
    ]


def games() -> GamesReport:
    from tally.core import registry

    entries = []
    for name in registry.names():
        spec = registry.get(name)
        options = [GameOption(o.key, o.default, list(o.choices), o.help, o.minimum, o.maximum) for o in spec.options]
        entries.append(
            GameEntry(
                spec.name, spec.title, spec.rules_version, [spec.min_seats, spec.max_seats], list(spec.modes), options
            )
        )
    return GamesReport(entries)


class NewReport(msgspec.Struct):
    """`tally new`."""

    log: Annotated[str, _("the log file created")]
    game: Annotated[str, _("the game's name")]
    mode: Annotated[str, _("`open` or `table`")]
    events: Annotated[int, _("how many events were written (`game_started`, plus the deal in open mode)")]
    fingerprint: Annotated[Optional[str], _("SHA-256 of the log's last line")]
    to_act: Annotated[str, _("who must act next")]
    expected: Annotated[str, _("what is expected next, in words")]


def new_report(log: Path | str, game: str, result: MoveResult) -> NewReport:
    mode = getattr(result.events[0], "mode", "")
    return NewReport(str(log), game, mode, len(result.events), result.fingerprint, *result.to_act)


class EventLine(msgspec.Struct):
    seq: int
    type: str
    text: str


class RulingLine(msgspec.Struct):
    rule: str
    text: str  # the rule's English text (`tally rules GAME ID`); empty for an id no rules list holds
    verdict: str
    message: str


_TEXTS: dict[str, dict[str, str]] = {}  # game (or `core`) -> rule id -> text, read once per process


def rule_text(rule: str) -> str:
    """The English text of a rule id: a game's (`splendor.take.two`, from its `RULES`) or the shared engine's
    (`core.void.last`); empty when no list holds it. Looked up here, once, for every interface that shows a
    ruling; never on the fold (`tally check` judges without it)."""
    owner = rule.split(".", 1)[0]
    texts = _TEXTS.get(owner)
    if texts is None:
        texts = _TEXTS[owner] = {doc.id: doc.text for doc in _rules_of(owner)}
    return texts.get(rule, "")


def _rules_of(owner: str) -> tuple[RuleDoc, ...]:
    from tally.core import registry

    if owner == "core":
        return SHARED_RULES
    return registry.get(owner).rules if owner in registry.names() else ()


def ruling_lines(rulings: Sequence[Ruling]) -> list[RulingLine]:
    """Rulings as every interface shows them: each with its rule's text."""
    return [RulingLine(r.rule, rule_text(r.rule), r.verdict, r.message) for r in rulings]


class MoveReport(msgspec.Struct):
    """`tally move`, `rule` and `undo`: a move judged (and recorded, unless it was a question)."""

    accepted: Annotated[
        bool, _("true when the move is legal or unverifiable: `move` and `undo` recorded it, `rule` only judged it")
    ]
    move: Annotated[str, _("the move text as given")]
    verdict: Annotated[
        str, _("`legal`, `unverifiable` (legal as far as the log can tell), `illegal` or `unreadable` (bad notation)")
    ]
    events: Annotated[
        list[EventLine],
        _("the events the move is (empty unless accepted): `seq`, `type`, `text` (the event in notation)"),
    ]
    rulings: Annotated[
        list[RulingLine],
        _(
            "`rule`, `text` (the rule's English text), `verdict`, `message` for each ruling: the rule that permits "
            "it, or every rule that forbids it (the first decides the verdict), and any unverifiable note"
        ),
    ]
    notation_error: Annotated[
        Optional[str], _("for `unreadable`: what could not be read and what would have been valid; else null")
    ]
    notation_kind: Annotated[
        Optional[str],
        _(
            "for `unreadable`: `invalid`, `ambiguous` (fits several moves) or `unknown` (a name or code the game does not know); else null"
        ),
    ]
    fingerprint: Annotated[
        Optional[str], _("SHA-256 of the log's last line after recording (null when nothing was recorded)")
    ]
    seq: Annotated[
        int, _("the seq the (first) event has or would have; for a refused part of a ` + ` line, that part's")
    ]
    to_act: Annotated[
        str, _("who must act next (after the move when accepted): a player, `table` (a reveal is due) or `nobody`")
    ]
    expected: Annotated[str, _("what is expected next, in words")]
    consequences: Annotated[
        list[str],
        _(
            "what follows from the move without being an event (a noble's visit, the end of a round or of the game), in words"
        ),
    ]
    outcome: Annotated[Optional[GameOutcome], _(_OUTCOME)]


def verdict(result: MoveResult) -> str:
    if result.notation is not None:
        return "unreadable"
    if not result.accepted:
        return "illegal"
    return "unverifiable" if any(r.verdict == "unverifiable" for r in result.rulings) else "legal"


def move_report(result: MoveResult) -> MoveReport:
    events = (
        [
            EventLine(e.seq or result.seq + i, str(type(e).__struct_config__.tag), text)
            for i, (e, text) in enumerate(zip(result.events, result.lines))
        ]
        if result.accepted
        else []
    )
    return MoveReport(
        result.accepted,
        result.text,
        verdict(result),
        events,
        ruling_lines(result.rulings),
        result.notation.render() if result.notation else None,
        result.notation_kind,
        result.fingerprint,
        result.seq,
        result.to_act[0],
        result.to_act[1],
        list(result.consequences),
        result.ending,
    )


class PreviewReport(msgspec.Struct):
    """A correction's preview (`POST .../undo` or `.../amend` with `preview`): what it would take back and put in its
    place, judged exactly as the correction itself would be; nothing is recorded."""

    preview: Annotated[
        str,
        _(
            "what it would do, in words: `this voids #41 reveal 1w0-b2k2, entered by ana`, `this replaces #29 "
            "ben: take w b r, entered by ben, with ben: take w b k`"
        ),
    ]
    corrections: Annotated[
        list[Correction],
        _(
            "each event it would take back or replace: `target`, `old` and `new` in notation, "
            "`by` the seat whose device entered it (null: the host or a terminal)"
        ),
    ]
    seq: Annotated[int, _("the log's last seq it was judged at")]
    to_act: Annotated[str, _("who would act after it")]
    expected: Annotated[str, _("what would be expected after it, in words")]


def preview_report(result: MoveResult, seq: int) -> PreviewReport:
    return PreviewReport(preview_text(result.corrections), list(result.corrections), seq, *result.to_act)


class NoteReport(msgspec.Struct):
    """`tally note`."""

    seq: Annotated[int, _("the seq of the note")]
    fingerprint: Annotated[Optional[str], _("SHA-256 of the log's new last line")]


class ListingReport(msgspec.Struct):
    """`tally moves`: the legal moves at a position, numbered from 1 in the game's fixed order."""

    seq: Annotated[int, _("the position: after this event")]
    to_act: Annotated[str, _("who must act")]
    expected: Annotated[str, _("what is expected, in words")]
    moves: Annotated[list[str], _("every legal move in notation, in the game's fixed order")]
    waiting_on: Annotated[
        list[str],
        _(
            "the seats the table waits on: the seat to act, or every seat still to name its own hidden cards (in any "
            "order, each from its own device); empty when the table or nobody acts"
        ),
    ]
    owed: Annotated[
        list[Due],
        _(
            "who owes what now (the game's `owed`, on the table as the caller knows it), one entry per "
            "debt: `seat` (a seat, or `table` for an entry of the table's), `what` (in words), "
            "`form` (the game's notation form that writes it where no listed move can, `PLAYER: hand "
            "CARDS`; null where the listed moves make it) and `by` (for the table's entry, the seat "
            "whose device is asked to make it, the dealer; null: any seat's)"
        ),
    ] = []


class CheckWarning(msgspec.Struct):
    seq: int
    rule: str
    message: str

    def __getitem__(self, key: str) -> Any:
        """Read as the mapping `record.check` reported before its results were typed (`w["rule"]`)."""
        if key not in self.__struct_fields__:
            raise KeyError(key)
        return getattr(self, key)


class CheckReport(msgspec.Struct):
    """`tally check`: integrity, then every event judged."""

    ok: Annotated[bool, _("true when every line is intact and every event legal")]
    game: Annotated[str, _("the game's name")]
    events: Annotated[int, _("how many events the log holds")]
    fingerprint: Annotated[str, _("SHA-256 of the last line: any later edit anywhere changes it")]
    seq: Annotated[Optional[int], _("the first illegal event, or null")] = None
    rule: Annotated[Optional[str], _("the rule it breaks, or null")] = None
    message: Annotated[Optional[str], _("what is wrong, or null")] = None
    text: Annotated[
        Optional[str], _("the English text of the rule it breaks (as `tally rules GAME ID` prints it), or null")
    ] = None
    warnings: Annotated[
        list[CheckWarning],
        _("unverifiable events, and `at` times that go backwards (`log.at-backwards`): `seq`, `rule`, `message`"),
    ] = []
    outcome: Annotated[Optional[GameOutcome], _(_OVER)] = None


def check(path: Path | str | LogStore, anchors: Sequence[tuple[int, str]] = ()) -> CheckReport:
    """Integrity (reading the log once), the anchors written down at the table (`(seq, fingerprint prefix)`: a
    `LogError` `log.anchor` when one no longer holds), then every event judged; the first illegal one stops it.
    `at` times that go backwards are warnings (`log.at-backwards`) after the unverifiable events."""
    from tally.core.engine import judge
    from tally.store.logs import anchors as anchoring
    from tally.store.logs.logstore import read_log

    log = read_log(path)
    for seq, prefix in anchors:
        broken = anchoring.check_anchor(log, seq, prefix)
        if broken is not None:
            raise broken
    judgement, table = judge(log.spec, log.events, undoable=False)  # only the end state is read
    warnings = [CheckWarning(seq, r.rule, r.message) for seq, r in judgement.warnings]
    warnings += [CheckWarning(seq, "log.at-backwards", why) for seq, why in anchoring.clock_warnings(log)]
    if not judgement.ok:
        first = judgement.rulings[0]
        return CheckReport(
            False,
            log.spec.name,
            len(log.events),
            log.fingerprint,
            judgement.failed_seq,
            first.rule,
            first.message,
            rule_text(first.rule) or None,
            warnings,
        )
    return CheckReport(
        True, log.spec.name, len(log.events), log.fingerprint, warnings=warnings, outcome=log.spec.outcome(table.state)
    )


class ReplayStep(msgspec.Struct):
    seq: int
    type: str
    text: str
    to_act: str
    voided: bool


class FinalScores(msgspec.Struct):
    scores: dict[str, int]
    winners: list[str]
    reason: str

    def scores_line(self) -> str:
        return GameOutcome(self.scores, self.winners, self.reason).scores_line()


class ReplayReport(msgspec.Struct):
    """`tally replay`: every event in notation, then the table and the result."""

    seq: Annotated[int, _("the last event replayed")]
    steps: Annotated[list[ReplayStep], _("per event: `seq`, `type`, `text` (in notation), `to_act` after it, `voided`")]
    state: Annotated[View, _("the table after the last event (as `tally state --json`)")]
    outcome: Annotated[Optional[FinalScores], _("`scores`, `winners`, `reason` when the game is over, else null")]


def replay_report(pos: Position, frames: list[Frame]) -> ReplayReport:
    spec, state = pos.spec, pos.table.state
    result = spec.outcome(state)
    steps = [ReplayStep(f.seq, f.type, f.text, spec.to_act(f.state)[0], f.voided) for f in frames]
    final = FinalScores(result.scores, result.winners, result.reason) if result else None
    view = placed(spec.view(state, None), pos.seq, pos.log.fingerprint_at(pos.seq))
    return ReplayReport(pos.seq, steps, view, final)


class RepairReport(msgspec.Struct):
    """`tally repair`."""

    log: Annotated[str, _("the repaired log")]
    torn_bytes: Annotated[int, _("how many bytes were cut off: the torn last line, and the lines of a unit cut short")]
    saved_to: Annotated[str, _("the side file that keeps them")]
    removed: Annotated[
        bool, _("true when nothing was intact (the first command was cut short) and the log was removed")
    ]
    kept_lines: Annotated[int, _("how many lines were kept: every one verifies from line 1")] = 0
    why: Annotated[
        str,
        _(
            "the id of the torn end: `log.torn-tail`, `log.torn-unit` or `log.zero-block`; `log.nothing-to-repair` "
            "for a log that verifies to its end (exit 2: nothing moved, every line kept)"
        ),
    ] = ""


class SimulateReport(msgspec.Struct):
    """`tally simulate`."""

    game: Annotated[str, _("the game's name")]
    games: Annotated[int, _("how many games were played")]
    events: Annotated[int, _("events written in all")]
    moves: Annotated[int, _("moves played in all")]
    finished: Annotated[int, _("games that reached their end")]
    wins_by_seat: Annotated[
        dict[str, int],
        _(
            "wins per seat, by the name the logs give it (`p1` is the first seat, `p2` the second, ...); a shared victory counts for each winner"
        ),
    ]
    out: Annotated[str, _("the folder of the logs")]


class IllegalLogReport(msgspec.Struct):
    """With --json, a command that stops on a log holding an illegal event prints this (exit 1)."""

    ok: Annotated[bool, _("false")]
    seq: Annotated[int, _("the event in the log that a rule forbids")]
    rule: Annotated[str, _("the rule id")]
    message: Annotated[str, _("what is wrong")]


def illegal_log_report(error: IllegalLog) -> IllegalLogReport:
    return IllegalLogReport(False, error.seq, error.ruling.rule, error.ruling.message)


class DamagedLogReport(msgspec.Struct):
    """With --json, a command that stops on a damaged log prints this (exit 3)."""

    ok: Annotated[bool, _("false")]
    error: Annotated[str, _("`damaged`")]
    events: Annotated[None, _("null: the log could not be read")]
    fingerprint: Annotated[None, _("null")]
    seq: Annotated[Optional[int], _("the line where the damage is, or null")]
    rule: Annotated[
        str,
        _(
            "the reading rule the log breaks (`docs/format.md` §6), as `log.` and its name; `log.damaged` when no one rule applies"
        ),
    ]
    line: Annotated[
        Optional[int], _("the line number where the damage is; null when no line applies, e.g. a missing or empty file")
    ]
    message: Annotated[str, _("what was expected")]


def damaged_log_report(error: logfile.LogError) -> DamagedLogReport:
    rule = getattr(error, "rule", None) or "log.damaged"
    return DamagedLogReport(False, "damaged", None, None, error.line, rule, error.line, error.message)


# --------------------------------------------------------------------------- what a board shows


class Board(msgspec.Struct):
    """What an interface draws of a position: the game's view, and what is due next in words."""

    view: View  # its `seq` and `fingerprint` set (`placed`)
    seq: int
    scores_line: Optional[str]  # the result, once the game is over
    pending: Optional[str]  # an obligation to settle before play goes on
    to_act: str
    expected: str


def board(record: GameRecord | Position, viewer: str | None = None) -> Board:
    """The table at a fold (a record service's, or a position's) as `viewer` may see it."""
    if isinstance(record, Position):
        return board_at(record.spec, record.table.state, record.seq, record.log.fingerprint_at(record.seq), viewer)
    return board_at(record.spec, record.state, record.seq, record.last_hash, viewer)


def frame_board(pos: Position, frame: Frame, viewer: str | None = None) -> Board:
    """The table after one step of a replay (`replay --step`, the session's `step`)."""
    return board_at(pos.spec, frame.state, frame.seq, pos.log.fingerprint_at(frame.seq), viewer)


def placed(view: View, seq: int, fingerprint: str | None) -> View:
    """A game's view at a position of its log: `seq` and `fingerprint` set, so that its JSON ends with them (after
    the game's own keys, as it always has) and a board's heading shows them."""
    struct: Any = view  # a Struct (every game's view is one), which the protocol `View` cannot say
    return msgspec.structs.replace(struct, seq=seq, fingerprint=fingerprint)


def board_at(spec: GameSpec, state: Any, seq: int, fingerprint: str | None, viewer: str | None = None) -> Board:
    view = placed(spec.view(state, viewer), seq, fingerprint)
    ended = spec.outcome(state)
    who, what = spec.to_act(state)
    return Board(view, seq, ended.scores_line() if ended else None, spec.pending(state), who, what)


def seat_for(seats: list[str], name: str) -> str:
    """The seat a name means (any case when only one player has it); UsageError when none."""
    from tally.core.notation import seat_named

    named = seat_named(name, seats)
    if named is None:
        from tally.core.text import quote

        raise UsageError(f"no player {quote(name)} (players: {', '.join(seats)})")
    return named


def listing(record: GameRecord) -> ListingReport:
    """The legal moves of a record service's fold, numbered as a move number selects them."""
    return numbered(record.spec, record.state, record.seq)


def numbered(
    spec: GameSpec, state: Any, seq: int, legal: list[Event] | None = None, viewer: str | None = None
) -> ListingReport:
    """The legal moves at a state (after event `seq`) in notation, numbered as a move number selects them, and who
    owes what, worked out on the table as `viewer` knows it (a seat, `secrecy.WATCHER`; None: as the log knows it),
    so that it tells a seat nothing of another seat's hidden cards."""
    who, what = spec.to_act(state)
    moves = spec.legal_moves(state) if legal is None else legal
    known = state if viewer is None else spec.conceal(state, viewer)
    return ListingReport(
        seq, who, what, [spec.format(m) for m in moves], list(spec.waiting_on(state)), list(spec.owed(known))
    )


# --------------------------------------------------------------------------- a game's rules and notation

UNKNOWN_RULE = "core.rules.unknown"


class RuleEntry(msgspec.Struct):
    id: str
    text: str


class RulesReport(msgspec.Struct):
    """`tally rules GAME [ID-OR-PREFIX]`: the game's rules with their English text."""

    ok: Annotated[bool, _("false when no rule has the id or group asked for (exit 1)")]
    game: Annotated[str, _("the game's name")]
    title: Annotated[str, _("the name people use")]
    rules_version: Annotated[str, _("the rules version the rulings follow")]
    selected: Annotated[Optional[str], _("the id or group asked for, as the game's ids spell it; null for every rule")]
    rules: Annotated[
        list[RuleEntry],
        _(
            "`id`, `text` for each rule selected, in the game's order (every rule of the game, then the shared engine's `core.*` ones)"
        ),
    ]
    rule: Annotated[Optional[str], _("for a refusal: `core.rules.unknown`; else null")] = None
    message: Annotated[Optional[str], _("for a refusal: what was not found; else null")] = None
    suggestions: Annotated[list[str], _("for a refusal: the closest ids and groups")] = []


def _selects(rule: str, selector: str) -> bool:
    """A selector names a rule or a group on dot boundaries: `splendor.take` holds `splendor.take.two`."""
    return rule == selector or rule.startswith(selector + ".")


def rules_report(game: str, selector: str | None = None) -> RulesReport:
    """The rules of `game` (an unknown game: UsageError), all or those `selector` names: an id or a group of
    ids (a prefix ending at a dot), with or without the game's name in front. None selected is a refusal
    (`core.rules.unknown`) with the closest ids and groups."""
    from difflib import get_close_matches

    from tally.core import registry

    try:
        spec = registry.get(game)
    except registry.UnknownGame as error:
        raise UsageError(str(error)) from None
    every = [*spec.rules, *SHARED_RULES]
    if selector is None:
        return RulesReport(
            True, spec.name, spec.title, spec.rules_version, None, [RuleEntry(r.id, r.text) for r in every]
        )
    asked = selector.strip().lower().rstrip(".")
    for candidate in (asked, f"{spec.name}.{asked}"):
        chosen = [RuleEntry(r.id, r.text) for r in every if candidate and _selects(r.id, candidate)]
        if chosen:
            return RulesReport(True, spec.name, spec.title, spec.rules_version, candidate, chosen)
    groups = sorted({r.id.rsplit(".", 1)[0] for r in every} | {r.id for r in every})
    near = get_close_matches(asked, groups, n=6, cutoff=0.6) or get_close_matches(
        f"{spec.name}.{asked}", groups, n=6, cutoff=0.6
    )
    from tally.core.text import quote

    hint = f"; did you mean {', '.join(near)}?" if near else f"; `tally rules {spec.name}` lists them"
    return RulesReport(
        False,
        spec.name,
        spec.title,
        spec.rules_version,
        None,
        [],
        UNKNOWN_RULE,
        f"{spec.title} has no rule or group of rules {quote(selector)}{hint}",
        near,
    )


class NotationEntry(msgspec.Struct):
    form: str
    meaning: str
    examples: list[str]


class NotationReport(msgspec.Struct):
    """`tally rules GAME --notation`: how moves are written."""

    game: Annotated[str, _("the game's name")]
    title: Annotated[str, _("the name people use")]
    forms: Annotated[
        list[NotationEntry],
        _("the game's own forms: `form` (how it is written), `meaning`, `examples` (each one a move the game reads)"),
    ]
    shared: Annotated[
        list[NotationEntry],
        _(
            "what every game's notation accepts besides: a player's prefix, a move's number in `tally moves`, moves joined by ` + `"
        ),
    ]


def _entries(forms: Sequence[NotationForm]) -> list[NotationEntry]:
    return [NotationEntry(f.form, f.meaning, list(f.examples)) for f in forms]


def notation_report(game: str) -> NotationReport:
    from tally.core import registry

    try:
        spec = registry.get(game)
    except registry.UnknownGame as error:
        raise UsageError(str(error)) from None
    return NotationReport(spec.name, spec.title, _entries(spec.notation), _entries(SHARED_NOTATION))
