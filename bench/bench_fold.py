"""Benchmark of the fold, per game: the plain path against the compiled one, and each written-out copy in a game's
guards and reducers against the plain helper it copies. Run `python bench/bench_fold.py` (--quick: a smoke run).

1. Fold: `engine.judge` as `tally check` runs it (the compiled path, `core/dispatch.py`) against `judge_plainly`
   (`Table.check` and `Table.apply`, event after event), over the same random logs (open and table mode).
2. Check: each event judged on the state before it, by the compiled judge of its kind and phase against the plain
   `Guards.check` (the guards alone: no reducer).
3. Written out: each copy of a helper that a game keeps for speed (`bench/written_out.py`), against the same
   function calling the plain helper, swapped in for the run: the game's fold (what `tally check` pays) of its open
   logs and of its table logs, and the part it lives in (its check, or its reducers' apply). A copy stays in a game
   only while it pays (about 3% or more on the fold of either); its comment there cites this benchmark and the figure.

Every figure that compares is a ratio measured in this run: the two sides are timed in turn (A B, then B A, ...),
each pair's ratio taken and the median printed (> 1: the plain side is slower). `--json` prints one document.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any, Callable, Iterator

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parent))

from written_out import COPIES, Copy  # noqa: E402  (the bench's own folder, put on the path above)

from tally.core import dispatch, registry  # noqa: E402
from tally.core.engine import judge, judge_plainly  # noqa: E402
from tally.core.model import Event, GameSpec  # noqa: E402
from tally.store.recording.simulate import playout  # noqa: E402

# logs per game (half open, half table mode), so that each fold of a sample takes a comparable time
GAMES = {"splendor": 40, "split": 12, "array": 12, "splice": 4}
LIMIT = 4000  # events of a log at most: a Splice game runs to thousands
# a written-out copy pays when the plain helper makes the game's fold about 3% slower: 2.5% or more, as a figure
# moves by about a point from run to run
THRESHOLD = 1.025


# --------------------------------------------------------------------------- the sample


def sample(game: str, logs: int, seed: int) -> list[list[Event]]:
    """Random legal games of `game` from the deal to the end (cut at LIMIT events), numbered as a log is: every
    other one as a table records it (reveals, hidden cards unknown)."""
    spec = registry.get(game)
    rng = random.Random(seed)
    out = []
    for index in range(logs):
        players = rng.randint(spec.min_seats, min(spec.max_seats, 4))
        events, _ = playout(game, players, rng)
        if index % 2:
            events = list(spec.table_transcript(events))
        out.append([msgspec.structs.replace(event, seq=seq) for seq, event in enumerate(events[:LIMIT], 1)])
    return out


Positions = list[tuple[Any, Event]]  # each event of a log with the state before it


def positions(spec: GameSpec, logs: list[list[Event]]) -> list[Positions]:
    found = []
    for events in logs:
        state, pairs = spec.start(events[0]), []
        for event in events[1:]:
            pairs.append((state, event))
            state = spec.apply(state, event)
        found.append(pairs)
    return found


# --------------------------------------------------------------------------- what is timed


def fold_compiled(spec: GameSpec, logs: list[list[Event]]) -> Any:
    return [judge(spec, events, undoable=False) for events in logs]


def fold_plain(spec: GameSpec, logs: list[list[Event]]) -> Any:
    return [judge_plainly(spec, events) for events in logs]


def check_compiled(spec: GameSpec, logs: list[Positions]) -> Any:
    found = []
    for pairs in logs:
        judges = dispatch.judges(spec, pairs[0][0])
        found.append([judges[type(event)][state.phase](state, event) for state, event in pairs])
    return found


def check_plain(spec: GameSpec, logs: list[Positions]) -> Any:
    check = spec.check
    return [[check(state, event) for state, event in pairs] for pairs in logs]


def applied(spec: GameSpec, logs: list[Positions]) -> Any:
    reduce = dispatch.reducers_of(spec.apply, spec.events)
    return [[reduce[type(event)](state, event) for state, event in pairs] for pairs in logs]


def seconds(work: Callable[[], Any], setting: Callable[[], Any] = nullcontext) -> float:
    """The processor seconds `work` takes, in `setting` (made before the clock starts): this process's own time, as
    a machine shared with other work makes the wall clock wait for a core."""
    with setting():
        gc.collect()
        start = time.process_time()
        work()
        return time.process_time() - start


def paired(
    fast: Callable[[], Any], plain: Callable[[], Any], rounds: int, setting: Callable[[], Any] = nullcontext
) -> tuple[float, float, float]:
    """The median seconds of each side and the median of the pairs' ratios (plain / fast), timed in turn, each
    round in the other order than the last; `plain` runs in `setting`."""
    fasts, plains, ratios = [], [], []
    for round_ in range(rounds):
        if round_ % 2:
            p, f = seconds(plain, setting), seconds(fast)
        else:
            f, p = seconds(fast), seconds(plain, setting)
        fasts.append(f)
        plains.append(p)
        ratios.append(p / f)
    return statistics.median(fasts), statistics.median(plains), statistics.median(ratios)


# --------------------------------------------------------------------------- a written-out copy swapped out


@contextmanager
def swapped(copy: Copy) -> Iterator[None]:
    """The game with `copy.twin` (the plain helper) wherever its code holds `copy.original`: each module's name
    for it, its registered guards, turn steps and reducers; the compiled judges made again."""
    prefix = f"tally.core.games.{copy.game}"
    undo: list[Callable[[], None]] = []

    def put(owner: Any, name: str, value: Any) -> None:
        old = getattr(owner, name)
        setattr(owner, name, value)
        undo.append(lambda: setattr(owner, name, old))

    for name, module in list(sys.modules.items()):
        if name == prefix or name.startswith(prefix + "."):
            for attribute, value in list(vars(module).items()):
                if value is copy.original:
                    put(module, attribute, copy.twin)
    guards = dispatch.guards_of(registry.get(copy.game).check)
    reducers = getattr(registry.get(copy.game).apply, "__self__")
    assert guards is not None
    twin = {
        kind: tuple(copy.twin if g is copy.original else g for g in found) for kind, found in guards.by_kind.items()
    }
    put(guards, "by_kind", twin)
    put(guards, "turn", tuple(copy.twin if step is copy.original else step for step in guards.turn))
    put(reducers, "by_kind", {kind: copy.twin if r is copy.original else r for kind, r in reducers.by_kind.items()})
    dispatch._JUDGES.pop(guards, None)  # the judges close over the guards they were made of
    try:
        yield
    finally:
        for step in reversed(undo):
            step()
        dispatch._JUDGES.pop(guards, None)


def measure_copy(
    copy: Copy, spec: GameSpec, logs: list[list[Event]], pairs: list[Positions], rounds: int, results: dict[str, Any]
) -> None:
    """The plain helper against the copy: on the game's fold of its open logs and of its table logs (a copy may
    matter in one only: a hand the log knows whole is judged card by card), and on the part the copy lives in."""
    part, name = (check_compiled, "check") if copy.part == "check" else (applied, "apply")
    expected = fold_compiled(spec, logs)
    with swapped(copy):  # the twin is the same function: every verdict and state as the copy's
        twins = fold_compiled(spec, logs)
    assert [(j, t.state) for j, t in twins] == [(j, t.state) for j, t in expected], (copy.game, copy.where)
    twin = lambda: swapped(copy)  # noqa: E731
    figures = {}
    for mode, chosen in (("open", logs[::2]), ("table", logs[1::2])):
        _, _, figures[f"on_fold_{mode}"] = paired(
            lambda: fold_compiled(spec, chosen), lambda: fold_compiled(spec, chosen), rounds, twin
        )
    _, _, figures[f"on_{name}"] = paired(lambda: part(spec, pairs), lambda: part(spec, pairs), rounds, twin)
    pays = max(figures["on_fold_open"], figures["on_fold_table"]) >= THRESHOLD
    key = f"{copy.game}: {copy.where}"
    results["copies"][key] = {**{k: round(v, 3) for k, v in figures.items()}, "pays": pays}
    print(
        f"{key}: plain helper / copy {figures['on_fold_open']:.3f} on the fold of open logs, "
        f"{figures['on_fold_table']:.3f} of table logs, {figures[f'on_{name}']:.3f} on {name}"
        f"{'' if pays else '  (does not pay)'}",
        flush=True,
    )


# --------------------------------------------------------------------------- the run


def bench_game(game: str, logs_count: int, rounds: int, seed: int, results: dict[str, Any], copies: bool) -> None:
    spec = registry.get(game)
    logs = sample(game, logs_count, seed)
    pairs = positions(spec, logs)
    events = sum(len(events) for events in logs)
    fast, plain, ratio = paired(lambda: fold_compiled(spec, logs), lambda: fold_plain(spec, logs), rounds)
    check_fast, check_slow, check_ratio = paired(
        lambda: check_compiled(spec, pairs), lambda: check_plain(spec, pairs), rounds
    )
    results["games"][game] = {
        "events": events,
        "fold_eps": round(events / fast),
        "fold_plain_eps": round(events / plain),
        "fold_plain_over_compiled": round(ratio, 3),
        "check_eps": round(events / check_fast),
        "check_plain_eps": round(events / check_slow),
        "check_plain_over_compiled": round(check_ratio, 3),
    }
    print(f"{game}: {len(logs)} logs, {events:,} events", flush=True)
    print(
        f"{game}: fold events/s compiled {events / fast:,.0f}, plain {events / plain:,.0f}: "
        f"plain / compiled {ratio:.3f}",
        flush=True,
    )
    print(
        f"{game}: check events/s compiled {events / check_fast:,.0f}, plain {events / check_slow:,.0f}: "
        f"plain / compiled {check_ratio:.3f}",
        flush=True,
    )
    if copies:
        for copy in COPIES:
            if copy.game == game:
                measure_copy(copy, spec, logs, pairs, rounds, results)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: two logs a game, three rounds")
    parser.add_argument("--game", action="append", help="only this game (repeat; default: every game)")
    parser.add_argument("--rounds", type=int, default=15, help="timed pairs per comparison (default 15)")
    parser.add_argument("--no-copies", action="store_true", help="plain against compiled only")
    parser.add_argument("--json", action="store_true", help="print one JSON document after the lines")
    args = parser.parse_args()
    results: dict[str, Any] = {"games": {}, "copies": {}, "python": sys.version.split()[0]}
    for game in args.game or registry.names():
        logs = 2 if args.quick else GAMES.get(game, 10)
        bench_game(game, logs, 3 if args.quick else args.rounds, 2026, results, not args.no_copies)
    if args.json:
        print(json.dumps(results))


if __name__ == "__main__":
    main()
