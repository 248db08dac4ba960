"""The same seed writes the same bytes as before the playouts were made faster: the draw order is unchanged, so
every simulated log keeps its fingerprint (game 0 of seed 5 of each game). The fingerprints were taken after the
speed-up, once a simulated log's first line says `"simulated":true` (format 5); every event but that flag (and so the
hash chain) is the same as the logs written before the speed-up."""

from __future__ import annotations

import pytest

from tally.store.logs import log as logfile
from tally.store.recording.simulate import simulate

BEFORE = {  # (game, mode): (lines, fingerprint)
    ("splendor", "open"): (80, "d409751f3598fa92e4aa4509f97c60f47915687ac188581ff0c859520d4d3c48"),
    ("splendor", "table"): (123, "34d869202a1ec1357ad4376304d9c2346d85f227496f042ef122bb7f60a0d7c1"),
    ("split", "open"): (420, "426868cbfd8b2a47dedd60a898eeea88ec50b440fba0e5e92d709d406553e664"),
    ("array", "open"): (261, "84c9029788b5292408866f508a647b04eeb15a2fdf24afcc7cd15e6e7f41578d"),
    ("splice", "open"): (5713, "a601e1fc774eef4a55f309810c12e1cd5fc97334eee12516351449d53e49eb06"),
}


@pytest.mark.parametrize("game, mode", sorted(BEFORE))
def test_a_seed_writes_the_logs_it_wrote_before(tmp_path, game, mode):
    summary = simulate(game, 1, 5, tmp_path, mode=mode)
    log = logfile.read(summary.files[0])
    assert (len(log.events), log.fingerprint) == BEFORE[game, mode]
