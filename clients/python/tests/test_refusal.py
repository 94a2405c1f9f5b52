"""The error a call raises once no node served it: the most telling refusal it met (a live
node's reason over a dead node's connection refusal), when its attempts ran out or its
caller's deadline ended it. Against fake nodes, one of them stopped or hung."""

from __future__ import annotations

import asyncio
import threading
from typing import Any, Callable, Iterator, List

import grpc
import pytest

import idnode
import idnode.aio
from fake import FakeNode, refuse
from idnode.v1 import idnode_pb2 as pb

WAIT = 10.0  # seconds a hung fake node holds a call before the test gives up on it


@pytest.fixture
def nodes() -> Iterator[List[FakeNode]]:
    ns = [FakeNode() for _ in range(3)]
    yield ns
    for n in ns:
        n.stop()


def no_quorum(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
    refuse(ctx, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM", "no quorum: 2 of 3 nodes unreachable")


def refusing_then_hanging(refusal: Callable[..., Any], times: int, release: threading.Event) -> Callable[..., Any]:
    """A handler that refuses its first ``times`` calls and holds each later one until release:
    so a call's deadline passes after a refusal however slowly the machine answers, as long as
    the refusals come within that deadline (deadlines under a second once passed before them)."""
    calls: List[Any] = []

    def handler(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
        calls.append(req)
        if len(calls) > times:
            release.wait(WAIT)
        refusal(req, ctx, node)

    return handler


def raised(flavour: str, addrs: List[str], call: Callable[[Any], Any], **kw: Any) -> idnode.IdnodeError:
    """The IdnodeError that ``call(client)`` raises on a client of flavour over addrs."""

    async def on_asyncio() -> None:
        async with idnode.aio.Client(addrs, nodes_in_order=True, **kw) as c:
            await call(c)

    with pytest.raises(idnode.IdnodeError) as e:
        if flavour == "asyncio":
            asyncio.run(on_asyncio())
        else:
            with idnode.Client(addrs, nodes_in_order=True, **kw) as c:
                call(c)
    return e.value


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_the_live_nodes_refusal_outranks_the_dead_nodes_tried_after_it(nodes: List[FakeNode], flavour: str) -> None:
    nodes[0].handlers["NextIdentity"] = no_quorum
    nodes[1].stop()
    nodes[2].stop()
    # One round: the live node, then the two dead ones, the last word.
    err = raised(flavour, [n.addr for n in nodes], lambda c: c.next_identity("orders", 2),
                 backoff=idnode.Backoff(initial=0.001, max_attempts=3))
    assert (type(err), err.code, err.reason) == (idnode.Unavailable, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM"), repr(err)
    assert err.attempts == 3
    assert "no quorum: 2 of 3 nodes unreachable" in err.message


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_newer_refusal_of_a_node_outranks_an_older_one(nodes: List[FakeNode], flavour: str) -> None:
    seen: List[Any] = []

    def outcome_unknown_then_no_quorum(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
        seen.append(req)
        if len(seen) == 1:
            refuse(ctx, grpc.StatusCode.UNAVAILABLE, "OUTCOME_UNKNOWN", "the leader lost its quorum mid-write")
        no_quorum(req, ctx, node)

    nodes[0].handlers["NextIdentity"] = outcome_unknown_then_no_quorum
    nodes[1].stop()
    err = raised(flavour, [nodes[0].addr, nodes[1].addr], lambda c: c.next_identity("orders", 2),
                 backoff=idnode.Backoff(initial=0.001, max_attempts=4))
    assert (err.code, err.reason) == (grpc.StatusCode.UNAVAILABLE, "NO_QUORUM"), repr(err)


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_with_dead_nodes_alone_the_error_is_their_connection_refusal(nodes: List[FakeNode], flavour: str) -> None:
    for n in nodes:
        n.stop()
    err = raised(flavour, [n.addr for n in nodes], lambda c: c.next_identity("orders", 2),
                 backoff=idnode.Backoff(initial=0.001, max_attempts=3))
    assert (type(err), err.reason) == (idnode.Unavailable, "UNAVAILABLE"), repr(err)


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_the_callers_deadline_ends_the_call_with_the_refusal_inside(nodes: List[FakeNode], flavour: str) -> None:
    # Two rounds are refused, the third attempt on the live node hangs until the deadline.
    release = threading.Event()
    nodes[0].handlers["NextIdentity"] = refusing_then_hanging(no_quorum, 2, release)
    nodes[1].stop()
    nodes[2].stop()
    try:
        err = raised(flavour, [n.addr for n in nodes], lambda c: c.next_identity("orders", 2, timeout=2))
    finally:
        release.set()
    assert isinstance(err, idnode.DeadlineExceeded) and isinstance(err, TimeoutError), repr(err)
    assert isinstance(err, idnode.Unavailable), "except idnode.Unavailable still catches a call no node served in time"
    assert (err.code, err.reason) == (grpc.StatusCode.DEADLINE_EXCEEDED, "NO_QUORUM"), repr(err)
    assert isinstance(err.refusal, idnode.Unavailable) and err.refusal.reason == "NO_QUORUM", repr(err.refusal)
    assert err.__cause__ is err.refusal
    assert err.attempts > 3


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_deadline_that_cuts_an_attempt_short_keeps_the_refusal_before_it(nodes: List[FakeNode], flavour: str) -> None:
    release = threading.Event()
    nodes[0].handlers["NextIdentity"] = no_quorum
    nodes[1].handlers["NextIdentity"] = lambda req, ctx, node: (release.wait(WAIT), pb.NextIdentityResponse(first=1, last=2))[1]
    try:
        err = raised(flavour, [nodes[0].addr, nodes[1].addr], lambda c: c.next_identity("orders", 2, timeout=2))
    finally:
        release.set()
    assert (type(err), err.reason) == (idnode.UnavailableTimeout, "NO_QUORUM"), repr(err)
    assert err.refusal is not None and err.refusal.code == grpc.StatusCode.UNAVAILABLE


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_deadline_with_no_refusal_before_it_is_a_plain_deadline(nodes: List[FakeNode], flavour: str) -> None:
    release = threading.Event()
    nodes[0].handlers["NextIdentity"] = lambda req, ctx, node: (release.wait(WAIT), pb.NextIdentityResponse(first=1, last=2))[1]
    try:
        err = raised(flavour, [nodes[0].addr], lambda c: c.next_identity("orders", 2, timeout=0.2))
    finally:
        release.set()
    assert (type(err), err.reason) == (idnode.DeadlineExceeded, "DEADLINE_EXCEEDED"), repr(err)
    assert err.refusal is None


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_hilo_caller_whose_deadline_passes_gets_the_refusal_its_fetch_met(nodes: List[FakeNode], flavour: str) -> None:
    release = threading.Event()
    nodes[0].handlers["NextHiLo"] = refusing_then_hanging(no_quorum, 1, release)
    nodes[1].stop()
    # The fetch goes on retrying for fetch_timeout; the caller's deadline ends its wait first.
    try:
        err = raised(flavour, [nodes[0].addr, nodes[1].addr], lambda c: c.next_id("orders", timeout=2), fetch_timeout=WAIT)
    finally:
        release.set()
    assert (type(err), err.reason) == (idnode.UnavailableTimeout, "NO_QUORUM"), repr(err)
    assert err.__cause__ is err.refusal and err.refusal is not None
    assert "no HiLo range of 'orders' arrived in time" in err.message


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_deadline_over_busy_nodes_is_also_a_resource_exhausted(nodes: List[FakeNode], flavour: str) -> None:
    # The first attempt is refused as busy, and the retries hang until the call's deadline.
    release = threading.Event()

    def busy(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
        refuse(ctx, grpc.StatusCode.RESOURCE_EXHAUSTED, "NODE_BUSY", "busy")

    busy_then_hang = refusing_then_hanging(busy, 1, release)
    for n in nodes:
        n.handlers["NextIdentity"] = busy_then_hang
    try:
        err = raised(flavour, [n.addr for n in nodes], lambda c: c.next_identity("orders", 2, timeout=2))
    finally:
        release.set()
    assert isinstance(err, idnode.DeadlineExceeded) and isinstance(err, idnode.ResourceExhausted), repr(err)
    assert (err.code, err.reason) == (grpc.StatusCode.DEADLINE_EXCEEDED, "NODE_BUSY")


@pytest.mark.parametrize("flavour", ["sync", "asyncio"])
def test_a_folded_caller_whose_deadline_passes_in_the_queue_gets_the_batchs_refusal(nodes: List[FakeNode], flavour: str) -> None:
    # The first caller's batch meets NO_QUORUM, then its retry hangs on the node; a second
    # caller with a shorter deadline queues behind that batch, and its deadline passes there.
    retried, release = threading.Event(), threading.Event()
    seen: List[Any] = []

    def refuse_then_hang(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
        seen.append(req)
        if len(seen) == 1:
            no_quorum(req, ctx, node)
        retried.set()
        release.wait(WAIT)
        return pb.NextIdentityResponse(first=1, last=req.count)

    nodes[0].handlers["NextIdentity"] = refuse_then_hang
    addrs = [nodes[0].addr]
    try:
        if flavour == "sync":
            with idnode.Client(addrs) as c:
                first = threading.Thread(target=lambda: c.next_identity("orders", timeout=WAIT), daemon=True)
                first.start()
                assert retried.wait(WAIT), "the first caller's batch never retried"
                with pytest.raises(idnode.DeadlineExceeded) as e:
                    c.next_identity("orders", timeout=0.2)
                release.set()
                first.join(WAIT)
            err = e.value
        else:
            async def main() -> idnode.IdnodeError:
                async with idnode.aio.Client(addrs) as c:
                    loop = asyncio.get_running_loop()
                    first = loop.create_task(c.next_identity("orders", timeout=WAIT))
                    assert await loop.run_in_executor(None, retried.wait, WAIT), "the first caller's batch never retried"
                    with pytest.raises(idnode.DeadlineExceeded) as e:
                        await c.next_identity("orders", timeout=0.2)
                    release.set()
                    await first
                return e.value
            err = asyncio.run(main())
    finally:
        release.set()
    assert (type(err), err.reason) == (idnode.UnavailableTimeout, "NO_QUORUM"), repr(err)
    assert "passed before a batch took it" in err.message
