"""The same seed writes the same bytes as before the playouts were made faster: the draw order is unchanged, so
every simulated log keeps its fingerprint (game 0 of seed 5 of each game, written before the speed-up)."""

from __future__ import annotations

import pytest

from tally.store import log as logfile
from tally.store.simulate import simulate

BEFORE = {  # (game, mode): (lines, fingerprint)
    ("splendor", "open"): (80, "069cc62f8396225a0e9b42778b7db3ada2247c6a66e7acdce08b94b2671375e8"),
    ("splendor", "table"): (123, "039207b52408fcf58d4eef0843986c0dd524a30117f20285f1959b9e540814cf"),
    ("split", "open"): (420, "a95c3a1bece53544aafbd61d0a3d5db1b8f142f4bf0cd7bc7e2d4abcba263b9b"),
    ("array", "open"): (261, "e89ede8d79f2efc6ff9bd9e0800eb141312e2be6c6c839ab5b644887e0153845"),
    ("splice", "open"): (5713, "466b43079fdb530769430d2539a643b1da79b3678b0e82b31d6a974927bc67e1"),
}


@pytest.mark.parametrize("game, mode", sorted(BEFORE))
def test_a_seed_writes_the_logs_it_wrote_before(tmp_path, game, mode):
    summary = simulate(game, 1, 5, tmp_path, mode=mode)
    log = logfile.read(summary.files[0])
    assert (len(log.events), log.fingerprint) == BEFORE[game, mode]
