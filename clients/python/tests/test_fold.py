"""Folding of concurrent single identities (idnode/_fold.py, _fold_threads.py, _fold_tasks.py):
how a batch's block is split, an error reaching every caller of its batch, a caller's deadline
ending that caller alone, the limits, and, on a real three-node cluster, 64 threads and 64
tasks getting unique values in real-time order."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import idnode
import idnode.aio
from cluster import Control
from idnode import _fold, _fold_tasks, _fold_threads
from idnode._calls import IdentityBlock, identity_of

WAIT = 10.0
"""Seconds a test waits for a state it expects before it fails."""


def until(cond: Callable[[], bool]) -> None:
    """Wait until cond holds (the callers' threads reach their queue), failing after WAIT."""
    end = time.monotonic() + WAIT
    while not cond():
        assert time.monotonic() < end, "the state the test waits for never came"
        time.sleep(0.001)


class Cluster:
    """A scripted NextIdentity: each call blocks until the test answers it, so the test decides
    which callers are queued when a batch is formed. Counts the calls in flight."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.calls: List[Tuple[int, str, Optional[float]]] = []
        self.answers: Dict[int, "tuple[threading.Event, List[object]]"] = {}
        self.in_flight = 0
        self.most_in_flight = 0

    def send(self, name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
        gate = threading.Event()
        box: List[object] = []
        with self.lock:
            i = len(self.calls)
            self.calls.append((n, request_id, timeout))
            self.answers[i] = (gate, box)
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        assert gate.wait(WAIT), "the test never answered a batch"
        with self.lock:
            self.in_flight -= 1
        answer = box[0]
        if isinstance(answer, BaseException):
            raise answer
        assert isinstance(answer, IdentityBlock)
        return answer

    def answer(self, i: int, answer: object) -> None:
        until(lambda: i in self.answers)
        gate, box = self.answers[i]
        box.append(answer)
        gate.set()


def jumping_folder(cl: Cluster, jump: float, sent_at: Optional[List[float]] = None) -> _fold_threads.SyncFolder:
    """A thread folder sending through cl whose clock jumps jump seconds during each call, so
    the fold sees every round last that long while the test runs in real time; sent_at, when
    given, gets the real time at which each call was sent."""
    jumped = [0.0]

    def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
        if sent_at is not None:
            sent_at.append(time.monotonic())
        try:
            return cl.send(name, n, request_id, timeout)
        finally:
            jumped[0] += jump

    return _fold_threads.SyncFolder(send, clock=lambda: time.monotonic() + jumped[0])


class Callers:
    """Threads calling the folder one after another: each is queued before the next starts, so
    their arrival order is their index."""

    def __init__(self, folder: _fold_threads.SyncFolder, name: str = "orders") -> None:
        self.folder = folder
        self.name = name
        self.results: Dict[int, object] = {}
        self.threads: List[threading.Thread] = []

    def start(self, n: int, queued: Callable[[int], bool], timeout: float = 30.0) -> None:
        for _ in range(n):
            i = len(self.threads)
            t = threading.Thread(target=self._call, args=(i, timeout), daemon=True)
            self.threads.append(t)
            t.start()
            until(lambda: queued(i + 1))

    def _call(self, i: int, timeout: float) -> None:
        try:
            self.results[i] = self.folder.next_identity(self.name, timeout)
        except Exception as e:
            self.results[i] = e

    def join(self) -> Dict[int, object]:
        for t in self.threads:
            t.join(WAIT)
            assert not t.is_alive()
        return self.results


def queue_len(folder: _fold_threads.SyncFolder, name: str = "orders") -> int:
    c = folder._counters.get(name)
    return 0 if c is None else len(c.queue)


def test_a_batch_is_split_in_arrival_order_and_each_has_its_own_request_id() -> None:
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)  # a batch of one in flight: the limit
    callers.start(5, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    cl.answer(1, IdentityBlock(10, 14))  # the five queued callers, in one batch
    results = callers.join()
    assert [results[i] for i in range(6)] == [IdentityBlock(v, v) for v in (1, 10, 11, 12, 13, 14)]
    assert [c[0] for c in cl.calls] == [1, 5]
    assert len({c[1] for c in cl.calls}) == 2
    assert cl.most_in_flight == _fold.MAX_IN_FLIGHT == 1
    # The batch of five waits for its callers to come back, which they do not: once that wait
    # is over, the next call, for any counter, forgets the idle counter.
    waited = folder._counters["orders"]
    assert waited.regather == 5 and not waited.queue
    until(lambda: time.monotonic() >= waited.regather_until)
    other = Callers(folder, "other")
    other.start(1, lambda k: len(cl.calls) == 3)
    cl.answer(2, IdentityBlock(1, 1))
    other.join()
    assert folder._counters == {}  # an idle counter leaves nothing behind


def test_a_thread_batch_waits_for_the_callers_just_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    # Three threads take two values each. The first goes out alone, the other two together;
    # when they are answered, the next batch waits for both to ask again and carries all
    # three, not the first alone and then the other two. A clock that jumps while a batch is
    # in flight makes every round long, so the wait is bounded by REGATHER_MAX, here longer
    # than the test.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 2 * WAIT)
    cl = Cluster()
    folder = jumping_folder(cl, 100 * WAIT)
    results: Dict[int, List[int]] = {}

    def take(i: int) -> None:
        results[i] = [folder.next_identity("orders", None).first for _ in range(2)]

    threads = [threading.Thread(target=take, args=(i,), daemon=True) for i in range(3)]
    threads[0].start()
    until(lambda: len(cl.calls) == 1)
    for t in threads[1:]:
        t.start()
    until(lambda: queue_len(folder) == 2)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2 and queue_len(folder) == 1)  # the first is back
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: len(cl.calls) == 3)
    assert [c[0] for c in cl.calls] == [1, 2, 3]
    cl.answer(2, IdentityBlock(4, 6))
    for t in threads:
        t.join(WAIT)
    assert results[0] == [1, 4] and sorted(results[1] + results[2]) == [2, 3, 5, 6]


def test_a_thread_batch_waits_for_callers_that_do_not_come_back_by_a_caller_not_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # As above, but the third caller takes one value: the next batch waits for it to come back
    # until the wait's bound, kept by a queued caller, and goes with the other two. No thread
    # is started for the wait.
    def no_thread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fold started a thread")

    monkeypatch.setattr(threading, "Timer", no_thread)
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    results: Dict[int, List[int]] = {}

    def take(i: int, n: int) -> None:
        results[i] = [folder.next_identity("orders", None).first for _ in range(n)]

    threads = [threading.Thread(target=take, args=(i, 1 if i == 2 else 2), daemon=True) for i in range(3)]
    threads[0].start()
    until(lambda: len(cl.calls) == 1)
    for t in threads[1:]:
        t.start()
    until(lambda: queue_len(folder) == 2)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2 and queue_len(folder) == 1)
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: len(cl.calls) == 3)
    assert [c[0] for c in cl.calls] == [1, 2, 2]
    cl.answer(2, IdentityBlock(4, 5))
    for t in threads:
        t.join(WAIT)
    assert results[0] == [1, 4] and sorted(results[1] + results[2]) == [2, 3, 5]


def test_a_thread_batch_waits_half_a_round_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two callers answered after a round of 1 s do not come back; the next batch, with a
    # caller that came during that round, goes half a round after the answer, not sooner and
    # not a whole round later.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 2 * WAIT)
    sent_at: List[float] = []
    cl = Cluster()
    folder = jumping_folder(cl, 1.0, sent_at)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(2, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2)
    callers.start(1, lambda k: queue_len(folder) == 1)  # during the round of the two
    answered_at = time.monotonic()
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: len(cl.calls) == 3)
    waited = sent_at[2] - answered_at
    assert 0.5 <= waited < 1.0, f"the next batch went {waited:.3f} s after the answer"
    cl.answer(2, IdentityBlock(4, 4))
    results = callers.join()
    assert [results[i] for i in range(4)] == [IdentityBlock(v, v) for v in range(1, 5)]


def test_a_caller_keeping_a_regather_hands_it_on_when_it_leaves(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two callers queue while a batch of two is in flight. When it is answered, the next batch
    # waits for the two answered to come back, which they do not; the oldest queued caller
    # keeps that wait, and its own deadline passes first. It leaves, and the other queued
    # caller keeps the wait now and sends the batch at its end.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 0.2)
    cl = Cluster()
    folder = jumping_folder(cl, 1.0)  # a round of over a second: the wait is REGATHER_MAX
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(2, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=0.5)  # past by the answer
    callers.start(1, lambda k: queue_len(folder) == 2)
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: len(cl.calls) == 3)
    assert [c[0] for c in cl.calls] == [1, 2, 1]
    cl.answer(2, IdentityBlock(4, 4))
    results = callers.join()
    assert isinstance(results[3], idnode.DeadlineExceeded)
    assert [results[i] for i in (0, 1, 2, 4)] == [IdentityBlock(v, v) for v in range(1, 5)]


def test_skipped_values_are_no_callers_and_a_short_block_leaves_the_rest_queued() -> None:
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(4, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    # 5 and 7 are claimed, and the block ended early (more claims): three values, four callers.
    cl.answer(1, IdentityBlock(4, 8, (5, 7)))
    until(lambda: len(cl.calls) == 3)
    assert [c[0] for c in cl.calls] == [1, 4, 1]  # the one left over, in the next batch
    cl.answer(2, IdentityBlock(20, 20))
    results = callers.join()
    assert [results[i] for i in range(5)] == [IdentityBlock(v, v) for v in (1, 4, 6, 8, 20)]


def test_a_callers_block_is_the_same_as_a_block_made_by_its_constructor() -> None:
    # The fold makes a caller's block without the dataclass's __init__ (identity_of).
    made, folded = IdentityBlock(7, 7), identity_of(7)
    assert folded == made and hash(folded) == hash(made) and repr(folded) == repr(made)
    assert list(folded) == [7] and folded.skipped == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        folded.first = 8  # type: ignore[misc]


def test_an_error_reaches_every_caller_of_its_batch_and_no_other() -> None:
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(3, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    refusal = idnode.Unavailable("no quorum", reason="NO_QUORUM")
    cl.answer(1, refusal)
    results = callers.join()
    assert results[0] == IdentityBlock(1, 1)
    assert all(results[i] is refusal for i in (1, 2, 3))


def test_a_batch_holds_at_most_max_batch_callers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fold, "MAX_BATCH", 3)
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(5, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2)  # the first three queued, sent before the next batch
    cl.answer(1, IdentityBlock(2, 4))
    cl.answer(2, IdentityBlock(5, 6))
    results = callers.join()
    assert [c[0] for c in cl.calls] == [1, 3, 2]
    assert [results[i] for i in range(6)] == [IdentityBlock(v, v) for v in range(1, 7)]


def test_a_queued_caller_leaves_at_its_deadline_and_a_batch_runs_until_the_earliest() -> None:
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    with pytest.raises(idnode.DeadlineExceeded):
        folder.next_identity("orders", 0.05)  # queued behind a batch that does not end
    assert queue_len(folder) == 0
    cl.answer(0, IdentityBlock(1, 1))
    callers.join()
    timeouts = [c[2] for c in cl.calls]
    assert all(t is not None and 0 < t <= 30.0 for t in timeouts)


def test_a_callers_deadline_passing_in_a_batch_fails_that_caller_alone() -> None:
    # The batch runs until its earliest deadline, a short one's; when that passes, the caller
    # with the long deadline goes back to the queue and the next batch serves it.
    now = [0.0]
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send, clock=lambda: now[0])
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=5.0)
    callers.start(1, lambda k: queue_len(folder) == 2)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2)
    assert cl.calls[1][0] == 2 and cl.calls[1][2] == 5.0  # the short deadline bounds the batch
    now[0] = 6.0
    cl.answer(1, idnode.DeadlineExceeded("the batch ran out of time", reason="DEADLINE_EXCEEDED"))
    until(lambda: len(cl.calls) == 3)
    assert cl.calls[2][0] == 1 and cl.calls[2][2] == 24.0
    cl.answer(2, IdentityBlock(2, 2))
    results = callers.join()
    assert isinstance(results[1], idnode.DeadlineExceeded)
    assert [results[i] for i in (0, 2)] == [IdentityBlock(1, 1), IdentityBlock(2, 2)]


def test_a_deadline_passed_before_its_batch_was_sent_fails_that_caller_alone() -> None:
    now = [0.0]
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send, clock=lambda: now[0])
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=5.0)
    callers.start(1, lambda k: queue_len(folder) == 2)
    now[0] = 6.0  # the first queued caller's deadline passes before a batch takes it
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2)
    assert cl.calls[1][0] == 1, "the caller whose deadline passed is not sent"
    cl.answer(1, IdentityBlock(2, 2))
    results = callers.join()
    assert isinstance(results[1], idnode.DeadlineExceeded)
    assert [results[i] for i in (0, 2)] == [IdentityBlock(1, 1), IdentityBlock(2, 2)]


class Interrupted(Exception):
    """What the test's signal handler raises in the main thread, as Ctrl-C would."""


def test_a_caller_interrupted_in_a_batch_takes_no_value_and_holds_up_no_other() -> None:
    # The main thread waits in a batch between two other callers and is interrupted by a
    # signal, as Ctrl-C interrupts a program. The batch's answer skips it, and the caller after
    # it, woken in turn by the one before (the relay), is still woken and takes its value.
    cl = Cluster()
    folder = _fold_threads.SyncFolder(cl.send)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1)
    left = threading.Event()

    def interrupt(signum: int, frame: object) -> None:
        if len(cl.calls) == 2 and not left.is_set():  # the main thread waits in batch 1
            raise Interrupted()

    def script() -> None:
        until(lambda: queue_len(folder) == 2)
        callers.start(1, lambda k: queue_len(folder) == 3)  # after the main thread
        cl.answer(0, IdentityBlock(1, 1))  # batch 1: the second caller, the main thread, the third
        assert left.wait(WAIT)
        cl.answer(1, IdentityBlock(10, 12))

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.005, 0.005)
    helper = threading.Thread(target=script, daemon=True)
    try:
        helper.start()
        until(lambda: queue_len(folder) == 1)
        with pytest.raises(Interrupted):
            folder.next_identity("orders", 30.0)
        left.set()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    helper.join(WAIT)
    results = callers.join()
    assert [results[i] for i in range(3)] == [IdentityBlock(v, v) for v in (1, 10, 11)]
    assert [c[0] for c in cl.calls] == [1, 3]


async def settle() -> None:
    """Let the tasks run, in order, until each is queued or waiting for its batch."""
    for _ in range(100):
        await asyncio.sleep(0)


def test_an_asyncio_callers_deadline_or_cancellation_ends_that_caller_alone() -> None:
    async def main() -> None:
        now = [0.0]
        calls: List[Tuple[int, Optional[float]]] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append((n, timeout))
            gates.append(asyncio.get_running_loop().create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=lambda: now[0])
        sent = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        short = asyncio.ensure_future(folder.next_identity("orders", 5.0))
        cancelled = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        long = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        await settle()
        gates[0].set_result(IdentityBlock(1, 1))
        await settle()
        assert calls[1] == (3, 5.0)
        cancelled.cancel()
        await settle()
        now[0] = 6.0
        gates[1].set_exception(idnode.DeadlineExceeded("the batch ran out of time", reason="DEADLINE_EXCEEDED"))
        await settle()
        assert calls[2] == (1, 24.0), "only the caller still waiting is sent again"
        gates[2].set_result(IdentityBlock(2, 2))
        assert await asyncio.gather(sent, long) == [IdentityBlock(1, 1), IdentityBlock(2, 2)]
        with pytest.raises(idnode.DeadlineExceeded):
            await short
        assert cancelled.cancelled()

    asyncio.run(main())


def test_asyncio_callers_fold_the_same_way() -> None:
    async def main() -> None:
        calls: List[Tuple[int, str]] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append((n, request_id))
            gates.append(asyncio.get_running_loop().create_future())
            return await gates[-1]

        # A clock that stands still: rounds take no time, so the wait for callers just
        # answered (who do not come back here) ends at the next turn of the loop.
        folder = _fold_tasks.AsyncFolder(send, clock=lambda: 0.0)
        tasks = [asyncio.ensure_future(folder.next_identity("orders", 30.0)) for _ in range(6)]
        await settle()
        assert [c[0] for c in calls] == [1]
        gates[0].set_result(IdentityBlock(1, 1))
        await settle()
        assert [c[0] for c in calls] == [1, 5]
        refusal = idnode.Unavailable("no quorum", reason="NO_QUORUM")
        gates[1].set_exception(refusal)
        results = await asyncio.gather(*tasks, return_exceptions=True)
        assert results[0] == IdentityBlock(1, 1)
        assert all(r is refusal for r in results[1:])
        assert len({c[1] for c in calls}) == 2
        await settle()
        assert folder._counters == {}

    asyncio.run(main())


def test_an_asyncio_batch_waits_for_the_callers_just_answered() -> None:
    # Three tasks take two values each. The first goes out alone, the other two queue. When
    # it is answered, its task's second call joins them: one batch of 3, not 2 and then 1.
    async def main() -> None:
        calls: List[int] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []
        issued = 0

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append(n)
            gates.append(asyncio.get_running_loop().create_future())
            return await gates[-1]

        def answer(i: int) -> None:
            nonlocal issued
            gates[i].set_result(IdentityBlock(issued + 1, issued + calls[i]))
            issued += calls[i]

        folder = _fold_tasks.AsyncFolder(send)

        async def two() -> List[int]:
            return [(await folder.next_identity("orders", 30.0)).first for _ in range(2)]

        tasks = [asyncio.ensure_future(two()) for _ in range(3)]
        await settle()
        assert calls == [1]
        answer(0)
        await settle()
        assert calls == [1, 3]
        answered = 1
        while not all(t.done() for t in tasks):  # the rest, in order, as they come
            if answered < len(gates):
                answer(answered)
                answered += 1
            await asyncio.sleep(0.0005)
        values = sorted(v for t in tasks for v in t.result())
        assert values == list(range(1, 7))
        await asyncio.sleep(2 * _fold.REGATHER_MAX)
        assert folder._counters == {}

    asyncio.run(main())


def test_an_asyncio_batch_waits_a_quarter_round_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    # A caller answered after a round of 1 s does not come back; the next batch goes after
    # REGATHER_MAX (here 50 ms, under the quarter round), not later.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 0.05)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        gates: List["asyncio.Future[IdentityBlock]"] = []
        sent_at: List[float] = []
        now = [0.0]

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            sent_at.append(loop.time())
            gates.append(loop.create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=lambda: now[0])
        first = [asyncio.ensure_future(folder.next_identity("orders", 30.0)) for _ in range(3)]
        await settle()
        assert len(gates) == 1  # the others wait behind the batch in flight
        now[0] = 1.0  # the round took 1 s
        gates[0].set_result(IdentityBlock(1, 1))
        answered_at = loop.time()
        while len(gates) < 2:
            await asyncio.sleep(0.005)
        waited = sent_at[1] - answered_at
        assert 0.05 <= waited < 0.25, f"the next batch went {waited:.3f} s after the answer"
        gates[1].set_result(IdentityBlock(2, 3))
        assert [b.first for b in await asyncio.gather(*first)] == [1, 2, 3]

    asyncio.run(main())


def test_a_queued_asyncio_caller_leaves_at_its_deadline_and_a_cancelled_one_at_once() -> None:
    async def main() -> None:
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            gates.append(asyncio.get_running_loop().create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=lambda: 0.0)
        sent = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        cancelled = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        await settle()
        assert len(gates) == 1 and len(folder._counters["orders"].queue) == 1
        cancelled.cancel()
        with pytest.raises(idnode.DeadlineExceeded):
            await folder.next_identity("orders", 0.05)  # queued behind a batch that does not end
        assert cancelled.cancelled() and len(folder._counters["orders"].queue) == 0
        gates[0].set_result(IdentityBlock(1, 1))
        assert await sent == IdentityBlock(1, 1)
        await settle()  # the wait after the last answer ends
        assert len(gates) == 1 and folder._counters == {}

    asyncio.run(main())


def test_an_asyncio_caller_with_a_shorter_deadline_than_those_queued_leaves_at_its_own() -> None:
    async def main() -> None:
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            gates.append(asyncio.get_running_loop().create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=lambda: 0.0)
        sent = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        patient = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        await settle()
        with pytest.raises(idnode.DeadlineExceeded):
            await folder.next_identity("orders", 0.05)
        assert not patient.done() and len(folder._counters["orders"].queue) == 1
        gates[0].set_result(IdentityBlock(1, 1))
        await settle()
        gates[1].set_result(IdentityBlock(2, 2))
        assert await asyncio.gather(sent, patient) == [IdentityBlock(1, 1), IdentityBlock(2, 2)]
        await settle()
        assert folder._counters == {}

    asyncio.run(main())


def check_real_time_order(calls: List[Tuple[int, int, int]]) -> None:
    """calls: (start, end, value). No value twice, and a call that started after another had
    returned has the larger value."""
    values = [v for _, _, v in calls]
    assert len(set(values)) == len(values), "a value was handed out twice"
    by_end = sorted(calls, key=lambda c: c[1])
    ended_max, j = 0, 0
    for start, _, value in sorted(calls, key=lambda c: c[0]):
        while j < len(by_end) and by_end[j][1] < start:
            ended_max = max(ended_max, by_end[j][2])
            j += 1
        assert value > ended_max, f"a call that started after value {ended_max} was returned got {value}"


CALLERS = 64
CALLS_EACH = 40


@pytest.mark.topology({"nodes": 3})
def test_64_threads_through_three_nodes_get_unique_values_in_real_time_order(cluster: Control) -> None:
    per_thread: List[List[Tuple[int, int, int]]] = [[] for _ in range(CALLERS)]
    failures: List[BaseException] = []
    with idnode.Client(cluster.addrs()) as c:
        start = threading.Barrier(CALLERS)

        def work(i: int) -> None:
            start.wait(WAIT)
            try:
                for _ in range(CALLS_EACH):
                    t0 = time.monotonic_ns()
                    block = c.next_identity("folded")
                    per_thread[i].append((t0, time.monotonic_ns(), block.first))
            except Exception as e:
                failures.append(e)

        threads = [threading.Thread(target=work, args=(i,)) for i in range(CALLERS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert not any(t.is_alive() for t in threads)
        after = c.next_identity("folded").first
    assert failures == []
    calls = [call for calls in per_thread for call in calls]
    assert len(calls) == CALLERS * CALLS_EACH
    check_real_time_order(calls)
    assert after > max(v for _, _, v in calls)


@pytest.mark.topology({"nodes": 3})
def test_64_tasks_through_three_nodes_get_unique_values_in_real_time_order(cluster: Control) -> None:
    calls: List[Tuple[int, int, int]] = []

    async def main() -> None:
        async with idnode.aio.Client(cluster.addrs()) as c:
            async def work() -> None:
                for _ in range(CALLS_EACH):
                    t0 = time.monotonic_ns()
                    block = await c.next_identity("folded")
                    calls.append((t0, time.monotonic_ns(), block.first))

            await asyncio.wait_for(asyncio.gather(*(work() for _ in range(CALLERS))), 120)

    asyncio.run(main())
    assert len(calls) == CALLERS * CALLS_EACH
    check_real_time_order(calls)


@pytest.mark.topology({"nodes": 1})
def test_a_block_or_a_callers_request_id_is_not_folded(cluster: Control) -> None:
    with idnode.Client(cluster.addrs()) as c:
        assert list(c.next_identity("kept", 3)) == [1, 2, 3]
        first = c.next_identity("kept", request_id="job-1")
        assert c.next_identity("kept", request_id="job-1") == first == IdentityBlock(4, 4)
        assert c.next_identity("kept") == IdentityBlock(5, 5)


def test_the_order_check_catches_a_smaller_value_after_a_return_and_a_duplicate() -> None:
    check_real_time_order([(0, 10, 2), (5, 20, 1), (11, 12, 3)])  # overlapping: any order
    with pytest.raises(AssertionError, match="started after value 2"):
        check_real_time_order([(0, 10, 2), (11, 20, 1)])
    with pytest.raises(AssertionError, match="twice"):
        check_real_time_order([(0, 10, 2), (11, 20, 2)])
