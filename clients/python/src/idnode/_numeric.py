"""Numeric IDs (Snowflake style) minted in-process under a worker leased from the cluster: the
layout, the minting rules (the Go client's package flake) and the lease bookkeeping (package
flakelease), shared by the threaded and the asyncio generator; they add only the renewal loop."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Callable, Optional

import grpc

from . import _calls, errors
from ._core import Call, log, new_request_id
from .v1 import idnode_pb2 as pb

_EPOCH_2026_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z


@dataclass(frozen=True)
class Layout:
    """How an ID's 63 bits split, from the top: ``time_bits`` of ``unit_ms`` ticks since
    ``epoch_ms`` (Unix ms), ``worker_bits`` of worker, ``sequence_bits`` of sequence. The default
    is 41 + 10 + 12 from 2026-01-01; :meth:`js_safe` keeps IDs at or below 2^53-1. Every
    generator of a database must use the same worker bits."""

    epoch_ms: int = _EPOCH_2026_MS
    unit_ms: int = 1
    time_bits: int = 41
    worker_bits: int = 10
    sequence_bits: int = 12

    @classmethod
    def js_safe(cls) -> "Layout":
        return cls(worker_bits=5, sequence_bits=7)

    def __post_init__(self) -> None:
        for name in ("epoch_ms", "unit_ms", "time_bits", "worker_bits", "sequence_bits"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int):
                raise ValueError(f"Layout.{name} must be an int, got {v!r}")
        if self.epoch_ms < 0:
            raise ValueError(f"Layout.epoch_ms {self.epoch_ms} is negative")
        if self.unit_ms < 1 or self.unit_ms > 86_400_000:
            raise ValueError(f"Layout.unit_ms {self.unit_ms} must be 1..86400000")
        if min(self.time_bits, self.worker_bits, self.sequence_bits) < 1 or self.time_bits + self.worker_bits + self.sequence_bits > 63:
            raise ValueError(
                f"Layout bits {self.time_bits}+{self.worker_bits}+{self.sequence_bits}: each at least 1, at most 63 in all"
            )
        if self.worker_bits > 22:
            raise ValueError(f"Layout.worker_bits {self.worker_bits} is above the cluster's 22")

    @property
    def max_tick(self) -> int:
        return (1 << self.time_bits) - 1

    def tick_of_ms(self, ms: int) -> int:
        """The tick Unix ms falls in, rounded down (negative before the epoch), at most one past
        the last tick."""
        return min((ms - self.epoch_ms) // self.unit_ms, self.max_tick + 1)

    def decompose(self, id: int) -> tuple[int, int, int]:
        """(tick, worker, sequence) of an ID."""
        seq = id & ((1 << self.sequence_bits) - 1)
        worker = (id >> self.sequence_bits) & ((1 << self.worker_bits) - 1)
        return id >> (self.sequence_bits + self.worker_bits), worker, seq


MAX_BORROW_MS = 1000
"""How far ahead of the wall clock a minted tick may run (after a burst or a clock step back)."""


def _lease_error(reason: str, message: str) -> errors.LeaseError:
    return errors.LeaseError(message, reason=reason)


class NumericState:
    """The minting state of one generator under one lease at a time. Every ID is strictly above
    the one before, across clock steps and lease changes."""

    def __init__(self, layout: Optional[Layout], holder: str, lease: float, margin: Optional[float]) -> None:
        self.layout = layout or Layout()
        if not isinstance(self.layout, Layout):
            raise ValueError("layout must be an idnode.Layout")
        if isinstance(lease, bool) or not isinstance(lease, (int, float)) or not 1 <= lease <= 3600:
            raise ValueError(f"lease {lease!r} must be 1..3600 seconds")
        margin = lease / 10 if margin is None else margin
        if isinstance(margin, bool) or not isinstance(margin, (int, float)) or not 0 <= margin < lease / 2:
            raise ValueError(f"margin {margin!r} must be at least 0 and below half the lease ({lease / 2} s)")
        if not isinstance(holder, str) or len(holder.encode()) > 128:
            raise ValueError("holder must be a str of at most 128 bytes")
        self._holder = holder
        self._lease = float(lease)
        self._margin = float(margin)
        self._renew_every = self._lease / 3
        self._wall_ms: Callable[[], int] = lambda: time.time_ns() // 1_000_000
        self._mono: Callable[[], float] = time.monotonic
        self._lock = threading.Lock()
        lo = self.layout
        self._seq_bits = lo.sequence_bits
        self._seq_mask = (1 << lo.sequence_bits) - 1
        self._shift = lo.worker_bits + lo.sequence_bits
        self._borrow = MAX_BORROW_MS // lo.unit_ms
        self._worker = -1
        self._epoch = -1
        self._max_tick = -1
        self._valid_until = 0.0  # monotonic
        self._last = -1
        self._minted = -1
        self._lost = False
        self._closed = False
        self._sent = 0.0
        self.last_error: Optional[errors.IdnodeError] = None

    @property
    def worker(self) -> int:
        """The worker ID the generator mints under."""
        return self._worker

    @property
    def epoch(self) -> int:
        """The lease's fencing epoch."""
        return self._epoch

    def next(self) -> int:
        """Mint an ID: no network call. Raises :class:`idnode.LeaseError` while it may not mint
        (reason LEASE_EXPIRED, LEASE_LOST, CLOCK_BEHIND, LEASE_EXHAUSTED): retry shortly."""
        now_ms = self._wall_ms()
        now = self._mono()
        with self._lock:
            if self._closed:
                raise errors.ClientClosed("the numeric generator")
            if self._lost:
                raise _lease_error("LEASE_LOST", "the worker lease was lost to another holder; a new one is being acquired, retry shortly")
            if now >= self._valid_until:
                why = f" (the last renewal failed: {self.last_error})" if self.last_error else ""
                raise _lease_error("LEASE_EXPIRED", "the worker lease ran out before it was renewed" + why)
            now_tick = (now_ms - self.layout.epoch_ms) // self.layout.unit_ms
            nxt = self._last + 1
            if now_tick > nxt >> self._seq_bits:
                nxt = now_tick << self._seq_bits
            tick = nxt >> self._seq_bits
            if tick > self._max_tick:
                raise _lease_error("LEASE_EXHAUSTED", "the lease's last tick is minted; it is being renewed, retry shortly")
            if tick - now_tick > self._borrow:
                raise _lease_error("CLOCK_BEHIND", "the clock stepped back more than a second; wait for it to catch up")
            self._last = self._minted = nxt
            return tick << self._shift | self._worker << self._seq_bits | nxt & self._seq_mask

    def _acquire_call(self) -> Call[pb.WorkerLease]:
        self._sent = self._mono()
        return _calls.acquire_worker(self._holder, self.layout.worker_bits, self._lease, new_request_id())

    def _renew_call(self) -> Call[pb.WorkerLease]:
        """The renewal, or after the lease was lost, a new acquisition."""
        with self._lock:
            lost, worker, epoch = self._lost, self._worker, self._epoch
        if lost:
            return self._acquire_call()
        self._sent = self._mono()
        return _calls.renew_worker(worker, epoch, self._lease)

    def _grant(self, wl: pb.WorkerLease) -> None:
        """Mint under a lease the cluster granted or renewed; its local end counts from before
        the request, so it comes no later than the cluster's."""
        lo = self.layout
        min_tick = max(lo.tick_of_ms(wl.min_ms), -1)
        max_tick = min(lo.tick_of_ms(wl.max_ms), lo.max_tick)
        if wl.worker >= 1 << lo.worker_bits or max_tick <= min_tick:
            raise errors.make_error(grpc.StatusCode.INTERNAL, f"the cluster granted an unusable lease: {wl}", "BAD_LEASE")
        with self._lock:
            if wl.worker == self._worker and wl.epoch < self._epoch:
                return  # a stale answer
            if (wl.worker, wl.epoch) != (self._worker, self._epoch) and self._minted >= 0:
                # A new grant mints from the next tick above the last ID, which another worker
                # at the same tick could sort below.
                self._last = self._minted | self._seq_mask
            self._worker, self._epoch = wl.worker, wl.epoch
            self._max_tick = max_tick
            self._valid_until = self._sent + self._lease - self._margin
            self._last = max(self._last, min_tick << self._seq_bits | self._seq_mask)
            self._lost = False
            self.last_error = None

    def _renewal_failed(self, e: errors.IdnodeError) -> float:
        """Note a failed renewal; returns how long to wait before the next try. A renewal
        refused FAILED_PRECONDITION means another holder has the worker: not one more ID."""
        with self._lock:
            self.last_error = e
            if e.code == grpc.StatusCode.FAILED_PRECONDITION:
                self._lost = True
            lost, worker, epoch = self._lost, self._worker, self._epoch
        wait = self._lease / 10
        if lost:
            log.warning("numeric worker %d (epoch %d): the lease is lost (%s: %s); no IDs until a new worker is leased, tried in %.1f s",
                        worker, epoch, e.code.name, e.message, wait)
        else:
            log.warning("numeric worker %d (epoch %d): renewing the lease failed (%s: %s); trying again in %.1f s",
                        worker, epoch, e.code.name, e.message, wait)
        return wait

    def _release_failed(self, e: errors.IdnodeError) -> None:
        """Note a release that failed on close: the worker stays leased until its lease lapses."""
        log.warning("numeric worker %d (epoch %d): releasing it on close failed (%s: %s); it stays leased until its lease lapses, in %.0f s at most",
                    self._worker, self._epoch, e.code.name, e.message, self._lease)

    def _release_call(self) -> Optional[Call[None]]:
        with self._lock:
            if self._closed:
                return None
            self._closed = True
            if self._lost:
                return None
            return _calls.release_worker(self._worker, self._epoch)
