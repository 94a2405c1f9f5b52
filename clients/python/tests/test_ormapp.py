"""examples/ormapp.py, the drill's and the benchmark's Python application, against a real node
and a real PostgreSQL: every row it reports is in its table with the key it reports, the done
line adds up, SIGTERM ends it cleanly, bad flags exit 2."""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import signal
import subprocess
import sys
import tempfile
import threading
from typing import Any, Dict, List, Tuple

import pytest

import idnode
from cluster import Control
from postgres import Postgres, fresh_tables, importable, need

APP = pathlib.Path(__file__).resolve().parents[1] / "examples" / "ormapp.py"
SRC = pathlib.Path(__file__).resolve().parents[1] / "src"


def command(*flags: str) -> List[str]:
    return [sys.executable, str(APP), *flags]


def env() -> Dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(SRC)}


def lines(out: str) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def check_rows(pg: Postgres, out: List[Dict[str, Any]]) -> Tuple[Dict[str, Any], Dict[str, List[Any]]]:
    """The done line, and the keys reported by table, each of them found in its table."""
    *rows, done = out
    assert done["done"] is True, done
    by_table: Dict[str, List[Any]] = {}
    for r in rows:
        assert "error" not in r, r
        by_table.setdefault(r["table"], []).append(r["id"])
    assert sum(len(v) for v in by_table.values()) == done["rows"]
    for table, ids in by_table.items():
        stored = {r[0] for r in pg.sql(f"SELECT id FROM {table} WHERE lang = 'python'")}
        assert set(ids) == stored, f"{table}: reported and stored keys differ"
        assert len(ids) == len(stored), f"{table}: a key reported twice"
    return done, by_table


@pytest.mark.topology({"nodes": 1})
def test_every_row_reported_is_in_its_table_with_its_key(cluster: Control, postgres: Postgres) -> None:
    need("python3-sqlalchemy (apt)", importable("sqlalchemy"))
    fresh_tables(postgres)
    done = subprocess.run(command("--nodes", ",".join(cluster.addrs()), "--dsn", postgres.dsn,
                                  "--tables", "orders,invoices,events,counters,serials",
                                  "--workers", "4", "--batch", "3", "--duration", "60s", "--max-rows", "300"),
                          env=env(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    last, by_table = check_rows(postgres, lines(done.stdout))
    assert last["rows"] == 300 and last["errors"] == {"idnode": 0, "unique_violation": 0, "other": 0}, last
    assert set(by_table) == {"orders", "invoices", "events", "counters", "serials"}
    assert all(re.fullmatch(r"orders/\d+-A", id) for id in by_table["orders"])
    assert all(isinstance(id, int) for t in ("invoices", "events", "counters", "serials") for id in by_table[t])


@pytest.mark.topology({"nodes": 1})
def test_sigterm_ends_the_run_with_the_done_line(cluster: Control, postgres: Postgres) -> None:
    need("python3-sqlalchemy (apt)", importable("sqlalchemy"))
    fresh_tables(postgres)
    # The rest of stdout is read through the same buffered stream as the first line:
    # communicate() reads the pipe itself and would miss the lines that readline() had already
    # buffered (under load, most of them). stderr goes to a file, so neither pipe can fill while
    # the other is read; the timer bounds the run after the signal.
    with tempfile.TemporaryFile(mode="w+") as errors:
        proc = subprocess.Popen(command("--nodes", ",".join(cluster.addrs()), "--dsn", postgres.dsn, "--tables", "orders",
                                        "--workers", "2", "--duration", "10m"),
                                env=env(), stdout=subprocess.PIPE, stderr=errors, text=True)
        bound = threading.Timer(60, proc.kill)
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            assert json.loads(first)["table"] == "orders", first
            proc.send_signal(signal.SIGTERM)
            bound.start()
            rest = proc.stdout.read()
            proc.wait()
        finally:
            bound.cancel()
            proc.kill()
        errors.seek(0)
        err = errors.read()
    assert proc.returncode == 0, err
    check_rows(postgres, lines(first + rest))
    # The HiLo tail went back on close: the next range starts right after the last key.
    last = max(int(r[0].split("/")[1].split("-")[0]) for r in postgres.sql("SELECT id FROM orders"))
    with idnode.Client(cluster.addrs()) as client:
        assert client.next_id("orders") == f"orders/{last + 1}-A"


@pytest.mark.parametrize("flags", [
    ["--tables", "nope"], ["--workers", "0"], ["--duration", "20"], ["--batch", "x"], ["--dsn", "mysql://x"],
])
def test_bad_flags_exit_2(flags: List[str]) -> None:
    need("python3-sqlalchemy (apt)", importable("sqlalchemy"))
    base = {"--nodes": "127.0.0.1:1", "--dsn": "postgres://u@127.0.0.1:1/db"}
    for i in range(0, len(flags), 2):
        base[flags[i]] = flags[i + 1]
    done = subprocess.run(command(*[x for kv in base.items() for x in kv]), env=env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stdout == ""


def test_durations_read_as_go_writes_them() -> None:
    need("python3-sqlalchemy (apt)", importable("sqlalchemy"))
    sys.path.insert(0, str(APP.parent))
    try:
        import ormapp
    finally:
        sys.path.remove(str(APP.parent))
    # time.Duration's String() of 4 minutes is "4m0s": the drill passes it so.
    for text, seconds in (("4m0s", 240.0), ("1h2m3.5s", 3723.5), ("500ms", 0.5), ("0", 0.0), ("20s", 20.0)):
        assert ormapp.duration(text) == seconds, text
    for text in ("20", "s", "1x", "-1s", "1s2"):
        with pytest.raises(argparse.ArgumentTypeError):
            ormapp.duration(text)
