"""The shared vocabulary of every game: events, rulings, options, and the game contract.

Pure: no I/O, clock or randomness. Events are facts in the past tense; the envelope
fields (seq, at, prev) live on every event so that one typed decode of a log line
yields the whole record. Reducers never read the envelope.

Annotations here (and in each game's `events.py`) are real types, not postponed strings: msgspec reads a Struct's
annotations, its bases' included, as it builds a log's decoder, and compiles each string it finds, for every event
kind again (the envelope's six fields alone: 144 compiles for Splice). `tally check` of fixtures/games/splice-open-4p
took 11.3 M instructions fewer, of splendor-4p 5.4 M (bench/bench_instructions.py). A name defined later, or only for
the type checker, is quoted.
"""

from collections.abc import Sequence
from importlib import import_module
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Generic, Literal, TypeVar

import msgspec

from .names import check_names
from .text import quote

if TYPE_CHECKING:  # core/views.py reads `Outcome` from here: the bound below is for the type checker alone
    from .naming import Naming, Piece
    from .views import View

Verdict = Literal["legal", "illegal", "unverifiable"]
Mode = Literal["open", "table"]
# what is wrong with a move's text: `ambiguous` (a prefix or form that matches several things), `unknown` (a name or
# code the game does not know), `invalid` (anything else); callers decide by this, never by a message's words
NotationKind = Literal["invalid", "ambiguous", "unknown"]


class Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True, omit_defaults=True, gc=False):
    """Base of every event. `seq`, `at`, `prev`, `unit` and `salt` are the log envelope (docs/format.md): `unit`
    is set on the first of several lines appended by one command, to how many they are, so that a reader
    can tell a whole append from one a power cut stopped at a line boundary; `salt` is random hex that the
    record service (store/, never core) puts on a line holding what some seat may not see, so that the hash of
    that line, which every seat is shown as the fingerprint, cannot be matched by trying each card it could hold.
    `by` names the seat whose device entered the line (`tally serve`), absent when the host or a terminal did: who
    entered a table's entry (a reveal, a deal) is told by nothing else, and a seat takes back only its own."""

    seq: int = 0
    at: str = ""
    prev: str | None = None
    unit: int = 1
    salt: str | None = None
    by: str | None = None


class GameStarted(Event, tag="game_started", frozen=True, kw_only=True):
    """Line 1 of every log. Every field but `seated` is required, so every log states them all (no silent defaults).

    `manifest` is the id of a component manifest the game knows, or a whole manifest inline (an object
    read from a manifest file at `tally new`), so the log always says which components judged it.
    `seated` (table mode only, default none) names the seats that enter their own hidden cards (hand, draws,
    blind reserves): the log knows those cards, judges those seats' moves in full, and refuses an event that
    leaves one of them unnamed (`core.seat.unnamed`); every other seat's hidden cards stay unknown.
    """

    game: str
    rules: str
    seats: list[str]
    mode: Mode
    options: dict[str, str]
    manifest: str | dict[str, Any]
    seated: list[str] = []
    simulated: bool = False


class Voided(Event, tag="voided", frozen=True):
    """The event at `target` did not happen (an undo). Only the last effective event may be voided."""

    target: int = 0
    reason: str = ""


class Amended(Event, tag="amended", frozen=True):
    """A correction of any past effective game event: the event at `target` is replaced by `events` (game
    events without their envelope, each the JSON of the game's own encoding, decoded by the fold that knows
    the game), or with no `events` did not happen. Every later effective event is judged again after it;
    the correction is legal only if they all still are."""

    target: int = 0
    reason: str = ""
    events: list[msgspec.Raw] = []


class Noted(Event, tag="noted", frozen=True):
    """A free remark for the record; it changes nothing."""

    text: str = ""
    player: str | None = None


SHARED_EVENTS: tuple[type[Event], ...] = (GameStarted, Voided, Noted, Amended)


class Ruling(msgspec.Struct, frozen=True):
    """A judgement on one event: which rule, what verdict, what happened, and the facts behind it."""

    rule: str
    verdict: Verdict
    message: str
    facts: dict[str, Any] = {}

    def render(self) -> str:
        return f"{self.message} [{self.rule}]"


def illegal(rule: str, message: str, **facts: Any) -> Ruling:
    return Ruling(rule, "illegal", message, facts)


def legal(rule: str, message: str, **facts: Any) -> Ruling:
    return Ruling(rule, "legal", message, facts)


def unverifiable(rule: str, message: str, **facts: Any) -> Ruling:
    return Ruling(rule, "unverifiable", message, facts)


class NotationError(msgspec.Struct, frozen=True):
    """Text that is not a move in the game's notation; `expected` lists what would have been valid."""

    text: str
    message: str
    expected: list[str] = []
    kind: NotationKind = "invalid"

    def render(self) -> str:
        hint = ""
        if self.expected:
            shown = self.expected[:12]
            more = f" (and {len(self.expected) - len(shown)} more)" if len(self.expected) > len(shown) else ""
            hint = "; expected one of: " + ", ".join(shown) + more
        return f"cannot read {quote(self.text, 80)}: {self.message}{hint}"


class Option(msgspec.Struct, frozen=True):
    """A named variant option: a rule-text ambiguity or a house rule, with its documented default."""

    key: str
    default: str
    choices: tuple[str, ...] = ()  # empty: any integer within bounds
    minimum: int | None = None
    maximum: int | None = None
    help: str = ""

    def check(self, value: str) -> str | None:
        """None when `value` is acceptable, else what was expected."""
        if self.choices:
            return None if value in self.choices else f"one of {', '.join(self.choices)}"
        digits = value[1:] if value[:1] == "-" else value
        if not (digits.isascii() and digits.isdigit() and len(digits) <= 9 and value == str(int(value))):
            bounds = (
                f" from {self.minimum} to {self.maximum}"
                if self.minimum is not None and self.maximum is not None
                else ""
            )
            return f"an integer{bounds}, written in digits 0-9"
        number = int(value)
        if self.minimum is not None and number < self.minimum:
            return f"an integer >= {self.minimum}"
        if self.maximum is not None and number > self.maximum:
            return f"an integer <= {self.maximum}"
        return None


class RuleDoc(msgspec.Struct, frozen=True):
    """A rule id with its English text, for docs and for checking that every id is documented."""

    id: str
    text: str


class NotationForm(msgspec.Struct, frozen=True):
    """One form of a game's move notation, as `tally rules GAME --notation` prints it and the notation table of
    `docs/rules/<game>.md` documents it: how it is written (`take TOKENS`), what it means, and examples, every
    one of which the game's `parse` reads."""

    form: str
    meaning: str
    examples: tuple[str, ...]


# what every game's notation accepts besides its own forms (store's move reading, docs/cli.md)
SHARED_NOTATION: tuple[NotationForm, ...] = (
    NotationForm(
        "PLAYER: MOVE",
        "the move of that player (a seat's name, in any case when only one seat has it); "
        "without it, the move of the player who must act now",
        (),
    ),
    NotationForm("N", "the move numbered N in the `tally moves` listing", ("3",)),
    NotationForm(
        "MOVE + MOVE",
        "several moves judged in order and recorded together or not at all, such as a move and the chance it makes due",
        (),
    ),
)


# the rules of the shared engine, cited by every game's rulings (docs/rules/<game>.md, "Shared rulings")
SHARED_RULES: tuple[RuleDoc, ...] = (
    RuleDoc("core.log.one-start", "A game starts once: `game_started` may only be the first event."),
    RuleDoc("core.void.nothing", "There is nothing to void before the first game event."),
    RuleDoc(
        "core.void.last-only",
        "Only the last effective game event can be voided; void back one event at a time "
        "(an earlier one is corrected with `tally undo --event` or `tally amend`).",
    ),
    RuleDoc("core.void.reason", "A void needs a reason."),
    RuleDoc(
        "core.void.dealt",
        "Chance that tally dealt itself (open mode) is recorded as data: it cannot be voided or "
        "corrected. In table mode a mistyped entry can be voided like any event.",
    ),
    RuleDoc("core.void.last", "Voiding the last effective event is allowed: the state is as if it never happened."),
    RuleDoc(
        "core.amend",
        "Any past effective game event may be corrected (replaced, or voided) when every later "
        "effective event is still legal after the correction.",
    ),
    RuleDoc(
        "core.amend.not-effective",
        "Only an effective game event can be corrected: not a note, a correction, or "
        "an event already voided or replaced.",
    ),
    RuleDoc("core.amend.reason", "A correction needs a reason."),
    RuleDoc("core.amend.dealt", "Chance that tally dealt itself (open mode) cannot be corrected."),
    RuleDoc("core.amend.event", "A correction holds events of the game, each as tally writes it (canonical form)."),
    RuleDoc("core.amend.illegal", "The events a correction puts in place of its target must be legal there."),
    RuleDoc(
        "core.amend.breaks-later",
        "A correction is refused when it would make a later effective event illegal; the first such event is named.",
    ),
    RuleDoc("core.note", "A free note is always allowed; it changes nothing."),
    RuleDoc("core.note.player", "A note that names a player must name one at the table."),
    RuleDoc(
        "core.append.stale",
        "A move, correction or note is recorded only against the log its author last saw "
        "(its seq, fingerprint or move listing); when the log has moved on, nothing is recorded.",
    ),
    RuleDoc(
        "core.rules.unknown",
        "A rule id or group asked for must be one of the game's: `tally rules GAME` lists them all.",
    ),
    RuleDoc(
        "core.seat.unnamed",
        "A seat that enters its own hidden cards (`tally new --as`) names every one of them "
        "as it comes: its dealt hand, its draws, what it takes blind; an event that leaves one unnamed is refused.",
    ),
    RuleDoc(
        "core.seat.hand-owed",
        "A deal in table mode may leave a seated seat's hand unnamed: that seat then names "
        "its own dealt hand (`ana: hand CARD ...`), in any order, from its own device; until every such seat has, "
        "no other move is made.",
    ),
    RuleDoc(
        "core.seat.hand-not-owed",
        "Only a seated seat whose dealt hand the deal left unnamed names it, and only "
        "once: a seat names no other seat's hand.",
    ),
    RuleDoc(
        "core.seat.other",
        "A seat's device (`tally serve`) records only that seat's own moves and the table's "
        "entries (a reveal, a deal), and takes back or corrects only its own: its moves and the entries it entered "
        "itself, never another seat's; its plain undo takes back its own last one. The host may record and correct any.",
    ),
    RuleDoc(
        "core.seat.others-secret",
        "A seat's device enters the table's entries, but none that names another seat's "
        "hidden cards (a deal naming every hand, the disks every seat drew): each seat names its own, from its own "
        "device.",
    ),
    RuleDoc(
        "core.seat.conflict",
        "A seat's move is judged on what that seat knows: the public record and its own "
        "entries. A move legal there that another seat's hidden entries forbid (a card cannot be in two places) is "
        "not recorded: one of them mistyped. The seat is told only that, never whose entry or where; the host sees "
        "both.",
    ),
    RuleDoc(
        "core.seat.as-made",
        "In an open game a seat names only what it can see: a move whose other part only the move itself shows the "
        "table (Splice's trade: who holds the colour called) is entered without that part, as the seat's listing "
        "offers it (`trade red`), and tally fills it in. Named by the seat, it is refused whether it is right or "
        "wrong, so that the answer cannot tell the seat where the hidden thing is.",
    ),
    RuleDoc(
        "core.chain.crosses-turn",
        "Moves joined by ` + ` on one line belong to one player's turn: a part that "
        "would be another player's move is refused unless it names its player (`ben: draw`).",
    ),
)


class Outcome(msgspec.Struct, frozen=True):
    """How a finished game ended: score per seat, winners (several on a shared victory), why in words, and
    `ended`: what ended it, as a short code the game documents (Splendor: `target`, `stalled`, `stuck`)."""

    scores: dict[str, int]
    winners: list[str]
    reason: str
    details: dict[str, Any] = {}
    ended: str = ""

    def scores_line(self) -> str:
        """`scores: ana 15, ben 11; winner: ana` (`winners:` on a shared victory)."""
        scores = ", ".join(f"{name} {score}" for name, score in self.scores.items())
        return f"scores: {scores}; {'winners' if len(self.winners) > 1 else 'winner'}: {', '.join(self.winners)}"


TABLE = "table"  # `to_act`'s word for the table: chance, a deal, a reveal that no one seat's turn owes
NOBODY = "nobody"  # `to_act`'s word once no one is to act (the game is over)


class Due(msgspec.Struct, frozen=True, kw_only=True):
    """One thing the table waits for now (a game's `owed`): who owes it, what, and how it is written.

    `seat` is the seat that owes it, or `table` for an entry of the table's (a deal, the starting card, a reveal),
    which `by` names the seat whose device is asked to make it (the dealer; None: any seat's). `what` says what is
    owed in words that read the same on every device ("the dealt hand (9 cards)"). `form` is the game's documented
    notation form to type it in (one of its `NOTATION` forms, `PLAYER: hand CARDS`) where the listed moves may not
    hold it (a hand of nine cards, or cards a seat draws, have too many sets to list); None where the listed moves
    are the way to make it."""

    seat: str
    what: str
    form: str | None = None
    by: str | None = None


def turn_dues(acting: tuple[str, str], waiting: Sequence[str]) -> tuple[Due, ...]:
    """What is owed in an ordinary step of a game (GameSpec's default `owed`): each seat of `waiting` (the game's
    `waiting_on`) owes what `acting` (its `to_act`) says, moves listed; the table owes it when the table acts (any
    seat's device); nothing once nobody acts."""
    who, what = acting
    if who == NOBODY:
        return ()
    if who == TABLE:
        return (Due(seat=TABLE, what=what),)
    return tuple(Due(seat=seat, what=what) for seat in waiting)


def resolve_options(options: tuple[Option, ...], given: dict[str, str]) -> dict[str, str]:
    """Every option's value: the one given, else its documented default."""
    return {opt.key: given.get(opt.key, opt.default) for opt in options}


def check_seated(started: GameStarted) -> list[str]:
    """Problems with `seated`: each a seat of the game, named once, and only in table mode (in open mode the log
    knows every card already)."""
    if not started.seated:
        return []
    problems = []
    if started.mode != "table":
        problems.append("seated: seats enter their own hidden cards only in table mode (in open mode tally deals them)")
    strangers = [name for name in started.seated if name not in started.seats]
    if strangers:
        problems.append(
            f"seated: {', '.join(quote(name) for name in strangers)} not among the seats ({', '.join(started.seats)})"
        )
    if len(set(started.seated)) != len(started.seated):
        problems.append("seated: a seat is named twice")
    return problems


S = TypeVar("S")  # a game's state class
V = TypeVar("V", bound="View")  # a game's view class: a msgspec Struct with every key `core.views.View` names


class GameSpec(Generic[S, V]):
    """The contract every game fulfils: one instance per game, exposed as `SPEC` by its package
    `core/games/<game>/` and listed in `core.registry` (docs/architecture.md lists every member).

    A game subclasses this, states its own members (name, title, seats, options, events, ...), binds each
    function of the contract to the function of its module where `BINDINGS` says it lives
    (`check = staticmethod(rules.check)`), so a reader and the type checker see the binding, and decorates the
    class with `bound(__name__)` for the members recording a move never needs (`LATE`), read on first use.
    `apply` trusts its input like python-chess's `Board.push`;
    `check` returns the rulings that forbid an event in a fixed guard order (empty when legal);
    `permit` names the rule that allows it. `S` is the game's state class and `V` its view's
    (`GameSpec[State, SplendorView]`): `picture` draws what `view` returns.
    """

    name: ClassVar[str]
    title: ClassVar[str]
    bgg_id: ClassVar[int | None] = None  # the game's id on BoardGameGeek, where it has one (a BG Stats play names it)
    rules_version: ClassVar[str]
    manifest: ClassVar[str]
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    modes: ClassVar[tuple[str, ...]] = ("open", "table")
    options: ClassVar[tuple[Option, ...]] = ()
    events: ClassVar[tuple[type[Event], ...]] = ()
    state_type: ClassVar[type]
    rules: ClassVar[tuple[RuleDoc, ...]] = ()
    notation: ClassVar[tuple[NotationForm, ...]] = ()
    history: ClassVar[Any]  # core.history.History: the game's tables in the history library
    # (event type, old version) -> function from the old line's dict to the next version's dict
    upcasters: ClassVar[dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]]] = {}

    # each member below is a plain function of the game's modules (a staticmethod on the subclass)

    def start(self, started: GameStarted) -> S:
        """The state before any move, options resolved and frozen into it (reducer)."""
        raise NotImplementedError

    def check(self, state: S, event: Event) -> list[Ruling]:
        """The rulings that forbid `event` now, in a fixed guard order; empty when legal (rules)."""
        raise NotImplementedError

    def permit(self, state: S, event: Event) -> Ruling:
        """The ruling that allows a legal event: which rule permits it (rules)."""
        raise NotImplementedError

    def is_voidable(self, event: Event) -> bool:
        """Whether `tally undo` may void this event: a deal tally made itself may not be taken back (rules).
        Default: every event (a game that deals nothing)."""
        return True

    def is_revealed_as_made(self, event: Event) -> bool:
        """Whether a seat may make `event` without naming all of it, in an open game: the part only the whole table
        knows is made public by the move itself as it is made, and tally, knowing every card, fills it in (rules).
        Splice's trade: the seat calls out a colour, and whoever holds that disk hands it over. Default: no event."""
        return False

    def apply(self, state: S, event: Event) -> S:
        """The state after a checked event; trusts its input (reducer)."""
        raise NotImplementedError

    def legal_moves(self, state: S) -> list[Event]:
        """Every legal move now, in a deterministic order, chance the table must enter included (moves)."""
        raise NotImplementedError

    def pick_move(self, state: S, below: Callable[[int], int]) -> Event | None:
        """`legal_moves(state)[below(n)]` for the n legal moves, built alone: `below` is called once, only when some
        move is legal, and None is returned when none is; a playout's draw, without building the moves it skips
        (moves). Default: drawn from the whole listing (`pick_listed`)."""
        return pick_listed(self.legal_moves(state), below)

    # A whole playout from `started`, `play_drawn(spec, started, below, shuffle, limit)` (`spec` is this game's spec):
    # the events and final state of `core.engine.play_drawn`, a game's faster way of its own in `playout.py`
    # (which imports its moves, never the reverse). Default: None, and `core.engine.playout` runs the kernel's loop.
    play_drawn: ClassVar[Callable[..., tuple[list[Event], Any]] | None] = None

    def shuffles(self, state: S) -> dict[str, list[str]]:
        """Open mode: the piles chance decides now and tally deals (the setup, a new round's deal, a reshuffle),
        to be shuffled outside core; empty when no such chance is due (moves). Default: none (a game without
        chance)."""
        return {}

    def deal(self, state: S, shuffled: dict[str, list[str]]) -> list[Event]:
        """The events that record the outcome of chance for the piles `shuffles` named, shuffled by the caller (moves).
        Default: none."""
        return []

    def parse(self, state: S, text: str) -> list[Event] | NotationError:
        """Notation to events, or what was wrong and what would have been valid (notation)."""
        raise NotImplementedError

    def format(self, event: Event) -> str:
        """An event in notation; parsing it gives the same event back (notation)."""
        raise NotImplementedError

    def view(self, state: S, seat: str | None) -> V:
        """What `seat` may see (None: everything the log knows), as the game's view Struct (view)."""
        raise NotImplementedError

    def conceal(self, state: S, seat: str | None) -> S:
        """The state as `seat` knows it: every hidden card of another seat (and any pile tally dealt) made
        unknown, counts kept; None: the state itself. `legal_moves` of it are that seat's possible moves (state).
        Default: the state itself (a game that hides nothing)."""
        return state

    def turn(self, state: S) -> int:
        """The number of the turn being played, 1 for the first: a question of the state, which the view shows
        and `tally undo --turn` walks back by (state)."""
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        """Scores, winners and why, once the game is over (view)."""
        raise NotImplementedError

    def to_act(self, state: S) -> tuple[str, str]:
        """(who, what): the seat, `table` or `nobody` that must act next, and the obligation in words (view)."""
        raise NotImplementedError

    def waiting_on(self, state: S) -> tuple[str, ...]:
        """The seats the table waits on now, in seat order: the seat to act, or every seat still to name its own
        hidden cards (a deal that left each seated seat its hand: they name them in any order); empty when the table
        or nobody acts (view). A seat's device shows it that a move of its own is due. Default: the seat `to_act`
        names, if a seat."""
        who = self.to_act(state)[0]
        return () if who in (TABLE, NOBODY) else (who,)

    def owed(self, state: S) -> tuple[Due, ...]:
        """Who owes what now, each as a `Due` (view): every seat the table waits on (`waiting_on`), in seat order, and
        an entry of the table's with the seat asked to make it; empty once nobody acts. A seat's device says from it
        what that seat must enter, the dealer's what the table enters, and the banner every seat still owing.
        Default: each seat of `waiting_on` owes what `to_act` says, or the table does (any seat's device)."""
        return turn_dues(self.to_act(state), self.waiting_on(state))

    def pending(self, state: S) -> str | None:
        """The obligation that must be settled before play goes on (tokens to return, a noble to choose, a card
        to reveal, a bonus action, a Hurricane), in words; None in an ordinary turn (view). Default: none ever."""
        return None

    def narrate(self, before: S, after: S) -> list[str]:
        """What followed from an event without being an event itself, for replays (view). Default: nothing."""
        return []

    def check_manifest(self, manifest: str | dict[str, Any]) -> list[str]:
        """Problems with a component manifest: an id the game does not know, or an inline manifest (read
        from a manifest file) that does not describe usable components; empty when usable (components).
        Default: the game's own manifest id, and nothing else."""
        if manifest == self.manifest:
            return []
        return [f"unknown manifest {quote(str(manifest))}: {self.title} knows only {quote(self.manifest)}"]

    def table_transcript(self, events: list[Event], seated: tuple[str, ...] = ()) -> list[Event]:
        """The events a recorder at the table (who cannot see hidden cards) would log for an open game, the seats
        `seated` naming their own hidden cards (`game_started`'s `seated`) (transcript). Default: the same events in
        table mode (a game that hides nothing and deals nothing)."""
        started = events[0]
        if not isinstance(started, GameStarted):
            raise ValueError("a transcript starts at game_started")
        return [msgspec.structs.replace(started, mode="table"), *events[1:]]

    def picture(self, view: V) -> str:
        """The view as an SVG picture, drawn from the view alone with `core/svg.py` (picture)."""
        raise NotImplementedError

    def pieces(self, state: S) -> list["Piece"]:
        """Every piece of the game's box a move may name (a card, a noble, a gem, a map piece), in the game's order,
        each in the group the game sorts it into: what the card picker shows (naming). Default: none."""
        return []

    def naming(self, state: S) -> list["Naming"]:
        """The moves due now that name pieces but that the listing cannot enumerate (a dealt hand, a whole setup's
        reveals), each with what every place may take, on the table as the caller knows it (naming). Default: none."""
        return []

    def draw_piece(self, view: V, code: str) -> str:
        """One piece of the box as a small SVG picture, as the game's `picture` draws it, for the card picker
        (picture). Default: a card showing its code."""
        from .svg import card, document, text

        width = max(40.0, len(code) * 9.0 + 10)
        face = card(1, 1, width, 48, code, code, [text(width / 2 + 1, 30, code, anchor="middle", weight="bold")])
        return document(width + 2, 50, code, [face])

    def check_options(self, options: dict[str, str]) -> list[str]:
        """Problems with a set of options, each naming the option and what was expected."""
        known = {opt.key: opt for opt in self.options}
        problems = []
        for key, value in options.items():
            spec = known.get(key)
            if spec is None:
                problems.append(f"unknown option {quote(key)} (known: {', '.join(known) or 'none'})")
                continue
            expected = spec.check(value)
            if expected:
                problems.append(f"option {key}={quote(value)}: expected {expected}")
        return problems

    def resolved_options(self, options: dict[str, str]) -> dict[str, str]:
        return resolve_options(self.options, options)

    def check_started(self, started: GameStarted) -> list[str]:
        """Problems with a `game_started` for this game: the rules version, the seats and their names, the
        mode, every option (all stated, each valid) and the manifest. `tally new` refuses such a start, and
        the log reader refuses a log that begins with one (docs/format.md)."""
        problems = []
        if started.rules != self.rules_version:
            problems.append(
                f"rules {quote(started.rules)}: this tally judges {self.name} by rules version {self.rules_version}"
            )
        count = len(started.seats)
        if not self.min_seats <= count <= self.max_seats:
            problems.append(f"{self.title} needs {self.min_seats}-{self.max_seats} players, got {count}")
        problems.extend(check_names(started.seats))
        if started.mode not in self.modes:
            problems.append(f"mode {quote(started.mode)}: {self.name} is recorded in {' or '.join(self.modes)} mode")
        missing = [opt.key for opt in self.options if opt.key not in started.options]
        if missing:
            problems.append(f"options: {', '.join(missing)} not stated (a log states every option)")
        problems.extend(self.check_options(started.options))
        problems.extend(self.check_manifest(started.manifest))
        problems.extend(check_seated(started))
        if started.seated and "seated" not in getattr(self.state_type, "__struct_fields__", ()):
            # a game whose state keeps no seated seats would judge their cards as unknown: refuse rather than mislead
            problems.append(
                f"seated: in {self.name} a seat cannot enter its own hidden cards yet (table mode records them unseen)"
            )
        return problems


def pick_listed(moves: Sequence[Event], below: Callable[[int], int]) -> Event | None:
    """The move `below` draws from a listing (`below(n)` under its n moves), None from an empty one: a game's
    `pick_move` where it builds the listing rather than counting it."""
    return moves[below(len(moves))] if moves else None


# the members a game binds (docs/architecture.md's contract table lists the same names)
CONTRACT: tuple[str, ...] = (
    "name",
    "title",
    "bgg_id",
    "rules_version",
    "manifest",
    "min_seats",
    "max_seats",
    "modes",
    "options",
    "events",
    "state_type",
    "rules",
    "notation",
    "history",
    "upcasters",
    "start",
    "check",
    "permit",
    "is_voidable",
    "is_revealed_as_made",
    "apply",
    "legal_moves",
    "pick_move",
    "play_drawn",
    "shuffles",
    "deal",
    "parse",
    "format",
    "view",
    "conceal",
    "turn",
    "outcome",
    "to_act",
    "waiting_on",
    "owed",
    "pending",
    "narrate",
    "check_manifest",
    "table_transcript",
    "picture",
    "pieces",
    "naming",
    "draw_piece",
)

# the members a game may leave out: GameSpec's own method above is then its default (the docs' checklist names them)
OPTIONAL = frozenset(
    {
        "bgg_id",
        "is_voidable",
        "is_revealed_as_made",
        "pick_move",
        "play_drawn",
        "shuffles",
        "deal",
        "conceal",
        "waiting_on",
        "owed",
        "pending",
        "narrate",
        "check_manifest",
        "table_transcript",
        "pieces",
        "naming",
        "draw_piece",
    }
)

# where each function of the contract lives in a game's folder: member -> (module, function)
BINDINGS: dict[str, tuple[str, str]] = {
    "start": ("reducer", "start"),
    "check": ("rules", "check"),
    "permit": ("rules", "permit"),
    "is_voidable": ("rules", "is_voidable"),
    "is_revealed_as_made": ("rules", "is_revealed_as_made"),
    "apply": ("reducer", "apply"),
    "legal_moves": ("moves", "legal_moves"),
    "pick_move": ("moves", "pick_move"),
    "play_drawn": ("playout", "play_drawn"),
    "shuffles": ("moves", "shuffles"),
    "deal": ("moves", "deal"),
    "parse": ("notation", "parse"),
    "format": ("notation", "format_event"),
    "notation": ("notation", "NOTATION"),
    "view": ("view", "view"),
    "conceal": ("state", "conceal"),
    "turn": ("state", "turn"),
    "outcome": ("view", "outcome"),
    "to_act": ("view", "to_act"),
    "waiting_on": ("view", "waiting_on"),
    "owed": ("view", "owed"),
    "pending": ("view", "pending"),
    "narrate": ("view", "narrate"),
    "check_manifest": ("components", "check_manifest"),
    "table_transcript": ("transcript", "table_transcript"),
    "history": ("history", "HISTORY"),
    "picture": ("picture", "draw"),
    "pieces": ("naming", "pieces"),
    "naming": ("naming", "naming"),
    "draw_piece": ("picture", "draw_piece"),
}
# what recording a move never needs: loaded on first use, so `tally move` does not pay for importing it
LATE = frozenset({"table_transcript", "history", "picture", "play_drawn", "pieces", "naming", "draw_piece"})


class _Late:
    """A class attribute read from a module on first use, then kept in place of this descriptor; for an optional
    member (`OPTIONAL`) that the game's folder has no module or function for, GameSpec's default."""

    def __init__(self, module: str, name: str, member: str):
        self.module, self.name, self.member = module, name, member

    def __get__(self, instance: Any, owner: type) -> Any:
        try:
            value = getattr(import_module(self.module), self.name)
        except (ModuleNotFoundError, AttributeError) as missing:
            if self.member not in OPTIONAL or getattr(missing, "name", self.module) not in (self.module, self.name):
                raise
            default = GameSpec.__dict__[self.member]
            setattr(owner, self.member, default)
            return default.__get__(instance, owner) if hasattr(default, "__get__") else default
        setattr(owner, self.member, staticmethod(value) if callable(value) else value)
        return value


_Spec = TypeVar("_Spec", bound=type)


def bound(package: str) -> Callable[[_Spec], _Spec]:
    """A decorator for a game's spec class: binds the members recording a move never needs (`LATE`) to the
    game's module where `BINDINGS` says they live, imported on first use (`package` is the game's folder, its
    `__name__`), so `tally move` does not pay for importing them. The class binds every other function of the
    contract itself; a member it defines is left as it is."""

    def decorate(cls: _Spec) -> _Spec:
        for member in sorted(LATE):
            if member not in cls.__dict__:
                module, function = BINDINGS[member]
                setattr(cls, member, _Late(f"{package}.{module}", function, member))
        return cls

    return decorate
