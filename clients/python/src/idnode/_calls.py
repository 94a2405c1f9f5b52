"""Every RPC of the client, once: how its arguments are checked and become a request, where it
goes first, and how its answer becomes the result. The synchronous and the asyncio client both
build their calls here and only run them differently."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Mapping, Optional, Sequence, Tuple, TypeVar, cast

import grpc

from . import errors
from ._core import INT64_MAX, Call, Stream, check_int, new_request_id
from .v1 import idnode_pb2 as pb


@dataclass(frozen=True)
class IdentityBlock:
    """Values ``first``..``last`` of an identity counter, except ``skipped`` (values someone
    claimed as ``name/N``); iterate over the block for the values that are the caller's."""

    first: int
    last: int
    skipped: Tuple[int, ...] = ()

    def __iter__(self):  # type: ignore[no-untyped-def]
        skipped = set(self.skipped)
        return (v for v in range(self.first, self.last + 1) if v not in skipped)


_new_object = object.__new__


def identity_of(value: int) -> IdentityBlock:
    """The block of the one value ``value``, equal to ``IdentityBlock(value, value)``. Made
    without the frozen dataclass's ``__init__``, whose three guarded attribute writes cost
    about 1 µs: a folded batch makes one block a caller, so that was a fifth of the fold's
    work an identity."""
    block = _new_object(IdentityBlock)
    fields = block.__dict__
    fields["first"] = value
    fields["last"] = value
    fields["skipped"] = ()
    return block


@dataclass(frozen=True)
class HiLoRange:
    """A HiLo range as NextHiLo granted it: numbers ``low``..``high``, printed as
    ``prefix`` + number + ``-`` + ``server_tag``. ``grant_id`` is what a return presents."""

    prefix: str
    low: int
    high: int
    last_size: int
    server_tag: str
    last_range_at: int
    grant_id: str
    granted_by: str = ""
    """The address of the node that granted the range: with HiLo pools only its pool takes
    the range back, so a return goes there first."""


@dataclass(frozen=True)
class Identity:
    name: str
    value: int


@dataclass(frozen=True)
class Claim:
    id: str
    owner: str


T = TypeVar("T")


@dataclass(frozen=True)
class Page(Generic[T]):
    """One page of a listing; ``next_page_token`` is empty on the last."""

    items: Tuple[T, ...] = field(default_factory=tuple)
    next_page_token: str = ""

    def after(self, token: str) -> Optional[str]:
        """The token of the page after this one, asked for with ``token``; None when this is
        the last (no token, the same token again, or an empty page)."""
        if not self.next_page_token or self.next_page_token == token or not self.items:
            return None
        return self.next_page_token


def _ids(request: object) -> Sequence[str]:
    if isinstance(request, str) or not all(isinstance(i, str) for i in request):  # type: ignore[attr-defined]
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"ids must be a list of str, got {request!r}", "INVALID_INPUT")
    return cast("list[str]", list(request))  # type: ignore[call-overload]


def _text(name: str, value: object) -> str:
    if not isinstance(value, str):
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"{name} must be a str, got {value!r}", "INVALID_INPUT")
    return value


def _count(count: object) -> int:
    # 0 means 1 to the server; its own (configurable) maximum is left to it.
    return check_int("count", count, lo=0)


_GUID = {None: pb.GUID_VERSION_UNSPECIFIED, "v7": pb.GUID_VERSION_V7, "v4": pb.GUID_VERSION_V4}


def generate(id: str, count: int, guid_version: Optional[str], request_id: Optional[str], claim: bool, owner: str, numeric: bool) -> Call[list[str]]:
    _text("id", id)
    if guid_version not in _GUID:
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"guid_version {guid_version!r} must be 'v7' or 'v4'", "INVALID_INPUT")
    identity = id.endswith("|")
    if request_id is None and (identity or claim):
        request_id = new_request_id()
    req = pb.GenerateRequest(
        id=id, count=_count(count), request_id=request_id or "", guid_version=_GUID[guid_version],
        claim=claim, owner=_text("owner", owner), numeric=numeric,
    )
    # Identities and claims go through Raft: the leader first. GUIDs, server-side and semantic
    # IDs are decided by whichever node is asked, so they stay spread over the nodes.
    return Call("ids", "Generate", req, lambda r: list(r.ids), leader=identity or claim)


def next_identity(name: str, count: int, request_id: Optional[str]) -> Call[IdentityBlock]:
    req = pb.NextIdentityRequest(name=_text("name", name), count=_count(count), request_id=request_id or new_request_id())
    return Call("ids", "NextIdentity", req, lambda r: IdentityBlock(r.first, r.last, tuple(r.skipped)))


def seed_identity(name: str, value: int, force: bool) -> Call[int]:
    req = pb.SeedIdentityRequest(name=_text("name", name), value=check_int("value", value, lo=0), force=force)
    return Call("ids", "SeedIdentity", req, lambda r: int(r.value))


def _page_size(page_size: int) -> int:
    return check_int("page_size", page_size, lo=0, hi=10_000)


def list_identities(prefix: str, page_size: int, page_token: str) -> Call[Page[Identity]]:
    req = pb.ListIdentitiesRequest(prefix=_text("prefix", prefix), page_size=_page_size(page_size), page_token=_text("page_token", page_token))
    return Call("ids", "ListIdentities", req, lambda r: Page(tuple(Identity(i.name, i.value) for i in r.identities), r.next_page_token))


def claim(ids: Sequence[str], owner: str, request_id: Optional[str]) -> Call[None]:
    req = pb.ClaimRequest(ids=_ids(ids), owner=_text("owner", owner), request_id=request_id or new_request_id())
    return Call("ids", "Claim", req, lambda r: None)


def release(ids: Sequence[str], owner: str, request_id: Optional[str]) -> Call[int]:
    # The request id makes a retry after a lost answer answer the first attempt's count, not 0.
    req = pb.ReleaseRequest(ids=_ids(ids), owner=_text("owner", owner), request_id=request_id or new_request_id())
    return Call("ids", "Release", req, lambda r: int(r.released))


def get_claims(ids: Sequence[str], prefix: str, page_size: int, page_token: str) -> Call[Page[Claim]]:
    req = pb.GetClaimsRequest(ids=_ids(ids), prefix=_text("prefix", prefix), page_size=_page_size(page_size), page_token=_text("page_token", page_token))
    return Call("ids", "GetClaims", req, lambda r: Page(tuple(Claim(c.id, c.owner) for c in r.claims), r.next_page_token))


MAX_RANGE = 1 << 20


def next_hilo(tag: str, last_batch_size: int, last_range_at: int, last_max: int, separator: str, request_id: Optional[str]) -> Call[HiLoRange]:
    req = pb.NextHiLoRequest(
        tag=_text("tag", tag),
        last_batch_size=check_int("last_batch_size", last_batch_size, lo=0),
        last_range_at=check_int("last_range_at", last_range_at, lo=0),
        last_max=check_int("last_max", last_max, lo=0),
        separator=_text("separator", separator),
        request_id=request_id or new_request_id(),
    )
    # With HiLo pools (the default) any node grants a range from its own pool: a client with a
    # region asks one of its own region. Without pools a follower relays it to the leader.
    call: Call[HiLoRange] = Call("ids", "NextHiLo", req, lambda r: HiLoRange(
        r.prefix, r.low, r.high, r.last_size, r.server_tag, r.last_range_at, r.grant_id, call.answered_by), in_region=True)
    return call


def return_hilo(tag: str, end: int, last: int, grant_id: str, granted_by: str = "", request_id: Optional[str] = None) -> Call[bool]:
    # One request id per return, on every attempt: a retry of a return that took effect then
    # answers True as the first attempt did, not False because the range is no longer the newest.
    req = pb.ReturnHiLoRequest(
        tag=_text("tag", tag), end=check_int("end", end, lo=0), last=check_int("last", last, lo=0),
        grant_id=_text("grant_id", grant_id), request_id=request_id or new_request_id(),
    )
    return Call("ids", "ReturnHiLo", req, lambda r: bool(r.returned), first=_text("granted_by", granted_by) or None)


def seed_hilo(tag: str, max: int) -> Call[int]:
    req = pb.SeedHiLoRequest(tag=_text("tag", tag), max=check_int("max", max, lo=0))
    return Call("ids", "SeedHiLo", req, lambda r: int(r.max))


def list_hilo(prefix: str, page_size: int, page_token: str) -> Call[pb.ListHiLoResponse]:
    req = pb.ListHiLoRequest(prefix=_text("prefix", prefix), page_size=_page_size(page_size), page_token=_text("page_token", page_token))
    return Call("ids", "ListHiLo", req, lambda r: cast(pb.ListHiLoResponse, r))


def _lease_ms(lease: float) -> int:
    if isinstance(lease, bool) or not isinstance(lease, (int, float)) or not 1 <= lease <= 3600:
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"lease {lease!r} must be 1..3600 seconds", "INVALID_INPUT")
    return int(lease * 1000)


def acquire_worker(holder: str, worker_bits: int, lease: float, request_id: Optional[str]) -> Call[pb.WorkerLease]:
    req = pb.AcquireWorkerRequest(
        holder=_text("holder", holder), worker_bits=check_int("worker_bits", worker_bits, lo=1, hi=22),
        lease_ms=_lease_ms(lease), request_id=request_id or new_request_id(),
    )
    return Call("ids", "AcquireWorker", req, lambda r: cast(pb.WorkerLease, r))


def renew_worker(worker: int, epoch: int, lease: float) -> Call[pb.WorkerLease]:
    req = pb.RenewWorkerRequest(worker=check_int("worker", worker, lo=0, hi=(1 << 22) - 1), epoch=check_int("epoch", epoch, lo=0), lease_ms=_lease_ms(lease))
    return Call("ids", "RenewWorker", req, lambda r: cast(pb.WorkerLease, r))


def release_worker(worker: int, epoch: int) -> Call[None]:
    req = pb.ReleaseWorkerRequest(worker=check_int("worker", worker, lo=0, hi=(1 << 22) - 1), epoch=check_int("epoch", epoch, lo=0))
    return Call("ids", "ReleaseWorker", req, lambda r: None)


def list_workers(page_size: int, page_token: str) -> Call[pb.ListWorkersResponse]:
    req = pb.ListWorkersRequest(page_size=_page_size(page_size), page_token=_text("page_token", page_token))
    return Call("ids", "ListWorkers", req, lambda r: cast(pb.ListWorkersResponse, r))


def explain(id: str, database: Optional[str]) -> Call[pb.ExplainResponse]:
    # Explain reads the ID and the database's opaque setting, which every node holds: any node
    # answers. Without a database the client's (its metadata) is the one.
    req = pb.ExplainRequest(id=_text("id", id), database=_text("database", database or ""))
    return Call("ids", "Explain", req, lambda r: cast(pb.ExplainResponse, r), leader=False)


_PERIOD = {"none": pb.SERIES_PERIOD_NONE, "year": pb.SERIES_PERIOD_YEAR, "month": pb.SERIES_PERIOD_MONTH}
_POLICY = {"gapless": pb.SERIES_POLICY_GAPLESS, "gaps_allowed_journaled": pb.SERIES_POLICY_GAPS_ALLOWED_JOURNALED}


def _choice(name: str, value: str, choices: Mapping[str, Any]) -> Any:
    if value not in choices:
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"{name} {value!r} must be one of {sorted(choices)}", "INVALID_INPUT")
    return choices[value]


def create_series(name: str, format: str, period: str, policy: str, request_id: Optional[str]) -> Call[pb.Series]:
    req = pb.CreateSeriesRequest(
        name=_text("name", name), format=_text("format", format), period=_choice("period", period, _PERIOD),
        policy=_choice("policy", policy, _POLICY), request_id=request_id or new_request_id(),
    )
    return Call("series", "CreateSeries", req, lambda r: cast(pb.Series, r.series))


def list_series() -> Call[list[pb.Series]]:
    return Call("series", "ListSeries", pb.ListSeriesRequest(), lambda r: list(r.series))


def issue(series: str, request_id: Optional[str], document_hash: str, fields: Optional[Mapping[str, str]]) -> Call[pb.SeriesEntry]:
    req = pb.IssueRequest(
        series=_text("series", series), request_id=request_id or new_request_id(), document_hash=_text("document_hash", document_hash),
        fields=[pb.SeriesField(key=_text("field key", k), value=_text("field value", v)) for k, v in (fields or {}).items()],
    )
    return Call("series", "Issue", req, lambda r: cast(pb.SeriesEntry, r.entry))


def void(series: str, number: int, period: str, reason: str, correcting: str, request_id: Optional[str]) -> Call[pb.SeriesEntry]:
    req = pb.VoidRequest(
        series=_text("series", series), number=check_int("number", number, lo=1, hi=INT64_MAX), period=_text("period", period),
        reason=_text("reason", reason), correcting=_text("correcting", correcting), request_id=request_id or new_request_id(),
    )
    return Call("series", "Void", req, lambda r: cast(pb.SeriesEntry, r.entry))


def verify_series(series: str) -> Call[pb.VerifySeriesResponse]:
    return Call("series", "VerifySeries", pb.VerifySeriesRequest(series=_text("series", series)), lambda r: cast(pb.VerifySeriesResponse, r))


class _Resume(Stream):
    """A journal stream cut short asks again from after the last entry the caller got, so each
    entry comes once."""

    def __init__(self, request: pb.JournalRequest) -> None:
        self.journal = request

    def seen(self, item: Any) -> None:
        self.journal.from_seq = item.seq + 1


def journal(series: str, from_seq: int, to_seq: int) -> Call[pb.SeriesEntry]:
    req = pb.JournalRequest(series=_text("series", series), from_seq=check_int("from_seq", from_seq, lo=0), to_seq=check_int("to_seq", to_seq, lo=0))
    return Call("series", "Journal", req, lambda r: cast(pb.SeriesEntry, r), stream=_Resume(req))


def status(consistent: bool) -> Call[pb.StatusResponse]:
    return Call("cluster", "Status", pb.StatusRequest(consistent=consistent), lambda r: cast(pb.StatusResponse, r), leader=consistent)


# Cluster administration. The changes (nodes, leadership, databases, keys) are not simply
# idempotent: repeated after a lost answer, an AddNode finds its addresses taken, a RemoveNode
# no such node, a CreateKey makes a second key. They are at most once: tried on another node
# only when the first certainly did nothing (see Call.at_most_once).


def whoami() -> Call[pb.WhoAmIResponse]:
    return Call("cluster", "WhoAmI", pb.WhoAmIRequest(), lambda r: cast(pb.WhoAmIResponse, r), leader=False)


def add_node(tag: str, raft_address: str, grpc_address: str, id: str, non_voter: bool) -> Call[pb.AddNodeResponse]:
    req = pb.AddNodeRequest(
        tag=_text("tag", tag), raft_address=_text("raft_address", raft_address), grpc_address=_text("grpc_address", grpc_address),
        id=_text("id", id), non_voter=bool(non_voter),
    )
    return Call("cluster", "AddNode", req, lambda r: cast(pb.AddNodeResponse, r), at_most_once=True)


def remove_node(tag: str) -> Call[None]:
    return Call("cluster", "RemoveNode", pb.RemoveNodeRequest(tag=_text("tag", tag)), lambda r: None, at_most_once=True)


def transfer_leadership(tag: str) -> Call[str]:
    return Call("cluster", "TransferLeadership", pb.TransferLeadershipRequest(tag=_text("tag", tag)), lambda r: str(r.leader), at_most_once=True)


def cluster_version() -> Call[pb.ClusterVersionResponse]:
    return Call("cluster", "ClusterVersion", pb.ClusterVersionRequest(), lambda r: cast(pb.ClusterVersionResponse, r))


def set_cluster_version(version: int) -> Call[pb.ClusterVersionResponse]:
    # Setting a version twice changes nothing: it fails over like any call.
    req = pb.SetClusterVersionRequest(version=check_int("version", version, lo=1, hi=2**32 - 1))
    return Call("cluster", "SetClusterVersion", req, lambda r: cast(pb.ClusterVersionResponse, r))


def create_database(name: str, max_identities: int, max_calls_per_second: float, max_claims: int) -> Call[None]:
    req = pb.CreateDatabaseRequest(
        name=_text("name", name), max_identities=check_int("max_identities", max_identities, lo=0),
        max_calls_per_second=float(max_calls_per_second), max_claims=check_int("max_claims", max_claims, lo=0),
    )
    return Call("cluster", "CreateDatabase", req, lambda r: None, at_most_once=True)


def delete_database(name: str, force: bool) -> Call[None]:
    req = pb.DeleteDatabaseRequest(name=_text("name", name), force=bool(force))
    return Call("cluster", "DeleteDatabase", req, lambda r: None, at_most_once=True)


def make_opaque(database: str, collections: Sequence[str], numeric: bool) -> Call[pb.OpaqueStatus]:
    # Calling it again with the same or more collections only adds: a retry is safe.
    if isinstance(collections, str) or not all(isinstance(c, str) for c in collections):
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"collections must be a list of str, got {collections!r}", "INVALID_INPUT")
    req = pb.MakeOpaqueRequest(database=_text("database", database), collections=list(collections), numeric=bool(numeric))
    return Call("cluster", "MakeOpaque", req, lambda r: cast(pb.OpaqueStatus, r))


def list_databases() -> Call[list[pb.DatabaseStatus]]:
    return Call("cluster", "ListDatabases", pb.ListDatabasesRequest(), lambda r: list(r.databases))


def create_key(database: str, role: str) -> Call[Tuple[str, str]]:
    req = pb.CreateKeyRequest(database=_text("database", database), role=_text("role", role))
    return Call("cluster", "CreateKey", req, lambda r: (r.id, r.key), at_most_once=True)


def delete_key(id: str) -> Call[None]:
    return Call("cluster", "DeleteKey", pb.DeleteKeyRequest(id=_text("id", id)), lambda r: None, at_most_once=True)


def list_keys() -> Call[list[pb.KeyStatus]]:
    return Call("cluster", "ListKeys", pb.ListKeysRequest(), lambda r: list(r.keys))


def release_owner(owner: str) -> Call[int]:
    return Call("ids", "ReleaseOwner", pb.ReleaseOwnerRequest(owner=_text("owner", owner)), lambda r: int(r.released))


@dataclass(frozen=True)
class BackupInfo:
    """A backup :meth:`idnode.Client.backup` wrote: the tag of the leader that took it, the
    Raft index it covers, and its size in bytes."""

    leader: str
    index: int
    bytes: int


RESTORE_CHUNK = 256 << 10
"""Bytes each chunk of a restore carries."""


class BackupProgress(Stream):
    """What a backup stream brought so far. Once the first bytes came they are in the caller's
    file, so a failure after them ends the call rather than starting the backup again."""

    def __init__(self) -> None:
        self.info: Optional[BackupInfo] = None

    def seen(self, item: Any) -> None:
        info = self.info or BackupInfo(item.leader, item.index, 0)
        self.info = BackupInfo(info.leader, info.index, info.bytes + len(item.data))

    def check(self, rpc_error: grpc.RpcError) -> None:
        if self.info is not None:
            raise errors.from_rpc_error(rpc_error) from None


def backup(database: str) -> Tuple[Call[bytes], BackupProgress]:
    """The backup call, whose items are the backup's bytes, and its progress, which says what
    was written once the stream ends."""
    progress = BackupProgress()
    call: Call[bytes] = Call("cluster", "Backup", pb.BackupRequest(database=_text("database", database)), lambda r: bytes(r.data), stream=progress)
    return call, progress


@dataclass(frozen=True)
class Margin:
    """How far above a backup's values :meth:`idnode.Client.restore` sets the counters, to skip
    what the backup's cluster issued after the backup was taken (docs/backups.md, "A margin for
    what the backup missed"): each identity counter ``identities_add + ceil(value ×
    identities_percent / 100)`` above the backup's value, each HiLo Max ``hilo_add + ceil(max ×
    hilo_percent / 100)`` (it moves by whole ranges, so it may want more). Every part is at
    least 0; percentages are whole numbers.

    ``by_rates=True`` asks the margin ``idctl restore`` takes without ``--ahead``: each kind
    whose parts are all 0 goes up by the backup's peak issue rate × its age × 2 (a HiLo tag at
    least its last range), and the answer's ``rates`` say what that assumed
    (docs/backups.md, "A margin by rates by default"). Without it, as before, no margin."""

    identities_add: int = 0
    identities_percent: int = 0
    hilo_add: int = 0
    hilo_percent: int = 0
    by_rates: bool = False


def _margin(ahead: Optional[Margin]) -> Optional[pb.RestoreMargin]:
    """The margin a restore's first chunk carries, checked as the node checks it; None for none
    (every part 0 included), so that the request is what a build without margins sends."""
    if ahead is None:
        return None
    if not isinstance(ahead, Margin):
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"ahead must be an idnode.Margin, got {type(ahead).__name__}", "INVALID_INPUT")
    parts = [check_int(f"ahead.{name}", getattr(ahead, name), 0) for name in ("identities_add", "identities_percent", "hilo_add", "hilo_percent")]
    if not isinstance(ahead.by_rates, bool):
        raise errors.make_error(grpc.StatusCode.INVALID_ARGUMENT, f"ahead.by_rates must be a bool, got {type(ahead.by_rates).__name__}", "INVALID_INPUT")
    if not ahead.by_rates:
        if not any(parts):
            return None
        return pb.RestoreMargin(identities=pb.CounterMargin(add=parts[0], percent=parts[1]), hilo=pb.CounterMargin(add=parts[2], percent=parts[3]))
    # By rates, a kind left unset takes the rates' margin: only a kind given a part is set.
    margin = pb.RestoreMargin(by_rates=True)
    if parts[0] or parts[1]:
        margin.identities.CopyFrom(pb.CounterMargin(add=parts[0], percent=parts[1]))
    if parts[2] or parts[3]:
        margin.hilo.CopyFrom(pb.CounterMargin(add=parts[2], percent=parts[3]))
    return margin


def _margin_numbers(m: pb.RestoreMargin) -> Tuple[int, int, int, int]:
    return (m.identities.add, m.identities.percent, m.hilo.add, m.hilo.percent)


def restore(ahead: Optional[Margin], src: Any = None) -> Tuple[Call[pb.RestoreResponse], Optional[pb.RestoreMargin]]:
    """The restore call of the backup read from ``src`` (reading its first chunk now), and the
    margin its first chunk carries. Its result is the answer, or
    :class:`idnode.MarginNotApplied` when the answer does not echo the margin asked."""
    margin = _margin(ahead)
    stream = None if src is None else _Restoring(src.read(RESTORE_CHUNK), src, margin)

    def result(r: Any) -> pb.RestoreResponse:
        resp = cast(pb.RestoreResponse, r)
        # A node of an older build echoes by_rates among the fields it does not know: only the
        # answer's rates say that the margin by rates was taken.
        if margin is not None and (_margin_numbers(resp.ahead) != _margin_numbers(margin) or margin.by_rates and not resp.HasField("rates")):
            raise errors.MarginNotApplied(_margin_numbers(margin), _margin_numbers(resp.ahead), resp, by_rates=margin.by_rates)
        return resp

    return Call("cluster", "Restore", None, result, at_most_once=True, stream=stream), margin


class _Restoring(Stream):
    """The chunks each attempt of a restore sends: the first chunk again, then the rest of the
    source. An attempt that read past the first chunk cannot be made again, and an error
    reading the source is raised as it is."""

    def __init__(self, first: bytes, src: Any, margin: Optional[pb.RestoreMargin]) -> None:
        self.first, self.src, self.margin = first, src, margin
        self.chunks = RestoreChunks(first, src, margin)

    def request(self, call: Call[Any]) -> Any:
        self.chunks = RestoreChunks(self.first, self.src, self.margin)
        return iter(self.chunks)

    def check(self, rpc_error: grpc.RpcError) -> None:
        if self.chunks.read_error is not None:
            raise self.chunks.read_error from None
        if self.chunks.read_more:
            raise errors.from_rpc_error(rpc_error) from None


class RestoreChunks:
    """The chunks of one restore attempt: ``first``, read already and carrying ``margin``, then
    the rest of ``src``. Notes whether it read past the first chunk (the attempt cannot be made
    again then) and an error reading, which it raises to abort the stream, so that the cluster
    keeps nothing."""

    def __init__(self, first: bytes, src: Any, margin: Optional[pb.RestoreMargin] = None) -> None:
        self.first = first
        self.src = src
        self.margin = margin
        self.read_more = False
        self.read_error: Optional[BaseException] = None

    def __iter__(self):  # type: ignore[no-untyped-def]
        data = self.first
        margin = self.margin
        while data:
            yield pb.RestoreChunk(data=data, ahead=margin)
            margin = None  # the first chunk carries it
            self.read_more = True
            try:
                data = self.src.read(RESTORE_CHUNK)
            except Exception as e:
                self.read_error = e
                raise
