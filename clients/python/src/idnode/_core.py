"""What the synchronous and the asyncio client share: options, the retry policy, node choice
and leader learning, request ids and argument checks. Nothing here waits or does I/O; the two
clients drive :class:`Attempts` and differ only in how they sleep and call: which stub an
attempt calls, with what request, what a failure means for the call and how an answer becomes
the result are decided here.
"""

from __future__ import annotations

import logging
import math
import random
import time
import uuid
from dataclasses import dataclass, field
from typing import Any, Callable, FrozenSet, Generic, Iterable, List, Mapping, Optional, Sequence, Tuple, TypeVar, cast

import grpc

from . import errors
from ._refusal import Refusals
from ._region import local_nodes, next_skip

T = TypeVar("T")

log = logging.getLogger("idnode")
"""Where the client logs what an application's operators look for: failovers, retry rounds,
numbers that could not be returned, lease renewals that failed. Nothing is logged per ID."""

LEADER_HEADER = "idnode-leader"
"""The response header in which a node names the leader's gRPC address."""

DATABASE_HEADER = "idnode-database"

DEFAULT: Any = object()
"""A timeout argument left out: the client's default, distinct from None (no deadline)."""

INT64_MAX = (1 << 63) - 1
MAX_TAG_BYTES = 2025 - 4 - 20 - 1 - 4
"""A HiLo tag leaves room in a document ID (2025 bytes) for a separator, the number, '-' and a
node tag."""


def check_int(name: str, value: object, lo: int = -INT64_MAX - 1, hi: int = INT64_MAX) -> int:
    """Return value when it is an int in [lo, hi]; otherwise raise the error the server would
    give (INVALID_ARGUMENT, or OUT_OF_RANGE outside int64), naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.make_error(
            grpc.StatusCode.INVALID_ARGUMENT,
            f"{name} must be an int, got {type(value).__name__} {value!r}",
            "INVALID_INPUT",
        )
    if value > INT64_MAX or value < -INT64_MAX - 1:
        raise errors.make_error(
            grpc.StatusCode.OUT_OF_RANGE, f"{name} {value} is outside the int64 range", "COUNTER_OVERFLOW"
        )
    if value < lo or value > hi:
        raise errors.make_error(
            grpc.StatusCode.INVALID_ARGUMENT, f"{name} {value} is outside {lo}..{hi}", "INVALID_INPUT"
        )
    return value


def check_seconds(name: str, value: object, *, allow_none: bool = False, lo: float = 0.0, hi: float = 86400.0) -> Optional[float]:
    """A duration option in seconds: a finite number in (lo, hi] (None when allowed)."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a number of seconds, got {value!r}")
    if not lo < value <= hi:
        raise ValueError(f"{name} {value!r} must be above {lo} and at most {hi} seconds")
    return float(value)


def seconds_left(deadline: Optional[float]) -> Optional[float]:
    """The seconds left until ``deadline`` on the monotonic clock (None: no deadline), at least
    a millisecond: a call given that fails at once rather than being refused as a bad timeout."""
    return None if deadline is None else max(deadline - time.monotonic(), 0.001)


def new_request_id() -> str:
    """The request id of one logical call; its retries reuse it."""
    return f"py-{uuid.uuid4()}"


@dataclass(frozen=True)
class Backoff:
    """The wait between two rounds of attempts of one call (a round tries every node once):
    ``initial`` before the second round, times ``multiplier`` for each further one, at most
    ``max``, each spread by ±``jitter`` so that many clients do not retry in step. Within a round
    the next node is tried at once. ``max_attempts`` > 0 caps a call's attempts; 0 leaves the
    call's deadline as the only bound."""

    initial: float = 0.025
    max: float = 1.0
    multiplier: float = 2.0
    jitter: float = 0.2
    max_attempts: int = 0

    def __post_init__(self) -> None:
        check_seconds("Backoff.initial", self.initial, hi=60)
        check_seconds("Backoff.max", self.max, hi=600)
        if not isinstance(self.multiplier, (int, float)) or not 1 <= self.multiplier <= 10:
            raise ValueError(f"Backoff.multiplier {self.multiplier!r} must be in 1..10")
        if not isinstance(self.jitter, (int, float)) or not 0 <= self.jitter <= 1:
            raise ValueError(f"Backoff.jitter {self.jitter!r} must be in 0..1")
        if isinstance(self.max_attempts, bool) or not isinstance(self.max_attempts, int) or not 0 <= self.max_attempts <= 1_000_000:
            raise ValueError(f"Backoff.max_attempts {self.max_attempts!r} must be an int in 0..1000000")

    def delay(self, round_: int, rand: Callable[[], float] = random.random) -> float:
        """The wait before round ``round_`` (1 is the second round)."""
        d = min(self.initial * self.multiplier ** (round_ - 1), max(self.max, self.initial))
        return d * (1 + self.jitter * (2 * rand() - 1))


@dataclass(frozen=True)
class TLS:
    """TLS for the connections. ``ca_file``: the CA that signed the nodes' certificates (None:
    the system's roots). ``cert_file`` and ``key_file``: a client certificate, for clusters
    that require one (mTLS). ``server_name`` overrides the name checked in the node's
    certificate (when dialling by an address it does not list)."""

    ca_file: Optional[str] = None
    cert_file: Optional[str] = None
    key_file: Optional[str] = None
    server_name: Optional[str] = None

    def __post_init__(self) -> None:
        if (self.cert_file is None) != (self.key_file is None):
            raise ValueError("TLS: give both cert_file and key_file for a client certificate, or neither")

    def credentials(self) -> grpc.ChannelCredentials:
        def read(path: Optional[str]) -> Optional[bytes]:
            if path is None:
                return None
            try:
                with open(path, "rb") as f:
                    return f.read()
            except OSError as e:
                raise ValueError(f"TLS: cannot read {path}: {e.strerror}; give the path of a PEM file") from e

        return grpc.ssl_channel_credentials(read(self.ca_file), read(self.key_file), read(self.cert_file))


@dataclass(frozen=True)
class Options:
    """Everything a client is configured with; checked once, when the client is made."""

    nodes: Tuple[str, ...]
    database: Optional[str] = None
    api_key: Optional[str] = None
    admin_token: Optional[str] = None
    tls: Optional[TLS] = None
    attempt_timeout: float = 3.0
    timeout: Optional[float] = 30.0
    backoff: Backoff = field(default_factory=Backoff)
    separator: str = "/"
    nodes_in_order: bool = False
    prefetch_at: float = 0.8
    fetch_timeout: float = 30.0
    channel_options: Tuple[Tuple[str, Any], ...] = ()
    interceptors: Tuple[Any, ...] = ()
    region: Optional[str] = None
    node_regions: Optional[Mapping[str, str]] = None
    close_timeout: float = 2.0

    @classmethod
    def make(cls, nodes: Iterable[str] | str, **kw: Any) -> "Options":
        if isinstance(nodes, str):
            nodes = [n for n in nodes.split(",")]
        nodes = tuple(n.strip() for n in nodes)
        if not nodes or any(not n for n in nodes):
            raise ValueError(f"give at least one node address (host:port), and no empty one: {list(nodes)!r}")
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"a node address is listed twice: {list(nodes)!r}")
        if kw.get("tls") is True:
            kw["tls"] = TLS()
        elif kw.get("tls") is False:
            kw["tls"] = None
        kw["channel_options"] = tuple(kw.get("channel_options") or ())
        kw["interceptors"] = tuple(kw.get("interceptors") or ())
        if isinstance(kw.get("node_regions"), Mapping):
            kw["node_regions"] = dict(kw["node_regions"])  # a copy: the caller's mapping may change later
        o = cls(nodes=nodes, **kw)
        o._check()
        return o

    def _check(self) -> None:
        check_seconds("attempt_timeout", self.attempt_timeout, hi=3600)
        check_seconds("timeout", self.timeout, allow_none=True, hi=86400)
        check_seconds("fetch_timeout", self.fetch_timeout, hi=3600)
        check_seconds("close_timeout", self.close_timeout, hi=3600)
        if not isinstance(self.prefetch_at, (int, float)) or not 0 < self.prefetch_at <= 1:
            raise ValueError(f"prefetch_at {self.prefetch_at!r} must be a fraction in (0, 1]")
        if not isinstance(self.separator, str) or len(self.separator) != 1 or self.separator == "|" or not self.separator.isprintable():
            raise ValueError(f"separator {self.separator!r} must be one printable character other than '|'")
        if self.api_key is not None and self.admin_token is not None:
            raise ValueError("give api_key or admin_token, not both: a call carries one credential")
        for name in ("api_key", "admin_token"):
            v = getattr(self, name)
            if v is not None and (not v or any(c.isspace() for c in v)):
                raise ValueError(f"{name} must be non-empty and without whitespace")
        if self.database is not None and not _valid_database(self.database):
            raise ValueError(
                f"database {self.database!r}: 1-64 ASCII letters, digits, '-', '_' or '.', starting with a letter or digit"
            )
        if not isinstance(self.backoff, Backoff):
            raise ValueError("backoff must be an idnode.Backoff")
        self.local_nodes()

    def local_nodes(self) -> Optional[FrozenSet[int]]:
        """The indexes of the nodes in the client's region; None without a region."""
        return local_nodes(self.nodes, self.region, self.node_regions)

    def metadata(self) -> Tuple[Tuple[str, str], ...]:
        md = []
        if self.database is not None:
            md.append((DATABASE_HEADER, self.database))
        bearer = self.api_key or self.admin_token
        if bearer is not None:
            md.append(("authorization", f"Bearer {bearer}"))
        return tuple(md)

    def channel_credentials(self) -> Optional[grpc.ChannelCredentials]:
        return self.tls.credentials() if self.tls is not None else None

    def grpc_options(self) -> List[Tuple[str, Any]]:
        opts: list[Tuple[str, Any]] = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.max_reconnect_backoff_ms", 2000)]
        if self.tls is not None and self.tls.server_name:
            opts.append(("grpc.ssl_target_name_override", self.tls.server_name))
        return opts + list(self.channel_options)


def _valid_database(name: str) -> bool:
    ok = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.")
    return 1 <= len(name) <= 64 and name[0].isascii() and name[0].isalnum() and all(c in ok for c in name)


class Stream:
    """How a streaming call goes on from one attempt to the next: the request an attempt sends
    (a client stream is read anew each time), what an item received changes (a journal resumes
    after it), and whether a failed attempt may be tried again at all (a backup that wrote
    bytes may not). An attempt of a streaming call lasts as long as the data flows, so it is
    bounded by the call's deadline rather than ``attempt_timeout``. This base keeps the
    request as it is and lets every failure go to the retry policy."""

    def request(self, call: "Call[Any]") -> Any:
        return call.request

    def seen(self, item: Any) -> None:
        """An item of a server stream reached the caller."""

    def check(self, rpc_error: grpc.RpcError) -> None:
        """Raise when the failed attempt must end the call, whatever the retry policy says."""


@dataclass
class Call(Generic[T]):
    """One logical RPC: the service ('ids', 'series', 'cluster') and method, the request (with
    its request id already in it, so every attempt carries the same), how its answer becomes
    the caller's result, and whether it goes to the leader first. ``in_region`` marks a call
    that needs the leader only without HiLo pools: a HiLo range, which with pools (the
    default) any node grants from its own; a client with a region sends it to a node of its
    own region first, one without to the leader as before.

    Every call the client makes is safe to repeat (reads, or writes a request id makes
    idempotent), so NODE_BUSY, which means the node did nothing, is tried on the next node,
    except the calls ``at_most_once``: the cluster changes an admin makes, which a repeat after
    a lost answer would not find as the first attempt left them. Those are tried on another
    node only when the first certainly did nothing (see :func:`not_carried_out`)."""

    service: str
    method: str
    request: Any
    result: Callable[[Any], T]
    leader: bool = True
    in_region: bool = False
    first: Optional[str] = None  # a node address to try first, when it is one of the client's
    answered_by: str = ""  # the address of the node that answered, once one did
    at_most_once: bool = False
    stream: Optional[Stream] = None  # set for a streaming call


# How long after the client saw a node fail by itself it believes that over a hint naming the
# node as leader: the other nodes name a leader that died until they elect another, within
# about a second on a LAN and a few with long round trips. A leader that only timed out once is
# named again after it, so the calls that need it take a follower's hop at most this long.
LEADER_HINT_DISTRUST = 5.0

# The refusals about the node that sent them, not the cluster: it is busy, stopping, behind,
# fenced, or cannot write its own storage, and another node may serve the call now. With a region the
# client puts such a node behind the others for a while, as it does one it cannot reach.
ABOUT_THE_NODE = frozenset({"NODE_BUSY", "SHUTTING_DOWN", "NOT_CAUGHT_UP", "STORAGE_FULL", "STORAGE_FAILED", "NOT_REGISTERED",
                            "REPLICA_DIVERGED"})


def not_carried_out(err: errors.IdnodeError) -> bool:
    """Whether a failed attempt certainly did nothing on the cluster: the node refused it as
    busy or without a quorum (idnode sends NO_QUORUM only for a call it did not carry out), or
    no connection to the node could be made, so the request never left."""
    return err.reason in ("NO_QUORUM", "NODE_BUSY") or "failed to connect" in err.message.lower()


class Nodes:
    """The node addresses, the one that answered last (calls start there), and the one last
    named as leader (calls that need the leader start there). Plain attribute stores: under the
    GIL each is atomic, and a stale read only costs a follower's hop.

    With a region (``local``: the indexes of the nodes in the client's region) calls try the
    local nodes before the others, and a node whose attempt just failed comes after the nodes
    that did not fail for a while, longer while it keeps failing (see :func:`next_skip`). Only
    a local node becomes the start: clients spread over the local nodes by where they start,
    and an outage of their region that they all rode out on one remote node must not leave
    them all on one local node afterwards."""

    def __init__(self, addrs: Sequence[str], in_order: bool, local: Optional[FrozenSet[int]] = None) -> None:
        self.addrs = tuple(addrs)
        self.local = local
        starts = sorted(local) if local is not None else range(len(self.addrs))
        self.preferred = starts[0] if in_order else random.choice(starts)  # spread clients
        self.leader: Optional[int] = None
        # Per node, when its skip ends (clock seconds) and how long it is; 0.0 once it answers.
        self.failed_until = [0.0] * len(self.addrs)
        self.skip = [0.0] * len(self.addrs)
        # Per node, when it last failed an attempt by itself (clock seconds); a hint naming it as
        # leader is not believed for LEADER_HINT_DISTRUST after it. -inf: not since it answered.
        self.failed_at = [float("-inf")] * len(self.addrs)
        self.clock: Callable[[], float] = time.monotonic
        # Each start's round of the list, made once: a call without a region takes its order
        # from here and builds nothing of its own.
        n = len(self.addrs)
        self.rotations = tuple(tuple((start + k) % n for k in range(n)) for start in range(n))

    def order(self, start: int, pinned: bool) -> Tuple[int, ...]:
        """The nodes in the order a call tries them: round the list from ``start``. With a
        region, ``start`` stays first when ``pinned`` (the leader, or the node a call names),
        and the others go in the order of: the local nodes, the other regions' nodes, then
        the nodes that failed a moment ago, local ones first."""
        rotation = self.rotations[start]
        if self.local is None:
            return rotation
        local: FrozenSet[int] = self.local
        head = rotation[:1] if pinned else ()
        now = self.clock()
        rest = sorted(rotation[len(head):], key=lambda i: (self.failed_until[i] > now, i not in local))
        return head + tuple(rest)

    def answered(self, node: int, start: int) -> None:
        """A node answered a call that started at ``start``: later calls start there (with a
        region, when it is a local node)."""
        self.failed_at[node] = float("-inf")
        if self.local is None:
            if node != start:
                self.preferred = node
            return
        self.failed_until[node] = 0.0
        self.skip[node] = 0.0
        if node in self.local:
            self.preferred = node

    def failed(self, node: int) -> None:
        """The node itself failed an attempt: down, unreachable, too slow, or refused for a reason
        about itself (:data:`ABOUT_THE_NODE`). When it is the leader the client knows, it
        knows none now, and hints naming it are not believed for a while (see
        :meth:`learn_leader`). Without a region the order changes nothing: such a client tries
        its nodes in turn whatever failed."""
        self.failed_at[node] = self.clock()
        if self.leader == node:
            self.leader = None
        if self.local is not None:
            now = self.clock()
            skip = self.skip[node] = next_skip(self.skip[node], self.failed_until[node], now)
            self.failed_until[node] = now + skip

    def learn_leader(self, md: Optional[Iterable[Tuple[str, Any]]]) -> None:
        """Remember the leader a node named in its response header. An address that is none of
        this client's (a node known by another name) teaches nothing, and neither does a node
        the client saw fail by itself within LEADER_HINT_DISTRUST: followers name a dead leader
        until they elect another, and the client's own observation is newer."""
        if not md:
            return
        for key, value in md:
            if key == LEADER_HEADER:
                try:
                    i = self.addrs.index(value)
                except ValueError:
                    return
                if self.clock() - self.failed_at[i] >= LEADER_HINT_DISTRUST:
                    self.leader = i
                return


class Attempts(Generic[T]):
    """The retry policy of one call, as a state machine the clients drive::

        att = Attempts(nodes, options, call, timeout, stubs=stubs)
        while True:
            node, wait, per_attempt = att.next()   # raises when the call must end
            sleep(wait)
            call att.method(node) with att.request(), per_attempt as its deadline
            on an answer: return att.answer(node, initial_metadata, answer)
            on each item of a server stream: hand on att.seen(item)
            on RpcError e: att.failed(node, e)       # raises when e ends the call

    What an attempt sends, what a failure means and what the caller gets are decided here; the
    clients' loops only sleep and call, blocking or awaiting.

    UNAVAILABLE, a per-attempt timeout, and NODE_BUSY (for calls safe to repeat) go to the next
    node at once; once every node failed, the next round waits the backoff. The whole call is
    bounded by ``timeout`` (seconds, None: unbounded) and Backoff.max_attempts; the error that
    ends it once no node served it is :class:`Refusals`' choice.
    """

    def __init__(
        self, nodes: Nodes, options: Options, call: Call[T], timeout: Optional[float],
        clock: Callable[[], float] = time.monotonic, refusals: Optional[Refusals] = None,
        stubs: Sequence[Mapping[str, Any]] = (),
    ) -> None:
        self.nodes = nodes
        self.stubs = stubs  # per node, its stubs by service
        self.opts = options
        self.call = call
        self.clock = clock
        self.deadline = None if timeout is None else clock() + timeout
        to_leader = call.leader and not (call.in_region and nodes.local is not None)
        if call.first in nodes.addrs:
            self.start, pinned = nodes.addrs.index(call.first), True
        elif to_leader and nodes.leader is not None:
            self.start, pinned = nodes.leader, True
        else:
            self.start, pinned = nodes.preferred, False
        # Without a region the order is the start's round, made when the client was: a call
        # pays neither Nodes.order's call nor a tuple of its own.
        self.order = nodes.rotations[self.start] if nodes.local is None else nodes.order(self.start, pinned)
        self.i = 0
        self.last: Optional[errors.IdnodeError] = None
        self.last_node = 0  # the node whose failure self.last is
        # Given by a caller that reads them while the call runs: a HiLo caller whose deadline
        # passes while it waits for a fetch.
        self.refusals = refusals if refusals is not None else Refusals()
        self.caller_bound = False  # the running attempt's deadline is the caller's own

    def next(self) -> Tuple[int, float, Optional[float]]:
        """The next attempt: its node, the wait before it, and its deadline in seconds (None:
        none)."""
        n = len(self.nodes.addrs)
        wait = 0.0
        if self.i > 0:
            b = self.opts.backoff
            if b.max_attempts and self.i >= b.max_attempts:
                raise self._gave_up("the attempts ran out", deadline=False)
            if self.i % n == 0:
                wait = b.delay(self.i // n)
        per: Optional[float] = self.opts.attempt_timeout if self.call.stream is None else None
        self.caller_bound = False
        if self.deadline is not None:
            left = self.deadline - self.clock() - wait
            if left <= 0:
                if self.last is None:
                    raise errors.DeadlineExceeded("the call's deadline passed before it was sent", reason="DEADLINE_EXCEEDED")
                raise self._gave_up("the call's deadline passed", deadline=True)
            if per is None or left <= per:
                per, self.caller_bound = left, True
        node = self.order[self.i % n]
        if self.last is not None:
            self._log_going_on(node, wait)
        self.i += 1
        return node, wait, per

    def _log_going_on(self, node: int, wait: float) -> None:
        """Log the attempt about to start after a failed one: a failover to another node, and
        at the start of each further round over the nodes, the round."""
        assert self.last is not None
        addrs, what = self.nodes.addrs, f"{self.call.service}.{self.call.method}"
        why = f"{self.last.code.name}{'/' + self.last.reason if self.last.reason else ''}: {self.last.message}"
        if self.i % len(addrs) == 0:
            log.warning("%s: every node failed; retry round %d in %.0f ms (last error from %s: %s)",
                        what, self.i // len(addrs) + 1, wait * 1000, addrs[self.last_node], why)
        if node != self.last_node:
            log.warning("%s: failing over from %s to %s: %s", what, addrs[self.last_node], addrs[node], why)

    def method(self, node: int) -> Any:
        """The stub method an attempt on ``node`` calls."""
        return getattr(self.stubs[node][self.call.service], self.call.method)

    def request(self) -> Any:
        """What the next attempt sends."""
        call = self.call
        return call.request if call.stream is None else call.stream.request(call)

    def seen(self, item: Any) -> T:
        """An item of a server stream, as the caller gets it."""
        call = self.call
        if call.stream is not None:
            call.stream.seen(item)
        return call.result(item)

    def answer(self, node: int, md: Optional[Iterable[Tuple[str, Any]]], response: Any) -> T:
        """Take the answer of ``node``: learn the leader it names, start later calls there, and
        return the caller's result."""
        self.succeeded(node, md)
        return self.call.result(response)

    def succeeded(self, node: int, md: Optional[Iterable[Tuple[str, Any]]]) -> None:
        self.nodes.learn_leader(md)
        self.call.answered_by = self.nodes.addrs[node]
        self.nodes.answered(node, self.start)

    def failed(self, node: int, rpc_error: grpc.RpcError) -> None:
        """Take a failed attempt: return when the call goes on, raise the IdnodeError that
        ends it otherwise."""
        if self.call.stream is not None:
            self.call.stream.check(rpc_error)
        try:
            self.nodes.learn_leader(cast(errors.FailedCall, rpc_error).initial_metadata())
        except Exception:  # an error raised before the call started has no metadata
            pass
        err = errors.from_rpc_error(rpc_error)
        code = err.code
        retry = code == grpc.StatusCode.UNAVAILABLE or (
            code == grpc.StatusCode.RESOURCE_EXHAUSTED and err.reason == "NODE_BUSY"
        )
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            if self.caller_bound:
                if self.last is not None:
                    raise self._gave_up("the call's deadline passed", deadline=True)
                raise err
            retry = True
        if not retry or (self.call.at_most_once and not not_carried_out(err)):
            raise err
        if err.domain != errors.ERROR_DOMAIN or err.reason in ABOUT_THE_NODE:
            # The node itself failed; another refusal of idnode's (NO_QUORUM …) is about the cluster.
            self.nodes.failed(node)
        self.last, self.last_node = err, node
        self.refusals.note(err)

    def _gave_up(self, why: str, deadline: bool) -> errors.IdnodeError:
        return self.refusals.final(self.i, len(self.nodes.addrs), why, deadline)


def hilo_tag_error(tag: object, separator: str) -> Optional[errors.IdnodeError]:
    """The refusal the server would give a HiLo tag (blank, ending with the separator, bad
    characters), or None; generators check before any call."""
    if not isinstance(tag, str):
        return errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"hilo tag must be a str, got {tag!r}", "INVALID_INPUT")
    problem = None
    if not tag.strip():
        problem = "hilo tag is blank"
    elif tag.endswith(separator):
        problem = f"hilo tag ends with the separator {separator!r}: give the tag without it"
    elif "|" in tag or "\\" in tag or any(not c.isprintable() for c in tag):
        problem = "hilo tag contains '|', '\\' or a control or invisible character"
    elif len(tag.encode("utf-8", "surrogatepass")) > MAX_TAG_BYTES:
        problem = f"hilo tag is longer than {MAX_TAG_BYTES} bytes"
    if problem is None:
        return None
    shown = tag if len(tag) <= 64 else tag[:61] + "..."
    return errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"{problem}: {shown!r}", "INVALID_INPUT")



C = TypeVar("C")


class Part(Generic[C]):
    """A part of a client reached from it (``client.admin``, ``client.series`` …): the calls of
    one kind, sent through the client's connections, retries and options."""

    def __init__(self, client: C) -> None:
        self._client = client

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._client!r}>"
