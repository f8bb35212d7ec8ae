"""A throwaway PostgreSQL cluster for a test run: Debian's server binaries, a temporary data
folder, a free port on 127.0.0.1, no fsync (nothing in it outlives the run).

The server refuses to run as root, so as root the cluster belongs to the ``postgres`` user the
Debian package creates and is started through ``runuser``. Without the binaries,
:func:`missing_reason` says what to install and the PostgreSQL half of the tests is skipped.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "postgresql"
_SUPERUSER = "cardbot"


def server_binaries() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` with a server in it."""
    found = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda path: int(path.parent.parent.name) if path.parent.parent.name.isdigit() else 0,
    )
    return found[-1].parent if found else None


def missing_reason() -> str | None:
    """Why no cluster can be started here, or None."""
    if server_binaries() is None:
        return f"PostgreSQL is not installed: install Debian's {PACKAGE!r} (make test does as root)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root without a 'postgres' user to own the test cluster"
    return None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Cluster:
    port: int
    folder: Path

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{_SUPERUSER}@127.0.0.1:{self.port}/{database}"


@contextlib.contextmanager
def throwaway_cluster() -> Iterator[Cluster]:
    """initdb, start, yield, stop (immediately) and delete: one cluster for one test run."""
    binaries = server_binaries()
    if binaries is None:
        raise RuntimeError(missing_reason() or "no PostgreSQL")
    folder = Path(tempfile.mkdtemp(prefix="cardbot-pg-"))
    data = folder / "data"
    as_owner: list[str] = []
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(folder, owner.pw_uid, owner.pw_gid)
        as_owner = ["runuser", "-u", "postgres", "--"]
    port = free_port()

    def run(*command: str) -> None:
        subprocess.run([*as_owner, *command], check=True, capture_output=True, timeout=120)

    run(
        str(binaries / "initdb"), "-D", str(data), "-U", _SUPERUSER, "--auth=trust",
        "--encoding=UTF8", "--no-locale", "--no-sync",
    )
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
    )
    run(str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
        "-w", "-t", "60", "start")
    try:
        yield Cluster(port=port, folder=folder)
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)
