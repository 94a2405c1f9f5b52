"""Folding for the thread-safe client: the batches of _fold.py, sent by the callers' own
threads."""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from typing import Callable, Deque, Dict, List, Optional, Tuple

from ._calls import IdentityBlock
from ._fold import REGATHER_SHARE_THREADS, Batch, Counter, Waiter, batch_timeout, expired
from ._refusal import Refusals


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

    def __init__(
        self,
        send: Callable[[str, int, str, Optional[float], Refusals], IdentityBlock],
        clock: Callable[[], float] = time.monotonic,
        wait: Optional[Callable[[threading.Lock, float], bool]] = None,
    ) -> None:
        """``wait(signal, until)`` takes a caller's signal (released to wake it), or gives up
        (False) once ``clock`` reads ``until`` (math.inf: never). By default the lock's own
        timed wait, which counts real seconds; a test whose clock moves only when the test
        moves it passes a wait by that clock, so that no deadline or regather ends because
        the machine is slow."""
        self._send = send
        self._clock = clock
        self._wait_signal = self._acquire if wait is None else wait
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
            until = math.inf if w.deadline is None else w.deadline
            if counter.keeper is w:  # set before w was queued or woken: no stale read
                until = min(until, counter.regather_until)
            if self._wait_signal(w.signal, until):
                continue
            with self._lock:
                now = self._clock()
                late = w.deadline is not None and now >= w.deadline
                if late and w in counter.queue:  # not in a batch yet: it can leave
                    counter.queue.remove(w)
                    self._hand_keeping_on(counter, w)
                    raise expired(name, counter)
                if counter.keeper is w and now >= counter.regather_until:
                    counter.end_regather()
                    self._start_locked(counter, name, [])
            if late and w.batch is None:
                # In a batch, which ends by this caller's deadline: wait for its answer.
                w.signal.acquire()

    def _acquire(self, signal: threading.Lock, until: float) -> bool:
        """Take signal, or give up once the clock reads until."""
        if until == math.inf:
            return signal.acquire()
        return signal.acquire(timeout=max(until - self._clock(), 0.0))

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
            block = self._send(batch.name, len(batch.waiters), batch.request_id, batch_timeout(batch, counter, self._clock), counter.refusals)
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
