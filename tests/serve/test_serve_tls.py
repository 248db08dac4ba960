"""`tally serve --ssl-keyfile FILE --ssl-certfile FILE`: HTTPS on loopback with a throwaway certificate authority (made
by trustme in the test), an authenticated request with that authority trusted, and the refusals of files that are
missing, unreadable or not a certificate and its key."""

from __future__ import annotations

import shutil
import ssl
from pathlib import Path
from typing import Any

import httpx
import pytest

from support import ROOT
from support.serve_helpers import bearer, serving

FIXTURE = ROOT / "fixtures" / "games" / "splendor-2p.jsonl"


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Any, Path, Path]:
    """A certificate authority, and a certificate it issued for 127.0.0.1 and localhost: (authority, key, cert)."""
    import trustme

    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    key, cert = tmp_path / "server.key", tmp_path / "server.pem"
    issued.private_key_pem.write_to_path(str(key))
    cert.write_bytes(b"".join(blob.bytes() for blob in issued.cert_chain_pems))
    return authority, key, cert


def test_tally_serve_over_tls(tmp_path: Path, certificate: tuple[Any, Path, Path]) -> None:
    """Reproduction: `tally serve` spoke plain HTTP only, so every token, join code and card crossed the table's
    network in the clear. Now `--ssl-keyfile` and `--ssl-certfile` serve HTTPS: the printed URL is https, a client
    that trusts the certificate's authority makes an authenticated request and records a move, and plain HTTP to the
    same port gets no answer."""
    authority, key, cert = certificate
    folder = tmp_path / "served"
    folder.mkdir()
    shutil.copy(FIXTURE, folder / "g.jsonl")
    with serving(folder, "--ssl-keyfile", str(key), "--ssl-certfile", str(cert)) as (url, port, token):
        assert url.startswith("https://127.0.0.1:")
        trusted = ssl.create_default_context()
        authority.configure_trust(trusted)
        with httpx.Client(base_url=url, verify=trusted, timeout=30) as http:
            shown = http.get("/api/games/g", headers=bearer(token))
            assert shown.status_code == 200 and shown.json()["viewer"] is None  # the host's view
            noted = http.post(
                "/api/games/g/notes", json={"text": "over TLS", "expected_seq": 61}, headers=bearer(token)
            )
            assert noted.status_code == 201, noted.text
        with httpx.Client(base_url=url, timeout=30) as untrusting:  # the system's authorities only
            with pytest.raises(httpx.ConnectError):
                untrusting.get("/api/games")
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as plain:
            with pytest.raises(httpx.HTTPError):
                plain.get("/api/games")


def test_tls_files_that_cannot_serve_are_one_line(
    tmp_path: Path, certificate: tuple[Any, Path, Path], tally: Any
) -> None:
    """A key or certificate missing, not PEM, or not of one pair: exit 2 and one line naming the option."""
    authority, key, cert = certificate
    other = authority.issue_cert("127.0.0.1")
    other_key = tmp_path / "other.key"
    other.private_key_pem.write_to_path(str(other_key))
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    cases = [
        (["--ssl-keyfile", str(tmp_path / "nowhere.key"), "--ssl-certfile", str(cert)], "--ssl-keyfile"),
        (["--ssl-keyfile", str(key), "--ssl-certfile", str(tmp_path / "nowhere.pem")], "--ssl-certfile"),
        (["--ssl-keyfile", str(key)], "--ssl-certfile"),
        (["--ssl-keyfile", str(key), "--ssl-certfile", str(tmp_path / "junk.pem")], "--ssl-certfile"),
        (["--ssl-keyfile", str(other_key), "--ssl-certfile", str(cert)], "--ssl-certfile"),
    ]
    for options, named in cases:
        refused = tally("serve", str(tmp_path), "--port", "0", *options)
        assert refused.exit_code == 2, (options, refused)
        assert refused.stderr.count("\n") == 1 and named in refused.stderr and "Traceback" not in refused.stderr, (
            refused
        )
