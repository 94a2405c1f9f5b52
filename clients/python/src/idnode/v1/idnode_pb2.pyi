from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
GUID_VERSION_UNSPECIFIED: GuidVersion
GUID_VERSION_V4: GuidVersion
GUID_VERSION_V7: GuidVersion
SERIES_ENTRY_KIND_ISSUED: SeriesEntryKind
SERIES_ENTRY_KIND_UNSPECIFIED: SeriesEntryKind
SERIES_ENTRY_KIND_VOIDED: SeriesEntryKind
SERIES_PERIOD_MONTH: SeriesPeriod
SERIES_PERIOD_NONE: SeriesPeriod
SERIES_PERIOD_YEAR: SeriesPeriod
SERIES_POLICY_GAPLESS: SeriesPolicy
SERIES_POLICY_GAPS_ALLOWED_JOURNALED: SeriesPolicy

class AcquireWorkerRequest(_message.Message):
    __slots__ = ["database", "holder", "lease_ms", "request_id", "worker_bits"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    LEASE_MS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    WORKER_BITS_FIELD_NUMBER: _ClassVar[int]
    database: str
    holder: str
    lease_ms: int
    request_id: str
    worker_bits: int
    def __init__(self, database: _Optional[str] = ..., holder: _Optional[str] = ..., worker_bits: _Optional[int] = ..., lease_ms: _Optional[int] = ..., request_id: _Optional[str] = ...) -> None: ...

class AddNodeRequest(_message.Message):
    __slots__ = ["grpc_address", "id", "incarnation", "non_voter", "raft_address", "separator", "tag", "version"]
    GRPC_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    INCARNATION_FIELD_NUMBER: _ClassVar[int]
    NON_VOTER_FIELD_NUMBER: _ClassVar[int]
    RAFT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    SEPARATOR_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    grpc_address: str
    id: str
    incarnation: str
    non_voter: bool
    raft_address: str
    separator: str
    tag: str
    version: int
    def __init__(self, tag: _Optional[str] = ..., raft_address: _Optional[str] = ..., grpc_address: _Optional[str] = ..., id: _Optional[str] = ..., non_voter: bool = ..., incarnation: _Optional[str] = ..., separator: _Optional[str] = ..., version: _Optional[int] = ...) -> None: ...

class AddNodeResponse(_message.Message):
    __slots__ = ["node", "separator"]
    NODE_FIELD_NUMBER: _ClassVar[int]
    SEPARATOR_FIELD_NUMBER: _ClassVar[int]
    node: NodeStatus
    separator: str
    def __init__(self, node: _Optional[_Union[NodeStatus, _Mapping]] = ..., separator: _Optional[str] = ...) -> None: ...

class BackupChunk(_message.Message):
    __slots__ = ["data", "index", "leader"]
    DATA_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    index: int
    leader: str
    def __init__(self, data: _Optional[bytes] = ..., leader: _Optional[str] = ..., index: _Optional[int] = ...) -> None: ...

class BackupRequest(_message.Message):
    __slots__ = ["database"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    database: str
    def __init__(self, database: _Optional[str] = ...) -> None: ...

class CertificateExpiry(_message.Message):
    __slots__ = ["kind", "not_after_ms", "subject"]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NOT_AFTER_MS_FIELD_NUMBER: _ClassVar[int]
    SUBJECT_FIELD_NUMBER: _ClassVar[int]
    kind: str
    not_after_ms: int
    subject: str
    def __init__(self, kind: _Optional[str] = ..., subject: _Optional[str] = ..., not_after_ms: _Optional[int] = ...) -> None: ...

class CheckReplicasRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class Claim(_message.Message):
    __slots__ = ["id", "owner"]
    ID_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    id: str
    owner: str
    def __init__(self, id: _Optional[str] = ..., owner: _Optional[str] = ...) -> None: ...

class ClaimRequest(_message.Message):
    __slots__ = ["database", "ids", "owner", "request_id"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    database: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    owner: str
    request_id: str
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., owner: _Optional[str] = ..., request_id: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class ClaimResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ClusterVersionRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ClusterVersionResponse(_message.Message):
    __slots__ = ["downgrade_floor", "effective", "finalised", "members", "supported"]
    DOWNGRADE_FLOOR_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_FIELD_NUMBER: _ClassVar[int]
    FINALISED_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    SUPPORTED_FIELD_NUMBER: _ClassVar[int]
    downgrade_floor: int
    effective: int
    finalised: int
    members: _containers.RepeatedCompositeFieldContainer[MemberVersion]
    supported: int
    def __init__(self, finalised: _Optional[int] = ..., effective: _Optional[int] = ..., downgrade_floor: _Optional[int] = ..., supported: _Optional[int] = ..., members: _Optional[_Iterable[_Union[MemberVersion, _Mapping]]] = ...) -> None: ...

class CounterMargin(_message.Message):
    __slots__ = ["add", "percent"]
    ADD_FIELD_NUMBER: _ClassVar[int]
    PERCENT_FIELD_NUMBER: _ClassVar[int]
    add: int
    percent: int
    def __init__(self, add: _Optional[int] = ..., percent: _Optional[int] = ...) -> None: ...

class CreateDatabaseRequest(_message.Message):
    __slots__ = ["max_calls_per_second", "max_claims", "max_identities", "name"]
    MAX_CALLS_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    MAX_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    MAX_IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    max_calls_per_second: float
    max_claims: int
    max_identities: int
    name: str
    def __init__(self, name: _Optional[str] = ..., max_identities: _Optional[int] = ..., max_calls_per_second: _Optional[float] = ..., max_claims: _Optional[int] = ...) -> None: ...

class CreateDatabaseResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class CreateKeyRequest(_message.Message):
    __slots__ = ["database", "role"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    database: str
    role: str
    def __init__(self, database: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class CreateKeyResponse(_message.Message):
    __slots__ = ["id", "key"]
    ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    id: str
    key: str
    def __init__(self, id: _Optional[str] = ..., key: _Optional[str] = ...) -> None: ...

class CreateSeriesRequest(_message.Message):
    __slots__ = ["actor", "database", "format", "name", "period", "policy", "request_id"]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    actor: str
    database: str
    format: str
    name: str
    period: SeriesPeriod
    policy: SeriesPolicy
    request_id: str
    def __init__(self, database: _Optional[str] = ..., name: _Optional[str] = ..., format: _Optional[str] = ..., period: _Optional[_Union[SeriesPeriod, str]] = ..., policy: _Optional[_Union[SeriesPolicy, str]] = ..., request_id: _Optional[str] = ..., actor: _Optional[str] = ...) -> None: ...

class CreateSeriesResponse(_message.Message):
    __slots__ = ["series"]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    series: Series
    def __init__(self, series: _Optional[_Union[Series, _Mapping]] = ...) -> None: ...

class DatabaseHeadroom(_message.Message):
    __slots__ = ["database", "hilo_abandoned", "hilo_values_left", "identity_values_left", "largest_hilo_max", "largest_hilo_tag", "largest_identity", "largest_identity_value", "sequence_saturations", "worker_bits", "workers_free", "workers_leased", "workers_never_used"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    HILO_ABANDONED_FIELD_NUMBER: _ClassVar[int]
    HILO_VALUES_LEFT_FIELD_NUMBER: _ClassVar[int]
    IDENTITY_VALUES_LEFT_FIELD_NUMBER: _ClassVar[int]
    LARGEST_HILO_MAX_FIELD_NUMBER: _ClassVar[int]
    LARGEST_HILO_TAG_FIELD_NUMBER: _ClassVar[int]
    LARGEST_IDENTITY_FIELD_NUMBER: _ClassVar[int]
    LARGEST_IDENTITY_VALUE_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_SATURATIONS_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FREE_FIELD_NUMBER: _ClassVar[int]
    WORKERS_LEASED_FIELD_NUMBER: _ClassVar[int]
    WORKERS_NEVER_USED_FIELD_NUMBER: _ClassVar[int]
    WORKER_BITS_FIELD_NUMBER: _ClassVar[int]
    database: str
    hilo_abandoned: int
    hilo_values_left: int
    identity_values_left: int
    largest_hilo_max: int
    largest_hilo_tag: str
    largest_identity: str
    largest_identity_value: int
    sequence_saturations: int
    worker_bits: int
    workers_free: int
    workers_leased: int
    workers_never_used: int
    def __init__(self, database: _Optional[str] = ..., worker_bits: _Optional[int] = ..., workers_leased: _Optional[int] = ..., workers_free: _Optional[int] = ..., workers_never_used: _Optional[int] = ..., sequence_saturations: _Optional[int] = ..., largest_identity: _Optional[str] = ..., largest_identity_value: _Optional[int] = ..., identity_values_left: _Optional[int] = ..., largest_hilo_tag: _Optional[str] = ..., largest_hilo_max: _Optional[int] = ..., hilo_values_left: _Optional[int] = ..., hilo_abandoned: _Optional[int] = ...) -> None: ...

class DatabaseStatus(_message.Message):
    __slots__ = ["claims", "hilo_tags", "identities", "max_calls_per_second", "max_claims", "max_identities", "name", "opaque_collections", "opaque_key_fingerprint", "opaque_numeric"]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    HILO_TAGS_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    MAX_CALLS_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    MAX_CLAIMS_FIELD_NUMBER: _ClassVar[int]
    MAX_IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_NUMERIC_FIELD_NUMBER: _ClassVar[int]
    claims: int
    hilo_tags: int
    identities: int
    max_calls_per_second: float
    max_claims: int
    max_identities: int
    name: str
    opaque_collections: _containers.RepeatedScalarFieldContainer[str]
    opaque_key_fingerprint: str
    opaque_numeric: bool
    def __init__(self, name: _Optional[str] = ..., identities: _Optional[int] = ..., hilo_tags: _Optional[int] = ..., max_identities: _Optional[int] = ..., max_calls_per_second: _Optional[float] = ..., claims: _Optional[int] = ..., max_claims: _Optional[int] = ..., opaque_collections: _Optional[_Iterable[str]] = ..., opaque_numeric: bool = ..., opaque_key_fingerprint: _Optional[str] = ...) -> None: ...

class DeleteDatabaseRequest(_message.Message):
    __slots__ = ["force", "name"]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    force: bool
    name: str
    def __init__(self, name: _Optional[str] = ..., force: bool = ...) -> None: ...

class DeleteDatabaseResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class DeleteKeyRequest(_message.Message):
    __slots__ = ["id"]
    ID_FIELD_NUMBER: _ClassVar[int]
    id: str
    def __init__(self, id: _Optional[str] = ...) -> None: ...

class DeleteKeyResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ExplainRequest(_message.Message):
    __slots__ = ["database", "id"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    database: str
    id: str
    def __init__(self, id: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class ExplainResponse(_message.Message):
    __slots__ = ["encoding", "guid_version", "kind", "layout", "node_tag", "notes", "number", "opaque", "prefix", "sequence", "time", "value", "worker"]
    ENCODING_FIELD_NUMBER: _ClassVar[int]
    GUID_VERSION_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LAYOUT_FIELD_NUMBER: _ClassVar[int]
    NODE_TAG_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    encoding: str
    guid_version: int
    kind: str
    layout: str
    node_tag: str
    notes: _containers.RepeatedScalarFieldContainer[str]
    number: str
    opaque: bool
    prefix: str
    sequence: int
    time: str
    value: int
    worker: int
    def __init__(self, kind: _Optional[str] = ..., encoding: _Optional[str] = ..., value: _Optional[int] = ..., layout: _Optional[str] = ..., time: _Optional[str] = ..., worker: _Optional[int] = ..., sequence: _Optional[int] = ..., prefix: _Optional[str] = ..., number: _Optional[str] = ..., node_tag: _Optional[str] = ..., guid_version: _Optional[int] = ..., notes: _Optional[_Iterable[str]] = ..., opaque: bool = ...) -> None: ...

class GenerateRequest(_message.Message):
    __slots__ = ["claim", "count", "database", "guid_version", "id", "numeric", "owner", "request_id"]
    CLAIM_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    GUID_VERSION_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NUMERIC_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    claim: bool
    count: int
    database: str
    guid_version: GuidVersion
    id: str
    numeric: bool
    owner: str
    request_id: str
    def __init__(self, id: _Optional[str] = ..., count: _Optional[int] = ..., request_id: _Optional[str] = ..., guid_version: _Optional[_Union[GuidVersion, str]] = ..., database: _Optional[str] = ..., claim: bool = ..., owner: _Optional[str] = ..., numeric: bool = ...) -> None: ...

class GenerateResponse(_message.Message):
    __slots__ = ["ids"]
    IDS_FIELD_NUMBER: _ClassVar[int]
    ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, ids: _Optional[_Iterable[str]] = ...) -> None: ...

class GetClaimsRequest(_message.Message):
    __slots__ = ["database", "ids", "page_size", "page_token", "prefix"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    database: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    page_size: int
    page_token: str
    prefix: str
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., prefix: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class GetClaimsResponse(_message.Message):
    __slots__ = ["claims", "next_page_token"]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    claims: _containers.RepeatedCompositeFieldContainer[Claim]
    next_page_token: str
    def __init__(self, claims: _Optional[_Iterable[_Union[Claim, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class Headroom(_message.Message):
    __slots__ = ["certificates", "databases", "disk_free_bytes", "disk_full_in_days", "numeric_years_left", "thresholds"]
    class NumericYearsLeftEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    CERTIFICATES_FIELD_NUMBER: _ClassVar[int]
    DATABASES_FIELD_NUMBER: _ClassVar[int]
    DISK_FREE_BYTES_FIELD_NUMBER: _ClassVar[int]
    DISK_FULL_IN_DAYS_FIELD_NUMBER: _ClassVar[int]
    NUMERIC_YEARS_LEFT_FIELD_NUMBER: _ClassVar[int]
    THRESHOLDS_FIELD_NUMBER: _ClassVar[int]
    certificates: _containers.RepeatedCompositeFieldContainer[CertificateExpiry]
    databases: _containers.RepeatedCompositeFieldContainer[DatabaseHeadroom]
    disk_free_bytes: int
    disk_full_in_days: float
    numeric_years_left: _containers.ScalarMap[str, float]
    thresholds: HeadroomThresholds
    def __init__(self, databases: _Optional[_Iterable[_Union[DatabaseHeadroom, _Mapping]]] = ..., numeric_years_left: _Optional[_Mapping[str, float]] = ..., disk_free_bytes: _Optional[int] = ..., disk_full_in_days: _Optional[float] = ..., certificates: _Optional[_Iterable[_Union[CertificateExpiry, _Mapping]]] = ..., thresholds: _Optional[_Union[HeadroomThresholds, _Mapping]] = ...) -> None: ...

class HeadroomThresholds(_message.Message):
    __slots__ = ["certificate_days_left", "clock_offset_seconds", "counter_headroom_ratio", "disk_full_in_days", "numeric_years_left", "workers_available_ratio"]
    CERTIFICATE_DAYS_LEFT_FIELD_NUMBER: _ClassVar[int]
    CLOCK_OFFSET_SECONDS_FIELD_NUMBER: _ClassVar[int]
    COUNTER_HEADROOM_RATIO_FIELD_NUMBER: _ClassVar[int]
    DISK_FULL_IN_DAYS_FIELD_NUMBER: _ClassVar[int]
    NUMERIC_YEARS_LEFT_FIELD_NUMBER: _ClassVar[int]
    WORKERS_AVAILABLE_RATIO_FIELD_NUMBER: _ClassVar[int]
    certificate_days_left: float
    clock_offset_seconds: float
    counter_headroom_ratio: float
    disk_full_in_days: float
    numeric_years_left: float
    workers_available_ratio: float
    def __init__(self, numeric_years_left: _Optional[float] = ..., workers_available_ratio: _Optional[float] = ..., counter_headroom_ratio: _Optional[float] = ..., disk_full_in_days: _Optional[float] = ..., certificate_days_left: _Optional[float] = ..., clock_offset_seconds: _Optional[float] = ...) -> None: ...

class HiLoPool(_message.Message):
    __slots__ = ["answered", "node", "remaining", "reserved", "target", "topped_up_ms"]
    ANSWERED_FIELD_NUMBER: _ClassVar[int]
    NODE_FIELD_NUMBER: _ClassVar[int]
    REMAINING_FIELD_NUMBER: _ClassVar[int]
    RESERVED_FIELD_NUMBER: _ClassVar[int]
    TARGET_FIELD_NUMBER: _ClassVar[int]
    TOPPED_UP_MS_FIELD_NUMBER: _ClassVar[int]
    answered: bool
    node: str
    remaining: int
    reserved: int
    target: int
    topped_up_ms: int
    def __init__(self, node: _Optional[str] = ..., reserved: _Optional[int] = ..., answered: bool = ..., remaining: _Optional[int] = ..., target: _Optional[int] = ..., topped_up_ms: _Optional[int] = ...) -> None: ...

class HiLoTag(_message.Message):
    __slots__ = ["floor", "max", "pools", "tag"]
    FLOOR_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    POOLS_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    floor: int
    max: int
    pools: _containers.RepeatedCompositeFieldContainer[HiLoPool]
    tag: str
    def __init__(self, tag: _Optional[str] = ..., max: _Optional[int] = ..., floor: _Optional[int] = ..., pools: _Optional[_Iterable[_Union[HiLoPool, _Mapping]]] = ...) -> None: ...

class Identity(_message.Message):
    __slots__ = ["name", "opaque", "value"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    opaque: bool
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., opaque: bool = ...) -> None: ...

class IssueRequest(_message.Message):
    __slots__ = ["actor", "database", "document_hash", "fields", "request_id", "series"]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_HASH_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    actor: str
    database: str
    document_hash: str
    fields: _containers.RepeatedCompositeFieldContainer[SeriesField]
    request_id: str
    series: str
    def __init__(self, database: _Optional[str] = ..., series: _Optional[str] = ..., request_id: _Optional[str] = ..., document_hash: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[SeriesField, _Mapping]]] = ..., actor: _Optional[str] = ...) -> None: ...

class IssueResponse(_message.Message):
    __slots__ = ["entry"]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: SeriesEntry
    def __init__(self, entry: _Optional[_Union[SeriesEntry, _Mapping]] = ...) -> None: ...

class JournalRequest(_message.Message):
    __slots__ = ["database", "from_seq", "series", "to_seq"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    FROM_SEQ_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    TO_SEQ_FIELD_NUMBER: _ClassVar[int]
    database: str
    from_seq: int
    series: str
    to_seq: int
    def __init__(self, database: _Optional[str] = ..., series: _Optional[str] = ..., from_seq: _Optional[int] = ..., to_seq: _Optional[int] = ...) -> None: ...

class KeyStatus(_message.Message):
    __slots__ = ["database", "id", "role"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    ROLE_FIELD_NUMBER: _ClassVar[int]
    database: str
    id: str
    role: str
    def __init__(self, id: _Optional[str] = ..., database: _Optional[str] = ..., role: _Optional[str] = ...) -> None: ...

class LeaderChange(_message.Message):
    __slots__ = ["at_ms", "leader", "term"]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    at_ms: int
    leader: str
    term: int
    def __init__(self, at_ms: _Optional[int] = ..., leader: _Optional[str] = ..., term: _Optional[int] = ...) -> None: ...

class ListDatabasesRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListDatabasesResponse(_message.Message):
    __slots__ = ["databases"]
    DATABASES_FIELD_NUMBER: _ClassVar[int]
    databases: _containers.RepeatedCompositeFieldContainer[DatabaseStatus]
    def __init__(self, databases: _Optional[_Iterable[_Union[DatabaseStatus, _Mapping]]] = ...) -> None: ...

class ListHiLoRequest(_message.Message):
    __slots__ = ["database", "page_size", "page_token", "prefix"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    database: str
    page_size: int
    page_token: str
    prefix: str
    def __init__(self, prefix: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class ListHiLoResponse(_message.Message):
    __slots__ = ["next_page_token", "tags"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    tags: _containers.RepeatedCompositeFieldContainer[HiLoTag]
    def __init__(self, tags: _Optional[_Iterable[_Union[HiLoTag, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListIdentitiesRequest(_message.Message):
    __slots__ = ["database", "page_size", "page_token", "prefix"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    database: str
    page_size: int
    page_token: str
    prefix: str
    def __init__(self, prefix: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class ListIdentitiesResponse(_message.Message):
    __slots__ = ["identities", "next_page_token"]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    identities: _containers.RepeatedCompositeFieldContainer[Identity]
    next_page_token: str
    def __init__(self, identities: _Optional[_Iterable[_Union[Identity, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class ListKeysRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class ListKeysResponse(_message.Message):
    __slots__ = ["keys"]
    KEYS_FIELD_NUMBER: _ClassVar[int]
    keys: _containers.RepeatedCompositeFieldContainer[KeyStatus]
    def __init__(self, keys: _Optional[_Iterable[_Union[KeyStatus, _Mapping]]] = ...) -> None: ...

class ListSeriesRequest(_message.Message):
    __slots__ = ["database"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    database: str
    def __init__(self, database: _Optional[str] = ...) -> None: ...

class ListSeriesResponse(_message.Message):
    __slots__ = ["series"]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    series: _containers.RepeatedCompositeFieldContainer[Series]
    def __init__(self, series: _Optional[_Iterable[_Union[Series, _Mapping]]] = ...) -> None: ...

class ListWorkersRequest(_message.Message):
    __slots__ = ["database", "page_size", "page_token"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    database: str
    page_size: int
    page_token: str
    def __init__(self, database: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListWorkersResponse(_message.Message):
    __slots__ = ["next_page_token", "workers"]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    next_page_token: str
    workers: _containers.RepeatedCompositeFieldContainer[WorkerLease]
    def __init__(self, workers: _Optional[_Iterable[_Union[WorkerLease, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MakeOpaqueRequest(_message.Message):
    __slots__ = ["collections", "database", "numeric"]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    NUMERIC_FIELD_NUMBER: _ClassVar[int]
    collections: _containers.RepeatedScalarFieldContainer[str]
    database: str
    numeric: bool
    def __init__(self, database: _Optional[str] = ..., collections: _Optional[_Iterable[str]] = ..., numeric: bool = ...) -> None: ...

class MemberVersion(_message.Message):
    __slots__ = ["build", "tag", "version", "voter"]
    BUILD_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VOTER_FIELD_NUMBER: _ClassVar[int]
    build: str
    tag: str
    version: int
    voter: bool
    def __init__(self, tag: _Optional[str] = ..., version: _Optional[int] = ..., build: _Optional[str] = ..., voter: bool = ...) -> None: ...

class NextHiLoRequest(_message.Message):
    __slots__ = ["database", "last_batch_size", "last_max", "last_range_at", "request_id", "separator", "tag"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    LAST_BATCH_SIZE_FIELD_NUMBER: _ClassVar[int]
    LAST_MAX_FIELD_NUMBER: _ClassVar[int]
    LAST_RANGE_AT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEPARATOR_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    database: str
    last_batch_size: int
    last_max: int
    last_range_at: int
    request_id: str
    separator: str
    tag: str
    def __init__(self, tag: _Optional[str] = ..., last_batch_size: _Optional[int] = ..., last_range_at: _Optional[int] = ..., last_max: _Optional[int] = ..., separator: _Optional[str] = ..., request_id: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class NextHiLoResponse(_message.Message):
    __slots__ = ["grant_id", "high", "last_range_at", "last_size", "low", "prefix", "server_tag"]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LAST_RANGE_AT_FIELD_NUMBER: _ClassVar[int]
    LAST_SIZE_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    PREFIX_FIELD_NUMBER: _ClassVar[int]
    SERVER_TAG_FIELD_NUMBER: _ClassVar[int]
    grant_id: str
    high: int
    last_range_at: int
    last_size: int
    low: int
    prefix: str
    server_tag: str
    def __init__(self, prefix: _Optional[str] = ..., low: _Optional[int] = ..., high: _Optional[int] = ..., last_size: _Optional[int] = ..., server_tag: _Optional[str] = ..., last_range_at: _Optional[int] = ..., grant_id: _Optional[str] = ...) -> None: ...

class NextIdentityRequest(_message.Message):
    __slots__ = ["count", "database", "name", "request_id"]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    count: int
    database: str
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ..., request_id: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class NextIdentityResponse(_message.Message):
    __slots__ = ["first", "last", "skipped"]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    first: int
    last: int
    skipped: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, first: _Optional[int] = ..., last: _Optional[int] = ..., skipped: _Optional[_Iterable[int]] = ...) -> None: ...

class NodeStatus(_message.Message):
    __slots__ = ["applied_index", "clock_offset_measured", "clock_offset_seconds", "commit_index", "diverged_at_index", "grpc_address", "id", "join_unfinished", "raft_address", "reachable", "state", "storage_fault", "supported_version", "tag", "version", "voter"]
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    CLOCK_OFFSET_MEASURED_FIELD_NUMBER: _ClassVar[int]
    CLOCK_OFFSET_SECONDS_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    DIVERGED_AT_INDEX_FIELD_NUMBER: _ClassVar[int]
    GRPC_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    JOIN_UNFINISHED_FIELD_NUMBER: _ClassVar[int]
    RAFT_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    REACHABLE_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    STORAGE_FAULT_FIELD_NUMBER: _ClassVar[int]
    SUPPORTED_VERSION_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    VOTER_FIELD_NUMBER: _ClassVar[int]
    applied_index: int
    clock_offset_measured: bool
    clock_offset_seconds: float
    commit_index: int
    diverged_at_index: int
    grpc_address: str
    id: str
    join_unfinished: bool
    raft_address: str
    reachable: bool
    state: str
    storage_fault: str
    supported_version: int
    tag: str
    version: str
    voter: bool
    def __init__(self, tag: _Optional[str] = ..., id: _Optional[str] = ..., raft_address: _Optional[str] = ..., grpc_address: _Optional[str] = ..., voter: bool = ..., state: _Optional[str] = ..., reachable: bool = ..., version: _Optional[str] = ..., join_unfinished: bool = ..., applied_index: _Optional[int] = ..., commit_index: _Optional[int] = ..., storage_fault: _Optional[str] = ..., supported_version: _Optional[int] = ..., clock_offset_seconds: _Optional[float] = ..., clock_offset_measured: bool = ..., diverged_at_index: _Optional[int] = ...) -> None: ...

class OpaqueStatus(_message.Message):
    __slots__ = ["collections", "database", "key_fingerprint", "numeric"]
    COLLECTIONS_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    KEY_FINGERPRINT_FIELD_NUMBER: _ClassVar[int]
    NUMERIC_FIELD_NUMBER: _ClassVar[int]
    collections: _containers.RepeatedScalarFieldContainer[str]
    database: str
    key_fingerprint: str
    numeric: bool
    def __init__(self, database: _Optional[str] = ..., collections: _Optional[_Iterable[str]] = ..., numeric: bool = ..., key_fingerprint: _Optional[str] = ...) -> None: ...

class RatesMargin(_message.Message):
    __slots__ = ["age_ms", "factor", "hilo_per_second", "identities_per_second", "recorded", "taken_at_ms", "taken_in_future"]
    AGE_MS_FIELD_NUMBER: _ClassVar[int]
    FACTOR_FIELD_NUMBER: _ClassVar[int]
    HILO_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    TAKEN_AT_MS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_IN_FUTURE_FIELD_NUMBER: _ClassVar[int]
    age_ms: int
    factor: int
    hilo_per_second: float
    identities_per_second: float
    recorded: bool
    taken_at_ms: int
    taken_in_future: bool
    def __init__(self, recorded: bool = ..., identities_per_second: _Optional[float] = ..., hilo_per_second: _Optional[float] = ..., age_ms: _Optional[int] = ..., taken_in_future: bool = ..., factor: _Optional[int] = ..., taken_at_ms: _Optional[int] = ...) -> None: ...

class ReleaseOwnerRequest(_message.Message):
    __slots__ = ["database", "owner"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    database: str
    owner: str
    def __init__(self, owner: _Optional[str] = ..., database: _Optional[str] = ...) -> None: ...

class ReleaseRequest(_message.Message):
    __slots__ = ["database", "ids", "owner", "request_id"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    IDS_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    database: str
    ids: _containers.RepeatedScalarFieldContainer[str]
    owner: str
    request_id: str
    def __init__(self, ids: _Optional[_Iterable[str]] = ..., owner: _Optional[str] = ..., database: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReleaseResponse(_message.Message):
    __slots__ = ["released"]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    released: int
    def __init__(self, released: _Optional[int] = ...) -> None: ...

class ReleaseWorkerRequest(_message.Message):
    __slots__ = ["database", "epoch", "worker"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    database: str
    epoch: int
    worker: int
    def __init__(self, database: _Optional[str] = ..., worker: _Optional[int] = ..., epoch: _Optional[int] = ...) -> None: ...

class ReleaseWorkerResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RemoveNodeRequest(_message.Message):
    __slots__ = ["tag"]
    TAG_FIELD_NUMBER: _ClassVar[int]
    tag: str
    def __init__(self, tag: _Optional[str] = ...) -> None: ...

class RemoveNodeResponse(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class RenewWorkerRequest(_message.Message):
    __slots__ = ["database", "epoch", "lease_ms", "worker"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    LEASE_MS_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    database: str
    epoch: int
    lease_ms: int
    worker: int
    def __init__(self, database: _Optional[str] = ..., worker: _Optional[int] = ..., epoch: _Optional[int] = ..., lease_ms: _Optional[int] = ...) -> None: ...

class ReplicaCheck(_message.Message):
    __slots__ = ["at_ms", "index", "majority_digest", "members", "mismatches"]
    AT_MS_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    MAJORITY_DIGEST_FIELD_NUMBER: _ClassVar[int]
    MEMBERS_FIELD_NUMBER: _ClassVar[int]
    MISMATCHES_FIELD_NUMBER: _ClassVar[int]
    at_ms: int
    index: int
    majority_digest: bytes
    members: _containers.RepeatedCompositeFieldContainer[ReplicaDigest]
    mismatches: int
    def __init__(self, index: _Optional[int] = ..., at_ms: _Optional[int] = ..., majority_digest: _Optional[bytes] = ..., members: _Optional[_Iterable[_Union[ReplicaDigest, _Mapping]]] = ..., mismatches: _Optional[int] = ...) -> None: ...

class ReplicaDigest(_message.Message):
    __slots__ = ["detail", "digest", "tag", "verdict"]
    DETAIL_FIELD_NUMBER: _ClassVar[int]
    DIGEST_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    VERDICT_FIELD_NUMBER: _ClassVar[int]
    detail: str
    digest: bytes
    tag: str
    verdict: str
    def __init__(self, tag: _Optional[str] = ..., digest: _Optional[bytes] = ..., verdict: _Optional[str] = ..., detail: _Optional[str] = ...) -> None: ...

class RestoreChunk(_message.Message):
    __slots__ = ["ahead", "data"]
    AHEAD_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    ahead: RestoreMargin
    data: bytes
    def __init__(self, data: _Optional[bytes] = ..., ahead: _Optional[_Union[RestoreMargin, _Mapping]] = ...) -> None: ...

class RestoreMargin(_message.Message):
    __slots__ = ["by_rates", "hilo", "identities"]
    BY_RATES_FIELD_NUMBER: _ClassVar[int]
    HILO_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    by_rates: bool
    hilo: CounterMargin
    identities: CounterMargin
    def __init__(self, identities: _Optional[_Union[CounterMargin, _Mapping]] = ..., hilo: _Optional[_Union[CounterMargin, _Mapping]] = ..., by_rates: bool = ...) -> None: ...

class RestoreResponse(_message.Message):
    __slots__ = ["ahead", "claims", "claims_restored", "hilo_raised", "hilo_skipped_max", "hilo_skipped_min", "hilo_tags", "identities", "identities_raised", "identities_skipped_max", "identities_skipped_min", "opaque_databases", "opaque_restored", "rates", "series", "series_entries_restored", "tags", "tags_retired", "workers", "workers_raised"]
    AHEAD_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_FIELD_NUMBER: _ClassVar[int]
    CLAIMS_RESTORED_FIELD_NUMBER: _ClassVar[int]
    HILO_RAISED_FIELD_NUMBER: _ClassVar[int]
    HILO_SKIPPED_MAX_FIELD_NUMBER: _ClassVar[int]
    HILO_SKIPPED_MIN_FIELD_NUMBER: _ClassVar[int]
    HILO_TAGS_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_RAISED_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_SKIPPED_MAX_FIELD_NUMBER: _ClassVar[int]
    IDENTITIES_SKIPPED_MIN_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_DATABASES_FIELD_NUMBER: _ClassVar[int]
    OPAQUE_RESTORED_FIELD_NUMBER: _ClassVar[int]
    RATES_FIELD_NUMBER: _ClassVar[int]
    SERIES_ENTRIES_RESTORED_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    TAGS_FIELD_NUMBER: _ClassVar[int]
    TAGS_RETIRED_FIELD_NUMBER: _ClassVar[int]
    WORKERS_FIELD_NUMBER: _ClassVar[int]
    WORKERS_RAISED_FIELD_NUMBER: _ClassVar[int]
    ahead: RestoreMargin
    claims: int
    claims_restored: int
    hilo_raised: int
    hilo_skipped_max: int
    hilo_skipped_min: int
    hilo_tags: int
    identities: int
    identities_raised: int
    identities_skipped_max: int
    identities_skipped_min: int
    opaque_databases: int
    opaque_restored: int
    rates: RatesMargin
    series: int
    series_entries_restored: int
    tags: int
    tags_retired: int
    workers: int
    workers_raised: int
    def __init__(self, identities_raised: _Optional[int] = ..., hilo_raised: _Optional[int] = ..., tags_retired: _Optional[int] = ..., identities: _Optional[int] = ..., hilo_tags: _Optional[int] = ..., tags: _Optional[int] = ..., claims: _Optional[int] = ..., claims_restored: _Optional[int] = ..., series: _Optional[int] = ..., series_entries_restored: _Optional[int] = ..., workers: _Optional[int] = ..., workers_raised: _Optional[int] = ..., ahead: _Optional[_Union[RestoreMargin, _Mapping]] = ..., identities_skipped_min: _Optional[int] = ..., identities_skipped_max: _Optional[int] = ..., hilo_skipped_min: _Optional[int] = ..., hilo_skipped_max: _Optional[int] = ..., opaque_databases: _Optional[int] = ..., opaque_restored: _Optional[int] = ..., rates: _Optional[_Union[RatesMargin, _Mapping]] = ...) -> None: ...

class ReturnHiLoRequest(_message.Message):
    __slots__ = ["database", "end", "grant_id", "last", "request_id", "tag"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    GRANT_ID_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    database: str
    end: int
    grant_id: str
    last: int
    request_id: str
    tag: str
    def __init__(self, tag: _Optional[str] = ..., end: _Optional[int] = ..., last: _Optional[int] = ..., database: _Optional[str] = ..., grant_id: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ReturnHiLoResponse(_message.Message):
    __slots__ = ["returned"]
    RETURNED_FIELD_NUMBER: _ClassVar[int]
    returned: bool
    def __init__(self, returned: bool = ...) -> None: ...

class SeedHiLoRequest(_message.Message):
    __slots__ = ["database", "max", "tag"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    TAG_FIELD_NUMBER: _ClassVar[int]
    database: str
    max: int
    tag: str
    def __init__(self, tag: _Optional[str] = ..., max: _Optional[int] = ..., database: _Optional[str] = ...) -> None: ...

class SeedHiLoResponse(_message.Message):
    __slots__ = ["max"]
    MAX_FIELD_NUMBER: _ClassVar[int]
    max: int
    def __init__(self, max: _Optional[int] = ...) -> None: ...

class SeedIdentityRequest(_message.Message):
    __slots__ = ["database", "force", "name", "value"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    FORCE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    database: str
    force: bool
    name: str
    value: int
    def __init__(self, name: _Optional[str] = ..., value: _Optional[int] = ..., force: bool = ..., database: _Optional[str] = ...) -> None: ...

class SeedIdentityResponse(_message.Message):
    __slots__ = ["value"]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class Series(_message.Message):
    __slots__ = ["created_at_ms", "created_by", "current_period", "database", "entries", "format", "head_hash", "issued", "last_number", "name", "period", "policy", "voided"]
    CREATED_AT_MS_FIELD_NUMBER: _ClassVar[int]
    CREATED_BY_FIELD_NUMBER: _ClassVar[int]
    CURRENT_PERIOD_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    HEAD_HASH_FIELD_NUMBER: _ClassVar[int]
    ISSUED_FIELD_NUMBER: _ClassVar[int]
    LAST_NUMBER_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    POLICY_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    created_at_ms: int
    created_by: str
    current_period: str
    database: str
    entries: int
    format: str
    head_hash: str
    issued: int
    last_number: int
    name: str
    period: SeriesPeriod
    policy: SeriesPolicy
    voided: int
    def __init__(self, database: _Optional[str] = ..., name: _Optional[str] = ..., format: _Optional[str] = ..., period: _Optional[_Union[SeriesPeriod, str]] = ..., policy: _Optional[_Union[SeriesPolicy, str]] = ..., created_at_ms: _Optional[int] = ..., created_by: _Optional[str] = ..., entries: _Optional[int] = ..., current_period: _Optional[str] = ..., last_number: _Optional[int] = ..., issued: _Optional[int] = ..., voided: _Optional[int] = ..., head_hash: _Optional[str] = ...) -> None: ...

class SeriesEntry(_message.Message):
    __slots__ = ["actor", "correcting", "database", "document_hash", "fields", "hash", "id", "kind", "number", "period", "prev_hash", "reason", "request_id", "seq", "series", "time_ms"]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CORRECTING_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_HASH_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    HASH_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    PREV_HASH_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    actor: str
    correcting: str
    database: str
    document_hash: str
    fields: _containers.RepeatedCompositeFieldContainer[SeriesField]
    hash: str
    id: str
    kind: SeriesEntryKind
    number: int
    period: str
    prev_hash: str
    reason: str
    request_id: str
    seq: int
    series: str
    time_ms: int
    def __init__(self, database: _Optional[str] = ..., series: _Optional[str] = ..., seq: _Optional[int] = ..., kind: _Optional[_Union[SeriesEntryKind, str]] = ..., period: _Optional[str] = ..., number: _Optional[int] = ..., id: _Optional[str] = ..., time_ms: _Optional[int] = ..., request_id: _Optional[str] = ..., document_hash: _Optional[str] = ..., fields: _Optional[_Iterable[_Union[SeriesField, _Mapping]]] = ..., actor: _Optional[str] = ..., reason: _Optional[str] = ..., correcting: _Optional[str] = ..., prev_hash: _Optional[str] = ..., hash: _Optional[str] = ...) -> None: ...

class SeriesField(_message.Message):
    __slots__ = ["key", "value"]
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class SetClusterVersionRequest(_message.Message):
    __slots__ = ["version"]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    version: int
    def __init__(self, version: _Optional[int] = ...) -> None: ...

class StatusRequest(_message.Message):
    __slots__ = ["consistent"]
    CONSISTENT_FIELD_NUMBER: _ClassVar[int]
    consistent: bool
    def __init__(self, consistent: bool = ...) -> None: ...

class StatusResponse(_message.Message):
    __slots__ = ["applied_index", "cluster_version", "commit_index", "headroom", "issued", "leader", "leader_changes", "nodes", "replica_check", "self", "storage_fault", "term"]
    class IssuedEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    APPLIED_INDEX_FIELD_NUMBER: _ClassVar[int]
    CLUSTER_VERSION_FIELD_NUMBER: _ClassVar[int]
    COMMIT_INDEX_FIELD_NUMBER: _ClassVar[int]
    HEADROOM_FIELD_NUMBER: _ClassVar[int]
    ISSUED_FIELD_NUMBER: _ClassVar[int]
    LEADER_CHANGES_FIELD_NUMBER: _ClassVar[int]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    REPLICA_CHECK_FIELD_NUMBER: _ClassVar[int]
    SELF_FIELD_NUMBER: _ClassVar[int]
    STORAGE_FAULT_FIELD_NUMBER: _ClassVar[int]
    TERM_FIELD_NUMBER: _ClassVar[int]
    applied_index: int
    cluster_version: ClusterVersionResponse
    commit_index: int
    headroom: Headroom
    issued: _containers.ScalarMap[str, int]
    leader: str
    leader_changes: _containers.RepeatedCompositeFieldContainer[LeaderChange]
    nodes: _containers.RepeatedCompositeFieldContainer[NodeStatus]
    replica_check: ReplicaCheck
    self: str
    storage_fault: str
    term: int
    def __init__(__self, leader: _Optional[str] = ..., term: _Optional[int] = ..., commit_index: _Optional[int] = ..., nodes: _Optional[_Iterable[_Union[NodeStatus, _Mapping]]] = ..., self: _Optional[str] = ..., applied_index: _Optional[int] = ..., storage_fault: _Optional[str] = ..., leader_changes: _Optional[_Iterable[_Union[LeaderChange, _Mapping]]] = ..., issued: _Optional[_Mapping[str, int]] = ..., cluster_version: _Optional[_Union[ClusterVersionResponse, _Mapping]] = ..., headroom: _Optional[_Union[Headroom, _Mapping]] = ..., replica_check: _Optional[_Union[ReplicaCheck, _Mapping]] = ...) -> None: ...

class TransferLeadershipRequest(_message.Message):
    __slots__ = ["tag"]
    TAG_FIELD_NUMBER: _ClassVar[int]
    tag: str
    def __init__(self, tag: _Optional[str] = ...) -> None: ...

class TransferLeadershipResponse(_message.Message):
    __slots__ = ["leader"]
    LEADER_FIELD_NUMBER: _ClassVar[int]
    leader: str
    def __init__(self, leader: _Optional[str] = ...) -> None: ...

class VerifySeriesRequest(_message.Message):
    __slots__ = ["database", "series"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    database: str
    series: str
    def __init__(self, database: _Optional[str] = ..., series: _Optional[str] = ...) -> None: ...

class VerifySeriesResponse(_message.Message):
    __slots__ = ["break_reason", "break_seq", "entries", "issued", "ok", "voided"]
    BREAK_REASON_FIELD_NUMBER: _ClassVar[int]
    BREAK_SEQ_FIELD_NUMBER: _ClassVar[int]
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    ISSUED_FIELD_NUMBER: _ClassVar[int]
    OK_FIELD_NUMBER: _ClassVar[int]
    VOIDED_FIELD_NUMBER: _ClassVar[int]
    break_reason: str
    break_seq: int
    entries: int
    issued: int
    ok: bool
    voided: int
    def __init__(self, ok: bool = ..., entries: _Optional[int] = ..., issued: _Optional[int] = ..., voided: _Optional[int] = ..., break_seq: _Optional[int] = ..., break_reason: _Optional[str] = ...) -> None: ...

class VoidRequest(_message.Message):
    __slots__ = ["actor", "correcting", "database", "number", "period", "reason", "request_id", "series"]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    CORRECTING_FIELD_NUMBER: _ClassVar[int]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    NUMBER_FIELD_NUMBER: _ClassVar[int]
    PERIOD_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    actor: str
    correcting: str
    database: str
    number: int
    period: str
    reason: str
    request_id: str
    series: str
    def __init__(self, database: _Optional[str] = ..., series: _Optional[str] = ..., period: _Optional[str] = ..., number: _Optional[int] = ..., reason: _Optional[str] = ..., correcting: _Optional[str] = ..., request_id: _Optional[str] = ..., actor: _Optional[str] = ...) -> None: ...

class VoidResponse(_message.Message):
    __slots__ = ["entry"]
    ENTRY_FIELD_NUMBER: _ClassVar[int]
    entry: SeriesEntry
    def __init__(self, entry: _Optional[_Union[SeriesEntry, _Mapping]] = ...) -> None: ...

class WhoAmIRequest(_message.Message):
    __slots__ = []
    def __init__(self) -> None: ...

class WhoAmIResponse(_message.Message):
    __slots__ = ["admin", "key", "keys_required"]
    ADMIN_FIELD_NUMBER: _ClassVar[int]
    KEYS_REQUIRED_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    admin: str
    key: KeyStatus
    keys_required: bool
    def __init__(self, admin: _Optional[str] = ..., keys_required: bool = ..., key: _Optional[_Union[KeyStatus, _Mapping]] = ...) -> None: ...

class WorkerLease(_message.Message):
    __slots__ = ["database", "epoch", "expires_at_ms", "holder", "max_ms", "min_ms", "worker"]
    DATABASE_FIELD_NUMBER: _ClassVar[int]
    EPOCH_FIELD_NUMBER: _ClassVar[int]
    EXPIRES_AT_MS_FIELD_NUMBER: _ClassVar[int]
    HOLDER_FIELD_NUMBER: _ClassVar[int]
    MAX_MS_FIELD_NUMBER: _ClassVar[int]
    MIN_MS_FIELD_NUMBER: _ClassVar[int]
    WORKER_FIELD_NUMBER: _ClassVar[int]
    database: str
    epoch: int
    expires_at_ms: int
    holder: str
    max_ms: int
    min_ms: int
    worker: int
    def __init__(self, database: _Optional[str] = ..., worker: _Optional[int] = ..., epoch: _Optional[int] = ..., holder: _Optional[str] = ..., min_ms: _Optional[int] = ..., max_ms: _Optional[int] = ..., expires_at_ms: _Optional[int] = ...) -> None: ...

class GuidVersion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SeriesPeriod(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SeriesPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class SeriesEntryKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
