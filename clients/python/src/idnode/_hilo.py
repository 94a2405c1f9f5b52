"""The HiLo generator's state, shared by the threaded and the asyncio generator: the ranges,
the never-locking hot path, what the next request carries, and what Close gives back. The two
generators add only how a fetch runs in the background and how a caller waits for it."""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable, Generic, List, Optional, Tuple, TypeVar

import grpc

from . import _calls, errors
from ._calls import HiLoRange
from ._core import Call, hilo_tag_error, log, new_request_id
from ._refusal import Refusals

# Refusals that mean nothing was reserved under the request id: the next fetch takes a new one.
# Any other failure may have reserved a range whose answer was lost, so the next fetch asks
# again with the same request id and gets that range.
_DEFINITE = frozenset({
    grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.OUT_OF_RANGE,
    grpc.StatusCode.PERMISSION_DENIED, grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.UNIMPLEMENTED,
    grpc.StatusCode.NOT_FOUND,
})


class _Span:
    """One reserved range callers take numbers from. ``taken`` is an itertools.count: ``next``
    on it is one C call, atomic under the GIL, so taker k (1-based) owns number ``base + k``
    without a lock. ``limit`` is the size until Close seals the span by setting it to 0."""

    __slots__ = ("taken", "limit", "size", "low", "high", "base", "trigger", "prefix", "suffix", "grant", "granted_by")

    def __init__(self, r: HiLoRange, prefix: str, suffix: str, prefetch_at: float) -> None:
        self.taken = itertools.count(1)
        self.low, self.high = r.low, r.high
        self.size = self.limit = r.high - r.low + 1
        self.base = r.low - 1
        self.trigger = min(max(int(self.size * prefetch_at), 1), self.size)
        self.prefix, self.suffix, self.grant, self.granted_by = prefix, suffix, r.grant_id, r.granted_by


class Fetch:
    """One NextHiLo call in flight; ``done`` is set once ``error`` and the state are final.
    ``refusals`` are what its attempts met so far, for a caller whose deadline passes first."""

    def __init__(self, seq: int, done: Any) -> None:
        self.seq = seq
        self.done = done
        self.error: Optional[errors.IdnodeError] = None
        self.refusals = Refusals()


def fetch_error(tag: str, e: Exception) -> errors.IdnodeError:
    """What a fetch that raised e reports to its callers: e itself when it is an IdnodeError,
    else an Unknown error caused by e. Whatever a fetch raises ends it, so that the next caller
    fetches again rather than waiting for a fetch that will never finish."""
    if isinstance(e, errors.IdnodeError):
        return e
    err = errors.make_error(grpc.StatusCode.UNKNOWN, f"fetching a HiLo range of {tag!r} failed: {e!r}")
    err.__cause__ = e
    return err


class HiLoState:
    """A generator for one tag, without the waiting. Subclasses give :meth:`_spawn` (run a fetch
    in the background and call :meth:`_finish` with its outcome) and :meth:`_new_done` (the
    event a waiting caller blocks on)."""

    def __init__(self, tag: str, separator: str, prefetch_at: float, node_tag: bool, server_prefix: Optional[str]) -> None:
        err = hilo_tag_error(tag, separator)
        if err is not None:
            raise err
        if server_prefix is not None:
            if not server_prefix or separator in server_prefix or any(c.isspace() for c in server_prefix):
                raise errors.make_error(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"hilo server prefix {server_prefix!r} must be one word, without the separator {separator!r} or whitespace",
                    "INVALID_INPUT",
                )
        self.tag = tag
        self._separator = separator
        self._prefetch_at = prefetch_at
        self._node_tag = node_tag
        self._server_prefix = server_prefix
        self._lock = threading.Lock()
        self._cur: Optional[_Span] = None
        self._next: Optional[_Span] = None
        self._fetch: Optional[Fetch] = None
        self._fetch_seq = 0
        self._pending: Optional[Call[HiLoRange]] = None
        self._last_size = self._last_at = self._last_max = 0
        self.closed = False
        self.fetches = 0
        self.returned: List[Tuple[int, int]] = []  # (last, end) of each range Close gave back
        self.gaps = 0
        """How many numbers Close did not give back (no node took them in time, or the cluster
        refused them): they stay gaps in the tag's IDs, and each is logged."""
        self._adjacent = False  # the prefetched range Close returns sits right above the current one

    # The hot path: no lock, one atomic increment and an f-string. The caller passes the span it
    # read, so that when it comes back empty-handed the slow path knows which span ran out.
    def _take(self, s: Optional[_Span]) -> Optional[str]:
        if s is not None:
            k = next(s.taken)
            if k <= s.limit:  # read after the increment: see _seal_locked
                if k == s.trigger:
                    self._prefetch(s)
                return f"{s.prefix}{s.base + k}{s.suffix}"
        return None

    # The batch path: ``islice`` draws the numbers in one C loop, which no other thread can
    # interleave with under the GIL, so one batch's numbers are consecutive within a span. The
    # limit is read after the draws, as ``_take`` reads it after its increment.
    def _take_into(self, s: Optional[_Span], n: int, out: List[Any], numbers: bool) -> None:
        """Append up to n - len(out) numbers of span s to out: ints when ``numbers``, else IDs."""
        if s is None:
            return
        ks = list(itertools.islice(s.taken, n - len(out)))
        limit = s.limit
        ks = [k for k in ks if k <= limit]
        if not ks:
            return
        if ks[0] <= s.trigger <= ks[-1]:
            self._prefetch(s)
        if numbers:
            out.extend(range(s.base + ks[0], s.base + ks[-1] + 1))
        else:
            out.extend(f"{s.prefix}{s.base + k}{s.suffix}" for k in ks)

    def _late(self, f: Fetch) -> errors.DeadlineExceeded:
        """The error of a caller whose deadline passed while it waited for fetch ``f``."""
        return f.refusals.late(f"no HiLo range of {self.tag!r} arrived in time")

    def _prefetch(self, s: _Span) -> None:
        with self._lock:
            if not self.closed and self._next is None and self._fetch is None and self._cur is s:
                self._start_locked()

    def _advance_locked(self, seen: Optional[_Span]) -> Optional[Fetch]:
        """For a caller that found ``seen`` used up: move to the prefetched range and return
        None (take again), or return the fetch to wait for, starting one if none runs.

        A caller raises the error of a fetch only when that fetch started after the caller
        first came here (numbered :attr:`next_fetch` then, or later). When one that began
        before fails (a prefetch, say), the caller tries again: that error was no answer to
        it."""
        if self.closed:
            raise errors.ClientClosed(f"the HiLo generator of {self.tag!r}")
        if self._cur is not seen:
            return None  # another caller moved on already
        if self._next is not None:
            self._cur, self._next = self._next, None
            return None
        return self._fetch or self._start_locked()

    @property
    def next_fetch(self) -> int:
        """The number the next fetch to start will have."""
        return self._fetch_seq + 1

    def _start_locked(self) -> Fetch:
        self._fetch_seq += 1
        f = Fetch(self._fetch_seq, self._new_done())
        self._fetch = f
        if self._pending is None:
            self._pending = _calls.next_hilo(self.tag, self._last_size, self._last_at, self._last_max, self._wire_separator(), new_request_id())
        self._spawn(f, self._pending)
        return f

    def _wire_separator(self) -> str:
        return "" if self._separator == "/" else self._separator

    def _finish(self, f: Fetch, result: Optional[HiLoRange], error: Optional[errors.IdnodeError]) -> None:
        """Install a fetch's outcome; the subclass then wakes the waiters of ``f.done``."""
        with self._lock:
            self._fetch = None
            if result is not None:
                try:
                    span = self._span(result)
                except errors.IdnodeError as e:
                    result, error = None, e
            if result is None:
                assert error is not None
                if error.code in _DEFINITE:
                    self._pending = None
                f.error = error
                return
            self._pending = None
            self.fetches += 1
            self._last_size, self._last_at, self._last_max = span.size, result.last_range_at, span.high
            # A caller that finds the current range used up moves to the next one itself;
            # after Close the range is kept as next, for Close to give back.
            if self._cur is None and not self.closed:
                self._cur = span
            else:
                self._next = span

    def _span(self, r: HiLoRange) -> _Span:
        # Ranges of one tag never overlap. A range may lie below the previous one (a node cut off
        # from the majority grants from its pool below last_max), never on it: refuse an answer
        # that would print a number twice.
        overlaps = r.low <= self._last_max and r.high > self._last_max - self._last_size
        if r.low < 1 or r.high < r.low or overlaps or not r.prefix or not r.server_tag:
            raise errors.make_error(
                grpc.StatusCode.INTERNAL,
                f"the cluster answered HiLo {self.tag!r} with an invalid range [{r.low}, {r.high}] "
                f"(previous [{self._last_max - self._last_size + 1}, {self._last_max}])",
                "BAD_RANGE",
            )
        prefix = r.prefix
        if self._server_prefix is not None:
            prefix += self._server_prefix + self._separator
        suffix = f"-{r.server_tag}" if self._node_tag else ""
        return _Span(r, prefix, suffix, self._prefetch_at)

    def _seal_locked(self) -> Tuple[Optional[_Span], int, Optional[Fetch]]:
        """Close, first half: no number is handed out after this. Setting ``limit`` to 0 before
        drawing makes every taker that draws later fail its check, so the numbers drawn before
        this draw are at most what was handed out: what Close returns was never handed out."""
        self.closed = True
        cur = self._cur
        used = 0
        if cur is not None:
            cur.limit = 0
            used = min(next(cur.taken) - 1, cur.size)
        return cur, used, self._fetch

    def _returns(self, cur: Optional[_Span], used: int) -> List[Call[bool]]:
        """Close, second half: the returns to make, newest first, each to the node that granted
        the range. The tail of the current range is asked for also when the prefetched range
        did not come back, unless that range sits right above it (see :meth:`_go_on`): under
        HiLo pools the two may come from different nodes' pools, and the cluster judges each
        return, so asking costs a call, never a number."""
        with self._lock:
            nxt, self._next = self._next, None
        calls = []
        if nxt is not None:
            calls.append(_calls.return_hilo(self.tag, nxt.high, nxt.low - 1, nxt.grant, nxt.granted_by))
            self._adjacent = cur is not None and nxt.low == cur.high + 1
        if cur is not None and used < cur.size:
            calls.append(_calls.return_hilo(self.tag, cur.high, cur.low + used - 1, cur.grant, cur.granted_by))
        return calls

    def _go_on(self, call: Call[bool], returned: bool) -> bool:
        """Note a return's answer; False when the returns left cannot come back: the range
        right above the tail stays, so the tail below it stays too."""
        if returned:
            self.returned.append((call.request.last, call.request.end))
            return True
        self.gaps += call.request.end - call.request.last
        log.warning("HiLo %r: the cluster did not take back the numbers %d..%d (another range of the tag was granted since); they stay a gap",
                    self.tag, call.request.last + 1, call.request.end)
        return not self._adjacent

    def _kept(self, calls: List[Call[bool]], why: str) -> None:
        """Note the returns Close did not make or that failed, with why: their numbers stay
        gaps. Close never raises for them; the cluster is not harmed by a gap."""
        for call in calls:
            self.gaps += call.request.end - call.request.last
            log.warning("HiLo %r: the numbers %d..%d were not given back (%s); they stay a gap",
                        self.tag, call.request.last + 1, call.request.end, why)

    def _giving_back(self, cur: Optional[_Span], used: int) -> "GiveBack":
        """Close's returns (see :meth:`_returns`), for a close to make one at a time."""
        return GiveBack(self, self._returns(cur, used))

    def _new_done(self) -> Any:
        raise NotImplementedError

    def _spawn(self, f: Fetch, call: Call[HiLoRange]) -> None:
        raise NotImplementedError


class GiveBack:
    """The returns of a close, made in turn by the client's close loop::

        while (call := give.next()) is not None:
            try: give.answered(run(call))
            except IdnodeError as e: give.failed(e)

    A return the cluster refuses, or a refusal of the range right above, ends the returns: the
    numbers left stay gaps, noted on the generator."""

    def __init__(self, state: HiLoState, calls: List[Call[bool]]) -> None:
        self.state = state
        self.calls = calls
        self.i = 0

    def next(self) -> Optional[Call[bool]]:
        return self.calls[self.i] if self.i < len(self.calls) else None

    def answered(self, returned: bool) -> None:
        call = self.calls[self.i]
        self.i += 1
        if not self.state._go_on(call, returned):
            self.state._kept(self.calls[self.i:], "the range right above them stayed")
            self.i = len(self.calls)

    def failed(self, err: errors.IdnodeError) -> None:
        self.state._kept(self.calls[self.i:], str(err))
        self.i = len(self.calls)


G = TypeVar("G")


class MultiState(Generic[G]):
    """Generators per tag, made on first use, and every generator a client made (held weakly),
    for the client's close. Looking up a known tag takes no lock: a dict read is atomic under
    the GIL."""

    def __init__(self, make: Callable[[str], G]) -> None:
        self._make = make
        self._gens: dict[str, G] = {}
        self._made: "weakref.WeakSet[Any]" = weakref.WeakSet()
        self._lock = threading.RLock()  # get's make notes the new generator through made
        self.closed = False

    def get(self, tag: str) -> G:
        g = self._gens.get(tag)
        if g is not None:
            return g
        with self._lock:
            if self.closed:
                raise errors.ClientClosed()
            g = self._gens.get(tag)
            if g is None:
                g = self._gens[tag] = self._make(tag)
            return g

    def made(self, g: G) -> G:
        """Note a generator the client made, so that closing the client closes it."""
        with self._lock:
            if self.closed:
                raise errors.ClientClosed()
            self._made.add(g)
        return g

    def close_all(self) -> List[Any]:
        """Every generator still open; none is made after this."""
        with self._lock:
            self.closed = True
            return [g for g in list(self._made) if not g.closed]
