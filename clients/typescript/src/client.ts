import { AdminCalls } from "./admin.js";
import { Caller, seg } from "./caller.js";
import { DatabaseCalls } from "./databases.js";
import { ClosedError, Code, errorOf, invalidInput } from "./errors.js";
import { collectionName } from "./entity.js";
import { IdentityFold } from "./fold.js";
import { HiLoGenerator, HiLoGenerators, HiLoOptions, HiLoRange, HiLoReturn, NextHiLoRequest, RangeSource, ReturnOptions, checkSeparator, newRequestId } from "./hilo.js";
import { JsonObject, big, bool, count, int64, list, num, object, str, strings } from "./json.js";
import { Logger, SILENT } from "./log.js";
import { NumericGenerator, NumericOptions } from "./numeric.js";
import { Refusals } from "./refusals.js";
import { SeriesCalls } from "./series.js";
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
import { WorkerCalls } from "./workers.js";

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

function identityBlock(o: JsonObject): IdentityBlock {
  return { first: big(o, "first"), last: big(o, "last"), skipped: list(o, "skipped").map((v) => BigInt(typeof v === "string" || typeof v === "number" ? v : 0)) };
}

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
export class Client implements RangeSource {
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
  /** The calls that run the cluster: status, members, leadership, backups, cluster version, releaseOwner. */
  readonly admin: AdminCalls;
  /** The fiscal series' calls: create, list, issue, void, verify, journal. */
  readonly series: SeriesCalls;
  /** The calls that manage databases and their API keys. */
  readonly databases: DatabaseCalls;
  /** The worker leases' calls, which a NumericGenerator makes for itself. */
  readonly workers: WorkerCalls;

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
    const call: Caller = (req, route, callOpts, refusals) => this.call(req, route, callOpts, refusals);
    this.admin = new AdminCalls(call, this.transport.regional);
    this.series = new SeriesCalls(call);
    this.databases = new DatabaseCalls(call);
    this.workers = new WorkerCalls(call);
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

  /**
   * Releases claims (only owner's, when given); returns how many were released. A retry after a
   * lost answer carries the call's requestId (one of the client's when not given), so it answers
   * the first attempt's count (from cluster version 8; before, it may answer 0).
   */
  async release(ids: readonly string[], opts: CallOptions & { owner?: string; requestId?: string } = {}): Promise<bigint> {
    const body = { ids: [...ids], owner: opts.owner, requestId: opts.requestId ?? newRequestId() };
    return big(await this.call({ method: "POST", path: "/v1/claims:release", body }, "leader", opts), "released");
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

  /**
   * A numeric ID generator: leases a worker of the client's database (this waits for the
   * lease), then mints 64-bit IDs as bigint with no network call, renewing at a third of the
   * lease. Closing the client closes it.
   */
  async numericGenerator(opts: NumericOptions = {}): Promise<NumericGenerator> {
    if (this.closing !== null) throw new ClosedError("client");
    const w = this.workers;
    const leaser = {
      acquireWorker: w.acquire.bind(w),
      renewWorker: w.renew.bind(w),
      releaseWorker: w.release.bind(w),
      logger: this.logger,
    };
    const g = await NumericGenerator.start(leaser, opts);
    this.numerics.add(g);
    return g;
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

  /*
   * The calls below moved to the client's parts (client.admin, client.series, client.databases,
   * client.workers); these forwards stay one release so code can move at its own pace.
   */

  /** @deprecated use client.admin.status */
  status(...args: Parameters<AdminCalls["status"]>): ReturnType<AdminCalls["status"]> {
    return this.admin.status(...args);
  }

  /** @deprecated use client.admin.whoAmI */
  whoAmI(...args: Parameters<AdminCalls["whoAmI"]>): ReturnType<AdminCalls["whoAmI"]> {
    return this.admin.whoAmI(...args);
  }

  /** @deprecated use client.admin.clusterVersion */
  clusterVersion(...args: Parameters<AdminCalls["clusterVersion"]>): ReturnType<AdminCalls["clusterVersion"]> {
    return this.admin.clusterVersion(...args);
  }

  /** @deprecated use client.admin.setClusterVersion */
  setClusterVersion(...args: Parameters<AdminCalls["setClusterVersion"]>): ReturnType<AdminCalls["setClusterVersion"]> {
    return this.admin.setClusterVersion(...args);
  }

  /** @deprecated use client.admin.addNode */
  addNode(...args: Parameters<AdminCalls["addNode"]>): ReturnType<AdminCalls["addNode"]> {
    return this.admin.addNode(...args);
  }

  /** @deprecated use client.admin.removeNode */
  removeNode(...args: Parameters<AdminCalls["removeNode"]>): ReturnType<AdminCalls["removeNode"]> {
    return this.admin.removeNode(...args);
  }

  /** @deprecated use client.admin.transferLeadership */
  transferLeadership(...args: Parameters<AdminCalls["transferLeadership"]>): ReturnType<AdminCalls["transferLeadership"]> {
    return this.admin.transferLeadership(...args);
  }

  /** @deprecated use client.admin.backup */
  backup(...args: Parameters<AdminCalls["backup"]>): ReturnType<AdminCalls["backup"]> {
    return this.admin.backup(...args);
  }

  /** @deprecated use client.admin.restore */
  restore(...args: Parameters<AdminCalls["restore"]>): ReturnType<AdminCalls["restore"]> {
    return this.admin.restore(...args);
  }

  /** @deprecated use client.admin.releaseOwner */
  releaseOwner(...args: Parameters<AdminCalls["releaseOwner"]>): ReturnType<AdminCalls["releaseOwner"]> {
    return this.admin.releaseOwner(...args);
  }

  /** @deprecated use client.series.create */
  createSeries(...args: Parameters<SeriesCalls["create"]>): ReturnType<SeriesCalls["create"]> {
    return this.series.create(...args);
  }

  /** @deprecated use client.series.list */
  listSeries(...args: Parameters<SeriesCalls["list"]>): ReturnType<SeriesCalls["list"]> {
    return this.series.list(...args);
  }

  /** @deprecated use client.series.issue */
  issue(...args: Parameters<SeriesCalls["issue"]>): ReturnType<SeriesCalls["issue"]> {
    return this.series.issue(...args);
  }

  /** @deprecated use client.series.void */
  voidNumber(...args: Parameters<SeriesCalls["void"]>): ReturnType<SeriesCalls["void"]> {
    return this.series.void(...args);
  }

  /** @deprecated use client.series.verify */
  verifySeries(...args: Parameters<SeriesCalls["verify"]>): ReturnType<SeriesCalls["verify"]> {
    return this.series.verify(...args);
  }

  /** @deprecated use client.series.journal */
  journal(...args: Parameters<SeriesCalls["journal"]>): ReturnType<SeriesCalls["journal"]> {
    return this.series.journal(...args);
  }

  /** @deprecated use client.databases.create */
  createDatabase(...args: Parameters<DatabaseCalls["create"]>): ReturnType<DatabaseCalls["create"]> {
    return this.databases.create(...args);
  }

  /** @deprecated use client.databases.delete */
  deleteDatabase(...args: Parameters<DatabaseCalls["delete"]>): ReturnType<DatabaseCalls["delete"]> {
    return this.databases.delete(...args);
  }

  /** @deprecated use client.databases.list */
  listDatabases(...args: Parameters<DatabaseCalls["list"]>): ReturnType<DatabaseCalls["list"]> {
    return this.databases.list(...args);
  }

  /** @deprecated use client.databases.createKey */
  createKey(...args: Parameters<DatabaseCalls["createKey"]>): ReturnType<DatabaseCalls["createKey"]> {
    return this.databases.createKey(...args);
  }

  /** @deprecated use client.databases.deleteKey */
  deleteKey(...args: Parameters<DatabaseCalls["deleteKey"]>): ReturnType<DatabaseCalls["deleteKey"]> {
    return this.databases.deleteKey(...args);
  }

  /** @deprecated use client.databases.listKeys */
  listKeys(...args: Parameters<DatabaseCalls["listKeys"]>): ReturnType<DatabaseCalls["listKeys"]> {
    return this.databases.listKeys(...args);
  }

  /** @deprecated use client.workers.acquire */
  acquireWorker(...args: Parameters<WorkerCalls["acquire"]>): ReturnType<WorkerCalls["acquire"]> {
    return this.workers.acquire(...args);
  }

  /** @deprecated use client.workers.renew */
  renewWorker(...args: Parameters<WorkerCalls["renew"]>): ReturnType<WorkerCalls["renew"]> {
    return this.workers.renew(...args);
  }

  /** @deprecated use client.workers.list */
  listWorkers(...args: Parameters<WorkerCalls["list"]>): ReturnType<WorkerCalls["list"]> {
    return this.workers.list(...args);
  }

  /** @deprecated use client.workers.release */
  releaseWorker(...args: Parameters<WorkerCalls["release"]>): ReturnType<WorkerCalls["release"]> {
    return this.workers.release(...args);
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
