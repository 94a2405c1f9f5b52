"""Folding of concurrent single identities: callers asking for one value of the same counter at
the same time share one NextIdentity call with count = n, and its block is split among them in
arrival order.

Each identity is a Raft round on the cluster; a Python process spends most of a call's time in
gRPC and the interpreter, so one call for n values costs about what one call for one value
costs. Only calls with count 1 and no request id of the caller's fold: a caller-supplied
request id names exactly one reservation, and a call asking for a block wants it consecutive.

One batch of a counter is in flight at a time, and when it returns the next waits, briefly,
for the callers it answered to come back (Counter.start_regather): callers that loop, taking
one ID after another, are queued again within microseconds (tasks in the same turn of the
event loop), and without the wait the next batch would go with only the callers queued during
the round, the ones just answered waiting a whole round for the one after: two halves taking
turns, each batch carrying half the callers. Measured with 64 callers against three nodes,
one batch in flight with the wait carried all 64 callers a batch where two in flight carried
20 to 30 each, for 40 to 60% more identities a second and a third less CPU an identity, as in
the Go client (client/fold.go).

Real-time order holds: a caller only ever joins a batch that has not been sent, so a batch is
sent after every caller in it arrived, and the cluster numbers it after every call that had
returned by then. Each batch carries a request id of its own that all its retries reuse, and
runs until the earliest deadline of its callers, so no caller waits past its own. A caller's
deadline or cancellation ends that caller alone: when a batch fails because the earliest
deadline passed, its callers whose own deadline has not passed go back to the queue, for the
next batch (a value it may have reserved for them is a gap, never a duplicate: the next batch
has a request id of its own).
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from typing import Any, Awaitable, Callable, Deque, Dict, List, Optional, Tuple, cast

from . import errors
from ._calls import IdentityBlock
from ._core import new_request_id

MAX_IN_FLIGHT = 1
"""Batches of one counter on the wire at once: while one is in Raft the next gathers callers.
A second in flight only split the same callers into smaller batches (see above)."""

MAX_BATCH = 1024
"""Callers one batch serves at most; far below the server's largest count (100,000)."""

REGATHER_MAX = 0.001
"""Seconds a batch waits at most for the callers the one before answered: a share of that
batch's round (REGATHER_SHARE_TASKS or REGATHER_SHARE_THREADS), never more than this."""

REGATHER_SHARE_TASKS = 0.25
"""The share of a round a batch of tasks waits at most for the callers the one before
answered, as in the Go client: 64 tasks come back within it."""

REGATHER_SHARE_THREADS = 0.5
"""The same for threads, which come back one at a time, each taking the interpreter's lock in
turn: after a quarter of a 1.1-1.8 ms round, 40 to 45 of 64 were back, and after half of it
55 to 58. The fold alone (64 threads, a send that sleeps 1.5 ms, three runs each) made
20,206-23,629 identities/s with a quarter and 21,901-28,065 with half, at 9.5-11.1 µs of CPU
an identity against 8.6-9.5."""


class Waiter:
    """One folded caller: when it must be answered by, and its answer once it has one."""

    __slots__ = ("deadline", "value", "error", "done", "signal", "batch", "leaves_at", "relay")

    def __init__(self, deadline: Optional[float], signal: Any = None) -> None:
        self.deadline = deadline
        self.leaves_at: Optional[float] = None  # asyncio: the deadline in the loop's time
        self.value: Optional[IdentityBlock] = None
        self.error: Optional[BaseException] = None
        self.done = False
        self.signal = signal  # a threading.Event or an asyncio.Future
        self.batch: Optional["Batch"] = None  # sync: a batch this caller's thread is to send
        self.relay: Optional["Waiter"] = None  # sync: the caller of its batch it wakes on leaving


class Batch:
    """Callers whose values one NextIdentity call reserves, under one request id, by the
    earliest deadline among them (None when none has one)."""

    __slots__ = ("name", "waiters", "request_id", "deadline")

    def __init__(self, name: str, waiters: List[Waiter]) -> None:
        self.name = name
        self.waiters = waiters
        self.request_id = new_request_id()
        deadlines = [w.deadline for w in waiters if w.deadline is not None]
        self.deadline = min(deadlines) if deadlines else None


class Counter:
    """The callers of one identity counter waiting for a batch, and the batches in flight."""

    __slots__ = ("queue", "in_flight", "regather", "timer", "expiry", "keeper", "regather_until")

    def __init__(self) -> None:
        self.queue: Deque[Waiter] = deque()
        self.in_flight = 0
        self.regather = 0  # > 0: the next batch waits until this many are queued
        self.timer: Optional[asyncio.TimerHandle] = None  # asyncio: ends that wait
        self.keeper: Optional[Waiter] = None  # sync: the queued caller that ends that wait
        self.regather_until = 0.0  # sync: when the keeper ends it, on the folder's clock
        self.expiry: Optional[asyncio.TimerHandle] = None  # asyncio: the earliest queued deadline

    def idle(self) -> bool:
        return not self.queue and self.in_flight == 0 and not self.regather

    def start_regather(self, answered: int, round_s: float, share: float) -> Optional[float]:
        """After a batch answered ``answered`` callers in ``round_s`` seconds: hold the next
        batch until they are queued again, and return how long at most (``share`` of the
        round, REGATHER_MAX at most), for the folder's timer; None when there is nothing to
        wait for."""
        want = len(self.queue) + answered
        if answered == 0 or want > MAX_BATCH:
            return None
        self.regather = want
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        return min(max(round_s, 0.0) * share, REGATHER_MAX)

    def regathered(self) -> None:
        """End a regather once the callers it waits for are queued."""
        if self.regather and len(self.queue) >= self.regather:
            self.end_regather()

    def end_regather(self) -> None:
        self.regather = 0
        self.keeper = None
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def start_batch(self, name: str) -> Optional[Batch]:
        """The next batch, the oldest callers first, if one may be sent now."""
        if not self.queue or self.in_flight >= MAX_IN_FLIGHT or self.regather:
            return None
        n = min(len(self.queue), MAX_BATCH)
        self.in_flight += 1
        return Batch(name, [self.queue.popleft() for _ in range(n)])

    def finish(self, batch: Batch, block: Optional[IdentityBlock], error: Optional[BaseException], now: float) -> List[Waiter]:
        """Hand the batch's answer out to the callers still waiting for it: one value to each
        in arrival order, or the error. Callers go back to the head of the queue, for the next
        batch, when the block ends before their turn (the cluster ends a block early that
        steps over many claimed values), or when the batch failed after its deadline, another
        caller's, while theirs has not passed. Returns the callers answered."""
        self.in_flight -= 1
        answered: List[Waiter] = []
        back: List[Waiter] = []
        stopped = error is not None and batch.deadline is not None and now >= batch.deadline
        values = iter(block) if block is not None else None
        for w in batch.waiters:
            if w.done:  # its caller left
                continue
            if error is not None:
                if stopped and (w.deadline is None or w.deadline > now):
                    back.append(w)
                    continue
                w.error = error
            else:
                assert values is not None
                v = next(values, None)
                if v is None:
                    back.append(w)
                    continue
                w.value = IdentityBlock(v, v)
            w.done = True
            answered.append(w)
        self.queue.extendleft(reversed(back))
        return answered


def _timeout(batch: Batch, clock: Callable[[], float]) -> Optional[float]:
    """Seconds left until the batch's deadline; None when it has none. Raises when the
    deadline passed before the batch was sent."""
    if batch.deadline is None:
        return None
    left = batch.deadline - clock()
    if left <= 0:
        raise _expired(batch.name)
    return left


def _expired(name: str) -> errors.IdnodeError:
    return errors.DeadlineExceeded(
        f"the deadline of the identity call for {name!r} passed before a batch took it", reason="DEADLINE_EXCEEDED"
    )


class SyncFolder:
    """Folding for the thread-safe client. A batch is sent by the thread of one of its callers,
    and a regather is ended by the thread of a caller waiting for it (Counter.keeper), so
    folding adds no thread; a caller waits on a lock of its own, which is released to wake it
    (cheaper than an Event's condition and lock).

    The callers a batch answered are woken one after another, each by the one before as it
    leaves (Waiter.relay), the sending thread first. Woken all at once, they only woke to queue
    for the interpreter's lock, held by the thread waking them, and slept again: two or three
    context switches an identity instead of one, and most of the process's CPU in the kernel.
    One at a time, each runs while the one before blocks, and the order costs no time, as the
    interpreter lets only one of them run at once anyway. A thread a regather, for its timer,
    cost 45 µs of CPU a batch, and the sending thread waited for it to start.
    """

    def __init__(self, send: Callable[[str, int, str, Optional[float]], IdentityBlock], clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._lock = threading.Lock()
        self._counters: Dict[str, Counter] = {}
        # Regathers by when they end: one that no caller came back for is ended by the next
        # call for any counter, so that its counter is forgotten.
        self._regathers: Deque[Tuple[float, str, Counter]] = deque()

    def next_identity(self, name: str, timeout: Optional[float]) -> IdentityBlock:
        signal = threading.Lock()
        signal.acquire()
        w = Waiter(None if timeout is None else self._clock() + timeout, signal)
        with self._lock:
            if self._regathers:
                self._end_regathers(self._clock())
            counter = self._counters.get(name)
            if counter is None:
                counter = self._counters[name] = Counter()
            counter.queue.append(w)
            counter.regathered()
            if counter.regather and counter.keeper is None:
                counter.keeper = w
            w.batch = counter.start_batch(name)
        try:
            self._wait(counter, name, w)
        finally:
            self._leave(counter, w)
        if w.error is not None:
            raise w.error
        assert w.value is not None
        return w.value

    def _wait(self, counter: Counter, name: str, w: Waiter) -> None:
        """Send the batches handed to w's thread, end the regather w keeps, and wait until w
        is answered."""
        while True:  # each pass sends a batch or waits for one
            if w.batch is not None:
                batch, w.batch = w.batch, None
                self._run(counter, batch, w)
            if w.done:
                return
            left = -1.0 if w.deadline is None else max(w.deadline - self._clock(), 0.0)
            if counter.keeper is w:  # set before w was queued or woken: no stale read
                until = max(counter.regather_until - self._clock(), 0.0)
                left = until if left < 0 else min(left, until)
            if w.signal.acquire(timeout=left):
                continue
            with self._lock:
                now = self._clock()
                expired = w.deadline is not None and now >= w.deadline
                if expired and w in counter.queue:  # not in a batch yet: it can leave
                    counter.queue.remove(w)
                    self._hand_keeping_on(counter, w)
                    raise _expired(name)
                if counter.keeper is w and now >= counter.regather_until:
                    counter.end_regather()
                    self._start_locked(counter, name, [])
            if expired and w.batch is None:
                # In a batch, which ends by this caller's deadline: wait for its answer.
                w.signal.acquire()

    def _leave(self, counter: Counter, w: Waiter) -> None:
        """Wake the next caller answered with w. A caller leaving unanswered (interrupted while
        it waited) is marked done, so that no batch answers it or counts on it to wake another."""
        if not w.done:
            with self._lock:
                if not w.done:
                    if w in counter.queue:
                        counter.queue.remove(w)
                        self._hand_keeping_on(counter, w)
                    w.done = True
                    return
        following, w.relay = w.relay, None
        if following is not None and following.signal.locked():
            following.signal.release()

    def _hand_keeping_on(self, counter: Counter, w: Waiter) -> None:
        """w left the queue: if it kept the regather, the oldest queued caller keeps it now."""
        if counter.keeper is w:
            counter.keeper = counter.queue[0] if counter.queue else None
            if counter.keeper is not None and counter.keeper.signal.locked():
                counter.keeper.signal.release()  # to wait until the regather's end

    def _end_regathers(self, now: float) -> None:
        while self._regathers and self._regathers[0][0] <= now:
            _, name, counter = self._regathers.popleft()
            if counter.regather and now >= counter.regather_until:
                counter.end_regather()
                self._start_locked(counter, name, [])

    def _run(self, counter: Counter, batch: Batch, sender: Waiter) -> None:
        block: Optional[IdentityBlock] = None
        error: Optional[BaseException] = None
        sent = self._clock()
        try:
            block = self._send(batch.name, len(batch.waiters), batch.request_id, _timeout(batch, self._clock))
        except BaseException as e:  # the callers of the batch get what it raised
            error = e
        with self._lock:
            now = self._clock()
            answered = counter.finish(batch, block, error, now)
            wake = []
            # Not for one caller answered, who asks again by itself (a caller taking IDs one
            # after another, alone).
            if error is None and len(answered) > 1:
                wait = counter.start_regather(len(answered), now - sent, REGATHER_SHARE_THREADS)
                if wait is not None:
                    counter.regather_until = now + wait
                    self._regathers.append((counter.regather_until, batch.name, counter))
                    if counter.queue:  # callers that came during the round: the oldest keeps it
                        counter.keeper = counter.queue[0]
                        wake.append(counter.keeper)
            # The sender leads the relay when answered: it runs already, and wakes the next as
            # it leaves.
            if sender.done and answered[0] is not sender:
                answered.remove(sender)
                answered.insert(0, sender)
            for a, b in zip(answered, answered[1:]):
                a.relay = b
            if answered and answered[0] is not sender:
                wake.append(answered[0])
            self._start_locked(counter, batch.name, wake)

    def _start_locked(self, counter: Counter, name: str, wake: List[Waiter]) -> None:
        """Start the next batch if one may go, to be sent by the thread of its first caller;
        wake that caller and the callers in ``wake``; forget the counter once idle."""
        following = counter.start_batch(name)
        if following is not None:
            following.waiters[0].batch = following
            wake.append(following.waiters[0])
        if counter.idle() and self._counters.get(name) is counter:
            del self._counters[name]
        for w in wake:
            if w.signal.locked():  # else a wake-up is pending, and the waiter sees this one's state too
                w.signal.release()


class AsyncFolder:
    """Folding for the asyncio client: each batch is sent by a task of its own, and callers
    await a Future. Everything runs on the event loop's thread, so nothing is locked."""

    def __init__(self, send: Callable[[str, int, str, Optional[float]], Awaitable[IdentityBlock]], clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._counters: Dict[str, Counter] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # strong references: the loop keeps weak ones

    async def next_identity(self, name: str, timeout: Optional[float]) -> IdentityBlock:
        loop = asyncio.get_running_loop()
        w = Waiter(None if timeout is None else self._clock() + timeout, loop.create_future())
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = Counter()
        counter.queue.append(w)
        counter.regathered()  # every caller just answered is back
        self._start(counter, name)
        if timeout is not None:
            w.leaves_at = loop.time() + timeout
            if counter.queue and counter.queue[-1] is w:  # not sent at once
                self._watch(counter, name, w)
        try:
            return cast(IdentityBlock, await w.signal)
        except asyncio.CancelledError:  # the caller's task was cancelled; w.signal is too
            w.done = True  # a batch it is in skips it
            if w in counter.queue:
                counter.queue.remove(w)
            raise

    # At its deadline a caller still queued leaves; one in a batch waits for it, as the batch
    # ends by that deadline. One timer a counter, at the earliest deadline of its queued
    # callers, rather than one a caller: with the same timeout for every caller, a new one's
    # deadline is the latest, and the timer is armed anew only when it fires. A timer a caller
    # (or wait_for, a task a caller) cost a third of the fold's CPU.
    def _watch(self, counter: Counter, name: str, w: Waiter) -> None:
        """Make the counter's timer fire by the deadline of w, a queued caller."""
        if w.leaves_at is not None and (counter.expiry is None or w.leaves_at < counter.expiry.when()):
            self._arm_expiry(counter, name, w.leaves_at)

    def _arm_expiry(self, counter: Counter, name: str, when: float) -> None:
        if counter.expiry is not None:
            counter.expiry.cancel()
        counter.expiry = asyncio.get_running_loop().call_at(when, self._expire, counter, name)

    def _expire(self, counter: Counter, name: str) -> None:
        counter.expiry = None
        now = asyncio.get_running_loop().time()
        earliest: Optional[float] = None
        for w in list(counter.queue):
            if w.leaves_at is None:
                continue
            if w.leaves_at <= now:
                counter.queue.remove(w)
                w.signal.set_exception(_expired(name))
            elif earliest is None or w.leaves_at < earliest:
                earliest = w.leaves_at
        if earliest is not None:
            self._arm_expiry(counter, name, earliest)
        self._drop_idle(counter, name)

    def _regathered(self, counter: Counter, name: str) -> None:
        counter.end_regather()
        self._start(counter, name)
        self._drop_idle(counter, name)

    def _drop_idle(self, counter: Counter, name: str) -> None:
        """Forget counter once nothing of it is queued, in flight or waiting, so hostile
        names cannot pile up."""
        if counter.idle() and self._counters.get(name) is counter:
            del self._counters[name]
            if counter.expiry is not None:
                counter.expiry.cancel()

    def _start(self, counter: Counter, name: str) -> None:
        batch = counter.start_batch(name)
        if batch is not None:
            task = asyncio.get_running_loop().create_task(self._run(counter, batch))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _run(self, counter: Counter, batch: Batch) -> None:
        block: Optional[IdentityBlock] = None
        error: Optional[BaseException] = None
        sent = self._clock()
        try:
            block = await self._send(batch.name, len(batch.waiters), batch.request_id, _timeout(batch, self._clock))
        except (Exception, asyncio.CancelledError) as e:  # the callers of the batch get it
            error = e
        answered = counter.finish(batch, block, error, self._clock())
        for w in answered:
            _settle(w)
        for w in batch.waiters:
            if not w.done:  # back in the queue
                self._watch(counter, batch.name, w)
        if error is None:
            wait = counter.start_regather(len(answered), self._clock() - sent, REGATHER_SHARE_TASKS)
            if wait is not None:
                counter.timer = asyncio.get_running_loop().call_later(wait, self._regathered, counter, batch.name)
        self._start(counter, batch.name)
        self._drop_idle(counter, batch.name)
        if isinstance(error, asyncio.CancelledError):
            raise error


def _settle(w: Waiter) -> None:
    fut: "asyncio.Future[IdentityBlock]" = w.signal
    if fut.done():  # its caller was cancelled
        return
    if isinstance(w.error, asyncio.CancelledError):  # the loop is shutting down
        fut.cancel()
    elif w.error is not None:
        fut.set_exception(w.error)
    else:
        fut.set_result(w.value)  # type: ignore[arg-type]

