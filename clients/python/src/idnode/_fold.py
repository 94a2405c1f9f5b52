"""Folding of concurrent single identities: callers asking for one value of the same counter at
the same time share one NextIdentity call with count = n, and its block is split among them in
arrival order.

Each identity is a Raft round on the cluster; a Python process spends most of a call's time in
gRPC and the interpreter, so one call for n values costs about what one call for one value
costs. Only calls with count 1 and no request id of the caller's fold: a caller-supplied
request id names exactly one reservation, and a call asking for a block wants it consecutive.

With asyncio, when a batch returns the next waits for the callers it answered to come back
(AsyncFolder._regather): tasks that loop, taking one ID after another, are queued again within
the same turn of the event loop, and without the wait the next batch would go with only the
callers queued during the round, the ones just answered waiting a whole round for the one
after. Threads keep the batch's sender as the thread of its first caller, with no timer to
bound such a wait, and send the next batch at once.

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
from typing import Any, Awaitable, Callable, Deque, Dict, List, Optional

from . import errors
from ._calls import IdentityBlock
from ._core import new_request_id

MAX_IN_FLIGHT = 2
"""Batches of one counter on the wire at once: while one is in Raft the next one gathers
callers; more would only split the same callers into smaller batches."""

MAX_BATCH = 1024
"""Callers one batch serves at most; far below the server's largest count (100,000)."""

REGATHER_MAX = 0.001
"""Seconds an asyncio batch waits at most for the callers the one before answered: a quarter
of that batch's round, never more than this."""


class Waiter:
    """One folded caller: when it must be answered by, and its answer once it has one."""

    __slots__ = ("deadline", "value", "error", "done", "signal", "batch")

    def __init__(self, deadline: Optional[float], signal: Any = None) -> None:
        self.deadline = deadline
        self.value: Optional[IdentityBlock] = None
        self.error: Optional[BaseException] = None
        self.done = False
        self.signal = signal  # a threading.Event or an asyncio.Future
        self.batch: Optional["Batch"] = None  # sync: a batch this caller's thread is to send


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

    __slots__ = ("queue", "in_flight", "regather", "timer")

    def __init__(self) -> None:
        self.queue: Deque[Waiter] = deque()
        self.in_flight = 0
        self.regather = 0  # > 0: the next batch waits until this many are queued (asyncio)
        self.timer: Optional[asyncio.TimerHandle] = None  # ends that wait

    def idle(self) -> bool:
        return not self.queue and self.in_flight == 0 and not self.regather

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
    """Folding for the thread-safe client. A batch is sent by the thread of its first caller,
    so folding adds no thread; the others wait on an Event of their own."""

    def __init__(self, send: Callable[[str, int, str, Optional[float]], IdentityBlock], clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._lock = threading.Lock()
        self._counters: Dict[str, Counter] = {}

    def next_identity(self, name: str, timeout: Optional[float]) -> IdentityBlock:
        w = Waiter(None if timeout is None else self._clock() + timeout, threading.Event())
        with self._lock:
            counter = self._counters.get(name)
            if counter is None:
                counter = self._counters[name] = Counter()
            counter.queue.append(w)
            w.batch = counter.start_batch(name)
        while True:  # ends when w is answered: each pass sends a batch or waits for one
            if w.batch is not None:
                batch, w.batch = w.batch, None
                self._run(counter, batch)
            if w.done:
                break
            left = None if w.deadline is None else max(w.deadline - self._clock(), 0.0)
            if not w.signal.wait(left):
                with self._lock:
                    if w in counter.queue:  # not in a batch yet: it can leave
                        counter.queue.remove(w)
                        raise _expired(name)
                # In a batch, which ends by this caller's deadline: wait for its answer.
                w.signal.wait()
            with self._lock:
                w.signal.clear()
        if w.error is not None:
            raise w.error
        assert w.value is not None
        return w.value

    def _run(self, counter: Counter, batch: Batch) -> None:
        block: Optional[IdentityBlock] = None
        error: Optional[BaseException] = None
        try:
            block = self._send(batch.name, len(batch.waiters), batch.request_id, _timeout(batch, self._clock))
        except BaseException as e:  # the callers of the batch get what it raised
            error = e
        with self._lock:
            answered = counter.finish(batch, block, error, self._clock())
            following = counter.start_batch(batch.name)
            if following is not None:
                following.waiters[0].batch = following
                answered.append(following.waiters[0])
            if counter.idle():
                self._counters.pop(batch.name, None)
            for w in answered:
                w.signal.set()


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
        if counter.regather and len(counter.queue) >= counter.regather:
            self._regathered(counter, name)  # every caller just answered is back
        else:
            self._start(counter, name)
        # A timer rather than wait_for, which costs a task per call: at the deadline a caller
        # still queued leaves; one in a batch waits for it, as it ends by this deadline.
        expiry = None if timeout is None else loop.call_later(timeout, _leave, counter, w, name)
        try:
            return await w.signal  # type: ignore[no-any-return]
        except asyncio.CancelledError:  # the caller's task was cancelled; w.signal is too
            w.done = True  # a batch it is in skips it
            if w in counter.queue:
                counter.queue.remove(w)
            raise
        finally:
            if expiry is not None:
                expiry.cancel()

    def _regather(self, counter: Counter, name: str, answered: int, round_s: float) -> None:
        """Hold the next batch until the callers just answered are queued again, for a
        quarter of the round at most (REGATHER_MAX): 64 looping tasks then share one batch a
        round instead of two halves taking turns."""
        want = len(counter.queue) + answered
        if answered == 0 or want > MAX_BATCH:
            return
        counter.regather = want
        if counter.timer is not None:  # two batches in flight answered in one turn
            counter.timer.cancel()
        wait = min(max(round_s, 0.0) / 4, REGATHER_MAX)
        counter.timer = asyncio.get_running_loop().call_later(wait, self._regathered, counter, name)

    def _regathered(self, counter: Counter, name: str) -> None:
        counter.regather = 0
        if counter.timer is not None:
            counter.timer.cancel()
            counter.timer = None
        self._start(counter, name)
        self._drop_idle(counter, name)

    def _drop_idle(self, counter: Counter, name: str) -> None:
        """Forget counter once nothing of it is queued, in flight or waiting, so hostile
        names cannot pile up."""
        if counter.idle() and self._counters.get(name) is counter:
            del self._counters[name]

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
        if error is None:
            self._regather(counter, batch.name, len(answered), self._clock() - sent)
        self._start(counter, batch.name)
        self._drop_idle(counter, batch.name)
        if isinstance(error, asyncio.CancelledError):
            raise error


def _leave(counter: Counter, w: Waiter, name: str) -> None:
    if w in counter.queue:
        counter.queue.remove(w)
        w.signal.set_exception(_expired(name))


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

