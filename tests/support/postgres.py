"""A real PostgreSQL server for the tests: started once per session, a fresh database per test.

The server is Debian's (or any) PostgreSQL found on this machine: `PG_BINDIR` (then only
there), else `pg_config --bindir`, then `initdb` on PATH, then /usr/lib/postgresql/*/bin.
It is initdb'ed in a temporary folder, listens on a free port of 127.0.0.1 (and its unix
socket in that folder), trusts local connections, and is stopped and deleted at the end of
the session.
PostgreSQL refuses to run as root: under root it runs as the `postgres` user (runuser).

No binaries: the PostgreSQL tests are skipped, saying why; with REQUIRE_POSTGRES=1 (CI, see
.ci/run) that is a failure instead, so a machine without the server cannot pass unnoticed.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

REQUIRED = "REQUIRE_POSTGRES"


class NoPostgres(Exception):
    """No PostgreSQL to run the tests on; the message says why."""


def bindir() -> Path | None:
    """The folder of `initdb`, `pg_ctl` and `postgres`, or None."""
    candidates: list[str] = []
    if os.environ.get("PG_BINDIR"):  # named: only there
        return _complete(Path(os.environ["PG_BINDIR"]))
    pg_config = shutil.which("pg_config")
    if pg_config:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            found = subprocess.run(
                [pg_config, "--bindir"], capture_output=True, text=True, check=True, timeout=10
            )
            candidates.append(found.stdout.strip())
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(str(Path(initdb).resolve().parent))  # Debian links it from elsewhere
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    for folder in candidates:
        if found := _complete(Path(folder)):
            return found
    return None


def _complete(path: Path) -> Path | None:
    return path if all((path / n).is_file() for n in ("initdb", "pg_ctl", "postgres")) else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One throwaway server; `url(name)` is a database on it (see `create_database`)."""

    def __init__(self, bin_folder: Path) -> None:
        self.bin = bin_folder
        self.root = Path(tempfile.mkdtemp(prefix="interview-bot-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.user: str | None = None  # whom the server runs as, when we are root
        self._databases = 0

    def _run(self, args: Sequence[str], timeout: float = 120) -> None:
        command = [str(a) for a in args]
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if done.returncode != 0:
            raise NoPostgres(f"{' '.join(command)} failed: {done.stderr.strip()[-2000:]}")

    def start(self) -> None:
        if os.geteuid() == 0:
            try:
                account = pwd.getpwnam("postgres")
            except KeyError:
                raise NoPostgres(
                    "running as root and no `postgres` user to run the server as"
                ) from None
            self.user = "postgres"
            os.chown(self.root, account.pw_uid, account.pw_gid)
        # C collation: text compares as bytes, as SQLite's does (ISO instants are compared).
        self._run(
            [self.bin / "initdb", "-D", self.data, "-U", "postgres", "--auth=trust",
             "--encoding=UTF8", "--locale=C", "--no-sync"]
        )  # fmt: skip
        self.resume()

    def resume(self) -> None:
        """Start the server (again, after `pause`: the same port, the same databases)."""
        options = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1"
            " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            " -c max_connections=200"
        )
        self._run(
            [self.bin / "pg_ctl", "-D", self.data, "-l", self.root / "server.log", "-w",
             "-t", "60", "-o", options, "start"]
        )  # fmt: skip

    def pause(self) -> None:
        """Stop the server as a restart does (its connections dropped), keeping its data."""
        self._run([self.bin / "pg_ctl", "-D", self.data, "-m", "fast", "-w", "stop"])

    def stop(self) -> None:
        with contextlib.suppress(NoPostgres, subprocess.SubprocessError):
            self._run([self.bin / "pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop"])
        shutil.rmtree(self.root, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    async def create_database(self) -> str:
        """A new empty database: its URL."""
        import asyncpg

        self._databases += 1
        name = f"test_{os.getpid()}_{self._databases}"
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'CREATE DATABASE "{name}"')
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        import asyncpg

        name = url.rsplit("/", 1)[1]
        conn = await asyncpg.connect(self.url())
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()


def start_server() -> PostgresServer:
    """A running server, or NoPostgres saying why there is none."""
    found = bindir()
    if found is None:
        raise NoPostgres(
            "no PostgreSQL binaries (initdb, pg_ctl, postgres) found: install Debian's"
            " `postgresql` package, or set PG_BINDIR"
        )
    server = PostgresServer(found)
    try:
        server.start()
    except BaseException:
        server.stop()
        raise
    return server
