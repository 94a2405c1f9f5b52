import { ClosedError, Code, errorOf, invalidInput } from "./errors.js";
import { collectionName } from "./entity.js";
import { IdentityFold } from "./fold.js";
import { HiLoGenerator, HiLoGenerators, HiLoOptions, HiLoRange, HiLoReturn, NextHiLoRequest, RangeSource, ReturnOptions, checkSeparator, newRequestId } from "./hilo.js";
import { Json, JsonObject, big, bool, count, int64, list, num, object, str, strings, whole } from "./json.js";
import { Logger, SILENT } from "./log.js";
import { MAX_LEASE_MS, MIN_LEASE_MS, NumericGenerator, NumericOptions, WorkerLease, WorkerLeaser } from "./numeric.js";
import { Refusals } from "./refusals.js";
import { RestoreOptions, RestoreResult, askedMargin, marginJson, restoreResult } from "./restore.js";
import {
  ApiRequest,
  Backoff,
  CallOptions,
  DEFAULT_ATTEMPT_TIMEOUT_MS,
  DEFAULT_BACKOFF,
  DEFAULT_CLOSE_TIMEOUT_MS,
  DEFAULT_TIMEOUT_MS,
  Deadline,
  FetchFunction,
  Interceptor,
  Route,
  Transport,
  timeoutOf,
} from "./transport.js";

export interface ClientOptions {
  /** An API key (`idk_…`), sent as `Authorization: Bearer`; needed once the cluster has keys. */
  apiKey?: string;
  /** The cluster's admin token (idnode --admin-token-file), for admin calls; instead of apiKey. */
  adminToken?: string;
  /** The database every call works in (default: the cluster's default database). */
  database?: string;
  /** The deadline of a call that names none, retries included (ms, default 30 000). */
  timeoutMs?: number;
  /** Bounds one attempt on one node (ms, default 3000); then the next node is tried. */
  attemptTimeoutMs?: number;
  /** The wait between rounds of attempts; fields left out take DEFAULT_BACKOFF's. */
  backoff?: Partial<Backoff>;
  /** Start every call at the first node given instead of a random one (for an operator's tool). */
  nodesInOrder?: boolean;
  /**
   * The client's region, such as "eu-west-1": calls any node answers (server-side IDs, GUIDs,
   * semantic IDs, numeric IDs a node mints, HiLo ranges, explain, status) go to a node of this
   * region first, then to the other regions' nodes; identities, series, claims and worker
   * leases go to the leader wherever it is. Needs nodeRegions.
   */
  region?: string;
  /**
   * Each node's region, keyed by the address given to the client (its --region); a node left
   * out is in another region. Needs region, which at least one node must be in.
   */
  nodeRegions?: Readonly<Record<string, string>>;
  /** The cluster's separator (default "/"). */
  separator?: string;
  /** Options of the HiLo generators the client makes (hilo(), nextId()). */
  hilo?: Omit<HiLoOptions, "separator">;
  /** The fetch to use (default: the platform's), e.g. one that trusts a private CA. */
  fetch?: FetchFunction;
  /**
   * Told of failovers, retry rounds, HiLo numbers that could not be given back and worker
   * leases that could not be renewed; console will do. Nothing is logged per ID. Default: none.
   */
  logger?: Logger;
  /**
   * Wrap every request the client sends, the first outermost (see Interceptor): where tracing
   * and metrics plug in.
   */
  interceptors?: readonly Interceptor[];
  /**
   * Bounds close() when it is given no timeoutMs (ms, default DEFAULT_CLOSE_TIMEOUT_MS, 2 000):
   * HiLo numbers and workers not given back by then are logged and left to lapse.
   */
  closeTimeoutMs?: number;
}

export interface GenerateOptions extends CallOptions {
  /** How many IDs (default 1); only GUIDs, server-side IDs and identities take more than one. */
  count?: number;
  /** Kept across retries; made for identity requests and claims when not given. */
  requestId?: string;
  /** The GUID version of an empty request string: "v7" (the default) or "v4". */
  guidVersion?: "v4" | "v7";
  /** Claim a semantic ID cluster-wide (refused ALREADY_EXISTS/CLAIMED when someone holds it). */
  claim?: boolean;
  owner?: string;
  /** A numeric ID minted by the node (as a decimal string). */
  numeric?: boolean;
}

export interface IdentityBlock {
  first: bigint;
  last: bigint;
  /** Numbers in first..last that were claimed by hand and so not handed out. */
  skipped: bigint[];
}

export interface Identity {
  name: string;
  value: bigint;
}

export interface Claim {
  id: string;
  owner: string;
}

export interface Explanation {
  kind: string;
  encoding: string;
  /** A numeric ID's value. */
  value: bigint;
  layout: string;
  time: string;
  worker: number;
  sequence: bigint;
  prefix: string;
  number: string;
  nodeTag: string;
  guidVersion: number;
  notes: string[];
  /**
   * The ID is an opaque form of the database's (an identity of the collection in prefix). Its
   * value (number, or value, time, worker and sequence) is filled for an admin only.
   */
  opaque: boolean;
}

/** A database's opaque setting, as makeOpaque answers it. */
export interface OpaqueStatus {
  database: string;
  /** Every opaque collection of the database, as stored: folded, sorted. */
  collections: string[];
  /** Whether the database's numeric IDs are opaque too. */
  numeric: boolean;
  /** The first 8 bytes of a hash of the database's key, hex: tells two clusters' keys apart without showing them. */
  keyFingerprint: string;
}

export type SeriesPeriod = "none" | "year" | "month";
export type SeriesPolicy = "gapless" | "gapsAllowedJournaled";

export interface Series {
  name: string;
  format: string;
  period: SeriesPeriod;
  policy: SeriesPolicy;
}

export interface SeriesEntry {
  seq: bigint;
  kind: "issued" | "voided";
  period: string;
  number: bigint;
  id: string;
  hash: string;
  prevHash: string;
  requestId: string;
  reason: string;
  fields: Record<string, string>;
}

export interface SeriesVerification {
  ok: boolean;
  entries: bigint;
  issued: bigint;
  voided: bigint;
  /** The first entry whose hash does not chain (0 when ok). */
  breakSeq: bigint;
  breakReason: string;
}

/** A node as the answering node sees it. */
export interface NodeStatus {
  tag: string;
  id: string;
  raftAddress: string;
  grpcAddress: string;
  voter: boolean;
  /** Its Raft state: "leader", "follower", "candidate", … */
  state: string;
  reachable: boolean;
  version: string;
  joinUnfinished: boolean;
  appliedIndex: bigint;
  commitIndex: bigint;
  storageFault: string;
  supportedVersion: number;
  /** Its wall clock minus the leader's, in seconds, as it last measured it; a measurement only when clockOffsetMeasured. */
  clockOffsetSeconds: number;
  clockOffsetMeasured: boolean;
}

/** A member's build and the cluster version it supports. */
export interface MemberVersion {
  tag: string;
  version: number;
  build: string;
  voter: boolean;
}

/** The cluster version: finalised, in effect, the lowest a downgrade may go to, and each member's. */
export interface ClusterVersion {
  finalised: number;
  effective: number;
  downgradeFloor: number;
  supported: number;
  members: MemberVersion[];
}

export interface LeaderChange {
  atMs: bigint;
  leader: string;
  term: bigint;
}

/** The cluster as the answering node sees it (GET /v1/status). */
export interface ClusterStatus {
  /** The leader's tag; "" when there is none. */
  leader: string;
  term: bigint;
  commitIndex: bigint;
  appliedIndex: bigint;
  nodes: NodeStatus[];
  /** The answering node's tag. */
  self: string;
  storageFault: string;
  leaderChanges: LeaderChange[];
  /** Values handed out, by kind. */
  issued: Record<string, bigint>;
  clusterVersion: ClusterVersion;
}

/** A node's pool of a HiLo tag (under HiLo pools). */
export interface HiLoPool {
  node: string;
  reserved: bigint;
  answered: boolean;
  remaining: bigint;
  target: bigint;
  toppedUpMs: bigint;
}

/** A HiLo tag: the highest number reserved, the floor ranges start above, and its pools. */
export interface HiLoTag {
  tag: string;
  max: bigint;
  floor: bigint;
  pools: HiLoPool[];
}

/** A leased worker id, with its holder and database. */
export interface WorkerStatus extends WorkerLease {
  database: string;
  holder: string;
}

export interface DatabaseStatus {
  name: string;
  identities: bigint;
  hiloTags: bigint;
  claims: bigint;
  /** The database's limits; 0 for none. */
  maxIdentities: bigint;
  maxCallsPerSecond: number;
  maxClaims: bigint;
  /** The opaque collections (folded, sorted), whether numeric IDs are opaque, and the key's fingerprint ("": not opaque). */
  opaqueCollections: string[];
  opaqueNumeric: boolean;
  opaqueKeyFingerprint: string;
}

/** An API key, without its secret. */
export interface KeyStatus {
  id: string;
  database: string;
  /** "reader", "writer" or "admin". */
  role: string;
}

/** A backup of the cluster's replicated state, as restore() takes it. */
export interface Backup {
  /** The backup file's bytes. */
  data: Uint8Array;
  /** The leader that took it, and the Raft index it covers. */
  leader: string;
  index: bigint;
}

/** A node to add to the cluster (addNode). */
export interface NewNode {
  /** Where the other nodes reach its Raft transport (idnode --raft-addr). */
  raftAddress: string;
  /** Where clients and nodes reach its gRPC API (idnode --grpc-addr). */
  grpcAddress: string;
  /** Its tag; the cluster gives the next free one when absent. */
  tag?: string;
  /** Its Raft server ID; its tag when absent. */
  id?: string;
  /** Added as a non-voter, which replicates the log but does not count towards a quorum. */
  nonVoter?: boolean;
}

/** The bytes restore() sends a message: well under a node's largest HTTP body (4 MiB by default) once in base64. */
const RESTORE_CHUNK = 256 * 1024;

function base64(bytes: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

function unbase64(text: string): Uint8Array {
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** What a node makes of the client's credentials. */
export interface WhoAmI {
  /** By what right the client may make admin calls ("" when it may not). */
  admin: string;
  keysRequired: boolean;
  /** The API key the client sent, if any. */
  key: KeyStatus | undefined;
}

const periods: Record<SeriesPeriod, string> = { none: "SERIES_PERIOD_NONE", year: "SERIES_PERIOD_YEAR", month: "SERIES_PERIOD_MONTH" };
const policies: Record<SeriesPolicy, string> = { gapless: "SERIES_POLICY_GAPLESS", gapsAllowedJournaled: "SERIES_POLICY_GAPS_ALLOWED_JOURNALED" };

function enumKey<K extends string>(table: Record<K, string>, value: Json | undefined, dflt: K): K {
  for (const [k, v] of Object.entries(table) as [K, string][]) {
    if (v === value) return k;
  }
  return dflt;
}

/**
 * A path parameter, escaped. An empty one would leave the route's path (the gateway answers 404),
 * so it is refused here with what the node says of an empty name.
 */
function seg(what: string, s: string): string {
  if (s === "") throw invalidInput(`${what} is empty`);
  return encodeURIComponent(s);
}

function identityBlock(o: JsonObject): IdentityBlock {
  return { first: big(o, "first"), last: big(o, "last"), skipped: list(o, "skipped").map((v) => BigInt(typeof v === "string" || typeof v === "number" ? v : 0)) };
}

function seriesEntry(e: JsonObject): SeriesEntry {
  const fields: Record<string, string> = {};
  for (const f of list(e, "fields")) fields[str(object(f), "key")] = str(object(f), "value");
  return {
    seq: big(e, "seq"),
    kind: e.kind === "SERIES_ENTRY_KIND_VOIDED" ? "voided" : "issued",
    period: str(e, "period"),
    number: big(e, "number"),
    id: str(e, "id"),
    hash: str(e, "hash"),
    prevHash: str(e, "prevHash"),
    requestId: str(e, "requestId"),
    reason: str(e, "reason"),
    fields,
  };
}

function clusterVersion(o: JsonObject): ClusterVersion {
  return {
    finalised: num(o, "finalised"),
    effective: num(o, "effective"),
    downgradeFloor: num(o, "downgradeFloor"),
    supported: num(o, "supported"),
    members: list(o, "members").map((m) => {
      const v = object(m);
      return { tag: str(v, "tag"), version: num(v, "version"), build: str(v, "build"), voter: bool(v, "voter") };
    }),
  };
}

function nodeStatus(o: JsonObject): NodeStatus {
  return {
    tag: str(o, "tag"),
    id: str(o, "id"),
    raftAddress: str(o, "raftAddress"),
    grpcAddress: str(o, "grpcAddress"),
    voter: bool(o, "voter"),
    state: str(o, "state"),
    reachable: bool(o, "reachable"),
    version: str(o, "version"),
    joinUnfinished: bool(o, "joinUnfinished"),
    appliedIndex: big(o, "appliedIndex"),
    commitIndex: big(o, "commitIndex"),
    storageFault: str(o, "storageFault"),
    supportedVersion: num(o, "supportedVersion"),
    clockOffsetSeconds: num(o, "clockOffsetSeconds"),
    clockOffsetMeasured: bool(o, "clockOffsetMeasured"),
  };
}

function keyStatus(o: JsonObject): KeyStatus {
  return { id: str(o, "id"), database: str(o, "database"), role: str(o, "role") };
}

function series(s: JsonObject): Series {
  return { name: str(s, "name"), format: str(s, "format"), period: enumKey(periods, s.period, "none"), policy: enumKey(policies, s.policy, "gapless") };
}

function workerLease(o: JsonObject): WorkerLease {
  return { worker: num(o, "worker"), epoch: big(o, "epoch"), minMs: big(o, "minMs"), maxMs: big(o, "maxMs"), expiresAtMs: big(o, "expiresAtMs") };
}

/** The largest worker id of any layout. */
const MAX_WORKER = 2 ** 31 - 1;

/** How many HiLo grants the client remembers the granting node of. */
const MAX_GRANTS = 1024;

/**
 * A client of an idnode cluster over the nodes' HTTP/JSON API. Calls fail over across the nodes
 * it was given: UNAVAILABLE (and NODE_BUSY) go to the next node at once, and once every node
 * failed, again after a backoff (25 ms doubling to 1 s, ±20%), until the call's deadline; calls
 * that reserve values keep one request id across those retries, so a retry never burns values.
 * Raft-backed calls start at the leader once a node named it. Given its region and its nodes'
 * (region, nodeRegions), the client sends the calls any node answers to a node of its region,
 * and leaves the region only while none of its nodes answers. Every error is an IdnodeError.
 *
 *     const client = new Client(["10.0.0.1:7080", "10.0.0.2:7080", "10.0.0.3:7080"]);
 *     const id = await client.nextId("orders");      // "orders/1-A", no round trip after the first
 *     await client.close();                           // gives unused HiLo numbers back
 */
export class Client implements RangeSource, WorkerLeaser {
  private readonly transport: Transport;
  private readonly separator: string;
  private readonly gens: HiLoGenerators;
  private readonly hiloOpts: HiLoOptions;
  private readonly numerics = new Set<NumericGenerator>();
  /** grant id → the node that granted it: a range goes back to the pool it came from. */
  private readonly grants = new Map<string, number>();
  private closing: Promise<void> | null = null;
  private readonly closeTimeoutMs: number;
  private readonly fold: IdentityFold;
  /** Where the client logs (the logger option), its generators included. */
  readonly logger: Logger;

  constructor(nodes: readonly string[], opts: ClientOptions = {}) {
    const backoff: Backoff = { ...DEFAULT_BACKOFF, ...opts.backoff };
    if (!(backoff.initialMs > 0 && backoff.maxMs >= backoff.initialMs && backoff.multiplier >= 1 && backoff.jitter >= 0 && backoff.jitter <= 1)) {
      throw new RangeError(`idnode: backoff needs initialMs > 0, maxMs >= initialMs, multiplier >= 1 and jitter in [0, 1] (got ${JSON.stringify(backoff)})`);
    }
    if (!Number.isSafeInteger(backoff.maxAttempts) || backoff.maxAttempts < 0) {
      throw new RangeError(`idnode: backoff.maxAttempts must be a whole number, 0 for no cap (got ${backoff.maxAttempts})`);
    }
    const attemptTimeoutMs = opts.attemptTimeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS;
    if (!Number.isFinite(attemptTimeoutMs) || attemptTimeoutMs < 0) {
      throw new RangeError(`idnode: attemptTimeoutMs must be a number of milliseconds, 0 for none (got ${attemptTimeoutMs})`);
    }
    const timeoutMs = timeoutOf(opts, DEFAULT_TIMEOUT_MS);
    this.closeTimeoutMs = timeoutOf({ timeoutMs: opts.closeTimeoutMs }, DEFAULT_CLOSE_TIMEOUT_MS);
    this.separator = opts.separator ?? "/";
    checkSeparator(this.separator);
    if (opts.apiKey !== undefined && opts.adminToken !== undefined) {
      throw new TypeError("idnode: a client sends one credential: give apiKey or adminToken, not both");
    }
    this.logger = opts.logger ?? SILENT;
    this.transport = new Transport(nodes, {
      timeoutMs,
      bearer: opts.apiKey ?? opts.adminToken,
      database: opts.database,
      attemptTimeoutMs,
      backoff,
      nodesInOrder: opts.nodesInOrder ?? false,
      region: opts.region,
      nodeRegions: opts.nodeRegions,
      fetch: opts.fetch,
      logger: this.logger,
      interceptors: opts.interceptors ?? [],
    });
    this.hiloOpts = { ...opts.hilo, separator: opts.separator };
    this.gens = new HiLoGenerators(this, this.hiloOpts);
    this.fold = new IdentityFold((name, count, requestId, signal, refusals) => this.sendIdentity(name, { count, requestId, signal }, refusals), timeoutMs);
  }

  /** The nodes' base URLs, as the client uses them. */
  get nodes(): readonly string[] {
    return this.transport.nodes;
  }

  private async call(req: ApiRequest, route: Route, opts?: CallOptions, refusals?: Refusals): Promise<JsonObject> {
    return (await this.transport.call(req, route, opts, refusals)).body;
  }

  /**
   * Resolves a request string ("The five ways to get an ID" in DESIGN.md): "users/ayende" is
   * checked and echoed, "" is a GUID, "users/" a server-side ID, "users|" identities;
   * numeric: true mints numeric IDs.
   */
  async generate(id: string, opts: GenerateOptions = {}): Promise<string[]> {
    const identity = id.endsWith("|") || opts.claim === true;
    const body = {
      id,
      count: count("count", opts.count),
      requestId: opts.requestId ?? (identity ? newRequestId() : undefined),
      guidVersion: opts.guidVersion === undefined ? undefined : opts.guidVersion === "v4" ? "GUID_VERSION_V4" : "GUID_VERSION_V7",
      claim: opts.claim,
      owner: opts.owner,
      numeric: opts.numeric,
    };
    if (opts.guidVersion !== undefined && opts.guidVersion !== "v4" && opts.guidVersion !== "v7") {
      throw invalidInput(`guidVersion must be "v4" or "v7" (got ${JSON.stringify(opts.guidVersion)})`);
    }
    return strings(await this.call({ method: "POST", path: "/v1/ids", body }, identity ? "leader" : "any", opts), "ids");
  }

  /**
   * The next count (default 1) values of the identity name, consecutive, from the leader.
   * Concurrent calls for one value with no requestId of their own share one call (see fold.ts):
   * a block must stay consecutive, and a caller's request id names exactly one reservation.
   */
  nextIdentity(name: string, opts: CallOptions & { count?: number; requestId?: string } = {}): Promise<IdentityBlock> {
    // Not async: a folded caller's value then reaches it in one step fewer of the microtask queue.
    try {
      seg("identity name", name);
    } catch (e) {
      return Promise.reject(e);
    }
    if ((opts.count === undefined || opts.count === 1) && opts.requestId === undefined) return this.fold.next(name, opts);
    return this.sendIdentity(name, opts);
  }

  private async sendIdentity(name: string, opts: CallOptions & { count?: number; requestId?: string }, refusals?: Refusals): Promise<IdentityBlock> {
    const body = { count: count("count", opts.count), requestId: opts.requestId ?? newRequestId() };
    return identityBlock(await this.call({ method: "POST", path: `/v1/identities/${seg("identity name", name)}:next`, body }, "leader", opts, refusals));
  }

  /** Raises the identity to value (never lowers it unless force); returns the stored value. */
  async seedIdentity(name: string, value: bigint | number, opts: CallOptions & { force?: boolean } = {}): Promise<bigint> {
    const body = { value: int64("value", value, 0n), force: opts.force };
    return big(await this.call({ method: "POST", path: `/v1/identities/${seg("identity name", name)}:seed`, body }, "leader", opts), "value");
  }

  /** One page of identities whose names start with prefix; see identities() for all of them. */
  async listIdentities(opts: CallOptions & { prefix?: string; pageSize?: number; pageToken?: string } = {}): Promise<{ identities: Identity[]; nextPageToken: string }> {
    const query = { prefix: opts.prefix, pageSize: count("pageSize", opts.pageSize), pageToken: opts.pageToken };
    const page = await this.call({ method: "GET", path: "/v1/identities", query }, "leader", opts);
    return {
      identities: list(page, "identities").map((i) => ({ name: str(object(i), "name"), value: big(object(i), "value") })),
      nextPageToken: str(page, "nextPageToken"),
    };
  }

  /** Every identity whose name starts with prefix, page after page. */
  async *identities(prefix = "", opts: CallOptions & { pageSize?: number } = {}): AsyncGenerator<Identity, void, undefined> {
    let token = "";
    for (;;) {
      const page = await this.listIdentities({ ...opts, prefix, pageToken: token });
      yield* page.identities;
      if (page.nextPageToken === "" || page.nextPageToken === token || page.identities.length === 0) return;
      token = page.nextPageToken;
    }
  }

  /** Claims semantic IDs cluster-wide for owner; refused ALREADY_EXISTS (CLAIMED) when one is held. */
  async claim(ids: readonly string[], opts: CallOptions & { owner?: string; requestId?: string } = {}): Promise<void> {
    const body = { ids: [...ids], owner: opts.owner, requestId: opts.requestId ?? newRequestId() };
    await this.call({ method: "POST", path: "/v1/claims", body }, "leader", opts);
  }

  /** Releases claims (only owner's, when given); returns how many were released. */
  async release(ids: readonly string[], opts: CallOptions & { owner?: string } = {}): Promise<bigint> {
    const body = { ids: [...ids], owner: opts.owner };
    return big(await this.call({ method: "POST", path: "/v1/claims:release", body }, "leader", opts), "released");
  }

  /** Releases every ID owner claimed in the client's database; returns how many were released. */
  async releaseOwner(owner: string, opts: CallOptions = {}): Promise<bigint> {
    return big(await this.call({ method: "POST", path: "/v1/claims:releaseOwner", body: { owner } }, "leader", opts), "released");
  }

  /** The claims held on ids (the unclaimed ones are left out). */
  async getClaims(ids: readonly string[], opts: CallOptions = {}): Promise<Claim[]> {
    const page = await this.call({ method: "GET", path: "/v1/claims", query: { ids: [...ids] } }, "leader", opts);
    return list(page, "claims").map((c) => ({ id: str(object(c), "id"), owner: str(object(c), "owner") }));
  }

  /**
   * Reserves a HiLo range for tag (what a generator does; most callers want hilo() or nextId()).
   * The attempts that fail go to refusals when given (see RangeSource).
   */
  async nextHiLo(tag: string, req: NextHiLoRequest = {}, opts: CallOptions = {}, refusals?: Refusals): Promise<HiLoRange> {
    if (req.separator !== undefined) checkSeparator(req.separator);
    const body = {
      lastBatchSize: req.lastBatchSize === undefined ? undefined : int64("lastBatchSize", req.lastBatchSize, 0n),
      lastRangeAt: req.lastRangeAt === undefined ? undefined : int64("lastRangeAt", req.lastRangeAt, 0n),
      lastMax: req.lastMax === undefined ? undefined : int64("lastMax", req.lastMax, 0n),
      separator: req.separator,
      requestId: req.requestId ?? newRequestId("hilo-"),
    };
    // With HiLo pools (the default) any node grants a range from its own pool; without them a
    // follower relays to the leader. Only a client with a region sends it to any node, so that
    // it stays in its region; the others keep saving the relay.
    const route: Route = this.transport.regional ? "any" : "leader";
    const answer = await this.transport.call({ method: "POST", path: `/v1/hilo/${seg("hilo tag", tag)}:next`, body }, route, opts, refusals);
    const r = answer.body;
    const range: HiLoRange = {
      prefix: str(r, "prefix"),
      low: big(r, "low"),
      high: big(r, "high"),
      lastSize: big(r, "lastSize"),
      serverTag: str(r, "serverTag"),
      lastRangeAt: big(r, "lastRangeAt"),
      grantId: str(r, "grantId"),
    };
    this.rememberGrant(range.grantId, answer.node);
    return range;
  }

  private rememberGrant(grantId: string, node: number): void {
    if (grantId === "") return;
    this.grants.delete(grantId);
    this.grants.set(grantId, node);
    if (this.grants.size > MAX_GRANTS) {
      const oldest = this.grants.keys().next();
      if (oldest.done !== true) this.grants.delete(oldest.value);
    }
  }

  /**
   * Gives back the numbers last+1..end of a range; true when the cluster took them. Sent first to
   * the node that granted the range: under HiLo pools only its pool can take it back. Every
   * attempt carries one request id (ret.requestId, or a new one), so a retry of a return that
   * took effect answers true as the first attempt did.
   */
  async returnHiLo(tag: string, ret: HiLoReturn, opts: ReturnOptions = {}): Promise<boolean> {
    const body = {
      end: int64("end", ret.end, 0n), last: int64("last", ret.last, 0n), grantId: ret.grantId,
      requestId: ret.requestId ?? newRequestId("hilo-return-"),
    };
    const granter = this.grants.get(ret.grantId);
    const route: Route = granter !== undefined ? { node: granter } : "leader";
    const r = await this.call({ method: "POST", path: `/v1/hilo/${seg("hilo tag", tag)}:return`, body, keepalive: opts.keepalive }, route, opts);
    return bool(r, "returned");
  }

  /** Raises tag's HiLo maximum to max (never lowers it); returns the maximum now. */
  async seedHiLo(tag: string, max: bigint | number, opts: CallOptions = {}): Promise<bigint> {
    const body = { max: int64("max", max, 0n) };
    return big(await this.call({ method: "POST", path: `/v1/hilo/${seg("hilo tag", tag)}:seed`, body }, "leader", opts), "max");
  }

  /** One page of the database's HiLo tags whose names start with prefix. */
  async listHiLo(opts: CallOptions & { prefix?: string; pageSize?: number; pageToken?: string } = {}): Promise<{ tags: HiLoTag[]; nextPageToken: string }> {
    const query = { prefix: opts.prefix, pageSize: count("pageSize", opts.pageSize), pageToken: opts.pageToken };
    const page = await this.call({ method: "GET", path: "/v1/hilo", query }, "leader", opts);
    return {
      tags: list(page, "tags").map((t) => {
        const o = object(t);
        const pools = list(o, "pools").map((p) => {
          const q = object(p);
          return { node: str(q, "node"), reserved: big(q, "reserved"), answered: bool(q, "answered"), remaining: big(q, "remaining"), target: big(q, "target"), toppedUpMs: big(q, "toppedUpMs") };
        });
        return { tag: str(o, "tag"), max: big(o, "max"), floor: big(o, "floor"), pools };
      }),
      nextPageToken: str(page, "nextPageToken"),
    };
  }

  /** The HiLo generator of tag, made on first use and shared by every caller of this client. */
  hilo(tag: string): HiLoGenerator {
    if (this.closing !== null) throw new ClosedError("client");
    return this.gens.get(tag);
  }

  /**
   * The next HiLo ID of tag ("orders/17-A"), from hilo(tag). opts bounds a wait for a range, the
   * only time it waits (see HiLoGenerator.next).
   */
  nextId(tag: string, opts?: CallOptions): Promise<string> {
    if (this.closing !== null) return Promise.reject(new ClosedError("client"));
    return this.gens.next(tag, opts);
  }

  /** A HiLo generator for tag with options of its own, owned by the caller (close it). */
  newHiLoGenerator(tag: string, opts: Omit<HiLoOptions, "separator"> = {}): HiLoGenerator {
    return new HiLoGenerator(this, tag, { ...this.hiloOpts, ...opts });
  }

  /**
   * Fills in entity.id the way the seeds' conventions do on store, and returns it:
   * - empty or absent: a HiLo ID of the entity's collection, nextId(collection), e.g.
   *   "orders/1-A". The collection is opts.collection, else the plural of the entity's class
   *   name (Order → orders, PackageTracking → PackageTrackings; a plain object has none, and a
   *   minifier that renames classes renames collections: give opts.collection then);
   * - ending with the separator or "|" ("orders/", "orders|"): resolved by the cluster, a
   *   server-side ID or an identity, e.g. "orders/0000000000000000001-A" or "orders/1";
   * - anything else: kept once the cluster found it a valid ID (INVALID_ARGUMENT otherwise);
   *   with claim, also claimed cluster-wide (ALREADY_EXISTS when it is taken).
   */
  async assignId(entity: { id?: string }, opts: CallOptions & { collection?: string; claim?: boolean; owner?: string } = {}): Promise<string> {
    const given = entity.id ?? "";
    let id: string;
    if (given === "") {
      const ctor = (Object.getPrototypeOf(entity) as { constructor?: { name?: string } } | null)?.constructor;
      const collection = opts.collection ?? (ctor === undefined || ctor === Object ? "" : collectionName(ctor.name ?? ""));
      if (collection === "") throw invalidInput("assignId: the entity's class gives no collection name (a plain object?); give opts.collection");
      id = await this.nextId(collection);
    } else if (given.endsWith("|") || given.endsWith(this.separator)) {
      const ids = await this.generate(given, opts);
      if (ids.length !== 1) throw errorOf(Code.INTERNAL, `idnode: generate(${JSON.stringify(given)}) returned ${ids.length} IDs, want 1`);
      id = ids[0] as string;
    } else {
      await this.generate(given, { ...opts, claim: opts.claim === true ? true : undefined });
      return given;
    }
    entity.id = id;
    return id;
  }

  /**
   * What an ID is: its strategy, and for a numeric ID its time, worker and sequence. An opaque
   * form of `opts.database` (default: the client's) is `opaque` in the answer, its value filled
   * for an admin only; a string under an opaque collection that is no form of the database is
   * a NotOpaqueFormError.
   */
  async explain(id: string, opts: CallOptions & { database?: string } = {}): Promise<Explanation> {
    const r = await this.call({ method: "GET", path: "/v1/explain", query: { id, database: opts.database } }, "any", opts);
    return {
      kind: str(r, "kind"),
      encoding: str(r, "encoding"),
      value: big(r, "value"),
      layout: str(r, "layout"),
      time: str(r, "time"),
      worker: num(r, "worker"),
      sequence: big(r, "sequence"),
      prefix: str(r, "prefix"),
      number: str(r, "number"),
      nodeTag: str(r, "nodeTag"),
      guidVersion: num(r, "guidVersion"),
      notes: strings(r, "notes"),
      opaque: bool(r, "opaque"),
    };
  }

  /** Creates a fiscal series; format is like "INV-{n:04}". */
  async createSeries(name: string, format: string, opts: CallOptions & { period?: SeriesPeriod; policy?: SeriesPolicy; requestId?: string } = {}): Promise<Series> {
    const period = opts.period ?? "none";
    const policy = opts.policy ?? "gapless";
    if (!(period in periods)) throw invalidInput(`period must be "none", "year" or "month" (got ${JSON.stringify(period)})`);
    if (!(policy in policies)) throw invalidInput(`policy must be "gapless" or "gapsAllowedJournaled" (got ${JSON.stringify(policy)})`);
    const body = { name, format, period: periods[period], policy: policies[policy], requestId: opts.requestId ?? newRequestId() };
    return series(object((await this.call({ method: "POST", path: "/v1/series", body }, "leader", opts)).series));
  }

  /** The series of the client's database. */
  async listSeries(opts: CallOptions = {}): Promise<Series[]> {
    return list(await this.call({ method: "GET", path: "/v1/series" }, "leader", opts), "series").map((s) => series(object(s)));
  }

  /** The journal of a series: its entries from fromSeq to toSeq (both 1-based and inclusive; 0: from the first, to the last). */
  async journal(name: string, opts: CallOptions & { fromSeq?: bigint | number; toSeq?: bigint | number } = {}): Promise<SeriesEntry[]> {
    const query = {
      fromSeq: opts.fromSeq === undefined ? undefined : int64("fromSeq", opts.fromSeq, 0n),
      toSeq: opts.toSeq === undefined ? undefined : int64("toSeq", opts.toSeq, 0n),
    };
    const r = await this.call({ method: "GET", path: `/v1/series/${seg("series name", name)}/journal`, query, stream: true }, "leader", opts);
    return list(r, "results").map((e) => seriesEntry(object(e)));
  }

  /** Issues the series' next number; a retry with the same requestId answers the same entry. */
  async issue(
    series: string,
    opts: CallOptions & { requestId?: string; documentHash?: string; fields?: Record<string, string>; actor?: string } = {},
  ): Promise<SeriesEntry> {
    const fields = Object.entries(opts.fields ?? {}).map(([key, value]) => ({ key, value }));
    const body = { requestId: opts.requestId ?? newRequestId(), documentHash: opts.documentHash, fields, actor: opts.actor };
    return seriesEntry(object((await this.call({ method: "POST", path: `/v1/series/${seg("series name", series)}:issue`, body }, "leader", opts)).entry));
  }

  /** Voids an issued number: a void is an entry of its own; the number is never reused. */
  async voidNumber(
    series: string,
    number: bigint | number,
    opts: CallOptions & { period?: string; reason?: string; correcting?: string; requestId?: string; actor?: string } = {},
  ): Promise<SeriesEntry> {
    const body = { number: int64("number", number, 1n), period: opts.period, reason: opts.reason, correcting: opts.correcting, requestId: opts.requestId ?? newRequestId(), actor: opts.actor };
    return seriesEntry(object((await this.call({ method: "POST", path: `/v1/series/${seg("series name", series)}:void`, body }, "leader", opts)).entry));
  }

  /** Walks the series' hash chain. */
  async verifySeries(series: string, opts: CallOptions = {}): Promise<SeriesVerification> {
    const r = await this.call({ method: "GET", path: `/v1/series/${seg("series name", series)}:verify` }, "leader", opts);
    return { ok: bool(r, "ok"), entries: big(r, "entries"), issued: big(r, "issued"), voided: big(r, "voided"), breakSeq: big(r, "breakSeq"), breakReason: str(r, "breakReason") };
  }

  /** Leases a worker id of the database for leaseMs (1 s to 1 h) under a layout of workerBits (1..62). */
  async acquireWorker(holder: string, workerBits: number, leaseMs: number, opts: CallOptions = {}): Promise<WorkerLease> {
    const body = { holder, workerBits: whole("workerBits", workerBits, 1, 62), leaseMs: String(whole("leaseMs", leaseMs, MIN_LEASE_MS, MAX_LEASE_MS)), requestId: newRequestId() };
    return workerLease(await this.call({ method: "POST", path: "/v1/workers:acquire", body }, "leader", opts));
  }

  /** Extends the lease of worker (under epoch, which fences out a holder that lost it) by leaseMs. */
  async renewWorker(worker: number, epoch: bigint, leaseMs: number, opts: CallOptions = {}): Promise<WorkerLease> {
    const body = { epoch: int64("epoch", epoch, 0n), leaseMs: String(whole("leaseMs", leaseMs, MIN_LEASE_MS, MAX_LEASE_MS)) };
    return workerLease(await this.call({ method: "POST", path: `/v1/workers/${whole("worker", worker, 0, MAX_WORKER)}:renew`, body }, "leader", opts));
  }

  /** One page of the worker ids leased in the client's database. */
  async listWorkers(opts: CallOptions & { pageSize?: number; pageToken?: string } = {}): Promise<{ workers: WorkerStatus[]; nextPageToken: string }> {
    const query = { pageSize: count("pageSize", opts.pageSize), pageToken: opts.pageToken };
    const page = await this.call({ method: "GET", path: "/v1/workers", query }, "leader", opts);
    return {
      workers: list(page, "workers").map((w) => ({ ...workerLease(object(w)), database: str(object(w), "database"), holder: str(object(w), "holder") })),
      nextPageToken: str(page, "nextPageToken"),
    };
  }

  /** Gives worker back before its lease ends. */
  async releaseWorker(worker: number, epoch: bigint, opts: CallOptions = {}): Promise<void> {
    const body = { epoch: int64("epoch", epoch, 0n) };
    await this.call({ method: "POST", path: `/v1/workers/${whole("worker", worker, 0, MAX_WORKER)}:release`, body }, "leader", opts);
  }

  /**
   * A numeric ID generator: leases a worker of the client's database (this waits for the
   * lease), then mints 64-bit IDs as bigint with no network call, renewing at a third of the
   * lease. Closing the client closes it.
   */
  async numericGenerator(opts: NumericOptions = {}): Promise<NumericGenerator> {
    if (this.closing !== null) throw new ClosedError("client");
    const g = await NumericGenerator.start(this, opts);
    this.numerics.add(g);
    return g;
  }

  /**
   * The cluster as the node that answers sees it; consistent has the leader confirm its
   * leadership with a quorum first, so a client with a region sends that to the leader.
   */
  async status(opts: CallOptions & { consistent?: boolean } = {}): Promise<ClusterStatus> {
    const consistent = opts.consistent === true;
    const route: Route = consistent && this.transport.regional ? "leader" : "any";
    const r = await this.call({ method: "GET", path: "/v1/status", query: { consistent: consistent ? "true" : undefined } }, route, opts);
    const issued = object(r.issued);
    return {
      leader: str(r, "leader"),
      term: big(r, "term"),
      commitIndex: big(r, "commitIndex"),
      appliedIndex: big(r, "appliedIndex"),
      nodes: list(r, "nodes").map((n) => nodeStatus(object(n))),
      self: str(r, "self"),
      storageFault: str(r, "storageFault"),
      leaderChanges: list(r, "leaderChanges").map((c) => ({ atMs: big(object(c), "atMs"), leader: str(object(c), "leader"), term: big(object(c), "term") })),
      issued: Object.fromEntries(Object.keys(issued).map((k) => [k, big(issued, k)])),
      clusterVersion: clusterVersion(object(r.clusterVersion)),
    };
  }

  /** What the node makes of this client's credentials: whether it may make admin calls, and its API key. */
  async whoAmI(opts: CallOptions = {}): Promise<WhoAmI> {
    const r = await this.call({ method: "GET", path: "/v1/whoami" }, "any", opts);
    const key = keyStatus(object(r.key));
    return { admin: str(r, "admin"), keysRequired: bool(r, "keysRequired"), key: key.id === "" ? undefined : key };
  }

  /** The cluster version, from the leader. */
  async clusterVersion(opts: CallOptions = {}): Promise<ClusterVersion> {
    return clusterVersion(await this.call({ method: "GET", path: "/v1/cluster/version" }, "leader", opts));
  }

  /** Finalises a higher cluster version or lowers it (an admin call); setting it twice changes nothing. */
  async setClusterVersion(version: number, opts: CallOptions = {}): Promise<ClusterVersion> {
    const body = { version: whole("version", version, 1, 0xffffffff) };
    return clusterVersion(await this.call({ method: "POST", path: "/v1/cluster/version", body }, "leader", opts));
  }

  /*
   * The admin calls below change the cluster and are not simply repeatable (a repeated
   * createKey makes a second key, a repeated transferLeadership moves the leadership again), so
   * each goes to another node only when the first certainly did nothing: it refused the
   * connection or answered NO_QUORUM. After any other failure, see status() before trying again.
   */

  /** Creates a database with its limits (an admin call); a name deleted before comes back with its counters. */
  async createDatabase(name: string, opts: CallOptions & { maxIdentities?: bigint | number; maxCallsPerSecond?: number; maxClaims?: bigint | number } = {}): Promise<void> {
    const body = {
      name,
      maxIdentities: opts.maxIdentities === undefined ? undefined : int64("maxIdentities", opts.maxIdentities, 0n),
      maxCallsPerSecond: opts.maxCallsPerSecond,
      maxClaims: opts.maxClaims === undefined ? undefined : int64("maxClaims", opts.maxClaims, 0n),
    };
    await this.call({ method: "POST", path: "/v1/databases", body, atMostOnce: true }, "leader", opts);
  }

  /** Deletes a database (an admin call); without force, refused while it has counters. */
  async deleteDatabase(name: string, opts: CallOptions & { force?: boolean } = {}): Promise<void> {
    const query = { force: opts.force === true ? "true" : undefined };
    await this.call({ method: "DELETE", path: `/v1/databases/${seg("database name", name)}`, query, atMostOnce: true }, "leader", opts);
  }

  /**
   * Turns collections of a database ("default" for the default one) opaque, and with
   * `opts.numeric` its numeric IDs, for good (an admin call): `generate("orders|")` then answers
   * forms such as `orders/KC6HECSWE6SX7` that hide the counter's values, and `nextIdentity` on
   * them throws OpaqueCollectionError. The answer is the database's whole setting. Calling it
   * again with the same or more collections only adds, so it is retried like a read.
   */
  async makeOpaque(database: string, collections: readonly string[], opts: CallOptions & { numeric?: boolean } = {}): Promise<OpaqueStatus> {
    if (!Array.isArray(collections) || collections.some((c) => typeof c !== "string")) throw invalidInput("makeOpaque: collections must be an array of strings");
    const body = { collections: [...collections], numeric: opts.numeric === true ? true : undefined };
    const r = await this.call({ method: "POST", path: `/v1/databases/${seg("database name", database)}/opaque`, body }, "leader", opts);
    return { database: str(r, "database"), collections: strings(r, "collections"), numeric: bool(r, "numeric"), keyFingerprint: str(r, "keyFingerprint") };
  }

  /** The databases, "default" among them, as the leader knows them. */
  async listDatabases(opts: CallOptions = {}): Promise<DatabaseStatus[]> {
    return list(await this.call({ method: "GET", path: "/v1/databases" }, "leader", opts), "databases").map((d) => {
      const o = object(d);
      return {
        name: str(o, "name"),
        identities: big(o, "identities"),
        hiloTags: big(o, "hiloTags"),
        claims: big(o, "claims"),
        maxIdentities: big(o, "maxIdentities"),
        maxCallsPerSecond: num(o, "maxCallsPerSecond"),
        maxClaims: big(o, "maxClaims"),
        opaqueCollections: strings(o, "opaqueCollections"),
        opaqueNumeric: bool(o, "opaqueNumeric"),
        opaqueKeyFingerprint: str(o, "opaqueKeyFingerprint"),
      };
    });
  }

  /** Makes an API key of database with role ("reader", "writer" or "admin"); its key is shown only this once (an admin call). */
  async createKey(database: string, role: string, opts: CallOptions = {}): Promise<{ id: string; key: string }> {
    const r = await this.call({ method: "POST", path: "/v1/keys", body: { database, role }, atMostOnce: true }, "leader", opts);
    return { id: str(r, "id"), key: str(r, "key") };
  }

  /** Deletes an API key (an admin call). */
  async deleteKey(id: string, opts: CallOptions = {}): Promise<void> {
    await this.call({ method: "DELETE", path: `/v1/keys/${seg("key id", id)}`, atMostOnce: true }, "leader", opts);
  }

  /** The API keys, without their secrets (an admin call). */
  async listKeys(opts: CallOptions = {}): Promise<KeyStatus[]> {
    return list(await this.call({ method: "GET", path: "/v1/keys" }, "leader", opts), "keys").map((k) => keyStatus(object(k)));
  }

  /**
   * A consistent backup of the cluster's replicated state (an admin call); database names one
   * database to back up alone. The attempt's timeout bounds the whole transfer from one node.
   */
  async backup(opts: CallOptions & { database?: string } = {}): Promise<Backup> {
    const r = await this.call({ method: "GET", path: "/v1/backup", query: { database: opts.database }, stream: true }, "leader", opts);
    const chunks = list(r, "results").map((c) => object(c));
    const parts = chunks.map((c) => unbase64(str(c, "data")));
    const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) {
      data.set(p, at);
      at += p.length;
    }
    const first = chunks[0] ?? {};
    return { data, leader: str(first, "leader"), index: big(first, "index") };
  }

  /**
   * Raises the cluster's counters to at least a backup's (plus the margin `ahead`, to skip what
   * the backup's cluster issued after it was taken) and retires its node tags (an admin call).
   * It never lowers anything, so running it again is safe. A margin the answer does not echo is
   * MarginNotAppliedError, which carries the answer. Over HTTP the backup must fit the node's
   * largest body (--http-max-body, 4 MiB by default) in base64.
   */
  async restore(backup: Uint8Array, opts: RestoreOptions = {}): Promise<RestoreResult> {
    const asked = askedMargin(opts.ahead);
    const lines: string[] = [];
    for (let i = 0; i < backup.length || i === 0; i += RESTORE_CHUNK) {
      const chunk: JsonObject = { data: base64(backup.subarray(i, i + RESTORE_CHUNK)) };
      // The first chunk carries the margin; without one the request is what a build without margins sends.
      if (i === 0 && asked !== undefined) chunk.ahead = marginJson(asked);
      lines.push(JSON.stringify(chunk));
    }
    const r = await this.call({ method: "POST", path: "/v1/restore", text: lines.join("\n") }, "leader", opts);
    return restoreResult(r, asked);
  }

  /**
   * Registers a node and makes it a Raft member; returns it as registered, its tag included (an
   * admin call). Added again with the same tag and id, it only has its addresses refreshed.
   * Tried on another node only when the first certainly did nothing: without a tag, a repeat
   * would add a second member.
   */
  async addNode(node: NewNode, opts: CallOptions = {}): Promise<NodeStatus> {
    const body = { tag: node.tag, raftAddress: node.raftAddress, grpcAddress: node.grpcAddress, id: node.id, nonVoter: node.nonVoter };
    const r = await this.call({ method: "POST", path: "/v1/nodes", body, atMostOnce: true }, "leader", opts);
    return nodeStatus(object(r.node));
  }

  /** Takes the node with tag out of the cluster and retires the tag for ever (an admin call). */
  async removeNode(tag: string, opts: CallOptions = {}): Promise<void> {
    await this.call({ method: "DELETE", path: `/v1/nodes/${seg("node tag", tag)}`, atMostOnce: true }, "leader", opts);
  }

  /** Hands the leadership to the node with tag, or to any up-to-date voter without one; returns the new leader's tag (an admin call). */
  async transferLeadership(tag = "", opts: CallOptions = {}): Promise<string> {
    const r = await this.call({ method: "POST", path: "/v1/leader:transfer", body: { tag: tag === "" ? undefined : tag }, atMostOnce: true }, "leader", opts);
    return str(r, "leader");
  }

  /**
   * Gives back the HiLo numbers its generators did not hand out and the numeric generators'
   * workers, then refuses further calls. It takes at most opts.timeoutMs (default the
   * closeTimeoutMs option, 2 s), less when opts.signal ends first, and never fails: numbers no
   * node took back by then are gaps, counted in unreturned and logged as warnings, and a worker
   * not released lapses by itself. Calling it again returns the first call's promise. Under
   * `await using` (where the runtime has Symbol.asyncDispose) the client is closed the same way.
   */
  close(opts: CallOptions = {}): Promise<void> {
    if (this.closing === null) this.closing = this.shutdown(opts);
    return this.closing;
  }

  private async shutdown(opts: CallOptions): Promise<void> {
    const bound = new Deadline(opts, this.closeTimeoutMs);
    const within = { signal: bound.signal, timeoutMs: timeoutOf(opts, this.closeTimeoutMs) };
    try {
      await Promise.all([this.gens.close(within), ...[...this.numerics].map((g) => g.close(within))]);
    } finally {
      bound.dispose();
      this.transport.closed = true;
    }
  }

  /**
   * The HiLo numbers close() could not give back because no node took them within its bound
   * (each range logged too): gaps, which HiLo allows. Generators made with hiloGenerator() count
   * theirs in their own stats.
   */
  get unreturned(): number {
    return this.gens.unreturned;
  }
}

/** The runtime's Symbol.asyncDispose, where it has one (Node 20 and later, recent browsers). */
const asyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;
if (asyncDispose !== undefined) {
  // `await using client = new Client(…)` closes it as close() does.
  Object.defineProperty(Client.prototype, asyncDispose, {
    value(this: Client): Promise<void> {
      return this.close();
    },
    writable: true,
    configurable: true,
  });
}
