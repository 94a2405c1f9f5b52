"""The synchronous client: :class:`Client`, its HiLo generator and its numeric generator."""

from __future__ import annotations

import threading
import time
from functools import cached_property
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, TypeVar

import grpc

from . import _calls, _exit, errors
from ._admin import Admin
from ._calls import Claim, HiLoRange, Identity, IdentityBlock, Page
from ._core import DEFAULT, Attempts, Backoff, Call, Nodes, Options, TLS, check_int, check_seconds, seconds_left
from ._databases import Databases
from ._deprecated import ClientForwards
from ._fold_threads import SyncFolder
from ._hilo import Fetch, HiLoState, MultiState, fetch_error
from ._numeric import Layout, NumericState
from ._refusal import Refusals
from ._series import Series
from ._workers import Workers
from .v1 import idnode_pb2 as pb
from .v1 import idnode_pb2_grpc as pb_grpc

T = TypeVar("T")

MAX_BATCH = 1_000_000
"""The most IDs one batch take hands out: a caller's mistake must not drain a tag's ranges."""


class ClientBase:
    """What the synchronous and the asyncio client share: options, nodes, connections' stubs."""

    hilo_generator: Callable[..., Any]  # each client's own, which the per-tag generators come from

    def __init__(
        self,
        nodes: Sequence[str] | str,
        *,
        database: Optional[str] = None,
        api_key: Optional[str] = None,
        admin_token: Optional[str] = None,
        tls: "TLS | bool | None" = None,
        attempt_timeout: float = 3.0,
        timeout: Optional[float] = 30.0,
        backoff: Backoff = Backoff(),
        separator: str = "/",
        nodes_in_order: bool = False,
        prefetch_at: float = 0.8,
        fetch_timeout: float = 30.0,
        channel_options: Sequence[Tuple[str, Any]] = (),
        interceptors: Sequence[Any] = (),
        region: Optional[str] = None,
        node_regions: Optional[Mapping[str, str]] = None,
        close_timeout: float = 2.0,
    ) -> None:
        self._kwargs: Dict[str, Any] = dict(
            database=database, api_key=api_key, admin_token=admin_token, tls=tls,
            attempt_timeout=attempt_timeout, timeout=timeout, backoff=backoff, separator=separator,
            nodes_in_order=nodes_in_order, prefetch_at=prefetch_at, fetch_timeout=fetch_timeout,
            channel_options=channel_options, interceptors=interceptors, region=region, node_regions=node_regions,
            close_timeout=close_timeout,
        )
        self._opts = Options.make(nodes, **self._kwargs)
        self._nodes = Nodes(self._opts.nodes, nodes_in_order, self._opts.local_nodes())
        self._md = self._opts.metadata()
        self._channels = [
            self._channel(a, self._opts.channel_credentials(), self._opts.grpc_options(), self._opts.interceptors)
            for a in self._opts.nodes
        ]
        # grpc_python_plugin writes the stubs without type hints.
        self._stubs: List[Dict[str, Any]] = [
            {
                "ids": pb_grpc.IdServiceStub(ch),  # type: ignore[no-untyped-call]
                "series": pb_grpc.SeriesServiceStub(ch),  # type: ignore[no-untyped-call]
                "cluster": pb_grpc.ClusterServiceStub(ch),  # type: ignore[no-untyped-call]
            }
            for ch in self._channels
        ]
        self._closed = False
        self.gaps = 0
        """How many HiLo numbers closing the client did not give back: no node took them within
        ``close_timeout``, or the cluster refused them. They stay gaps in their tags' IDs;
        close logs each range and raises nothing for them."""
        # One close of the synchronous client at a time; a lock of its own, as a close waits on
        # the network and must not hold up another client's.
        self._close_lock = threading.Lock()
        self._gens = MultiState(self.hilo_generator)
        self._numerics: List[Any] = []
        self._fold = self._folder()
        _exit.register(self)

    def _folder(self) -> Any:
        raise NotImplementedError

    def _channel(self, addr: str, creds: Optional[grpc.ChannelCredentials], opts: Sequence[Tuple[str, Any]], interceptors: Sequence[Any]) -> Any:
        raise NotImplementedError

    @property
    def nodes(self) -> tuple[str, ...]:
        """The node addresses the client was made with."""
        return self._opts.nodes

    def _attempts(self, call: Call[T], timeout: Optional[float], refusals: Optional[Refusals] = None) -> Attempts[T]:
        """The attempts of one call on this client's nodes, or ClientClosed."""
        if self._closed:
            raise errors.ClientClosed()
        return Attempts(self._nodes, self._opts, call, self._timeout(timeout), refusals=refusals, stubs=self._stubs)

    def _folds(self, name: object, count: object, request_id: Optional[str]) -> bool:
        """Whether a call for identities joins the fold: one value, no request id of the
        caller's (see the README: folding). A closed client folds nothing."""
        if request_id is None and type(count) is int and count == 1 and isinstance(name, str):
            if self._closed:
                raise errors.ClientClosed()
            return True
        return False

    @property
    def _hilo_separator(self) -> str:
        """The separator a HiLo range call names: none for the default '/'."""
        return "" if self._opts.separator == "/" else self._opts.separator

    def _timeout(self, timeout: Optional[float]) -> Optional[float]:
        if timeout is DEFAULT:
            return self._opts.timeout
        return check_seconds("timeout", timeout, allow_none=True)

    def _close_deadline(self, timeout: Optional[float]) -> Optional[float]:
        """When a close given ``timeout`` (default: the client's close_timeout) must be done by,
        on the monotonic clock; None: no bound."""
        if timeout is DEFAULT:
            timeout = self._opts.close_timeout
        timeout = check_seconds("timeout", timeout, allow_none=True, hi=3600)
        return None if timeout is None else time.monotonic() + timeout


class Client(ClientForwards, ClientBase):
    """A client of an idnode cluster, through any of its nodes; safe for any number of threads.

    ::

        with idnode.Client(["127.0.0.1:7070", "127.0.0.1:7071"]) as c:
            c.next_id("orders")          # 'orders/1-A': HiLo, no round trip per ID
            c.generate("invoices|")      # ['invoices/1']: any request string

    A call that fails with UNAVAILABLE (no leader or quorum, node down), NODE_BUSY, or runs past
    ``attempt_timeout`` is tried on the next node at once; once every node failed it, the next
    round waits a backoff (25 ms doubling to 1 s, ±20%), until ``timeout`` (seconds, for the
    whole call, retries included; per call too). Calls that reserve values carry a request id
    that every retry reuses, so a retry never burns or repeats values. Identities, HiLo ranges,
    claims and seeds go to the node last named as leader first. Refusals raise
    :class:`idnode.IdnodeError` subclasses carrying the code, the reason and its metadata.

    ``region`` is the client's own region and ``node_regions`` maps each node address to its
    region (the nodes' ``--region``; a node left out is in another region). Given them, the
    calls any node answers (server-side IDs, GUIDs, semantic IDs, HiLo ranges, Explain, Status)
    go to a node of the client's region first, then to its other local nodes, and to nodes of
    other regions only when none of the local ones answers; identities, claims and series
    still go to the leader, wherever it is.

    The client makes IDs itself; the other calls are in its parts: :attr:`admin` (the
    cluster's administration), :attr:`series` (fiscal series), :attr:`databases` (databases,
    keys, entities' IDs) and :attr:`workers` (worker leases).

    ``database`` makes every call work in that database; ``api_key`` (or ``admin_token``) is
    sent as ``authorization: Bearer``; ``tls`` is True (system roots) or an :class:`idnode.TLS`.
    ``interceptors`` are gRPC client interceptors (``grpc.UnaryUnaryClientInterceptor`` and
    the other three kinds; for :class:`idnode.aio.Client`, ``grpc.aio``'s) applied to every
    attempt of every call, retries included.
    """

    # What ClientBase made for this client, by their types here.
    _fold: SyncFolder
    _gens: "MultiState[HiLoGenerator]"

    def _channel(self, addr: str, creds: Optional[grpc.ChannelCredentials], opts: Sequence[Tuple[str, Any]], interceptors: Sequence[Any]) -> grpc.Channel:
        ch = grpc.secure_channel(addr, creds, opts) if creds else grpc.insecure_channel(addr, opts)
        return grpc.intercept_channel(ch, *interceptors) if interceptors else ch

    def _folder(self) -> SyncFolder:
        return SyncFolder(lambda name, n, rid, timeout, refusals: self._run(_calls.next_identity(name, n, rid), timeout, refusals))

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Give back the HiLo numbers not handed out and release numeric workers, then close the
        connections; all within ``timeout`` seconds (default the client's ``close_timeout``,
        2 s; None: as long as it takes). Numbers that no node took back in time stay gaps:
        counted in :attr:`gaps` and logged to the ``idnode`` logger, never raised, so leaving a
        ``with`` block never fails for them. Idempotent."""
        deadline = self._close_deadline(timeout)
        with self._close_lock:
            if self._closed:
                return
            for g in self._gens.close_all():
                g.close(seconds_left(deadline))
                self.gaps += g.gaps
            for n in list(self._numerics):
                n.close(seconds_left(deadline))
            self._closed = True
            for ch in self._channels:
                ch.close()

    @cached_property
    def admin(self) -> Admin:
        """The cluster's administration: members, leadership, backup and restore, the cluster
        version, releasing an owner's claims, status and credentials."""
        return Admin(self)

    @cached_property
    def series(self) -> Series:
        """Fiscal series: create, list, issue, void, verify, the journal."""
        return Series(self)

    @cached_property
    def databases(self) -> Databases:
        """Databases, their opaque setting and API keys, and assigning an entity its ID."""
        return Databases(self)

    @cached_property
    def workers(self) -> Workers:
        """The raw worker leases behind numeric IDs."""
        return Workers(self)

    # The two places a call is sent: a unary call or one that streams requests, and one that
    # streams answers; every method builds its Call in _calls.
    def _run(self, call: Call[T], timeout: Optional[float] = DEFAULT, refusals: Optional[Refusals] = None) -> T:
        att = self._attempts(call, timeout, refusals)
        while True:
            node, wait, per = att.next()
            if wait:
                time.sleep(wait)
            try:
                resp, rpc = att.method(node).with_call(att.request(), timeout=per, metadata=self._md)
            except grpc.RpcError as e:
                att.failed(node, e)
                continue
            except ValueError as e:  # the channel was closed under the call
                raise errors.ClientClosed() from e
            return att.answer(node, rpc.initial_metadata(), resp)

    def _stream(self, call: Call[T], timeout: Optional[float] = DEFAULT) -> Iterator[T]:
        att = self._attempts(call, timeout)
        while True:
            node, wait, per = att.next()
            if wait:
                time.sleep(wait)
            try:
                for item in att.method(node)(att.request(), timeout=per, metadata=self._md):
                    yield att.seen(item)
                return
            except grpc.RpcError as e:
                att.failed(node, e)

    # IdService

    def generate(
        self, id: str = "", count: int = 1, *, guid_version: Optional[str] = None, request_id: Optional[str] = None,
        claim: bool = False, owner: str = "", numeric: bool = False, timeout: Optional[float] = DEFAULT,
    ) -> List[str]:
        """Resolve a request string: a semantic ID is validated and echoed, ``""`` gives UUIDs
        (``guid_version`` 'v7', the default, or 'v4'), ``"prefix/"`` server-side IDs,
        ``"prefix|"`` cluster identities (retries reuse one request id). ``claim`` claims a
        semantic ID for ``owner`` in the same call; ``numeric`` mints numeric IDs on the node."""
        return self._run(_calls.generate(id, count, guid_version, request_id, claim, owner, numeric), timeout)

    def next_identity(self, name: str, count: int = 1, *, request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> IdentityBlock:
        """Reserve ``count`` values of the identity counter ``name``. Give a ``request_id`` kept
        with the work it numbers to make a call repeated after a crash answer the same values;
        without one the client makes one, which covers its own retries. Concurrent calls for one
        value without a request id share one call to the cluster (see the README: folding)."""
        if self._folds(name, count, request_id):
            return self._fold.next_identity(name, self._timeout(timeout))
        return self._run(_calls.next_identity(name, count, request_id), timeout)

    def seed_identity(self, name: str, value: int, *, force: bool = False, timeout: Optional[float] = DEFAULT) -> int:
        """Raise (with ``force``, set) the identity counter ``name``; returns it afterwards."""
        return self._run(_calls.seed_identity(name, value, force), timeout)

    def list_identities(self, prefix: str = "", *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> Page[Identity]:
        """One page of identity counters whose names start with ``prefix`` (linearizable)."""
        return self._run(_calls.list_identities(prefix, page_size, page_token), timeout)

    def identities(self, prefix: str = "", *, page_size: int = 0) -> Iterator[Identity]:
        """Every identity counter whose name starts with ``prefix``, page after page."""
        token: Optional[str] = ""
        while token is not None:
            page = self.list_identities(prefix, page_size=page_size, page_token=token)
            yield from page.items
            token = page.after(token)

    def claim(self, ids: Sequence[str], *, owner: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> None:
        """Claim semantic IDs cluster-wide, all or nothing; :class:`idnode.AlreadyExists`
        (reason CLAIMED) names an ID someone holds."""
        self._run(_calls.claim(ids, owner, request_id), timeout)

    def release(self, ids: Sequence[str], *, owner: str = "", request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> int:
        """Release claimed IDs; returns how many were claimed. A retry after a lost answer
        carries the call's ``request_id`` (one of the client's when not given), so it answers
        the first attempt's count (from cluster version 8; before, it may answer 0)."""
        return self._run(_calls.release(ids, owner, request_id), timeout)

    def get_claims(self, ids: Sequence[str] = (), *, prefix: str = "", page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> Page[Claim]:
        """Look claims up by ID, or page through the claims starting with ``prefix``."""
        return self._run(_calls.get_claims(ids, prefix, page_size, page_token), timeout)

    def next_hilo(
        self, tag: str, *, last_batch_size: int = 0, last_range_at: int = 0, last_max: int = 0,
        request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT,
    ) -> HiLoRange:
        """Reserve a HiLo range (the raw call behind :meth:`next_id`)."""
        return self._run(_calls.next_hilo(tag, last_batch_size, last_range_at, last_max, self._hilo_separator, request_id), timeout)

    def return_hilo(
        self, tag: str, end: int, last: int, grant_id: str, *, granted_by: str = "",
        request_id: Optional[str] = None, timeout: Optional[float] = DEFAULT,
    ) -> bool:
        """Give back the unused numbers ``last+1..end`` of a range; True when they went back.
        Pass the range's ``granted_by``: with HiLo pools only the granting node takes it back.
        The return carries ``request_id`` (a new one if not given) on every attempt, so a retry
        of a return that took effect answers True as the first attempt did."""
        return self._run(_calls.return_hilo(tag, end, last, grant_id, granted_by, request_id), timeout)

    def seed_hilo(self, tag: str, max: int, *, timeout: Optional[float] = DEFAULT) -> int:
        """Raise a tag's HiLo Max (never lowers it); returns the Max afterwards."""
        return self._run(_calls.seed_hilo(tag, max), timeout)

    def list_hilo(self, prefix: str = "", *, page_size: int = 0, page_token: str = "", timeout: Optional[float] = DEFAULT) -> pb.ListHiLoResponse:
        """One page of HiLo tags with their Max and the nodes' pools."""
        return self._run(_calls.list_hilo(prefix, page_size, page_token), timeout)

    def explain(self, id: str, *, database: Optional[str] = None, timeout: Optional[float] = DEFAULT) -> pb.ExplainResponse:
        """What an ID is: numeric (time, worker, sequence) or which strategy minted a string.
        An opaque form of ``database`` (default: the client's) is ``opaque`` in the answer, its
        value filled for an admin only; a string under an opaque collection that is no form of
        the database raises :class:`idnode.NotOpaqueForm`."""
        return self._run(_calls.explain(id, database), timeout)

    # Generators

    def next_id(self, tag: str, *, timeout: Optional[float] = DEFAULT) -> str:
        """A HiLo ID of ``tag`` (``'orders/17-A'``) from the tag's generator, made on first use.
        It normally takes well under a microsecond; the first call of a tag waits for a range,
        ``timeout`` seconds at most (default the client's)."""
        return self._gens.get(tag).next_id(timeout)

    def next_ids(self, tag: str, n: int, *, timeout: Optional[float] = DEFAULT) -> List[str]:
        """``n`` HiLo IDs of ``tag`` in one take, from the same generator as :meth:`next_id`:
        a batch of rows costs one take, not one per row."""
        return self._gens.get(tag).next_ids(n, timeout)

    def next_numbers(self, tag: str, n: int, *, timeout: Optional[float] = DEFAULT) -> List[int]:
        """The numbers of ``n`` HiLo IDs of ``tag`` (``[17, 18]`` for ``orders/17-A``,
        ``orders/18-A``), for integer keys, from the same generator as :meth:`next_id`."""
        return self._gens.get(tag).next_numbers(n, timeout)

    def hilo_generator(self, tag: str, *, node_tag: bool = True, server_prefix: Optional[str] = None) -> "HiLoGenerator":
        """A new HiLo generator of ``tag`` (close it, or close the client). ``node_tag=False``
        and ``server_prefix`` print RavenDB's legacy formats (``orders/1``,
        ``orders/NorthServer/1-A``). :meth:`next_id` keeps one default generator per tag."""
        return self._gens.made(HiLoGenerator(self, tag, node_tag=node_tag, server_prefix=server_prefix))

    def numeric_generator(self, *, layout: Optional[Layout] = None, holder: str = "python-client", lease: float = 30.0, margin: Optional[float] = None) -> "NumericGenerator":
        """A numeric-ID generator on a worker leased from the cluster (made now; close it, or
        close the client, to give the worker back)."""
        g = NumericGenerator(self, layout=layout, holder=holder, lease=lease, margin=margin)
        self._numerics.append(g)
        return g


class HiLoGenerator(HiLoState):
    """HiLo IDs of one tag for any number of threads, never the same twice. ``next_id`` takes a
    number with one atomic increment and no lock; at 80% of a range the next one is fetched in
    a background thread, so callers wait only on a cold start. :meth:`close` (also at
    interpreter exit) gives back the numbers not handed out with the range's grant id."""

    def __init__(self, client: Client, tag: str, *, node_tag: bool = True, server_prefix: Optional[str] = None) -> None:
        opts = client._opts
        super().__init__(tag, opts.separator, opts.prefetch_at, node_tag, server_prefix)
        self._client = client
        self._cond = threading.Condition(self._lock)
        _exit.register(self)

    def next_id(self, timeout: Optional[float] = DEFAULT) -> str:
        """The next ID. Waits (at most ``timeout`` seconds, default the client's) only when no
        range is at hand: on the first call, or when ranges run out faster than they come."""
        id = self._take(self._cur)
        if id is not None:
            return id
        out: List[str] = self._next_many(1, False, timeout)
        return out[0]

    def next_ids(self, n: int, timeout: Optional[float] = DEFAULT) -> List[str]:
        """The next ``n`` IDs in one take (for a batch of rows): consecutive within a range,
        and from the next range once one runs out. Waits as :meth:`next_id` does."""
        return self._next_many(check_int("n", n, lo=1, hi=MAX_BATCH), False, timeout)

    def next_numbers(self, n: int, timeout: Optional[float] = DEFAULT) -> List[int]:
        """The numbers of the next ``n`` IDs (17 for ``orders/17-A``), for integer keys: unique
        within the tag, as the ranges of one tag never overlap. Waits as :meth:`next_id` does."""
        return self._next_many(check_int("n", n, lo=1, hi=MAX_BATCH), True, timeout)

    def _next_many(self, n: int, numbers: bool, timeout: Optional[float]) -> List[Any]:
        out: List[Any] = []
        self._take_into(self._cur, n, out, numbers)
        if len(out) == n:
            return out
        deadline = None
        t = self._client._timeout(timeout)
        if t is not None:
            deadline = time.monotonic() + t
        since = 0  # fetches numbered from here on started after this call came for a range
        while True:
            seen = self._cur
            self._take_into(seen, n, out, numbers)
            if len(out) == n:
                return out
            with self._cond:
                since = since or self.next_fetch
                f = self._advance_locked(seen)
                if f is None:
                    continue
                while not f.done:
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise self._late(f)
                    self._cond.wait(left)
            if f.error is not None and f.seq >= since:
                raise f.error

    def _new_done(self) -> bool:
        return False

    def _spawn(self, f: Fetch, call: Call[HiLoRange]) -> None:
        threading.Thread(target=self._run_fetch, args=(f, call), name=f"idnode-hilo-{self.tag}", daemon=True).start()

    def _run_fetch(self, f: Fetch, call: Call[HiLoRange]) -> None:
        result, error = None, None
        try:
            result = self._client._run(call, self._client._opts.fetch_timeout, f.refusals)
        except Exception as e:
            error = fetch_error(self.tag, e)
        self._finish(f, result, error)
        with self._cond:
            f.done = True
            self._cond.notify_all()

    def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Stop handing out IDs and give back every number not handed out: the prefetched range
        whole, then the current range's tail, so the tag's next range starts right after the
        last ID handed out (as far as the cluster takes them back: only the newest ranges of
        the tag). Waits for a fetch in flight. All within ``timeout`` seconds (default the
        client's ``close_timeout``; None: as long as it takes); what does not come back in
        time stays a gap, counted in :attr:`gaps` and logged, never raised. Idempotent."""
        deadline = self._client._close_deadline(timeout)
        with self._cond:
            if self.closed:
                return
            cur, used, f = self._seal_locked()
            while f is not None and not f.done:
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    break  # a range it reserves anyway stays a gap
                self._cond.wait(left)
        give = self._giving_back(cur, used)
        while (call := give.next()) is not None:
            try:
                give.answered(self._client._run(call, seconds_left(deadline)))
            except errors.IdnodeError as e:
                give.failed(e)


class NumericGenerator(NumericState):
    """Numeric IDs (time | worker | sequence) minted in-process with no network call, under a
    worker leased from the cluster and renewed in a background thread at a third of the lease.
    Minting stops ``margin`` (default a tenth of the lease) before the lease could lapse."""

    def __init__(self, client: Client, *, layout: Optional[Layout], holder: str, lease: float, margin: Optional[float]) -> None:
        super().__init__(layout, holder, lease, margin)
        self._client = client
        self._stop = threading.Event()
        self._grant(client._run(self._acquire_call()))
        self._thread = threading.Thread(target=self._renew_loop, name="idnode-numeric-lease", daemon=True)
        self._thread.start()

    def _renew_loop(self) -> None:
        wait = self._renew_every
        while not self._stop.wait(wait):
            try:
                self._grant(self._client._run(self._renew_call(), self._renew_every))
                wait = self._renew_every
            except errors.IdnodeError as e:
                wait = self._renewal_failed(e)

    def close(self, timeout: Optional[float] = DEFAULT) -> None:
        """Stop renewing and release the worker, within ``timeout`` seconds (default the
        client's ``close_timeout``; None: as long as it takes). A release no node took in time
        is logged, never raised: the lease then lapses by itself. Idempotent."""
        deadline = self._client._close_deadline(timeout)
        self._stop.set()
        self._thread.join(seconds_left(deadline))
        call = self._release_call()
        if call is not None:
            try:
                self._client._run(call, seconds_left(deadline))
            except errors.IdnodeError as e:
                self._release_failed(e)
