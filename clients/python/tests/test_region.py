"""A client with a region against fake nodes: calls any node answers start in the client's
region, fail over to its other nodes and then to other regions, come back once a local node
answers again; leader calls go to the leader wherever it is; bad region options are refused
when the client is made."""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Iterator, List, Set

import grpc
import pytest

import idnode
import idnode.aio
from fake import FakeNode, refuse
from idnode.v1 import idnode_pb2 as pb

FAST = idnode.Backoff(initial=0.001, max=0.004)

ANSWERS: dict[str, Callable[[Any], Any]] = {
    "Generate": lambda req: pb.GenerateResponse(ids=[req.id + "1"]),
    "Explain": lambda req: pb.ExplainResponse(kind="server-side"),
    "NextHiLo": lambda req: pb.NextHiLoResponse(prefix=req.tag + "/", low=1, high=32, last_size=32, server_tag="A", grant_id=req.request_id),
    "ReturnHiLo": lambda req: pb.ReturnHiLoResponse(returned=True),
    "NextIdentity": lambda req: pb.NextIdentityResponse(first=1, last=1),
}


class FakeNodes:
    """Fake nodes that log every attempt, in order, by node index; a node in ``down`` fails
    every call as a node that is gone does (UNAVAILABLE with no refusal of idnode's)."""

    def __init__(self, n: int) -> None:
        self.nodes = [FakeNode() for _ in range(n)]
        self.attempts: List[int] = []
        self.down: Set[int] = set()
        for i, node in enumerate(self.nodes):
            for method, answer in ANSWERS.items():
                node.handlers[method] = self._handler(i, answer)

    def _handler(self, i: int, answer: Callable[[Any], Any]) -> Callable[[Any, grpc.ServicerContext, FakeNode], Any]:
        def handle(req: Any, ctx: grpc.ServicerContext, node: FakeNode) -> Any:
            self.attempts.append(i)
            if i in self.down:
                ctx.abort(grpc.StatusCode.UNAVAILABLE, "connection reset by peer")
            return answer(req)
        return handle

    def addr(self, i: int) -> str:
        return self.nodes[i].addr

    def regions(self, *labels: str) -> dict[str, str]:
        return {n.addr: label for n, label in zip(self.nodes, labels)}

    def taken(self) -> List[int]:
        """The attempts since the last look."""
        out, self.attempts = self.attempts, []
        return out


@pytest.fixture
def cl() -> Iterator[FakeNodes]:
    c = FakeNodes(3)
    yield c
    for n in c.nodes:
        n.stop()


def test_calls_any_node_answers_start_in_the_clients_region(cl: FakeNodes) -> None:
    for n in cl.nodes:
        n.leader = cl.addr(0)  # the leader is in the east; none of these calls needs it
    with idnode.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("east", "west", "west"), nodes_in_order=True) as c:
        c.generate("users/")
        c.generate("")
        c.explain("users/1-B")
        c.next_hilo("orders")
    assert cl.taken() == [1, 1, 1, 1], "the first node of the client's region, the leader's hint notwithstanding"


def test_without_nodes_in_order_a_client_starts_at_a_local_node(cl: FakeNodes) -> None:
    for _ in range(8):
        with idnode.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("east", "west", "west")) as c:
            c.generate("users/")
            c.generate("users/")
        first, second = cl.taken()
        assert first in (1, 2) and second == first


def test_a_failed_local_node_fails_over_to_the_other_local_one_then_to_another_region(cl: FakeNodes) -> None:
    with idnode.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("east", "west", "west"), nodes_in_order=True, backoff=FAST) as c:
        cl.down = {1}
        c.generate("users/")
        assert cl.taken() == [1, 2]
        cl.down = {1, 2}
        c.generate("users/")
        assert cl.taken() == [2, 0], "node 1 failed a moment ago: it waits behind the other nodes"
        c.generate("users/")
        assert cl.taken() == [0], "both local nodes failed a moment ago: the other region answers"


def test_calls_come_back_to_the_local_node_once_it_answers_again(cl: FakeNodes) -> None:
    now = [0.0]
    with idnode.Client([cl.addr(0), cl.addr(1)], region="west", node_regions=cl.regions("east", "west"), backoff=FAST) as c:
        c._nodes.clock = lambda: now[0]
        cl.down = {1}
        c.generate("users/")
        assert cl.taken() == [1, 0]
        c.generate("users/")
        assert cl.taken() == [0], "the local node that just failed is not tried again at once"
        cl.down = set()
        now[0] += 1.5
        c.generate("users/")
        c.generate("users/")
        assert cl.taken() == [1, 1], "the remote node that answered did not become the start"


def test_after_an_outage_of_its_region_a_client_comes_back_to_the_node_it_started_at(cl: FakeNodes) -> None:
    # Clients spread over the local nodes by where they start; an outage of the region, which
    # every client rides out on the same remote node, must not leave them all on one local node.
    now = [0.0]
    with idnode.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("west", "east", "west"), nodes_in_order=True, backoff=FAST) as c:
        c._nodes.clock = lambda: now[0]
        cl.down = {0, 2}
        c.generate("users/")
        assert cl.taken() == [0, 2, 1]
        cl.down = set()
        now[0] += 1.5
        c.generate("users/")
        assert cl.taken() == [0]


def test_a_cluster_refusal_does_not_keep_calls_from_the_local_node(cl: FakeNodes) -> None:
    # A node cut off from the majority refuses identities but still answers what needs no
    # quorum: its refusal says nothing about the node itself.
    cl.nodes[1].handlers["NextIdentity"] = lambda req, ctx, node: (cl.attempts.append(1), refuse(ctx, grpc.StatusCode.UNAVAILABLE, "NO_QUORUM"))
    with idnode.Client([cl.addr(0), cl.addr(1)], region="west", node_regions=cl.regions("east", "west"), backoff=FAST) as c:
        c.next_identity("invoices")
        assert cl.taken() == [1, 0]
        c.generate("users/")
        assert cl.taken() == [1]


@pytest.mark.parametrize("code, reason", [
    (grpc.StatusCode.RESOURCE_EXHAUSTED, "NODE_BUSY"),
    (grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN"),
    (grpc.StatusCode.UNAVAILABLE, "NOT_CAUGHT_UP"),
    (grpc.StatusCode.UNAVAILABLE, "STORAGE_FULL"),
    (grpc.StatusCode.UNAVAILABLE, "STORAGE_FAILED"),
    (grpc.StatusCode.UNAVAILABLE, "NOT_REGISTERED"),
    (grpc.StatusCode.UNAVAILABLE, "REPLICA_DIVERGED"),
])
def test_a_refusal_about_the_node_alone_skips_it_for_a_while(cl: FakeNodes, code: grpc.StatusCode, reason: str) -> None:
    # A node that is stopping, behind, busy or cannot write its storage would cost every call
    # a round trip if it stayed first: it goes behind the others as a node that is down does.
    cl.nodes[1].handlers["Generate"] = lambda req, ctx, node: (cl.attempts.append(1), refuse(ctx, code, reason))
    addrs, regions = [cl.addr(0), cl.addr(1)], cl.regions("east", "west")
    with idnode.Client(addrs, region="west", node_regions=regions, backoff=FAST) as c:
        c._nodes.clock = lambda: 0.0
        c.generate("users/")
        assert cl.taken() == [1, 0]
        c.generate("users/")
        assert cl.taken() == [0], f"the local node refused {reason} a moment ago: it waits behind the other region"

    async def main() -> None:
        async with idnode.aio.Client(addrs, region="west", node_regions=regions, backoff=FAST) as c:
            c._nodes.clock = lambda: 0.0
            await c.generate("users/")
            assert cl.taken() == [1, 0]
            await c.generate("users/")
            assert cl.taken() == [0], f"asyncio: the local node refused {reason} a moment ago: it waits behind the other region"

    asyncio.run(main())


def test_leader_calls_go_to_the_leader_in_another_region(cl: FakeNodes) -> None:
    for n in cl.nodes:
        n.leader = cl.addr(2)
    with idnode.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("east", "west", "south"), nodes_in_order=True) as c:
        c.next_identity("invoices", 2)
        assert cl.taken() == [1], "no leader known yet: a local node (which relays)"
        c.next_identity("invoices", 2)
        c.generate("invoices|")
        c.generate("users/")
        assert cl.taken() == [2, 2, 1]
        c.return_hilo("orders", 32, 5, "g1", granted_by=cl.addr(0))
        assert cl.taken() == [0], "a range goes back to the node that granted it"


def test_without_a_region_hilo_ranges_come_from_the_leader_as_before(cl: FakeNodes) -> None:
    for n in cl.nodes:
        n.leader = cl.addr(2)
    with idnode.Client([n.addr for n in cl.nodes], nodes_in_order=True) as c:
        c.generate("users/")
        c.next_hilo("orders")
        c.generate("users/")
    assert cl.taken() == [0, 2, 0]


def test_without_a_region_calls_take_the_nodes_in_turn_from_the_one_that_answered(cl: FakeNodes) -> None:
    with idnode.Client([n.addr for n in cl.nodes], nodes_in_order=True, backoff=FAST) as c:
        cl.down = {0, 1}
        c.generate("users/")
        assert cl.taken() == [0, 1, 2]
        cl.down = {2}
        c.generate("users/")
        assert cl.taken() == [2, 0], "the call starts at the node that answered the last one"
        cl.down = {0}
        c.generate("users/")
        assert cl.taken() == [0, 1]
        cl.down = {1}
        c.generate("users/")
        assert cl.taken() == [1, 2], "without a region a node that failed a moment ago keeps its turn"


def test_a_call_without_a_region_builds_no_order_of_its_own() -> None:
    from idnode._core import Attempts, Call, Nodes, Options

    opts = Options.make(NODES)
    nodes = Nodes(NODES, True)
    call = Call("ids", "Generate", None, lambda r: r, leader=False)
    for start in range(len(NODES)):
        nodes.preferred = start
        first, second = Attempts(nodes, opts, call, None), Attempts(nodes, opts, call, None)
        assert first.order == tuple((start + k) % len(NODES) for k in range(len(NODES)))
        assert first.order is second.order, "each call made the same order again"


def test_the_asyncio_client_stays_in_its_region_too(cl: FakeNodes) -> None:
    for n in cl.nodes:
        n.leader = cl.addr(0)

    async def main() -> None:
        async with idnode.aio.Client([n.addr for n in cl.nodes], region="west", node_regions=cl.regions("east", "west", "west"), nodes_in_order=True, backoff=FAST) as c:
            await c.generate("users/")
            await c.next_identity("invoices", 2)
            assert cl.taken() == [1, 0]
            cl.down = {1}
            await c.explain("users/1-B")
            assert cl.taken() == [1, 2]
            cl.down = {1, 2}
            await c.next_hilo("orders")
            assert cl.taken() == [2, 0]

    asyncio.run(main())


NODES = ["10.0.0.1:7070", "10.0.0.2:7070"]


@pytest.mark.parametrize("kw, message", [
    ({"region": "", "node_regions": {NODES[0]: "west"}}, "region '' is empty"),
    ({"region": "eu west", "node_regions": {NODES[0]: "eu west"}}, "letters, digits"),
    ({"region": "w" * 65, "node_regions": {NODES[0]: "w" * 65}}, "at most 64"),
    ({"region": 1, "node_regions": {NODES[0]: "west"}}, "region must be a str"),
    ({"region": "west", "node_regions": {NODES[0]: "west", "10.0.0.9:7070": "east"}}, "node_regions names '10.0.0.9:7070', which is not one of the client's nodes"),
    ({"region": "west", "node_regions": {NODES[0]: "east"}}, "no node of the client is in region 'west'"),
    ({"region": "west"}, "no node of the client is in region 'west'"),
    ({"node_regions": {NODES[0]: "west"}}, "node_regions without region"),
    ({"region": "west", "node_regions": [(NODES[0], "west")]}, "node_regions must be a mapping"),
    ({"region": "west", "node_regions": {NODES[0]: "west", NODES[1]: ""}}, f"node_regions[{NODES[1]!r}]: region '' is empty"),
])
def test_bad_region_options_are_refused_when_the_client_is_made(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as e:
        idnode.Client(NODES, **kw)
    assert message in str(e.value)


def test_a_node_left_out_of_node_regions_is_in_another_region(cl: FakeNodes) -> None:
    with idnode.Client([cl.addr(0), cl.addr(1)], region="west", node_regions={cl.addr(1): "west"}, nodes_in_order=True) as c:
        c.generate("users/")
    assert cl.taken() == [1]


def test_a_node_that_keeps_failing_is_skipped_longer_each_time() -> None:
    from idnode._core import Nodes

    now = [100.0]
    # Nodes 1 and 2 are the client's region's; the client starts at node 1.
    nodes = Nodes(["a:1", "b:1", "c:1"], True, frozenset({1, 2}))
    nodes.clock = lambda: now[0]

    def skipped(node: int) -> bool:
        return nodes.order(nodes.preferred, False)[-1] == node

    def want_skip(node: int, seconds: float) -> None:
        assert skipped(node), f"node {node} not skipped right after its failure"
        now[0] += seconds - 0.001
        assert skipped(node), f"node {node} back in its place before {seconds} s"
        now[0] += 0.001
        assert not skipped(node), f"node {node} still skipped {seconds} s after its failure"

    for seconds in (1, 2, 4, 8, 16, 30, 30):
        nodes.failed(1)
        assert not skipped(2), "node 2 skipped while only node 1 failed"
        want_skip(1, seconds)

    nodes.answered(1, 1)
    nodes.failed(1)
    now[0] += 0.5
    nodes.failed(1)  # within its skip: the same second again, from now
    want_skip(1, 1)

    nodes.failed(1)
    nodes.failed(2)
    now[0] += 1
    assert skipped(1) and not skipped(2), "node 1 failed for the second time and node 2 for the first: want node 1 skipped 2 s, node 2 1 s"


def test_a_local_node_that_stays_down_is_asked_ever_more_rarely(cl: FakeNodes) -> None:
    now = [0.0]
    with idnode.Client([cl.addr(0), cl.addr(1)], region="west", node_regions=cl.regions("east", "west"), backoff=FAST) as c:
        c._nodes.clock = lambda: now[0]
        cl.down = {1}

        def asked_over(seconds: float) -> int:
            """Makes a call every half second for ``seconds``; how often node 1 was asked."""
            for _ in range(int(seconds * 2)):
                c.generate("users/")
                now[0] += 0.5
            return cl.taken().count(1)

        assert asked_over(7) == 3, "want node 1 asked at 0 s, 1 s and 3 s: skipped 1 s, then 2 s, then 4 s"
        assert asked_over(0.5) == 1, "want node 1 asked again once its 4 s skip ended"
        cl.down = set()
        now[0] += 8
        c.generate("users/")
        assert cl.taken() == [1]
        cl.down = {1}
        assert asked_over(1) == 1
        assert asked_over(0.5) == 1, "once node 1 answered, its next failure skips it for a second again"
