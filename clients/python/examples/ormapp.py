"""The application of the ORM drill and benchmark, in Python: threads inserting rows through
SQLAlchemy whose primary keys come from idnode (idnode.contrib.sqlalchemy), one JSON line per
committed row. Its flags and output are those of the Go program contrib/gorm/cmd/ormapp, so
that the drill and bench/orm.sh run either:

    PYTHONPATH=clients/python/src python3 ormapp.py --nodes 127.0.0.1:7070 \\
        --dsn 'postgres://user@127.0.0.1:5432/db?sslmode=disable' --tables orders,invoices,events

The tables exist already; each row's key comes from the adapter (HiLo strings for orders,
identities for invoices, numeric IDs for events, HiLo numbers for counters), except serials,
whose bigserial PostgreSQL fills. Exit status 0 when it ran to the end, 2 for bad flags."""

from __future__ import annotations

import argparse
import itertools
import json
import re
import signal
import sys
import threading
import time
from typing import Any, Callable, Dict, List, Optional

from sqlalchemy import BigInteger, Column, Integer, String, Text, create_engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, declarative_base

import idnode
from idnode.contrib.keys import Keys
from idnode.contrib.sqlalchemy import IdnodeKeyError, install, key

keys = Keys()
Base: Any = declarative_base()


class Row:
    lang = Column(Text, nullable=False)
    worker = Column(Integer, nullable=False)
    seq = Column(BigInteger, nullable=False)


class Order(Row, Base):
    __tablename__ = "orders"
    id = Column(String, primary_key=True, default=key(keys.hilo("orders")))


class Invoice(Row, Base):
    __tablename__ = "invoices"
    id = Column(BigInteger, primary_key=True, default=key(keys.identity("invoices")))


class Event(Row, Base):
    __tablename__ = "events"
    id = Column(BigInteger, primary_key=True, default=key(keys.numeric()))


class Counter(Row, Base):
    __tablename__ = "counters"
    id = Column(BigInteger, primary_key=True, default=key(keys.hilo_number("counters")))


class Serial(Row, Base):
    __tablename__ = "serials"
    id = Column(BigInteger, primary_key=True)  # PostgreSQL's bigserial


MODELS: Dict[str, Any] = {m.__tablename__: m for m in (Order, Invoice, Event, Counter, Serial)}
BACKOFF_MIN, BACKOFF_MAX = 0.02, 0.5
"""Seconds a worker waits after a batch whose keys idnode could not give, before its next batch;
doubling while its batches keep failing so."""

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)")


def duration(text: str) -> float:
    """Seconds of a Go duration: "20s", "500ms", "1m30s"."""
    if text == "0":
        return 0.0
    parts = _PART.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"invalid duration {text!r} (Go syntax: 20s, 500ms, 1m30s)")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive integer")
    return n


def parse(argv: List[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", required=True, help="idnode gRPC addresses, comma-separated")
    p.add_argument("--dsn", required=True, help="postgres://user@host:port/db?sslmode=disable")
    p.add_argument("--tables", default="orders,invoices,events", help="tables to insert into, round robin per batch")
    p.add_argument("--workers", type=positive, default=8, help="concurrent inserters (threads)")
    p.add_argument("--batch", type=positive, default=1, help="rows per transaction (add_all, then commit)")
    p.add_argument("--duration", type=duration, default=20.0, help="stop starting batches after this long (20s, 500ms)")
    p.add_argument("--max-rows", type=positive, default=200_000, help="stop after this many rows in all")
    p.add_argument("--lang", default="python", help="written into every row's lang column")
    p.add_argument("--quiet", action="store_true", help="print only the done line (benchmark mode)")
    a = p.parse_args(argv)
    a.tables = a.tables.split(",")
    for t in a.tables:
        if t not in MODELS:
            p.error(f"--tables: unknown table {t!r} (one of {', '.join(MODELS)})")
    a.nodes = [n for n in a.nodes.split(",") if n]
    if not a.nodes:
        p.error("--nodes: no address")
    if not re.match(r"postgres(ql)?://", a.dsn):
        p.error("--dsn: want a postgres:// URL")
    a.url = re.sub(r"^postgres(ql)?://", "postgresql+psycopg2://", a.dsn)
    return a


class Run:
    """What the workers share: the output, the row budget, the counts and the stop signal."""

    def __init__(self, args: argparse.Namespace, engine: Any) -> None:
        self.args = args
        self.engine = engine
        self.stop = threading.Event()
        self.ends = time.monotonic() + args.duration
        self.lock = threading.Lock()
        self.started = 0  # rows of batches begun, against --max-rows
        self.rows = 0
        self.errors = {"idnode": 0, "unique_violation": 0, "other": 0}

    def emit(self, lines: List[Dict[str, Any]]) -> None:
        if self.args.quiet:
            return
        text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        with self.lock:
            sys.stdout.write(text)
            sys.stdout.flush()

    def reserve(self) -> int:
        """The rows of the next batch, 0 once the run is over."""
        if self.stop.is_set() or time.monotonic() >= self.ends:
            return 0
        with self.lock:
            n = min(self.args.batch, self.args.max_rows - self.started)
            self.started += max(n, 0)
            return max(n, 0)

    def failed(self, kind: str, table: str, e: BaseException) -> None:
        with self.lock:
            self.errors[kind] += 1
        self.emit([{"error": kind, "table": table, "message": str(e)}])

    def worker(self, w: int) -> None:
        """A batch at a time, the tables in turn. A batch that got no keys is given up after a
        backoff and the worker goes on with its next table: while the cluster has lost its
        majority, rows keyed by HiLo (from a node's pool) keep coming while identities are
        refused."""
        seq = itertools.count()
        wait = BACKOFF_MIN
        for b in itertools.count():
            n = self.reserve()
            if n == 0:
                return
            table = self.args.tables[(w + b) % len(self.args.tables)]
            if self.batch(w, table, [next(seq) for _ in range(n)]) != "idnode":
                wait = BACKOFF_MIN
                continue
            if self.stop.wait(wait) or time.monotonic() >= self.ends:
                return
            wait = min(2 * wait, BACKOFF_MAX)

    def batch(self, w: int, table: str, seqs: List[int]) -> Optional[str]:
        """Inserts the rows in one transaction; None when committed, else the failure's class."""
        model = MODELS[table]
        rows = [model(lang=self.args.lang, worker=w, seq=s) for s in seqs]
        try:
            with Session(self.engine, future=True) as s:
                s.add_all(rows)
                s.flush()
                ids = [r.id for r in rows]
                s.commit()
        except IdnodeKeyError as e:
            self.failed("idnode", table, e)
            return "idnode"
        except IntegrityError as e:
            kind = "unique_violation" if getattr(e.orig, "pgcode", None) == "23505" else "other"
            self.failed(kind, table, e)
            return kind
        except Exception as e:  # a database or connection error: reported, the run goes on
            self.failed("other", table, e)
            return "other"
        with self.lock:
            self.rows += len(ids)
        self.emit([{"table": table, "id": id} for id in ids])
        return None


def main(argv: Optional[List[str]] = None) -> int:
    args = parse(sys.argv[1:] if argv is None else argv)
    engine = create_engine(args.url, future=True, pool_size=args.workers, max_overflow=0)
    client = idnode.Client(args.nodes)
    keys.bind(client)
    install()
    run = Run(args, engine)
    stop: Callable[[int, Any], None] = lambda signum, frame: run.stop.set()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    began = time.monotonic()
    threads = [threading.Thread(target=run.worker, args=(w,), name=f"ormapp-{w}") for w in range(args.workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.monotonic() - began
    try:
        client.close()  # gives the HiLo tails back and releases the numeric worker
    except idnode.IdnodeError as e:
        print(f"ormapp: closing the idnode client: {e}", file=sys.stderr)
    engine.dispose()
    done = {"done": True, "rows": run.rows, "seconds": round(seconds, 3),
            "rows_per_second": round(run.rows / seconds, 1) if seconds > 0 else 0.0, "errors": run.errors}
    with run.lock:
        sys.stdout.write(json.dumps(done) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
