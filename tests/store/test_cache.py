"""The state cache (store/logs/cache.py): derived, disposable, and never trusted over the log.

`record.move` / `record.note` resume from a cached fold when the log is provably the one the
entry was made from (inode, size, mtime, ctime, last line). A warm move must equal a cold one,
and any change to the log — an edit in place with its mtime put back, a line appended by hand,
a replaced file — must send tally back to a full read, so a damaged log is still refused.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tally.core.games import splendor as sp
from tally.core.model import Noted
from tally.store.logs import cache
from tally.store.logs import log as logfile
from tally.store.recording import record, secrecy

AT = "2024-03-01T19:30:00.000Z"
SALT = "5a" * 16  # a fixed salt, for logs that must be byte-identical


def sha(line: bytes) -> str:
    return hashlib.sha256(line).hexdigest()


def outcome_of(outcome: record.MoveResult) -> dict[str, Any]:
    """An outcome as data, without the log's path (the two logs compared live in different files)."""
    document = msgspec.to_builtins(outcome)
    document.pop("path", None)
    return document


def cache_dir() -> Path:
    return Path(os.environ["TALLY_CACHE_DIR"])


def entry_file(path: Path) -> Path:
    return cache._file_for(str(path))


def read_entry(path: Path) -> cache.Entry:
    return msgspec.msgpack.decode(entry_file(path).read_bytes(), type=cache.Entry)


def write_entry(path: Path, entry: cache.Entry) -> None:
    entry_file(path).write_bytes(msgspec.msgpack.encode(entry))


def load(path: Path) -> Any:
    """What `record.move` would get from the cache for this log right now (None: a full read)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        return cache.load(str(path), fd, lambda name: sp.SPLENDOR)
    finally:
        os.close(fd)


@pytest.fixture
def hits(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[bool]]:
    """Per log path, whether each cache.load by the record service found a trusted entry."""
    seen: dict[str, list[bool]] = {}
    real = cache.load

    def spy(path: str, fd: int, spec_for: Any) -> Any:
        found = real(path, fd, spec_for)
        seen.setdefault(os.path.basename(path), []).append(found is not None)
        return found

    monkeypatch.setattr(cache, "load", spy)
    return seen


def started(path: Path) -> bytes:
    record.new_game(path, "splendor", ["ana", "ben"], seed=1)
    return path.read_bytes()


def settle() -> None:
    """Let the coarse kernel clock that stamps ctime/mtime tick past the last append."""
    time.sleep(0.05)


# --------------------------------------------------------------------------- the entry


def test_a_move_leaves_a_cache_entry_matching_the_log(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    started(path)
    assert list(cache_dir().glob("*.state")) == []  # `new` folds nothing worth caching
    outcome = record.move(path, "take r g b")
    assert outcome.accepted
    entries = list(cache_dir().glob("*.state"))
    assert entries == [entry_file(path)]
    entry = read_entry(path)
    data = path.read_bytes()
    last = data[:-1].rsplit(b"\n", 1)[-1]
    info = path.stat()
    assert entry.format == cache.FORMAT and entry.path == os.path.realpath(path)
    assert (entry.inode, entry.size, entry.mtime_ns, entry.ctime_ns) == (
        info.st_ino,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
    )
    assert entry.last_seq == 3 and entry.last_hash == sha(last) == outcome.fingerprint
    assert entry.last_line == len(last) + 1
    cached = load(path)
    assert cached is not None
    spec, start, state, _ = cached
    assert start == logfile.read(path).started
    assert state == record.position(path).table.state  # the cached fold is the full fold


def test_cache_entries_live_where_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TALLY_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    path = tmp_path / "game.jsonl"
    started(path)
    record.move(path, "take r g b")
    assert [p.parent for p in (tmp_path / "xdg").rglob("*.state")] == [tmp_path / "xdg" / "tally"]


# --------------------------------------------------------------------------- warm equals cold


def test_moves_from_the_cache_equal_moves_from_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: dict[str, list[bool]]
) -> None:
    monkeypatch.setattr(logfile, "now", lambda: AT)  # identical `at`: the two logs must be byte-identical
    monkeypatch.setattr(secrecy, "new_salt", lambda: SALT)  # and identical salts on the lines that hold a secret
    warm, cold = tmp_path / "warm.jsonl", tmp_path / "cold.jsonl"
    assert started(warm) == started(cold)
    rng = random.Random(4)

    def both(action: Any) -> None:
        entry_file(cold).unlink(missing_ok=True)  # the cold log never has a cache entry
        a, b = action(warm), action(cold)
        assert outcome_of(a) == outcome_of(b)
        assert warm.read_bytes() == cold.read_bytes()

    for step in range(40):
        pos = record.position(cold)
        legal = pos.spec.legal_moves(pos.table.state)
        if not legal:
            break
        text = pos.spec.format(rng.choice(legal))
        both(lambda p: record.move(p, text))
        if step % 7 == 3:
            both(lambda p: record.move(p, "take y"))  # refused the same way, appending nothing
            both(lambda p: record.move(p, "buy nothing-at-all"))
        if step % 9 == 4:
            both(lambda p: record.note(p, f"step {step}"))
        if step == 20:
            both(lambda p: record.undo(p, "misrecorded"))  # undo reads in full, then re-seeds the cache
    assert record.check(warm).ok
    assert hits["warm.jsonl"].count(True) >= 30 and hits["warm.jsonl"][0] is False
    assert True not in hits["cold.jsonl"]


# --------------------------------------------------------------------------- invalidation


def _damage_line_3(data: bytes) -> bytes:
    """ana took white instead of red: same size, still a valid line; line 4's prev no longer matches."""
    start = data.index(b'"gems":["r","g","b"]')
    assert data.count(b'"gems":["r","g","b"]') == 1
    return data[:start] + b'"gems":["w","g","b"]' + data[start + 20 :]


def test_an_edit_in_place_with_mtime_put_back_is_not_trusted(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    assert record.move(path, "ben: take w w").accepted
    assert load(path) is not None
    entry = read_entry(path)
    settle()
    info = path.stat()
    original = path.read_bytes()
    damaged = _damage_line_3(original)
    with open(path, "r+b") as handle:  # in place: same inode, same size
        handle.write(damaged)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))  # and the mtime put back
    for _ in range(3):  # a file system with coarse timestamps: let ctime move on (utime sets it to now)
        if path.stat().st_ctime_ns != entry.ctime_ns:
            break
        time.sleep(0.6)
        os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (entry.inode, entry.size, entry.mtime_ns)
    assert path.read_bytes()[-entry.last_line :] == original[-entry.last_line :]  # the last line is untouched too
    assert load(path) is None

    result = tally("move", str(path), "ana: take k k")
    assert result.exit_code == 3, result
    assert result.stderr.startswith(f"tally: {path}:4: prev does not match the SHA-256 of line 3")
    assert path.read_bytes() == damaged  # nothing appended to a damaged log


def test_a_line_appended_by_hand_invalidates_the_cache(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    log = logfile.read(path)

    # a valid line added by another program: the next move chains onto it, not onto the cached tail
    _, payload = logfile.stamp([Noted(text="added by hand")], log.events[-1].seq, log.last_hash, logfile.now())
    with open(path, "ab") as handle:
        handle.write(payload)
    assert load(path) is None
    outcome = record.move(path, "ben: take w w")
    assert outcome.accepted and outcome.events[0].seq == 5 and outcome.events[0].prev == sha(payload[:-1])
    assert record.check(path).ok

    # a chained line that breaks a rule: refused with exit 1, nothing appended
    log = logfile.read(path)
    _, payload = logfile.stamp(
        [sp.GemsTaken(player="ben", gems=["k", "k"])], log.events[-1].seq, log.last_hash, logfile.now()
    )
    with open(path, "ab") as handle:
        handle.write(payload)
    before = path.read_bytes()
    result = tally("move", str(path), "ana: take k k")
    assert result.exit_code == 1 and f"{path}:6" in result.stderr and "out-of-turn" in result.stderr
    assert path.read_bytes() == before

    # garbage: exit 3
    other = tmp_path / "other.jsonl"
    started(other)
    assert record.move(other, "take r g b").accepted
    with open(other, "ab") as handle:
        handle.write(b'{"type":"gems_taken","seq":4,"player":"ben","gems":["w","w"]}\n')
    before = other.read_bytes()
    result = tally("move", str(other), "ben: take k k")
    assert result.exit_code == 3 and result.stderr.startswith(f"tally: {other}:4: prev does not match")
    assert other.read_bytes() == before


def test_a_replaced_file_of_the_same_size_and_mtime_is_not_trusted(tmp_path: Path) -> None:
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    assert record.move(path, "ben: take w w").accepted
    info = path.stat()
    replacement = tmp_path / "replacement.jsonl"
    replacement.write_bytes(_damage_line_3(path.read_bytes()))
    os.utime(replacement, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.replace(replacement, path)  # a restore from backup, an editor's save-as-rename, ...
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    assert load(path) is None
    with pytest.raises(logfile.LogError, match="prev does not match"):
        record.move(path, "ana: take k k")


def test_the_last_line_is_checked_even_when_the_file_metadata_agrees(tmp_path: Path) -> None:
    """Defence in depth: a same-size edit of the last line inside one clock tick keeps every stat field."""
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    data = path.read_bytes()
    i = data.rindex(b'"b"]}\n')
    path.write_bytes(data[:i] + b'"k"]}\n')  # the last gem of the last line: ana took black, not blue
    info = path.stat()
    entry = read_entry(path)
    # make the entry agree with everything the file system says, as an unlucky same-tick edit would
    write_entry(
        path,
        msgspec.structs.replace(
            entry, inode=info.st_ino, size=info.st_size, mtime_ns=info.st_mtime_ns, ctime_ns=info.st_ctime_ns
        ),
    )
    assert load(path) is None  # the last line no longer hashes to the cached fingerprint
    write_entry(path, msgspec.structs.replace(read_entry(path), last_line=info.st_size + 1))
    assert load(path) is None  # nor can an entry point outside the file


def test_a_torn_tail_and_its_repair_do_not_confuse_the_cache(tmp_path: Path, tally: Any) -> None:
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    whole = path.read_bytes()
    with open(path, "ab") as handle:
        handle.write(b'{"type":"gems_taken","seq":4,"at":"2024')  # a crash mid-append
    result = tally("move", str(path), "ben: take w w")
    assert result.exit_code == 3 and "torn last line" in result.stderr
    assert tally("repair", str(path)).exit_code == 0
    assert path.read_bytes() == whole
    outcome = record.move(path, "ben: take w w")
    assert outcome.accepted and outcome.events[0].seq == 4
    assert outcome.events[0].prev == sha(whole[:-1].rsplit(b"\n", 1)[-1])
    assert record.check(path).ok


# --------------------------------------------------------------------------- a broken cache is ignored


def _garbage_entries(path: Path) -> dict[str, bytes]:
    good = entry_file(path).read_bytes()
    entry = read_entry(path)
    encode = msgspec.msgpack.encode
    return {
        "empty": b"",
        "text": b"this is not a cache entry\n",
        "random": bytes(random.Random(1).getrandbits(8) for _ in range(300)),
        "truncated": good[: len(good) // 2],
        "json": json.dumps({"format": cache.FORMAT}).encode(),
        "older-format": encode(msgspec.structs.replace(entry, format=cache.FORMAT - 1)),
        "state-garbage": encode(msgspec.structs.replace(entry, state=b"\x93\x01\x02")),
        "started-garbage": encode(msgspec.structs.replace(entry, started=b"\xc1")),
        "wrong-hash": encode(msgspec.structs.replace(entry, last_hash="0" * 64)),
    }


def test_a_garbage_cache_entry_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(logfile, "now", lambda: AT)
    monkeypatch.setattr(secrecy, "new_salt", lambda: SALT)
    reference = tmp_path / "reference.jsonl"
    started(reference)
    assert record.move(reference, "take r g b").accepted
    expected = record.move(reference, "ben: take w w")
    expected_bytes = reference.read_bytes()

    names = list(_garbage_entries(reference))
    for name in names:
        path = tmp_path / f"{name}.jsonl"
        started(path)
        assert record.move(path, "take r g b").accepted
        assert load(path) is not None
        entry_file(path).write_bytes(_garbage_entries(path)[name])  # garbage made from this log's own entry
        assert load(path) is None, name
        outcome = record.move(path, "ben: take w w")
        assert outcome_of(outcome) == outcome_of(expected), name
        assert path.read_bytes() == expected_bytes, name
        assert load(path) is not None, name  # and a good entry replaced it


def test_an_unusable_cache_folder_never_stops_a_move(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("TALLY_CACHE_DIR", str(blocker))
    path = tmp_path / "game.jsonl"
    started(path)
    assert record.move(path, "take r g b").accepted
    assert record.move(path, "ben: take w w").accepted
    assert record.check(path).ok and blocker.read_text().startswith("a file")
