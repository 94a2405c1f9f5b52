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

This module holds the queue and the batches; _fold_threads.py sends them for the thread-safe
client, _fold_tasks.py for the asyncio client.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from typing import Any, Callable, Deque, List, Optional, Sequence

from . import errors
from ._calls import IdentityBlock, identity_of
from ._core import new_request_id
from ._refusal import Refusals

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
        self.signal = signal  # a locked threading.Lock or an asyncio.Future
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

    __slots__ = ("queue", "in_flight", "regather", "timer", "expiry", "expires_at", "keeper", "regather_until", "refusals")

    def __init__(self) -> None:
        self.queue: Deque[Waiter] = deque()
        # What the counter's batches met since one was last answered: a caller whose deadline
        # passes in the queue gets the most telling of it, as the batch's own callers do.
        self.refusals = Refusals()
        self.in_flight = 0
        self.regather = 0  # > 0: the next batch waits until this many are queued
        self.timer: Optional[asyncio.TimerHandle] = None  # asyncio: ends that wait
        self.keeper: Optional[Waiter] = None  # sync: the queued caller that ends that wait
        self.regather_until = 0.0  # sync: when the keeper ends it, on the folder's clock
        self.expiry: Optional[asyncio.TimerHandle] = None  # asyncio: the earliest queued deadline
        self.expires_at = math.inf  # asyncio: when expiry fires (inf: never), read by every caller

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
        if error is None:
            assert block is not None
            self.refusals = Refusals()
            # The block's values in order; a range, not the block's generator, when none is
            # skipped (nearly always), as it is walked once a caller.
            values: Sequence[int] = range(block.first, block.last + 1) if not block.skipped else list(block)
            taken = 0
            for w in batch.waiters:
                if w.done:  # its caller left
                    continue
                if taken == len(values):
                    back.append(w)
                    continue
                w.value = identity_of(values[taken])
                taken += 1
                w.done = True
                answered.append(w)
        else:
            stopped = batch.deadline is not None and now >= batch.deadline
            for w in batch.waiters:
                if w.done:
                    continue
                if stopped and (w.deadline is None or w.deadline > now):
                    back.append(w)
                    continue
                w.error = error
                w.done = True
                answered.append(w)
        if back:
            self.queue.extendleft(reversed(back))
        return answered


def batch_timeout(batch: Batch, counter: Counter, clock: Callable[[], float]) -> Optional[float]:
    """Seconds left until the batch's deadline; None when it has none. Raises when the
    deadline passed before the batch was sent."""
    if batch.deadline is None:
        return None
    left = batch.deadline - clock()
    if left <= 0:
        raise expired(batch.name, counter)
    return left


def expired(name: str, counter: Counter) -> errors.IdnodeError:
    """The error of a caller of counter ``name`` whose deadline passed before a batch took it."""
    return counter.refusals.late(f"the deadline of the identity call for {name!r} passed before a batch took it")
