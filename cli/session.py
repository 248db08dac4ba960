"""`tally record`: the recording session at the table (docs/cli.md, "Recording a game at the table").

On a terminal it draws the board after every move, shows what is pending as a banner, and reads moves
with prompt_toolkit: completion of the legal moves and of the cards still possible, history, line
editing. Off a terminal (standard input is a pipe or a file) it reads one line at a time and prints
one result line per move, so a session can be scripted and tested. The work is done by
`tally.store.recording.session.Session`; this module reads lines and renders.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Iterable, Iterator

from rich.console import Console
from rich.text import Text

from tally.core.text import quote, visible
from tally.store.recording import record
from tally.store.recording.results import Board, ListingReport, board, frame_board, seat_for
from tally.store.recording.session import Session

from .app import listing as numbered
from .app import rule_texts
from .boards.generic import anchor
from .render import console, print_view
from .wrap import wrapped

COMMANDS = ("moves", "state", "replay", "step", "undo", "amend", "note", "help", "quit")
HELP = """\
Type a move in the game's notation (`tally rules GAME --notation`; every rule: `tally rules GAME`), or:
  N               the move numbered N in the listing `moves` last showed (refused as stale once the log has moved on since: type `moves` again)
  MOVE + MOVE     several moves at once, e.g. a buy and the refill it makes due
  ?MOVE           ask for a ruling; nothing is recorded
  moves [KIND]    the legal moves now, numbered (a long listing summarised by kind; `moves all`: every one, `moves KIND`: those of one kind)
  state [as P]    the table (as player P may see it)
  replay [N]      the last N events (default 10)
  step [#N]       step through the game from the start (or from event N), the board after each event: Enter for the next, q to stop stepping
  undo [turn] [REASON]
                  void the last event (with `turn`: the whole last turn); the reason is kept
  undo #N [REASON]
                  void event N, if every later event stays legal
  amend #N MOVE   replace event N by MOVE, if every later event stays legal
  note TEXT       a remark for the record
  help            this text
  quit            leave (Ctrl-D too); every move is already saved"""  # one line each: `say` wraps it to the terminal
UNDO_REASON = "undone at the table"
AMEND_REASON = "corrected at the table"


def _event_number(word: str) -> int:
    """`#N`, an event of the log, as `replay` numbers them."""
    from tally.core.notation import read_count

    number = read_count(word[1:], 10**9)
    if not number:
        raise record.UsageError(f"{quote(word)} is not an event number: write #N, as `replay` shows it")
    return number


class Recorder:
    """Runs the commands of one session; `say` prints a line, `board` draws the table."""

    def __init__(self, session: Session, out: Console, interactive: bool):
        self.session = session
        self.out = out
        self.interactive = interactive
        self.refused = 0
        self._moves: ListingReport | None = None
        self.stepping: Stepping | None = None

    # ------------------------------------------------------------------ output

    def say(self, text: str, style: str = "") -> None:
        say(self.out, text, style)

    def board(self, viewer: str | None = None, lines: Iterable[tuple[str, str]] = ()) -> None:
        """The table (on a terminal: a fresh screen), then `lines` (text, style), then what is due next."""
        screen(self.out, board(self.session.record, viewer or self.session.viewer), lines, self.interactive)

    def next(self, shown: Board | None = None) -> None:
        """The result, or what is pending as a banner, or what is expected next."""
        due(self.out, shown or board(self.session.record))

    def listed(self) -> ListingReport:
        """The legal moves now (the listing numbers refer to this order), computed once per position."""
        if self._moves is None or self._moves.seq != self.session.seq:
            self._moves = self.session.numbered()
        return self._moves

    def moves(self) -> list[str]:
        """The legal moves now in notation."""
        return self.listed().moves

    # ------------------------------------------------------------------ one line

    def run_line(self, line: str) -> bool:
        """Do what one line says; False to end the session."""
        text = line.strip()
        if self.stepping is not None:
            if text in ("", "q"):  # Enter: the next event; q: stop stepping
                self.stepping = self.stepping.next(self.out) if text == "" else None
                if text == "q" and self.interactive:  # back to the table as it is
                    self.board(lines=[("stepping stopped: this is the table now", "italic")])
                return True
            self.stepping = None  # anything else leaves step mode and is read as usual
        if not text or text.startswith("#"):
            return True
        word, _, rest = text.partition(" ")
        rest = rest.strip()
        try:
            if word in ("quit", "exit"):
                return False
            if word == "help":  # for a person, even off a terminal: wrapped
                say(self.out, HELP.replace("GAME", self.session.table.started.game), wrap=True)
            elif word == "moves":
                self.list_moves(rest)
            elif word == "state":
                self.show_state(rest)
            elif word == "replay":
                self.replay(rest)
            elif word == "step":
                self.step(rest)
            elif word == "undo":
                self.undo(rest)
            elif word == "amend":
                self.amend(rest)
            elif word == "note":
                self.note(rest)
            elif text.startswith("?"):
                self.report(self.session.ask(text[1:].strip()), asked=True)
            else:
                self.report(self.session.move(text))
        except record.UsageError as error:
            self.say(str(error), "red")
            self.refused += 1
        return True

    def list_moves(self, rest: str = "") -> None:
        """`moves` (a long listing summarised by kind), `moves all` or `moves KIND`."""
        if len(rest.split()) > 1:
            raise record.UsageError("moves takes nothing, `all`, or a kind of move (`moves take`)")
        listed = self.session.listing()  # the listing a bare number now refers to
        kind = rest if rest and rest != "all" else None
        for line in numbered(
            listed.seq,
            listed.expected,
            listed.moves,
            kind,
            rest == "all",
            "one kind: `moves KIND`, every one: `moves all`",
        ):
            self.say(line)

    def show_state(self, rest: str) -> None:
        viewer = None
        words = rest.split()
        if words[:1] == ["as"] and len(words) == 2:
            viewer = words[1]
        elif words:
            raise record.UsageError("state takes nothing, or `as PLAYER`")
        if viewer is not None:
            viewer = seat_for(self.session.table.started.seats, viewer)
        self.board(viewer)

    def replay(self, rest: str) -> None:
        from tally.core.notation import read_count

        count = read_count(rest, 10_000) if rest else 10
        if count is None:
            raise record.UsageError("replay takes a number of events, e.g. `replay 10`")
        _, frames = record.replay(self.session.path)
        for frame in frames[-count:] if count else []:
            mark = " (voided)" if frame.voided else ""
            self.say(f"#{frame.seq:<4} {frame.text}{mark}")

    def step(self, rest: str) -> None:
        start = _event_number(rest) if rest else 1
        pos, frames = record.replay(self.session.path)
        if start > frames[-1].seq:
            raise record.UsageError(f"step #{start}: the log has events 1..{frames[-1].seq}")
        self.stepping = Stepping(pos, [f for f in frames if f.seq >= start], self.interactive).next(self.out)

    def undo(self, rest: str) -> None:
        if rest.startswith("#"):
            target, _, reason = rest.partition(" ")
            self.report(self.session.correct(_event_number(target), reason.strip() or UNDO_REASON))
            return
        turn = rest == "turn" or rest.startswith("turn ")
        reason = (rest[4:] if turn else rest).strip() or UNDO_REASON
        self.report(self.session.undo(reason, turn))

    def amend(self, rest: str) -> None:
        target, _, move = rest.partition(" ")
        if not target.startswith("#") or not move.strip():
            raise record.UsageError("amend which event, by what? `amend #N MOVE`")
        self.report(self.session.correct(_event_number(target), AMEND_REASON, move.strip()))

    def note(self, rest: str) -> None:
        if not rest:
            raise record.UsageError("note what? `note TEXT`")
        self.report(self.session.note(rest))

    def report(self, result: record.MoveResult, asked: bool = False) -> None:
        """One result line (and, on a terminal, the board after a recorded move)."""
        if result.notation is not None:
            self.refused += 0 if asked else 1
            self.say(result.notation.render(), "red")
            return
        if not result.accepted:
            self.refused += 0 if asked else 1
            # no rule forbade a stale move: it was typed against a table the log has moved on from, and not judged
            verdict = "stale" if result.is_stale else "illegal"
            refusal = (f"{verdict}: " + "; ".join(result.messages), "red")
            if result.is_stale and self.interactive:  # the log was re-read: the table as it is now, then why
                self.board(lines=[refusal])
                return
            self.say(*refusal)
            self.say("\n".join(rule_texts(result.rulings)), "red")
            return
        notes = [r.render() for r in result.rulings if r.verdict == "unverifiable"]
        if asked:
            deciding = [r for r in result.rulings if r.verdict == "unverifiable"] or [
                r for r in result.rulings if r.verdict == "legal"
            ]
            verdict = "unverifiable" if notes else "legal"
            self.say(f"{verdict}: " + "; ".join(r.render() for r in deciding) + " (nothing recorded)", "green")
            self.say("\n".join(rule_texts(deciding)), "green")
            return
        first, last = result.events[0].seq, result.events[-1].seq
        where = f"#{first}" if first == last else f"#{first}-{last}"
        lines = [(f"{where} recorded: " + "; ".join(result.lines), "bold")]
        lines.extend((f"  {consequence}", "bold cyan") for consequence in result.consequences)
        lines.extend((f"unverifiable: {note}", "yellow") for note in notes)
        if self.interactive:
            self.board(lines=lines)
            return
        self.say(lines[0][0] + "".join(f" -> {c}" for c in result.consequences))
        for note in notes:
            self.say(f"unverifiable: {note}")
        if result.ending:
            self.say(f"final {result.ending.scores_line()}")


def say(out: Console, text: str, style: str = "", wrap: bool = False) -> None:
    """Lines of the session: on a terminal (or with `wrap`) broken between words to its width, a continued line
    indented (`wrap.wrapped`), never left to the terminal to cut mid-word; off a terminal one line each, so
    a scripted session reads one result line per move."""
    shown = "\n".join(map(visible, text.split("\n")))  # our own line breaks stay; a player's text cannot break lines
    if wrap or out.is_terminal:
        shown = "\n".join(wrapped(shown, out.width))
    out.print(Text(shown, style=style), soft_wrap=True)


def due(out: Console, shown: Board) -> None:
    """The result, or what is pending as a banner, or what is expected next."""
    if shown.scores_line is not None:
        say(out, f"final {shown.scores_line}", "bold")
    elif shown.pending:
        say(out, f"!! {shown.pending}", "bold reverse")
    else:
        say(out, f"next: {shown.expected}")


def screen(out: Console, shown: Board, lines: Iterable[tuple[str, str]] = (), clear: bool = False) -> None:
    """What the session shows after a move: the board (with `clear`, on a fresh screen), `lines` (text,
    style), then what is due next; the prompt (`prompt_for`) comes under it. It fits 80x24."""
    if clear:
        out.clear()
    print_view(shown.view, out, footer=False)
    for text, style in lines:
        say(out, text, style)
    due(out, shown)


def prompt_for(shown: Board) -> str:
    return f"{anchor(shown.view)} {shown.to_act}> "


class Stepping:
    """A replay one event at a time (`step` in the session, `tally replay --step`): each `next` shows the
    event and the board after it; None once the last event has been shown."""

    def __init__(self, pos: Any, frames: list[Any], clear: bool):
        self.pos, self.frames, self.clear, self.index = pos, frames, clear, 0

    @property
    def where(self) -> str:
        return f"step #{self.frames[self.index - 1].seq} of {self.frames[-1].seq}" if self.index else "step"

    def next(self, out: Console) -> "Stepping | None":
        frame = self.frames[self.index]
        if self.index and not self.clear:
            out.print()  # off a terminal, a blank line between one step's board and the next
        self.index += 1
        last = self.index == len(self.frames)
        mark = " (voided later)" if frame.voided else ""
        screen(out, frame_board(self.pos, frame), [(f"#{frame.seq} {frame.text}{mark}", "bold")], self.clear)
        say(out, "the last event: stepping ends" if last else "Enter: the next event, q: stop", "italic")
        return None if last else self


def run(session: Session, interactive: bool | None = None, lines: Iterable[str] | None = None) -> int:
    """Run a session: on a terminal with prompt_toolkit, else one line at a time from `lines` (stdin).

    The exit code is 0, or 1 when a scripted session had a move refused (every other move was recorded)."""
    if interactive is None:
        interactive = lines is None and sys.stdin.isatty() and sys.stdout.isatty()
    recorder = Recorder(session, console(), interactive)
    if interactive:
        _interactive(recorder)
        return 0
    for line in lines if lines is not None else sys.stdin:
        if not recorder.run_line(line):
            break
    return 1 if recorder.refused else 0


def _interactive(recorder: Recorder) -> None:
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import InMemoryHistory

    session = recorder.session
    recorder.board(lines=[(f"recording {session.path}: type a move, `moves`, `?MOVE`, `help` or `quit`", "")])
    prompt: Any = PromptSession(
        history=InMemoryHistory(), completer=_completer(recorder.moves), complete_while_typing=True
    )
    while True:
        if session.changed():
            new = session.refresh()
            recorder.board(lines=[(f"the log changed on disk ({new:+d} events): it was re-read", "bold")])
        now = board(session.record)
        try:
            stepping = recorder.stepping
            line = prompt.prompt(f"{stepping.where}> " if stepping is not None else prompt_for(now))
        except EOFError:
            break
        except KeyboardInterrupt:
            continue
        if not recorder.run_line(line):
            break
    recorder.say("every move is saved; bye")


def completions(moves: Iterable[str], typed: str) -> Iterator[str]:
    """What the prompt offers for `typed`: the legal moves that start with it (with or without the player's
    name), the session's commands, and the same moves after `?` (a ruling)."""
    asked = typed.startswith("?")
    body = typed[1:] if asked else typed
    seen = set()
    for move in moves:
        head, colon, rest = move.partition(": ")
        short = rest if colon and " " not in head else move
        for option in (short, move):
            if option.startswith(body) and option not in seen:
                seen.add(option)
                yield ("?" if asked else "") + option
    if not asked:
        yield from (command for command in COMMANDS if command.startswith(typed))


def _completer(moves: Callable[[], list[str]]) -> Any:
    from prompt_toolkit.completion import Completer, Completion

    class MoveCompleter(Completer):
        def get_completions(self, document: Any, complete_event: Any) -> Iterator[Completion]:
            typed = document.text_before_cursor.lstrip()
            for candidate in completions(moves(), typed):
                yield Completion(candidate, start_position=-len(typed))

    return MoveCompleter()
