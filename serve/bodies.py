"""The request bodies of `tally serve`'s API and the answers of its own (the rest are the read model's, as
`--json` prints them): msgspec structs, decoded strictly (an unknown field is refused), from which
`docs/api.md` documents every key."""

from __future__ import annotations

from typing import Annotated, Any, Optional, Union

import msgspec


def _(text: str) -> Any:
    return msgspec.Meta(description=text)


class Body(msgspec.Struct, forbid_unknown_fields=True):
    pass


class NewGame(Body):
    """`POST /api/games`: what `tally new` takes."""

    game: Annotated[str, _("the game's name (`GET /api/catalog`, as `tally games --json`)")]
    players: Annotated[list[str], _("the players, in turn order")]
    id: Annotated[
        Optional[str],
        _(
            "the game's name at this table, which is the log's name in the folder (`ID.jsonl`) or its id in the store: "
            "letters, digits, `_`, `-`, `.`; default: the game's name and the first free number (`splendor-1`)"
        ),
    ] = None
    options: Annotated[
        dict[str, Union[str, int]], _("variant options, KEY: VALUE (a number may be a JSON number)")
    ] = {}
    mode: Annotated[Optional[str], _("`table` (default) or `open`")] = None
    seed: Annotated[Optional[int], _("deal the setup with this seed (open mode)")] = None
    manifest: Annotated[
        Optional[Union[str, dict[str, Any]]],
        _("a component manifest id, or an inline manifest; default: the game's own"),
    ] = None
    seated: Annotated[list[str], _("table mode: the seats that enter their own hidden cards (`tally new --as`)")] = []


class Move(Body):
    """`POST .../moves`."""

    move: Annotated[str, _("the move in the game's notation (`tally rules GAME --notation`)")]
    expected_seq: Annotated[int, _("the seq the caller last saw: recorded only if the log still ends there")]


class Question(Body):
    """`POST .../rule`: records nothing."""

    move: Annotated[str, _("the disputed move in the game's notation")]
    expected_seq: Annotated[Optional[int], _("when given, judged only if the log still ends there")] = None


class Undo(Body):
    """`POST .../undo`."""

    reason: Annotated[str, _("why the event is voided (kept in the log)")]
    expected_seq: Annotated[int, _("the seq the caller last saw")]
    turn: Annotated[bool, _("void every event of the last turn (host only)")] = False
    preview: Annotated[
        bool,
        _(
            "true: say what the undo would take back (a seat's: its own last event), judged as it would be, "
            "and record nothing"
        ),
    ] = False


class Amend(Body):
    """`POST .../amend`."""

    target: Annotated[int, _("the seq of the event to correct")]
    reason: Annotated[str, _("why (kept in the log)")]
    expected_seq: Annotated[int, _("the seq the caller last saw")]
    move: Annotated[Optional[str], _("the move that replaces it; null voids it")] = None
    preview: Annotated[
        bool,
        _(
            "true: say what the correction would take back and put in its place, judged as it would be, "
            "and record nothing"
        ),
    ] = False


class Note(Body):
    """`POST .../notes`."""

    text: Annotated[str, _("the remark")]
    expected_seq: Annotated[int, _("the seq the caller last saw")]


class Join(Body):
    """`POST .../join`."""

    seat: Annotated[str, _("the seat to take")]
    code: Annotated[Optional[str], _("the game's join code, for a device without the host token")] = None


class Joined(msgspec.Struct):
    """A seat's token: send it as `Authorization: Bearer TOKEN`."""

    seat: Annotated[str, _("the seat, as the game spells it")]
    token: Annotated[str, _("the seat's token (shown once; the server keeps only its hash)")]


class JoinCode(msgspec.Struct):
    """The join code the host shows at the table; a new one replaces the last."""

    code: Annotated[
        str,
        _(
            "12 letters and digits in three groups of four (`K7QM-2XPA-9FHT`); typed in any case, "
            "with or without the dashes"
        ),
    ]


class Claim(Body):
    """`POST .../claim`: the secret of a seat's one-time link (what follows `#seat=` in it)."""

    link: Annotated[str, _("the link's secret")]


class SeatEntry(msgspec.Struct):
    seat: Annotated[str, _("the seat's name")]
    taken: Annotated[bool, _("a device holds the seat")]
    link: Annotated[
        Optional[str],
        _("the seat's one-time link (`/games/ID#seat=SECRET`), made by this server and not opened yet; else null"),
    ]
    qr: Annotated[
        Optional[str],
        _(
            "that link as a QR code (an SVG document, the link made absolute with the address the caller used); else null"
        ),
    ]


class SeatsReport(msgspec.Struct):
    """`GET .../seats`: what the host's page shows of the seats."""

    code: Annotated[
        Optional[str], _("the join code this server made last, while it works; else null (make one: `POST .../code`)")
    ]
    seats: Annotated[list[SeatEntry], _("each seat, in turn order")]


class Linked(msgspec.Struct):
    """`POST .../seats/{seat}/link`."""

    seat: Annotated[str, _("the seat")]
    link: Annotated[
        str,
        _(
            "its one-time link, `/games/ID#seat=SECRET`: the device that opens it takes the seat, and the device that held it before is shut out"
        ),
    ]
    qr: Annotated[
        str, _("the link as a QR code: an SVG document, the link made absolute with the address the caller used")
    ]


class BgStatsPlay(msgspec.Struct):
    """`GET .../bgstats`: the finished game as a play of BG Stats (store/library/bgstats.py, as `tally export
    --format bgstats` writes it)."""

    link: Annotated[
        str,
        _(
            "the link that logs the play in BG Stats, opened on the phone that has it: "
            "`https://app.bgstatsapp.com/createPlay.html?data=` and the play's JSON, URL-encoded"
        ),
    ]
    qr: Annotated[str, _("that link as a QR code (an SVG document): another phone scans it")]
    play: Annotated[Any, _("the play's JSON, as the link holds it (BG Stats' fields: docs/sql.md, Export)")]
    timezone: Annotated[str, _("the time zone of its `playDate`: `?timezone=` (an IANA name), else the server's")]


class Error(msgspec.Struct):
    """Every refusal that is not a ruling on a move."""

    error: Annotated[
        str,
        _(
            "a stable id: `serve.*`, `core.usage`, `core.append.stale`, `log.*`, `core.log.illegal`, "
            "`store.unreachable`"
        ),
    ]
    message: Annotated[str, _("what was wrong, in words")]
    seq: Annotated[
        Optional[int],
        _("for `core.append.stale`: the log's seq now; for a damaged log: the line at fault, if known; else null"),
    ] = None
    fingerprint: Annotated[Optional[str], _("for `core.append.stale`: the log's fingerprint now; else null")] = None
