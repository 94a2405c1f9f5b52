"""The asyncio client: :class:`Client` over ``grpc.aio``, the same calls, retries and errors
as :class:`idnode.Client`, and generators whose fetches and renewals are tasks.

::

    async with idnode.aio.Client(["127.0.0.1:7070"]) as c:
        print(await c.next_id("orders"))   # orders/1-A

Make it inside a running event loop and use it from that loop's tasks.
"""

from __future__ import annotations

import asyncio
from functools import cached_property
from typing import Any, AsyncIterator, List, Optional, Sequence, Set, Tuple, TypeVar

import grpc
import grpc.aio

from . import _calls, errors
from ._admin import AsyncAdmin
from ._calls import Claim, HiLoRange, Identity, IdentityBlock, Page
from ._core import DEFAULT, Call, check_int, seconds_left
from ._databases import AsyncDatabases
from ._deprecated import AsyncClientForwards
from ._fold_tasks import AsyncFolder
from ._hilo import Fetch, HiLoState, MultiState, fetch_error
from ._numeric import Layout, NumericState
from ._refusal import Refusals
from ._series import AsyncSeries
from ._workers import AsyncWorkers
from .client import MAX_BATCH, ClientBase
from .client import Client as SyncClient
from .v1 import idnode_pb2 as pb

T = TypeVar("T")

__all__ = ["Client", "HiLoGenerator", "NumericGenerator", "AsyncAdmin", "AsyncSeries", "AsyncDatabases", "AsyncWorkers"]


class Client(AsyncClientForwards, ClientBase):
    """The asyncio twin of :class:`idnode.Client` (same arguments, same behaviour); every call
    is a coroutine, and :meth:`next_id` takes no network round trip once a range is at hand."""

    # What ClientBase made for this client, by their types here.
    _fold: AsyncFolder
    _gens: "MultiState[HiLoGenerator]"

    def _channel(self, addr: str, creds: Optional[grpc.ChannelCredentials], opts: Sequence[Tuple[str, Any]], interceptors: Sequence[Any]) -> grpc.aio.Channel:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            # A channel binds to the loop it is made in; one made outside would serve no other.
            raise RuntimeError("make idnode.aio.Client inside a coroutine (in the event loop that will use it)") from None
        if creds:
            return grpc.aio.secure_channel(addr, creds, opts, interceptors=interceptors or None)
        return grpc.aio.insecure_channel(addr, opts, interceptors=interceptors or None)

    def _folder(self) -> AsyncFolder:
        return AsyncFolder(lambda name, n, rid, timeout, refusals: self._run(_calls.next_identity(name, n, rid), timeout, refusals))

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Give back the HiLo numbers not handed out and release numeric workers, then close the
        connections, all within ``timeout``; see :meth:`idnode.Client.close`. Numbers no node
        took back in time are counted in :attr:`gaps` and logged, never raised. Idempotent."""
        deadline = self._close_deadline(timeout)
        if self._closed:
            return
        for g in self._gens.close_all():
            await g.close(seconds_left(deadline))
            self.gaps += g.gaps
        for n in list(self._numerics):
            await n.close(seconds_left(deadline))
        self._closed = True
        for ch in self._channels:
            await ch.close()

    def close_at_exit(self, timeout: float) -> None:
        """At interpreter exit the event loop is gone: give the generators' numbers back and
        release the workers through a synchronous client with the same options."""
        if self._closed:
            return
        returns: List[Call[Any]] = []
        for g in self._gens.close_all():
            returns.extend(g._seal_and_returns())
        for n in self._numerics:
            call = n._release_call()
            if call is not None:
                returns.append(call)
        self._closed = True
        if not returns:
            return
        # grpc.aio's interceptors do not fit a synchronous channel: these last calls go without.
        with SyncClient(self._opts.nodes, **dict(self._kwargs, interceptors=())) as sync:
            for call in returns:
                sync._run(call, timeout)  # each return is judged on its own: asking costs no number

    @cached_property
    def admin(self) -> AsyncAdmin:
        """The cluster's administration; see :attr:`idnode.Client.admin`."""
        return AsyncAdmin(self)

    @cached_property
    def series(self) -> AsyncSeries:
        """Fiscal series; see :attr:`idnode.Client.series`."""
        return AsyncSeries(self)

    @cached_property
    def databases(self) -> AsyncDatabases:
        """Databases, keys and entities' IDs; see :attr:`idnode.Client.databases`."""
        return AsyncDatabases(self)

    @cached_property
    def workers(self) -> AsyncWorkers:
        """The raw worker leases; see :attr:`idnode.Client.workers`."""
        return AsyncWorkers(self)

    async def _run(self, call: Call[T], timeout: Optional[float] = DEFAULT, refusals: Optional[Refusals] = None) -> T:
        att = self._attempts(call, timeout, refusals)
        while True:
            node, wait, per = att.next()
            if wait:
                await asyncio.sleep(wait)
            rpc = att.method(node)(att.request(), timeout=per, metadata=self._md)
            try:
                resp = await rpc
            except grpc.RpcError as e:
                att.failed(node, e)
                continue
            return att.answer(node, await rpc.initial_metadata(), resp)

    async def _stream(self, call: Call[T], timeout: Optional[float] = DEFAULT) -> AsyncIterator[T]:
        att = self._attempts(call, timeout)
        while True:
            node, wait, per = att.next()
            if wait:
                await asyncio.sleep(wait)
            try:
                async for item in att.method(node)(att.request(), timeout=per, metadata=self._md):
                    yield att.seen(item)
                return
            except grpc.RpcError as e:
                att.failed(node, e)

    # IdService

    async def generate(
        self, id: str = "", count: int = 1, *, guid_version: Optional[str] = None, request_id: Optional[str] = None,
        claim: bool = False, owner: str = "", numeric: bool = False, timeout: Optional[float] = DEFAULT,
    ) -> List[str]:
        """Resolve a request string; see :meth:`idnode.Client.generate`."""
        return await self._run(_calls.generate(id, count, guid_version, request_id, claim, owner, numeric), timeout)

    async def next_identity(self, name: str, count: int = 1, *, request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> IdentityBlock:
        """Reserve ``count`` values of the identity counter ``name``; see
        :meth:`idnode.Client.next_identity` (folding included)."""
        if self._folds(name, count, request_id):
            return await self._fold.next_identity(name, self._timeout(timeout))
        return await self._run(_calls.next_identity(name, count, request_id), timeout)

    async def seed_identity(self, name: str, value: int, *, force: bool = False, timeout: Optional[float] = DEFAULT) -> int:
        """Raise (with ``force``, set) the identity counter ``name``; returns it afterwards."""
        return await self._run(_calls.seed_identity(name, value, force), timeout)

    async def list_identities(self, prefix: str = "", *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> Page[Identity]:
        """One page of identity counters whose names start with ``prefix`` (linearizable)."""
        return await self._run(_calls.list_identities(prefix, page_size, page_token), timeout)

    async def claim(self, ids: Sequence[str], *, owner: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> None:
        """Claim semantic IDs cluster-wide, all or nothing; see :meth:`idnode.Client.claim`."""
        await self._run(_calls.claim(ids, owner, request_id), timeout)

    async def release(self, ids: Sequence[str], *, owner: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> int:
        """Release claimed IDs; returns how many were claimed. A retry after a lost answer
        carries the call's ``request_id`` (one of the client's when not given), so it answers
        the first attempt's count (from cluster version 8; before, it may answer 0)."""
        return await self._run(_calls.release(ids, owner, request_id), timeout)

    async def get_claims(self, ids: Sequence[str] = (), *, prefix: str = "", page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> Page[Claim]:
        """Look claims up by ID, or page through the claims starting with ``prefix``."""
        return await self._run(_calls.get_claims(ids, prefix, page_size, page_token), timeout)

    async def next_hilo(
        self, tag: str, *, last_batch_size: int = 0, last_range_at: int = 0, last_max: int = 0,
        request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT,
    ) -> HiLoRange:
        """Reserve a HiLo range (the raw call behind :meth:`next_id`)."""
        return await self._run(_calls.next_hilo(tag, last_batch_size, last_range_at, last_max, self._hilo_separator, request_id), timeout)

    async def return_hilo(
        self, tag: str, end: int, last: int, grant_id: str, *, granted_by: str = "",
        request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT,
    ) -> bool:
        """Give back the unused numbers ``last+1..end`` of a range; see
        :meth:`idnode.Client.return_hilo`."""
        return await self._run(_calls.return_hilo(tag, end, last, grant_id, granted_by, request_id), timeout)

    async def seed_hilo(self, tag: str, max: int, *, timeout: Optional[float] = DEFAULT) -> int:
        """Raise a tag's HiLo Max (never lowers it); returns the Max afterwards."""
        return await self._run(_calls.seed_hilo(tag, max), timeout)

    async def list_hilo(self, prefix: str = "", *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> pb.ListHiLoResponse:
        """One page of HiLo tags with their Max and the nodes' pools."""
        return await self._run(_calls.list_hilo(prefix, page_size, page_token), timeout)

    async def explain(self, id: str, *, database: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.ExplainResponse:
        """What an ID is; see :meth:`idnode.Client.explain`."""
        return await self._run(_calls.explain(id, database), timeout)

    async def identities(self, prefix: str = "", *, page_size: int = 0) -> AsyncIterator[Identity]:
        """Every identity counter whose name starts with ``prefix``, page after page."""
        token: Optional[str] = ""
        while token is not None:
            page = await self.list_identities(prefix, page_size=page_size, page_token=token)
            for item in page.items:
                yield item
            token = page.after(token)

    # Generators

    async def next_id(self, tag: str, *, timeout: Optional[float] = DEFAULT) -> str:
        """A HiLo ID of ``tag`` from the tag's generator, made on first use; see
        :meth:`idnode.Client.next_id`."""
        return await self._gens.get(tag).next_id(timeout)

    async def next_ids(self, tag: str, n: int, *, timeout: Optional[float] = DEFAULT) -> List[str]:
        """``n`` HiLo IDs of ``tag`` in one take; see :meth:`idnode.Client.next_ids`."""
        return await self._gens.get(tag).next_ids(n, timeout)

    async def next_numbers(self, tag: str, n: int, *, timeout: Optional[float] = DEFAULT) -> List[int]:
        """The numbers of ``n`` HiLo IDs of ``tag``; see :meth:`idnode.Client.next_numbers`."""
        return await self._gens.get(tag).next_numbers(n, timeout)

    def hilo_generator(self, tag: str, *, node_tag: bool = True, server_prefix: Optional[str] = None) -> "HiLoGenerator":
        """A new HiLo generator of ``tag``; see :meth:`idnode.Client.hilo_generator`."""
        return self._gens.made(HiLoGenerator(self, tag, node_tag=node_tag, server_prefix=server_prefix))

    async def numeric_generator(self, *, layout: Optional[Layout] = None, holder: str = "python-client", lease: float = 30.0, margin: Optional[float] = None) -> "NumericGenerator":
        """A numeric-ID generator on a worker leased from the cluster."""
        g = NumericGenerator(self, layout=layout, holder=holder, lease=lease, margin=margin)
        await g._start()
        self._numerics.append(g)
        return g


class HiLoGenerator(HiLoState):
    """HiLo IDs of one tag for any number of tasks; fetches run as tasks of the loop. See
    :class:`idnode.HiLoGenerator`."""

    def __init__(self, client: Client, tag: str, *, node_tag: bool = True, server_prefix: Optional[str] = None) -> None:
        opts = client._opts
        super().__init__(tag, opts.separator, opts.prefetch_at, node_tag, server_prefix)
        self._client = client
        self._tasks: Set["asyncio.Task[None]"] = set()

    async def next_id(self, timeout: Optional[float] = DEFAULT) -> str:
        """The next ID; awaits only when no range is at hand."""
        id = self._take(self._cur)
        if id is not None:
            return id
        out: List[str] = await self._next_many(1, False, timeout)
        return out[0]

    async def next_ids(self, n: int, timeout: Optional[float] = DEFAULT) -> List[str]:
        """The next ``n`` IDs in one take; see :meth:`idnode.HiLoGenerator.next_ids`."""
        return await self._next_many(check_int("n", n, lo=1, hi=MAX_BATCH), False, timeout)

    async def next_numbers(self, n: int, timeout: Optional[float] = DEFAULT) -> List[int]:
        """The numbers of the next ``n`` IDs; see :meth:`idnode.HiLoGenerator.next_numbers`."""
        return await self._next_many(check_int("n", n, lo=1, hi=MAX_BATCH), True, timeout)

    async def _next_many(self, n: int, numbers: bool, timeout: Optional[float]) -> List[Any]:
        out: List[Any] = []
        self._take_into(self._cur, n, out, numbers)
        if len(out) == n:
            return out
        t = self._client._timeout(timeout)
        loop = asyncio.get_running_loop()
        deadline = None if t is None else loop.time() + t
        since = 0
        while True:
            seen = self._cur
            self._take_into(seen, n, out, numbers)
            if len(out) == n:
                return out
            with self._lock:
                since = since or self.next_fetch
                f = self._advance_locked(seen)
            if f is None:
                continue
            left = None if deadline is None else deadline - loop.time()
            try:
                await asyncio.wait_for(f.done.wait(), left)
            except asyncio.TimeoutError:
                late = self._late(f)
                late.__suppress_context__ = True  # the wait's own timeout says nothing more
                raise late
            if f.error is not None and f.seq >= since:
                raise f.error

    def _new_done(self) -> asyncio.Event:
        return asyncio.Event()

    def _spawn(self, f: Fetch, call: Call[HiLoRange]) -> None:
        task = asyncio.get_running_loop().create_task(self._run_fetch(f, call))
        self._tasks.add(task)  # the loop holds tasks weakly
        task.add_done_callback(self._tasks.discard)

    async def _run_fetch(self, f: Fetch, call: Call[HiLoRange]) -> None:
        result = None
        error: Optional[errors.IdnodeError] = None
        try:
            result = await self._client._run(call, self._client._opts.fetch_timeout, f.refusals)
        except asyncio.CancelledError:
            error = errors.Cancelled(f"the fetch of a HiLo range of {self.tag!r} was cancelled")
            raise
        except Exception as e:
            error = fetch_error(self.tag, e)
        finally:
            self._finish(f, result, error)
            f.done.set()

    async def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Stop, and give back every number not handed out, within ``timeout``; see
        :meth:`idnode.HiLoGenerator.close`. A fetch in flight is waited for until then, then
        cancelled."""
        deadline = self._client._close_deadline(timeout)
        with self._lock:
            if self.closed:
                return
            cur, used, f = self._seal_locked()
        if f is not None:
            try:
                await asyncio.wait_for(asyncio.shield(f.done.wait()), seconds_left(deadline))
            except asyncio.TimeoutError:
                # Cancel the fetch, as the Go generator does: once closed nothing will use its
                # range (a range the cluster reserves anyway stays a gap), and a caller waiting
                # for it gets its end now rather than when its own deadline passes.
                fetches = list(self._tasks)
                for task in fetches:
                    task.cancel()
                await asyncio.gather(*fetches, return_exceptions=True)
        give = self._giving_back(cur, used)
        while (call := give.next()) is not None:
            try:
                give.answered(await self._client._run(call, seconds_left(deadline)))
            except errors.IdnodeError as e:
                give.failed(e)

    def _seal_and_returns(self) -> List[Call[bool]]:
        """Close without the loop (interpreter exit): a fetch in flight is abandoned."""
        with self._lock:
            if self.closed:
                return []
            cur, used, _ = self._seal_locked()
        return self._returns(cur, used)


class NumericGenerator(NumericState):
    """Numeric IDs minted with no network call under a leased worker, renewed by a task. See
    :class:`idnode.NumericGenerator`."""

    def __init__(self, client: Client, *, layout: Optional[Layout], holder: str, lease: float, margin: Optional[float]) -> None:
        super().__init__(layout, holder, lease, margin)
        self._client = client
        self._task: Optional["asyncio.Task[None]"] = None

    async def _start(self) -> None:
        self._grant(await self._client._run(self._acquire_call()))
        self._task = asyncio.get_running_loop().create_task(self._renew_loop())

    async def _renew_loop(self) -> None:
        wait = self._renew_every
        while True:
            await asyncio.sleep(wait)
            try:
                self._grant(await self._client._run(self._renew_call(), self._renew_every))
                wait = self._renew_every
            except errors.IdnodeError as e:
                wait = self._renewal_failed(e)

    async def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Stop renewing and release the worker, within ``timeout``; see
        :meth:`idnode.NumericGenerator.close`. Idempotent."""
        deadline = self._client._close_deadline(timeout)
        if self._task is not None:
            self._task.cancel()
        call = self._release_call()
        if call is not None:
            try:
                await self._client._run(call, seconds_left(deadline))
            except errors.IdnodeError as e:
                self._release_failed(e)
