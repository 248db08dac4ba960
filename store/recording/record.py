"""The record service's functions by path: what the CLI's one-shot commands and scripts call.

Each is a thin call of `service.GameRecord` (the one move path: judged and folded once, appended under
the writer's lock) or of the readers in `service` (position, replay); `check` judges a whole log.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import msgspec

from tally.core import engine
from tally.core.model import Event, GameSpec
from tally.core.notation import seat_named
from tally.core.text import quote
from tally.store.logs import cache
from tally.store.logs import log as logfile
from tally.store.recording.service import (  # noqa: F401  (the service's names, as scripts and the library import them from here)
    MOVE_SEPARATOR,
    STALE,
    Frame,
    GameRecord,
    IllegalLog,
    MoveResult,
    Position,
    UsageError,
    describe,
    describe_start,
    is_move_number,
    judged,
    listing_range,
    listing_refusal,
    parse_move,
    position,
    propose,
    replay_log,
    seat_moves,
    shuffler,
    start_event,
)

if TYPE_CHECKING:
    import random

    from tally.store.logs.logstore import LogStore
    from tally.store.recording.results import CheckReport, ListingReport


def dealt(spec: GameSpec, state: Any, rng: "random.Random") -> tuple[list[Event], Any]:
    """Open mode: the chance due in `state` shuffled by `rng` (here, outside core) and dealt by the engine;
    the events and the state after them (no events: nothing due)."""
    return engine.dealt(spec, state, shuffler(rng))


MANIFEST_LIMIT = 1 << 20  # a manifest file describes one box of cards: a megabyte is far more than any needs


def read_manifest(path: Path | str) -> dict[str, Any]:
    """A component manifest file (`.toml`, else JSON) as the object `game_started` records inline.

    The game's `check_manifest` then says whether it describes usable components."""
    try:
        data = logfile.read_regular(path, MANIFEST_LIMIT + 1, "a manifest")
    except logfile.LogError as error:
        raise UsageError(f"--manifest {path}: {error.message}") from None
    except OSError as error:
        raise UsageError(f"--manifest {path}: cannot read it: {error.strerror or error}") from None
    if len(data) > MANIFEST_LIMIT:
        raise UsageError(
            f"--manifest {path}: larger than {MANIFEST_LIMIT} bytes; a manifest describes one box of cards"
        )
    from tally.store.logs import limits

    deep = f"--manifest {path}: {limits.too_deep(limits.MAX_MANIFEST_DEPTH).message}"  # measured before parsing: parsers recurse
    try:
        if str(path).endswith(".toml"):
            import tomllib

            text = data.decode("utf-8")
            if limits.toml_depth(text, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:
                raise UsageError(deep)
            manifest: Any = tomllib.loads(text)
        else:
            if limits.json_depth(data, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:
                raise UsageError(deep)
            manifest = msgspec.json.decode(data)
    except (UnicodeDecodeError, ValueError, msgspec.DecodeError) as error:
        raise UsageError(f"--manifest {path}: not a manifest file ({str(error).splitlines()[0]})") from None
    if limits.value_depth(manifest, limits.MAX_MANIFEST_DEPTH) > limits.MAX_MANIFEST_DEPTH:  # TOML's dotted keys
        raise UsageError(deep)
    if not isinstance(manifest, dict):
        raise UsageError(f"--manifest {path}: a manifest is an object (a TOML table or a JSON object)")
    return msgspec.json.decode(msgspec.json.encode(manifest))  # plain JSON values only, as the log will hold them


def new_game(
    path: Path | str,
    game: str,
    players: list[str],
    options: dict[str, str] | None = None,
    mode: str | None = None,
    seed: int | None = None,
    manifest: str | dict[str, Any] | None = None,
    seated: Sequence[str] = (),
) -> MoveResult:
    """Start a log (`GameRecord.new`); `seated`: the seats that enter their own hidden cards (`--as`)."""
    return GameRecord.new(path, game, players, options, mode, seed, manifest, seated)


def rule(path: Path | str, text: str, at: int | None = None, as_listed: bool = False) -> MoveResult:
    """Answer a dispute about `text` at `at` (default: now) without recording anything. `as_listed` (at the
    tail only): a move number means the move numbered so in the listing `tally moves` last showed."""
    pos = position(path, at)
    first = MOVE_SEPARATOR.split(text.strip())[0]
    if as_listed and at is None and is_move_number(first):
        refused = listing_refusal(str(path), pos.spec, pos.table.state, (pos.seq, pos.log.fingerprint), first, text)
        if refused is not None:
            return refused
    result = propose(pos.spec, pos.table, text)
    result.path = str(path)
    return result


def move(
    path: "Path | str | LogStore",
    text: str,
    expect_seq: int | None = None,
    expect_fingerprint: str | None = None,
    as_listed: bool = False,
) -> MoveResult:
    """Append the move(s) `text` only if legal; otherwise return the ruling and append nothing."""
    return GameRecord(path).append(text, expect_seq, expect_fingerprint, as_listed)


def undo(
    path: "Path | str | LogStore",
    reason: str,
    turn: bool = False,
    expect_seq: int | None = None,
    expect_fingerprint: str | None = None,
) -> MoveResult:
    """Void the last effective event, or with `turn` every event of the last turn."""
    return GameRecord(path).undo(reason, turn, expect_seq, expect_fingerprint)


def correct(
    path: "Path | str | LogStore",
    target: int,
    reason: str,
    move: str | None = None,
    expect_seq: int | None = None,
    expect_fingerprint: str | None = None,
) -> MoveResult:
    """Void event `target` (any effective one), or with `move` replace it; refused when a later event breaks."""
    return GameRecord(path).correct(target, reason, move, expect_seq, expect_fingerprint)


def note(
    path: "Path | str | LogStore",
    text: str,
    player: str | None = None,
    expect_seq: int | None = None,
    expect_fingerprint: str | None = None,
) -> MoveResult:
    return GameRecord(path).note(text, player, expect_seq, expect_fingerprint)


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector held off while a log is read and folded: the fold keeps every state it makes
    (the undo stack, the frames), so each collection would walk them all again to find no cycle in them."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def replay(path: "Path | str | LogStore", to: int | None = None) -> tuple[Position, list[Frame]]:
    """Every event up to `to` with the state after it. A log with an illegal event raises IllegalLog."""
    from tally.store.logs.logstore import read_log

    with _collector_paused():
        return replay_log(read_log(path), to)


def seat_as(name: str, seats: list[str]) -> str:
    """The seat `--as NAME` means (any case when only one player has it); UsageError when none."""
    named = seat_named(name, seats)
    if named is None:
        raise UsageError(f"--as {quote(name)}: no such player (players: {', '.join(seats)})")
    return named


def moves(path: Path | str, at: int | None = None, viewer: str | None = None) -> "ListingReport":
    """The legal moves after `at` (default: now); with `viewer`, as that seat knows the table (`tally moves --as`:
    its own cards named, another seat's hidden ones unknown). At the log's tail the listing is remembered, so that
    `tally move LOG N` means the move numbered N here, or is refused as stale once the log moves on; a seat's
    listing that differs from the log's (the log knows cards the seat does not) numbers no move for `tally move`."""
    pos = position(path, at)
    spec, state = pos.spec, pos.table.state
    legal = spec.legal_moves(state)
    if viewer is not None:
        viewer = seat_as(viewer, pos.log.started.seats)
    shown = legal if viewer is None else seat_moves(spec, state, viewer)
    if at is None or at == len(pos.log.events):
        if shown == legal:
            cache.remember_listing(
                str(path), pos.seq, pos.log.fingerprint, len(legal), listing_range(spec, state, len(legal))
            )
        else:
            cache.remember_listing(
                str(path),
                pos.seq,
                pos.log.fingerprint,
                0,
                f"none: the listing --as {viewer} hides cards the log knows, so name the move",
            )
    from tally.store.recording.results import numbered

    return numbered(spec, state, pos.seq, shown, viewer)


def logs_in(paths: Sequence["Path | str | LogStore"]) -> list[Any]:
    """The logs `tally check` is given: each path as it is, a folder as every `*.jsonl` in it, sorted by name
    (a game of a log store: as it is). A folder without one is a usage error."""
    logs: list[Any] = []
    for named in paths:
        if not isinstance(named, (str, Path)):
            logs.append(named)
            continue
        path = Path(named)
        if is_folder_of_logs(path):
            found = sorted(p for p in path.glob("*.jsonl") if not p.is_dir())
            if not found:
                raise UsageError(f"{path}: a folder without a *.jsonl log in it")
            logs += found
        else:
            logs.append(path)
    return logs


def is_folder_of_logs(path: Path) -> bool:
    """A folder `tally check` reads every log of. A name ending in `.jsonl` names a log, whatever it is: such a
    folder is refused as not a regular file, like a log that is a pipe or a device."""
    return path.is_dir() and not path.name.endswith(".jsonl")


def names_a_library_game(text: str) -> bool:
    """Whether `tally replay TEXT` means a game of the history library: no file has that name, and a library
    is named by `$TALLY_DB` or lies in the current folder (as the library's commands find it, `resolve_db`)."""
    import os

    return not os.path.lexists(text) and bool(os.environ.get("TALLY_DB") or os.path.exists("tally.duckdb"))


def check(path: "Path | str | LogStore", anchors: Sequence[tuple[int, str]] = ()) -> "CheckReport":
    """`tally check`: integrity, the anchors, then every event judged (`results.check`)."""
    from tally.store.recording.results import check as checked

    with _collector_paused():
        return checked(path, anchors)
