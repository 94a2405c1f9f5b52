"""The shared core against fake nodes: retries, request ids, the leader hint, NODE_BUSY,
deadlines, errors and argument checks."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Iterator, List

import grpc
import pytest

import idnode
import idnode.aio
from fake import FakeNode, refuse
from idnode.v1 import idnode_pb2 as pb

FAST = idnode.Backoff(initial=0.001, max=0.004)


@pytest.fixture
def nodes() -> Iterator[List[FakeNode]]:
    ns = [FakeNode() for _ in range(3)]
    yield ns
    for n in ns:
        n.stop()


def first_attempt_fails(code: grpc.StatusCode, reason: str):
    """A handler that refuses the first call it gets and answers the others."""
    seen = []

    def handle(req, ctx, node):
        seen.append(req)
        if len(seen) == 1:
            refuse(ctx, code, reason)
        return pb.NextIdentityResponse(first=7, last=7 + max(req.count, 1) - 1)
    return handle


def test_a_retried_identity_call_keeps_its_request_id(nodes: List[FakeNode]) -> None:
    handler = first_attempt_fails(grpc.StatusCode.UNAVAILABLE, "OUTCOME_UNKNOWN")
    for n in nodes:
        n.handlers["NextIdentity"] = handler
    with idnode.Client([n.addr for n in nodes], backoff=FAST, nodes_in_order=True) as c:
        assert c.next_identity("orders", 2) == idnode.IdentityBlock(7, 8)
    ids = [r.request_id for n in nodes for r in n.calls("NextIdentity")]
    assert len(ids) == 2, "one failed attempt, one answered"
    assert ids[0] == ids[1] and ids[0].startswith("py-")
    assert [len(n.calls("NextIdentity")) for n in nodes] == [1, 1, 0], "the retry goes to the next node at once"


def test_a_retried_return_answers_returned_as_its_first_attempt(nodes: List[FakeNode]) -> None:
    # The first attempt gives the numbers back and its answer is lost; the cluster answers the
    # retry by its request id as the first attempt, where the range alone would say False.
    done: set = set()

    def took_effect_answer_lost(req, ctx, node):  # type: ignore[no-untyped-def]
        done.add(req.request_id)
        ctx.abort(grpc.StatusCode.UNAVAILABLE, "connection reset by peer")

    nodes[0].handlers["ReturnHiLo"] = took_effect_answer_lost
    nodes[1].handlers["ReturnHiLo"] = lambda req, ctx, node: pb.ReturnHiLoResponse(returned=req.request_id in done)

    async def asyncio_return() -> bool:
        async with idnode.aio.Client([n.addr for n in nodes[:2]], backoff=FAST, nodes_in_order=True) as c:
            return await c.return_hilo("orders", 32, 4, "g1")

    with idnode.Client([n.addr for n in nodes[:2]], backoff=FAST, nodes_in_order=True) as c:
        assert c.return_hilo("orders", 32, 4, "g1") is True
    assert asyncio.run(asyncio_return()) is True
    ids = [r.request_id for n in nodes[:2] for r in n.calls("ReturnHiLo")]
    assert len(ids) == 4 and ids[0] != "" and ids[1] != "" and ids[0] != ids[1], "each return has a request id of its own"
    assert sorted(ids) == sorted([ids[0], ids[0], ids[1], ids[1]]), "a return's retry carries its request id"


def test_a_retried_release_answers_its_first_count(nodes: List[FakeNode]) -> None:
    # The first attempt releases two IDs and its answer is lost; the cluster answers the retry by
    # its request id with the first attempt's count, where the IDs alone would say 0.
    counts: dict = {}

    def release(req, ctx, node):  # type: ignore[no-untyped-def]
        first = req.request_id not in counts
        counts.setdefault(req.request_id, 2)
        if first and node is nodes[0]:
            ctx.abort(grpc.StatusCode.UNAVAILABLE, "connection reset by peer")
        return pb.ReleaseResponse(released=counts[req.request_id])

    for n in nodes[:2]:
        n.handlers["Release"] = release

    async def asyncio_release() -> int:
        async with idnode.aio.Client([n.addr for n in nodes[:2]], backoff=FAST, nodes_in_order=True) as c:
            return await c.release(["users/1", "users/2"])

    with idnode.Client([n.addr for n in nodes[:2]], backoff=FAST, nodes_in_order=True) as c:
        assert c.release(["users/1", "users/2"]) == 2
    assert asyncio.run(asyncio_release()) == 2
    ids = [r.request_id for n in nodes[:2] for r in n.calls("Release")]
    assert len(ids) == 4 and ids[0] != "" and ids[1] != "" and ids[0] != ids[1], "each release has a request id of its own"
    assert sorted(ids) == sorted([ids[0], ids[0], ids[1], ids[1]]), "a release's retry carries its request id"


def test_a_new_logical_call_gets_a_new_request_id(nodes: List[FakeNode]) -> None:
    nodes[0].handlers["NextIdentity"] = lambda req, ctx, node: pb.NextIdentityResponse(first=1, last=1)
    with idnode.Client([nodes[0].addr]) as c:
        c.next_identity("a")
        c.next_identity("a")
        c.next_identity("a", request_id="mine")
    ids = [r.request_id for r in nodes[0].calls("NextIdentity")]
    assert ids[0] != ids[1] and ids[2] == "mine"


def test_the_asyncio_client_keeps_the_request_id_too(nodes: List[FakeNode]) -> None:
    handler = first_attempt_fails(grpc.StatusCode.UNAVAILABLE, "NO_QUORUM")
    for n in nodes:
        n.handlers["Generate"] = lambda req, ctx, node: (handler(req, ctx, node), pb.GenerateResponse(ids=["orders/7"]))[1]

    async def main() -> List[str]:
        async with idnode.aio.Client([n.addr for n in nodes], backoff=FAST) as c:
            return await c.generate("orders|")

    assert asyncio.run(main()) == ["orders/7"]
    ids = [r.request_id for n in nodes for r in n.calls("Generate")]
    assert len(ids) == 2 and ids[0] == ids[1] != ""


def test_node_busy_goes_to_another_node(nodes: List[FakeNode]) -> None:
    nodes[0].handlers["Explain"] = lambda req, ctx, node: refuse(ctx, grpc.StatusCode.RESOURCE_EXHAUSTED, "NODE_BUSY")
    nodes[1].handlers["Explain"] = lambda req, ctx, node: pb.ExplainResponse(kind="hilo")
    with idnode.Client([nodes[0].addr, nodes[1].addr], nodes_in_order=True, backoff=FAST) as c:
        assert c.explain("orders/1-A").kind == "hilo"


def test_other_resource_exhaustion_is_final(nodes: List[FakeNode]) -> None:
    nodes[0].handlers["Explain"] = lambda req, ctx, node: refuse(ctx, grpc.StatusCode.RESOURCE_EXHAUSTED, "RESOURCE_EXHAUSTED", "the database's limit")
    nodes[1].handlers["Explain"] = lambda req, ctx, node: pb.ExplainResponse(kind="hilo")
    with idnode.Client([nodes[0].addr, nodes[1].addr], nodes_in_order=True, backoff=FAST) as c:
        with pytest.raises(idnode.ResourceExhausted):
            c.explain("x")
    assert nodes[1].calls("Explain") == []


def test_the_leader_hint_sends_identity_calls_to_the_leader(nodes: List[FakeNode]) -> None:
    for n in nodes:
        n.leader = nodes[2].addr
        n.handlers["NextIdentity"] = lambda req, ctx, node: pb.NextIdentityResponse(first=1, last=1)
        n.handlers["Generate"] = lambda req, ctx, node: pb.GenerateResponse(ids=["x"])
    with idnode.Client([n.addr for n in nodes], nodes_in_order=True) as c:
        c.generate("users/")  # learns the leader from node 0's header
        for _ in range(3):
            c.next_identity("orders")
        for _ in range(2):
            c.generate("users/")  # server-side IDs are not the leader's business
    assert [len(n.calls("NextIdentity")) for n in nodes] == [0, 0, 3]
    assert [len(n.calls("Generate")) for n in nodes] == [3, 0, 0]


def test_a_follower_still_naming_a_leader_the_client_saw_fail_does_not_send_calls_back(nodes: List[FakeNode]) -> None:
    # After the leader dies the followers name it until they elect another: the client believes
    # its own observation over such a hint for a while, in the sync and the asyncio client.
    leader_down = [False]

    def leader_answer(req, ctx, node):  # type: ignore[no-untyped-def]
        if leader_down[0]:
            ctx.abort(grpc.StatusCode.UNAVAILABLE, "connection reset by peer")
        return pb.NextIdentityResponse(first=1, last=1)

    for n in nodes:
        n.leader = nodes[2].addr
        n.handlers["NextIdentity"] = lambda req, ctx, node: pb.NextIdentityResponse(first=1, last=1)
    nodes[2].handlers["NextIdentity"] = leader_answer

    async def asyncio_calls() -> None:
        async with idnode.aio.Client([n.addr for n in nodes], nodes_in_order=True, backoff=FAST) as c:
            leader_down[0] = False
            await c.next_identity("orders", 2)
            leader_down[0] = True
            for _ in range(3):
                await c.next_identity("orders", 2)

    with idnode.Client([n.addr for n in nodes], nodes_in_order=True, backoff=FAST) as c:
        c.next_identity("orders", 2)  # at node 0, which names node 2
        c.next_identity("orders", 2)
        leader_down[0] = True
        before = len(nodes[2].calls("NextIdentity"))
        for _ in range(3):
            c.next_identity("orders", 2)
        assert len(nodes[2].calls("NextIdentity")) == before + 1, "a follower's stale hint sent the next calls to the dead leader first again"
    before = len(nodes[2].calls("NextIdentity"))
    asyncio.run(asyncio_calls())
    assert len(nodes[2].calls("NextIdentity")) == before + 1, "asyncio: a follower's stale hint sent the next calls to the dead leader first again"


def test_an_unknown_leader_address_teaches_nothing(nodes: List[FakeNode]) -> None:
    nodes[0].leader = "raft-b:7070"
    nodes[0].handlers["NextIdentity"] = lambda req, ctx, node: pb.NextIdentityResponse(first=1, last=1)
    with idnode.Client([nodes[0].addr, nodes[1].addr], nodes_in_order=True) as c:
        c.next_identity("a")
        c.next_identity("a")
    assert len(nodes[0].calls("NextIdentity")) == 2


def test_errors_carry_code_reason_and_metadata(nodes: List[FakeNode]) -> None:
    nodes[0].handlers["Claim"] = lambda req, ctx, node: refuse(
        ctx, grpc.StatusCode.ALREADY_EXISTS, "CLAIMED", "users/ayende is claimed by alice", id="users/ayende", owner="alice")
    with idnode.Client([nodes[0].addr]) as c:
        with pytest.raises(idnode.AlreadyExists) as e:
            c.claim(["users/ayende"])
    assert e.value.code == grpc.StatusCode.ALREADY_EXISTS
    assert e.value.reason == "CLAIMED"
    assert dict(e.value.metadata) == {"id": "users/ayende", "owner": "alice"}
    assert "claimed by alice" in str(e.value)
    assert isinstance(e.value, idnode.IdnodeError) and not isinstance(e.value, grpc.RpcError)


def test_a_refusal_without_error_info_takes_the_code_name(nodes: List[FakeNode]) -> None:
    def handle(req, ctx, node):
        ctx.abort(grpc.StatusCode.NOT_FOUND, "no such database")
    nodes[0].handlers["Generate"] = handle
    with idnode.Client([nodes[0].addr]) as c:
        with pytest.raises(idnode.NotFound) as e:
            c.generate("users|")
    assert e.value.reason == "NOT_FOUND"


def test_no_node_answering_ends_at_the_deadline_with_the_nodes_reason(nodes: List[FakeNode]) -> None:
    for n in nodes:
        n.handlers["NextIdentity"] = lambda req, ctx, node: refuse(ctx, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM", "no quorum")
    with idnode.Client([n.addr for n in nodes]) as c:
        started = time.monotonic()
        with pytest.raises(idnode.DeadlineExceeded) as e:
            c.next_identity("orders", timeout=3)
        took = time.monotonic() - started
    assert e.value.reason == "NO_QUORUM" and isinstance(e.value.refusal, idnode.Unavailable)
    # The client gives up as soon as its next wait would pass the deadline, so on a slow machine
    # it ends some way before it: what holds is that it kept trying and did not outlive it. The
    # deadline leaves room for refusals to arrive on a loaded machine; a deadline that passes
    # before any refusal ends the call as a plain DEADLINE_EXCEEDED.
    assert took < 4.5, took
    assert e.value.attempts > 3
    ids = {r.request_id for n in nodes for r in n.calls("NextIdentity")}
    assert len(ids) == 1, "every attempt carried the one request id"


def test_max_attempts_caps_the_retries(nodes: List[FakeNode]) -> None:
    nodes[0].handlers["Explain"] = lambda req, ctx, node: refuse(ctx, grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")
    with idnode.Client([nodes[0].addr], backoff=idnode.Backoff(initial=0.001, max_attempts=4)) as c:
        with pytest.raises(idnode.Unavailable) as e:
            c.explain("x")
    assert len(nodes[0].calls("Explain")) == 4 == e.value.attempts


def test_a_node_that_does_not_answer_costs_one_attempt_timeout(nodes: List[FakeNode]) -> None:
    release = threading.Event()

    def hang(req, ctx, node):
        release.wait(5)
        return pb.ExplainResponse(kind="late")
    nodes[0].handlers["Explain"] = hang
    nodes[1].handlers["Explain"] = lambda req, ctx, node: pb.ExplainResponse(kind="hilo")
    try:
        # Had the attempt on the first node not ended at its timeout, the call would have waited
        # for that node's late answer: "hilo" is the second node's. No bound on the call's time,
        # which a loaded machine stretches; the attempt timeout leaves the second node room.
        with idnode.Client([nodes[0].addr, nodes[1].addr], nodes_in_order=True, attempt_timeout=1) as c:
            assert c.explain("x").kind == "hilo"
    finally:
        release.set()


def test_the_callers_deadline_is_final(nodes: List[FakeNode]) -> None:
    release = threading.Event()
    nodes[0].handlers["Explain"] = lambda req, ctx, node: (release.wait(5), pb.ExplainResponse())[1]
    try:
        with idnode.Client([nodes[0].addr, nodes[1].addr], nodes_in_order=True) as c:
            with pytest.raises(idnode.DeadlineExceeded):
                c.explain("x", timeout=0.2)
        assert nodes[1].calls("Explain") == []
    finally:
        release.set()


def test_backoff_doubles_to_its_max_with_jitter() -> None:
    b = idnode.Backoff()
    assert [round(b.delay(r, lambda: 0.5), 3) for r in range(1, 8)] == [0.025, 0.05, 0.1, 0.2, 0.4, 0.8, 1.0]
    assert b.delay(1, lambda: 0.0) == pytest.approx(0.025 * 0.8)
    assert b.delay(9, lambda: 1.0) == pytest.approx(1.2)


@pytest.mark.parametrize("kw", [
    {"initial": 0}, {"initial": -1}, {"max": float("nan")}, {"multiplier": 0.5}, {"jitter": 1.5},
    {"max_attempts": -1}, {"max_attempts": True},
])
def test_bad_backoff_is_refused(kw) -> None:
    with pytest.raises(ValueError):
        idnode.Backoff(**kw)


@pytest.mark.parametrize("kw", [
    {"attempt_timeout": 0}, {"timeout": -1}, {"prefetch_at": 0}, {"prefetch_at": 1.5}, {"separator": "|"},
    {"separator": "ab"}, {"database": "no spaces"}, {"api_key": "k", "admin_token": "t"}, {"api_key": ""},
    {"fetch_timeout": float("inf")},
])
def test_bad_options_are_refused(kw) -> None:
    with pytest.raises(ValueError):
        idnode.Client(["127.0.0.1:1"], **kw)


@pytest.mark.parametrize("nodes_arg", [[], [""], ["a:1", "a:1"]])
def test_bad_node_lists_are_refused(nodes_arg) -> None:
    with pytest.raises(ValueError):
        idnode.Client(nodes_arg)


def test_numbers_are_checked_before_any_call(nodes: List[FakeNode]) -> None:
    with idnode.Client([nodes[0].addr]) as c:
        with pytest.raises(idnode.InvalidArgument):
            c.next_identity("a", -1)
        with pytest.raises(idnode.InvalidArgument):
            c.next_identity("a", "3")  # type: ignore[arg-type]
        with pytest.raises(idnode.OutOfRange):
            c.seed_identity("a", 1 << 63)
        with pytest.raises(idnode.InvalidArgument):
            c.seed_identity("a", -1)
        with pytest.raises(idnode.InvalidArgument):
            c.workers.acquire(worker_bits=23)
        with pytest.raises(idnode.InvalidArgument):
            c.generate("", guid_version="v5")
    assert nodes[0].requests == []


def test_credentials_and_database_travel_as_metadata(nodes: List[FakeNode]) -> None:
    seen = []

    def handle(req, ctx, node):
        seen.append(dict(ctx.invocation_metadata()))
        return pb.ExplainResponse()
    nodes[0].handlers["Explain"] = handle
    with idnode.Client([nodes[0].addr], database="shop", api_key="idk_secret") as c:
        c.explain("x")
    assert seen[0]["authorization"] == "Bearer idk_secret"
    assert seen[0]["idnode-database"] == "shop"


def test_calls_after_close_are_refused(nodes: List[FakeNode]) -> None:
    c = idnode.Client([nodes[0].addr])
    c.close()
    c.close()
    with pytest.raises(idnode.ClientClosed):
        c.explain("x")


def test_an_unreadable_tls_file_is_named() -> None:
    with pytest.raises(ValueError, match="/nonexistent/ca.pem"):
        idnode.Client(["127.0.0.1:1"], tls=idnode.TLS(ca_file="/nonexistent/ca.pem"))


def test_the_asyncio_client_is_made_inside_its_loop() -> None:
    with pytest.raises(RuntimeError, match="inside a coroutine"):
        idnode.aio.Client(["127.0.0.1:1"])


@pytest.mark.parametrize("timeout", [-1, 0, float("nan"), "10"])
def test_a_bad_close_timeout_is_refused_and_closes_nothing(nodes: List[FakeNode], timeout) -> None:
    c = idnode.Client([nodes[0].addr])
    with pytest.raises(ValueError):
        c.close(timeout)
    nodes[0].handlers["Explain"] = lambda req, ctx, node: pb.ExplainResponse(kind="hilo")
    assert c.explain("x").kind == "hilo"
    c.close()
