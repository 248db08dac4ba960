"""Who may act for which seat of a game a server serves: seat tokens and the join code.

A game's seats live where its log lives: beside a log file in a side file (`GAME.seats.json`), beside a
game of a PostgreSQL store in its row of `tally_seats` (`store/logs/pgstore.py`: every server process on the
database shares them). Either holds the SHA-256 of each seat's token and of the game's current join code,
never a token or a code itself: a server restarted on the folder or database keeps every seat it handed
out, and a copy lets no one act as a seat. Every comparison is of hashes, in constant time.

A token is 32 random bytes (256 bits). A join code is 12 letters of a 32-letter alphabet, 60 bits, shown in three
groups of four (`K7QM-2XPA-9FHT`; the dashes, spaces and case are ignored when it is typed). It only lets a device
take a seat no device holds yet, and only until the host shows a new one. The server refuses a client address
that sent 5 wrong codes in a minute (`serve/http.py`), but the code's length is what makes guessing hopeless, from
any number of addresses at once, so no limit per game is needed (one that was would let any device keep every
phone from joining): a server that answered 10,000 join requests a second (several times what it can, each one
reading the seats and hashing) would try 10,000 x 3.2e7 s = 3.2e11 codes a year, and 2^60 = 1.15e18 codes leave it
a chance of 3.2e11 / 1.15e18 = 3e-7 of finding a game's code in a year of trying.
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
from pathlib import Path
from typing import Callable, TypeVar

import msgspec

from tally.store.logs.log import sha256_hex

SIDE = ".seats.json"  # the side file's suffix, after the game's id
CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud and typed on a phone
CODE_LENGTH = 12  # letters of a join code: 60 bits (the module's docstring has the arithmetic)
CODE_GROUP = 4  # shown in groups of this many letters, joined by dashes
T = TypeVar("T")


class SeatFile(msgspec.Struct, forbid_unknown_fields=True):
    """The side file: each seat's token hash, the hash of the join code now shown (empty: none), and each seat's
    one-time link (`links`: the hash of the link's secret; gone once a phone opened it)."""

    seats: dict[str, str] = {}
    code: str = ""
    links: dict[str, str] = {}


def _digest(secret: str) -> str:
    return sha256_hex(secret.encode("utf-8"))


def _same(secret: str, digest: str) -> bool:
    return bool(digest) and hmac.compare_digest(_digest(secret), digest)


def new_token() -> str:
    return secrets.token_urlsafe(32)


def is_host(token: str, host_digest: str) -> bool:
    """Whether `token` is the host's (the server keeps only its hash too)."""
    return _same(token, host_digest)


def digest(token: str) -> str:
    return _digest(token)


def typed_code(code: str) -> str:
    """A join code as typed on a phone (any case, with or without its dashes and spaces), as it was made."""
    return "".join(code.split()).replace("-", "").upper()


class Seats:
    """The seats of one game. A backend reads them (`_load`) and changes them (`_change`: read, change and
    write as one step, exclusive against every other change of the game's seats it may meet)."""

    def __init__(self) -> None:
        # what the host's page shows again after a reload: the join code and the seats' links as they were made,
        # kept in this process only (stored, they are hashes); a server started anew makes new ones when asked
        self.shown_code: str | None = None
        self.shown_links: dict[str, str] = {}

    def _load(self) -> SeatFile:
        raise NotImplementedError

    def _change(self, change: Callable[[SeatFile], T]) -> T:
        raise NotImplementedError

    def new_link(self, seat: str) -> str:
        """A one-time link's secret for `seat`: the device that opens it takes the seat (`claim`), and whatever
        device held it before is shut out then; the link made for the seat before no longer works."""
        secret = new_token()

        def linked(data: SeatFile) -> None:
            data.links[seat] = _digest(secret)

        self._change(linked)
        self.shown_links[seat] = secret
        return secret

    def claim(self, secret: str) -> tuple[str, str] | None:
        """The seat a one-time link's `secret` gives, and that device's new token (a token the seat held before no
        longer works); None for a link that is unknown or was opened already (one answer for both)."""
        digest = _digest(secret)
        token = new_token()

        def claimed(data: SeatFile) -> str | None:
            found = None
            for seat, held in data.links.items():
                if hmac.compare_digest(digest, held):
                    found = seat
            if found is None:
                return None
            del data.links[found]
            data.seats[found] = _digest(token)
            return found

        seat = self._change(claimed)
        if seat is None:
            return None
        if self.shown_links.get(seat) == secret:
            del self.shown_links[seat]
        return seat, token

    def linked(self) -> dict[str, str]:
        """The seats' links made by this process and not opened yet (seat: secret)."""
        waiting = set(self._load().links)
        return {seat: secret for seat, secret in self.shown_links.items() if seat in waiting}

    def seat_of(self, token: str) -> str | None:
        """The seat whose token this is, or None."""
        digest = _digest(token)
        found = None
        for seat, held in self._load().seats.items():
            if hmac.compare_digest(digest, held):  # every seat compared: the time does not say which matched
                found = seat
        return found

    def held(self) -> list[str]:
        return sorted(self._load().seats)

    def give(self, seat: str) -> str:
        """A new token for `seat` (the host's call): a token the seat held before no longer works."""
        token = new_token()

        def seated(data: SeatFile) -> None:
            data.seats[seat] = _digest(token)

        self._change(seated)
        return token

    def new_code(self) -> str:
        """A fresh join code for the host's screen; the one shown before no longer works."""
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))

        def shown(data: SeatFile) -> None:
            data.code = _digest(code)

        self._change(shown)
        self.shown_code = "-".join(code[i : i + CODE_GROUP] for i in range(0, CODE_LENGTH, CODE_GROUP))
        return self.shown_code

    def current_code(self) -> str | None:
        """The join code this process made last, while it still works (another server may have made a newer one)."""
        code = self.shown_code
        return code if code is not None and _same(typed_code(code), self._load().code) else None

    def join(self, seat: str, code: str) -> str | None:
        """A token for `seat` given the join code, when no device holds that seat yet; None for a wrong code.

        Raises `SeatTaken` for the right code and a seat a device holds (the caller answers both alike)."""
        token = new_token()
        typed = typed_code(code)

        def joined(data: SeatFile) -> bool:
            if not _same(typed, data.code):
                return False
            if seat in data.seats:
                raise SeatTaken(seat)
            data.seats[seat] = _digest(token)
            return True

        return token if self._change(joined) else None


class FileSeats(Seats):
    """The seats of a log file, in its side file, under one lock per process (a folder has one server)."""

    def __init__(self, log_path: Path | str):
        super().__init__()
        self.path = Path(
            str(log_path)[: -len(".jsonl")] + SIDE if str(log_path).endswith(".jsonl") else str(log_path) + SIDE
        )
        self._writing = threading.Lock()

    def _load(self) -> SeatFile:
        try:
            return msgspec.json.decode(self.path.read_bytes(), type=SeatFile)
        except FileNotFoundError:
            return SeatFile()

    def _change(self, change: Callable[[SeatFile], T]) -> T:
        with self._writing:
            data = self._load()
            before = msgspec.json.encode(data)
            result = change(data)
            if msgspec.json.encode(data) != before:
                self._save(data)
            return result

    def _save(self, data: SeatFile) -> None:
        """Written whole to a temporary file, synced, then renamed over: a crash leaves the old or the new."""
        temporary = self.path.with_name(self.path.name + ".tmp")
        with open(temporary, "wb") as out:
            out.write(msgspec.json.encode(data))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, self.path)


class SeatTaken(Exception):
    """A join code takes only a free seat; the host gives a seat again (a lost phone)."""

    def __init__(self, seat: str):
        super().__init__(f"{seat}'s seat is taken by a device already; the host can give it again")
