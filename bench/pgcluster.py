"""A throwaway PostgreSQL cluster for a test or benchmark run: Debian's server binaries, a
temporary data folder, a free port on 127.0.0.1; for tests no fsync (nothing in it outlives the
run), for benchmarks the durability of the bot's SQLite (below).

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


#: the tests' cluster: nothing is written to disk that need not be
FAST: tuple[str, ...] = ("fsync=off", "synchronous_commit=off", "full_page_writes=off")
#: the benchmarks': as durable as the bot's SQLite (WAL with synchronous=NORMAL: a crash of
#: the process loses nothing, a power cut may lose the last commits but corrupts nothing),
#: which is PostgreSQL's default with synchronous_commit off
LIKE_SQLITE: tuple[str, ...] = ("synchronous_commit=off",)


@contextlib.contextmanager
def throwaway_cluster(settings: tuple[str, ...] = FAST) -> Iterator[Cluster]:
    """initdb, start, yield, stop (immediately) and delete: one cluster for one run."""
    binaries = server_binaries()
    if binaries is None:
        raise RuntimeError(missing_reason() or "no PostgreSQL")
    # under /tmp as root: the postgres user must reach it, and TMPDIR may be root's own
    folder = Path(tempfile.mkdtemp(prefix="cardbot-pg-", dir="/tmp" if os.geteuid() == 0 else None))
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
    options = " ".join(
        [f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200"]
        + [f"-c {setting}" for setting in settings]
    )
    run(str(binaries / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "log"),
        "-w", "-t", "60", "start")
    try:
        yield Cluster(port=port, folder=folder)
    finally:
        with contextlib.suppress(subprocess.SubprocessError):
            run(str(binaries / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(folder, ignore_errors=True)


async def create_database(cluster: Cluster, name: str) -> str:
    """A new empty database ``name`` in ``cluster``; its URL."""
    import asyncpg

    admin = await asyncpg.connect(cluster.url())
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    return cluster.url(name)


async def copy_to_sqlite(url: str, path: Path) -> None:
    """The database at ``url`` copied into a new SQLite file (``copy-db``'s code), for checks
    written against SQLite files."""
    from bot.storage import open_database
    from bot.storage.copy import copy_database

    source = await open_database(url)
    try:
        target = await open_database(path)
        try:
            await copy_database(source, target)
        finally:
            await target.close()
    finally:
        await source.close()
