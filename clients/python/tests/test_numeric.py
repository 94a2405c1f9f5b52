"""The numeric generator against a fake lease source, with the clocks under the test's control."""

from __future__ import annotations

import threading
import time
from typing import Iterator, List

import grpc
import pytest

import idnode
from fake import FakeNode, refuse
from idnode.v1 import idnode_pb2 as pb

NOW = time.time_ns() // 1_000_000  # the leases cover the real clock, for the tests that keep it


class Leases:
    """AcquireWorker hands out worker 5, then 6 …; renewals answer until ``lost`` is set."""

    def __init__(self) -> None:
        self.worker = 4
        self.lost = False
        self.acquired = threading.Semaphore(0)
        self.released: List[int] = []

    def lease(self, worker: int, epoch: int) -> pb.WorkerLease:
        return pb.WorkerLease(worker=worker, epoch=epoch, min_ms=NOW - 1000, max_ms=NOW + 3_600_000, expires_at_ms=NOW + 30_000)

    def acquire(self, req, ctx, node):
        self.worker += 1
        self.acquired.release()
        return self.lease(self.worker, 1)

    def renew(self, req, ctx, node):
        if self.lost:
            refuse(ctx, grpc.StatusCode.FAILED_PRECONDITION, "FAILED_PRECONDITION", "the lease is not current")
        return self.lease(req.worker, req.epoch)

    def release(self, req, ctx, node):
        self.released.append(req.worker)
        return pb.ReleaseWorkerResponse()


@pytest.fixture
def node() -> Iterator[FakeNode]:
    n = FakeNode()
    yield n
    n.stop()


@pytest.fixture
def leases(node: FakeNode) -> Leases:
    ls = Leases()
    node.handlers.update(AcquireWorker=ls.acquire, RenewWorker=ls.renew, ReleaseWorker=ls.release)
    return ls


def test_ids_increase_carry_the_worker_and_never_repeat_across_threads(node: FakeNode, leases: Leases) -> None:
    with idnode.Client([node.addr]) as c:
        g = c.numeric_generator()
        assert (g.worker, g.epoch) == (5, 1)
        out: List[List[int]] = [[] for _ in range(8)]

        def work(i: int) -> None:
            out[i] = [g.next() for _ in range(20_000)]

        ts = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        for chunk in out:
            assert chunk == sorted(chunk) and len(set(chunk)) == len(chunk)
        ids = [i for chunk in out for i in chunk]
        assert len(set(ids)) == len(ids)
        assert {g.layout.decompose(i)[1] for i in ids} == {5}
    assert leases.released == [5], "close released the worker"
    assert node.calls("AcquireWorker")[0].worker_bits == 10


def test_a_clock_step_back_borrows_up_to_a_second_then_refuses(node: FakeNode, leases: Leases) -> None:
    with idnode.Client([node.addr]) as c:
        g = c.numeric_generator()
        clock = [NOW]
        g._wall_ms = lambda: clock[0]
        first = g.next()
        clock[0] -= 900
        second = g.next()
        assert second > first, "still increasing within the borrow"
        clock[0] -= 200
        with pytest.raises(idnode.LeaseError) as e:
            g.next()
        assert e.value.reason == "CLOCK_BEHIND"
        clock[0] = NOW + 5
        assert g.next() > second


def test_minting_stops_a_margin_before_the_lease_could_lapse(node: FakeNode, leases: Leases) -> None:
    with idnode.Client([node.addr]) as c:
        g = c.numeric_generator(lease=30, margin=3)
        mono = [g._sent]
        g._mono = lambda: mono[0]
        g._wall_ms = lambda: NOW
        mono[0] += 26.9
        g.next()
        mono[0] += 0.2
        with pytest.raises(idnode.LeaseError) as e:
            g.next()
        assert e.value.reason == "LEASE_EXPIRED"


def test_a_lost_lease_stops_minting_until_a_new_worker_is_leased(node: FakeNode, leases: Leases) -> None:
    # The renewal loop's steps, driven here one by one (the loop itself only waits between
    # them); the 30 s lease keeps the background renewal out of the way.
    with idnode.Client([node.addr]) as c:
        g = c.numeric_generator()
        before = g.next()
        leases.lost = True
        with pytest.raises(idnode.FailedPrecondition) as refused:
            c._run(g._renew_call())
        g._renewal_failed(refused.value)
        with pytest.raises(idnode.LeaseError) as e:
            g.next()
        assert e.value.reason == "LEASE_LOST"
        g._grant(c._run(g._renew_call()))  # lost: the next step acquires another worker
        assert len(node.calls("AcquireWorker")) == 2
        after = g.next()
        assert g.worker == 6 and after > before
        assert g.layout.decompose(after)[1] == 6


@pytest.mark.parametrize("kw", [
    {"time_bits": 41, "worker_bits": 12, "sequence_bits": 12},
    {"worker_bits": 0}, {"worker_bits": 23, "sequence_bits": 1}, {"unit_ms": 0}, {"epoch_ms": -1},
])
def test_bad_layouts_are_refused(kw) -> None:
    with pytest.raises(ValueError):
        idnode.Layout(**kw)


@pytest.mark.parametrize("kw", [{"lease": 0.5}, {"lease": 3601}, {"lease": 10, "margin": 5}, {"margin": -1}])
def test_bad_lease_options_are_refused(node: FakeNode, leases: Leases, kw) -> None:
    with idnode.Client([node.addr]) as c:
        with pytest.raises(ValueError):
            c.numeric_generator(**kw)
    assert node.calls("AcquireWorker") == []


def test_the_js_safe_layout_stays_below_2_to_the_53(node: FakeNode, leases: Leases) -> None:
    with idnode.Client([node.addr]) as c:
        leases.worker = 30
        g = c.numeric_generator(layout=idnode.Layout.js_safe())
        assert node.calls("AcquireWorker")[0].worker_bits == 5
        assert all(g.next() < 2**53 for _ in range(1000))
