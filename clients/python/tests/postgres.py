"""A private PostgreSQL server for the ORM tests: Debian's server programs, a cluster made by
initdb in a temporary folder, on a free loopback port, trust authentication and no Unix
socket, as bench/compare.sh starts one. initdb and postgres refuse to run as root, so as root
they run as the postgres user Debian's package creates."""

from __future__ import annotations

import glob
import os
import pathlib
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any, Dict, Iterator, Optional

import pytest

START_TIMEOUT = 60.0
"""Seconds the server may take to accept connections."""


def need(what: str, ok: bool) -> None:
    """Skip the test when ok is false, naming what to install; under CI=true fail instead,
    since CI installs every tool a test needs (.ci/run)."""
    if ok:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"missing {what} (CI installs it: see .ci/run)")
    pytest.skip(f"missing {what}", allow_module_level=True)


def importable(module: str) -> bool:
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def _bin_dir() -> Optional[str]:
    found = glob.glob("/usr/lib/postgresql/*/bin/initdb")
    if not found:
        return None
    return os.path.dirname(max(found, key=lambda p: int(pathlib.Path(p).parents[1].name)))


def _die_with_parent() -> None:
    """In the server's process before it starts (after it became the postgres user, which
    would clear the setting): SIGKILL it when the test process dies, so that a test run that
    is killed leaves no server behind."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Postgres:
    """One running server; ``dsn`` (a URL) and ``params`` (psycopg2's keywords) reach it."""

    def __init__(self) -> None:
        bins = _bin_dir()
        need("PostgreSQL (apt-get install postgresql)", bins is not None)
        need("python3-psycopg2 (apt)", importable("psycopg2"))
        assert bins is not None
        run_as: Dict[str, Any] = {}
        self.base = tempfile.mkdtemp(prefix="idnode-py-pg-")
        data = os.path.join(self.base, "data")
        if os.geteuid() == 0:
            try:
                pg = pwd.getpwnam("postgres")
            except KeyError:
                need("a postgres user to run PostgreSQL as root (apt-get install postgresql makes it)", False)
            os.chmod(self.base, 0o755)
            os.chown(self.base, pg.pw_uid, pg.pw_gid)
            run_as = {"user": pg.pw_uid, "group": pg.pw_gid, "extra_groups": []}
        # --no-sync skips syncing initdb's own files only; the server syncs as usual.
        subprocess.run([os.path.join(bins, "initdb"), "-D", data, "-U", "idnode", "--auth=trust", "-E", "UTF8", "--no-sync"],
                       cwd=self.base, check=True, capture_output=True, timeout=120, **run_as)
        self.port = _free_port()
        self.log = open(os.path.join(self.base, "postgres.log"), "wb")
        self.proc = subprocess.Popen(
            [os.path.join(bins, "postgres"), "-D", data, "-p", str(self.port),
             "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=", "-c", "max_connections=200"],
            cwd=self.base, stdout=self.log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent, **run_as,
        )
        self.params = {"host": "127.0.0.1", "port": self.port, "user": "idnode", "dbname": "postgres"}
        self.dsn = f"postgres://idnode@127.0.0.1:{self.port}/postgres?sslmode=disable"
        self._wait()

    def _wait(self) -> None:
        import psycopg2

        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"postgres exited {self.proc.returncode}: {pathlib.Path(self.log.name).read_text()[-2000:]}")
            try:
                psycopg2.connect(connect_timeout=2, **self.params).close()
                return
            except psycopg2.OperationalError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.05)  # polling a server that is starting: there is nothing to wait on

    def sql(self, statement: str, *args: Any) -> Any:
        """Run one statement in its own transaction; the rows of a query."""
        import psycopg2

        conn = psycopg2.connect(**self.params)
        try:
            with conn, conn.cursor() as cur:
                cur.execute(statement, args or None)
                return cur.fetchall() if cur.description else None
        finally:
            conn.close()

    def database(self, name: str) -> str:
        """A new, empty database (dropped first if a test made it before); its DSN."""
        import psycopg2

        conn = psycopg2.connect(**self.params)
        try:
            conn.autocommit = True  # CREATE DATABASE refuses to run in a transaction
            with conn.cursor() as cur:
                cur.execute(f'DROP DATABASE IF EXISTS "{name}"')
                cur.execute(f'CREATE DATABASE "{name}"')
        finally:
            conn.close()
        return f"postgres://idnode@127.0.0.1:{self.port}/{name}?sslmode=disable"

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        shutil.rmtree(self.base, ignore_errors=True)


TABLES = """
CREATE TABLE orders   (id text   PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE invoices (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE events   (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE counters (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE serials  (id bigserial PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
"""
"""The tables of the application drill (examples/ormapp.py writes into them), which the ORM
tests use too."""


def fresh_tables(pg: Postgres) -> None:
    pg.sql("DROP TABLE IF EXISTS orders, invoices, events, counters, serials")
    pg.sql(TABLES)


def started() -> Iterator[Postgres]:
    pg = Postgres()
    try:
        yield pg
    finally:
        pg.close()
