"""Every call of both clients against a real node, and TLS: what the conformance suite does not
reach (listings, journals, workers, status, server-only TLS)."""

from __future__ import annotations

import asyncio
from typing import Any, List

import pytest

import idnode
import idnode.aio
from cluster import Control


def exercise_sync(c: idnode.Client) -> List[Any]:
    c.series.create("J", "J-{n}")
    issued = [c.series.issue("J", fields={"k": "v"}).id for _ in range(3)]
    journal = [e.id for e in c.series.journal("J")]
    tail = [e.seq for e in c.series.journal("J", from_seq=2)]
    series = [s.name for s in c.series.list()]
    c.next_identity("listed", 3)
    listed = [(i.name, i.value) for i in c.identities("list")]
    c.next_id("hl")
    hilo_tags = [t.tag for t in c.list_hilo().tags]
    lease = c.workers.acquire(holder="calls-test", lease=5)
    renewed = c.workers.renew(lease.worker, lease.epoch, lease=5)
    workers = [w.holder for w in c.workers.list().workers]
    c.workers.release(lease.worker, lease.epoch)
    status = c.admin.status(consistent=True)
    claims = c.get_claims(prefix="").items
    return [issued, journal, tail, series, listed, hilo_tags, renewed.expires_at_ms >= lease.expires_at_ms,
            workers, status.leader, list(claims)]


async def exercise_aio(c: idnode.aio.Client) -> List[Any]:
    await c.series.create("J", "J-{n}")
    issued = [(await c.series.issue("J", fields={"k": "v"})).id for _ in range(3)]
    journal = [e.id async for e in c.series.journal("J")]
    tail = [e.seq async for e in c.series.journal("J", from_seq=2)]
    series = [s.name for s in await c.series.list()]
    await c.next_identity("listed", 3)
    listed = [(i.name, i.value) async for i in c.identities("list")]
    await c.next_id("hl")
    hilo_tags = [t.tag for t in (await c.list_hilo()).tags]
    lease = await c.workers.acquire(holder="calls-test", lease=5)
    renewed = await c.workers.renew(lease.worker, lease.epoch, lease=5)
    workers = [w.holder for w in (await c.workers.list()).workers]
    await c.workers.release(lease.worker, lease.epoch)
    status = await c.admin.status(consistent=True)
    claims = (await c.get_claims(prefix="")).items
    return [issued, journal, tail, series, listed, hilo_tags, renewed.expires_at_ms >= lease.expires_at_ms,
            workers, status.leader, list(claims)]


EXPECTED = [["J-1", "J-2", "J-3"], ["J-1", "J-2", "J-3"], [2, 3], ["J"], [("listed", 3)], ["hl"], True,
            ["calls-test"], "A", []]


@pytest.mark.topology({"nodes": 1})
def test_every_call_of_the_sync_client(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as c:
        assert exercise_sync(c) == EXPECTED


@pytest.mark.topology({"nodes": 1})
def test_every_call_of_the_asyncio_client(cluster: Control) -> None:
    async def main() -> List[Any]:
        async with idnode.aio.Client(cluster.addrs()) as c:
            return await exercise_aio(c)
    assert asyncio.run(main()) == EXPECTED


@pytest.mark.topology({"nodes": 1, "tls": "server"})
def test_tls_with_the_clusters_ca_and_not_without(cluster: Control) -> None:
    assert cluster.cluster is not None
    ca = cluster.cluster["tls"]["ca"]
    with idnode.Client(cluster.addrs(), tls=idnode.TLS(ca_file=ca)) as c:
        assert c.generate("users|") == ["users/1"]
    # Three attempts, each refused by the handshake, end the call as Unavailable. Bounded by the
    # number of attempts and not by a short deadline: on a loaded machine one handshake took
    # longer than a second, and a call whose deadline passes before any answer is DeadlineExceeded.
    three = idnode.Backoff(max_attempts=3)
    with idnode.Client(cluster.addrs(), tls=True, timeout=60, attempt_timeout=20, backoff=three) as c:  # the system's roots do not know the CA
        with pytest.raises(idnode.Unavailable):
            c.generate("users|")
    with idnode.Client(cluster.addrs(), timeout=60, attempt_timeout=20, backoff=three) as c:  # plaintext to a TLS port
        with pytest.raises(idnode.Unavailable):
            c.generate("users|")
