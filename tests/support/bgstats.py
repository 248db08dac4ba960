"""BG Stats' documented play fields (its page "Push plays to BG Stats from other apps or websites"), written out
from that page so that tally's link is held to the document and not to itself; shared by the export's and the page's
tests."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import unquote

CREATE_PLAY = "https://app.bgstatsapp.com/createPlay.html?data="
# BG Stats' fields: name -> (the JSON types it may have, whether it must be given)
PLAY = {
    "sourceName": ((str,), True),
    "sourcePlayId": ((str,), False),
    "playDate": ((str,), True),
    "durationMin": ((int,), False),
    "game": ((dict,), True),
    "players": ((list,), True),
}
GAME = {
    "name": ((str,), True),
    "sourceGameId": ((str,), True),
    "bggId": ((int,), False),
    "highestWins": ((bool,), True),
    "noPoints": ((bool,), True),
}
PLAYER = {
    "name": ((str,), True),
    "sourcePlayerId": ((str,), True),
    "score": ((int, float), False),
    "winner": ((bool,), True),
    "rank": ((int,), False),
    "startPlayer": ((bool,), True),
}


def fits(document: dict[str, Any], fields: dict[str, tuple[tuple[type, ...], bool]], where: str) -> None:
    """Every key one BG Stats documents, of its type (a boolean is not taken for a number), every required one given."""
    for key, value in document.items():
        assert key in fields, f"{where}.{key}: not a field BG Stats documents"
        kinds, _ = fields[key]
        assert value is not None, f"{where}.{key} is null"
        assert isinstance(value, kinds) and not (bool not in kinds and isinstance(value, bool)), (where, key, value)
    for key, (_, required) in fields.items():
        assert not required or key in document, f"{where}.{key} is missing"


def check_play(play: dict[str, Any]) -> None:
    fits(play, PLAY, "play")
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"]), play["playDate"]
    fits(play["game"], GAME, "game")
    assert play["players"]
    for player in play["players"]:
        fits(player, PLAYER, "player")
        assert "rank" not in player or player["rank"] >= 1
    assert sum(p["startPlayer"] for p in play["players"]) == 1


def decoded(link: str) -> dict[str, Any]:
    """The play a link carries: its one `data` parameter, URL-decoded, parsed as JSON."""
    assert link.startswith(CREATE_PLAY) and "&" not in link and " " not in link, link
    play = json.loads(unquote(link[len(CREATE_PLAY) :]))
    assert isinstance(play, dict)
    return play
