"""Judging a move's text against a fold: reading it (the notation, a number of the `tally moves` listing,
parts joined by ` + `), playing it on a `Table` once, and the results and refusals the record service
returns (`MoveResult`, a stale append, a correction's events)."""

from __future__ import annotations

from typing import Any, Callable

import msgspec

from tally.core.engine import Played, Table
from tally.core.model import Amended, Event, GameSpec, NotationError, Noted, Ruling, Voided, illegal
from tally.core.model import Outcome as GameOutcome
from tally.core.notation import check_chain_part, player_of, read_count
from tally.core.text import quote
from tally.store.logs import cache
from tally.store.recording.corrections import Correction
from tally.store.recording.secrecy import names_others_secret

STALE = "core.append.stale"  # the ruling id of an append whose caller saw an older log
SEAT_OTHER = "core.seat.other"  # a seat's move that is another seat's
SEAT_AS_MADE = "core.seat.as-made"  # an open game's seat named what only the move itself shows the table
SEAT_CONFLICT = "core.seat.conflict"  # a seat's move, legal on what it knows, that another seat's entries forbid
OTHERS_SECRET = "core.seat.others-secret"  # a table's entry from a seat that names another seat's hidden component
Listing = Callable[[Any], list[Event]]  # the numbered moves at a state (`tally moves`, or a seat's)


class MoveResult(msgspec.Struct, kw_only=True):
    """What happened to a proposed move, undo or note: accepted (and appended, unless it was only a
    question) or not, with everything an interface shows of it."""

    accepted: bool
    text: str
    events: list[Event] = []
    rulings: list[Ruling] = []
    notation: NotationError | None = None
    fingerprint: str | None = None
    to_act: tuple[str, str] = ("", "")
    lines: list[str] = []  # each event in notation
    seq: int = 0  # where the move stands (or would stand) in the log; for a refusal, the refused part
    path: str = ""
    consequences: list[str] = []  # what followed without being an event: a noble's visit, the end of a round
    states: list[Any] = []  # the state after each of `events`, as the fold that judged them left it
    ending: GameOutcome | None = None  # the game's outcome when the move ended it
    corrections: list[Correction] = []  # an undo's or amend's: each event it takes back or replaces, old and new
    preview: bool = False  # judged and answered, never appended (a correction's preview)

    @property
    def messages(self) -> list[str]:
        if self.notation is not None:
            return [self.notation.render()]
        return [r.render() for r in self.rulings]

    @property
    def notation_kind(self) -> str | None:
        """For a move that cannot be read: `invalid`, `ambiguous` or `unknown` (the notation error's kind)."""
        return None if self.notation is None else self.notation.kind

    @property
    def is_stale(self) -> bool:
        return not self.accepted and any(r.rule == STALE for r in self.rulings)


def fresh_shuffle() -> Callable[[list[str]], list[str]]:
    """A shuffle seeded by the OS (the deal it produces is what gets recorded), made on first use: most
    moves deal nothing, and `tally move` should not pay for `random` then."""
    rng: Any = None

    def shuffle(pile: list[str]) -> list[str]:
        nonlocal rng
        if rng is None:
            import random

            rng = random.Random()
        rng.shuffle(pile)
        return pile

    return shuffle


def describe(spec: GameSpec, event: Event) -> str:
    if isinstance(event, Voided):
        return f"void #{event.target}: {event.reason}"
    if isinstance(event, Amended):
        return f"{'amend' if event.events else 'void'} #{event.target}: {event.reason}"
    if isinstance(event, Noted):
        return f"note: {event.text}"
    return spec.format(event)


# --------------------------------------------------------------------------- judging a move

# `buy 1k0-w1b1g1r1 + reveal 1g0-w2b1`: a move and the chance it makes due, on one line. The `+` stands
# between spaces, so a game's own notation may use a bare `+` (a match written `5HL+5SR`, say)
# (`MOVE_SEPARATOR_PATTERN`, split by hand: compiling the regex would cost every `tally move` more than splitting)
MOVE_SEPARATOR_PATTERN = r"\s\+(?:\s|$)|^\+\s"


class _MoveSeparator:
    """`re.compile(MOVE_SEPARATOR_PATTERN)`'s `split`, without compiling it."""

    pattern = MOVE_SEPARATOR_PATTERN

    @staticmethod
    def split(text: str) -> list[str]:
        parts, start, i, end = [], 0, 0, len(text)
        if end > 1 and text[0] == "+" and text[1].isspace():  # `^\+\s`
            parts.append("")
            start = i = 2
        while True:
            i = text.find("+", i + 1)
            if i < 0:
                break
            if text[i - 1].isspace() and i - 1 >= start and (i + 1 == end or text[i + 1].isspace()):
                parts.append(text[start : i - 1])
                start = min(i + 2, end)
                i = start
        parts.append(text[start:])
        return parts


MOVE_SEPARATOR = _MoveSeparator()


def is_move_number(text: str) -> bool:
    word = text.strip()
    return word.isascii() and word.isdigit()


def listing_range(spec: GameSpec, state: Any, count: int) -> str:
    """How `tally moves` numbers the listing now, for a message about a number that is not in it."""
    if count:
        return f"1-{count}"
    return "none: the game is over" if spec.outcome(state) is not None else "none: no move is legal now"


def parse_move(spec: GameSpec, state: Any, text: str, listing: Listing | None = None) -> list[Event] | NotationError:
    """One move in the game's notation, or the number of a move in the `tally moves` listing (from 1); `listing`:
    the listing the caller was shown (a seat's, `secrecy.listed_for`), default every legal move."""
    word = text.strip()
    if is_move_number(word):
        moves = spec.legal_moves(state) if listing is None else listing(state)
        number = read_count(word, len(moves))
        if not number:
            shown = listing_range(spec, state, len(moves))
            return NotationError(
                word, f"there is no move number {quote(word)} in the listing (`tally moves`: {shown})", kind="unknown"
            )
        return [moves[number - 1]]
    return spec.parse(state, word)


class Reading(msgspec.Struct):
    """How a move's text is read for a seat (a device at the table, not the host): numbers against the listing
    that seat is shown, every part its own move or the table's entry, and a bare move the seat's own. `read` is
    filled with each part as it was finally read (a number as the listed move's notation), so that the same text
    can be judged again on the whole table."""

    seat: str
    listing: Listing
    own: bool = True  # a move the seat makes; False: a question, about anyone's move, judged on what the seat knows
    read: list[str] = []
    # an open game's whole table, where tally knows every card: what a seat's move reveals as it is made is read there
    # (`GameSpec.is_revealed_as_made`); set for a move the seat makes (an append) only, never a question or a
    # correction's preview, whose answer would show what the seat did not do; None in a table-mode game
    truth: Any = None


def read_part(spec: GameSpec, state: Any, part: str, reading: Reading | None) -> list[Event] | NotationError | Ruling:
    """One part of a move: its events, what could not be read, or (for a seat) the refusal of another seat's move
    or of a table's entry that would name another seat's hidden component."""
    if reading is None:
        return parse_move(spec, state, part)
    seat, seats = reading.seat, list(state.seats)
    named = player_of(part, seats)
    bare = isinstance(named, tuple) and named[0] is None and not is_move_number(part)
    if not reading.own:
        asked, text = _as_the_seats(
            spec, state, part.strip(), parse_move(spec, state, part, reading.listing), seat, bare, mine_only=True
        )
        if not isinstance(asked, NotationError):
            reading.read.append(spec.format(asked[0]) if is_move_number(part) else text)
        return asked
    if isinstance(named, tuple) and named[0] not in (None, seat):
        return _not_yours(seat, [named[0]], part)
    text = part.strip()
    parsed = parse_move(spec, state, text, reading.listing)
    if is_move_number(text) and not isinstance(parsed, NotationError):
        text = spec.format(parsed[0])
    parsed, text = _as_the_seats(spec, state, text, parsed, seat, bare)
    parsed = _as_made(spec, reading, text, parsed)
    if isinstance(parsed, NotationError):
        return parsed
    others = _others(parsed, seat)
    if others:
        return _not_yours(seat, others, part)
    reading.read.append(text)
    return parsed


def _as_the_seats(
    spec: GameSpec,
    state: Any,
    text: str,
    parsed: list[Event] | NotationError,
    seat: str,
    bare: bool,
    mine_only: bool = False,
) -> tuple[list[Event] | NotationError, str]:
    """A move without `PLAYER:` from a seat's device is that seat's: `hand ...` on cy's phone is cy's hand, never the
    move of whoever the game reads a bare move as (the player to act, the first seat owing a hand). Read so when the
    bare reading names another seat or cannot be read; the bare reading stays for what names no seat (the table's
    entries: a deal, a reveal) and where the seat's reading cannot be read either (its error is no more telling).
    `mine_only` (a question): the seat's reading only where it can be read, else the move as written."""
    if not bare or not (isinstance(parsed, NotationError) or _others(parsed, seat)):
        return parsed, text
    mine = parse_move(spec, state, f"{seat}: {text}")
    if isinstance(mine, NotationError) and (mine_only or isinstance(parsed, NotationError)):
        return parsed, text
    return mine, f"{seat}: {text}"


def _as_made(
    spec: GameSpec, reading: Reading, text: str, parsed: list[Event] | NotationError
) -> list[Event] | NotationError:
    """A seat's move of an open game that its own table cannot complete (`trade red`: it sees no other seat's disk),
    read on the whole table where every part of it is what the move reveals as it is made and the seat's own
    (`GameSpec.is_revealed_as_made`); else the seat's reading. Only the move's first part: the whole table is the
    one before the move. The answer stays the seat's: the whole table reads such a move whatever it holds (a disk
    is somewhere), and the part it fills in the trade shows everyone."""
    if reading.truth is None or reading.read:
        return parsed
    if not isinstance(parsed, NotationError) and not any(spec.is_revealed_as_made(event) for event in parsed):
        return parsed
    made = parse_move(spec, reading.truth, text)
    if isinstance(made, NotationError) or not made:
        return parsed
    if all(spec.is_revealed_as_made(event) and getattr(event, "player", None) == reading.seat for event in made):
        return made
    return parsed


def _others(events: list[Event], seat: str) -> list[str]:
    return sorted({p for p in (getattr(e, "player", None) for e in events) if p is not None and p != seat})


def _not_yours(seat: str, others: list[str], part: str) -> Ruling:
    return illegal(
        SEAT_OTHER,
        f"{seat} records only their own moves and the table's entries, not "
        f"{', '.join(others)}'s ({quote(part.strip())})",
        seat=seat,
        others=others,
    )


def play(
    table: Table, text: str, deal: Callable[[list[str]], list[str]] | None, reading: Reading | None = None
) -> MoveResult:
    """Parse the move(s) `text` and judge and apply each event on `table`, in order: the one fold of a move.

    `text` may hold several moves separated by ` + ` (a move and the refill it makes due), each parsed and
    judged against the table the moves before it leave. In open mode the chance a part makes due is dealt
    before the next part is read, and with `deal` (an append) after the last one too. On a refusal the
    caller restores the table; the result names the seq of the part that was refused (its first event's).
    `reading`: the text is a seat's, read as `read_part` reads it (on the table as that seat knows it)."""
    spec = table.spec
    first_seq = table.last_seq + 1
    played = Played()
    parts = MOVE_SEPARATOR.split(text.strip())
    is_open = table.started.mode == "open"
    acting: str | None = None  # the seat whose move the line is so far
    for index, part in enumerate(parts):
        if not part.strip() and len(parts) > 1:
            notation = NotationError(text, "a ' + ' with no move on one side: write MOVE + MOVE")
            return MoveResult(accepted=False, text=text, notation=notation, seq=table.last_seq + 1)
        part_seq = table.last_seq + 1
        parsed = read_part(spec, table.state, part, reading)
        if isinstance(parsed, NotationError):
            return MoveResult(accepted=False, text=text, notation=parsed, seq=part_seq)
        if isinstance(parsed, Ruling):
            return MoveResult(
                accepted=False, text=text, rulings=[parsed], to_act=spec.to_act(table.state), seq=part_seq
            )
        crossing, acting = check_chain_part(
            table.started.seats, reading.read[-1] if reading else part, parsed, index, acting
        )
        if crossing is not None:
            return MoveResult(
                accepted=False, text=text, rulings=[crossing], to_act=spec.to_act(table.state), seq=part_seq
            )
        for event in parsed:
            if reading is not None and reading.own and getattr(event, "player", None) is None:
                refused = check_names_no_secret(spec, table.state, event, reading.seat)
                if refused is not None:
                    return MoveResult(
                        accepted=False, text=text, rulings=[refused], to_act=spec.to_act(table.state), seq=part_seq
                    )
            if not table.take(event, played):
                return MoveResult(
                    accepted=False, text=text, rulings=played.refused, to_act=spec.to_act(table.state), seq=part_seq
                )
        last = index == len(parts) - 1
        if is_open and (not last or deal is not None):
            table.deal(deal or fresh_shuffle(), played)
    events = played.events
    return MoveResult(
        accepted=True,
        text=text,
        events=events,
        rulings=played.rulings,
        to_act=spec.to_act(table.state),
        lines=[describe(spec, e) for e in events],
        seq=first_seq,
        consequences=played.consequences,
        ending=spec.outcome(table.state),
        states=played.states,
    )


def check_names_no_secret(spec: GameSpec, known: Any, event: Event, seat: str) -> Ruling | None:
    """A table's entry sent by `seat` on the table as it knows it (`known`): refused when it names what the seat's
    table keeps hidden, another seat's hidden component (a deal naming every hand, every seat's disk), which each
    seat names from its own device (`core.seat.others-secret`)."""
    if not names_others_secret(spec, known, event, seat):
        return None
    return illegal(
        OTHERS_SECRET,
        f"{seat} enters the table's entries, but this one names another seat's hidden "
        "cards, which that seat names itself from its own device (leave them out: each seat names its own)",
        seat=seat,
    )


def propose(spec: GameSpec, table: Table, text: str, reading: Reading | None = None) -> MoveResult:
    """Parse and judge a move against a fold, without changing it (a question: `tally rule`, `?MOVE`)."""
    before = table.snapshot()
    try:
        result = play(table, text, None, reading)
    finally:
        table.restore(before)
    if not result.accepted:  # who acts at the real table, not at the one the parts before the refusal left
        result.to_act = spec.to_act(table.state)
    return result


def stale_at(path: str, spec: GameSpec, state: Any, tail: tuple[int, str], text: str, seen: str) -> MoveResult:
    """The stale refusal for a log whose tail is (seq, fingerprint)."""
    seq, fingerprint = tail
    ruling = illegal(
        STALE,
        f"the log moved on: you saw {seen}, it is now at #{seq} (fingerprint {fingerprint}); "
        "nothing was recorded, look at the table again",
        seq=seq,
        fingerprint=fingerprint,
    )
    return MoveResult(accepted=False, text=text, rulings=[ruling], to_act=spec.to_act(state), seq=seq + 1, path=path)


def listing_refusal(
    path: str, spec: GameSpec, state: Any, tail: tuple[int, str], word: str, text: str
) -> MoveResult | None:
    """A move number read against the listing it was shown in: not in it (a notation error), or shown
    at another position than the log's `tail` (seq, fingerprint): stale; None when the listing is the
    one of the tail (or none is remembered: then the number means the listing now)."""
    listed = cache.listed(path)
    if listed is None:
        return None
    number = read_count(word.strip(), listed.count)
    if not number:
        message = f"there is no move number {quote(word.strip())} in the listing (`tally moves`: {listed.shown})"
        return MoveResult(
            accepted=False,
            text=text,
            notation=NotationError(word.strip(), message, kind="unknown"),
            seq=tail[0] + 1,
            to_act=spec.to_act(state),
            path=path,
        )
    if (listed.seq, listed.fingerprint) != tail:
        return stale_at(path, spec, state, tail, text, f"the listing of `tally moves` at #{listed.seq}")
    return None


def read_correction(
    spec: GameSpec, state: Any, text: str, reading: Reading | None = None
) -> list[Event] | NotationError | Ruling:
    """The events of a correcting move (parts separated by ` + `), each part read at the state the parts
    before it leave; events a rule forbids there are kept, for the correction's own ruling to name. `reading`:
    a seat's correction, held to what it may enter as a move (`read_part`; `state` is then its table)."""
    events: list[Event] = []
    for part in MOVE_SEPARATOR.split(text.strip()):
        parsed = read_part(spec, state, part, reading)
        if isinstance(parsed, (NotationError, Ruling)):
            return parsed
        for event in parsed:
            if reading is not None and getattr(event, "player", None) is None:
                refused = check_names_no_secret(spec, state, event, reading.seat)
                if refused is not None:
                    return refused
            events.append(event)
            if any(r.verdict == "illegal" for r in spec.check(state, event)):
                return events
            state = spec.apply(state, event)
    return events


def payload(event: Event) -> msgspec.Raw:
    """A game event as an `amended` line holds it: its type and fields, without the envelope."""
    return msgspec.Raw(
        msgspec.json.encode(msgspec.structs.replace(event, seq=0, at="", prev=None, unit=1, salt=None, by=None))
    )
