"""The Python client's tables of docs/fault-table.md, synchronous and asyncio: what an
application meets when the cluster fails, measured on a real three-node cluster and checked
against the page (IDNODE_WRITE_FAULT_TABLE=1 rewrites the tables)."""

from __future__ import annotations

import asyncio

import pytest

import idnode
import idnode.aio
from cluster import Control
from faulttable import LEADER_DEADLINE, Situations, check_section, play

TEST = "tests/test_fault_table.py"
CLOSED_NOTE = "none: returns, the numbers it held counted in `gaps` and logged"


@pytest.mark.topology({"nodes": 3})
def test_the_clients_table(cluster: Control) -> None:
    """The client has the default options; the situations follow one another on one cluster."""
    with idnode.Client(cluster.addrs()) as c:
        c.next_identity("orders", timeout=LEADER_DEADLINE)
        c.next_id("receipts", timeout=LEADER_DEADLINE)  # a HiLo range for close to give back

        def close() -> str:
            c.close()
            assert c.gaps > 0, "close with every node down gave back its HiLo range, or did not count it as a gap"
            return CLOSED_NOTE

        rows = play(cluster, "an identity", "a HiLo ID", Situations(
            leader_killed=lambda d: c.next_identity("orders", timeout=d),
            no_quorum=lambda d: c.next_identity("orders", timeout=d),
            hilo_deadline=lambda d: c.next_id("invoices", timeout=d),
            all_down=lambda d: c.next_identity("orders", timeout=d),
            close=close,
            after_close=lambda: c.next_identity("orders", timeout=1),
        ))
    check_section("python-client", TEST, rows)


@pytest.mark.topology({"nodes": 3})
def test_the_asyncio_clients_table(cluster: Control) -> None:
    """idnode.aio.Client with the default options, its calls run one at a time on one event
    loop while the cluster breaks between them."""
    with asyncio.Runner() as loop:
        async def dial() -> idnode.aio.Client:
            c = idnode.aio.Client(cluster.addrs())
            await c.next_identity("orders", timeout=LEADER_DEADLINE)
            await c.next_id("receipts", timeout=LEADER_DEADLINE)
            return c

        c = loop.run(dial())

        def close() -> str:
            loop.run(c.close())
            assert c.gaps > 0, "close with every node down gave back its HiLo range, or did not count it as a gap"
            return CLOSED_NOTE

        try:
            rows = play(cluster, "an identity", "a HiLo ID", Situations(
                leader_killed=lambda d: loop.run(c.next_identity("orders", timeout=d)),
                no_quorum=lambda d: loop.run(c.next_identity("orders", timeout=d)),
                hilo_deadline=lambda d: loop.run(c.next_id("invoices", timeout=d)),
                all_down=lambda d: loop.run(c.next_identity("orders", timeout=d)),
                close=close,
                after_close=lambda: loop.run(c.next_identity("orders", timeout=1)),
            ))
        finally:
            loop.run(c.close())
    check_section("python-asyncio-client", TEST, rows)
