"""The SQLAlchemy adapter against a real node and a real PostgreSQL: keys filled on flush in one
take per source, Core inserts of many rows too, the keys an application set kept, and
idnode's failures raised as SQLAlchemy errors before any row is written."""

from __future__ import annotations

import pathlib
import re
import sys
import threading
from typing import Any, Callable, Iterator, List, Tuple

import pytest

from ormtests import Calls, Gate, in_threads
from cluster import Control
from faulttable import adapter_situations, check_section, play
from postgres import Postgres, fresh_tables, importable, need

need("python3-sqlalchemy (apt)", importable("sqlalchemy"))

import sqlalchemy  # noqa: E402
from sqlalchemy import BigInteger, Column, create_engine, insert  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402

import idnode  # noqa: E402
from idnode.contrib.sqlalchemy import IdnodeKeyError, install, key, uninstall  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "examples"))
from ormapp import Base, Counter, Event, Invoice, Order, Serial, keys  # noqa: E402  (the drill's models)


class Ticket(Base):  # type: ignore[misc]
    """A table whose keys the application may set by hand: those are claimed as tickets/N."""

    __tablename__ = "tickets"
    id = Column(BigInteger, primary_key=True, default=key(keys.identity("tickets", claim=True)))
    seq = Column(BigInteger, nullable=False)


@pytest.fixture
def db(postgres: Postgres) -> Iterator[Tuple[Postgres, Any]]:
    fresh_tables(postgres)
    postgres.sql("DROP TABLE IF EXISTS tickets")
    postgres.sql("CREATE TABLE tickets (id bigint PRIMARY KEY, seq bigint NOT NULL)")
    engine = create_engine(postgres.dsn.replace("postgres://", "postgresql+psycopg2://", 1), future=True)
    install()
    try:
        yield postgres, engine
    finally:
        uninstall()
        engine.dispose()


@pytest.fixture
def calls(cluster: Control) -> Iterator[Calls]:
    rec = Calls()
    with idnode.Client(cluster.addrs(), interceptors=[rec]) as client:
        keys.bind(client)
        yield rec


def number(id: str) -> int:
    m = re.fullmatch(r"orders/(\d+)-A", id)
    assert m, id
    return int(m.group(1))


def rows(model: Any, n: int, **values: Any) -> List[Any]:
    """n new rows of model with seq 0..n-1 (and the values given)."""
    values = {"lang": "python", "worker": 0, **values} if model is not Ticket else values
    return [model(seq=i, **values) for i in range(n)]


def test_add_all_fills_every_key_with_one_take_per_source(db: Tuple[Postgres, Any], calls: Calls) -> None:
    pg, engine = db
    with Session(engine, future=True) as s:
        s.add_all(rows(Order, 40) + rows(Invoice, 40) + rows(Event, 40) + rows(Counter, 40))
        s.commit()
    assert calls.count("NextIdentity") == 1, f"40 invoices took {calls.count('NextIdentity')} identity calls"
    assert calls.count("AcquireWorker") == 1
    orders = [number(r[0]) for r in pg.sql("SELECT id FROM orders ORDER BY seq")]
    assert orders == list(range(1, 41)), "one take, consecutive across the first two ranges"
    assert [r[0] for r in pg.sql("SELECT id FROM invoices ORDER BY seq")] == list(range(1, 41))
    assert [r[0] for r in pg.sql("SELECT id FROM counters ORDER BY seq")] == list(range(1, 41))
    events = [r[0] for r in pg.sql("SELECT id FROM events ORDER BY seq")]
    assert len(set(events)) == 40 and events == sorted(events) and events[0] > 1 << 32, "numeric IDs, rising"


def test_a_core_insert_of_many_rows_takes_one_block(db: Tuple[Postgres, Any], calls: Calls) -> None:
    pg, engine = db
    with Session(engine, future=True) as s:
        s.execute(insert(Invoice), [{"lang": "python", "worker": 1, "seq": i} for i in range(25)])
        s.execute(insert(Order), [{"lang": "python", "worker": 1, "seq": i} for i in range(25)])
        s.commit()
    assert calls.count("NextIdentity") == 1
    assert pg.sql("SELECT count(*), min(id), max(id) FROM invoices") == [(25, 1, 25)]
    assert pg.sql("SELECT count(DISTINCT id) FROM orders") == [(25,)]


def test_the_bulk_methods_take_one_block_a_call(db: Tuple[Postgres, Any], calls: Calls) -> None:
    pg, engine = db
    with Session(engine, future=True) as s:
        s.bulk_insert_mappings(Invoice, [{"lang": "python", "worker": 2, "seq": i} for i in range(20)])
        s.bulk_save_objects(rows(Invoice, 20, worker=3))
        s.commit()
    assert calls.count("NextIdentity") == 2
    assert pg.sql("SELECT count(*), min(id), max(id) FROM invoices") == [(40, 1, 40)]


def test_keys_the_application_set_are_kept_checked_and_claimed(db: Tuple[Postgres, Any], calls: Calls) -> None:
    pg, engine = db
    with Session(engine, future=True) as s:
        s.add_all(rows(Order, 1, id="orders/by-hand") + rows(Order, 1, id="orders|") + [Ticket(id=3, seq=0)])
        s.commit()
        # 3 was claimed as tickets/3: the counter skips it.
        s.add_all(rows(Ticket, 4))
        s.commit()
    assert sorted(r[0] for r in pg.sql("SELECT id FROM orders")) == ["orders/1", "orders/by-hand"]
    assert [r[0] for r in pg.sql("SELECT id FROM tickets ORDER BY id")] == [1, 2, 3, 4, 5]
    assert calls.count("Claim") == 1

    for bad, reason in ((Ticket(id=3, seq=0), "CLAIMED"), (Ticket(id=-1, seq=0), "INVALID_INPUT"),
                        (rows(Order, 1, id="orders/a\x01b")[0], "INVALID_INPUT")):
        with Session(engine, future=True) as s:
            s.add_all(rows(Serial, 1) + [bad])
            with pytest.raises(IdnodeKeyError) as caught:
                s.commit()
            assert caught.value.reason == reason, caught.value
            assert isinstance(caught.value.__cause__, idnode.IdnodeError)
    assert pg.sql("SELECT count(*) FROM serials") == [(0,)], "a refused key wrote a row of the flush"


def test_a_closed_or_unreachable_cluster_is_an_sqlalchemy_error_and_writes_nothing(db: Tuple[Postgres, Any], cluster: Control) -> None:
    pg, engine = db
    closed = idnode.Client(cluster.addrs())
    closed.close()
    # A HiLo caller stops waiting for a range at its timeout (DEADLINE_EXCEEDED), an identity
    # caller when every attempt failed (UNAVAILABLE).
    with idnode.Client(["127.0.0.1:1"], timeout=0.5, attempt_timeout=0.2, fetch_timeout=0.5) as unreachable:
        for client, cause in ((closed, idnode.ClientClosed), (unreachable, (idnode.Unavailable, idnode.DeadlineExceeded))):
            keys.bind(client)
            with Session(engine, future=True) as s:
                s.add_all(rows(Serial, 1) + rows(Order, 1) + rows(Invoice, 1))
                with pytest.raises(IdnodeKeyError) as flushed:
                    s.commit()
                s.rollback()
                with pytest.raises(IdnodeKeyError) as executed:
                    s.execute(insert(Invoice), [{"lang": "python", "worker": 0, "seq": 1}, {"lang": "python", "worker": 0, "seq": 2}])
            for caught in (flushed, executed):
                assert isinstance(caught.value, sqlalchemy.exc.SQLAlchemyError)
                assert isinstance(caught.value.__cause__, cause) and caught.value.orig is caught.value.__cause__
                assert caught.value.reason == caught.value.orig.reason
            for table in ("orders", "invoices", "serials"):
                assert pg.sql(f"SELECT count(*) FROM {table}") == [(0,)], f"{table} has a half-written row"
    assert flushed.value.reason != "CLIENT_CLOSED", "the unreachable cluster's reason, not the closed client's"
    # The same sessions work once the keys have a live client again.
    with idnode.Client(cluster.addrs()) as client:
        keys.bind(client)
        with Session(engine, future=True) as s:
            s.add_all(rows(Serial, 1) + rows(Order, 1))
            s.commit()
    assert pg.sql("SELECT count(*) FROM orders") == [(1,)]


APP = "sqlalchemy-tests"  # the application_name of the engine whose connections are watched


@pytest.mark.parametrize("how", ["flush", "core"])
def test_keys_are_awaited_outside_a_transaction_and_a_failure_writes_nothing(db: Tuple[Postgres, Any], cluster: Control, how: str) -> None:
    """500 rows saved at once (a session's flush, or a Core executemany insert): while their
    keys are awaited (the HiLo range call held at the gate) no connection of the application is
    in a transaction; when no key can be had (the node killed), nothing is written."""
    pg, _ = db
    engine = create_engine(pg.dsn.replace("postgres://", "postgresql+psycopg2://", 1), future=True,
                           connect_args={"application_name": APP})
    gate = Gate("NextHiLo")
    outcome: List[BaseException] = []

    def save() -> None:
        try:
            with Session(engine, future=True) as s:
                if how == "flush":
                    s.add_all(rows(Counter, 500))
                else:
                    s.execute(insert(Counter), [{"lang": "python", "worker": 0, "seq": i} for i in range(500)])
                s.commit()
        except BaseException as e:  # noqa: B036 - handed to the test's thread
            outcome.append(e)

    try:
        with idnode.Client(cluster.addrs(), interceptors=[gate], fetch_timeout=5.0) as client:
            keys.bind(client)
            gate.shut()
            saver = threading.Thread(target=save)
            saver.start()
            try:
                gate.wait_held()
                held = pg.in_transaction(APP)
                cluster.send({"cmd": "kill", "node": "leader"})
            finally:
                gate.open()
                saver.join(60)
            assert not saver.is_alive(), "the save did not end within 60 s of its node's death"
            assert held == [], f"while the keys were awaited, connections of the application were in a transaction: {held}"
            assert len(outcome) == 1 and isinstance(outcome[0], IdnodeKeyError), outcome
            assert isinstance(outcome[0], sqlalchemy.exc.SQLAlchemyError) and isinstance(outcome[0].__cause__, idnode.IdnodeError)
            assert pg.sql("SELECT count(*) FROM counters") == [(0,)], "the failed save wrote rows"
    finally:
        engine.dispose()


def test_closing_the_client_gives_the_range_back(db: Tuple[Postgres, Any], cluster: Control) -> None:
    pg, engine = db
    with idnode.Client(cluster.addrs()) as client:
        keys.bind(client)
        with Session(engine, future=True) as s:
            s.add_all(rows(Order, 7))
            s.commit()
    last = max(number(r[0]) for r in pg.sql("SELECT id FROM orders"))
    with idnode.Client(cluster.addrs()) as client:
        assert client.next_id("orders") == f"orders/{last + 1}-A"


def test_threads_adding_batches_write_no_key_twice(db: Tuple[Postgres, Any], calls: Calls) -> None:
    pg, engine = db

    def insert_batch(model: Any, worker: int, seqs: List[int]) -> None:
        with Session(engine, future=True) as s:
            s.add_all([model(lang="python", worker=worker, seq=q) for q in seqs])
            s.commit()

    in_threads(8, 15, (Order, Invoice, Event, Counter), insert_batch)
    total = sum(pg.sql(f"SELECT count(*) FROM {t}")[0][0] for t in ("orders", "invoices", "events", "counters"))
    assert total == 8 * 15 * 7


@pytest.mark.topology({"nodes": 3})
def test_the_sqlalchemy_adapters_table(db: Tuple[Postgres, Any], cluster: Control) -> None:
    """docs/fault-table.md's SQLAlchemy table: a session's commit of rows keyed by idnode in each
    situation, one after another on one three-node cluster (IDNODE_WRITE_FAULT_TABLE=1 rewrites
    the table)."""
    _, engine = db

    def commit(model: Any) -> Callable[[], None]:
        def save() -> None:
            with Session(engine, future=True) as s:
                s.add_all(rows(model, 3))
                s.commit()
        return save

    situations = adapter_situations(cluster, keys.bind, commit(Invoice), commit(Order), commit(Counter))
    table = play(cluster, "a commit of rows keyed by identities", "a commit of rows keyed by HiLo IDs", situations)
    check_section("sqlalchemy", "tests/test_contrib_sqlalchemy.py", table, adapter=True)
