"""Folding of concurrent single identities (idnode/_fold.py, _fold_threads.py, _fold_tasks.py):
how a batch's block is split, an error reaching every caller of its batch, a caller's deadline
ending that caller alone, the limits, and, on a real three-node cluster, 64 threads and 64
tasks getting unique values in real-time order."""

from __future__ import annotations

import asyncio
import dataclasses
import math
import signal
import threading
import time
from typing import Any, Awaitable, Callable, Dict, List, Optional, Tuple

import pytest

import idnode
import idnode.aio
from cluster import Control
from idnode import _fold, _fold_tasks, _fold_threads
from idnode._calls import IdentityBlock, identity_of

HANG = 120.0
"""Seconds of real time a test waits for a state its threads surely reach before it calls
them hung: a bound on a hang, not on speed, as a loaded machine starves a thread for seconds.
What the fold times (its deadlines, its waits for callers to come back) runs on a clock the
test owns (Clock, SteppedLoop), never on the real one."""

POLL = 0.001
"""Seconds of real time between two looks at a state the test waits for."""

CLOCK_POLL = 0.01
"""Seconds of real time between two looks of a caller waiting on a Clock at its signal and
at the clock: longer than POLL, as every queued caller looks, and on a starved machine their
looks took the turns of the threads the test waited for."""


def until(cond: Callable[[], bool], what: str) -> None:
    """Wait until cond holds, failing after HANG with what the test waited for."""
    end = time.monotonic() + HANG
    while not cond():
        assert time.monotonic() < end, f"after {HANG:.0f} s, still waiting for {what}"
        time.sleep(POLL)


class Clock:
    """The time of a thread folder, owned by the test: it moves only when the test moves it,
    and the folder's bounded waits (SyncFolder's wait) end by it, never because the machine is
    slow. waits holds the ends of those in progress, to see a caller waiting for one."""

    def __init__(self) -> None:
        self.now = 0.0
        self.waits: List[float] = []

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def wait(self, signal: threading.Lock, end: float) -> bool:
        """Take signal, or give up once the clock reads end. A lock cannot be waited on
        together with the clock, so this looks at both in turn: real time only delays it."""
        if end == math.inf:
            return signal.acquire()
        self.waits.append(end)
        try:
            while self.now < end:
                if signal.acquire(timeout=CLOCK_POLL):
                    return True
            return signal.acquire(blocking=False)
        finally:
            self.waits.remove(end)


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
        assert gate.wait(HANG), f"after {HANG:.0f} s, the test had not answered call {i}"
        with self.lock:
            self.in_flight -= 1
        answer = box[0]
        if isinstance(answer, BaseException):
            raise answer
        assert isinstance(answer, IdentityBlock)
        return answer

    def answer(self, i: int, answer: object) -> None:
        until(lambda: i in self.answers, f"call {i}")
        gate, box = self.answers[i]
        box.append(answer)
        gate.set()


def scripted_folder(cl: Cluster, clock: Clock) -> _fold_threads.SyncFolder:
    """A thread folder sending through cl on the test's clock. A round lasts, for the fold, as
    long as the test moves the clock while the call is in flight; its wait for the callers it
    answered, as long as the test moves it after the answer."""
    return _fold_threads.SyncFolder(cl.send, clock=clock, wait=clock.wait)


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
            until(lambda: queued(i + 1), f"caller {i} queued or sent")

    def _call(self, i: int, timeout: float) -> None:
        try:
            self.results[i] = self.folder.next_identity(self.name, timeout)
        except Exception as e:
            self.results[i] = e

    def join(self) -> Dict[int, object]:
        for i, t in enumerate(self.threads):
            t.join(HANG)
            assert not t.is_alive(), f"after {HANG:.0f} s, caller {i} had not returned"
        return self.results


def queue_len(folder: _fold_threads.SyncFolder, name: str = "orders") -> int:
    c = folder._counters.get(name)
    return 0 if c is None else len(c.queue)


def join(threads: List[threading.Thread]) -> None:
    for i, t in enumerate(threads):
        t.join(HANG)
        assert not t.is_alive(), f"after {HANG:.0f} s, thread {i} had not returned"


def test_a_batch_is_split_in_arrival_order_and_each_has_its_own_request_id() -> None:
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)  # a batch of one in flight: the limit
    callers.start(5, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch of the five queued callers")
    clock.advance(1.0)  # its round takes 1 s: the wait after it is REGATHER_MAX
    cl.answer(1, IdentityBlock(10, 14))
    results = callers.join()
    assert [results[i] for i in range(6)] == [IdentityBlock(v, v) for v in (1, 10, 11, 12, 13, 14)]
    assert [c[0] for c in cl.calls] == [1, 5]
    assert len({c[1] for c in cl.calls}) == 2
    assert cl.most_in_flight == _fold.MAX_IN_FLIGHT == 1
    # The batch of five waits for its callers to come back, which they do not: once that wait
    # is over, the next call, for any counter, forgets the idle counter.
    waited = folder._counters["orders"]
    assert waited.regather == 5 and not waited.queue
    clock.advance(_fold.REGATHER_MAX)
    other = Callers(folder, "other")
    other.start(1, lambda k: len(cl.calls) == 3)
    cl.answer(2, IdentityBlock(1, 1))
    other.join()
    assert folder._counters == {}  # an idle counter leaves nothing behind


def test_a_thread_batch_waits_for_the_callers_just_answered() -> None:
    # Three threads take two values each. The first goes out alone, the other two together;
    # when they are answered, the next batch waits for both to ask again and carries all
    # three, not the first alone and then the other two. The clock does not move after the
    # answer, so the wait ends only by the callers coming back.
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    results: Dict[int, List[int]] = {}

    def take(i: int) -> None:
        results[i] = [folder.next_identity("orders", None).first for _ in range(2)]

    threads = [threading.Thread(target=take, args=(i,), daemon=True) for i in range(3)]
    threads[0].start()
    until(lambda: len(cl.calls) == 1, "the first thread's call")
    for t in threads[1:]:
        t.start()
    until(lambda: queue_len(folder) == 2, "the other two threads queued")
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2 and queue_len(folder) == 1, "the first thread queued again")
    clock.advance(1.0)  # the round of the two takes 1 s: the wait after it is REGATHER_MAX
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: len(cl.calls) == 3, "the batch of the three threads")
    assert [c[0] for c in cl.calls] == [1, 2, 3]
    cl.answer(2, IdentityBlock(4, 6))
    join(threads)
    assert results[0] == [1, 4] and sorted(results[1] + results[2]) == [2, 3, 5, 6]


def test_a_thread_batch_waits_for_callers_that_do_not_come_back_by_a_caller_not_a_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # As above, but the third caller takes one value: the next batch waits for it to come back
    # until the wait's bound, kept by a queued caller, and goes with the other two. No thread
    # is started for the wait.
    def no_thread(*args: object, **kwargs: object) -> None:
        raise AssertionError("the fold started a thread")

    monkeypatch.setattr(threading, "Timer", no_thread)
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    results: Dict[int, List[int]] = {}

    def take(i: int, n: int) -> None:
        results[i] = [folder.next_identity("orders", None).first for _ in range(n)]

    threads = [threading.Thread(target=take, args=(i, 1 if i == 2 else 2), daemon=True) for i in range(3)]
    threads[0].start()
    until(lambda: len(cl.calls) == 1, "the first thread's call")
    for t in threads[1:]:
        t.start()
    until(lambda: queue_len(folder) == 2, "the other two threads queued")
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2 and queue_len(folder) == 1, "the first thread queued again")
    clock.advance(1.0)  # the round of the two takes 1 s: the wait after it is REGATHER_MAX
    cl.answer(1, IdentityBlock(2, 3))
    until(lambda: queue_len(folder) == 2 and not threads[2].is_alive(), "the second thread queued again, the third gone")
    assert len(cl.calls) == 2, "the batch went before the wait's end"
    clock.advance(_fold.REGATHER_MAX)
    until(lambda: len(cl.calls) == 3, "the batch after the wait")
    assert [c[0] for c in cl.calls] == [1, 2, 2]
    cl.answer(2, IdentityBlock(4, 5))
    join(threads)
    assert results[0] == [1, 4] and sorted(results[1] + results[2]) == [2, 3, 5]


def test_a_thread_batch_waits_half_a_round_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two callers answered after a round of 1 s do not come back; the next batch, with a
    # caller that came during that round, waits half a round after the answer, not less and
    # not a whole round.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 10.0)
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(2, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch of the two queued callers")
    callers.start(1, lambda k: queue_len(folder) == 1)  # during the round of the two
    clock.advance(1.0)
    answered_at = clock.now
    cl.answer(1, IdentityBlock(2, 3))
    # The caller that came during the round keeps the wait: it waits on the clock until then.
    until(lambda: answered_at + 0.5 in clock.waits, "the queued caller waiting until half a round after the answer")
    assert len(cl.calls) == 2, "the batch went before the wait's end"
    clock.advance(0.5)
    until(lambda: len(cl.calls) == 3, "the batch after the wait")
    cl.answer(2, IdentityBlock(4, 4))
    results = callers.join()
    assert [results[i] for i in range(4)] == [IdentityBlock(v, v) for v in range(1, 5)]


def test_a_caller_keeping_a_regather_hands_it_on_when_it_leaves() -> None:
    # Two callers queue while a batch of two is in flight. When it is answered, the next batch
    # waits for the two answered to come back, which they do not; the oldest queued caller
    # keeps that wait, and its own deadline passes first. It leaves, and the other queued
    # caller keeps the wait now and sends the batch at its end.
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(2, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch of the two queued callers")
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=0.5)  # past by the answer
    callers.start(1, lambda k: queue_len(folder) == 2)
    clock.advance(1.0)  # the round of the two: the wait after it is REGATHER_MAX
    answered_at = clock.now
    cl.answer(1, IdentityBlock(2, 3))
    # The first queued caller may leave before the answer is handed out: the wait has begun
    # only once the other waits on the clock until its end.
    until(
        lambda: 3 in callers.results and answered_at + _fold.REGATHER_MAX in clock.waits,
        "the caller whose deadline passed leaving, and the other keeping the wait",
    )
    assert len(cl.calls) == 2, "the batch went before the wait's end"
    clock.advance(_fold.REGATHER_MAX)
    until(lambda: len(cl.calls) == 3, "the batch after the wait")
    assert [c[0] for c in cl.calls] == [1, 2, 1]
    cl.answer(2, IdentityBlock(4, 4))
    results = callers.join()
    assert isinstance(results[3], idnode.DeadlineExceeded)
    assert [results[i] for i in (0, 1, 2, 4)] == [IdentityBlock(v, v) for v in range(1, 5)]


def test_skipped_values_are_no_callers_and_a_short_block_leaves_the_rest_queued() -> None:
    # The clock stands still: rounds take no time, so the wait for the callers answered (who
    # do not come back) ends as soon as the caller left queued keeps it.
    cl = Cluster()
    folder = scripted_folder(cl, Clock())
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(4, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    # 5 and 7 are claimed, and the block ended early (more claims): three values, four callers.
    cl.answer(1, IdentityBlock(4, 8, (5, 7)))
    until(lambda: len(cl.calls) == 3, "the batch of the caller left over")
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
    folder = scripted_folder(cl, Clock())
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
    folder = scripted_folder(cl, Clock())
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(5, lambda k: queue_len(folder) == k - 1)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch of the first three queued")  # sent before the next batch
    cl.answer(1, IdentityBlock(2, 4))
    cl.answer(2, IdentityBlock(5, 6))
    results = callers.join()
    assert [c[0] for c in cl.calls] == [1, 3, 2]
    assert [results[i] for i in range(6)] == [IdentityBlock(v, v) for v in range(1, 7)]


def test_a_queued_caller_leaves_at_its_deadline_and_a_batch_runs_until_the_earliest() -> None:
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=0.05)  # behind a batch that does not end
    clock.advance(0.05)
    until(lambda: 1 in callers.results, "the queued caller leaving at its deadline")
    assert isinstance(callers.results[1], idnode.DeadlineExceeded)
    assert queue_len(folder) == 0
    cl.answer(0, IdentityBlock(1, 1))
    callers.join()
    assert [c[2] for c in cl.calls] == [30.0]


def test_a_callers_deadline_passing_in_a_batch_fails_that_caller_alone() -> None:
    # The batch runs until its earliest deadline, a short one's; when that passes, the caller
    # with the long deadline goes back to the queue and the next batch serves it.
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=5.0)
    callers.start(1, lambda k: queue_len(folder) == 2)
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch of the two queued callers")
    assert cl.calls[1][0] == 2 and cl.calls[1][2] == 5.0  # the short deadline bounds the batch
    clock.advance(6.0)
    cl.answer(1, idnode.DeadlineExceeded("the batch ran out of time", reason="DEADLINE_EXCEEDED"))
    until(lambda: len(cl.calls) == 3, "the batch of the caller sent again")
    assert cl.calls[2][0] == 1 and cl.calls[2][2] == 24.0
    cl.answer(2, IdentityBlock(2, 2))
    results = callers.join()
    assert isinstance(results[1], idnode.DeadlineExceeded)
    assert [results[i] for i in (0, 2)] == [IdentityBlock(1, 1), IdentityBlock(2, 2)]


def test_a_deadline_passed_before_its_batch_was_sent_fails_that_caller_alone() -> None:
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1, timeout=5.0)
    callers.start(1, lambda k: queue_len(folder) == 2)
    clock.advance(6.0)  # the first queued caller's deadline passes before a batch takes it
    cl.answer(0, IdentityBlock(1, 1))
    until(lambda: len(cl.calls) == 2, "the batch after the first")
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
    clock = Clock()
    cl = Cluster()
    folder = scripted_folder(cl, clock)
    callers = Callers(folder)
    callers.start(1, lambda k: len(cl.calls) == 1)
    callers.start(1, lambda k: queue_len(folder) == 1)
    interrupted = threading.Event()
    left = threading.Event()

    def interrupt(signum: int, frame: object) -> None:
        # Once: a second interruption, while the first unwinds the fold, would be another test.
        if len(cl.calls) == 2 and not interrupted.is_set():  # the main thread waits in batch 1
            interrupted.set()
            raise Interrupted()

    def script() -> None:
        # Both queued callers wait on the clock until their deadline, so the main thread is
        # interrupted in that wait, not before it.
        until(lambda: queue_len(folder) == 2 and clock.waits.count(30.0) == 2, "the main thread waiting in the queue")
        callers.start(1, lambda k: queue_len(folder) == 3)  # after the main thread
        cl.answer(0, IdentityBlock(1, 1))  # batch 1: the second caller, the main thread, the third
        assert left.wait(HANG), f"after {HANG:.0f} s, the main thread had not left"
        cl.answer(1, IdentityBlock(10, 12))

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.005, 0.005)
    helper = threading.Thread(target=script, daemon=True)
    try:
        helper.start()
        until(lambda: queue_len(folder) == 1, "the second caller queued")
        with pytest.raises(Interrupted):
            folder.next_identity("orders", 30.0)
        left.set()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    join([helper])
    results = callers.join()
    assert [results[i] for i in range(3)] == [IdentityBlock(v, v) for v in (1, 10, 11)]
    assert [c[0] for c in cl.calls] == [1, 3]


async def settle() -> None:
    """Let the tasks run, in order, until each is queued or waiting for its batch."""
    for _ in range(100):
        await asyncio.sleep(0)


class SteppedLoop(asyncio.SelectorEventLoop):
    """An event loop whose time is the test's: its timers (a queued caller's deadline, the end
    of a wait for callers to come back) fire when the test moves now past them, never because
    the machine is slow. The tests' folders read the same clock (loop.time)."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def time(self) -> float:
        return self.now


def run_stepped(main: Callable[[SteppedLoop], Awaitable[None]]) -> None:
    """Run main on a SteppedLoop of its own (asyncio.run's loop counts real time)."""
    loop = SteppedLoop()
    try:
        loop.run_until_complete(main(loop))
    finally:
        loop.close()


def test_an_asyncio_callers_deadline_or_cancellation_ends_that_caller_alone() -> None:
    async def main(loop: SteppedLoop) -> None:
        calls: List[Tuple[int, Optional[float]]] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append((n, timeout))
            gates.append(loop.create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)
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
        loop.now = 6.0
        gates[1].set_exception(idnode.DeadlineExceeded("the batch ran out of time", reason="DEADLINE_EXCEEDED"))
        await settle()
        assert calls[2] == (1, 24.0), "only the caller still waiting is sent again"
        gates[2].set_result(IdentityBlock(2, 2))
        assert await asyncio.gather(sent, long) == [IdentityBlock(1, 1), IdentityBlock(2, 2)]
        with pytest.raises(idnode.DeadlineExceeded):
            await short
        assert cancelled.cancelled()

    run_stepped(main)


def test_asyncio_callers_fold_the_same_way() -> None:
    async def main(loop: SteppedLoop) -> None:
        calls: List[Tuple[int, str]] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append((n, request_id))
            gates.append(loop.create_future())
            return await gates[-1]

        # The clock stands still: rounds take no time, so the wait for callers just answered
        # (who do not come back here) ends at the next turn of the loop.
        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)
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

    run_stepped(main)


def test_an_asyncio_batch_waits_for_the_callers_just_answered() -> None:
    # Three tasks take two values each. The first goes out alone, the other two queue. When
    # it is answered, its task's second call joins them: one batch of 3, not 2 and then 1.
    # Each round takes 1 s, so the wait after it is REGATHER_MAX, which passes only when the
    # test moves the clock: a batch goes early only for its callers coming back.
    async def main(loop: SteppedLoop) -> None:
        calls: List[int] = []
        gates: List["asyncio.Future[IdentityBlock]"] = []
        issued = 0

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            calls.append(n)
            gates.append(loop.create_future())
            return await gates[-1]

        def answer(i: int) -> None:
            nonlocal issued
            loop.now += 1.0
            gates[i].set_result(IdentityBlock(issued + 1, issued + calls[i]))
            issued += calls[i]

        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)

        async def two() -> List[int]:
            return [(await folder.next_identity("orders", 30.0)).first for _ in range(2)]

        tasks = [asyncio.ensure_future(two()) for _ in range(3)]
        await settle()
        assert calls == [1]
        answer(0)
        await settle()
        assert calls == [1, 3]
        answer(1)  # the first task is done; the wait is for the three, and two come back
        await settle()
        assert calls == [1, 3]
        loop.now += _fold.REGATHER_MAX
        await settle()
        assert calls == [1, 3, 2]
        answer(2)
        values = sorted(v for vs in await asyncio.gather(*tasks) for v in vs)
        assert values == list(range(1, 7))
        loop.now += _fold.REGATHER_MAX  # the wait for the last two ends: nothing is left
        await settle()
        assert folder._counters == {}

    run_stepped(main)


def test_an_asyncio_batch_waits_a_quarter_round_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    # A caller answered after a round of 1 s does not come back; the next batch goes
    # REGATHER_MAX after the answer (here 50 ms, under the quarter round), not sooner nor
    # later.
    monkeypatch.setattr(_fold, "REGATHER_MAX", 0.05)

    async def main(loop: SteppedLoop) -> None:
        gates: List["asyncio.Future[IdentityBlock]"] = []
        sent_at: List[float] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            sent_at.append(loop.time())
            gates.append(loop.create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)
        first = [asyncio.ensure_future(folder.next_identity("orders", 30.0)) for _ in range(3)]
        await settle()
        assert len(gates) == 1  # the others wait behind the batch in flight
        loop.now = 1.0  # the round took 1 s
        gates[0].set_result(IdentityBlock(1, 1))
        await settle()
        loop.now = 1.0 + 0.04  # most of the wait, not all
        await settle()
        assert len(gates) == 1, "the next batch went before the wait's end"
        loop.now = 1.0 + 0.05
        await settle()
        assert sent_at == [0.0, 1.0 + 0.05]
        gates[1].set_result(IdentityBlock(2, 3))
        assert [b.first for b in await asyncio.gather(*first)] == [1, 2, 3]

    run_stepped(main)


def test_a_queued_asyncio_caller_leaves_at_its_deadline_and_a_cancelled_one_at_once() -> None:
    async def main(loop: SteppedLoop) -> None:
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            gates.append(loop.create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)
        sent = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        cancelled = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        await settle()
        assert len(gates) == 1 and len(folder._counters["orders"].queue) == 1
        cancelled.cancel()
        short = asyncio.ensure_future(folder.next_identity("orders", 0.05))  # behind a batch that does not end
        await settle()
        assert cancelled.cancelled() and len(folder._counters["orders"].queue) == 1 and not short.done()
        loop.now = 0.05
        await settle()
        with pytest.raises(idnode.DeadlineExceeded):
            short.result()
        assert len(folder._counters["orders"].queue) == 0
        gates[0].set_result(IdentityBlock(1, 1))
        assert await sent == IdentityBlock(1, 1)
        loop.now += _fold.REGATHER_MAX  # the wait after the last answer ends
        await settle()
        assert len(gates) == 1 and folder._counters == {}

    run_stepped(main)


def test_an_asyncio_caller_with_a_shorter_deadline_than_those_queued_leaves_at_its_own() -> None:
    async def main(loop: SteppedLoop) -> None:
        gates: List["asyncio.Future[IdentityBlock]"] = []

        async def send(name: str, n: int, request_id: str, timeout: Optional[float], refusals: Any = None) -> IdentityBlock:
            gates.append(loop.create_future())
            return await gates[-1]

        folder = _fold_tasks.AsyncFolder(send, clock=loop.time)
        sent = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        patient = asyncio.ensure_future(folder.next_identity("orders", 30.0))
        short = asyncio.ensure_future(folder.next_identity("orders", 0.05))
        await settle()
        loop.now = 0.05
        await settle()
        with pytest.raises(idnode.DeadlineExceeded):
            short.result()
        assert not patient.done() and len(folder._counters["orders"].queue) == 1
        gates[0].set_result(IdentityBlock(1, 1))
        await settle()
        loop.now += _fold.REGATHER_MAX  # the caller answered does not come back
        await settle()
        gates[1].set_result(IdentityBlock(2, 2))
        assert await asyncio.gather(sent, patient) == [IdentityBlock(1, 1), IdentityBlock(2, 2)]
        loop.now += _fold.REGATHER_MAX
        await settle()
        assert folder._counters == {}

    run_stepped(main)


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
            start.wait(HANG)
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
