"""Generate docs/api.md from the route table and the structs: `python -m tally.serve.docs > docs/api.md`.

tests/serve/test_serve_docs.py fails when docs/api.md differs from `render()`."""

from __future__ import annotations

import sys
from typing import Any, get_args, get_origin, get_type_hints

import msgspec

INTRO = """# The HTTP API of `tally serve`

Generated from the route table (`serve/app.py`) and the structs: `python -m tally.serve.docs > docs/api.md`.

`tally serve DIR` serves every log `ID.jsonl` of DIR. Bodies are JSON, sent with `Content-Type: application/json`
(a body of any other type is refused, 415 `serve.body.content-type`: a browser posts a form or plain text to any
site without asking, JSON only after a preflight this server never grants); every answer is JSON (the stream:
Server-Sent Events). A caller is the **host** (`Authorization: Bearer HOST_TOKEN`, printed at start-up), a
**seat** (`Authorization: Bearer SEAT_TOKEN`, from `POST /api/games/{id}/join`) or a **watcher** (no token).
The host sees everything the log knows (as `tally state`), a seat what `tally state --as SEAT` shows, a watcher
what every player sees; an event holding what the caller may not know is listed only by its seq, type and
player. Every write names `expected_seq`, the seq the caller last saw: when the log has moved on (this server,
`tally move` or `tally record` on the same file), nothing is recorded and the answer is 409 with where it is now.
A refusal that is not a ruling is an `Error` with a stable id; a body is at most 64 KB; there is no CORS. No
answer is a 500: a log that cannot be read (a torn tail, a broken chain, an illegal event) is 503 with the log
error's stable id (`log.*`, `core.log.illegal`) until the host repairs it, and is listed by `GET /api/games` with
its `damage`; a database that cannot be reached now is 503 `store.unreachable` with `Retry-After`. Only the host
is told the file and the fault; anyone else the id and the line.

Connections: a request's headers must arrive within `--request-timeout` seconds (10; from the connection, or from
the last answer on it) and its body within as long again (408 `serve.body.timeout`; a body cut short is 400
`serve.body.incomplete`); a slower client is cut off. A server holds as many connections as it may open files,
less a reserve; when full, a new connection closes the one that has sent nothing for longest (every one busy: 503
`serve.connections.full`). At most `--max-streams` event streams are open at once (503 `serve.stream.full`), at most
`--max-streams-per-client` from one client address (429 `serve.stream.per-client`), each with `Retry-After`. A
request whose `Host` names neither an IP address (loopback, or the one it connected to), `localhost`, `--host`, an
`--allow-host` name nor the machine's name is refused, 421 `serve.host.unknown` (DNS rebinding).
`docs/security.md` says who is trusted with what, and how to serve HTTPS.

Seats: the host gives a seat its token (`POST .../join` with the host token), or shows the game's join code
(`POST .../code`: 12 letters in groups of 4, 60 bits) with which a device takes a seat no device holds yet; a
wrong code and the right one for a taken seat get one answer, and a client address that sent 5 wrong codes in a
minute waits (429). A seat's token is 256 random bits; only its SHA-256 is kept, in `ID.seats.json` beside the
log (in the database's `tally_seats` with `tally serve --store URL`, shared by every server on it), so a
restarted server keeps its seats. The host token is new at every start (unless `$TALLY_HOST_TOKEN` gives it); the
host link carries it after `#`, which a browser never sends to a server. A seat records its own moves and the
table's entries (a reveal, a deal), asks for rulings on them, undoes or amends its own events and writes notes in
its name; the host may do anything; a watcher only reads.

The history library (`/api/library/...`, the library of `tally serve --db LIBRARY`, by default `$TALLY_DB`, else
./tally.duckdb) holds every stored game's full log, every hidden card included: it is the **host's only**, every
route of it asks for the host token (a seat or a watcher is refused with 403, finished game or not). A missing
library is `serve.library.missing` (404), a filter none can mean `serve.library.filter` (400).
"""


def _name(kind: Any) -> str:
    if kind is Any:
        return "the game's view (`docs/rules/<game>.md`)"
    if get_origin(kind) is list:
        return f"a list of `{get_args(kind)[0].__name__}`"
    return f"`{kind.__name__}`"


def _structs(kind: Any) -> list[type]:
    if get_origin(kind) is list:
        kind = get_args(kind)[0]
    return [kind] if isinstance(kind, type) and issubclass(kind, msgspec.Struct) else []


def fields(struct: type) -> list[str]:
    hints = get_type_hints(struct, include_extras=True)
    rows = ["| key | meaning |", "| --- | --- |"]
    for field in msgspec.structs.fields(struct):
        meta = [m for m in getattr(hints[field.name], "__metadata__", ()) if isinstance(m, msgspec.Meta)]
        text = meta[0].description if meta and meta[0].description else ""
        if field.required:
            text = f"(required) {text}"
        rows.append(f"| `{field.encode_name}` | {text.replace('|', '&#124;')} |")
    return rows


def render() -> str:
    from .app import ROUTES

    out = [INTRO, "## Routes", ""]
    documented: list[type] = []
    for route in ROUTES:
        api = getattr(getattr(route, "endpoint", None), "api", None)
        if api is None:
            continue
        method, path, who, body, answers = api
        out += [f"### `{method} {path}`", "", (route.endpoint.__doc__ or "").strip(), "", f"Who: {who}."]  # type: ignore[attr-defined]
        if body is not None:
            out += ["", f"Body: `{body.__name__}`."]
            documented.append(body)
        out += ["", "| status | answer | when |", "| --- | --- | --- |"]
        for status, kind, when in answers:
            out.append(f"| {status} | {_name(kind)} | {when.replace('|', '&#124;')} |")
            documented += _structs(kind)
        out.append("")
    out += ["## Structs", ""]
    seen: set[type] = set()
    for struct in documented:
        if struct in seen:
            continue
        seen.add(struct)
        out += [
            f"### `{struct.__name__}`",
            "",
            (struct.__doc__ or "").strip().splitlines()[0] if struct.__doc__ else "",
            "",
            *fields(struct),
            "",
        ]
    return "\n".join(out).rstrip("\n") + "\n"


def main() -> None:
    sys.stdout.write(render())


if __name__ == "__main__":
    main()
