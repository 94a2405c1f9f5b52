"""A private PostgreSQL server for the ORM tests, from idcluster's ``postgres`` command
(test/helpers/postgres: Debian's server, a cluster made by initdb in a temporary folder, on a
free loopback port with trust authentication). The server belongs to an idcluster of its own,
so that it lives the whole test run while the clusters of the tests come and go; closing that
idcluster's input stops it."""

from __future__ import annotations

import os
from typing import Any, Iterator, List, Tuple

import pytest

from cluster import Control, ControlError

MISSING = ("PostgreSQL is not installed", "no postgres user")
"""What idcluster's refusal says when this machine cannot run PostgreSQL at all."""


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


class Postgres:
    """One running server; ``dsn`` (a URL) and ``params`` (psycopg2's keywords) reach it."""

    def __init__(self) -> None:
        need("python3-psycopg2 (apt)", importable("psycopg2"))
        self._control = Control()
        try:
            pg = self._control.send({"cmd": "postgres"})["postgres"]
        except ControlError as e:
            self._control.close()
            need(f"{e} (apt-get install postgresql)", not any(m in str(e) for m in MISSING))
            raise
        host, port = pg["addr"].rsplit(":", 1)
        self.port = int(port)
        self.params = {"host": host, "port": self.port, "user": pg["user"], "dbname": pg["database"]}
        self.dsn = pg["dsn"]

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

    def in_transaction(self, application_name: str) -> List[Tuple[int, str]]:
        """The connections of an application (its ``application_name``) inside a transaction
        at the moment of the query, as (pid, state): none while it waits outside of one."""
        rows: List[Tuple[int, str]] = self.sql(
            "SELECT pid, state FROM pg_stat_activity WHERE application_name = %s AND xact_start IS NOT NULL", application_name)
        return rows

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
        return self.dsn.replace(f"/{self.params['dbname']}?", f"/{name}?", 1)

    def close(self) -> None:
        self._control.close()


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
