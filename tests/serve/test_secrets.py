"""What a seat may learn from `tally serve`: every answer a seat or a watcher gets is a function of what that caller
may know (docs/security.md). Tested with twin games that the caller cannot tell apart: the other seats' hidden cards
exchanged among the cards the caller cannot locate. Both twins are served, the same requests are sent to both as that
caller (every read, the referee's answer to a sweep of questions naming every card in every form the caller can type,
refused moves, and its next move), and every answer must be the same, byte for byte, but for the hashes: those are
salted (random), so each is replaced by the order in which it first appears. A twin the caller CAN tell apart must
give different answers: that control shows the comparison would see a leak."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any, Callable

import httpx
import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from support import array_helpers, splice_helpers, split_helpers
from support.harness import concealed_names
from support.serve_helpers import AUTH, HOST, Stream, bearer, run, transcript
from tally.core import registry
from tally.core.engine import Table, judge
from tally.core.model import TABLE, Event, GameStarted
from tally.serve.app import create_app
from tally.store.logs import log as logfile
from tally.store.recording import picking
from tally.store.recording.secrecy import WATCHER, hidden_text, is_known_to, salted
from tally.store.recording.service import describe, seat_moves

GAMES = registry.names()
# the games whose table-mode deal may leave the seated hands for each seat to name itself (`hand_named`)
BY_SEAT: dict[str, Callable[[list[Event]], list[Event]]] = {
    "split": split_helpers.hands_by_seat,
    "array": array_helpers.hands_by_seat,
    "splice": splice_helpers.hands_by_seat,
}
ENVELOPE = frozenset({"type", "seq", "at", "prev", "unit", "salt", "by"})


# --------------------------------------------------------------------------- twins


def _swapped(value: Any, swap: dict[str, str]) -> Any:
    if isinstance(value, dict):
        return {swap.get(k, k) if isinstance(k, str) else k: _swapped(v, swap) for k, v in value.items()}
    if isinstance(value, list):
        return [_swapped(v, swap) for v in value]
    return swap.get(value, value) if isinstance(value, str) else value


def swap_in(event: Event, swap: dict[str, str]) -> Event:
    """The event with every name of `swap` (a card, a piece, a disk) exchanged for its partner, envelope left alone."""
    if isinstance(event, GameStarted):
        return event
    fields = msgspec.to_builtins(event)
    changed = {key: value if key in ENVELOPE else _swapped(value, swap) for key, value in fields.items()}
    return msgspec.convert(changed, type(event))


def _strings(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in value.items())) if value else set()
    if isinstance(value, list):
        return set().union(*(_strings(v) for v in value)) if value else set()
    return {value} if isinstance(value, str) else set()


def names_in(events: list[Event]) -> set[str]:
    found: set[str] = set()
    for event in events[1:]:
        fields = msgspec.to_builtins(event)
        found |= _strings({k: v for k, v in fields.items() if k not in ENVELOPE and k != "player"})
    return found - set(events[0].seats) - {""}  # type: ignore[attr-defined]


def seen_by(spec: Any, events: list[Event], viewer: str) -> list[tuple[Any, str]]:
    """What `viewer` knows after each event: its table (the game's `conceal`) and the event's line as it reads it."""
    table = Table(spec, events[0])  # type: ignore[arg-type]
    seen = []
    for event in events[1:]:
        before = table.state
        table.apply(event)
        text = describe(spec, event) if is_known_to(spec, before, table.state, event, viewer) else hidden_text(event)
        seen.append((spec.conceal(table.state, viewer), text))
    return seen


def is_legal(spec: Any, events: list[Event]) -> bool:
    return judge(spec, events)[0].ok


def twin_of(
    spec: Any, events: list[Event], cut: int, viewer: str, rng: random.Random, tell_apart: bool = False
) -> tuple[list[Event], dict[str, str]] | None:
    """`events[:cut]` with two names exchanged in the lines `viewer` cannot read, so that the log stays legal and the
    viewer knows exactly the same after every event (`tell_apart`: exchanged in every line, so that it does not); None
    when no such pair is found. The names are those the whole game names (a card drawn later lies unseen in the pile
    now)."""
    head = events[:cut]
    mine = seen_by(spec, head, viewer)
    hidden = [text.endswith("(hidden)") for _, text in mine]  # the lines the viewer reads only as who did what
    named = sorted(names_in([head[0], *(event for event, unseen in zip(head[1:], hidden) if unseen or tell_apart)]))
    last_read: dict[
        str, int
    ] = {}  # each name, the last line the viewer read it in (1: the first event after the start)
    for index, (event, unseen) in enumerate(zip(head[1:], hidden), 1):
        if not unseen:
            last_read.update((name, index) for name in names_in([head[0], event]))
    pool = sorted(names_in(events))
    rng.shuffle(named)
    rng.shuffle(pool)
    tries = 0
    for first in named:
        for second in pool:
            if second == first:
                continue
            swap = {first: second, second: first}
            # exchanged in the lines the viewer cannot read, after it last read either name (a card it saw laid, and
            # its entry in a hand dealt before, stay as they were)
            twin = [head[0]] + [
                swap_in(event, swap)
                if tell_apart or (unseen and index > last_read.get(first, 0) and index > last_read.get(second, 0))
                else event
                for index, (event, unseen) in enumerate(zip(head[1:], hidden), 1)
            ]
            if twin == head:
                continue
            tries += 1
            if tries > 200:
                return None
            if not is_legal(spec, twin):
                continue
            if (seen_by(spec, twin, viewer) == mine) != tell_apart:
                return twin, swap
    return None


def seated_game(game: str, seed: int, by_seat: bool) -> list[Event]:
    events = transcript(game, seed=seed)
    if by_seat and game in BY_SEAT:
        events = BY_SEAT[game](events)
    return [msgspec.structs.replace(event, seq=i) for i, event in enumerate(events, 1)]


def write_salted(path: Path, spec: Any, events: list[Event]) -> None:
    """The log as the record service writes it: every line a seat may not read carries a salt."""
    started = events[0]
    begun = Table(spec, started).state  # type: ignore[arg-type]
    logfile.create(path, [started, *salted(spec, started.seats, begun, events[1:])])  # type: ignore[attr-defined]


# --------------------------------------------------------------------------- the requests of one caller


HEX64 = re.compile(r"[0-9a-f]{64}")


def normalised(body: bytes, hashes: dict[str, str]) -> str:
    """An answer with each SHA-256 (and its 8-digit anchor) replaced by the order it first appeared in."""
    text = body.decode()
    for found in HEX64.findall(text):
        hashes.setdefault(found, f"H{len(hashes)}")
    for full, name in hashes.items():
        text = text.replace(full, name).replace(full[:8], name.lower())
    return text


def probes_for(
    spec: Any, states: list[Any], viewer: str, pool: list[str], rng: random.Random, count: int, swapped: list[str]
) -> list[str]:
    """What the caller could type: its listing, every seat's legal moves on both twins' whole tables (naming their
    hidden cards), those forms with each name of the box in place of the one they name, and every form with each of
    the names the twins exchanged (where a leak would show) in place of each name it holds."""
    forms: list[str] = []
    for state in states:
        forms += [spec.format(move) for move in seat_moves(spec, state, viewer or None)]
        forms += [spec.format(move) for move in spec.legal_moves(state)]
    forms = sorted(set(forms))
    probes = set(forms)
    words = set(pool)
    for form in rng.sample(forms, min(8, len(forms))):
        tokens = form.split(" ")
        at = next((index for index, token in enumerate(tokens) if token in words), None)
        if at is not None:
            probes.update(" ".join(tokens[:at] + [name] + tokens[at + 1 :]) for name in pool)
    chosen = sorted(probes)
    rng.shuffle(chosen)
    sharp = set()
    for form in forms:
        tokens = form.split(" ")
        for at, token in enumerate(tokens):
            if token in words:
                sharp.update(" ".join(tokens[:at] + [name] + tokens[at + 1 :]) for name in swapped)
    return sorted(set(chosen[:count]) | sharp)


async def answers(
    http: Any, app: Any, headers: dict[str, str], probes: list[str], seq: int, move: str | None
) -> list[tuple[str, int, str]]:
    """Every answer the caller gets, in order: the reads, the stream, each probe's ruling, each probe the referee
    refused sent as a move (nothing is recorded), then its next move and the reads after it."""
    hashes: dict[str, str] = {}
    got: list[tuple[str, int, str]] = []

    async def ask(method: str, path: str, body: Any = None) -> int:
        answer = await (
            http.get(path, headers=headers) if method == "GET" else http.post(path, json=body, headers=headers)
        )
        got.append((f"{method} {path} {body}", answer.status_code, normalised(answer.content, hashes)))
        return answer.status_code

    async def reads() -> None:
        for path in (
            "/api/games",
            "/api/games/g",
            "/api/games/g/moves",
            "/api/games/g/names",
            "/api/games/g/pieces",
            "/api/games/g/events?after=0",
            "/games/g/picture.svg",
            "/api/games/g/outline",
            "/api/games/g/history?limit=200",
        ):
            await ask("GET", path)
        # what an undo would take back (a seat's own last event), asked and not done
        now = (await http.get("/api/games/g", headers=headers)).json()["seq"]
        await ask("POST", "/api/games/g/undo", {"reason": "asked", "expected_seq": now, "preview": True})

    await reads()
    status, lines = await Stream(app, f"/api/games/g/stream?after={max(0, seq - 4)}", headers).read(min(seq, 4), 5.0)
    got.append(("stream", status, normalised(repr(lines).encode(), hashes)))
    refused = []
    for probe in probes:
        if await ask("POST", "/api/games/g/rule", {"move": probe}) in (400, 422):
            refused.append(probe)
    for probe in refused[:25]:
        assert await ask("POST", "/api/games/g/moves", {"move": probe, "expected_seq": seq}) in (400, 403, 422)
    if move is not None:
        assert await ask("POST", "/api/games/g/moves", {"move": move, "expected_seq": seq}) == 201, got[-1]
        await reads()
    return got


def serve_twins(
    tmp_path: Path, spec: Any, logs: list[list[Event]], viewer: str, probes: list[str], move: str | None
) -> list[list[tuple[str, int, str]]]:
    """The same requests, as `viewer` (a seat, or a watcher: `WATCHER`), to one server per log."""
    results = []
    for index, events in enumerate(logs):
        folder = tmp_path / f"twin{index}"
        folder.mkdir()
        write_salted(folder / "g.jsonl", spec, events)
        app = create_app(folder, HOST)

        async def scenario() -> list[tuple[str, int, str]]:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://table") as http:
                headers: dict[str, str] = {}
                if viewer != WATCHER:
                    joined = await http.post("/api/games/g/join", json={"seat": viewer}, headers=AUTH)
                    headers = bearer(joined.json()["token"])
                return await answers(http, app, headers, probes, len(events), move)

        results.append(run(scenario()))
    return results


def first_difference(one: list[tuple[str, int, str]], other: list[tuple[str, int, str]]) -> tuple[Any, Any] | None:
    for a, b in zip(one, other):
        if a != b:
            return a, b
    return None if len(one) == len(other) else (len(one), len(other))


# --------------------------------------------------------------------------- the properties


def _case(
    game: str, seed: int, place: float, who: int, by_seat: bool, tell_apart: bool
) -> tuple[Any, list[Event], list[Event], str, list[str], str | None] | None:
    spec = registry.get(game)
    events = seated_game(game, seed, by_seat)
    cut = max(3, int(len(events) * place))
    seats = list(events[0].seats)  # type: ignore[attr-defined]
    viewer = ([*seats, WATCHER])[who % (len(seats) + 1)]
    rng = random.Random(seed)
    found = twin_of(spec, events, cut, viewer, rng, tell_apart)
    if found is None:
        return None
    twin, swap = found
    head = events[:cut]
    states = [Table(spec, head[0]).state, Table(spec, twin[0]).state]  # type: ignore[arg-type]
    for index, log in enumerate((head, twin)):
        table = Table(spec, log[0])  # type: ignore[arg-type]
        for event in log[1:]:
            table.apply(event)
        states[index] = table.state
    probes = probes_for(spec, states, viewer, sorted(names_in(events)), rng, 120, sorted(swap))
    move = None
    if viewer != WATCHER and cut < len(events):
        following = events[cut]
        if getattr(following, "player", None) == viewer and swap_in(following, swap) == following:
            move = spec.format(following)
    return spec, head, twin, viewer, probes, move


@pytest.mark.parametrize("game", GAMES)
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(seed=st.integers(0, 10_000), place=st.floats(0.1, 1.0), who=st.integers(0, 8), by_seat=st.booleans())
def test_a_seat_cannot_tell_twin_games_apart(
    tmp_path_factory: pytest.TempPathFactory, game: str, seed: int, place: float, who: int, by_seat: bool
) -> None:
    """Twin logs the caller cannot tell apart (two of the names only other seats' entries hold, or the pile, swapped
    everywhere): every answer of both servers to that caller is the same."""
    case = _case(game, seed, place, who, by_seat, tell_apart=False)
    assume(case is not None)  # nothing hidden from this caller here to exchange
    assert case is not None
    spec, head, twin, viewer, probes, move = case
    one, other = serve_twins(tmp_path_factory.mktemp("twins"), spec, [head, twin], viewer, probes, move)
    assert len(one) >= 6  # the reads and the stream, at least (a game over has no move to ask about)
    assert first_difference(one, other) is None, (viewer, first_difference(one, other))


@pytest.mark.parametrize("game", GAMES)
def test_the_twin_comparison_sees_a_difference_the_seat_could_see(tmp_path: Path, game: str) -> None:
    """The control: twins the caller CAN tell apart (a name it can locate exchanged) give answers that differ, so the
    property above would see a leak."""
    for seed in range(20):
        case = _case(game, seed, 0.5, seed, seed % 2 == 1, tell_apart=True)
        if case is not None:
            break
    assert case is not None
    spec, head, twin, viewer, probes, move = case
    one, other = serve_twins(tmp_path, spec, [head, twin], viewer, probes[:20], None)
    assert first_difference(one, other) is not None


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_twins_to_tell_apart(game: str) -> None:
    """The property has something to find in every game: for most seats and positions some hidden name can be
    exchanged (a walk over a game where nothing is hidden would prove nothing)."""
    found = sum(_case(game, seed, 0.5, seed, seed % 2 == 1, tell_apart=False) is not None for seed in range(8))
    assert found >= 4, found


def _owing_cuts(spec: Any, events: list[Event]) -> list[int]:
    """The cuts of a seated game where a seat owes what it types (a hand, cards picked up or drawn) or the table owes
    an entry (from the dealer's device, or any seat's): where the listing's `owed` says the most."""
    table = Table(spec, events[0])  # type: ignore[arg-type]
    found = []
    for cut, event in enumerate(events[1:], 2):
        table.apply(event)
        if any(due.form is not None or due.seat == TABLE for due in spec.owed(table.state)):
            found.append(cut)
    return found


@pytest.mark.parametrize("game", GAMES)
def test_what_a_seat_owes_is_the_same_in_twin_games(tmp_path: Path, game: str) -> None:
    """What each seat is told it owes (the listing's `owed`), and how its bare move is read (`hand ...` on its own
    phone is its own), rest on what it knows: at positions where a seat owes what it types, or the table an entry
    from one seat's device, twin games that seat cannot tell apart answer it the same, byte for byte; its next move
    is sent bare, as its page's text box sends it."""
    spec = registry.get(game)
    compared = sent = 0
    for seed in range(12):
        events = seated_game(game, seed, by_seat=seed % 2 == 0)
        cuts = _owing_cuts(spec, events)
        rng = random.Random(seed)
        for cut in [cuts[i * len(cuts) // 3] for i in range(3)] if len(cuts) >= 3 else cuts:
            for viewer in events[0].seats:  # type: ignore[attr-defined]
                found = twin_of(spec, events, cut, viewer, rng)
                if found is None:
                    continue
                twin, swap = found
                following = events[cut] if cut < len(events) else None
                move = None
                if (
                    following is not None
                    and getattr(following, "player", None) == viewer
                    and swap_in(following, swap) == following
                ):
                    move = spec.format(following).removeprefix(f"{viewer}: ")  # bare: the page's text box
                folder = tmp_path / f"{seed}-{cut}-{viewer}"
                folder.mkdir()
                one, other = serve_twins(folder, spec, [events[:cut], twin], viewer, [], move)
                owed = [body for asked, _, body in one if asked.startswith("GET /api/games/g/moves")]
                assert owed and all('"owed":[' in body for body in owed)
                assert first_difference(one, other) is None, (viewer, cut, first_difference(one, other))
                compared += 1
                sent += move is not None
        if compared >= 6 and (sent or game == "splendor"):
            break
    assert compared >= 3 and (sent or game == "splendor"), (compared, sent)  # Splendor's table entries are no seat's


# --------------------------------------------------------------------------- the card picker


def _picked(spec: Any, log: list[Event], viewer: str) -> Any:
    """What the card picker offers `viewer` at the end of `log` (`GET .../names`'s answer), and the box's pieces."""
    table = Table(spec, log[0])  # type: ignore[arg-type]
    for event in log[1:]:
        table.apply(event)
    return msgspec.to_builtins(picking.names(spec, table.state, len(log), viewer)), msgspec.to_builtins(
        picking.pieces(spec, table.state)
    )


@pytest.mark.parametrize("game", GAMES)
def test_a_seats_card_picker_cannot_tell_twin_games_apart(game: str) -> None:
    """What the picker offers a seat (every piece it cannot locate, wherever it lies, and the moves its own listing
    holds) is the same in twin games that seat cannot tell apart, over many seeds and positions where something is
    offered; in twins it can tell apart (a card it holds exchanged with one it cannot see) the offer differs somewhere,
    so the comparison would see a leak."""
    spec = registry.get(game)
    offered = differed = 0
    for seed in range(6):
        events = seated_game(game, seed, seed % 2 == 0)
        rng = random.Random(seed)
        # positions where a seat is to move: its picker has something to offer then
        cuts = [cut for cut in range(3, len(events)) if getattr(events[cut], "player", None)]
        for cut in rng.sample(cuts, min(4, len(cuts))):
            viewer = events[cut].player  # type: ignore[attr-defined]
            for tell_apart in (False, True):
                found = twin_of(spec, events, cut, viewer, rng, tell_apart)
                if found is None:
                    continue
                one, other = _picked(spec, events[:cut], viewer), _picked(spec, found[0], viewer)
                if tell_apart:
                    differed += one != other
                else:
                    assert one == other, (seed, cut, viewer)
                    offered += bool(one[0]["namings"])
    assert offered >= 4 and differed >= 1, (offered, differed)


# --------------------------------------------------------------------------- the hash chain


def _hidden_lines(spec: Any, events: list[Event]) -> list[tuple[int, str]]:
    """(index, viewer) for each line some seat or a watcher may not read."""
    found = []
    seats = list(events[0].seats)  # type: ignore[attr-defined]
    table = Table(spec, events[0])  # type: ignore[arg-type]
    for index, event in enumerate(events[1:], 1):
        before = table.state
        table.apply(event)
        for viewer in (*seats, WATCHER):
            if not is_known_to(spec, before, table.state, event, viewer):
                found.append((index, viewer))
                break
    return found


@pytest.mark.parametrize("game", GAMES)
def test_no_hash_a_seat_sees_can_be_matched_by_trying_candidates(tmp_path: Path, game: str) -> None:
    """The attack of issue 32: right after another seat's hidden line, the fingerprint a seat is shown is the SHA-256 of
    that line, whose every other field the seat knows or can guess (type, seq, prev, player, `at` to the second). The
    strongest such attacker, who guesses the line's content exactly, hashes it and compares: on a log written as the
    record service writes it (every hidden line salted) nothing matches, for every kind of hidden line; on the same log
    unsalted, the exact guess matches every time (the attack works, so the test would see it succeed)."""
    spec = registry.get(game)
    kinds: set[str] = set()
    for index, events in enumerate((seated_game(game, 7, False), seated_game(game, 8, True))):
        hidden = _hidden_lines(spec, events)
        assert hidden, "the game has hidden lines to attack"
        salted_path, plain_path = tmp_path / f"salted{index}.jsonl", tmp_path / f"plain{index}.jsonl"
        write_salted(salted_path, spec, events)
        logfile.create(plain_path, events)
        for path, is_salted in ((salted_path, True), (plain_path, False)):
            log = logfile.read(path)
            for at, _ in hidden:
                written = log.events[at]
                assert (written.salt is not None) == is_salted, (path.name, at, type(written).__name__)
                guess = msgspec.structs.replace(written, salt=None)  # all the line holds but the salt
                shown = log.fingerprint_at(written.seq)  # the fingerprint every seat is shown after it
                assert (logfile.sha256_hex(logfile.encode(guess)) == shown) == (not is_salted)
                kinds.add(type(written).__name__)
    assert kinds, kinds


def test_a_salt_is_fresh_random_hex_on_exactly_the_lines_someone_may_not_read(tmp_path: Path) -> None:
    """Salts come from the operating system (no two alike), 128 bits as lowercase hex, and only on the lines that
    hold a secret: a log of public moves stays as small as before."""
    spec = registry.get("splendor")
    events = seated_game("splendor", 3, False)
    write_salted(tmp_path / "g.jsonl", spec, events)
    log = logfile.read(tmp_path / "g.jsonl")
    hidden = {at for at, _ in _hidden_lines(spec, events)}
    salts = [event.salt for event in log.events if event.salt is not None]
    assert [i for i, event in enumerate(log.events) if event.salt is not None] == sorted(hidden)
    assert len(set(salts)) == len(salts) and all(re.fullmatch(r"[0-9a-f]{32}", salt) for salt in salts)


# --------------------------------------------------------------------------- what a seat may enter


async def _seat(http: Any, name: str) -> dict[str, str]:
    joined = await http.post("/api/games/g/join", json={"seat": name}, headers=AUTH)
    assert joined.status_code == 201, joined.text
    return bearer(joined.json()["token"])


def _served(tmp_path: Path, game: str, events: list[Event]) -> Any:
    write_salted(tmp_path / "g.jsonl", registry.get(game), events)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=create_app(tmp_path, HOST)), base_url="http://table")


def _at_a_draw(game: str, seat: str) -> tuple[list[Event], Event]:
    """A seated Split game cut where `seat` is to draw, and the draw it made."""
    events = seated_game(game, 7, False)
    for index, event in enumerate(events):
        if type(event).__name__ == "CardDrawn" and getattr(event, "player", None) == seat and index > 20:
            return events[:index], event
    raise AssertionError("no draw")


def test_a_move_number_means_the_listing_that_seat_was_shown(tmp_path: Path) -> None:
    """Second list, 1: as p1, `"move": "N"` was read against the host's full listing (where the log knows every
    hand), so numbers past p1's own listing named other seats' cards and a number could record another card than
    the one p1's listing showed. A number means the listing the caller was shown, for a question and a move."""
    events, drawn = _at_a_draw("split", "p1")
    spec = registry.get("split")

    async def scenario() -> None:
        async with _served(tmp_path, "split", events) as http:
            p1 = await _seat(http, "p1")
            listing = (await http.get("/api/games/g/moves", headers=p1)).json()
            full = (await http.get("/api/games/g/moves", headers=AUTH)).json()
            assert len(full["moves"]) != len(listing["moves"]) or full["moves"] != listing["moves"]
            wanted = spec.format(drawn)
            number = listing["moves"].index(wanted) + 1
            asked = (await http.post("/api/games/g/rule", json={"move": str(number)}, headers=p1)).json()
            assert [line["text"] for line in asked["events"]] == [wanted]
            past = await http.post("/api/games/g/rule", json={"move": str(len(listing["moves"]) + 1)}, headers=p1)
            assert past.status_code == 400 and past.json()["notation_kind"] == "unknown"
            moved = await http.post(
                "/api/games/g/moves", json={"move": str(number), "expected_seq": len(events)}, headers=p1
            )
            assert moved.status_code == 201, moved.text
            assert [line["text"] for line in moved.json()["events"]] == [wanted]

    run(scenario())


def test_a_seat_cannot_amend_its_event_into_another_seats(tmp_path: Path) -> None:
    """Second list, 2: amend checked whose event was replaced, not the replacement, so p1 turned its own hand entry
    into p2's hand with cards it chose, and p2's own entry was then refused. Every part of a correction is held to
    the seat rules of a move: 403 `serve.seat.other`, nothing appended."""
    events = BY_SEAT["split"](seated_game("split", 7, False))
    named = [i for i, e in enumerate(events) if type(e).__name__ == "HandNamed"]
    first = named[0]
    own = events[first]
    other = events[named[1]]
    cut = named[1]  # p?'s hand is named; the next seat's is still owed
    spec = registry.get("split")

    async def scenario() -> None:
        async with _served(tmp_path, "split", events[:cut]) as http:
            owner = await _seat(http, own.player)  # type: ignore[attr-defined]
            forged = spec.format(msgspec.structs.replace(other, seq=0))
            amended = await http.post(
                "/api/games/g/amend",
                json={"target": first + 1, "move": forged, "reason": "typo", "expected_seq": cut},
                headers=owner,
            )
            assert amended.status_code == 403 and amended.json()["error"] == "serve.seat.other", amended.text
            bare = forged.split(": ", 1)[1]  # the same cards as its own hand: its own to correct
            kept = await http.post(
                "/api/games/g/amend",
                json={"target": first + 1, "move": bare, "reason": "typo", "expected_seq": cut},
                headers=owner,
            )
            assert kept.status_code in (201, 422), kept.text
            assert "serve.seat.other" not in kept.text

    run(scenario())
    assert len(logfile.read(tmp_path / "g.jsonl").events) in (cut, cut + 1)


@pytest.mark.parametrize("game", ["split", "splice", "array"])
def test_core_seat_others_secret(tmp_path: Path, game: str) -> None:
    """Point 4: a seat's device enters the table's entries but none that names another seat's hidden cards (Splice:
    `disks ana r ben b cy g`, listed 60 times to every phone, set every seat's secret disk from one phone): no listed
    move of a seat names one, and such an entry is refused (`core.seat.others-secret`), nothing appended; the host
    may still enter it, and each seat names its own."""
    spec = registry.get(game)
    events = seated_game(game, 7, False)
    deal = next(
        i
        for i, e in enumerate(events)
        if i and getattr(e, "player", None) is None and not names_in([events[0], e]) <= set()
    )
    entry = spec.format(events[deal])

    async def scenario() -> None:
        async with _served(tmp_path, game, events[:deal]) as http:
            for seat in events[0].seats:  # type: ignore[attr-defined]
                headers = await _seat(http, seat)
                listing = (await http.get("/api/games/g/moves", headers=headers)).json()["moves"]
                table = Table(spec, events[0])  # type: ignore[arg-type]
                for event in events[1:deal]:
                    table.apply(event)
                known = spec.conceal(table.state, seat)
                for text in listing:
                    for move in spec.parse(known, text) if not text.isdigit() else []:
                        if getattr(move, "player", None) is None:
                            after = spec.apply(known, move)
                            assert spec.conceal(after, seat) == after, (seat, text)
                refused = await http.post(
                    "/api/games/g/moves", json={"move": entry, "expected_seq": deal}, headers=headers
                )
                assert refused.status_code == 422, refused.text
                assert refused.json()["rulings"][0]["rule"] == "core.seat.others-secret"
            assert (
                await http.post("/api/games/g/moves", json={"move": entry, "expected_seq": deal}, headers=AUTH)
            ).status_code == 201

    run(scenario())


def test_core_seat_conflict(tmp_path: Path) -> None:
    """Point 2: p1 draws a card p2 entered in its hand (someone mistyped). Judged on what p1 knows it is legal, so
    the question says so, as for any card p1 cannot place; the move is refused as `core.seat.conflict` in words that
    name no seat and no card, nothing appended; the host's conflicts list it with the whole table's ruling."""
    events, drawn = _at_a_draw("split", "p1")
    spec = registry.get("split")
    table = Table(spec, events[0])  # type: ignore[arg-type]
    for event in events[1:]:
        table.apply(event)
    held = sorted(concealed_names(table.state, spec.conceal(table.state, "p1")) & names_in(events))
    assert held
    clash = f"p1: draw {held[0]}"

    async def scenario() -> None:
        async with _served(tmp_path, "split", events) as http:
            p1 = await _seat(http, "p1")
            asked = (await http.post("/api/games/g/rule", json={"move": clash}, headers=p1)).json()
            fair = (await http.post("/api/games/g/rule", json={"move": spec.format(drawn)}, headers=p1)).json()
            assert (asked["verdict"], [r["rule"] for r in asked["rulings"]]) == (
                fair["verdict"],
                [r["rule"] for r in fair["rulings"]],
            )
            refused = await http.post(
                "/api/games/g/moves", json={"move": clash, "expected_seq": len(events)}, headers=p1
            )
            assert refused.status_code == 422
            said = refused.json()
            assert [r["rule"] for r in said["rulings"]] == ["core.seat.conflict"]
            assert not {"p2", "p3", held[0]} & set(re.split(r"[\s,;:()'\"]+", said["rulings"][0]["message"]))
            conflicts = (await http.get("/api/games/g/conflicts", headers=AUTH)).json()
            assert [(c["seat"], c["move"], c["seq"]) for c in conflicts] == [("p1", clash, len(events))]
            assert held[0] in conflicts[0]["rulings"][0]["message"]

    run(scenario())
    assert len(logfile.read(tmp_path / "g.jsonl").events) == len(events)


def test_core_seat_other(tmp_path: Path) -> None:
    """A seat's device records, takes back and corrects only that seat's moves and the table's entries: another seat's
    move is refused by the record service (`core.seat.other`, HTTP 403 `serve.seat.other`), nothing appended; a bare
    move is the sending seat's own (`hand ...` from p3's device is p3's hand, not that of whoever acts first)."""
    events = BY_SEAT["split"](seated_game("split", 7, False))
    named = [i for i, e in enumerate(events) if type(e).__name__ == "HandNamed"]
    cut = named[0]  # every seat owes its hand; the transcript names them the last seat first
    spec = registry.get("split")
    own, first = events[named[0]], events[named[-1]]
    service_refusal = None

    async def scenario() -> None:
        nonlocal service_refusal
        async with _served(tmp_path, "split", events[:cut]) as http:
            mover = await _seat(http, own.player)  # type: ignore[attr-defined]
            others = spec.format(first)
            refused = await http.post("/api/games/g/moves", json={"move": others, "expected_seq": cut}, headers=mover)
            assert refused.status_code == 403 and refused.json()["error"] == "serve.seat.other", refused.text
            bare = spec.format(own).split(": ", 1)[1]
            recorded = await http.post("/api/games/g/moves", json={"move": bare, "expected_seq": cut}, headers=mover)
            assert recorded.status_code == 201, recorded.text
            assert recorded.json()["events"][0]["text"] == spec.format(own)
            other = await _seat(http, first.player)  # type: ignore[attr-defined]
            undo = await http.post(
                "/api/games/g/undo", json={"reason": "not mine", "expected_seq": cut + 1}, headers=other
            )
            assert undo.status_code == 403 and undo.json()["error"] == "serve.seat.other", undo.text

    run(scenario())
    from tally.store.recording.service import GameRecord

    service_refusal = GameRecord.open(tmp_path / "g.jsonl").append(spec.format(first), seat=own.player)  # type: ignore[attr-defined]
    assert [r.rule for r in service_refusal.rulings] == ["core.seat.other"]
    assert len(logfile.read(tmp_path / "g.jsonl").events) == cut + 1
