"""Whose an event is, what a correction would take back, and the table's history as one caller may read it.

At a table of phones any seat may enter the table's entries (a reveal, a deal), and those name no player; the log
says which seat's device entered each line (the envelope's `by`, docs/format.md). A seat's *own* events are its
moves and the entries it entered itself: those it takes back and corrects (`core.seat.other`), and a seat's plain
undo takes back its own last one, not whatever was recorded last (another seat's move, an entry another phone
typed). The host corrects any. Every interface asks here: the record service (`service.py`) for the rule and for a
correction's preview, the server for the history a caller reads (`store/serving/tables.py`).
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Iterable, Optional, Sequence, Union

import msgspec

from tally.core.model import Amended, Event, GameSpec, GameStarted, Noted, Voided


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


def is_own(event: Event, by: str | None, seat: str) -> bool:
    """Whether `event` is `seat`'s own: its move (it names the seat), or a table's entry (it names no player) that the
    seat's device entered (`by`)."""
    player = getattr(event, "player", None)
    return player == seat if player is not None else by == seat


def whose(event: Event, by: str | None) -> str:
    """Whose an event is, in words a refusal gives a seat: `ana's`, or who entered a table's entry."""
    player = getattr(event, "player", None)
    if player is not None:
        return f"{player}'s"
    return f"a table's entry {by} entered" if by is not None else "a table's entry the host entered"


def last_own(effective: Sequence[tuple[int, Event]], entered: dict[int, str], seat: str) -> int | None:
    """The seq of `seat`'s own last effective event (`effective`: seq and event, oldest first), or None."""
    for seq, event in reversed(effective):
        if is_own(event, entered.get(seq), seat):
            return seq
    return None


class Correction(msgspec.Struct):
    """One event a correction takes back or replaces, as its caller may read it (the host, or the seat whose own it
    is: a seat corrects only its own)."""

    target: Annotated[int, _("the seq of the event taken back or replaced")]
    old: Annotated[str, _("that event in notation")]
    new: Annotated[list[str], _("what replaces it, in notation (empty: it is voided)")]
    by: Annotated[Optional[str], _("the seat whose device entered it; null: the host or a terminal")]
    player: Annotated[Optional[str], _("whose move it is; null for a table's entry")] = None


def preview_text(corrections: Iterable[Correction]) -> str:
    """What a correction would do, in the words the page asks with: `this voids #41 reveal 1w0-b2k2, entered by ana`
    (who entered it is said where the event does not say it already: a table's entry, or a move the host entered
    is said by nothing)."""
    parts = []
    for item in corrections:
        entered = f", entered by {item.by}" if item.by is not None and item.by != item.player else ""
        if item.new:
            parts.append(f"this replaces #{item.target} {item.old}{entered}, with {'; '.join(item.new)}")
        else:
            parts.append(f"this voids #{item.target} {item.old}{entered}")
    return "; then ".join(parts) or "this changes nothing"


# --------------------------------------------------------------------------- the table's history


class HistoryEntry(msgspec.Struct):
    """One event of the log in the table's history."""

    seq: Annotated[int, _("the event's seq")]
    type: Annotated[str, _("the event's type")]
    text: Annotated[
        str,
        _(
            "the event in notation as the caller may read it (as `GET .../events`: an event holding what "
            "the caller may not know says only who did what kind of thing)"
        ),
    ]
    player: Annotated[
        Optional[str], _("whose move it is; null for a table's entry, a correction, a note of no one's or the start")
    ]
    by: Annotated[Optional[str], _("the seat whose device entered it; null: the host or a terminal")]
    undone_by: Annotated[Optional[int], _("the seq of the correction that voided or replaced it; null while it stands")]
    replaced: Annotated[
        bool,
        _("true when that correction put other events in its place (an amend), false when it voided it or it stands"),
    ]
    replacement: Annotated[
        list[str],
        _(
            "for an `amended` line: what it put in place of its target, in notation, when the caller "
            "may read it (the host; the seat that entered it or whose move it is); else empty"
        ),
    ]
    may_correct: Annotated[
        bool,
        _(
            "true when the caller may undo or amend it now: it stands, tally did not deal it, and it is the "
            "caller's own (its move, or an entry its device entered) or the caller is the host"
        ),
    ]


class HistoryReport(msgspec.Struct):
    """`GET /api/games/{id}/history`: the log's events, newest first, a page at a time."""

    seq: Annotated[int, _("the log's last seq")]
    entries: Annotated[list[HistoryEntry], _("the events before `before`, newest first, at most `limit`")]
    before: Annotated[
        Optional[int], _("the `before` that asks for the next (older) page; null when this page reaches the start")
    ]
    last_own: Annotated[
        Optional[int],
        _(
            "the seq a plain undo of the caller would take back: a seat's own last effective "
            "event, the host's last effective event; null when there is none"
        ),
    ]


WALK_BACK = 200  # events read back at a time in search of a caller's last own event


class Standing:
    """The log's events as the history needs them, from seq `first` to the log's last: read from the tail back, a
    page at a time as pages (and the walk back to a caller's last own event) reach before `first` (`older(first,
    last)` reads the log's events between them), and kept up as the record takes new ones on (`add`), so that a page
    of the history costs the page, not the log, the first page after a start included. Held: each event by seq, the
    effective game events by seq (an `amended` line's seq holds its replacement), and for each event taken back the
    seq of the correction that did it and whether it replaced it (rather than voided it). A correction comes after
    its target, so every event held knows whether it was taken back."""

    def __init__(self, spec: GameSpec, seq: int, older: Callable[[int, int], Sequence[Event]]):
        self.spec = spec
        self.first = seq + 1  # nothing read yet
        self.events: list[Event] = []  # the log's events from `first` on: `events[i].seq == first + i`
        self.effective: dict[int, list[Event]] = {}  # in increasing seq: each key is a new line's own seq
        self.undone: dict[int, tuple[int, bool]] = {}
        self._older = older
        self._decoder: Any = None

    @property
    def seq(self) -> int:
        return self.first + len(self.events) - 1

    def event(self, seq: int) -> Event:
        return self.events[seq - self.first]

    def add(self, events: Iterable[Event]) -> None:
        """The events after the last one held, in order."""
        for event in events:
            assert event.seq == self.seq + 1, "the history's events come in order, none left out"
            self.events.append(event)
            self._take(event, self.effective)

    def cover(self, first: int) -> None:
        """Read back, if need be, so that every event from seq `first` on is held."""
        first = max(1, first)
        if first >= self.first:
            return
        older = list(self._older(first, self.first - 1))
        assert [event.seq for event in older] == list(range(first, self.first)), "the history reads back in order"
        effective: dict[int, list[Event]] = {}
        for event in older:
            self._take(event, effective)
        self.events[:0] = older
        self.first = first
        self.effective = {**effective, **self.effective}

    def _take(self, event: Event, effective: dict[int, list[Event]]) -> None:
        if isinstance(event, Voided):
            effective.pop(event.target, None)
            self.undone[event.target] = (event.seq, False)
        elif isinstance(event, Amended):
            effective.pop(event.target, None)
            self.undone[event.target] = (event.seq, bool(event.events))
            if event.events and event.seq not in self.undone:
                self._decoder = self._decoder or _decoder_of(self.spec)
                effective[event.seq] = [self._decoder.decode(raw) for raw in event.events]
        elif not isinstance(event, (GameStarted, Noted)) and event.seq not in self.undone:
            effective[event.seq] = [event]


def _decoder_of(spec: GameSpec) -> Any:
    return msgspec.json.Decoder(Union[tuple(spec.events)])


def history(
    kept: Standing,
    texts: Callable[[int, int], Sequence[str]],
    seat: str | None,
    host: bool,
    before: int | None = None,
    limit: int = 30,
) -> HistoryReport:
    """The log's events (`kept`) newest first, from the one before `before`, at most `limit`; `texts(first, last)`
    the lines' texts from seq `first` to `last` as the caller may read them; `seat` the caller's seat (None: the host
    or a watcher), `host` whether it is the host. The work is the page's, and a walk back to the caller's last own
    event."""
    end = kept.seq if before is None else max(0, min(before - 1, kept.seq))
    start = max(0, end - limit)
    shown = list(texts(start + 1, end)) if end > start else []
    kept.cover(start + 1)
    spec, undone = kept.spec, kept.undone
    entries = []
    for seq in range(end, start, -1):
        event = kept.event(seq)
        taken = undone.get(seq)
        entries.append(
            HistoryEntry(
                seq,
                str(type(event).__struct_config__.tag),
                shown[seq - start - 1],
                getattr(event, "player", None),
                event.by,
                taken[0] if taken else None,
                taken[1] if taken else False,
                _replacement(spec, event, kept.effective, seat, host),
                _may_correct(spec, kept.effective.get(seq), event.by, seat, host),
            )
        )
    own = _last_own(kept, seat, host) if host or seat is not None else None
    return HistoryReport(kept.seq, entries, start + 1 if start > 0 else None, own)


def _last_own(kept: Standing, seat: str | None, host: bool) -> int | None:
    """The caller's last effective event (the host's: the last of all), read back a page at a time until found."""
    below = kept.seq + 1
    while True:
        for seq in reversed(kept.effective):
            if seq < below and (host or (seat is not None and _all_own(kept.effective[seq], kept.event(seq).by, seat))):
                return seq
        if kept.first <= 1:
            return None
        below = kept.first
        kept.cover(kept.first - WALK_BACK)


def _all_own(events: list[Event], by: str | None, seat: str) -> bool:
    return all(is_own(event, by, seat) for event in events)


def _may_correct(
    spec: GameSpec, standing_events: list[Event] | None, by: str | None, seat: str | None, host: bool
) -> bool:
    if not standing_events or not all(spec.is_voidable(event) for event in standing_events):
        return False
    return host or (seat is not None and _all_own(standing_events, by, seat))


def _replacement(
    spec: GameSpec, event: Event, effective: dict[int, list[Event]], seat: str | None, host: bool
) -> list[str]:
    """What an `amended` line put in place of its target, for a caller who may read it: the host, the seat that entered
    the correction, or the seat whose move every replacing event is. Read from the line itself, standing or not."""
    if not isinstance(event, Amended) or not event.events:
        return []
    replaced = effective.get(event.seq) or [_decoder_of(spec).decode(raw) for raw in event.events]
    if host or (seat is not None and (event.by == seat or all(getattr(e, "player", None) == seat for e in replaced))):
        return [spec.format(e) for e in replaced]
    return []
