"""The HiLo generators against a fake range source with the cluster's rules."""

from __future__ import annotations

import asyncio
import threading
from typing import Iterator, List, Optional, Tuple

import grpc
import pytest

import idnode
import idnode.aio
from fake import FakeNode, HiLoServer, refuse
from idnode.v1 import idnode_pb2 as pb

WAIT = 10.0  # seconds any wait for a background fetch may take before the test fails


@pytest.fixture
def node() -> Iterator[FakeNode]:
    n = FakeNode()
    yield n
    n.stop()


def source(node: FakeNode, size: int) -> HiLoServer:
    s = HiLoServer(size)
    s.install(node)
    return s


def numbers(ids: List[str]) -> List[int]:
    return [int(i.split("/")[1].split("-")[0]) for i in ids]


def test_many_threads_never_get_the_same_id(node: FakeNode) -> None:
    source(node, 500)
    threads, each = 16, 5000
    out: List[List[str]] = [[] for _ in range(threads)]
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        start = threading.Barrier(threads)

        def work(i: int) -> None:
            start.wait(WAIT)
            out[i] = [g.next_id() for _ in range(each)]

        ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        g.close()
    ids = [i for chunk in out for i in chunk]
    assert len(ids) == threads * each
    assert len(set(ids)) == len(ids), "an ID was handed out twice"
    assert g.fetches >= (threads * each) // 500, "the IDs crossed many ranges"


def test_parallel_first_use_takes_one_range(node: FakeNode) -> None:
    source(node, 32)
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        start = threading.Barrier(8)
        got: List[str] = []
        lock = threading.Lock()

        def work() -> None:
            start.wait(WAIT)
            mine = [g.next_id() for _ in range(3)]
            with lock:
                got.extend(mine)

        ts = [threading.Thread(target=work) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(WAIT)
        assert sorted(numbers(got)) == list(range(1, 25))
        assert len(node.calls("NextHiLo")) == 1


def test_the_next_range_is_fetched_at_80_percent(node: FakeNode) -> None:
    src = source(node, 100)
    fetched = threading.Semaphore(0)
    src.before_answer = lambda req: fetched.release()
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        ids = [g.next_id() for _ in range(79)]
        assert fetched.acquire(timeout=WAIT)
        assert len(node.calls("NextHiLo")) == 1, "no prefetch before 80%"
        ids.append(g.next_id())
        assert fetched.acquire(timeout=WAIT), "the 80th ID starts the prefetch"
        second = node.calls("NextHiLo")[1]
        assert second.last_batch_size == 100 and second.last_max == 100 and second.last_range_at == 1
        ids += [g.next_id() for _ in range(21)]
        assert numbers(ids) == list(range(1, 102))
        assert len(node.calls("NextHiLo")) == 2, "no caller fetched a range of its own"


def test_close_gives_the_unused_tail_back(node: FakeNode) -> None:
    src = source(node, 32)
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        assert [g.next_id() for _ in range(5)] == [f"orders/{i}-A" for i in range(1, 6)]
        g.close()
        assert src.returns == [(5, 32, node.calls("NextHiLo")[0].request_id)]
        assert src.max == 5 and g.returned == [(5, 32)]
        with pytest.raises(idnode.ClientClosed):
            g.next_id()
        g.close()
        assert len(src.returns) == 1, "close is idempotent"


def test_close_gives_back_the_prefetched_range_then_the_tail(node: FakeNode) -> None:
    src = source(node, 32)
    fetched = threading.Semaphore(0)
    src.before_answer = lambda req: fetched.release()
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        for _ in range(26):
            g.next_id()
        assert fetched.acquire(timeout=WAIT) and fetched.acquire(timeout=WAIT)
        g.close()
    grants = [r.request_id for r in node.calls("NextHiLo")]
    assert src.returns == [(32, 64, grants[1]), (26, 32, grants[0])]
    assert src.max == 26, "the next range starts right after the last ID handed out"


def test_a_fetch_whose_outcome_is_unknown_is_asked_again_with_its_request_id(node: FakeNode) -> None:
    src = source(node, 32)
    failing = [True]

    def next_hilo(req, ctx, n):
        if failing[0]:
            src.next_hilo(req, ctx, n)  # reserved, but the answer is lost
            refuse(ctx, grpc.StatusCode.UNAVAILABLE, "OUTCOME_UNKNOWN")
        return src.next_hilo(req, ctx, n)
    node.handlers["NextHiLo"] = next_hilo
    # The fetch ends after three refused attempts. Bounded by attempts and not by a short fetch
    # timeout: on a loaded machine one answer took longer than 0.3 s, and a fetch whose timeout
    # passes before any answer is DeadlineExceeded, not the Unavailable the refusals make.
    three = idnode.Backoff(max_attempts=3)
    with idnode.Client([node.addr], fetch_timeout=60, attempt_timeout=20, backoff=three) as c:
        g = c.hilo_generator("orders")
        with pytest.raises(idnode.Unavailable):
            g.next_id()
        failing[0] = False
        assert g.next_id() == "orders/1-A", "the range reserved for the lost answer"
    assert len({r.request_id for r in node.calls("NextHiLo")}) == 1


def test_a_refused_fetch_takes_a_new_request_id(node: FakeNode) -> None:
    src = source(node, 32)
    refusing = [True]

    def next_hilo(req, ctx, n):
        if refusing[0]:
            refuse(ctx, grpc.StatusCode.FAILED_PRECONDITION, "RANGE_RETURNED")
        return src.next_hilo(req, ctx, n)
    node.handlers["NextHiLo"] = next_hilo
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        with pytest.raises(idnode.FailedPrecondition):
            g.next_id()
        refusing[0] = False
        g.next_id()
    first, second = node.calls("NextHiLo")
    assert first.request_id != second.request_id


@pytest.mark.parametrize("tag", ["orders/", " ", "", "a|b"])
def test_a_bad_tag_is_refused_before_any_call(node: FakeNode, tag: str) -> None:
    with idnode.Client([node.addr]) as c:
        with pytest.raises(idnode.InvalidArgument) as e:
            c.next_id(tag)
    assert e.value.reason == "INVALID_INPUT"
    assert node.requests == []


def test_legacy_formats(node: FakeNode) -> None:
    source(node, 32)
    with idnode.Client([node.addr]) as c:
        assert c.hilo_generator("a", node_tag=False).next_id() == "a/1"
        assert c.hilo_generator("b", server_prefix="North").next_id() == "b/North/33-A"
        with pytest.raises(idnode.InvalidArgument):
            c.hilo_generator("c", server_prefix="No/rth")


def test_the_client_keeps_one_generator_per_tag(node: FakeNode) -> None:
    source(node, 32)
    with idnode.Client([node.addr]) as c:
        assert [c.next_id("orders"), c.next_id("invoices"), c.next_id("orders")] == ["orders/1-A", "invoices/33-A", "orders/2-A"]
    assert len(node.calls("NextHiLo")) == 2
    assert len(node.calls("ReturnHiLo")) == 2, "close returned each tag's tail"


def test_asyncio_tasks_never_get_the_same_id_and_close_returns(node: FakeNode) -> None:
    src = source(node, 64)

    async def main() -> Tuple[List[str], idnode.aio.HiLoGenerator]:
        async with idnode.aio.Client([node.addr]) as c:
            g = c.hilo_generator("orders")

            async def task() -> List[str]:
                return [await g.next_id() for _ in range(500)]

            chunks = await asyncio.gather(*[task() for _ in range(20)])
            await g.close()
            return [i for chunk in chunks for i in chunk], g

    ids, g = asyncio.run(main())
    assert len(ids) == 10_000 and len(set(ids)) == 10_000
    assert max(numbers(ids)) <= src.max + 64
    assert g.returned and src.max == max(numbers(ids)), "the next range starts right after the last ID"


def test_asyncio_close_cancels_a_fetch_whose_wait_timed_out(node: FakeNode) -> None:
    # A fetch that outlasts close's wait is cancelled, as the Go generator's is: it must not go
    # on reserving a range nobody will use, nor keep a caller waiting for it.
    started, cancelled, release = threading.Event(), threading.Event(), threading.Event()

    def hang(req, ctx, n):  # type: ignore[no-untyped-def]
        started.set()
        while not release.wait(0.01):
            if not ctx.is_active():
                cancelled.set()
                return None
        return None

    node.handlers["NextHiLo"] = hang

    async def main() -> None:
        loop = asyncio.get_running_loop()
        async with idnode.aio.Client([node.addr], attempt_timeout=600, fetch_timeout=600) as c:
            g = c.hilo_generator("orders")
            waiter = loop.create_task(g.next_id(timeout=600))
            assert await loop.run_in_executor(None, started.wait, WAIT), "the fetch never reached the node"
            await g.close(timeout=0.05)
            assert await loop.run_in_executor(None, cancelled.wait, WAIT), "the node never saw the fetch cancelled"
            with pytest.raises(idnode.IdnodeError):
                await asyncio.wait_for(waiter, WAIT)

    try:
        asyncio.run(main())
    finally:
        release.set()


def test_a_range_goes_back_to_the_node_that_granted_it() -> None:
    # With HiLo pools only the granting node's pool takes a range back, wherever the leader is.
    leader, granter = FakeNode(), FakeNode()
    try:
        src = HiLoServer(32)
        leader.handlers["NextHiLo"] = lambda req, ctx, n: refuse(ctx, grpc.StatusCode.UNAVAILABLE, "SHUTTING_DOWN")
        leader.handlers["ReturnHiLo"] = src.return_hilo
        src.install(granter)
        for n in (leader, granter):
            n.leader = leader.addr
        with idnode.Client([leader.addr, granter.addr], nodes_in_order=True) as c:
            assert c.next_id("orders") == "orders/1-A"
        assert len(granter.calls("ReturnHiLo")) == 1 and leader.calls("ReturnHiLo") == []
        assert src.max == 1
    finally:
        leader.stop()
        granter.stop()


def test_the_tail_is_asked_for_when_the_prefetched_range_is_not_adjacent(node: FakeNode) -> None:
    src = source(node, 32)
    fetched = threading.Semaphore(0)

    def another_client_between(req) -> None:
        if len(src.grants) == 1:
            src.max += 100  # another client's range lands between this client's two
        fetched.release()
    src.before_answer = another_client_between
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        for _ in range(26):
            g.next_id()
        assert fetched.acquire(timeout=WAIT) and fetched.acquire(timeout=WAIT)
        g.close()
    grants = [r.request_id for r in node.calls("NextHiLo")]
    assert src.returns == [(132, 164, grants[1]), (26, 32, grants[0])], "both asked for, newest first"


def test_closing_the_client_closes_every_generator_it_made(node: FakeNode) -> None:
    src = source(node, 32)
    c = idnode.Client([node.addr])
    own = c.hilo_generator("own")
    own.next_id()
    c.next_id("shared")
    c.close()
    assert own.closed and len(src.returns) == 2
    with pytest.raises(idnode.ClientClosed):
        c.hilo_generator("late")


def failing_once(c, exc: BaseException):  # type: ignore[no-untyped-def]
    """Make the client's first NextHiLo call raise exc instead of reaching the node."""
    run = c._run
    failed = []

    def _run(call, timeout=None, refusals=None):  # type: ignore[no-untyped-def]
        if call.method == "NextHiLo" and not failed:
            failed.append(call)
            raise exc
        return run(call, timeout, refusals)
    c._run = _run


def test_a_fetch_that_fails_with_any_exception_does_not_wedge_the_generator(node: FakeNode) -> None:
    source(node, 32)
    with idnode.Client([node.addr]) as c:
        failing_once(c, RuntimeError("a bug in a fetch"))
        g = c.hilo_generator("orders")
        with pytest.raises(idnode.Unknown) as e:
            g.next_id(timeout=WAIT)
        assert isinstance(e.value.__cause__, RuntimeError)
        assert g.next_id(timeout=WAIT) == "orders/1-A", "the next call fetches again"


def test_an_asyncio_fetch_that_fails_or_is_cancelled_does_not_wedge_the_generator(node: FakeNode) -> None:
    src = source(node, 32)
    arrived, release = threading.Event(), threading.Event()

    def hold_the_first(req) -> None:
        if len(src.grants) == 1:
            arrived.set()
            release.wait(WAIT)
    src.before_answer = hold_the_first

    async def main() -> List[str]:
        async with idnode.aio.Client([node.addr]) as c:
            failing_once(c, RuntimeError("a bug in a fetch"))
            g = c.hilo_generator("orders")
            with pytest.raises(idnode.Unknown):
                await g.next_id(timeout=WAIT)
            waiting = asyncio.ensure_future(g.next_id(timeout=WAIT))
            while not arrived.is_set():
                await asyncio.sleep(0.001)
            for fetch in list(g._tasks):
                fetch.cancel()
            with pytest.raises(idnode.Cancelled):
                await waiting
            release.set()
            return [await g.next_id(timeout=WAIT) for _ in range(2)]

    assert asyncio.run(main()) == ["orders/1-A", "orders/2-A"], "the range reserved for the cancelled fetch"


class WaitSeen(threading.Condition):
    """A condition that tells when a thread begins to wait on it."""

    def __init__(self, lock: threading.Lock) -> None:
        super().__init__(lock)
        self.waiting = threading.Event()

    def wait(self, timeout: Optional[float] = None) -> bool:
        self.waiting.set()
        return super().wait(timeout)


def test_a_caller_that_came_after_a_fetch_began_retries_when_it_fails(node: FakeNode) -> None:
    # The prefetch is in flight when the caller finds the range used up; the prefetch is then
    # refused. That refusal belongs to no caller: this one fetches again and gets an ID.
    src = source(node, 10)
    caller_waits = threading.Event()

    def next_hilo(req, ctx, n):  # type: ignore[no-untyped-def]
        if len(n.calls("NextHiLo")) == 2:
            assert caller_waits.wait(WAIT)
            refuse(ctx, grpc.StatusCode.FAILED_PRECONDITION, "RANGE_RETURNED")
        return src.next_hilo(req, ctx, n)
    node.handlers["NextHiLo"] = next_hilo
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        assert [g.next_id() for _ in range(10)][-1] == "orders/10-A"  # the 8th started the prefetch
        g._cond = WaitSeen(g._lock)
        threading.Thread(target=lambda: caller_waits.set() if g._cond.waiting.wait(WAIT) else None, daemon=True).start()
        assert g.next_id(timeout=WAIT) == "orders/11-A"
    assert len(node.calls("NextHiLo")) == 3


def test_a_client_closing_slowly_does_not_hold_up_another_clients_close(node: FakeNode) -> None:
    src = source(node, 32)
    returning, release = threading.Event(), threading.Event()

    def return_hilo(req, ctx, n):  # type: ignore[no-untyped-def]
        if req.tag == "slow":
            returning.set()
            release.wait(WAIT)
        return src.return_hilo(req, ctx, n)
    node.handlers["ReturnHiLo"] = return_hilo
    slow, other = idnode.Client([node.addr]), idnode.Client([node.addr])
    slow.next_id("slow")
    other.next_id("other")
    closing = threading.Thread(target=slow.close)
    closing.start()
    try:
        assert returning.wait(WAIT)
        closed = threading.Thread(target=other.close)
        closed.start()
        closed.join(WAIT)
        assert not closed.is_alive(), "the other client's close waited for the slow one's"
    finally:
        release.set()
        closing.join(WAIT)
    assert len(src.returns) == 2


def test_batches_under_contention_never_repeat_a_number_and_close_gives_the_rest_back(node: FakeNode) -> None:
    # Batch takers, single takers and number takers of one tag at once, across many ranges:
    # every number once, and the batches consecutive within a range.
    src = source(node, 100)
    threads, rounds = 12, 300
    out: List[List[int]] = [[] for _ in range(threads)]
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        start = threading.Barrier(threads)

        def work(i: int) -> None:
            start.wait(WAIT)
            for r in range(rounds):
                if i % 3 == 0:
                    out[i].append(numbers([g.next_id()])[0])
                elif i % 3 == 1:
                    out[i] += numbers(g.next_ids(1 + r % 37))
                else:
                    batch = g.next_numbers(1 + r % 23)
                    assert all(b > a for a, b in zip(batch, batch[1:])), batch
                    out[i] += batch

        ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        got = [n for chunk in out for n in chunk]
        assert len(got) == sum(1 for i in range(threads) if i % 3 == 0) * rounds + 4 * sum(1 + r % 37 for r in range(rounds)) + 4 * sum(1 + r % 23 for r in range(rounds))
        assert len(set(got)) == len(got), "a number was handed out twice"
        g.close()
    assert src.max == max(got), "close gave back every number not handed out"
    assert max(got) - len(got) <= 200, "at most the ranges that crossed a batch's edge left gaps"


def test_a_batch_larger_than_a_range_spans_ranges_and_counts_as_taken(node: FakeNode) -> None:
    source(node, 10)
    with idnode.Client([node.addr]) as c:
        assert c.next_ids("orders", 3) == ["orders/1-A", "orders/2-A", "orders/3-A"]
        assert c.next_numbers("orders", 25) == list(range(4, 29))
        assert c.next_id("orders") == "orders/29-A"
        with pytest.raises(idnode.InvalidArgument):
            c.next_ids("orders", 0)
        with pytest.raises(idnode.InvalidArgument):
            c.next_numbers("orders", 1_000_001)


def test_asyncio_batches_never_repeat_a_number(node: FakeNode) -> None:
    source(node, 50)

    async def main() -> List[int]:
        async with idnode.aio.Client([node.addr]) as c:
            async def taker(i: int) -> List[int]:
                got: List[int] = []
                for r in range(40):
                    got += numbers(await c.next_ids("orders", 1 + r % 9)) if i % 2 else await c.next_numbers("orders", 1 + r % 7)
                return got
            chunks = await asyncio.gather(*(taker(i) for i in range(8)))
            return [n for chunk in chunks for n in chunk]

    got = asyncio.run(main())
    assert len(got) == 4 * sum(1 + r % 9 for r in range(40)) + 4 * sum(1 + r % 7 for r in range(40))
    assert len(set(got)) == len(got), "a number was handed out twice"


def test_a_range_below_the_previous_one_is_taken_and_one_on_it_refused(node: FakeNode) -> None:
    # A node cut off from the majority grants from its pool below the client's last_max.
    script = [(3393, 3424), (2049, 2080), (2070, 2101)]

    def scripted(req, context, n):  # type: ignore[no-untyped-def]
        low, high = script[min(len(n.calls("NextHiLo")), len(script)) - 1]
        return pb.NextHiLoResponse(prefix=req.tag + "/", low=low, high=high, last_size=high - low + 1,
                                           server_tag="A", last_range_at=1, grant_id=req.request_id)
    node.handlers["NextHiLo"] = scripted
    node.handlers["ReturnHiLo"] = lambda req, ctx, n: pb.ReturnHiLoResponse(returned=False)
    with idnode.Client([node.addr]) as c:
        g = c.hilo_generator("orders")
        assert numbers([g.next_id() for _ in range(64)]) == list(range(3393, 3425)) + list(range(2049, 2081))
        with pytest.raises(idnode.IdnodeError) as e:
            g.next_id()
        assert e.value.code == grpc.StatusCode.INTERNAL and "[2070, 2101]" in str(e.value)
    assert [r.last_max for r in node.calls("NextHiLo")][:3] == [0, 3424, 2080]
