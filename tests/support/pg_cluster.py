"""A throwaway PostgreSQL cluster for the tests and the benchmark: initdb into a temporary folder, pg_ctl on a free
loopback port, stopped (and the folder removed) at the end.

Debian's server (`apt-get install postgresql`) puts its programs under /usr/lib/postgresql/VERSION/bin, off the
PATH. PostgreSQL refuses to run as root, so as root (CI) the cluster runs as the `postgres` user the package
creates. `find_server()` is None when no server is installed: the tests then skip, except in CI (CI=true),
where `.ci/run` installs one and a missing server is a failure.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def find_server() -> Path | None:
    """The folder of initdb and pg_ctl, the newest installed version first."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parent.parent.name) if Path(p).parent.parent.name.isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("initdb")
    return Path(on_path).resolve().parent if on_path else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Cluster:
    """`with Cluster() as cluster:` a running server; `cluster.url(db)` names one of its databases."""

    user = "tally"

    def __init__(self, bin_dir: Path):
        self.bin = bin_dir
        self._as = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        # the postgres user must reach the folder: as root, in /tmp whatever TMPDIR says
        self.folder = Path(tempfile.mkdtemp(prefix="tally-pg-", dir="/tmp" if self._as else None))
        self.data = self.folder / "data"
        self.port = 0
        if self._as:
            shutil.chown(self.folder, "postgres", "postgres")
        self._count = 0

    def _run(self, *command: str) -> None:
        done = subprocess.run([*self._as, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(
                f"{' '.join(command[:2])} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}"
            )

    def start(self) -> "Cluster":
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            self.user,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-locale",
            "--no-sync",
        )
        self.port = free_port()
        self.resume()
        return self

    def resume(self) -> None:
        """The server started on the cluster made (again, after `halt`), on the same port."""
        # loopback only, the socket in the throwaway folder; small buffers: six checkouts share two cores
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} -c shared_buffers=16MB "
            "-c max_connections=60 -c fsync=on"
        )
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )

    def halt(self) -> None:
        """The server stopped at once (as a crash or a restart stops it), its data kept for `resume`."""
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def stop(self) -> None:
        if self.port:
            try:
                self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database: its URL."""
        import psycopg

        self._count += 1
        name = f"t{os.getpid()}_{self._count}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def __enter__(self) -> "Cluster":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
