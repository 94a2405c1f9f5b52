"""Folding for the asyncio client: the batches of _fold.py, each sent by a task of its own."""

from __future__ import annotations

import asyncio
import math
import time
from typing import Awaitable, Callable, Dict, Optional

from ._calls import IdentityBlock
from ._fold import MAX_IN_FLIGHT, REGATHER_SHARE_TASKS, Batch, Counter, Waiter, batch_timeout, expired
from ._refusal import Refusals


class AsyncFolder:
    """Folding for the asyncio client: each batch is sent by a task of its own, and callers
    await a Future. Everything runs on the event loop's thread, so nothing is locked."""

    def __init__(self, send: Callable[[str, int, str, Optional[float], Refusals], Awaitable[IdentityBlock]], clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._counters: Dict[str, Counter] = {}
        self._tasks: set[asyncio.Task[None]] = set()  # strong references: the loop keeps weak ones

    async def next_identity(self, name: str, timeout: Optional[float]) -> IdentityBlock:
        # The path every folded caller takes, kept to what each must do: the checks of
        # Counter.regathered and start_batch are made here before calling out.
        loop = asyncio.get_running_loop()
        w = Waiter(None if timeout is None else self._clock() + timeout, loop.create_future())
        counter = self._counters.get(name)
        if counter is None:
            counter = self._counters[name] = Counter()
        queue = counter.queue
        queue.append(w)
        if counter.regather:
            if len(queue) >= counter.regather:  # every caller just answered is back
                counter.end_regather()
                self._start(counter, name)
        elif counter.in_flight < MAX_IN_FLIGHT:
            self._start(counter, name)
        if timeout is not None:  # every caller's: one put back in the queue later is watched by it
            w.leaves_at = leaves_at = loop.time() + timeout
            if leaves_at < counter.expires_at and queue and queue[-1] is w:  # not sent at once
                self._arm_expiry(counter, name, leaves_at)
        try:
            return await w.signal  # type: ignore[no-any-return]
        except asyncio.CancelledError:  # the caller's task was cancelled; w.signal is too
            w.done = True  # a batch it is in skips it
            if w in queue:
                queue.remove(w)
            raise

    # At its deadline a caller still queued leaves; one in a batch waits for it, as the batch
    # ends by that deadline. One timer a counter, at the earliest deadline of its queued
    # callers, rather than one a caller: with the same timeout for every caller, a new one's
    # deadline is the latest, and the timer is armed anew only when it fires. A timer a caller
    # (or wait_for, a task a caller) cost a third of the fold's CPU.
    def _watch(self, counter: Counter, name: str, w: Waiter) -> None:
        """Make the counter's timer fire by the deadline of w, a queued caller."""
        if w.leaves_at is not None and w.leaves_at < counter.expires_at:
            self._arm_expiry(counter, name, w.leaves_at)

    def _arm_expiry(self, counter: Counter, name: str, when: float) -> None:
        if counter.expiry is not None:
            counter.expiry.cancel()
        counter.expiry = asyncio.get_running_loop().call_at(when, self._expire, counter, name)
        counter.expires_at = when

    def _expire(self, counter: Counter, name: str) -> None:
        counter.expiry = None
        counter.expires_at = math.inf
        now = asyncio.get_running_loop().time()
        earliest: Optional[float] = None
        for w in list(counter.queue):
            if w.leaves_at is None:
                continue
            if w.leaves_at <= now:
                counter.queue.remove(w)
                w.signal.set_exception(expired(name, counter))
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
            block = await self._send(batch.name, len(batch.waiters), batch.request_id, batch_timeout(batch, counter, self._clock), counter.refusals)
        except (Exception, asyncio.CancelledError) as e:  # the callers of the batch get it
            error = e
        answered = counter.finish(batch, block, error, self._clock())
        if error is None:
            for w in answered:
                if not w.signal.done():  # else its caller was cancelled
                    w.signal.set_result(w.value)
        else:
            for w in answered:
                _fail(w.signal, error)
        if len(answered) < len(batch.waiters):
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


def _fail(fut: "asyncio.Future[IdentityBlock]", error: BaseException) -> None:
    if fut.done():  # its caller was cancelled
        return
    if isinstance(error, asyncio.CancelledError):  # the loop is shutting down
        fut.cancel()
    else:
        fut.set_exception(error)
